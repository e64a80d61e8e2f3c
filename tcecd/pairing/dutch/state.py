"""What the Dutch rules need to know about each player before a round (A.2-A.7).

Built from the finished rounds only: scores (kept in units of the event's
point system, half-points in the standard one; with the round's virtual
points when rounds are accelerated), the colour history, the float history
(A.4.b), the opponents met (C.1), whether a pairing-allocated bye is still
allowed (C.2) and whether the player is a topscorer (A.7).

Choices where the text leaves room (documented in docs/pairing.md):

* Colours come only from games actually played (C.04.1: a forfeit never played
  gives no colour and is not an encounter, so the two may meet again).
* Double rounds (engine events): a round is one encounter and its *first*
  game's colour is the round's colour; the reversed second game is not
  counted, so a double round moves the colour difference like one game.
* Floats (A.4.b): after two players with different scores (before the round,
  with that round's virtual points, as bbpPairings compares them)
  met, the higher one received a downfloat, the lower one an upfloat; a
  player who did not play in a round (pairing-allocated bye, forfeit, a
  requested bye or an absence) received a downfloat (the full text of A.4.b:
  "A player who, for whatever reason, does not play in a round, also
  receives a downfloat"; bbpPairings agrees).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from tcecd.domain import Color, PlayerId
from tcecd.pairing.base import Player, RoundRecord
from tcecd.pairing.points import NO_ACCELERATION, STANDARD, Acceleration, PointSystem
from tcecd.pairing.tally import pairing_scores


class Float(enum.Enum):
    """A float received in a round (A.4.b)."""

    DOWN = "D"
    UP = "U"


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One player's pairing facts before the round being paired.

    ``colours`` has one entry per finished round: the colour of the (first)
    game played that round, or None (bye, absence, forfeit never played).
    ``floats`` likewise: the float received that round, or None.
    """

    id: PlayerId
    seed: int
    score: int  # for pairing: units of the point system, virtual points included
    colours: tuple[Color | None, ...]
    floats: tuple[Float | None, ...]
    opponents: frozenset[PlayerId]
    pab_allowed: bool
    topscorer: bool
    #: paired in some finished round (a game, played or not, or the
    #: pairing-allocated bye): the player has entered the event (C.04.2.C).
    entered: bool = True

    @property
    def played(self) -> tuple[Color, ...]:
        """The colours of the rounds actually played, in order."""
        return tuple(c for c in self.colours if c is not None)

    @property
    def colour_difference(self) -> int:
        """A.6: games with white minus games with black."""
        played = self.played
        return sum(1 if c is Color.WHITE else -1 for c in played)

    def float_back(self, rounds_back: int) -> Float | None:
        """The float received ``rounds_back`` rounds ago (1 = previous round)."""
        if rounds_back > len(self.floats):
            return None
        return self.floats[-rounds_back]


def _round_float(my_score: int, opp_score: int | None, played: bool) -> Float | None:
    """A.4.b for one player in one round.

    ``opp_score`` is the opponent's score before the round (None: no opponent).
    A round without a game played (pairing-allocated bye, forfeit, requested
    bye, absence) is a downfloat.
    """
    if opp_score is None or not played:
        return Float.DOWN
    if opp_score < my_score:
        return Float.DOWN
    if opp_score > my_score:
        return Float.UP
    return None


def build_states(
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    *,
    double: bool,
    total_rounds: int | None,
    points: PointSystem = STANDARD,
    acceleration: Acceleration = NO_ACCELERATION,
) -> dict[PlayerId, PlayerState]:
    """Every player's :class:`PlayerState` before round ``len(history) + 1``.

    :func:`~tcecd.pairing.tally.pairing_scores` validates the records and
    gives the scores before every round (``points``, ``acceleration``); the
    colour and float histories are rebuilt here round by round, because
    floats compare the scores *before* each round.
    """
    scores = pairing_scores(
        players, history, double=double, points=points, acceleration=acceleration
    )
    per_round = 2 if double else 1
    ids = [p.id for p in players]
    colours: dict[PlayerId, list[Color | None]] = {i: [] for i in ids}
    floats: dict[PlayerId, list[Float | None]] = {i: [] for i in ids}
    opponents: dict[PlayerId, set[PlayerId]] = {i: set() for i in ids}
    pab_allowed = dict.fromkeys(ids, True)
    entered = dict.fromkeys(ids, False)
    for index, record in enumerate(history):
        before = {pid: scores[pid][index] for pid in ids}
        colour: dict[PlayerId, Color | None] = dict.fromkeys(ids)
        opponent: dict[PlayerId, PlayerId | None] = dict.fromkeys(ids)
        played = dict.fromkeys(ids, False)
        first_game: set[PlayerId] = set()
        for bye in record.byes:
            pab_allowed[bye] = False  # C.2
            entered[bye] = True
        for game in record.games:
            for pid, opp, col in (
                (game.white, game.black, Color.WHITE),
                (game.black, game.white, Color.BLACK),
            ):
                opponent[pid] = opp
                entered[pid] = True
                if game.played:
                    played[pid] = True
                    opponents[pid].add(opp)  # C.1: only played games are encounters
                    if pid not in first_game:
                        colour[pid] = col  # double rounds: the first game's colour
                elif game.result.winner is col:
                    pab_allowed[pid] = False  # C.2: a forfeit win
                first_game.add(pid)
        for pid in ids:
            met = opponent[pid]
            floats[pid].append(
                _round_float(
                    before[pid],
                    before[met] if met is not None else None,
                    played[pid],
                )
            )
            colours[pid].append(colour[pid])
    rounds_done = len(history)
    score = {pid: scores[pid][rounds_done] for pid in ids}
    last_round = total_rounds is not None and rounds_done + 1 == total_rounds
    # A.7: over 50% of the maximum possible score when pairing the final round
    # (the most a game can score, so far; bbpPairings compares the score with
    # the round's virtual points).
    most = rounds_done * per_round * points.most_per_game
    states = {}
    for p in players:
        top = last_round and 2 * score[p.id] > most
        states[p.id] = PlayerState(
            id=p.id,
            seed=p.seed,
            score=score[p.id],
            colours=tuple(colours[p.id]),
            floats=tuple(floats[p.id]),
            opponents=frozenset(opponents[p.id]),
            pab_allowed=pab_allowed[p.id],
            topscorer=top,
            entered=entered[p.id],
        )
    return states
