"""``tcecd play`` end to end (a real subprocess): matches, tournaments, SPRT, errors."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import pytest

from tcecd.cli import main
from tcecd.runner.stats import Pentanomial, Sprt, estimate_pentanomial

# Two openings: after 1. e4 and after 1. d4 (Black to move in both).
EPD = (
    'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id "King pawn";\n'
    'rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - id "Queen pawn";\n'
)


def tcecd(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcecd", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def read_games(path: Path) -> list[chess.pgn.Game]:
    games = []
    with path.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors, game.errors
            games.append(game)
    return games


def test_play_writes_pgn_and_summary(tmp_path: Path) -> None:
    openings = tmp_path / "two.epd"
    openings.write_text(EPD, encoding="utf-8")
    pgn = tmp_path / "out" / "match.pgn"
    proc = tcecd(
        "play",
        "ab-d1",
        "ab-d2",
        "--rounds",
        "2",
        "--games",
        "2",
        "--tc",
        "30+0.3",
        "--openings",
        str(openings),
        "--concurrency",
        "2",
        "--option",
        "Hash=8",
        "--pgn",
        str(pgn),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # Progress: one line per finished game.
    assert len(re.findall(r"^Finished game \d of 4 ", out, re.M)) == 4
    # The summary: the score line once (not again after the last progress line),
    # then fastchess's statistics over the two colour-reversed pairs.
    score = re.findall(
        r"^Score of ab-d1 vs ab-d2: (\d+) - (\d+) - (\d+)  \[([\d.]+)\] 4$", out, re.M
    )
    assert len(score) == 1, out
    wins, losses, draws = (int(x) for x in score[0][:3])
    assert wins + losses + draws == 4
    assert "Results of ab-d1 vs ab-d2 (30s + 0.3s/move):" in out
    assert (
        f"Games: 4, Wins: {wins}, Losses: {losses}, Draws: {draws}, "
        f"Points: {wins + draws / 2:.1f} ({(wins + draws / 2) / 4 * 100:.2f} %)"
    ) in out
    ptnml = re.search(r"^Ptnml\(0-2\): \[(\d+), (\d+), (\d+), (\d+), (\d+)\]", out, re.M)
    assert ptnml is not None
    assert sum(int(x) for x in ptnml.groups()) == 2  # two pairs of games
    assert "Elo difference" not in out  # cutechess's line is gone
    terminations = out.split("Terminations:\n", 1)[1].splitlines()
    counted = [line for line in terminations if re.match(r"^\s+\d+  \w", line)]
    assert sum(int(line.split()[0]) for line in counted) == 4

    games = read_games(pgn)
    assert len(games) == 4
    points = {"ab-d1": 0.0, "ab-d2": 0.0}
    by_fen: dict[str, list[str]] = {}
    for game in games:
        headers = game.headers
        result = headers["Result"]
        assert result in ("1-0", "0-1", "1/2-1/2")
        white_pts = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
        points[headers["White"]] += white_pts
        points[headers["Black"]] += 1 - white_pts
        assert headers["TimeControl"] == "30+0.3"
        assert headers["SetUp"] == "1"
        by_fen.setdefault(headers["FEN"], []).append(headers["White"])
        # The game replays legally from its start position to the end.
        board = game.board()
        for move in game.mainline_moves():
            assert board.is_legal(move)
            board.push(move)
    assert points["ab-d1"] == wins + draws / 2
    # Each opening was played twice, once with each engine as White.
    assert sorted(len(v) for v in by_fen.values()) == [2, 2]
    assert all(sorted(v) == ["ab-d1", "ab-d2"] for v in by_fen.values())


def test_play_rejects_unknown_engine_in_one_line(tmp_path: Path) -> None:
    proc = tcecd("play", "ab-d1", "no-such-engine", "--depth", "1", "--pgn", "x.pgn", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("tcecd: error: unknown engine 'no-such-engine'")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_play_needs_a_limit(tmp_path: Path) -> None:
    proc = tcecd("play", "ab-d1", "ab-d2", "--pgn", "x.pgn", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "tcecd: error: tcecd play: give a limit: --tc, --nodes, --depth or --movetime"
    )


def test_play_rejects_bad_time_control(tmp_path: Path) -> None:
    proc = tcecd("play", "ab-d1", "ab-d2", "--tc", "60++1", "--pgn", "x.pgn", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("tcecd: error: --tc: invalid time control")
    assert "'60++1'" in proc.stderr


def test_play_accepts_a_path_to_an_engine_program(tmp_path: Path) -> None:
    """ENGINE may be a program path (a .py script runs under this interpreter)."""
    program = Path(__file__).resolve().parents[2] / "engines" / "abengine.py"
    pgn = tmp_path / "path.pgn"
    proc = tcecd(
        "play", "ab-d1", str(program), "--games", "2", "--depth", "1", "--pgn", str(pgn),
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Score of ab-d1 vs abengine: " in proc.stdout
    games = read_games(pgn)
    assert len(games) == 2
    assert {g.headers["White"] for g in games} == {"ab-d1", "abengine"}
    assert all(g.headers["TimeControl"] == "-" for g in games)


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def test_ctrl_c_stops_the_match_and_its_engines(tmp_path: Path) -> None:
    """SIGINT (Ctrl-C) mid-match: the statistics of the games played (none yet
    here: both games were running), then exit 130 with one line on stderr, every
    engine process gone."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tcecd", "play", "ab-d2", "ab-d3", "--games", "20",
         "--tc", "60+1", "--concurrency", "2", "--pgn", str(tmp_path / "int.pgn")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A background shell ignores SIGINT for its children: restore the default.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        engines: list[int] = []
        for _ in range(200):  # up to 20 s for the four engines to start
            engines = _children(proc.pid)
            if len(engines) >= 4:
                break
            time.sleep(0.1)
        assert len(engines) >= 4
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130
    assert err.strip() == "tcecd: interrupted"
    assert "Match stopped before its end: the statistics of the games played." in out
    assert "Results of ab-d2 vs ab-d3" in out
    assert "\nGames: 0\n" in out
    assert [pid for pid in engines if _running(pid)] == []


def test_play_reports_an_unwritable_pgn_in_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    proc = tcecd("play", "ab-d1", "ab-d2", "--depth", "1", "--pgn", "file/out.pgn", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("tcecd: error: --pgn: cannot write 'file/out.pgn': ")
    assert "Traceback" not in proc.stderr


def test_xboard_node_limit_with_clock_is_a_one_line_error(tmp_path: Path) -> None:
    from tcecd.config.load import find_executable

    if find_executable("hoichess") is None:
        pytest.skip("hoichess is not installed")
    proc = tcecd(
        "play", "hoichess", "ab-d1", "--tc", "10+0.1", "--nodes", "1000", "--pgn", "x.pgn",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "tcecd: error: engine 'hoichess': an xboard engine cannot combine a node limit "
        "with a clock or a move time"
    )


FINISHED = re.compile(r"^Finished game (\d+) of (\d+) \((\S+) vs (\S+)\): (\S+) ", re.M)


@pytest.mark.slow
def test_round_robin_of_three_without_pgn(tmp_path: Path) -> None:
    """All against all, one round of two games: 3 pairings x 2 games, each pairing
    once with each colour; statistics every 3 games; no --pgn: no file written."""
    proc = tcecd(
        "play", "ab-d1", "ab-d2", "ab-d3", "--tournament", "round-robin", "--rounds", "1",
        "--games", "2", "--depth", "1", "--ratinginterval", "3", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    games = FINISHED.findall(out)
    assert [int(g[0]) for g in games] == [1, 2, 3, 4, 5, 6]
    assert {g[1] for g in games} == {"6"}
    colours = [(white, black) for _, _, white, black, _ in games]
    assert colours == [
        ("ab-d1", "ab-d2"), ("ab-d2", "ab-d1"),
        ("ab-d1", "ab-d3"), ("ab-d3", "ab-d1"),
        ("ab-d2", "ab-d3"), ("ab-d3", "ab-d2"),
    ]  # fmt: skip
    # The periodic statistics come after game 3 (not again after game 6: the
    # summary follows), with a block for each pairing.
    after_three = out.split("Finished game 3 of 6", 1)[1].split("Finished game 4 of 6", 1)[0]
    assert after_three.count("Results of ") == 3
    assert out.count("Results of ab-d1 vs ab-d2 (depth 1):") == 2
    assert "Rank Name" in out  # the standings of a tournament
    assert "PGN:" not in out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_gauntlet_of_three_with_openings(tmp_path: Path) -> None:
    """The first engine against each other one; two rounds of two games, round r
    on opening r, colours reversed within each round."""
    openings = tmp_path / "two.epd"
    openings.write_text(EPD, encoding="utf-8")
    pgn = tmp_path / "g.pgn"
    proc = tcecd(
        "play", "ab-d1", "ab-d2", "ab-d3", "--tournament", "gauntlet", "--rounds", "2",
        "--games", "2", "--depth", "1", "--openings", str(openings), "--pgn", str(pgn),
        "--quiet", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Finished game" not in proc.stdout  # --quiet
    # --quiet: the summary carries the score lines, once each.
    assert proc.stdout.count("Score of ab-d1 vs ab-d2: ") == 1
    assert proc.stdout.count("Score of ab-d1 vs ab-d3: ") == 1
    games = read_games(pgn)
    assert len(games) == 8
    rounds: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for game in games:
        h = game.headers
        assert "ab-d1" in (h["White"], h["Black"])  # ab-d2 never meets ab-d3
        opponent = h["Black"] if h["White"] == "ab-d1" else h["White"]
        round_number = h["Round"].split(".")[0]
        rounds.setdefault((opponent, round_number), []).append((h["White"], h["FEN"]))
    assert sorted(rounds) == [("ab-d2", "1"), ("ab-d2", "2"), ("ab-d3", "1"), ("ab-d3", "2")]
    first_fen = EPD.splitlines()[0].split(" id ")[0].strip()
    for (opponent, round_number), played in rounds.items():
        # Two games on one opening, once with each colour.
        assert sorted(white for white, _ in played) == sorted(["ab-d1", opponent])
        fens = {fen for _, fen in played}
        assert len(fens) == 1
        assert (fens.pop().startswith(first_fen[:40])) == (round_number == "1")


@pytest.mark.slow
def test_sprt_stops_the_match_early(tmp_path: Path) -> None:
    """ab-d2 against ab-d1 with an SPRT: the match stops at the first game pair
    whose LLR crosses a bound, long before the 100 scheduled games."""
    pgn = tmp_path / "sprt.pgn"
    proc = tcecd(
        "play", "ab-d2", "ab-d1", "--rounds", "50", "--games", "2", "--tc", "30+0.3",
        "--sprt", "elo0=0", "elo1=400", "alpha=0.3", "beta=0.3", "model=logistic",
        "--pgn", str(pgn), cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    games = read_games(pgn)
    # Replay the SPRT by hand over the PGN: pairs of games in playing order.
    sprt = Sprt(0, 400, 0.3, 0.3, "logistic")
    penta = Pentanomial()
    expected = None
    for k in range(0, len(games) - 1, 2):
        halves = []
        for game in games[k : k + 2]:
            white_half = {"1-0": 2, "0-1": 0, "1/2-1/2": 1}[game.headers["Result"]]
            halves.append(white_half if game.headers["White"] == "ab-d2" else 2 - white_half)
        penta = penta.add(halves[0], halves[1])
        if sprt.decision(sprt.llr(penta.counts())) is not None:
            expected = k + 2
            break
    assert expected is not None
    assert len(games) == expected < 100
    decision = sprt.decision(sprt.llr(penta.counts()))
    verdict = f"SPRT ([0.00, 400.00]) completed - {decision} was accepted after {expected} games"
    assert verdict in proc.stdout
    llr_line = re.findall(
        r"^LLR: (-?[\d.]+) \(-0\.85, 0\.85\) \[0\.00, 400\.00\]$", proc.stdout, re.M
    )
    assert llr_line[-1] == f"{sprt.llr(penta.counts()):.2f}"
    estimate = estimate_pentanomial(penta)
    assert estimate is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tournament", "swiss"],
         "--tournament: expected round-robin, gauntlet or knockout, got 'swiss'"),
        (["--sprt", "elo0=5", "elo1=0"], "--sprt: elo0 (5) must be below elo1 (0)"),
        (["--sprt", "elo0=0"], "--sprt: elo1= is required"),
        (["--sprt", "elo0=0", "elo1=5", "model=bayes"],
         "--sprt: model must be normalized or logistic, got 'bayes'"),
        (["--draw", "movenumber=40", "movecount=x", "score=10"],
         "--draw: movecount must be a whole number, got 'x'"),
        (["--draw", "moves=3"],
         "--draw: expected movenumber=.. movecount=.. score=.., got 'moves=3'"),
        (["--resign", "movecount=3"], "--resign: score=CP is required"),
        (["--draw", "score=50", "--resign", "score=20"],
         "--resign: score 20 must be above --draw score 50"),
        (["--each", "ponder=on"], "--each: unknown key 'ponder' (tc, st, nodes, depth, plies, "
         "timemargin, restart, proto, option.NAME)"),
        (["--each", "depth=2"], "--each depth=2: --depth is given too"),
        (["--maxmoves", "0"], "--maxmoves: must be at least 1, got 0"),
        (["--rounds", "0"], "--rounds: must be at least 1, got 0"),
        (["--tb", "no-such-dir"], "--tb: tablebase directory not found: 'no-such-dir'"),
    ],
)  # fmt: skip
def test_play_flag_errors_are_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    """In process (the CLI's own entry point), for speed: each is one line, exit 2."""
    monkeypatch.chdir(tmp_path)
    assert main(["play", "ab-d1", "ab-d2", "--depth", "1", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"tcecd: error: {message}\n"
    assert captured.out == ""


def test_sprt_needs_two_engines(tmp_path: Path) -> None:
    proc = tcecd(
        "play", "ab-d1", "ab-d2", "ab-d3", "--depth", "1", "--sprt", "elo0=0", "elo1=5",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip() == "tcecd: error: --sprt: needs exactly two engines, got 3"
