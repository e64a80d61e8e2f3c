"""A whole (tiny) event through `tcecd run` with an EPD openings file and a
Polyglot book (``openings.book``), as cutechess's ``-openings ... -book ...
-bookdepth ...``: every game starts from its EPD position, then plays the book
line (marked ``{book, ...}``) to the book depth; both games of a double-round
pair share the EPD line and the book line; the choice is deterministic (a
second fresh run picks the same lines, a re-run of the finished event changes
nothing) and a changed book is refused on resume with a readable diff line."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import chess
import chess.pgn
import yaml

from tcecd.cli import main
from tcecd.logging import configure
from tests.daemon.helpers import FAST_ENGINES
from tests.game.test_polyglot import key_after, write_book

#: The openings file: 1.e4 and 1.d4, each black to move.
E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"
D4 = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -"

#: From each EPD position two book replies of equal weight, each with one
#: continuation for two more plies; the 1.e4 e5 line has a fourth ply
#: (3.Bb5) that a book depth of 3 must not reach.
BOOK = [
    (key_after(fen=E4), "e7e5", 1),
    (key_after(fen=E4), "c7c5", 1),
    (key_after("e7e5", fen=E4), "g1f3", 1),
    (key_after("c7c5", fen=E4), "g1f3", 1),
    (key_after("e7e5", "g1f3", fen=E4), "b8c6", 1),
    (key_after("c7c5", "g1f3", fen=E4), "d7d6", 1),
    (key_after("e7e5", "g1f3", "b8c6", fen=E4), "f1b5", 1),
    (key_after(fen=D4), "d7d5", 1),
    (key_after(fen=D4), "g8f6", 1),
    (key_after("d7d5", fen=D4), "c2c4", 1),
    (key_after("g8f6", fen=D4), "c2c4", 1),
    (key_after("d7d5", "c2c4", fen=D4), "e7e6", 1),
    (key_after("g8f6", "c2c4", fen=D4), "e7e6", 1),
]

#: The lines a book depth of 3 can give, worked out by hand from BOOK.
LINES = {
    chess.Board(E4).fen(): [["e7e5", "g1f3", "b8c6"], ["c7c5", "g1f3", "d7d6"]],
    chess.Board(D4).fen(): [["d7d5", "c2c4", "e7e6"], ["g8f6", "c2c4", "e7e6"]],
}


def write(directory: Path, depth: int = 3) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "openings.epd").write_text(f"{E4}\n{D4}\n", encoding="utf-8")
    write_book(directory / "book.bin", BOOK)
    config = {
        "event": {"name": "EPD and book", "site": "test"},
        "pairing": {"system": "tcec-swiss", "rounds": 1, "double": True},
        "engines": [yaml.safe_load(e) for e in FAST_ENGINES],
        "time_control": {"tc": "inf depth=1"},
        "adjudication": {"draw": None, "max_moves": 8},
        "openings": {
            "file": "openings.epd",
            "book": {"file": "book.bin", "depth": depth, "seed": 11},
        },
        "outputs": {"state_dir": "state", "pgn": "event.pgn"},
        "logging": {"level": "warning", "format": "json"},
    }
    path = directory / "event.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def games_of(pgn: Path) -> list[chess.pgn.Game]:
    games = []
    with pgn.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def openings_of(games: list[chess.pgn.Game]) -> dict[str, tuple[str, list[str]]]:
    """Round tag -> (start FEN, book moves), checking each game's movetext:
    the EPD position, then exactly the book plies marked ``{book, ...}``."""
    out = {}
    for game in games:
        assert game.headers["SetUp"] == "1"
        fen = game.headers["FEN"]
        assert fen in LINES
        nodes = list(game.mainline())
        marked = [n.comment.startswith("book") for n in nodes]
        assert marked[:4] == [True, True, True, False], game.headers["Round"]
        book = [n.move.uci() for n in nodes[:3]]
        assert book in LINES[fen]
        out[game.headers["Round"]] = (fen, book)
    return out


def test_an_event_with_epd_openings_and_a_book(tmp_path: Path) -> None:
    config = write(tmp_path / "a")
    assert main(["run", str(config)]) == 0
    pgn = tmp_path / "a" / "state" / "event.pgn"
    text = pgn.read_text(encoding="utf-8")
    assert text.count("{book") == 4 * 3
    games = games_of(pgn)
    assert len(games) == 4
    openings = openings_of(games)

    # Both games of each pair: colours reversed, the same EPD line and book line.
    pairs: dict[frozenset[str], list[chess.pgn.Game]] = {}
    for game in games:
        pairs.setdefault(frozenset((game.headers["White"], game.headers["Black"])), []).append(game)
    assert sorted(len(p) for p in pairs.values()) == [2, 2]
    for first, second in pairs.values():
        assert (first.headers["White"], first.headers["Black"]) == (
            second.headers["Black"],
            second.headers["White"],
        )
        assert openings[first.headers["Round"]] == openings[second.headers["Round"]]
    # Sequential order: the two pairs take the file's two lines.
    assert {fen for fen, _ in openings.values()} == set(LINES)

    # A second, fresh event with the same config picks the same lines (what a
    # resume relies on); re-running the finished event rewrites nothing.
    again = write(tmp_path / "b")
    assert main(["run", str(again)]) == 0
    assert openings_of(games_of(tmp_path / "b" / "state" / "event.pgn")) == openings
    assert main(["run", str(config)]) == 0
    assert pgn.read_text(encoding="utf-8") == text

    # A changed book depth would rewrite history: refused, naming the change.
    # (Not capsys: `run` points the process-wide log at sys.stderr, which must
    # stay open for the tests that run after this one.)
    write(tmp_path / "a", depth=2)
    stderr, buffer = sys.stderr, io.StringIO()
    try:
        with contextlib.redirect_stderr(buffer):
            assert main(["run", str(config)]) == 2
    finally:
        configure("warning", "json", stream=stderr)
    err = buffer.getvalue()
    assert "refusing to resume" in err
    assert "openings.book.depth: 3 -> 2" in err
    assert pgn.read_text(encoding="utf-8") == text
