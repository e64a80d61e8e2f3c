"""Polyglot opening books: read a ``.bin`` book and follow it for a game.

As cutechess-cli's ``-book FILE -bookdepth N``: from an opening's position
(the standard start position, or the end of an EPD/PGN opening) the game
follows the book for at most ``depth`` plies, one book move per ply, until the
position is not in the book. The chosen moves become the game's
``Opening.moves``, so they are recorded, replayed on resume and reused for the
reversed game of a double-round pair.

:func:`read_book` is the I/O part: it reads the whole book once, through
``chess.polyglot.open_reader``, into a :class:`PolyglotBook` value.
:func:`book_line` is pure and deterministic: the same book, position, seed
and opening slot always give the same line.

A Polyglot entry is 16 bytes, big-endian: the position's Zobrist key
(uint64, ``chess.polyglot.zobrist_hash``), the move (uint16: to-square bits
0-5, from-square bits 6-11, promotion piece bits 12-14, 1 = knight .. 4 =
queen), the weight (uint16) and a learn value (uint32, unused). Castling is
written as the king taking its own rook (e1h1 for e1g1). Entries of weight
0 are deleted moves (as python-chess and Polyglot treat them) and are skipped.
"""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import chess
import chess.polyglot

from tcecd.errors import OpeningsError
from tcecd.game.adjudication import rules_verdict

#: How a book move is chosen among a position's entries: ``weighted`` at
#: random in proportion to the weights (cutechess's behaviour) from a seeded
#: generator; ``best`` the highest weight (the first such entry on a tie).
Selection = Literal["weighted", "best"]


#: One Polyglot entry: key, move, weight, learn (big-endian).
_ENTRY = struct.Struct(">QHHI")
_KEY = struct.Struct(">Q")


@dataclass(frozen=True, slots=True)
class PolyglotBook:
    """A Polyglot book held in memory (its bytes, as in the file: compact,
    and looked up by binary search like any Polyglot reader), and how to
    follow it."""

    data: bytes = field(repr=False)
    """The book's 16-byte entries, sorted by key."""
    depth: int | None = None
    """At most this many book plies (None: as long as the book has a move)."""
    selection: Selection = "weighted"
    seed: int | None = None
    """Seed of the weighted choice (None: the seed the caller passes)."""
    name: str | None = None
    """The book file's name, for messages."""

    def entries(self, key: int) -> list[tuple[int, int]]:
        """(raw move, weight) of the entries for ``key`` with weight > 0, in
        file order."""
        data, size = self.data, _ENTRY.size
        lo, hi = 0, len(data) // size
        while lo < hi:  # the first entry whose key is >= key
            mid = (lo + hi) // 2
            if _KEY.unpack_from(data, mid * size)[0] < key:
                lo = mid + 1
            else:
                hi = mid
        out: list[tuple[int, int]] = []
        for offset in range(lo * size, len(data), size):
            entry_key, raw, weight, _learn = _ENTRY.unpack_from(data, offset)
            if entry_key != key:
                break
            if weight > 0:
                out.append((raw, weight))
        return out


def read_book(
    path: Path,
    *,
    depth: int | None = None,
    selection: Selection = "weighted",
    seed: int | None = None,
) -> PolyglotBook:
    """Read a ``.bin`` Polyglot book. Raises :class:`OpeningsError` naming the
    file when it cannot be read, is not a whole number of 16-byte entries, is
    not sorted by key (Polyglot readers binary-search it) or has no usable
    entry."""
    if depth is not None and depth < 0:
        raise OpeningsError(f"{path}: invalid book depth {depth!r}")
    if selection not in ("weighted", "best"):
        raise OpeningsError(f"{path}: invalid book selection {selection!r}")
    try:
        # open_reader checks the size is a whole number of entries.
        with chess.polyglot.open_reader(path) as reader:
            data = bytes(reader.mmap)
    except OSError as exc:
        raise OpeningsError(f"{path}: cannot read Polyglot book ({exc})") from None
    return book_from_bytes(
        data, depth=depth, selection=selection, seed=seed, name=path.name, where=str(path)
    )


def book_from_bytes(
    data: bytes,
    *,
    depth: int | None = None,
    selection: Selection = "weighted",
    seed: int | None = None,
    name: str | None = None,
    where: str = "Polyglot book",
) -> PolyglotBook:
    """Check a book's bytes (sorted by key, some move of positive weight) and
    wrap them; ``where`` starts the :class:`OpeningsError` messages."""
    if len(data) % _ENTRY.size:
        raise OpeningsError(f"{where}: not a whole number of 16-byte Polyglot entries")
    previous, usable = -1, False
    for number, (key, _raw, weight, _learn) in enumerate(_ENTRY.iter_unpack(data), start=1):
        if key < previous:
            # Without the keys: a hostile config may name any file as a book.
            raise OpeningsError(f"{where}: entry {number}: Polyglot book not sorted by key")
        previous = key
        usable = usable or weight > 0
    if not usable:
        raise OpeningsError(f"{where}: no moves in Polyglot book")
    return PolyglotBook(data=data, depth=depth, selection=selection, seed=seed, name=name)


def decode_move(board: chess.Board, raw: int) -> chess.Move | None:
    """The legal move a raw Polyglot move stands for in ``board``, or None
    (an illegal entry, e.g. a hash collision, or a drop)."""
    to_square = raw & 0x3F
    from_square = (raw >> 6) & 0x3F
    promotion_part = (raw >> 12) & 0x7
    if from_square == to_square or promotion_part > 4:
        return None
    promotion = promotion_part + 1 if promotion_part else None  # 1 = knight .. 4 = queen
    # Castling is stored as "king takes own rook" (e1h1); standard chess moves
    # the king two squares (e1g1).
    if (
        not board.chess960
        and board.piece_type_at(from_square) == chess.KING
        and board.color_at(to_square) == board.turn
        and board.piece_type_at(to_square) == chess.ROOK
        and chess.square_rank(from_square) == chess.square_rank(to_square)
    ):
        file = 6 if chess.square_file(to_square) > chess.square_file(from_square) else 2
        to_square = chess.square(file, chess.square_rank(from_square))
    move = chess.Move(from_square, to_square, promotion)
    return move if board.is_legal(move) else None


def is_finished(board: chess.Board) -> bool:
    """Whether tcecd's rules (:func:`tcecd.game.adjudication.rules_verdict`)
    end a game in this position at once: mate, stalemate, insufficient
    material, the fifty-move rule, a third repetition. An opening must leave a
    game to play."""
    return rules_verdict(board) is not None


def book_moves(book: PolyglotBook, board: chess.Board) -> list[tuple[chess.Move, int]]:
    """The legal book moves of ``board`` with their weights, in file order.
    Moves that would end the game at once are left out: an opening must leave
    a game to play."""
    out: list[tuple[chess.Move, int]] = []
    for raw, weight in book.entries(chess.polyglot.zobrist_hash(board)):
        move = decode_move(board, raw)
        if move is None or any(move == m for m, _ in out):
            continue
        board.push(move)
        over = is_finished(board)
        board.pop()
        if not over:
            out.append((move, weight))
    return out


def book_line(book: PolyglotBook, board: chess.Board, *, seed: int, slot: int) -> tuple[str, ...]:
    """The book moves (UCI) a game plays from ``board`` (not modified).

    ``weighted``: each ply draws a move with probability weight / total from a
    generator seeded by ``book.seed`` (or ``seed``) and the opening ``slot``,
    so different slots get different lines and the same slot always the same
    one. ``best``: the highest-weight move every ply.
    """
    board = board.copy()  # with its move stack: repetitions count from the opening's start
    rng = random.Random(f"tcecd-polyglot:{book.seed if book.seed is not None else seed}:{slot}")
    line: list[str] = []
    while book.depth is None or len(line) < book.depth:
        candidates = book_moves(book, board)
        if not candidates:
            break
        if book.selection == "best":
            move = max(candidates, key=lambda c: c[1])[0]  # max keeps the first on a tie
        else:
            move = _weighted(candidates, rng.randrange(sum(w for _, w in candidates)))
        line.append(move.uci())
        board.push(move)
    return tuple(line)


def _weighted(candidates: list[tuple[chess.Move, int]], pick: int) -> chess.Move:
    """The candidate whose cumulative weight range holds ``pick``
    (0 <= pick < total weight)."""
    for move, weight in candidates:
        if pick < weight:
            return move
        pick -= weight
    raise ValueError(f"weighted pick out of range: {pick!r}")
