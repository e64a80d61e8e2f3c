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

The memo holds the answers of a pure function (SAN depends on the position and the
move only), so sharing one between games and sessions cannot change a result; it is
bounded and starts afresh when full.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import chess

#: Entries a memo keeps before it starts afresh: a few games' worth of PVs (an
#: entry is a position key and a SAN, a few hundred bytes).
MAX_ENTRIES = 50_000


class SanMemo:
    """(position, move) -> (SAN, position after) for moves known to be legal
    there. Positions are python-chess's repetition keys (pieces, side to move,
    castling, en passant), which is all a move's SAN depends on."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self.entries: dict[tuple[Hashable, chess.Move], tuple[str, Hashable]] = {}

    def get(self, key: Hashable, move: chess.Move) -> tuple[str, Hashable] | None:
        return self.entries.get((key, move))

    def known_legal(self, board: chess.Board, move: chess.Move) -> bool:
        """Whether ``move`` is known to be legal in ``board``'s position: it is in
        the memo, which holds legal moves only, and the board plays standard chess
        (in Chess960 and the variants python-chess reads some king moves as castling
        and legality differs, so those boards are never answered from the memo).

        Lets a ``bestmove`` skip python-chess's legality check when an earlier PV
        already made that move there (the engine's expected reply, or a game
        played again with the colours reversed): on ``bench/match.py`` 71% of the
        bestmoves of a game's first play are known (all of its replay), and reading
        one costs 52 instead of 71 us (cold caches after the engine ran)."""
        if board.chess960 or type(board) is not chess.Board:
            return False
        return (board._transposition_key(), move) in self.entries

    def put(self, key: Hashable, move: chess.Move, san: str, after: Hashable) -> None:
        if len(self.entries) >= self.max_entries:
            self.entries.clear()
        self.entries[(key, move)] = (san, after)


#: The memo of this process: the runner's games share it (see the module docstring).
SHARED = SanMemo()


def pv_line(move: chess.Move, pv: Sequence[chess.Move]) -> Sequence[chess.Move]:
    """The line a move's record shows: the engine's PV when it starts with the
    move played (the engine agrees with itself), else the move alone."""
    return pv if pv and pv[0] == move else (move,)


def pv_san(
    board: chess.Board,
    move: chess.Move,
    pv: Sequence[chess.Move],
    memo: SanMemo | None = SHARED,
) -> tuple[str, ...]:
    """The PV in SAN from before ``move`` (the PV starts with it when the engine
    agrees with itself, else the line is ``move`` alone); stops at the first move
    that is not legal. ``move`` itself is legal (the engine's ``bestmove``, checked
    by python-chess). ``board`` is not changed; a scratch board is made only when a
    move is not in ``memo``, and the known moves before it are made on it then."""
    line = pv_line(move, pv)
    out: list[str] = []
    key: Hashable = board._transposition_key()
    scratch: chess.Board | None = None  # the position before ``line[len(out)]``, once needed
    for i, m in enumerate(line):
        hit = memo.get(key, m) if memo is not None else None
        if hit is not None:
            san, key = hit
            out.append(san)
            continue
        if scratch is None:
            scratch = board.copy(stack=False)
            for made in line[:i]:
                scratch.push(made)
        elif len(scratch.move_stack) < i:  # known moves since the last new one
            for made in line[len(scratch.move_stack) : i]:
                scratch.push(made)
        if i and not scratch.is_legal(m):
            break
        san = scratch.san_and_push(m)  # makes the move once (san + push: twice)
        after = scratch._transposition_key()
        if memo is not None:
            memo.put(key, m, san, after)
        key = after
        out.append(san)
    return tuple(out)
