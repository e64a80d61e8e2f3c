"""``tcecd replay`` as a user runs it: exit codes, messages, tables, files."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tcecd.cli import main
from tcecd.replay.progress import ProgressBar
from tests.fixtures.replay_pgn import headers_pgn, simulate_event, tcecd_pgn
from tests.replay.test_rebuild import HAND_4, SAMPLES, needs_samples, pgn_game


def write(tmp_path: Path, text: str, name: str = "event.pgn") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def hand(*games: tuple[str, str, str, str]) -> str:
    return "".join(pgn_game(*g) for g in games)


@needs_samples
@pytest.mark.parametrize("name", ["a_10p_7r_single.pgn", "c_8p_5r_double.pgn"])
def test_verify_accepts_the_tcec_samples(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert SAMPLES is not None
    assert main(["replay", str(SAMPLES / name), "--verify"]) == 0
    out = capsys.readouterr().out
    assert "seeds inferred from round 1" in out
    assert out.rstrip().endswith("follow the TCEC Swiss rules")
    assert "OK: all" in out


def test_verify_reports_a_deviation_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, hand(*HAND_4[:3], ("2.2", "P4", "P1", "0-1")))
    assert main(["replay", str(path), "--verify", "--quiet"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "round 2 game 2: rules give P1 (white) vs P4 (black); "
        "PGN has P4 (white) vs P1 (black) [colours swapped]",
        # A hand-written PGN names no system: the verdict says what it assumed.
        "FAILED: 1 deviation from the TCEC Swiss rules (assumed: the PGN does not name its "
        "pairing system; give --system NAME or --config EVENT.yaml for another)",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            hand(HAND_4[0], ("3", "P2", "P1", "0-1")),
            "event.pgn: game 2: Round tag '3' is not \"r.g\"",
        ),
        (
            hand(HAND_4[0], ("1.3", "P2", "P1", "0-1")),
            "event.pgn: game 2: Round tag '1.3' out of order (expected '1.2' or '2.1': "
            "games must be in playing order)",
        ),
        (
            hand(*HAND_4[:2], ("2.1", "P3", "P1", "1-0"), ("2.2", "P1", "P4", "1-0")),
            "event.pgn: game 4: 'P1' plays game 2 of single round 2",
        ),
        (
            hand(*HAND_4[:2], ("2.1", "P3", "X5", "1-0"), ("2.2", "P1", "X6", "1-0")),
            "event.pgn: game 4: unknown player 'X6': not in round 1, whose BYE went to "
            "'X5' (give --config to name the players)",
        ),
        (
            hand(*HAND_4[:2], ("2.1", "P3", "P2", "1-0")) + hand(("3.1", "P1", "P4", "1-0")),
            "event.pgn: game 3: round 2 has 1 games where 4 players play 2 in a single round",
        ),
        (
            hand(HAND_4[0], ("1.2", "P2", "P1", "2-0")),
            "event.pgn: game 2: invalid result: '2-0' (expected 1-0, 0-1, 1/2-1/2 or *)",
        ),
        (
            hand(HAND_4[0], ("1.2", "P2", "P1", "*"), ("2.1", "P3", "P2", "1-0")),
            "event.pgn: game 2: unfinished game (Result '*') before the end of the PGN",
        ),
        (
            hand(("1.1", "P2", "P2", "1-0")),
            "event.pgn: game 1: 'P2' plays against itself",
        ),
        ("just some text\n", "event.pgn: game 1: no PGN tags (is this a PGN file?)"),
        ("", "event.pgn: no PGN game found"),
        (
            '[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1-0\n',
            'event.pgn: game 1: missing Round tag (expected "r.g")',
        ),
    ],
)
def test_bad_pgn_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = write(tmp_path, text)
    assert main(["replay", str(path), "--verify"]) == 2
    err = capsys.readouterr().err
    assert err == f"tcecd: error: {message}\n"


def test_missing_tag_and_binary_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, '[Round "1.1"]\n[White "A"]\n[Result "1-0"]\n\n1-0\n\n')
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == "tcecd: error: event.pgn: game 1: missing Black tag\n"
    binary = tmp_path / "x.pgn"
    binary.write_bytes(b'[Event "\xff\xfe"]\n\n*\n')
    assert main(["replay", str(binary)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcecd: error: x.pgn: game 1: not UTF-8 text")
    assert err.count("\n") == 1


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nope.pgn")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcecd: error: ")
    assert "nope.pgn: cannot read" in err
    assert err.count("\n") == 1


def test_tables_and_tcec_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    players, games, history = simulate_event(5, 3)
    path = write(tmp_path, tcecd_pgn(games))
    out_dir = tmp_path / "out"
    code = main(["replay", str(path), "--crosstable", "--schedule", "--out", str(out_dir)])
    assert code == 0
    out = capsys.readouterr().out
    assert "5 players (seeds inferred from round 1), 3 complete single rounds" in out
    assert "BYE+" in out  # the crosstable shows the BYEs
    assert "1.1" in out
    assert "3.2" in out

    schedule = json.loads((out_dir / "schedule.json").read_text())
    assert len(schedule) == len(games) == 6
    for entry, g in zip(schedule, games, strict=True):
        assert (entry["White"], entry["Black"], entry["Result"]) == (
            g.white,
            g.black,
            g.result.value,
        )
        assert entry["Moves"] == 2  # four plies
        assert entry["ECO"] == "C20"
        assert entry["FinalFen"].startswith("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/")

    table = json.loads((out_dir / "crosstable.json").read_text())
    assert table["Event"] == "tcecd-sim"
    assert sorted(table["Order"]) == [p.id for p in players]
    # Every player played 2 of the 3 rounds (one BYE each for 3 of them, 5 players:
    # 3 rounds x 2 games = 6 games = 12 player-games).
    assert sum(row["Games"] for row in table["Table"].values()) == 12
    byes = {r.bye for r in history}
    for name, row in table["Table"].items():
        assert row["Games"] == (2 if name in byes else 3)


def test_quiet_verify_on_a_good_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, games, _ = simulate_event(6, 3, double=True)
    path = write(tmp_path, headers_pgn(games))
    assert main(["replay", str(path), "--verify", "--quiet"]) == 0
    assert capsys.readouterr().out == "OK: all 18 games follow the TCEC Swiss rules\n"


def test_single_flag_contradicting_the_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, games, _ = simulate_event(4, 2, double=True)
    path = write(tmp_path, headers_pgn(games))
    assert main(["replay", str(path), "--single"]) == 2
    assert "plays twice in round 1" in capsys.readouterr().err


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal() -> None:
    tty = FakeTty()
    bar = ProgressBar("reading x.pgn", tty)
    bar(50, 100)
    bar(51, 100)
    bar(100, 100)
    bar.close()
    shown = tty.getvalue()
    assert "reading x.pgn [###############...............]  50%  1 games" in shown
    assert " 100%  3 games" in shown
    pipe = io.StringIO()
    quiet = ProgressBar("reading x.pgn", pipe)
    quiet(50, 100)
    quiet.close()
    assert pipe.getvalue() == ""


CONFIG = """
event: {{name: hand}}
pairing: {{rounds: 2, double: {double}, seeding: {{method: rating}}}}
engines:
{engines}
time_control: {{tc: "10+0.1"}}
"""


def config(tmp_path: Path, ratings: dict[str, int], double: bool = False) -> Path:
    engines = "\n".join(
        f"  - {{ref: ab-d1, name: {n}, rating: {r}}}" for n, r in ratings.items()
    )
    path = tmp_path / "event.yaml"
    path.write_text(CONFIG.format(engines=engines, double=str(double).lower()))
    return path


def test_seeds_from_the_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Rating seeding: P1 (2000) is seed 1, P2 (1900) seed 2, ... whatever the order given.
    cfg = config(tmp_path, {"P3": 1800, "P1": 2000, "P4": 1700, "P2": 1900})
    path = write(tmp_path, hand(*HAND_4))
    assert main(["replay", str(path), "--config", str(cfg), "--verify"]) == 0
    out = capsys.readouterr().out
    assert "4 players (seeds from the config), 2 complete single rounds (given)" in out


def test_config_seeds_that_contradict_round_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # P2 rated highest: seed 1 is P2, so round 1 should be 1.1 P4-P3, 1.2 P1-P2.
    cfg = config(tmp_path, {"P1": 1900, "P2": 2000, "P3": 1800, "P4": 1700})
    path = write(tmp_path, hand(*HAND_4))
    assert main(["replay", str(path), "--config", str(cfg), "--verify", "--quiet"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "round 1 game 2: rules give P1 (white) vs P2 (black); "
        "PGN has P2 (white) vs P1 (black) [colours swapped]"
    )


def test_player_missing_from_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = config(tmp_path, {"P1": 2000, "P2": 1900, "P3": 1800, "P5": 1700})
    path = write(tmp_path, hand(*HAND_4))
    assert main(["replay", str(path), "--config", str(cfg)]) == 2
    assert capsys.readouterr().err == (
        "tcecd: error: event.pgn: game 1: unknown player 'P4' (not in the config)\n"
    )


def test_illegal_move_names_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every replay reads the moves: an illegal move is one line naming the game
    and the ply, exit 2, with or without --verify (no standings from such a PGN)."""
    _, games, _ = simulate_event(4, 1)
    text = tcecd_pgn(games)
    second = text.index('[Event', 1)
    # Game 2 is 1. e4 e5 2. Nf3 Nc6: ply 3 becomes a queen capture on h7, which
    # no white queen can reach from d1 (d2 and e2 block the diagonal, h7 is not
    # on its file or rank).
    text = text[:second] + text[second:].replace("2. Nf3", "2. Qxh7", 1)
    path = write(tmp_path, text)
    for extra in (["--verify"], [], ["--out", str(tmp_path / "out")]):
        assert main(["replay", str(path), "--quiet", *extra]) == 2
        err = capsys.readouterr().err
        assert err.startswith("tcecd: error: event.pgn: game 2: ply 3: illegal san: 'Qxh7'")
        assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()
