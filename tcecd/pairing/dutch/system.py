"""The FIDE (Dutch) system, C.04.3 (2017), registry name ``dutch-2017``.

One call pairs one round (a pure function of the players, the finished rounds
and the :class:`~tcecd.pairing.base.RoundContext`): players with a requested
bye or absence are left out, the rest are paired bracket by bracket
(:mod:`.brackets`), colours follow E.1-E.5, and the pairs are put in board
order. Double rounds (engine events): the system allocates the first game's
colours; the second game reverses them.

The event's rules (:class:`~tcecd.pairing.base.RoundContext`): a forbidden
pair is never paired, as C.1 never pairs two players twice (bbpPairings and
JaVaFo treat ``XXP`` so); scores follow the point system; virtual points
(accelerated rounds) count in every score the rules compare (A.2 ranking,
brackets, A.4 floats, A.7 topscorers) but not in board order, which C.04.2
takes from the real scores (bbpPairings does so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tcecd.errors import PairingError
from tcecd.pairing.base import (
    ByeKind,
    EventLengthSystem,
    Pair,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
    absent_players,
    board_order_games,
)
from tcecd.pairing.dutch.brackets import RoundPairer
from tcecd.pairing.dutch.state import PlayerState, build_states
from tcecd.pairing.points import partners
from tcecd.pairing.tally import check_players


def board_key(
    pair: tuple[PlayerState, PlayerState], virtual: dict[str, int] | None = None
) -> tuple[int, int, int]:
    """Board order (C.04.2): the higher score in the pair first, then the
    sum of the scores, then the pairing number of the pair's higher ranked
    player (A.2: score, then pairing number). Scores without the round's
    ``virtual`` points (by player id), as bbpPairings orders boards."""
    a, b = pair
    extra = virtual or {}
    sa = a.score - extra.get(a.id, 0)
    sb = b.score - extra.get(b.id, 0)
    high = a if (-sa, a.seed) < (-sb, b.seed) else b
    return (-max(sa, sb), -(sa + sb), high.seed)


class Dutch2017(EventLengthSystem):
    """FIDE Dutch system, C.04.3 as of 2017 (a :class:`~tcecd.pairing.base.PairingSystem`)."""

    name = "dutch-2017"

    def pair(
        self,
        players: Sequence[Player],
        history: Sequence[RoundRecord],
        *,
        double: bool,
        context: RoundContext = RoundContext(),  # noqa: B008 - frozen value
    ) -> RoundPairing:
        check_players(players)
        round_number = len(history) + 1
        states = build_states(
            players,
            history,
            double=double,
            total_rounds=context.total_rounds,
            points=context.points,
            acceleration=context.acceleration,
        )
        if context.forbidden_pairs:
            # Forbidden pairs: as if they had met (C.1 is then absolute for them).
            for pid, others in partners(context.forbidden_pairs).items():
                if pid in states:
                    state = states[pid]
                    states[pid] = replace(state, opponents=state.opponents | others)
        for bye in context.requested_byes:
            if bye.kind is ByeKind.PAIRING:
                raise PairingError(
                    f"round {round_number}: {bye.player!r}: the pairing-allocated bye "
                    "cannot be requested"
                )
        absent = absent_players(round_number, context.requested_byes, states)
        to_pair = [states[p.id] for p in players if p.id not in absent]
        if not to_pair:
            raise PairingError(f"round {round_number}: nobody to pair")
        # E.5 (and C.04.2.C, late entries): the pairing numbers of the players
        # who have entered the event -- paired in an earlier round or now --
        # renumbered 1, 2, ... in initial order. A player absent from every
        # round so far has no pairing number yet.
        pairing_now = {s.id for s in to_pair}
        entered = sorted(
            (s for s in states.values() if s.entered or s.id in pairing_now),
            key=lambda s: s.seed,
        )
        number = {s.id: k + 1 for k, s in enumerate(entered)}
        try:
            result = RoundPairer(
                to_pair, context.first_colour, number, one_point=context.points.one_point
            ).run()
        except PairingError as exc:
            raise PairingError(f"round {round_number}: {exc}") from None
        virtual = {
            s.id: context.acceleration.virtual(s.id, round_number) for s in to_pair
        } if context.acceleration else None
        boards = sorted(result.pairs, key=lambda pair: board_key(pair, virtual))
        pairs = tuple(Pair(white.id, black.id) for white, black in boards)
        games = board_order_games(pairs, double=double)
        return RoundPairing(
            round=round_number,
            byes=(result.bye.id,) if result.bye is not None else (),
            removed_history_rounds=(),
            pairs=pairs,
            games=tuple(games),
            requested_byes=tuple(context.requested_byes),
        )
