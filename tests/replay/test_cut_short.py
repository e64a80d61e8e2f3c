"""A game whose movetext does not reach its own end is an error naming the game.

Replay and ``run --from-pgn`` read every game's moves: a PGN cut in the middle
of a game, an illegal move or an invalid FEN is one line naming the game (and
the ply), exit 2, never a finished game. Each expected message below was worked
out by hand from the PGN text written in the test."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
import pytest

from tcecd.cli import main
from tcecd.config.event_file import load_event
from tcecd.errors import PgnError
from tcecd.pgn.check import MovetextChecker
from tcecd.replay.recover import recover_from_pgn
from tests.fixtures.replay_pgn import simulate_event, tcecd_pgn
from tests.replay.test_cli import config, write


def check(movetext: str, **tags: str) -> str | None:
    """The first problem :class:`MovetextChecker` finds in one game."""
    head = "".join(f'[{k} "{v}"]\n' for k, v in {"Result": "*", **tags}.items())
    game = chess.pgn.read_game(io.StringIO(head + "\n" + movetext + "\n"), Visitor=MovetextChecker)
    assert game is not None
    return game.problem


FOOLS_MATE = "1. f3 e5 2. g4 Qh4#"  # Black mates: White to move, in check, no legal move
# 7k/5Q2/6K1: Black to move; h8 is not attacked (f7-h8 is no line, g6 touches h7
# and g7 only) and g8, g7, h7 all are: stalemate.
STALEMATE_FEN = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
# The start position after 2...Ng8 and again after 4...Ng8: three times in all.
THREEFOLD = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8"


def test_a_game_reaching_its_end_passes() -> None:
    assert check(f"{FOOLS_MATE} 0-1", Result="0-1", PlyCount="4") is None
    assert check(f"{FOOLS_MATE} 0-1", Result="0-1", TerminationDetails="Black mates") is None
    assert check("1/2-1/2", Result="1/2-1/2", FEN=STALEMATE_FEN, Termination="normal") is None
    assert check(f"{THREEFOLD} 1/2-1/2", Result="1/2-1/2", Termination="normal") is None
    # Adjudications and resignations cannot be checked on the board: as written.
    assert check("1. e4 e5 1-0", Result="1-0", Termination="adjudication") is None
    assert check("1. e4 1-0", Result="1-0", Termination="normal",
                 TerminationDetails="Black resigns") is None  # fmt: skip
    # An unfinished game claims nothing (only the last one may be, see read_rounds).
    assert check("1. e4 e5", Result="*") is None


@pytest.mark.parametrize(
    ("movetext", "tags", "problem"),
    [
        # The case: 13 plies of a 129-ply game, then the file ends.
        (
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3",
            {"Result": "1-0", "PlyCount": "129", "TerminationDetails": "TCEC resign rule"},
            "the movetext stops after ply 13 without a result (the game is cut short)",
        ),
        (
            "1. e4 e5 0-1",
            {"Result": "1-0"},
            "the movetext ends with '0-1' but the Result tag is '1-0'",
        ),
        ("1. e4 e5 1-0", {"Result": "1-0", "PlyCount": "3"},
         "PlyCount is 3 but the movetext has 2 plies"),
        (
            f"{FOOLS_MATE} 1/2-1/2",
            {"Result": "1/2-1/2"},
            "the final position is checkmate by Black but the result is 1/2-1/2",
        ),
        (
            "1-0",
            {"Result": "1-0", "FEN": STALEMATE_FEN},
            "the final position is stalemate but the result is 1-0",
        ),
        (
            "1. e4 e5 1-0",
            {"Result": "1-0", "TerminationDetails": "White mates"},
            "TerminationDetails is 'White mates' but the final position is not that mate",
        ),
        (
            "1. Nf3 Nf6 2. Ng1 Ng8 1/2-1/2",  # the start position twice only
            {"Result": "1/2-1/2", "Termination": "normal"},
            "a 'normal' draw, but the final position is not stalemate, insufficient "
            "material, 50 moves or a threefold repetition",
        ),
        ("1. e4 e5 2. Qxh7 1-0", {"Result": "1-0"},
         "ply 3: illegal san: 'Qxh7' in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq "
         "- 0 2"),
        ("1-0", {"Result": "1-0", "FEN": "8/8/8/8 w - - 0 1"},
         "start position: expected 8 rows in position part of fen: '8/8/8/8'"),
    ],
    ids=["cut-short", "token-vs-tag", "plycount", "mate-drawn", "stalemate-won",
         "mates-not-mate", "normal-draw-not-drawn", "illegal-move", "bad-fen"],
)  # fmt: skip
def test_a_game_not_reaching_its_end_is_named(
    movetext: str, tags: dict[str, str], problem: str
) -> None:
    assert check(movetext, **tags) == problem


def _cut(text: str) -> str:
    """The PGN cut in the middle of its last game, inside the comment of its
    third ply (1. e4 e5 2. Nf3 {d=1...): three of its four plies, no result."""
    last = text.rindex("[Event ")
    return text[: text.index("2. Nf3", last) + len("2. Nf3 {d=1")]


def test_replay_refuses_a_pgn_cut_in_the_middle_of_a_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On main: exit 0, the cut game counted as finished."""
    _, games, _ = simulate_event(4, 2)  # 4 games of 4 plies each
    path = write(tmp_path, _cut(tcecd_pgn(games)))
    for extra in ([], ["--verify"]):
        assert main(["replay", str(path), "--quiet", *extra]) == 2
        assert capsys.readouterr().err == (
            "tcecd: error: event.pgn: game 4: the movetext stops after ply 3 without a "
            "result (the game is cut short)\n"
        )


def test_replay_refuses_an_invalid_fen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, games, _ = simulate_event(4, 1)
    text = tcecd_pgn(games)
    second = text.index("[Event ", 1)
    text = text[:second] + text[second:].replace("[Event ", '[FEN "8/8/9 w - - 0 1"]\n[Event ', 1)
    path = write(tmp_path, text)
    assert main(["replay", str(path), "--verify", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcecd: error: event.pgn: game 2: start position: ")
    assert err.count("\n") == 1


def test_from_pgn_refuses_a_game_cut_short(tmp_path: Path) -> None:
    """On main the cut game was stored as finished with the tags' result."""
    _, games, _ = simulate_event(4, 2)
    cfg = load_event(config(tmp_path, {f"P{i:02d}-e": 2000 - i for i in range(1, 5)}))
    pgn = write(tmp_path, _cut(tcecd_pgn(games)))
    with pytest.raises(PgnError) as info:
        recover_from_pgn(cfg, pgn)
    assert str(info.value) == (
        "event.pgn: game 4: the movetext stops after ply 3 without a result "
        "(the game is cut short)"
    )
