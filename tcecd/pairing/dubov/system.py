"""The FIDE Dubov system (C.04.4.1, approved by the 2018 General Assembly).

Rules: ``../shared/seeds/fide-dubov-system-C04041.txt``; article numbers in
comments and docstrings are that text's. One call pairs one round, a pure
function of the players, the finished rounds and the round's context:

* A.8: the pairing-allocated bye first (B.0), then the scoregroups in
  descending order of score, each as one bracket of its remaining residents
  and the upfloaters chosen for them (B.1, B.2: :mod:`.bracket`), paired by
  colour groups and transpositions (B.3-B.6). A round that cannot be
  completed (A.8: "the arbiter shall decide") is a :class:`PairingError`.
* Section E gives the colours (:mod:`.colours`); section A the facts they
  all read (:mod:`.facts`).
* Requested byes (``context.requested_byes``) are not paired; they are no
  game, so they give no colour, no ARO and no encounter.
* Double rounds (engine events): each pair plays two games, colours
  reversed; the system allocates the first game's colours and the round is
  one encounter worth both games' points (``docs/pairing.md``).
* Board order: pairs by the higher score in the pair, then the sum of the
  two scores, then the better initial ranking of the pair's higher-ranked
  player; ``first`` of each pair is white in the first game.
* The event's rules (:class:`~tcecd.pairing.base.RoundContext`): a forbidden
  pair is never paired (as C.1 keeps players who met apart); scores follow
  the point system; virtual points (accelerated rounds) count in every score
  the rules read (scoregroups, A.3 upfloats, B.0 and board order).
"""

from __future__ import annotations

from collections.abc import Sequence

from tcecd.errors import PairingError
from tcecd.pairing.base import (
    NO_CONTEXT,
    EventLengthSystem,
    Pair,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
    absent_players,
    board_order_games,
)
from tcecd.pairing.dubov.bracket import FloatRules, choose_upfloaters, pair_bracket
from tcecd.pairing.dubov.colours import higher_ranked, white_of
from tcecd.pairing.dubov.facts import Facts, max_upfloats, player_facts
from tcecd.pairing.dubov.graph import LegalGraph
from tcecd.pairing.tally import check_players


def bye_key(player: Facts) -> tuple[int, int, int]:
    """B.0.3-B.0.5 as a sort key (first = gets the bye): the lowest score, then
    the most games played (over the board: a forfeit never played and a
    requested bye are no game), then the lowest place in the initial ranking."""
    return (player.score, -player.games_played, -player.rank)


def choose_bye(graph: LegalGraph, players: Sequence[Facts]) -> Facts:
    """B.0: the pairing-allocated bye.

    Among the players who may have it (C.2: no pairing-allocated bye and no
    forfeit win yet) and whose absence lets everyone else be paired (C.4),
    the one with the lowest score, then the most games played, then the
    lowest place in the initial ranking list.
    """
    candidates = sorted((p for p in players if not p.bye_barred), key=bye_key)  # B.0.1 (C.2)
    for p in candidates:
        if graph.can_pair_all(q for q in players if q is not p):  # B.0.2 (C.4)
            return p
    raise PairingError(
        "Dubov B.0: no player can take the pairing-allocated bye and leave a complete "
        "pairing of the others (C.2, C.4)"
    )



class Dubov(EventLengthSystem):
    """The FIDE Dubov system (a :class:`~tcecd.pairing.base.PairingSystem`)."""

    name = "dubov"

    def pair(
        self,
        players: Sequence[Player],
        history: Sequence[RoundRecord],
        *,
        double: bool,
        context: RoundContext = NO_CONTEXT,
    ) -> RoundPairing:
        """Pair round ``len(history) + 1``; :class:`PairingError` when impossible."""
        round_number = len(history) + 1
        check_players(players)
        facts = player_facts(
            players,
            history,
            double=double,
            points=context.points,
            acceleration=context.acceleration,
            forbidden=context.forbidden_pairs,
        )
        absent = absent_players(round_number, context.requested_byes, facts)
        # Scoregroups in descending order (A.8), each in initial-ranking order.
        active = sorted(
            (facts[p.id] for p in players if p.id not in absent), key=lambda f: (-f.score, f.rank)
        )
        graph = LegalGraph(active)

        try:
            bye = choose_bye(graph, active) if len(active) % 2 else None
        except PairingError as exc:
            raise PairingError(f"round {round_number}: {exc}") from None
        unpaired = [p for p in active if p is not bye]
        if not graph.can_pair_all(unpaired):  # A.8: the round cannot be completed
            raise PairingError(
                f"round {round_number}: Dubov A.8: the players cannot all be paired "
                "without a repeated game (C.1) or two equal absolute colour wishes (C.3)"
            )

        total = context.total_rounds
        rules = FloatRules(
            max_upfloats=max_upfloats(total),
            last_round=total is not None and round_number >= total,
        )
        formed: list[tuple[Facts, Facts]] = []
        while unpaired:
            top = unpaired[0].score
            residents = [p for p in unpaired if p.score == top]
            pool = [p for p in unpaired if p.score < top]  # D.1.a order already
            upfloaters = choose_upfloaters(graph, residents, pool, rules)
            bracket = [*residents, *upfloaters]
            formed.extend(pair_bracket(graph, bracket))
            taken = {p.id for p in bracket}
            unpaired = [p for p in unpaired if p.id not in taken]

        # Section E, then board order.
        coloured: list[tuple[Facts, Facts]] = []
        for a, b in formed:
            white = white_of(a, b, context.first_colour)
            coloured.append((white, b if white is a else a))
        coloured.sort(key=_board_key)
        pairs = tuple(Pair(w.id, b.id) for w, b in coloured)
        games = board_order_games(pairs, double=double)
        return RoundPairing(
            round=round_number,
            byes=(bye.id,) if bye is not None else (),
            removed_history_rounds=(),
            pairs=pairs,
            games=tuple(games),
            requested_byes=context.requested_byes,
        )


def _board_key(pair: tuple[Facts, Facts]) -> tuple[int, int, int]:
    a, b = pair
    top = higher_ranked(a, b)
    return (-max(a.score, b.score), -(a.score + b.score), top.rank)
