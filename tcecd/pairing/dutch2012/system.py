"""The FIDE Dutch system of 2012 as a :class:`~tcecd.pairing.base.PairingSystem`.

Rules: ``../shared/seeds/fide-dutch-system-2012.txt``, applied as the
procedure it describes (docs/pairing.md, "Dutch 2012"). This module pairs a
round bracket by bracket, from the highest score down:

* A.2/A.3: the players (less requested byes, F.5) in A.2 order, grouped in
  score brackets;
* C.1: a player of a bracket who has no possible opponent in it (B.1, or B.2
  except for top scorers) is moved down at once; one moved down from above
  first makes the previous bracket look for other floaters (C.12);
* C.12: when a moved-down player finds no opponent, or a bracket cannot
  make its P1 pairs, the previous bracket is paired again to send down
  another set of players of the same size and scores with which more
  moved-down players are paired, or then P1 pairs made (once: never while
  already backtracking);
* C.13: the lowest bracket must pair everybody but the bye; if it cannot
  pair its moved-down players (the highest of them first: D.3's first set),
  the penultimate bracket is asked first for other floaters, then D.3's
  other sets, then M1 = 0, then other floaters with M1 = 0, then any
  other pairing of the penultimate bracket; if none helps (or P becomes
  zero there) the two lowest brackets are joined, with the latest added one
  as S1, and so on upwards (:data:`~tcecd.pairing.dutch2012.backtrack._C13_STEPS`;
  C.1, C.12 and C.13 are :mod:`~tcecd.pairing.dutch2012.backtrack`);
* the readings of the text where it is open are JaVaFo 1.4's (docs/pairing.md,
  "Compared with JaVaFo 1.4");
* A.5/B.1b: the bye (odd field) is the player the lowest bracket leaves
  unpaired, never one who already had a point without playing;
* E: colours; F.1: board order.

The event's rules (:class:`~tcecd.pairing.base.RoundContext`): a forbidden
pair is never paired (an absolute criterion, as B.1a's "not played before");
scores follow the point system; virtual points (accelerated rounds) count in
every score the rules read (A.2, A.3, A.4 floats, A.10 top scorers, F.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tcecd.domain import Color, PlayerId
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
from tcecd.pairing.dutch2012.backtrack import pair_brackets
from tcecd.pairing.dutch2012.brackets import Round
from tcecd.pairing.dutch2012.colours import Preference, allocate, preference
from tcecd.pairing.dutch2012.criteria import compatible
from tcecd.pairing.dutch2012.state import PlayerState, a2_key, player_states
from tcecd.pairing.matching import PairingGraph, ViabilityMatcher
from tcecd.pairing.points import partners


class Dutch2012(EventLengthSystem):
    """The FIDE Dutch system, rules of 2012 (a :class:`~tcecd.pairing.base.PairingSystem`)."""

    name = "dutch-2012"

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
        states = player_states(
            players,
            history,
            double=double,
            points=context.points,
            acceleration=context.acceleration,
        )
        for pid, others in partners(context.forbidden_pairs).items():
            if pid in states:  # forbidden pairs: as if they had met (B.1a)
                states[pid] = replace(states[pid], opponents=states[pid].opponents | others)
        absent = absent_players(round_number, context.requested_byes, states)
        field = sorted((s for s in states.values() if s.id not in absent), key=a2_key)
        prefs = {s.id: preference(s.colours) for s in field}
        top_above: int | None = None
        if context.total_rounds is not None and round_number == context.total_rounds:
            # A.10: over 50% of the maximum possible score (the most a game
            # can score, in every round so far).
            most = (round_number - 1) * (2 if double else 1) * context.points.most_per_game
            top_above = most // 2
        rnd = Round(field, prefs, even_round=round_number % 2 == 0, top_scorer_above=top_above)
        if not _possible(rnd):
            # Also when every player had a point without playing in an odd field
            # (B.1b leaves nobody for the bye; JaVaFo 1.4 then often gives it
            # anyway: docs/pairing.md, "Dutch 2012").
            raise PairingError(
                f"round {round_number}: no pairing satisfies the absolute criteria B.1 and B.2"
            )
        outcomes = pair_brackets(rnd, _score_groups(field), round_number)
        pairs_out = [pair for out in outcomes for pair in out.pairs]
        floaters = [p for out in outcomes[-1:] for p in out.floaters]
        if len(floaters) > 1:  # pragma: no cover - the lowest bracket leaves at most one
            raise PairingError(f"round {round_number}: internal error: {len(floaters)} unpaired")
        bye = floaters[0].id if floaters else None
        lot = _lot_colour(history, players, context)
        return _round_pairing(round_number, pairs_out, bye, prefs, field, double, context, lot)


def _possible(rnd: Round) -> bool:
    """Whether any pairing of the field meets B.1 (with an eligible bye) and B.2
    (which top scorers may ignore in the last round): a perfect matching of
    the allowed pairs, the bye a vertex of its own. The procedure never
    breaks these, so without such a matching it cannot succeed either."""
    field = rnd.field
    n = len(field)
    spare = n % 2
    forbidden: list[set[int]] = [set() for _ in range(n + spare)]
    for i, a in enumerate(field):
        for j in range(i + 1, n):
            b = field[j]
            if not compatible(a, b, rnd.prefs, rnd.top_scorer_above):
                forbidden[i].add(j)
                forbidden[j].add(i)
        if spare and a.unplayed_point:
            forbidden[i].add(n)
            forbidden[n].add(i)
    matcher = ViabilityMatcher(PairingGraph(forbidden, [0] * (n + spare), 0), range(n + spare))
    return not matcher.maximize()


def _score_groups(field: Sequence[PlayerState]) -> list[list[PlayerState]]:
    """A.3: the score brackets, highest first (``field`` is in A.2 order)."""
    groups: list[list[PlayerState]] = []
    for s in field:
        if groups and groups[-1][0].score == s.score:
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def _lot_colour(
    history: Sequence[RoundRecord], players: Sequence[Player], context: RoundContext
) -> Color:
    """The colour drawn by lot for round 1 (A.7.c, E.5): what the highest ranked
    player with a game in round 1 received (board 1's higher player), else, before
    round 1 or without any game in it, ``context.first_colour``."""
    if not history:
        return context.first_colour
    seed = {p.id: p.seed for p in players}
    best: tuple[int, Color] | None = None
    for game in history[0].games:
        for pid, colour in ((game.white, Color.WHITE), (game.black, Color.BLACK)):
            if best is None or seed[pid] < best[0]:
                best = (seed[pid], colour)
    return context.first_colour if best is None else best[1]


def _round_pairing(
    round_number: int,
    pairs: Sequence[tuple[PlayerState, PlayerState]],
    bye: PlayerId | None,
    prefs: dict[PlayerId, Preference],
    field: Sequence[PlayerState],
    double: bool,
    context: RoundContext,
    lot: Color,
) -> RoundPairing:
    """F.1 board order, E colours, and the schedule.

    Two players without any game (A.7.f: neither has a preference) are left
    open by E.1-E.4. In round 1, E.5: board 1's higher player gets the colour
    drawn by lot, then alternately by board (the S1 order). In a later round
    the text says nothing; tcecd does what JaVaFo 1.4 does (docs/pairing.md):
    the higher ranked player gets the lot's colour when his pairing number is
    even and the other colour when it is odd -- the colour an odd-numbered
    player did not get in round 1, as if the lot still applied to him.
    """
    rank = {s.id: i for i, s in enumerate(field)}
    ordered = []
    for a, b in pairs:
        higher, lower = (a, b) if rank[a.id] < rank[b.id] else (b, a)
        ordered.append((higher, lower))
    # F.1: score of the higher player, sum of scores, A.2 rank of the higher player.
    ordered.sort(
        key=lambda hl: (
            -max(hl[0].score, hl[1].score),
            -(hl[0].score + hl[1].score),
            rank[hl[0].id],
        )
    )
    no_pref_boards = 0
    first_games: list[tuple[PlayerId, PlayerId]] = []
    for higher, lower in ordered:
        open_colour = lot
        if prefs[higher.id].colour is None and prefs[lower.id].colour is None:
            if round_number == 1:
                # E.5: alternate from the colour drawn by lot, board by board.
                open_colour = lot if no_pref_boards % 2 == 0 else lot.other
                no_pref_boards += 1
            else:
                open_colour = lot if higher.player.seed % 2 == 0 else lot.other
        colour = allocate(higher, lower, prefs, no_preference_colour=open_colour)
        if colour is Color.WHITE:
            first_games.append((higher.id, lower.id))
        else:
            first_games.append((lower.id, higher.id))
    boards = tuple(Pair(w, b) for w, b in first_games)
    return RoundPairing(
        round=round_number,
        byes=() if bye is None else (bye,),
        removed_history_rounds=(),
        pairs=boards,
        games=board_order_games(boards, double=double),
        requested_byes=context.requested_byes,
    )
