"""What the integer program saw and chose in a round, for ``tcecd pair --explain``.

:func:`explain_round` is pure (it runs the solver, but reads no file and no
clock of its own) and returns an :class:`Explanation`: the solver's status, the
objective's value and each of its terms (the seed's weights), every board with
its terms, the players left unpaired, and the colours the hard constraints
closed to each player with the constraint's number in
``../shared/specs/integer-program.md``. :func:`render` writes it as text;
:func:`explain` does both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from tcecd.domain import Color
from tcecd.pairing.base import NO_CONTEXT, Player, RoundContext, RoundRecord
from tcecd.pairing.integer_program.model import (
    L_WEIGHT,
    M_WEIGHT,
    PAIR_WEIGHT,
    SCORE_DIFF_WEIGHT,
    UNPAIRED_BEFORE_WEIGHT,
    PlayerData,
)
from tcecd.pairing.integer_program.solver import Status, games_of
from tcecd.pairing.integer_program.system import DEFAULT_TIME_LIMIT_S, IntegerProgram
from tcecd.pairing.registry import SystemOptions


@dataclass(frozen=True, slots=True)
class Board:
    """One chosen game and its share of the objective (seed units)."""

    white: Player
    black: Player
    white_score: Fraction
    black_score: Fraction
    unpaired_before: int
    l_terms: int
    m_terms: int
    value: Fraction


@dataclass(frozen=True, slots=True)
class Explanation:
    """The objective's terms and the solver's status of one round.

    Counts are the seed's sums: ``pairs`` = sum Y_j, ``unpaired_before`` =
    sum U_i X_ij, ``l_terms`` = sum L_i, ``m_terms`` = sum M_i,
    ``score_difference`` = sum over pairs of |S_a - S_b| (points);
    ``objective`` = 50 pairs + 30 unpaired_before + 20 L + M - 5 difference.
    Empty when the status is not optimal.
    """

    round: int
    status: Status
    detail: str
    mips: int
    lps: int
    allowed_games: int
    objective: Fraction
    pairs: int
    unpaired_before: int
    l_terms: int
    m_terms: int
    score_difference: Fraction
    boards: tuple[Board, ...]
    unpaired: tuple[Player, ...]
    players: tuple[PlayerData, ...]


def explain_round(
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    context: RoundContext = NO_CONTEXT,
    *,
    double: bool = False,
    options: SystemOptions | None = None,
) -> Explanation:
    """Build and solve round ``len(history) + 1`` and report its terms; a round
    the solver could not prove optimal is reported (status), not raised."""
    system = IntegerProgram(options or SystemOptions(time_limit_s=DEFAULT_TIME_LIMIT_S))
    model, solution = system.solve(players, history, double=double, context=context)
    chosen = games_of(model, solution)
    boards = tuple(
        Board(
            white=model.players[g.white].player,
            black=model.players[g.black].player,
            white_score=Fraction(model.players[g.white].score_half, model.unit),
            black_score=Fraction(model.players[g.black].score_half, model.unit),
            unpaired_before=g.unpaired_before,
            l_terms=g.l_terms,
            m_terms=g.m_terms,
            value=Fraction(g.weight, model.unit),
        )
        for g in chosen
    )
    paired = {i for g in chosen for i in (g.white, g.black)}
    return Explanation(
        round=model.round,
        status=solution.status,
        detail=solution.detail,
        mips=solution.mips,
        lps=solution.lps,
        allowed_games=len(model.games),
        objective=Fraction(solution.objective_half, model.unit),
        pairs=len(chosen),
        unpaired_before=sum(g.unpaired_before for g in chosen),
        l_terms=sum(g.l_terms for g in chosen),
        m_terms=sum(g.m_terms for g in chosen),
        score_difference=Fraction(sum(g.score_diff_half for g in chosen), model.unit),
        boards=boards,
        unpaired=tuple(d.player for i, d in enumerate(model.players) if i not in paired),
        players=model.players,
    )


def _num(value: Fraction) -> str:
    """1, 1.5, -2.5: a half-integral number as people write it."""
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def render(expl: Explanation) -> str:
    """The explanation as text (one line per fact; ends with a newline)."""
    lines = [
        f"round {expl.round}: integer program, {expl.status.value}"
        + (f" [{expl.detail}]" if expl.detail else ""),
        f"  allowed pairs: {expl.allowed_games}; LPs solved: {expl.lps}, MIP searches: {expl.mips}",
    ]
    if expl.status in (Status.OPTIMAL, Status.EMPTY):
        w = (PAIR_WEIGHT // 2, UNPAIRED_BEFORE_WEIGHT // 2, L_WEIGHT // 2, M_WEIGHT // 2)
        lines += [
            f"  objective {_num(expl.objective)} = {w[0]} x {expl.pairs} pairs"
            f" + {w[1]} x {expl.unpaired_before} paired after sitting out"
            f" + {w[2]} x {expl.l_terms} L + {w[3]} x {expl.m_terms} M"
            f" - {SCORE_DIFF_WEIGHT} x {_num(expl.score_difference)} score difference",
            "  boards (white - black, scores, terms):",
        ]
        for n, b in enumerate(expl.boards, start=1):
            terms = [f"value {_num(b.value)}"]
            if b.unpaired_before:
                terms.append(f"U {b.unpaired_before}")
            if b.l_terms:
                terms.append(f"L {b.l_terms}")
            if b.m_terms:
                terms.append(f"M {b.m_terms}")
            lines.append(
                f"    {n:3d}. {b.white.id} ({b.white.seed}, {_num(b.white_score)})"
                f" - {b.black.id} ({b.black.seed}, {_num(b.black_score)}): {', '.join(terms)}"
            )
        unpaired = ", ".join(f"{p.id} ({p.seed})" for p in expl.unpaired) or "none"
        lines.append(f"  unpaired (pairing-allocated BYE): {unpaired}")
    lines.append("  colours closed by the hard constraints (spec number: reason):")
    closed = [d for d in expl.players if d.closed]
    for d in closed:
        why = "; ".join(f"{_colour(c)}: {reason.value}" for c, reason in d.closed)
        lines.append(f"    {d.player.id} ({d.player.seed}, W-B {d.diff:+d}): {why}")
    if not closed:
        lines.append("    none")
    return "\n".join(lines) + "\n"


def _colour(colour: Color) -> str:
    return "no white" if colour is Color.WHITE else "no black"


def explain(
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    context: RoundContext = NO_CONTEXT,
    *,
    double: bool = False,
    options: SystemOptions | None = None,
) -> str:
    """:func:`explain_round` rendered as text."""
    return render(explain_round(players, history, context, double=double, options=options))
