"""Game rules and TCEC-style adjudication, decided by tcecd, never by engines.

:func:`rules_verdict` applies the laws of chess the way cutechess-cli (and so
TCEC) does: checkmate and stalemate; insufficient material; the 50-move rule
and threefold repetition end the game *automatically* as soon as they are
claimable (100 plies without capture or pawn move; the third occurrence of a
position), no engine claim needed. Checkmate on the 100th ply wins.

:class:`Adjudicator` adds the configurable TCEC rules (tcec-formats.md,
"Adjudication"), following TCEC's cutechess fork in ``-tcecadj`` mode:

- Draw rule: from move ``from_move`` on, when both engines' evaluations stay
  within ±``score_cp`` for ``moves`` consecutive moves each (``2*moves`` plies),
  the game is drawn. A capture or pawn move resets the count and does not count.
- Win rule ("TCEC resign rule"): both engines agree that the same side is ahead
  by at least ``score_cp`` for ``moves`` consecutive moves each.
- Tablebases: a position with at most ``max_pieces`` pieces and no castling
  rights is adjudicated by its Syzygy WDL value (cursed wins and blessed losses
  are draws under the 50-move rule).
- Maximum moves: the game is drawn after ``max_moves`` moves (``2*max_moves``
  plies from the start position, book plies included).

Book plies and plies without a score reset the counters (as cutechess does for
"forced" moves). Move counts are plies played since the opening's start
position divided by two, as cutechess counts them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import chess

from tcecd.domain import Color, Result, Termination
from tcecd.game.record import Score

#: ``TerminationDetails`` texts (as TCEC's cutechess writes them).
DRAW_RULE = "TCEC draw rule"
WIN_RULE = "TCEC resign rule"
MAX_MOVES_RULE = "TCEC max moves rule"
TABLEBASE = "SyzygyTB"

#: Counter value meaning "this rule is switched off".
RULE_OFF = -1000


@dataclass(frozen=True)
class DrawRule:
    """Draw when both engines' evals stay within ±``score_cp`` for ``moves``
    moves each, from move ``from_move`` on."""

    from_move: int
    score_cp: int
    moves: int

    def __post_init__(self) -> None:
        if self.from_move < 0 or self.score_cp < 0 or self.moves < 1:
            raise ValueError(f"invalid draw rule: {self!r}")


@dataclass(frozen=True)
class WinRule:
    """Win when both engines agree one side is ahead by ``score_cp`` or more
    for ``moves`` moves each."""

    score_cp: int
    moves: int

    def __post_init__(self) -> None:
        if self.score_cp < 1 or self.moves < 1:
            raise ValueError(f"invalid win rule: {self!r}")


@dataclass(frozen=True)
class TablebaseRule:
    """Adjudicate positions with at most ``max_pieces`` pieces (kings included)."""

    max_pieces: int

    def __post_init__(self) -> None:
        if not 2 <= self.max_pieces <= 7:
            raise ValueError(f"invalid tablebase rule: max_pieces {self.max_pieces!r} not in 2..7")


@dataclass(frozen=True)
class AdjudicationRules:
    """Which adjudication rules an event uses (None: off)."""

    draw: DrawRule | None = None
    win: WinRule | None = None
    tablebase: TablebaseRule | None = None
    max_moves: int | None = None

    def __post_init__(self) -> None:
        if self.max_moves is not None and self.max_moves < 1:
            raise ValueError(f"invalid max_moves: {self.max_moves!r}")


@dataclass(frozen=True)
class Verdict:
    """How a game ends: result, PGN ``Termination`` and ``TerminationDetails``."""

    result: Result
    termination: Termination
    detail: str


def _winner_text(color: Color) -> str:
    return "White" if color is Color.WHITE else "Black"


def _color(turn: chess.Color) -> Color:
    return Color.WHITE if turn == chess.WHITE else Color.BLACK


def rules_verdict(board: chess.Board, *, has_legal_move: bool = False) -> Verdict | None:
    """The laws-of-chess ending of ``board`` (with its move stack), or None.

    Checked in cutechess's order: checkmate/stalemate, insufficient material,
    fifty moves, threefold repetition. ``has_legal_move``: the caller knows a
    legal move in this position (the engine's PV goes on with one, checked
    legal), which rules out checkmate and stalemate without a move generation.
    """
    # No legal move: checkmate or stalemate (one move generation for both,
    # where is_checkmate() and is_stalemate() would each test for check first).
    if not has_legal_move and not any(board.generate_legal_moves()):
        if board.is_check():
            winner = _color(not board.turn)
            text = f"{_winner_text(winner)} mates"
            return Verdict(Result.win_for(winner), Termination.NORMAL, text)
        return Verdict(Result.DRAW, Termination.NORMAL, "Stalemate")
    if board.is_insufficient_material():
        return Verdict(Result.DRAW, Termination.NORMAL, "Insufficient material")
    if board.halfmove_clock >= 100:
        return Verdict(Result.DRAW, Termination.NORMAL, "Fifty moves rule")
    # A third occurrence needs 8 reversible plies at least (each return to a
    # position takes 4), so a lower fifty-move counter rules it out without
    # python-chess's walk over the whole move stack.
    if board.halfmove_clock >= 8 and board.is_repetition(3):
        return Verdict(Result.DRAW, Termination.NORMAL, "3-Fold repetition")
    return None


def _ahead(score: Score, threshold_cp: int) -> Color | None:
    """Which side ``score`` (White's view) puts at least ``threshold_cp`` ahead."""
    if score.mate is not None:
        return Color.WHITE if score.mate > 0 else Color.BLACK
    assert score.cp is not None
    if score.cp >= threshold_cp:
        return Color.WHITE
    if score.cp <= -threshold_cp:
        return Color.BLACK
    return None


def _within(score: Score, threshold_cp: int) -> bool:
    return score.mate is None and score.cp is not None and abs(score.cp) <= threshold_cp


class Adjudicator:
    """Applies the rules and the adjudication rules ply by ply for one game.

    Call :meth:`on_ply` after every ply is pushed on the board (book plies
    included) with the mover's evaluation converted to White's view. State is
    only the counters, so a resumed game rebuilds it by replaying its plies.
    ``probe`` returns the Syzygy WDL of a board from the side to move (the
    python-chess convention) or None; see :func:`tcecd.game.tablebase.open_probe`.
    """

    def __init__(
        self,
        rules: AdjudicationRules,
        probe: Callable[[chess.Board], int | None] | None = None,
    ) -> None:
        self.rules = rules
        self.probe = probe
        # Consecutive plies within the draw band (captures/pawn moves reset).
        self._draw_plies = 0
        # _ahead_moves[mover][side]: consecutive moves of ``mover`` whose eval
        # put ``side`` ahead by the win-rule margin.
        self._ahead_moves: dict[Color, dict[Color, int]] = {
            mover: {side: 0 for side in Color} for mover in Color
        }

    def on_ply(
        self,
        board: chess.Board,
        mover: Color,
        score: Score | None,
        *,
        book: bool = False,
        has_legal_move: bool = False,
    ) -> Verdict | None:
        """Update the counters for the ply just pushed and return a verdict if
        the game is over (laws of chess first, then tablebases, the draw rule,
        the win rule and the maximum length). ``has_legal_move``: as for
        :func:`rules_verdict`."""
        verdict = rules_verdict(board, has_legal_move=has_legal_move)
        if verdict is not None:
            return verdict
        verdict = self._tablebase(board)
        if verdict is not None:
            return verdict

        rules = self.rules
        if book or score is None:
            self._draw_plies = 0
            self._ahead_moves[mover] = {side: 0 for side in Color}
        else:
            band = rules.draw.score_cp if rules.draw else 0
            if board.halfmove_clock == 0 or not _within(score, band):
                # A capture or pawn move resets the draw count (TCEC rule).
                self._draw_plies = 0
            else:
                self._draw_plies += 1
            ahead = _ahead(score, rules.win.score_cp) if rules.win else None
            counts = self._ahead_moves[mover]
            for side in Color:
                counts[side] = counts[side] + 1 if side is ahead else 0

        plies = len(board.move_stack)
        draw = rules.draw
        if draw is not None and plies // 2 >= draw.from_move and self._draw_plies >= 2 * draw.moves:
            return Verdict(Result.DRAW, Termination.ADJUDICATION, DRAW_RULE)
        win = rules.win
        if win is not None:
            for side in Color:
                if all(self._ahead_moves[m][side] >= win.moves for m in Color):
                    return Verdict(Result.win_for(side), Termination.ADJUDICATION, WIN_RULE)
        if rules.max_moves is not None and plies >= 2 * rules.max_moves:
            return Verdict(Result.DRAW, Termination.ADJUDICATION, MAX_MOVES_RULE)
        return None

    def _tablebase(self, board: chess.Board) -> Verdict | None:
        rule = self.rules.tablebase
        if rule is None or self.probe is None:
            return None
        if chess.popcount(board.occupied) > rule.max_pieces or board.castling_rights:
            return None
        wdl = self.probe(board)
        if wdl is None:
            return None
        to_move = _color(board.turn)
        if wdl >= 2:
            result = Result.win_for(to_move)
        elif wdl <= -2:
            result = Result.win_for(to_move.other)
        else:
            result = Result.DRAW
        return Verdict(result, Termination.ADJUDICATION, TABLEBASE)

    def counters(self, board: chess.Board) -> tuple[int, int, int]:
        """``(R50, Rd, Rr)`` after the last :meth:`on_ply`, as TCEC writes them.

        ``R50``: moves left before the 50-move rule, ``(100 - halfmove clock) // 2``
        as in TCEC's PGNs. ``Rd``/``Rr``: plies left before the draw/win rule
        fires if the evaluations keep qualifying; while a rule is not counting
        (counter empty, or the firing ply is before the draw rule's first move)
        the value is ``-(plies left) - 1``; ``-1000`` when the rule is off.
        """
        r50 = max(0, (100 - board.halfmove_clock) // 2)
        plies = len(board.move_stack)

        draw = self.rules.draw
        if draw is None:
            rd = RULE_OFF
        else:
            left = max(0, 2 * draw.moves - self._draw_plies)
            active = self._draw_plies > 0 and (plies + left) // 2 >= draw.from_move
            rd = left if active else -left - 1

        win = self.rules.win
        if win is None:
            rr = RULE_OFF
        else:
            mover = _color(not board.turn)
            best: int | None = None
            for side in Color:
                mine = self._ahead_moves[mover][side]
                theirs = self._ahead_moves[mover.other][side]
                if mine == 0 and theirs == 0:
                    continue
                # The opponent moves next (plies 1, 3, ...), the mover after.
                need_theirs = max(0, win.moves - theirs)
                need_mine = max(0, win.moves - mine)
                left = max(2 * need_theirs - 1 if need_theirs else 0, 2 * need_mine)
                best = left if best is None else min(best, left)
            rr = best if best is not None else -2 * win.moves - 1
        return r50, rd, rr
