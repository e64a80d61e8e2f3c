"""One score bracket, as section C pairs it: C.2 to C.10 and C.14.

:class:`BracketProcedure` turns a bracket (its own players, the players
moved down into it, and the round's facts) into a stream of
:class:`Outcome` values in the order the procedure reaches them: the first is
the bracket's pairing; the later ones are what backtracking (C.12, C.13) asks
for when a lower bracket needs "another pairing" of this one.

The requirement loop is C.3 with the lowering of C.10, innermost first:

* C.10.a/b: B.6, then B.5, for upfloaters;
* C.10.c/d: B.6, then B.5, for downfloaters (brackets that move players down);
* C.10.e: X (odd rounds), or Z then X (even rounds), up to P1;
* C.10.f: A.7.d (odd rounds: strong preferences treated as absolute);
* C.10.g: B.2 (top scorers in the last round).

"Any criterion may be dropped only for the minimum number of pairs in the
score bracket" (C.10): dropping a criterion lets one pair (or one
downfloater) break it, then two, and so on, as X counts the pairs that do not
get both colour preferences. So a requirement state gives every criterion a
number of pairs that may break it (0: the criterion is in force); each
"restart from C.3.x" puts the criteria below x back in force, and the states
are visited as a counter over these numbers. A state that only allows more
breaks of criteria that rejected nothing in the previous state cannot do
better and is skipped (its search would visit the same transpositions in the
same order). Within a state, :class:`search.BracketSearch` runs C.4 to C.9;
the values (:class:`values.Bracket`, :class:`values.Requirements`, ...) are
in :mod:`values`.

B.3 in a bracket of unequal scores treated as homogeneous (A.3: at least
half of it moved down): the score differences of the pairs are smallest when
the players left unpaired have the lowest scores possible (a higher scored
player moved down meets a still lower player), so such a bracket first fixes
the scores of the players it leaves unpaired, as low as any pairing allows,
and only then applies B.4 to B.6 (A.11: "the closeness of the scores" before
colours and floats; B.2's note and A.7.d give way to "the score of a
floater" likewise). docs/pairing.md, "Dutch 2012", shows the case.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from tcecd.domain import PlayerId
from tcecd.pairing.dutch2012 import criteria, measure
from tcecd.pairing.dutch2012.colours import x1_z1
from tcecd.pairing.dutch2012.search import BracketSearch
from tcecd.pairing.dutch2012.state import PlayerState
from tcecd.pairing.dutch2012.transpose import Budget, mover_sets
from tcecd.pairing.dutch2012.values import (
    BRACKET_STEPS,
    STATE_STEPS,
    UNLIMITED,
    Bracket,
    LowerP1,
    Outcome,
    Progress,
    Requirements,
    Target,
    floater_order,
    heterogeneous,
    scores_of,
)

__all__ = ["Bracket", "BracketProcedure", "Outcome", "floater_order", "scores_of"]

#: Largest number of sets of players to move down that backtracking checks
#: against those it refused (:meth:`BracketProcedure._exhausted`), and of sets
#: of M1 moved-down players whose B.3 differences a joined bracket compares
#: (:meth:`BracketProcedure._merged_targets`).
_MOST_SETS = 200

#: One position of the C.10 counter: the criteria it relaxes and its values.
_Position = tuple[frozenset[str], list[dict[str, int]]]


def _counter(name: str, upto: int) -> _Position:
    """A position of the C.10 counter: ``name`` broken by 0 to ``upto`` pairs."""
    return frozenset((name,)), [{name: k} for k in range(upto + 1)]


class BracketProcedure(BracketSearch):
    """C.2-C.10 and C.14 for one bracket; :meth:`outcomes` streams its pairings
    (the search within each requirement state: :class:`BracketSearch`).

    ``reduce``: whether C.14 may lower P1/M1 (off for the first pass that
    decides whether C.12 backtracking is needed).
    """

    def __init__(
        self,
        bracket: Bracket,
        *,
        reduce: bool = True,
        accept: Callable[[tuple[PlayerState, ...]], bool] | None = None,
        floaters: int | None = None,
        m1_zero: bool = True,
        lower_p1: LowerP1 = LowerP1.NEVER,
    ) -> None:
        super().__init__(bracket)
        self.reduce = reduce
        #: C.14.b2 may end with M1 = 0 (every moved-down player left unpaired)
        self.m1_zero = m1_zero
        #: when C.14.b1 at P1 = M1 > 1 lowers P1 (and M1 with it), not M1 alone
        #: (C.13: :func:`~tcecd.pairing.dutch2012.backtrack._c13_again`)
        self.lower_p1 = lower_p1
        #: whether the procedure got to where :attr:`LowerP1.AT_P0` and
        #: :attr:`LowerP1.NEVER` part (C.14 at P1 = M1 = P0 > 1 with the remainder
        #: reached): if not, both give the same outcomes (``backtrack._c13_again``
        #: spares the second search)
        self.at_p0_asked = False
        #: backtracking (C.12, C.13): a further condition on the players moved
        #: down, and how many they must be (None: any number); ``accept`` must
        #: depend on the set of players alone (it may be asked of sets the
        #: search has not reached: :meth:`_exhausted`)
        self.accept = accept
        self.floaters = floaters
        self.total = Budget(BRACKET_STEPS)

    # -- C.3 and C.10: the requirement states ----------------------------------

    def _soft_b2(self) -> bool:
        """Whether C.10.g may drop B.2 here: the last round (A.10), and a pair
        with a top scorer that only B.2 forbids."""
        return self.b.top_scorer_above is not None and any(
            (c := self.cost(a, b)) is not None and c & criteria.B2
            for a, b in itertools.combinations(self.b.players, 2)
        )

    def _positions(
        self,
        x1: int,
        z1: int,
        p1: int,
        floaters: int,
        *,
        heterogeneous: bool,
        b2_dropped: bool | None = None,
    ) -> list[_Position]:
        """The C.10 counter, outermost first: B.2 (C.10.g), A.7.d (C.10.f),
        X/Z (C.10.e), B.5 and B.6 for downfloaters (C.10.d, c), B.5 and B.6 for
        upfloaters (C.10.b, a); each counts the pairs (players) that may break it.
        ``heterogeneous``: the bracket is paired as heterogeneous; B.5 and B.6
        for upfloaters are requirements of such brackets only (C.3.g, C.3.h,
        C.10.a, C.10.b), not of one treated as homogeneous because at least
        half of it came from above (A.3) or paired as homogeneous by C.14.b2
        (M1 = 0), as not of a remainder (:meth:`Requirements.for_remainder`):
        JaVaFo 1.4 pairs it so (seed 985, round 6).
        ``b2_dropped``: only the states with B.2 in force (False) or dropped
        (True), for a caller that tries other things between the two."""
        pairs = max(p1, 0)
        b2 = _counter("B2", pairs if self._soft_b2() else 0)
        if b2_dropped is not None:
            names, options = b2
            b2 = names, options[1:] if b2_dropped else options[:1]

        def upfloaters(name: str) -> _Position:
            return _counter(name, pairs) if heterogeneous else (frozenset(), [{name: UNLIMITED}])

        odd = not self.b.even_round
        return [
            b2,
            _counter("A7d", pairs) if odd else (frozenset(), [{"A7d": UNLIMITED}]),
            (frozenset(("X", "Z")), [{"X": x, "Z": z} for x, z in self._xz(x1, z1, p1)]),
            _counter("B5down", floaters),
            _counter("B6down", floaters),
            upfloaters("B5up"),
            upfloaters("B6up"),
        ]

    def _states(self, positions: list[_Position], bound: set[str]) -> Iterator[Requirements]:
        """The requirement states in C.10 order. After each state ``bound``
        holds the criteria that rejected anything in its search; the next
        state relaxes the innermost of them that can still be relaxed (and puts
        every criterion below it back in force): relaxing only criteria that
        rejected nothing would repeat the same search."""
        at = [0] * len(positions)
        while True:
            values: dict[str, int] = {}
            for (_, options), k in zip(positions, at, strict=True):
                values.update(options[k])
            bound.clear()
            yield Requirements(
                b2=values["B2"],
                a7d=values["A7d"],
                x=values["X"],
                z=values["Z"] if self.b.even_round else UNLIMITED,
                b5_down=values["B5down"],
                b6_down=values["B6down"],
                b5_up=values["B5up"],
                b6_up=values["B6up"],
            )
            for p in range(len(positions) - 1, -1, -1):
                names, options = positions[p]
                if names & bound and at[p] + 1 < len(options):
                    at[p] += 1
                    for q in range(p + 1, len(positions)):
                        at[q] = 0
                    break
            else:
                return

    def _xz(self, x1: int, z1: int, p1: int) -> Iterator[tuple[int, int]]:
        """C.10.e: odd rounds raise X up to P1; even rounds raise Z up to X,
        then X by one with Z back at Z1."""
        x = min(x1, max(p1, 0))
        if not self.b.even_round:
            while True:
                yield x, x
                if x >= p1:
                    return
                x += 1
        z = min(z1, x)
        while True:
            yield x, z
            if z < x:
                z += 1
            elif x < p1:
                x += 1
                z = min(z1, x)
            else:
                return

    # -- C.2 to C.14 ------------------------------------------------------------

    def outcomes(self) -> Iterator[Outcome]:
        """The bracket's pairings in the order the procedure reaches them (only
        those that ``accept`` and ``floaters`` allow, when given)."""
        if self.b.merged and 2 * len(self.b.movers) < len(self.b.players):
            yield from self._merged_outcomes()
            return
        players = self.b.players
        n = len(players)
        p0 = n // 2  # A.6.b
        m0 = len(self.b.movers)  # A.6.c
        # A.3: a bracket of which at least half came from above is treated as homogeneous;
        # so are brackets joined by C.13 (S1: the highest, the joined ones; B.3 first).
        hetero = heterogeneous(m0, n) and not self.b.merged
        m1 = m0 if hetero else 0
        p1 = p0
        x1, z1 = self._x1_z1(p1)
        progress = Progress()
        #: sets of players moved down that ``accept`` refused (by id)
        rejected: set[frozenset[PlayerId]] = set()
        #: C.14.b2 at P1 = M1: the M1 this P1 started with (None: not there)
        m1_restart: int | None = None
        while True:
            # Backtracking asks for a given number of floaters: other P1 are skipped.
            wanted = self.floaters is None or self.floaters == n - 2 * p1
            if wanted and n == 2 * p1 and self.accept is not None:
                wanted = self.accept(())  # nobody moves down: one test for the level
                if not wanted and hetero and not progress.reached_remainder:
                    # C.14.b1 asks whether the procedure got to the remainder: it
                    # would have if the moved-down players can be paired at all.
                    progress.reached_remainder = self._movers_pairable(m1, p1)
            targets: Sequence[Target] = [Target()]
            if wanted and self.b.merged:
                # A bracket joined by C.13, at least half of it moved down: B.3
                # as in the heterogeneous ones (:meth:`_merged_targets`), M1 = 0.
                targets = self._targets(p1, by_cost=False)
                if targets != [Target()]:
                    targets = [*self._merged_targets(0, targets), *targets]
            elif wanted:
                targets = self._targets(p1, by_cost=not hetero)
                if not targets and hetero and not progress.reached_remainder:
                    # No pairing of this P1 meets B.1/B.2 (B.3 has no target):
                    # the procedure still gets to the remainder (C.14.b1) if
                    # the moved-down players can be paired (seed 1143, round 5).
                    progress.reached_remainder = self._movers_pairable(m1, p1)
            for target in targets if wanted else ():
                if self._exhausted(n - 2 * p1, target, rejected, hetero, progress):
                    continue
                positions = self._positions(x1, z1, p1, n - 2 * p1, heterogeneous=hetero)
                bound: set[str] = set()
                for req in self._states(positions, bound):
                    if self.total.left <= 0:
                        break
                    m = m1 if hetero else 0
                    for outcome in self._state(m, p1, req, bound, progress, target):
                        if self.accept is not None and not self.accept(outcome.floaters):
                            rejected.add(frozenset(p.id for p in outcome.floaters))
                            continue
                        yield outcome
                    if self._exhausted(n - 2 * p1, target, rejected, hetero, progress):
                        break
            if not self.reduce:
                return
            # C.14: decrease P1, X1, Z1 or M1.
            if not hetero:
                if self.b.lowest:
                    return  # C.13 takes over (the caller)
                p1 -= 1
                if p1 <= 0:  # C.14.a: the entire bracket is moved down
                    yield from self._moved_down_whole()
                    return
                x1, z1 = max(0, x1 - 1), max(0, z1 - 1)
            elif progress.reached_remainder and p1 > m1 and not self.b.lowest and not (
                m1 > 1 and self.floaters == n - 2 * p1
            ) and not (m1_restart is not None and m1 > 1):
                # (Backtracking that asks for as many floaters as this P1 leaves
                # keeps P1: C.14.b2 lowers M1 instead, seed 779 round 10.)
                p1 -= 1  # C.14.b1
                x1, z1 = max(0, x1 - 1), max(0, z1 - 1)
                if m1_restart is not None:
                    # M1 starts again at the new P1 (seeds 1495 round 9, 2352 round 10).
                    m1, m1_restart = min(m1_restart, p1), None
            elif m1 > 1:
                lowers = self.lower_p1 is LowerP1.ALWAYS or (
                    self.lower_p1 is LowerP1.AT_P0 and p1 == p0
                )
                # C.14.b1 would take P1 below M1:
                at_m1 = p1 == m1 and progress.reached_remainder and not self.b.lowest
                self.at_p0_asked |= at_m1 and p1 == p0
                if lowers and at_m1:
                    p1, x1, z1 = p1 - 1, max(0, x1 - 1), max(0, z1 - 1)  # C.14.b1
                elif at_m1:
                    # M1 is lowered instead (C.14.b2), and then on down to 1 at
                    # this P1 before P1 is lowered (the fresh rounds 1b22f56660e9
                    # and d6f6801f3be2: docs/pairing.md).
                    m1_restart = m1
                m1 -= 1  # C.14.b2 (C.3.a: P = M1, never above P1)
            elif progress.reached_remainder and not self.b.lowest:
                # C.14.b1 with P1 = M1 = 1: P1 becomes zero (C.14.a), not M1 = 0.
                yield from self._moved_down_whole()
                return
            elif not self.m1_zero:
                # C.13 lowers M1 only while a moved-down player is still paired
                # (JaVaFo 1.4's reading): with none, the penultimate bracket is
                # asked first (the caller).
                return
            else:  # C.14.b2: M1 = 0, the bracket is paired as homogeneous (C.2.b)
                hetero, m1, p1 = False, 0, p0
                x1, z1 = self._x1_z1(p1)

    def _moved_down_whole(self) -> Iterator[Outcome]:
        """C.14.a: P1 is zero, "the entire score bracket is moved down" (if
        backtracking asked for that many floaters and takes these).

        C.14.b1 gets here too: once the procedure got to the remainder it
        lowers P1 "as in the homogeneous score brackets", and with P1 = M1 = 1
        that is P1 = 0, not C.14.b2's "M1 = 0, manage the bracket as
        homogeneous", which is for brackets that never got to the remainder.
        JaVaFo 1.4 pairs it so (seeds 129 round 9, 173 round 8). With P1 =
        M1 > 1, tcecd lowers M1 by C.14.b2, as JaVaFo 1.4 does in seeds 460
        round 7 and 534 round 8, unless ``lower_p1`` says otherwise (C.13; in
        seed 80 round 9 JaVaFo 1.4 lowers P1: backtrack._c13_again).
        """
        everybody = Outcome((), self.b.players)
        if self.floaters in (None, len(everybody.floaters)) and (
            self.accept is None or self.accept(everybody.floaters)
        ):
            yield everybody

    def _merged_outcomes(self) -> Iterator[Outcome]:
        """C.13: brackets joined into the lowest, "treated as a heterogeneous
        score bracket with the latest added score bracket as S1" (its moved-down
        players: fewer than half, A.3). As JaVaFo 1.4 pairs it: M1 from M0
        down (A.3: the moved-down players "are always paired first whenever
        possible"; C.14.b2, to 0 unless ``m1_zero`` is off: then the caller
        backtracks first); for each M1, B.3 first: the pairings of the least
        :func:`b3_cost` (the pairs' score differences and the bye's score
        together) with M1 moved-down players paired, one target per score of
        the bye, the least first, each with the requirement states of C.10
        with B.2 in force and then those with B.2 dropped for top scorers
        (C.10.g, the last requirement lowered) before the next target (the
        fresh round 6c1f002386bf); then any, the bye's score as low as
        possible first, B.2 in force for every target before it is dropped
        (seed 177, round 10: no B.2 broken for a lower bye that costs more)."""
        n = len(self.b.players)
        p1 = n // 2  # the lowest bracket: everybody paired but the bye
        m0 = len(self.b.movers)
        x1, z1 = self._x1_z1(p1)
        byes = self._targets(p1, by_cost=False)
        phases = (False, True) if self._soft_b2() else (None,)
        for m1 in range(min(m0, p1), -1 if self.m1_zero else 0, -1):
            # An M1 with which no pairing under the absolute criteria pairs M1
            # moved-down players is not searched through (seed 1568, round 7,
            # spent seconds so for each set of floaters C.13 tried).
            if byes != [Target()]:
                smallest = self._merged_targets(m1, byes)
                if not smallest:
                    continue  # no set of M1 (or no pairing at all) with any bye allowed
            else:
                smallest = []
                if not self._may_pair_movers(m1):
                    continue
            # B.2's note: B.2 gives way for top scorers' least B.3 cost, the
            # bye's included (seed 191, round 11; the fresh round
            # 6c1f002386bf), not for a lower scored bye that costs more (seed
            # 177, round 10).
            for target in smallest:
                for b2_dropped in phases:
                    yield from self._merged_level(m1, p1, x1, z1, target, b2_dropped)
            for b2_dropped in phases:
                for target in byes:
                    yield from self._merged_level(m1, p1, x1, z1, target, b2_dropped)

    def _merged_targets(self, m1: int, byes: Sequence[Target]) -> list[Target]:
        """B.3 within one M1 of :meth:`_merged_outcomes`: for each score the
        bye may have (``byes``), the least :func:`b3_cost` of the pairings
        that pair M1 moved-down players in S1 (any set D.3 may choose), the
        least first. The least cost of the whole
        bracket may need fewer moved-down players paired (two of them paired
        together): M1 comes first (A.3). JaVaFo 1.4 pairs it so (seed 173,
        round 8; the cost: seeds 1153 round 5, 1235 round 11, 1561 round 7,
        1610 round 6, 1774 round 11). One target per bye score, so that B.2
        in force tries every one before it is dropped (:meth:`_merged_outcomes`).
        Beyond :data:`_MOST_SETS` sets of M1 players (one matching each), the
        whole bracket's least cost stands in (docs/pairing.md, "limits"). None
        at all: no pairing under the absolute criteria pairs M1 moved-down
        players with any of ``byes``."""
        movers = [p for p in self.b.players if p.id in self.b.movers]
        if math.comb(len(movers), m1) > _MOST_SETS:
            sets: list[frozenset[PlayerId]] = [frozenset()]
        else:
            sets = [frozenset(p.id for p in s1) for s1 in mover_sets(movers, m1)]
        targets: list[tuple[int, Target]] = []
        for bye in byes:
            costs = [c for s1 in sets if (c := self._least_cost(s1, _only(bye))) is not None]
            if costs:
                targets.append((min(costs), replace(bye, cost=min(costs))))
        # Byes of equal least cost are one target: the procedure's order
        # chooses between them (seed 1774, round 11).
        merged: dict[int, Target] = {}
        for cost, target in targets:
            merged[cost] = replace(target, floaters=None) if cost in merged else target
        return [merged[cost] for cost in sorted(merged)]

    def _may_pair_movers(self, m1: int) -> bool:
        """Whether some pairing of the joined bracket under the absolute
        criteria pairs a set of ``m1`` moved-down players (D.3) with players
        outside the set (True when there are too many sets to list), for a
        bracket whose bye has no B.3 target (:meth:`_merged_targets` answers
        it for the others)."""
        movers = [p for p in self.b.players if p.id in self.b.movers]
        if m1 == 0 or math.comb(len(movers), m1) > _MOST_SETS:
            return True
        return any(
            self._least_cost(frozenset(p.id for p in s1)) is not None
            for s1 in mover_sets(movers, m1)
        )

    def _least_cost(
        self, s1: frozenset[PlayerId] = frozenset(), floaters: tuple[int, ...] | None = None
    ) -> int | None:
        """:func:`measure.least_cost` of this bracket under the absolute criteria."""
        return measure.least_cost(
            self.b.players, self.b.floor, self._pairable, self._may_leave, s1, floaters
        )

    def _pairable(self, a: PlayerState, b: PlayerState) -> bool:
        return self.cost(a, b) is not None

    def _may_leave(self, p: PlayerState) -> bool:
        return not self.never_floats(p)

    def _merged_level(
        self, m1: int, p1: int, x1: int, z1: int, target: Target, b2_dropped: bool | None
    ) -> Iterator[Outcome]:
        """One M1, B.2 phase and B.3 target of :meth:`_merged_outcomes`: C.3 to C.10."""
        n = len(self.b.players)
        progress = Progress()
        positions = self._positions(
            x1, z1, p1, n - 2 * p1, heterogeneous=m1 > 0, b2_dropped=b2_dropped
        )
        bound: set[str] = set()
        for req in self._states(positions, bound):
            if self.total.left <= 0:
                return
            # (M1 = 0: C.14.b2, the bracket is paired as homogeneous)
            for outcome in self._state(m1, p1, req, bound, progress, target):
                if self.accept is None or self.accept(outcome.floaters):
                    yield outcome

    def _state(
        self, m1: int, p1: int, req: Requirements, bound: set[str], progress: Progress,
        target: Target,
    ) -> Iterator[Outcome]:
        """The pairings of one requirement state (C.3 to C.9 under ``req``;
        heterogeneous with ``m1`` moved-down players paired, homogeneous when
        ``m1`` is 0), searched within :data:`STATE_STEPS` and the bracket's
        total; the steps spent are charged to the total once the state is
        searched through, and a state that ran out binds every criterion from
        then on (docs/pairing.md, "Limits")."""
        budget = Budget(min(STATE_STEPS, self.total.left))
        before = budget.left
        if m1 > 0:
            yield from self._heterogeneous(m1, p1, req, budget, bound, progress, target)
        else:
            yield from self._homogeneous(self.b.players, p1, req, budget, bound, target)
        self.total.left -= before - max(budget.left, 0)
        if budget.left < 0:
            bound.update(("B2", "A7d", "X", "Z", "B5down", "B6down", "B5up", "B6up"))

    def _exhausted(
        self,
        spare: int,
        target: Target,
        rejected: set[frozenset[PlayerId]],
        hetero: bool,
        progress: Progress,
    ) -> bool:
        """Backtracking: whether ``accept`` refuses every set of ``spare``
        players this level could move down (with ``target``'s scores), so that
        no requirement state can give an outcome it takes. The sets the search
        has not reached yet are put to ``accept`` here (it depends on the set
        alone): a level where backtracking can take none is skipped before its
        search rather than searched through (the C.13 sample's 4fd15eb103a9
        took 9 s so). A heterogeneous bracket still searches until it has
        reached a remainder (C.14.b1 asks whether it did); large numbers of
        sets are not listed."""
        if self.accept is None or spare <= 0 or (hetero and not progress.reached_remainder):
            return False
        candidates = [
            p for p in self.b.players if not self.never_floats(p) and target.may_float(p.score)
        ]
        if math.comb(len(candidates), spare) > _MOST_SETS:
            return False
        for chosen in itertools.combinations(candidates, spare):
            if not target.allows(scores_of(chosen)):
                continue
            ids = frozenset(p.id for p in chosen)
            if ids in rejected:
                continue
            if self.accept(chosen):
                return False
            rejected.add(ids)
        return True

    def _movers_pairable(self, m1: int, p1: int) -> bool:
        """Whether some set of M1 moved-down players (D.3) can be paired within
        the bracket once every relative criterion is dropped."""
        players = self.b.players
        relaxed = Requirements(*(UNLIMITED,) * 8)
        movers = [p for p in players if p.id in self.b.movers]
        for s1 in mover_sets(movers, m1):
            s2 = [p for p in players if p not in s1]
            if next(self._search(s1, s2, relaxed, (), (), Budget(BRACKET_STEPS), set()), None):
                return True
        return False

    def _x1_z1(self, pairs: int) -> tuple[int, int]:
        return x1_z1(
            [self.b.prefs[p.id] for p in self.b.players], pairs, even_round=self.b.even_round
        )

    def _targets(self, pairs: int, *, by_cost: bool) -> list[Target]:
        """B.3 for a bracket of unequal scores, in the order it is tried: the
        scores of the players it leaves unpaired, lowest first
        (:func:`floater_order`), each only if the absolute criteria allow it.
        With ``by_cost`` (brackets paired as homogeneous), the lowest total
        first, then the least :func:`b3_cost` (the pairs' score differences
        and the players left unpaired, each as a game one point below the
        bracket's lowest score, as in a bracket joined by C.13); sets of scores
        of equal total and cost are one target, the procedure's order (C.10's
        requirements, then D.1/D.2) choosing between them (the C.13 sample's
        ad113c84293d: JaVaFo 1.4 leaves 8, 6.5, 4 and 4 points unpaired rather
        than 7, 6.5, 5 and 4, for X). Each target with that least cost
        first, then any. A bracket of equal scores has no such condition."""
        players = self.b.players
        if len({p.score for p in players}) == 1:
            return [Target()]
        spare = len(players) - 2 * pairs
        levels = sorted(Counter(p.score for p in players).items())
        options: list[tuple[int, ...]] = []

        def fill(k: int, left: int, chosen: tuple[int, ...]) -> None:
            if left == 0:
                options.append(tuple(sorted(chosen, reverse=True)))
                return
            if k == len(levels):
                return
            score, count = levels[k]
            for take in range(min(count, left) + 1):
                fill(k + 1, left - take, chosen + (score,) * take)

        fill(0, spare, ())
        least = {
            floaters: cost
            for floaters in sorted(options, key=floater_order)
            if (cost := self._least_cost(floaters=floaters)) is not None
        }
        if not by_cost:
            return [Target((floaters,)) for floaters in least]
        groups: dict[tuple[int, int], list[tuple[int, ...]]] = {}
        for floaters, cost in least.items():
            groups.setdefault((sum(floaters), cost), []).append(floaters)
        targets: list[Target] = []
        for (_, cost), sets in sorted(groups.items()):
            used = measure.used_differences(
                self.b.players, self.b.floor, self._pairable, self._may_leave, sets, cost
            )
            targets += [Target(tuple(sets), cost, used), Target(tuple(sets))]
        return targets


def _only(target: Target) -> tuple[int, ...] | None:
    """The one set of scores a target of :meth:`BracketProcedure._targets`
    without ``by_cost`` leaves unpaired (None: free)."""
    return None if target.floaters is None else target.floaters[0]
