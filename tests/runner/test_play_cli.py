"""``tcecd play`` end to end (a real subprocess), and the match arithmetic."""

from __future__ import annotations

import math
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import pytest

from tcecd.runner.match import elo_estimate, format_elo

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
        "--games",
        "4",
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
    # The summary: score, Elo with its error bar, terminations.
    score = re.findall(
        r"^Score of ab-d1 vs ab-d2: (\d+) - (\d+) - (\d+)  \[([\d.]+)\] 4$", out, re.M
    )
    assert score, out
    wins, losses, draws = (int(x) for x in score[-1][:3])
    assert wins + losses + draws == 4
    assert f"Elo difference: {format_elo(wins, losses, draws)} (95%)" in out
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


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "elo", "margin"),
    [
        # Worked by hand: p = 0.55, Elo = -400 log10(1/0.55 - 1) = 34.86;
        # var = (30*0.45^2 + 20*0.55^2 + 50*0.05^2)/100 = 0.1225, p ± 1.96*0.035
        # = 0.4814 .. 0.6186 -> -12.94 .. +84.00 Elo, half-width 48.47.
        (30, 20, 50, 34.86, 48.47),
        # p = 0.7: 147.19; var = 0.16, p ± 1.96*0.1265 = 0.452 .. 0.948 -> -33.4 .. 504.0.
        (6, 2, 2, 147.19, 268.72),
        # An even score: 0 Elo, symmetric error bar.
        (10, 10, 0, 0.0, None),
    ],
)
def test_elo_estimate_matches_hand_computation(
    wins: int, losses: int, draws: int, elo: float, margin: float | None
) -> None:
    diff, error = elo_estimate(wins, losses, draws)
    assert diff == pytest.approx(elo, abs=0.01)
    if margin is not None:
        assert error == pytest.approx(margin, abs=0.01)
    else:
        assert error > 0


def test_elo_estimate_extremes() -> None:
    assert elo_estimate(0, 0, 0)[0] != elo_estimate(0, 0, 0)[0]  # NaN: no games
    assert elo_estimate(3, 0, 0) == (math.inf, math.inf)
    assert elo_estimate(0, 3, 0) == (-math.inf, math.inf)
    assert format_elo(0, 0, 0) == "n/a"


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
    """SIGINT (Ctrl-C) mid-match: exit 130 with one line, every engine process gone."""
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
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130
    assert err.strip() == "tcecd: interrupted"
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
