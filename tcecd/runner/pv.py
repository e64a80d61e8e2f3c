"""An engine's principal variation in SAN, as cheaply as python-chess allows.

Every engine move's record carries its PV in SAN (the PGN comment's ``pv=``, the
live stream, TCEC's ``live.json``). The SAN of a move is python-chess's (legality,
disambiguation, the check and mate suffix: a move generation or two), and it was the
largest single share of tcecd's CPU per move (``bench/match.py``). PVs repeat
themselves: each mostly continues the line played, the two engines of a game follow
each other's lines, and a match plays each opening twice with the colours reversed,
so the same (position, move) pairs come back within a game and across games. A
:class:`SanMemo` remembers, for such a pair, the SAN and the position after the move;
a PV is converted by walking it through the memo, and python-chess is asked only for
the moves it has not seen, from the first one on.

The PV is walked as the engine wrote it, in UCI words: a known word needs no parse
into a ``chess.Move`` (python-chess's ``Move.from_uci``), no hashing of a ``Move``
(its dataclass ``__hash__`` runs in Python), and is already the text the record
keeps (``MoveRecord.pv_uci``); positions are small integers given out by the memo,
so a step of the walk is one dictionary probe with a string whose hash Python keeps.
A word is read as a move (and checked legal) once, the first time it is met in a
position. A new word after known ones is read on a scratch board set straight to the
position before it (from the position's key: pieces, side to move, castling, en
passant, all that SAN and legality depend on), not by making the known moves again.

The memo holds the answers of a pure function (SAN depends on the position and the
move only), so sharing one between games and sessions cannot change a result; it is
bounded and starts afresh when full.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, cast

import chess

#: Entries a memo keeps before it starts afresh: a few games' worth of PVs (an
#: entry is a position key and a SAN, a few hundred bytes).
MAX_ENTRIES = 50_000


def position_key(board: chess.Board) -> Hashable:
    """What a move's SAN and legality depend on: python-chess's repetition key
    (pieces, side to move, castling, en passant), with the board's kind (a
    variant's class, Chess960 or not: the same word can be another move there)."""
    return (type(board), board.chess960, board._transposition_key())


class SanMemo:
    """(position, move in UCI) -> (SAN, position after) for moves known to be
    legal there. Positions are numbered by the memo (:func:`position_key` -> a
    small integer) so a walk along a PV carries integers, not keys."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self.positions: dict[Hashable, int] = {}
        #: The key of each numbered position (the same objects as ``positions``'s).
        self.keys: list[Hashable] = []
        self.entries: dict[tuple[int, str], tuple[str, int]] = {}

    def position(self, key: Hashable) -> int:
        """The number of a position (given out on first sight)."""
        number = self.positions.get(key)
        if number is None:
            number = self.positions[key] = len(self.keys)
            self.keys.append(key)
        return number

    def known_legal(self, board: chess.Board, uci: str) -> bool:
        """Whether the move written ``uci`` is known to be legal in ``board``'s
        position: it is in the memo, which holds legal moves only, and the board
        plays standard chess (in Chess960 and the variants python-chess's
        ``parse_uci`` reads some king moves as castling, so those boards are never
        answered from the memo).

        Lets a ``bestmove`` skip python-chess's legality check when an earlier PV
        already made that move there (the engine's expected reply, or a game
        played again with the colours reversed): on ``bench/match.py`` 71% of the
        bestmoves of a game's first play are known (all of its replay), and reading
        one costs 52 instead of 71 us (cold caches after the engine ran)."""
        if board.chess960 or type(board) is not chess.Board:
            return False
        number = self.positions.get(position_key(board))
        return number is not None and (number, uci) in self.entries

    def make_room(self) -> None:
        """Start afresh when full (before a walk, never during one: the walk
        holds position numbers)."""
        if len(self.entries) >= self.max_entries:
            self.entries.clear()
            self.positions.clear()
            self.keys.clear()


#: The memo of this process: the runner's games share it (see the module docstring).
SHARED = SanMemo()


def pv_line(move: str, pv: Sequence[str]) -> Sequence[str]:
    """The line a move's record shows, in UCI words: the engine's PV when it
    starts with the move played (``move``, the engine agrees with itself), else
    the move alone."""
    return pv if pv and pv[0] == move else (move,)


def pv_san(
    board: chess.Board,
    move: chess.Move,
    pv: Sequence[str],
    memo: SanMemo | None = SHARED,
) -> tuple[str, ...]:
    """The PV (UCI words) in SAN from before ``move`` (the PV starts with it when
    the engine agrees with itself, else the line is ``move`` alone); stops at the
    first word that is not a legal move. ``move`` itself is legal (the engine's
    ``bestmove``, checked by python-chess). ``board`` is not changed; a scratch
    board is made only when a move is not in ``memo``, and the known moves before
    it are made on it then. The SANs are as many as the line's words kept:
    ``pv_line(move.uci(), pv)[:len(result)]``."""
    line = pv_line(move.uci(), pv)
    if memo is None:
        memo = SanMemo()
    memo.make_room()
    entries = memo.entries
    out: list[str] = []
    here = start = memo.position(position_key(board))
    scratch: chess.Board | None = None  # a board for the new moves, once needed
    at = start  # the position on ``scratch`` (a number), once made
    for i, word in enumerate(line):
        hit = entries.get((here, word))
        if hit is not None:
            san, here = hit
            out.append(san)
            continue
        if scratch is None:
            scratch = board.copy(stack=False)
        if at != here:  # known moves since: go straight to the position before ``word``
            if not _set_position(scratch, memo.keys[here]):
                for made in line[len(scratch.move_stack) : i]:
                    scratch.push(chess.Move.from_uci(made))
            at = here
        if i == 0:
            m = move
        else:
            try:
                m = chess.Move.from_uci(word)
            except ValueError:
                break
            if not scratch.is_legal(m):
                break
        san = scratch.san_and_push(m)  # makes the move once (san + push: twice)
        after = memo.position(position_key(scratch))
        entries[here, word] = (san, after)
        here = at = after
        out.append(san)
    return tuple(out)


def _set_position(board: chess.Board, key: Hashable) -> bool:
    """Set a standard-chess ``board`` to the position of ``key`` (a
    :func:`position_key`), as python-chess's own ``_BoardState.restore`` sets a
    board (its move counters are left as they are: neither SAN nor legality
    depends on them). False, and the board untouched, for Chess960 and variant
    boards (their keys may hold more: pockets, check counts), which are caught
    up by making the known moves instead. (The key comes from a walk that
    started on ``board``: its kind is the board's.)"""
    kind, chess960, fields = cast(tuple[object, bool, Any], key)
    if kind is not chess.Board or chess960:
        return False
    pawns, knights, bishops, rooks, queens, kings, white, black, turn, castling, ep = fields
    board.pawns, board.knights, board.bishops = pawns, knights, bishops
    board.rooks, board.queens, board.kings = rooks, queens, kings
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = white, black
    board.occupied = white | black
    board.promoted = chess.BB_EMPTY
    board.turn, board.castling_rights, board.ep_square = turn, castling, ep
    return True
