"""What the finished rounds say about each player, for the 2012 Dutch rules.

Per player: the score (A.2, A.3), the colour history of games actually played
(A.7, F.2, F.3), the floats of every round (A.4, B.5, B.6), the opponents met
(B.1a) and whether a point was received without playing (B.1b).

Conventions (documented in docs/pairing.md):

* Scores are kept in half-points. A pairing-allocated bye scores a win for
  every game of the round; requested byes score what their kind gives.
* F.2: byes and games not actually played give no colour and are no
  encounter. F.3: the colour history simply skips rounds without a played
  game.
* Double rounds (engine events): the round is one encounter worth both
  games' points; its colour is the player's colour in the first game of the
  pair that was actually played (normally the first leg, whose colours the
  system allocates). So one double round adds one entry to the colour history,
  and the A.7 colour difference counts first-leg colours.
* A.4 floats: in a round where the two players of a pair had unequal scores
  before the round, the higher gets a downfloat, the lower an upfloat. B.1b: a
  player who received a point or half point without playing (the pairing bye,
  a requested full- or half-point bye, or a forfeit win never played) "is a
  downfloater": a downfloat in that round, and no bye from then on.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from tcecd.domain import Color, PlayerId
from tcecd.pairing.base import ByeKind, PlayedGame, Player, RoundRecord
from tcecd.pairing.points import NO_ACCELERATION, STANDARD, Acceleration, PointSystem
from tcecd.pairing.tally import check_players, pairing_scores


class Float(enum.Enum):
    """A.4: the float a player received in one round."""

    NONE = "-"
    DOWN = "down"
    UP = "up"


#: A.2 FIDE-title order (GM first); players without a title (or another one) come last.
TITLE_ORDER: tuple[str, ...] = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One player before the round being paired."""

    player: Player
    #: for pairing: units of the point system, byes and virtual points included
    score: int
    #: colours of the rounds actually played, oldest first (F.2, F.3)
    colours: tuple[Color, ...]
    #: players met in a game actually played (B.1a)
    opponents: frozenset[PlayerId]
    #: one entry per finished round, oldest first (A.4)
    floats: tuple[Float, ...]
    #: B.1b: received a point or half point without playing
    unplayed_point: bool
    #: ``player.id``, kept as a field: the bracket search reads it millions of
    #: times a round, and a property call per read was a tenth of its time
    id: PlayerId = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", self.player.id)

    def float_back(self, rounds_ago: int) -> Float:
        """The float of the round ``rounds_ago`` rounds before this one (1 = last)."""
        if rounds_ago > len(self.floats):
            return Float.NONE
        return self.floats[-rounds_ago]


def a2_key(state: PlayerState) -> tuple[int, int, int, str, int]:
    """A.2: score, rating, FIDE title, then name (seed breaks a full tie).

    A missing rating sorts below every rating.
    """
    player = state.player
    title = player.title.upper() if player.title else ""
    title_rank = TITLE_ORDER.index(title) if title in TITLE_ORDER else len(TITLE_ORDER)
    rating = player.rating if player.rating is not None else -1
    return (-state.score, -rating, title_rank, player.name, player.seed)


def _pairs_of(record: RoundRecord) -> dict[frozenset[PlayerId], list[PlayedGame]]:
    """The round's games grouped by pair (two legs in a double round), in order."""
    pairs: dict[frozenset[PlayerId], list[PlayedGame]] = {}
    for game in record.games:
        pairs.setdefault(frozenset((game.white, game.black)), []).append(game)
    return pairs


def player_states(
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    *,
    double: bool,
    points: PointSystem = STANDARD,
    acceleration: Acceleration = NO_ACCELERATION,
) -> dict[PlayerId, PlayerState]:
    """Every player's state after ``history``; the records are validated on the way
    (by :func:`tcecd.pairing.tally.pairing_scores`, the standings' own reading of
    them)."""
    check_players(players)
    # Validates the records (PairingError) and scores every round.
    scores = pairing_scores(
        players, history, double=double, points=points, acceleration=acceleration
    )
    colours: dict[PlayerId, list[Color]] = {p.id: [] for p in players}
    opponents: dict[PlayerId, set[PlayerId]] = {p.id: set() for p in players}
    floats: dict[PlayerId, list[Float]] = {p.id: [] for p in players}
    unplayed_point = {p.id: False for p in players}
    for index, record in enumerate(history):
        before = {p.id: scores[p.id][index] for p in players}
        this_round = {p.id: Float.NONE for p in players}
        for bye in record.byes:
            unplayed_point[bye] = True
            this_round[bye] = Float.DOWN
        for absent in record.requested_byes:
            if absent.kind in (ByeKind.FULL, ByeKind.HALF):
                unplayed_point[absent.player] = True
                this_round[absent.player] = Float.DOWN
        for games in _pairs_of(record).values():
            played = [g for g in games if g.played]
            gained: dict[PlayerId, int] = {}
            for g in games:
                for pid, colour in ((g.white, Color.WHITE), (g.black, Color.BLACK)):
                    gained[pid] = gained.get(pid, 0) + g.result.half_points(colour)
            a, b = games[0].white, games[0].black
            if played:
                first = played[0]
                colours[first.white].append(Color.WHITE)
                colours[first.black].append(Color.BLACK)
                opponents[a].add(b)
                opponents[b].add(a)
                if before[a] != before[b]:
                    high, low = (a, b) if before[a] > before[b] else (b, a)
                    this_round[high] = Float.DOWN
                    this_round[low] = Float.UP
            else:
                # B.1b: a point or half point without playing makes a downfloater.
                for pid in (a, b):
                    if gained[pid] > 0:
                        unplayed_point[pid] = True
                        this_round[pid] = Float.DOWN
        for pid, f in this_round.items():
            floats[pid].append(f)
    return {
        p.id: PlayerState(
            player=p,
            score=scores[p.id][len(history)],
            colours=tuple(colours[p.id]),
            opponents=frozenset(opponents[p.id]),
            floats=tuple(floats[p.id]),
            unplayed_point=unplayed_point[p.id],
        )
        for p in players
    }
