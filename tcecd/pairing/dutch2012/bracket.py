"""One score bracket, as section C pairs it: C.2 to C.10 and C.14.

:class:`BracketProcedure` turns a bracket (its own players, the players
moved down into it, and the round's facts) into a stream of
:class:`Outcome` values in the order the procedure reaches them: the first is
the bracket's pairing; the later ones are what backtracking (C.12, C.13) asks
for when a lower bracket needs "another pairing" of this one.

The requirement loop is C.3 with the lowering of C.10, innermost first:

* C.10.a/b: B.6, then B.5, for upfloaters (heterogeneous brackets);
* C.10.c/d: B.6, then B.5, for downfloaters (brackets that move players down);
* C.10.e: X (odd rounds), or Z then X (even rounds), up to P1;
* C.10.f: A.7.d (odd rounds: strong preferences treated as absolute);
* C.10.g: B.2 (top scorers in the last round).

Each "restart from C.3.x" re-imposes the criteria below x, so the states are
visited as a counter over these switches. A state that only drops criteria
which never rejected anything in an earlier failed state cannot do better and
is skipped (its search would visit the same transpositions in the same
order). Within a state: C.4/C.5 subgroups, C.6 trial, C.7 transpositions
(D.1), C.8 exchanges (D.2 homogeneous, D.3 heterogeneous), C.9 back from a
failed remainder to the next transposition of the heterogeneous part.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from tcecd.domain import PlayerId
from tcecd.pairing.dutch2012.colours import (
    Preference,
    Strength,
    same_colour,
    x1_z1,
    x_fail,
    z_fail,
)
from tcecd.pairing.dutch2012.state import Float, PlayerState
from tcecd.pairing.dutch2012.transpose import Budget, exchanges, mover_sets, transpositions
from tcecd.pairing.matching import PairingGraph, ViabilityMatcher

#: Search steps (pairs tried) for one requirement state, and for one bracket in
#: all (docs/pairing.md "limits"): far beyond what real brackets need, they keep
#: a pathological bracket from running for hours.
STATE_STEPS = 20_000
BRACKET_STEPS = 300_000


@dataclass(frozen=True, slots=True)
class Requirements:
    """The current requirements of C.3 (True: the criterion is in force)."""

    b2: bool
    a7d: bool
    x: int
    z: int
    b5_down: bool
    b6_down: bool
    b5_up: bool
    b6_up: bool

    def relaxes_only(self, failed: Requirements, binding: frozenset[str]) -> bool:
        """Whether this state is ``failed`` with only non-binding criteria relaxed."""
        flags = (
            ("B2", self.b2, failed.b2),
            ("A7d", self.a7d, failed.a7d),
            ("B5down", self.b5_down, failed.b5_down),
            ("B6down", self.b6_down, failed.b6_down),
            ("B5up", self.b5_up, failed.b5_up),
            ("B6up", self.b6_up, failed.b6_up),
        )
        for name, mine, theirs in flags:
            if theirs and not mine and name in binding:
                return False
        if self.x > failed.x and "X" in binding:
            return False
        return not (self.z > failed.z and "Z" in binding)


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

    @property
    def top_scorers(self) -> bool:
        """Whether the bracket holds top scorers (A.10)."""
        return self.top_scorer_above is not None and any(
            p.score > self.top_scorer_above for p in self.players
        )

    def is_top_scorer(self, p: PlayerState) -> bool:
        return self.top_scorer_above is not None and p.score > self.top_scorer_above


@dataclass(frozen=True, slots=True)
class Outcome:
    """A bracket's pairing: pairs (higher by A.2 first) and the players moved
    down (in the lowest bracket: the bye, if any)."""

    pairs: tuple[tuple[PlayerState, PlayerState], ...]
    floaters: tuple[PlayerState, ...]


@dataclass(slots=True)
class _Progress:
    reached_remainder: bool = False
    failed_remainders: set[tuple[object, ...]] = field(default_factory=set)


class BracketProcedure:
    """C.2-C.10 and C.14 for one bracket; :meth:`outcomes` streams its pairings.

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
    ) -> None:
        self.b = bracket
        self.reduce = reduce
        #: backtracking (C.12, C.13): a further condition on the players moved
        #: down, and how many they must be (None: any number)
        self.accept = accept
        self.floaters = floaters
        self.index = {p.id: i for i, p in enumerate(bracket.players)}
        self.total = Budget(BRACKET_STEPS)

    # -- the criteria -------------------------------------------------------

    def allowed(self, a: PlayerState, b: PlayerState, req: Requirements, bound: set[str]) -> bool:
        """B.1a and B.2 (absolute), A.7.d and B.5/B.6 for upfloaters (current)."""
        if b.id in a.opponents:
            return False  # B.1a
        pa, pb = self.b.prefs[a.id], self.b.prefs[b.id]
        if same_colour(pa, pb, Strength.ABSOLUTE):
            # B.2's note: top scorers may ignore it (C.10.g drops it for them only).
            if req.b2 or not (self.b.is_top_scorer(a) or self.b.is_top_scorer(b)):
                bound.add("B2")
                return False
        elif req.a7d and same_colour(pa, pb, Strength.STRONG):
            bound.add("A7d")  # A.7.d: strong preferences count as absolute
            return False
        if a.score != b.score:
            low = a if a.score < b.score else b
            if low.id not in self.b.movers:  # a resident paired upwards: an upfloater
                if req.b5_up and low.float_back(1) is Float.UP:
                    bound.add("B5up")
                    return False
                if req.b6_up and low.float_back(2) is Float.UP:
                    bound.add("B6up")
                    return False
        return True

    def may_float(self, p: PlayerState, req: Requirements, bound: set[str]) -> bool:
        """Whether ``p`` may be left unpaired: moved down, or the bye in the lowest
        bracket (B.1b, absolute; B.5/B.6 for downfloaters, current)."""
        if self.b.lowest and p.unplayed_point:
            return False  # B.1b: no second point without playing
        if req.b5_down and p.float_back(1) is Float.DOWN:
            bound.add("B5down")
            return False
        if req.b6_down and p.float_back(2) is Float.DOWN:
            bound.add("B6down")
            return False
        return True

    def fails(self, a: PlayerState, b: PlayerState) -> tuple[bool, bool]:
        pa, pb = self.b.prefs[a.id], self.b.prefs[b.id]
        return x_fail(pa, pb), self.b.even_round and z_fail(pa, pb)

    # -- C.3 and C.10: the requirement states ----------------------------------

    def _states(self, x1: int, z1: int, p1: int) -> Iterator[Requirements]:
        b2_options = (True, False) if self.b.top_scorers else (True,)
        a7d_options = (False,) if self.b.even_round else (True, False)
        for b2 in b2_options:  # C.10.g
            for a7d in a7d_options:  # C.10.f
                for x, z in self._xz(x1, z1, p1):  # C.10.e
                    for b5d, b6d, b5u, b6u in itertools.product((True, False), repeat=4):
                        yield Requirements(b2, a7d, x, z, b5d, b6d, b5u, b6u)  # C.10.a-d

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
        players = self.b.players
        n = len(players)
        p0 = n // 2  # A.6.b
        m0 = len(self.b.movers)  # A.6.c
        # A.3: a bracket of which at least half came from above is treated as homogeneous.
        hetero = m0 > 0 and 2 * m0 < n
        m1 = m0 if hetero else 0
        p1 = p0
        x1, z1 = self._x1_z1(p1)
        progress = _Progress()
        while True:
            failed: list[tuple[Requirements, frozenset[str]]] = []
            # Backtracking asks for a given number of floaters: other P1 are skipped.
            wanted = self.floaters is None or self.floaters == n - 2 * p1
            if wanted and n == 2 * p1 and self.accept is not None:
                wanted = self.accept(())  # nobody moves down: one test for the level
            for req in self._states(x1, z1, p1) if wanted else ():
                if any(req.relaxes_only(f, bound) for f, bound in failed):
                    continue
                if self.total.left <= 0:
                    break
                bound: set[str] = set()
                found = False
                budget = Budget(min(STATE_STEPS, self.total.left))
                before = budget.left
                if hetero:
                    search = self._heterogeneous(m1, p1, req, budget, bound, progress)
                else:
                    search = self._homogeneous(players, p1, req, req.x, req.z, budget, bound)
                for outcome in search:
                    if self.accept is not None and not self.accept(outcome.floaters):
                        continue
                    found = True
                    yield outcome
                self.total.left -= before - max(budget.left, 0)
                if budget.left < 0:
                    bound.update(("B2", "A7d", "X", "Z", "B5down", "B6down", "B5up", "B6up"))
                if not found:
                    failed.append((req, frozenset(bound)))
            if not self.reduce:
                return
            # C.14: decrease P1, X1, Z1 or M1.
            if not hetero:
                if self.b.lowest:
                    return  # C.13 takes over (the caller)
                p1 -= 1
                if p1 <= 0:  # C.14.a: the entire bracket is moved down
                    everybody = Outcome((), players)
                    if self.floaters in (None, n) and (
                        self.accept is None or self.accept(everybody.floaters)
                    ):
                        yield everybody
                    return
                x1, z1 = max(0, x1 - 1), max(0, z1 - 1)
            elif progress.reached_remainder and p1 > m1 and not self.b.lowest:
                p1 -= 1  # C.14.b1
                x1, z1 = max(0, x1 - 1), max(0, z1 - 1)
            elif m1 > 1:
                m1 -= 1  # C.14.b2
            else:  # C.14.b2: M1 = 0, the bracket is paired as homogeneous (C.2.b)
                hetero, m1, p1 = False, 0, p0
                x1, z1 = self._x1_z1(p1)

    def _between(
        self,
        s1: Sequence[PlayerState],
        s2: Sequence[PlayerState],
        req: Requirements,
        bound: set[str],
    ) -> tuple[Callable[[int, int], bool], Callable[[int, int], tuple[bool, bool]]]:
        """The pair tests of :func:`transpositions` for S1 and S2 by position."""

        def allowed(i: int, j: int) -> bool:
            return self.allowed(s1[i], s2[j], req, bound)

        def fails(i: int, j: int) -> tuple[bool, bool]:
            return self.fails(s1[i], s2[j])

        return allowed, fails

    def _x1_z1(self, pairs: int) -> tuple[int, int]:
        return x1_z1(
            [self.b.prefs[p.id] for p in self.b.players], pairs, even_round=self.b.even_round
        )

    def _gate(
        self,
        group: Sequence[PlayerState],
        pairs: int,
        req: Requirements,
        x_left: int,
        must: Sequence[int],
        bound: set[str],
    ) -> bool:
        """Can ``group`` give ``pairs`` allowed pairs at all, leaving only players
        who may float, with at most ``x_left`` colour failures by the matching
        bound? No exchange or transposition could help otherwise.

        The leftovers are modelled as ``len(group) - 2 * pairs`` extra vertices,
        each joined to every player who may be left unpaired: a perfect
        matching of that graph is such a pairing.
        """
        n = len(group)
        spare = n - 2 * pairs
        must_set = set(must)
        forbidden: list[set[int]] = [set() for _ in range(n + spare)]
        bad_colour: list[set[int]] = [set() for _ in range(n + spare)]
        for i in range(n):
            for j in range(i + 1, n):
                if not self.allowed(group[i], group[j], req, bound):
                    forbidden[i].add(j)
                    forbidden[j].add(i)
                elif self.fails(group[i], group[j])[0]:
                    bad_colour[i].add(j)
                    bad_colour[j].add(i)
        for v in range(n, n + spare):
            forbidden[v].update(range(n, n + spare))
            forbidden[v].update(must_set)
            for i in must_set:
                forbidden[i].add(v)
        if _matching_size(forbidden) < (n + spare) // 2:
            return False
        if any(bad_colour):
            good = _matching_size([f | c for f, c in zip(forbidden, bad_colour, strict=True)])
            if pairs - (good - spare) > x_left:
                bound.add("X")
                return False
        return True

    def _homogeneous(
        self,
        group: Sequence[PlayerState],
        pairs: int,
        req: Requirements,
        x_left: int,
        z_left: int,
        budget: Budget,
        bound: set[str],
    ) -> Iterator[Outcome]:
        """C.4-C.8a for a homogeneous bracket or a remainder: S1 = the ``pairs``
        highest, S2 the rest (C.4, C.5); transpositions (C.7, D.1), then
        exchanges (C.8a, D.2), each followed by the transpositions again."""
        n = len(group)
        if 2 * pairs > n or pairs < 0:
            return
        must = (
            [i for i, p in enumerate(group) if not self.may_float(p, req, bound)]
            if n > 2 * pairs
            else []
        )
        if self.b.lowest and n - 2 * pairs > 1:
            return  # the lowest bracket can move nobody down
        if pairs == 0:
            if not must:
                yield Outcome((), tuple(group))
            return
        if not self._gate(group, pairs, req, x_left, must, bound):
            return
        splits = itertools.chain([((), ())], exchanges(pairs, n - pairs))
        for out_s1, in_s2 in splits:
            s1_pos = sorted((set(range(pairs)) - set(out_s1)) | set(in_s2))
            s2_pos = sorted((set(range(pairs, n)) - set(in_s2)) | set(out_s1))
            s1 = [group[i] for i in s1_pos]
            s2 = [group[i] for i in s2_pos]
            must_s2 = [k for k, i in enumerate(s2_pos) if i in must]
            for chosen in transpositions(
                len(s1),
                len(s2),
                *self._between(s1, s2, req, bound),
                x_left,
                z_left,
                must_s2,
                budget,
                bound,
            ):
                taken = set(chosen)
                yield Outcome(
                    tuple(
                        (s1[i], s2[j])
                        if self.index[s1[i].id] < self.index[s2[j].id]
                        else (s2[j], s1[i])
                        for i, j in enumerate(chosen)
                    ),
                    tuple(p for k, p in enumerate(s2) if k not in taken),
                )
            if budget.left < 0:
                return

    def _heterogeneous(
        self,
        m1: int,
        p1: int,
        req: Requirements,
        budget: Budget,
        bound: set[str],
        progress: _Progress,
    ) -> Iterator[Outcome]:
        """C.4-C.9 for a heterogeneous bracket: S1 = M1 moved-down players
        (D.3 chooses which when M1 < M0), S2 = everybody else; each
        transposition pairing all of S1 (C.6, C.7, D.1.2) is followed by the
        homogeneous remainder with P = P1 - M1 (C.6); a remainder that fails
        sends the search back to the next transposition (C.9)."""
        players = self.b.players
        movers = [p for p in players if p.id in self.b.movers]
        for s1 in mover_sets(movers, m1):  # C.8b, D.3
            s1_ids = {p.id for p in s1}
            s2 = [p for p in players if p.id not in s1_ids]
            for chosen in transpositions(
                len(s1),
                len(s2),
                *self._between(s1, s2, req, bound),
                req.x,
                req.z,
                (),
                budget,
                bound,
            ):
                progress.reached_remainder = True  # C.6
                pairs = tuple((s1[i], s2[j]) for i, j in enumerate(chosen))
                x_used = sum(self.fails(a, b)[0] for a, b in pairs)
                z_used = sum(self.fails(a, b)[1] for a, b in pairs)
                taken = set(chosen)
                remainder = [p for k, p in enumerate(s2) if k not in taken]
                key = (req, p1 - m1, frozenset(p.id for p in remainder), x_used, z_used)
                if key in progress.failed_remainders:
                    continue
                found = False
                for rest in self._homogeneous(
                    remainder, p1 - m1, req, req.x - x_used, req.z - z_used, budget, bound
                ):
                    found = True
                    yield Outcome(pairs + rest.pairs, rest.floaters)
                if not found and budget.left >= 0:
                    progress.failed_remainders.add(key)
                if budget.left < 0:
                    return


def _matching_size(forbidden: list[set[int]]) -> int:
    """Size of a maximum matching of the complement of ``forbidden`` (general graph)."""
    n = len(forbidden)
    matcher = ViabilityMatcher(PairingGraph(forbidden, [0] * n, 0), range(n))
    return (n - len(matcher.maximize())) // 2
