"""Polyglot books: a real .bin file built here, read, and followed deterministically.

The book files are written byte by byte from the Polyglot format (16-byte
big-endian entries: Zobrist key, move, weight, learn; sorted by key), so the
reader is checked against the format, not against itself.
"""

from __future__ import annotations

import struct
from collections import Counter
from pathlib import Path

import chess
import chess.polyglot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.errors import OpeningsError
from tcecd.game.openings import OpeningSet, load_openings, select_opening
from tcecd.game.polyglot import book_from_bytes, book_line, decode_move, read_book
from tcecd.game.record import Opening

_PROMOTION = {None: 0, "n": 1, "b": 2, "r": 3, "q": 4}


def raw_move(uci: str) -> int:
    """Polyglot move bits: to-square 0-5, from-square 6-11, promotion 12-14."""
    from_square = chess.parse_square(uci[0:2])
    to_square = chess.parse_square(uci[2:4])
    promotion = _PROMOTION[uci[4:5] or None]
    return to_square | from_square << 6 | promotion << 12


def key_after(*moves: str, fen: str | None = None) -> int:
    board = chess.Board(fen) if fen else chess.Board()
    for uci in moves:
        board.push_uci(uci)
    return chess.polyglot.zobrist_hash(board)


def write_book(path: Path, entries: list[tuple[int, str, int]], *, sort: bool = True) -> Path:
    """(key, book move as Polyglot writes it, weight) -> a .bin file."""
    rows = sorted(entries, key=lambda e: e[0]) if sort else entries
    path.write_bytes(
        b"".join(struct.pack(">QHHI", key, raw_move(uci), weight, 0) for key, uci, weight in rows)
    )
    return path


#: 1.e4 (weight 3) or 1.d4 (weight 1); 1.e4 e5 (1.e4 c5 has weight 0:
#: deleted); 2.Nf3 Nc6; 1.d4 d5 2.c4.
START_BOOK = [
    (key_after(), "e2e4", 3),
    (key_after(), "d2d4", 1),
    (key_after("e2e4"), "e7e5", 1),
    (key_after("e2e4"), "c7c5", 0),
    (key_after("e2e4", "e7e5"), "g1f3", 5),
    (key_after("e2e4", "e7e5", "g1f3"), "b8c6", 2),
    (key_after("d2d4"), "d7d5", 7),
    (key_after("d2d4", "d7d5"), "c2c4", 1),
]


@pytest.fixture
def book_path(tmp_path: Path) -> Path:
    return write_book(tmp_path / "book.bin", START_BOOK)


def test_best_follows_the_highest_weights_until_out_of_book(book_path: Path) -> None:
    book = read_book(book_path, selection="best")
    assert book_line(book, chess.Board(), seed=0, slot=0) == ("e2e4", "e7e5", "g1f3", "b8c6")


def test_depth_limits_the_line(book_path: Path) -> None:
    for depth, line in [(0, ()), (1, ("e2e4",)), (3, ("e2e4", "e7e5", "g1f3"))]:
        book = read_book(book_path, depth=depth, selection="best")
        assert book_line(book, chess.Board(), seed=0, slot=0) == line


def test_weighted_choice_is_deterministic_and_follows_the_weights(book_path: Path) -> None:
    book = read_book(book_path)
    lines = [book_line(book, chess.Board(), seed=11, slot=slot) for slot in range(1000)]
    # The same seed and slot always give the same line (a resumed event, and
    # the second game of a pair, get the first one's).
    assert lines == [book_line(book, chess.Board(), seed=11, slot=s) for s in range(1000)]
    # Only two lines exist: every position after the first ply has one move
    # of positive weight; 1...c5 (weight 0) is never played.
    assert set(lines) == {("e2e4", "e7e5", "g1f3", "b8c6"), ("d2d4", "d7d5", "c2c4")}
    # 1.e4 : 1.d4 = 3 : 1, so 1.e4 is expected in 750 of 1000 games; the
    # standard deviation is sqrt(1000 * 3/4 * 1/4) ~ 13.7, and the bounds are
    # more than 5 of them away. The seeds are fixed, so this cannot flake.
    first = Counter(line[0] for line in lines)
    assert 680 < first["e2e4"] < 820
    # Another seed gives another sequence of lines.
    other = [book_line(book, chess.Board(), seed=12, slot=slot) for slot in range(1000)]
    assert other != lines


def test_book_seed_overrides_the_callers_seed(book_path: Path) -> None:
    book = read_book(book_path, seed=5)
    lines = [book_line(book, chess.Board(), seed=s, slot=7) for s in range(20)]
    assert len(set(lines)) == 1


def test_castling_is_stored_as_king_takes_rook(tmp_path: Path) -> None:
    moves = ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5")
    path = write_book(tmp_path / "castle.bin", [(key_after(*moves), "e1h1", 1)])
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    assert book_line(read_book(path), board, seed=0, slot=0) == ("e1g1",)


def test_promotion_bits() -> None:
    board = chess.Board("8/P6k/8/8/8/8/8/K7 w - - 0 1")
    assert decode_move(board, raw_move("a7a8q")) == chess.Move.from_uci("a7a8q")
    assert decode_move(board, raw_move("a7a8n")) == chess.Move.from_uci("a7a8n")
    # A pawn reaching the last rank without a promotion piece is not a legal move.
    assert decode_move(board, raw_move("a7a8")) is None


def test_illegal_entries_are_skipped(tmp_path: Path) -> None:
    # e.g. a key collision: the book claims 1.e5 (illegal) and 1.c4 for the start.
    path = write_book(tmp_path / "bad.bin", [(key_after(), "e2e5", 100), (key_after(), "c2c4", 1)])
    assert book_line(read_book(path), chess.Board(), seed=0, slot=0) == ("c2c4",)


def test_a_book_move_that_ends_the_game_is_not_played(tmp_path: Path) -> None:
    moves = ("f2f3", "e7e5", "g2g4")
    path = write_book(tmp_path / "mate.bin", [(key_after(*moves), "d8h4", 9)])
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    assert book_line(read_book(path), board, seed=0, slot=0) == ()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), slot=st.integers(0, 10_000))
def test_every_book_move_is_legal_where_it_is_played(seed: int, slot: int) -> None:
    rows = sorted((key, raw_move(uci), weight) for key, uci, weight in START_BOOK)
    book = book_from_bytes(b"".join(struct.pack(">QHHI", k, m, w, 0) for k, m, w in rows))
    board = chess.Board()
    line = book_line(book, board, seed=seed, slot=slot)
    assert board == chess.Board()  # not modified
    assert line
    for uci in line:
        move = chess.Move.from_uci(uci)
        assert board.is_legal(move)
        board.push(move)


def test_bad_books_are_one_line_errors(tmp_path: Path) -> None:
    torn = tmp_path / "torn.bin"
    torn.write_bytes(b"\x00" * 20)
    with pytest.raises(OpeningsError, match=r"torn\.bin: cannot read Polyglot book"):
        read_book(torn)
    unsorted = write_book(tmp_path / "unsorted.bin", [(2, "e2e4", 1), (1, "d2d4", 1)], sort=False)
    with pytest.raises(OpeningsError) as info:
        read_book(unsorted)
    # Without the keys (the file's bytes): a config may name any file as a book (issue 28).
    assert str(info.value) == f"{unsorted}: entry 2: Polyglot book not sorted by key"
    deleted = write_book(tmp_path / "deleted.bin", [(key_after(), "e2e4", 0)])
    with pytest.raises(OpeningsError, match=r"deleted\.bin: no moves in Polyglot book"):
        read_book(deleted)
    with pytest.raises(OpeningsError, match=r"missing\.bin: cannot read"):
        read_book(tmp_path / "missing.bin")


# -- through the openings layer: what the daemon and `tcecd play` call --------------


def test_a_bin_openings_file_is_a_book_from_the_start_position(book_path: Path) -> None:
    openings = load_openings(book_path, plies=2)  # format from the suffix; plies = depth
    assert isinstance(openings, OpeningSet)
    assert len(openings) == 1
    firsts = set()
    for slot in range(40):
        opening = select_opening(openings, slot, order="sequential", seed=3)
        assert opening.fen is None
        assert opening.moves in {("e2e4", "e7e5"), ("d2d4", "d7d5")}
        # Both games of a pair (and a resumed event) ask for the same slot.
        assert select_opening(openings, slot, order="sequential", seed=3) == opening
        firsts.add(opening.moves[0])
    assert firsts == {"e2e4", "d2d4"}


def test_the_book_extends_epd_and_pgn_openings(tmp_path: Path, book_path: Path) -> None:
    book = read_book(book_path, selection="best")
    epd = tmp_path / "after-e4.epd"
    epd.write_text(
        'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id "King pawn";\n'
        "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq -\n",
        encoding="utf-8",
    )
    openings = load_openings(epd, book=book)
    first = select_opening(openings, 0, order="sequential")
    assert first == Opening(
        name="King pawn",
        fen="rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        moves=("e7e5", "g1f3", "b8c6"),
        index=0,
    )
    # 1.Nf3 is not in the book: the opening is unchanged.
    assert select_opening(openings, 1, order="sequential").moves == ()

    pgn = tmp_path / "lines.pgn"
    pgn.write_text("1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n", encoding="utf-8")
    # The ply limit cuts the PGN line first; the book continues from there.
    cut = load_openings(pgn, plies=2, book=book)
    assert select_opening(cut, 0, order="sequential").moves == ("e2e4", "e7e5", "g1f3", "b8c6")
    # The whole line leaves the book (Bb5 position is not in it): nothing added.
    whole = load_openings(pgn, book=book)
    assert select_opening(whole, 0, order="sequential").moves == (
        "e2e4",
        "e7e5",
        "g1f3",
        "b8c6",
        "f1b5",
    )


def test_a_polyglot_file_takes_no_second_book(book_path: Path) -> None:
    with pytest.raises(OpeningsError, match="cannot take another book"):
        load_openings(book_path, book=read_book(book_path))
