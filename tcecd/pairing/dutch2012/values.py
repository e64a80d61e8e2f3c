"""The values the Dutch 2012 bracket procedure works with: a score bracket,
its requirement state (C.3, lowered by C.10), its outcomes, and B.3's
measures (:mod:`bracket` runs the procedure, :mod:`search` the search
within one requirement state)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from tcecd.domain import PlayerId
from tcecd.pairing.dutch2012 import criteria
from tcecd.pairing.dutch2012.colours import Preference
from tcecd.pairing.dutch2012.state import PlayerState
from tcecd.pairing.dutch2012.transpose import Limit

#: Search steps (pairs tried) for one requirement state, and for one bracket in
#: all (docs/pairing.md "limits"): far beyond what real brackets need, they keep
#: a pathological bracket from running for hours.
STATE_STEPS = 20_000
BRACKET_STEPS = 300_000

#: Breaks allowed of a criterion that does not apply (A.7.d in even rounds, Z in odd ones).
UNLIMITED = 1 << 30


class LowerP1(Enum):
    """C.13 asking the penultimate bracket again (``backtrack._c13_again``):
    whether C.14.b1 lowers P1 (and M1 with it) at P1 = M1 > 1 once the
    procedure got to the remainder, rather than C.14.b2 lowering M1 alone."""

    NEVER = "never"
    #: only while P1 is still P0: a bracket with as many moved-down players as
    #: pairs (2 M0 + 1 players), where C.14.b1 has not lowered P1 yet
    AT_P0 = "at P0"
    ALWAYS = "always"


@dataclass(frozen=True, slots=True)
class Requirements:
    """The current requirements of C.3: how many pairs may still break each
    relative criterion (0: in force; X and Z as A.8 counts them), and how many
    players left unpaired may break B.5/B.6 for downfloaters."""

    b2: int
    a7d: int
    x: int
    z: int
    b5_down: int
    b6_down: int
    b5_up: int
    b6_up: int

    def limits(self) -> tuple[Limit, ...]:
        """The pair criteria in the order of :data:`criteria.PAIR_NAMES`."""
        return _limits(self)

    def minus(self, bits: Sequence[int]) -> Requirements:
        """What is left after pairs breaking ``bits`` (one mask per pair)."""
        x, z, a7d, b2, b5_up, b6_up = self.x, self.z, self.a7d, self.b2, self.b5_up, self.b6_up
        for b in bits:
            if b:
                x -= 1 if b & criteria.X else 0
                z -= 1 if b & criteria.Z else 0
                a7d -= 1 if b & criteria.A7D else 0
                b2 -= 1 if b & criteria.B2 else 0
                b5_up -= 1 if b & criteria.B5_UP else 0
                b6_up -= 1 if b & criteria.B6_UP else 0
        return Requirements(b2, a7d, x, z, self.b5_down, self.b6_down, b5_up, b6_up)

    def for_remainder(self) -> Requirements:
        """The requirements a heterogeneous bracket's remainder is paired under.

        A.3: the remainder "is always treated as a homogeneous one", and B.5/B.6
        for upfloaters are requirements of heterogeneous brackets only (C.3.g,
        C.3.h, C.10.a, C.10.b): no pair of the remainder breaks them. This
        matters only where the remainder mixes scores: in brackets joined by
        C.13, and where C.14.b2 left moved-down players in S2 (D.3). JaVaFo
        1.4 pairs it so (seed 221, round 8; no recorded round differs).
        """
        return Requirements(
            self.b2, self.a7d, self.x, self.z, self.b5_down, self.b6_down, UNLIMITED, UNLIMITED
        )


@functools.lru_cache(maxsize=4096)
def _limits(req: Requirements) -> tuple[Limit, ...]:
    """:meth:`Requirements.limits`, made once per distinct state (the search asks
    for them at every transposition search)."""
    values = (req.x, req.z, req.a7d, req.b2, req.b5_up, req.b6_up)
    return tuple(Limit(n, v) for n, v in zip(criteria.PAIR_NAMES, values, strict=True))


@dataclass(frozen=True, slots=True)
class Bracket:
    """A score bracket to pair: players in A.2 order, those moved down into it
    (A.3, A.6.c), and the round's facts the rules depend on."""

    players: tuple[PlayerState, ...]
    movers: frozenset[PlayerId]
    prefs: Mapping[PlayerId, Preference]
    lowest: bool
    even_round: bool
    #: top scorers in the last round: B.2 may be dropped (C.3.b, C.10.g) for
    #: pairs with a top scorer; None outside the last round (A.10)
    top_scorer_above: int | None = None
    #: brackets joined by C.13, ``movers`` the latest added score bracket's
    #: players (with those moved down into it), "S1": fewer than half (A.3),
    #: heterogeneous (:meth:`BracketProcedure._merged_outcomes`); else one
    #: bracket of unequal scores, S1 the highest, B.3 first
    merged: bool = False
    #: the lowest score in the bracket (B.3's measure of the bye, :func:`bye_cost`)
    floor: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "floor", min((p.score for p in self.players), default=0))

    def is_top_scorer(self, p: PlayerState) -> bool:
        return criteria.is_top_scorer(p, self.top_scorer_above)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A bracket's pairing: pairs (higher by A.2 first) and the players moved
    down (in the lowest bracket: the bye, if any)."""

    pairs: tuple[tuple[PlayerState, PlayerState], ...]
    floaters: tuple[PlayerState, ...]


@dataclass(slots=True)
class Progress:
    """What one bracket's procedure has seen so far (C.14.b1, C.9)."""

    reached_remainder: bool = False
    #: remainders that failed, with the criteria that rejected anything in them
    failed_remainders: dict[tuple[object, ...], frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Target:
    """B.3 in a bracket of unequal scores: the scores the players left
    unpaired may have (one of ``floaters``, each largest first) and the
    pairing's :func:`b3_cost` (the pairs and the players left unpaired,
    exactly); None: free."""

    floaters: tuple[tuple[int, ...], ...] | None = None
    cost: int | None = None
    #: the score differences the pairs of a pairing of that cost may have (None:
    #: any); only a pruning of the search, the cost decides
    differences: frozenset[int] | None = None

    def allows(self, scores: tuple[int, ...]) -> bool:
        """Whether players left unpaired with ``scores`` (largest first) meet it."""
        return self.floaters is None or scores in self.floaters

    def may_float(self, score: int) -> bool:
        """Whether a player with ``score`` may be among those left unpaired."""
        return self.floaters is None or any(score in f for f in self.floaters)

    def highest(self) -> int | None:
        """The highest score a player left unpaired may have (None: free);
        every player above it must be paired."""
        if self.floaters is None:
            return None
        return max((f[0] for f in self.floaters if f), default=None)


def b3_cost(a: PlayerState, b: PlayerState) -> int:
    """B.3's measure of a pair in a bracket joined by C.13, as JaVaFo 1.4 pairs
    it: the square of the pair's score difference. A pairing's cost is the sum
    over its pairs and its bye (:func:`bye_cost`). (Quarter points, so that
    the cost is an integer: scores are in half-points.) The text names no
    measure; this one fits every recorded joined bracket: docs/pairing.md,
    "Compared with JaVaFo 1.4"."""
    return (2 * (a.score - b.score)) ** 2


def bye_cost(a: PlayerState, floor: int) -> int:
    """:func:`b3_cost` of the bye: a game against a player :data:`BYE_BELOW`
    below the bracket's lowest score (``floor``, :attr:`Bracket.floor`)."""
    return (2 * (a.score - floor) + BYE_BELOW) ** 2


#: :func:`bye_cost`: the bye as a game against a player this far below the
#: bracket's lowest score, in quarter points (one point). Measured from zero (a
#: quarter point below it, as before) it weighed a high bye too much against
#: the pairs' differences: 1 recorded round and 2 of the C.13 sample differed,
#: and 156 fresh forecast rounds paired otherwise (docs/pairing.md).
BYE_BELOW = 4


def floater_order(scores: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """B.3's order of the scores a bracket may leave unpaired (largest first):
    the lowest total first, then the highest of them as low as possible, then
    the next.

    The players left unpaired meet lower scored players further down, so the
    lower their total, the smaller the score differences those pairs add up
    to. With one player left unpaired both orders agree; with two, JaVaFo 1.4
    leaves 6.5 and 4 points rather than 6 and 5 (seed 45, round 9). Between
    sets of equal total, a bracket paired as homogeneous weighs B.3's cost
    first (:meth:`bracket.BracketProcedure._targets`).
    """
    return sum(scores), scores


def heterogeneous(movers: int, size: int) -> bool:
    """A.3: a bracket of ``size`` players with ``movers`` of them moved down is
    heterogeneous when some but fewer than half came from above (else it is
    treated as homogeneous)."""
    return 0 < 2 * movers < size


def scores_of(players: Sequence[PlayerState]) -> tuple[int, ...]:
    """The players' scores, highest first (the form :func:`floater_order` and
    B.3's floater targets compare)."""
    return tuple(sorted((p.score for p in players), reverse=True))
