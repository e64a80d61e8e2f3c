"""A whole (tiny) event with a Polyglot book as its openings, through
`tcecd run`: both games of the double-round pair play the same book line,
with colours reversed, and a second run (a resume of a finished event)
changes nothing."""

from __future__ import annotations

import struct
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import yaml

from tcecd.cli import main


def write_book(path: Path) -> None:
    """1.d4 (weight 1) or 1.c4 (weight 1); 1.d4 Nf6 / 1.c4 e5; then 2.c4 / 2.Nc3."""
    rows = []

    def add(moves: tuple[str, ...], uci: str) -> None:
        b = chess.Board()
        for m in moves:
            b.push_uci(m)
        move = chess.Move.from_uci(uci)
        rows.append((chess.polyglot.zobrist_hash(b), move.to_square | move.from_square << 6))

    add((), "d2d4")
    add((), "c2c4")
    add(("d2d4",), "g8f6")
    add(("c2c4",), "e7e5")
    add(("d2d4", "g8f6"), "c2c4")
    add(("c2c4", "e7e5"), "b1c3")
    path.write_bytes(b"".join(struct.pack(">QHHI", k, m, 1, 0) for k, m in sorted(rows)))


def test_an_event_with_a_polyglot_book(tmp_path: Path) -> None:
    write_book(tmp_path / "book.bin")
    config = {
        "event": {"name": "Book event", "site": "test"},
        "pairing": {"system": "tcec-swiss", "rounds": 1, "double": True},
        "engines": ["ab-d1", "ab-d2"],
        "time_control": {"tc": "inf depth=1"},
        "adjudication": {"max_moves": 12},
        "openings": {"file": "book.bin", "plies": 2, "seed": 4},
        "outputs": {"state_dir": "state", "pgn": "event.pgn"},
    }
    (tmp_path / "event.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    assert main(["run", str(tmp_path / "event.yaml")]) == 0
    pgn = tmp_path / "state" / "event.pgn"
    text = pgn.read_text(encoding="utf-8")
    games = []
    with pgn.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    assert len(games) == 2
    first, second = games
    assert (first.headers["White"], first.headers["Black"]) == (
        second.headers["Black"],
        second.headers["White"],
    )
    lines = []
    for game in games:
        nodes = list(game.mainline())
        assert [n.comment.startswith("book") for n in nodes[:3]] == [True, True, False]
        lines.append([n.move.uci() for n in nodes[:2]])
    assert lines[0] == lines[1]
    assert lines[0] in (["d2d4", "g8f6"], ["c2c4", "e7e5"])

    # Running again resumes the finished event: same games, nothing rewritten.
    assert main(["run", str(tmp_path / "event.yaml")]) == 0
    assert pgn.read_text(encoding="utf-8") == text
