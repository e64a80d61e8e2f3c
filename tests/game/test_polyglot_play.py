"""`tcecd play --book BIN --book-depth N` (cutechess's -book/-bookdepth) with
real bundled engines: both games of the pair follow the same book line,
recorded as book moves."""

from __future__ import annotations

import struct
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest

from tcecd.cli import main


def write_book(path: Path) -> None:
    """1.e4 e5 2.Nf3 Nc6 3.Bb5, one move per position (weight 1)."""
    board = chess.Board()
    rows = []
    for uci in ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5"):
        move = chess.Move.from_uci(uci)
        rows.append((chess.polyglot.zobrist_hash(board), move.to_square | move.from_square << 6))
        board.push(move)
    path.write_bytes(b"".join(struct.pack(">QHHI", k, m, 1, 0) for k, m in sorted(rows)))


def test_play_follows_the_book_to_its_depth_in_both_games(tmp_path: Path) -> None:
    write_book(tmp_path / "book.bin")
    out = tmp_path / "match.pgn"
    argv = ["play", "ab-d1", "ab-d2", "--games", "2", "--depth", "1"]
    argv += ["--book", str(tmp_path / "book.bin"), "--book-depth", "3", "--pgn", str(out)]
    assert main(argv) == 0
    games = []
    with out.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    assert len(games) == 2
    assert {g.headers["White"] for g in games} == {"ab-d1", "ab-d2"}  # colours reversed
    for game in games:
        nodes = list(game.mainline())
        assert [n.move.uci() for n in nodes[:3]] == ["e2e4", "e7e5", "g1f3"]
        assert all(n.comment.startswith("book") for n in nodes[:3])
        assert not nodes[3].comment.startswith("book")  # depth 3: the engines play on


def test_play_rejects_a_zero_book_depth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_book(tmp_path / "book.bin")
    argv = ["play", "ab-d1", "ab-d2", "--depth", "1", "--book", str(tmp_path / "book.bin")]
    argv += ["--book-depth", "0", "--pgn", str(tmp_path / "m.pgn")]
    assert main(argv) == 2
    assert "--book-depth: must be at least 1, got 0" in capsys.readouterr().err
