"""The integer-program pairing system (registry name ``integer-program``).

The seed's model (``../shared/seeds/swiss-integer-program-model.md``) with the
spec's decisions (``../shared/specs/integer-program.md``), solved by HiGHS to
proven optimality, ties broken as the spec orders. The model is built by
:mod:`~tcecd.pairing.integer_program.model` and solved by
:mod:`~tcecd.pairing.integer_program.solver`; this module turns the solution
into a :class:`~tcecd.pairing.base.RoundPairing`:

* ``pairs`` in the spec's board order (the higher score of the two DESC, the
  lower pairing number ASC), ``first`` = white of the first game;
* ``games``: the boards in order (leg 1), then in a double round the reversed
  games in the same order (leg 2);
* the players left unpaired get pairing-allocated BYEs scored as a win (spec):
  all of them are the round's ``byes`` (the model may leave several unpaired).
  ``U`` entries in ``context.requested_byes`` (a record replayed as its own
  context) are ignored: the system allocates them.
* the event's rules: forbidden pairs are left out as pairs that met; scores
  follow the point system, with the round's virtual points (:mod:`.model`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tcecd.errors import PairingError
from tcecd.pairing.base import (
    NO_CONTEXT,
    EventLengthSystem,
    Pair,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
    board_order_games,
)
from tcecd.pairing.integer_program.model import RoundModel, build_model, requested
from tcecd.pairing.integer_program.solver import Solution, Status, games_of, solve

if TYPE_CHECKING:
    from tcecd.pairing.registry import SystemOptions

#: The solver limit per round when no options are given (SystemOptions' default).
DEFAULT_TIME_LIMIT_S = 10.0


class IntegerProgram(EventLengthSystem):
    """The integer-program system (a :class:`~tcecd.pairing.base.PairingSystem`)."""

    name = "integer-program"

    def __init__(self, options: SystemOptions | None = None) -> None:
        """``options.time_limit_s`` bounds the solver's time for one round."""
        self.time_limit_s = options.time_limit_s if options is not None else DEFAULT_TIME_LIMIT_S
        if not self.time_limit_s > 0:
            raise PairingError(
                f"integer-program: time limit must be positive, got {self.time_limit_s!r} s"
            )

    def solve(
        self,
        players: Sequence[Player],
        history: Sequence[RoundRecord],
        *,
        double: bool,
        context: RoundContext = NO_CONTEXT,
    ) -> tuple[RoundModel, Solution]:
        """The round's model and the solver's outcome, whatever its status."""
        model = build_model(players, history, double=double, context=context)
        return model, solve(model, self.time_limit_s)

    def pair(
        self,
        players: Sequence[Player],
        history: Sequence[RoundRecord],
        *,
        double: bool,
        context: RoundContext = NO_CONTEXT,
    ) -> RoundPairing:
        """Pair round ``len(history) + 1``: the optimal pairing the spec's tie-break
        picks; :class:`PairingError` naming the round if HiGHS cannot prove an
        optimum within the time limit.

        ``context.requested_byes`` are left out of the round (the spec: absent
        players are marked, not paired); ``first_colour`` is not used: the
        spec's tie-break fixes every colour, round 1 included (the lower
        pairing number of a pair gets white when both colours are open).
        """
        model, solution = self.solve(players, history, double=double, context=context)
        if solution.status not in (Status.OPTIMAL, Status.EMPTY):
            raise PairingError(
                f"round {model.round}: the integer program was not solved to proven "
                f"optimality: {solution.status.value} ({solution.detail})"
            )
        return to_round_pairing(model, solution, double=double, context=context)


def to_round_pairing(
    model: RoundModel, solution: Solution, *, double: bool, context: RoundContext
) -> RoundPairing:
    """The pairing record of an optimal solution (module docstring)."""
    boards = games_of(model, solution)
    pairs = tuple(
        Pair(model.players[g.white].player.id, model.players[g.black].player.id) for g in boards
    )
    games = board_order_games(pairs, double=double)
    paired = {pid for p in pairs for pid in (p.first, p.second)}
    unpaired = [d.player.id for d in model.players if d.player.id not in paired]
    return RoundPairing(
        round=model.round,
        byes=unpaired,
        removed_history_rounds=(),
        pairs=pairs,
        games=tuple(games),
        requested_byes=requested(context),
    )
