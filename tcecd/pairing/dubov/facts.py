"""What the Dubov system knows about each player before a round (section A).

Rules: ``../shared/seeds/fide-dubov-system-C04041.txt`` (C.04.4.1, approved
2018). Everything here is derived from the players and the finished rounds:

* A.1 ratings (every player must have one) and A.2 the initial ranking list,
  re-sorted before the pairing of rounds 1 to 4 (:func:`initial_ranking`);
* A.5 colour differences and preferences (:func:`colour_preference`);
* A.6 ARO, the average rating of opponents (:func:`aro`);
* A.7 the maximum upfloater parameter MaxT (:func:`max_upfloats`);
* C.2 eligibility for the pairing-allocated bye, and the float history that
  C.8 to C.10 read (an upfloater is the lower-scored player of a pair; the
  Dubov system has no downfloaters, A.3).

Record conventions (base.py): a forfeit never played (``played=False``) gives
no colour, counts in no ARO and is no encounter (C.04.1 b); its points count.
A double round (engine events: each pair plays two games, colours reversed)
is one encounter worth both games' points; its colour, for every colour rule,
is the colour of the pair's first game that was played (the system allocates
the first game's colours; the reversed game would cancel it out of every
colour difference, and the alternation of A.5 and E.3 follows the first
games, as ``docs/pairing.md`` explains).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from tcecd.domain import Color, PlayerId
from tcecd.errors import PairingError
from tcecd.pairing.base import Player, RoundRecord
from tcecd.pairing.points import (
    NO_ACCELERATION,
    NO_FORBIDDEN,
    STANDARD,
    Acceleration,
    ForbiddenPairs,
    PointSystem,
    partners,
)
from tcecd.pairing.tally import pairing_scores

#: C.04.2.B: titles rank in this order, untitled players after them.
TITLE_ORDER: tuple[str, ...] = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")

#: A.2: the initial ranking list is re-sorted before the pairing of rounds 1..4.
LAST_RESORTED_ROUND = 4


class Strength(enum.IntEnum):
    """A.5: how strongly a player wants a colour (a larger value is stronger)."""

    MILD = 1  # A.5.c, and A.5.d (no game yet: mild for black)
    STRONG = 2  # A.5.b: colour difference +1 or -1
    ABSOLUTE = 3  # A.5.a: difference beyond +-1, or the same colour twice running


@dataclass(frozen=True, slots=True)
class Preference:
    """A.5: the due colour and how strong the wish is."""

    colour: Color
    strength: Strength

    @property
    def absolute(self) -> bool:
        return self.strength is Strength.ABSOLUTE


@dataclass(frozen=True, slots=True)
class Facts:
    """One player's state before the round being paired."""

    player: Player
    #: A.2: 1-based position in the initial ranking list (the pairing number).
    rank: int
    rating: int
    score: int  # for pairing: point-system units, byes and virtual points included
    #: colours of the played rounds, oldest first (C.04.2 D.5: unplayed rounds skipped)
    colours: tuple[Color, ...]
    preference: Preference
    aro: int  # A.6; 0 before the first game
    #: rounds with a game played over the board (B.0.4)
    games_played: int
    #: C.2: a pairing-allocated bye or a forfeit win already received
    bye_barred: bool
    #: C.1: opponents met over the board, and forbidden ones (``XXP``)
    met: frozenset[PlayerId]
    upfloats: int  # C.8, C.9: times upfloated so far
    upfloated_last_round: bool  # C.10

    @property
    def id(self) -> PlayerId:
        return self.player.id

    @property
    def colour_difference(self) -> int:
        """A.5: games with white minus games with black."""
        return sum(1 if c is Color.WHITE else -1 for c in self.colours)


def _title_index(title: str | None) -> int:
    if title is not None and title.upper() in TITLE_ORDER:
        return TITLE_ORDER.index(title.upper())
    return len(TITLE_ORDER)


def initial_ranking(players: Sequence[Player], round_number: int) -> list[Player]:
    """A.2: the initial ranking list used to pair ``round_number``.

    C.04.2.B orders by rating (highest first), then title, then name "unless
    previously stated": tcecd states the event's seed order instead of the
    names, so ties in rating and title keep the seed order. A.2: "each time a
    player's rating is introduced or modified before the pairing of the fourth
    round, the arbiter must re-sort the list", so rounds 1 to 4 are ranked
    from the ratings passed in now. From round 5 the list is frozen: it is the
    seed order, which is the rating order the event was seeded with (the
    records keep no rating history, so an event that changed a rating during
    rounds 1-4 renumbers its seeds by ``initial_ranking(players, 4)``).
    """
    if round_number > LAST_RESORTED_ROUND:
        return sorted(players, key=lambda p: p.seed)
    return sorted(players, key=lambda p: (-rating_of(p), _title_index(p.title), p.seed))


def rating_of(player: Player) -> int:
    """A.1: each player must have a rating (the arbiter assigns a provisional one)."""
    if player.rating is None:
        raise PairingError(
            f"Dubov A.1: player {player.id!r} has no rating "
            "(give it a provisional rating in the event config)"
        )
    return player.rating


def colour_preference(colours: Sequence[Color]) -> Preference:
    """A.5 a-d from the colours of the played games, oldest first."""
    if not colours:
        return Preference(Color.BLACK, Strength.MILD)  # A.5.d
    diff = sum(1 if c is Color.WHITE else -1 for c in colours)
    last = colours[-1]
    if diff < -1 or (len(colours) >= 2 and colours[-2] is last is Color.BLACK):
        return Preference(Color.WHITE, Strength.ABSOLUTE)  # A.5.a
    if diff > 1 or (len(colours) >= 2 and colours[-2] is last is Color.WHITE):
        return Preference(Color.BLACK, Strength.ABSOLUTE)  # A.5.a
    if diff == 1:
        return Preference(Color.BLACK, Strength.STRONG)  # A.5.b
    if diff == -1:
        return Preference(Color.WHITE, Strength.STRONG)  # A.5.b
    return Preference(last.other, Strength.MILD)  # A.5.c: alternate


def aro(opponent_ratings: Sequence[int]) -> int:
    """A.6: mean rating of the opponents met over the board, rounded to the
    nearest integer, halves upwards; 0 before the first game."""
    if not opponent_ratings:
        return 0
    n = len(opponent_ratings)
    return (2 * sum(opponent_ratings) + n) // (2 * n)


def max_upfloats(total_rounds: int | None) -> int | None:
    """A.7: MaxT = 2 + [Rnds / 5]; None when the event's length is unknown
    (then nobody counts as a maximum upfloater: C.8 and C.9 have nothing to
    measure)."""
    if total_rounds is None:
        return None
    return 2 + total_rounds // 5


@dataclass(slots=True)
class _Encounter:
    opponent: PlayerId
    colour: Color | None  # None: no game of the pair was played
    won_by_forfeit: bool


def _round_encounters(record: RoundRecord) -> dict[PlayerId, _Encounter]:
    """Each player's encounter in one round: the pair's first game is leg 1 (the
    games of a double round are recorded first games first)."""
    out: dict[PlayerId, _Encounter] = {}
    for game in record.games:
        for pid, opp, colour in (
            (game.white, game.black, Color.WHITE),
            (game.black, game.white, Color.BLACK),
        ):
            enc = out.setdefault(pid, _Encounter(opp, None, False))
            if game.played and enc.colour is None:
                enc.colour = colour
            if not game.played and game.result.half_points(colour) == 2:
                enc.won_by_forfeit = True
    return out


def player_facts(
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    *,
    double: bool,
    points: PointSystem = STANDARD,
    acceleration: Acceleration = NO_ACCELERATION,
    forbidden: ForbiddenPairs = NO_FORBIDDEN,
) -> dict[PlayerId, Facts]:
    """Section A for every player before round ``len(history) + 1``: scores
    by ``points`` with the virtual points of ``acceleration`` (for scoregroups
    and A.3's upfloats, as for the Dutch system), and the ``forbidden`` pairs
    as if they had met (C.1 then keeps them apart)."""
    round_number = len(history) + 1
    ranking = initial_ranking(players, round_number)
    rank = {p.id: i for i, p in enumerate(ranking, start=1)}
    rating = {p.id: rating_of(p) for p in players}
    # Validates the records too.
    scores = pairing_scores(
        players, history, double=double, points=points, acceleration=acceleration
    )

    colours: dict[PlayerId, list[Color]] = {p.id: [] for p in players}
    opp_ratings: dict[PlayerId, list[int]] = {p.id: [] for p in players}
    met: dict[PlayerId, set[PlayerId]] = {p.id: set() for p in players}
    barred = {p.id: False for p in players}
    upfloats = {p.id: 0 for p in players}
    upfloated_last = {p.id: False for p in players}
    for i, record in enumerate(history):
        before = {pid: row[i] for pid, row in scores.items()}  # score before the round
        for bye in record.byes:
            barred[bye] = True  # C.2
        last = i == len(history) - 1
        for pid, enc in _round_encounters(record).items():
            if enc.won_by_forfeit:
                barred[pid] = True  # C.2
            if enc.colour is None:
                continue  # never played: no colour, no ARO, no encounter, no float
            colours[pid].append(enc.colour)
            opp_ratings[pid].append(rating[enc.opponent])
            met[pid].add(enc.opponent)
            if before[pid] < before[enc.opponent]:  # A.3: an upfloater
                upfloats[pid] += 1
                if last:
                    upfloated_last[pid] = True
    for pid, others in partners(forbidden).items():
        if pid in met:
            met[pid] |= others

    return {
        p.id: Facts(
            player=p,
            rank=rank[p.id],
            rating=rating[p.id],
            score=scores[p.id][len(history)],
            colours=tuple(colours[p.id]),
            preference=colour_preference(colours[p.id]),
            aro=aro(opp_ratings[p.id]),
            games_played=len(colours[p.id]),
            bye_barred=barred[p.id],
            met=frozenset(met[p.id]),
            upfloats=upfloats[p.id],
            upfloated_last_round=upfloated_last[p.id],
        )
        for p in players
    }
