"""D.1 transpositions, D.2 exchanges and D.3 moved-down-player sets.

D.1 lists the transpositions of S2 in lexicographic order ("start with the
lowest player, with descending priority"): the highest S1 player keeps its
partner as long as possible. :func:`transpositions` visits them in exactly
that order, as a depth-first search over the S1 players (D.1.2: only the
first ``len(S1)`` players of a transposition are paired, so transpositions
that differ only after them are one attempt). Two prunings skip only
transpositions that could not satisfy the current requirements anyway, so the
first acceptable transposition is the one D.1 reaches first:

* a bipartite matching of the S1 players still to pair into the S2 players
  still free, on the allowed pairs (B.1, B.2 and the current relative
  requirements), must saturate them;
* the same matching restricted to pairs that fulfil the colour preferences
  bounds the colour failures (X, and Z in even rounds) still to come;
* the S2 players who may not be left over (B.1b for the bye, B.5/B.6 for
  downfloaters) must be matchable too (with the first matching this gives
  one matching serving both: Mendelsohn-Dulmage).

The matchings are kept up to date with one augmenting-path search per step.
A :class:`Budget` bounds the work per bracket (docs/pairing.md).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

#: Largest number of S1 (or S2) groups D.2 lists for one exchange size;
#: bigger exchanges are not tried (docs/pairing.md, "limits").
MAX_EXCHANGE_GROUPS = 3000


class Budget:
    """Search steps left for one bracket procedure (each tried pair is one step)."""

    __slots__ = ("left",)

    def __init__(self, steps: int) -> None:
        self.left = steps

    def spend(self) -> bool:
        """Spend one step; False when none was left."""
        self.left -= 1
        return self.left >= 0


def _augment(
    start: int,
    adj: Sequence[Sequence[int]],
    mate_l: list[int],
    mate_r: list[int],
    blocked_r: set[int],
    seen: set[int],
) -> bool:
    """Kuhn's augmenting path from the free left vertex ``start`` (iterative);
    ``seen`` holds right vertices already known to lead nowhere. ``mate_*``:
    the partner of each vertex, -1 if it has none."""
    for v in adj[start]:  # a free partner at once: the common case
        if mate_r[v] < 0 and v not in blocked_r:
            mate_l[start] = v
            mate_r[v] = start
            return True
    # Each frame: (left vertex, iterator position); parent pointers rebuild the path.
    stack: list[tuple[int, int]] = [(start, 0)]
    via: list[int] = []  # right vertex taken from each frame on the stack
    while stack:
        u, pos = stack[-1]
        row = adj[u]
        while pos < len(row):
            v = row[pos]
            pos += 1
            if v in seen or v in blocked_r:
                continue
            seen.add(v)
            stack[-1] = (u, pos)
            w = mate_r[v]
            if w < 0:
                via.append(v)
                for (lu, _), rv in zip(stack, via, strict=True):
                    mate_l[lu] = rv
                    mate_r[rv] = lu
                return True
            via.append(v)
            stack.append((w, 0))
            break
        else:
            stack.pop()
            if via:
                via.pop()
    return False


class _Matching:
    """A maximum matching of left vertices into right vertices, kept as the
    search fixes pairs (left = S1 players, or S2 players that must be paired).
    Partners are kept in lists (-1: none), which copy faster than dicts: the
    search copies a matching at every step."""

    __slots__ = ("adj", "count", "mate_l", "mate_r")

    def __init__(self, adj: Sequence[Sequence[int]]) -> None:
        self.adj = adj
        rights = max((max(row) for row in adj if row), default=-1) + 1
        self.mate_l = [-1] * len(adj)
        self.mate_r = [-1] * rights
        self.count = 0
        for u in range(len(adj)):  # greedy first, then augmenting paths
            for v in adj[u]:
                if self.mate_r[v] < 0:
                    self.mate_l[u] = v
                    self.mate_r[v] = u
                    self.count += 1
                    break
        seen: set[int] = set()
        for u in range(len(adj)):
            if self.mate_l[u] < 0 and _augment(u, adj, self.mate_l, self.mate_r, set(), seen):
                self.count += 1
                seen = set()

    def size(self) -> int:
        return self.count

    def without(
        self, left: int | None, right: int | None, blocked_r: set[int], blocked_l: set[int]
    ) -> _Matching:
        """A copy with ``left`` and ``right`` removed, augmented back to a maximum
        matching (``blocked_*``: vertices no longer present)."""
        new = _Matching.__new__(_Matching)
        new.adj = self.adj
        mate_l = new.mate_l = self.mate_l[:]
        mate_r = new.mate_r = self.mate_r[:]
        count = self.count
        if left is not None and right is not None and mate_l[left] == right:
            # A maximum matching less one of its pairs is a maximum matching of the
            # graph less the pair's two vertices (a bigger one plus the pair would
            # beat the old): nothing to augment.
            mate_l[left] = mate_r[right] = -1
            new.count = count - 1
            return new
        if left is not None and mate_l[left] >= 0:
            mate_r[mate_l[left]] = -1
            mate_l[left] = -1
            count -= 1
        if right is not None and right < len(mate_r) and mate_r[right] >= 0:
            mate_l[mate_r[right]] = -1
            mate_r[right] = -1
            count -= 1
        # The old matching less two vertices may no longer be maximum: augment until
        # no path is left (at most two succeed; failed searches share ``seen``), or
        # until it is as big as the old one, which a smaller graph cannot beat.
        adj = self.adj
        while count < self.count:
            seen: set[int] = set()
            for u in range(len(adj)):
                if mate_l[u] >= 0 or u in blocked_l or u == left:
                    continue
                if _augment(u, adj, mate_l, mate_r, blocked_r, seen):
                    count += 1
                    break
            else:
                break
        new.count = count
        return new


@dataclass(frozen=True, slots=True)
class Weight:
    """An additive measure of a transposition that may not exceed ``most``:
    ``pairs[i][j]`` for S1[i] against S2[j], ``spare[j]`` for S2[j] left
    unpaired (None: never left unpaired, or nothing to count)."""

    pairs: Sequence[Sequence[int]]
    spare: Sequence[int | None]
    most: int

    def pair(self, i: int, j: int) -> int:
        return self.pairs[i][j]

    def bound(self, adj: Sequence[Sequence[int]]) -> Callable[[int, set[int]], int]:
        """A lower bound of what S1[start:] and the S2 players left over add,
        given the S2 players ``used``: each S1 player's cheapest free partner
        (on ``adj``, the allowed pairs), and the cheapest free players to leave
        over. The partners and the players to leave over are sorted once here:
        the search asks at every step."""
        s1_size = len(adj)
        spare = len(self.spare) - s1_size
        rows = [sorted((self.pairs[k][j], j) for j in adj[k]) for k in range(s1_size)]
        leftover = sorted((w, j) for j, w in enumerate(self.spare) if w is not None)

        def least(start: int, used: set[int]) -> int:
            total = 0
            for k in range(start, s1_size):
                for w, j in rows[k]:
                    if j not in used:
                        total += w
                        break
            if spare > 0 and leftover:
                need = spare
                for w, j in leftover:
                    if j not in used:
                        total += w
                        need -= 1
                        if not need:
                            break
            return total

        return least


@dataclass(frozen=True, slots=True)
class Limit:
    """A relative criterion that pairs may break, at most ``left`` more times
    (C.10: "any criterion may be dropped only for the minimum number of pairs")."""

    name: str
    left: int


@dataclass(frozen=True, slots=True)
class LeftoverLimit:
    """A relative criterion that S2 players left unpaired may break (B.5/B.6 for
    downfloaters): ``positions`` break it when left over, at most ``left`` of them."""

    name: str
    left: int
    positions: frozenset[int]


class _Criterion:
    """One limited criterion during the search: its matching and what is left."""

    __slots__ = ("bit", "left", "matching", "name", "positions")

    def __init__(
        self, name: str, left: int, matching: _Matching, bit: int = 0, positions: Sequence[int] = ()
    ) -> None:
        self.name = name
        self.left = left
        self.matching = matching
        self.bit = bit
        self.positions = positions


def transpositions(
    s1_size: int,
    s2_size: int,
    cost: Callable[[int, int], int | None] | Sequence[Sequence[int | None]],
    limits: Sequence[Limit],
    leftover: Sequence[LeftoverLimit],
    must_pair: Collection[int],
    budget: Budget,
    bound: set[str],
    weight: Weight | None = None,
) -> Iterator[tuple[int, ...]]:
    """D.1: the S2 positions paired with S1[0], S1[1], ... for every
    transposition meeting the requirements, in D.1 order.

    ``cost(i, j)`` (or ``cost[i][j]``, a matrix of them): None when S1[i] may
    never meet S2[j] (the absolute criteria), else the bitmask of the relative
    criteria the pair breaks (bit ``k`` is ``limits[k]``); each limited
    criterion may be broken at most its ``left`` times in all. ``leftover``:
    criteria broken by S2 players left unpaired; ``must_pair``: S2 positions
    that may never be left unpaired.
    A criterion that rejects or prunes anything adds its name to ``bound``
    (a criterion with nothing left is checked at once, on every pair).
    ``weight``: a total the transposition may not exceed (B.3's cost in a
    bracket joined by C.13); branches that cannot stay within it are skipped.
    """
    zero_mask = 0
    for k, limit in enumerate(limits):
        if limit.left <= 0:
            zero_mask |= 1 << k
    adj: list[list[int]] = []
    bits: list[list[int]] = []  # the criteria of each pair (read for the allowed ones only)
    broken = 0  # every criterion some allowed pair breaks
    if callable(cost):
        matrix: Sequence[Sequence[int | None]] = [
            [cost(i, j) for j in range(s2_size)] for i in range(s1_size)
        ]
    else:
        matrix = cost
    for i in range(s1_size):
        mrow = matrix[i]
        row = [j for j, c in enumerate(mrow) if c is not None and not c & zero_mask]
        if zero_mask:
            for c in mrow:
                if c is not None and c & zero_mask:
                    bound.update(lim.name for k, lim in enumerate(limits) if c & zero_mask & 1 << k)
        row_bits = [c or 0 for c in mrow]
        for j in row:
            broken |= row_bits[j]
        adj.append(row)
        bits.append(row_bits)
    col_adj: list[list[int]] = [[] for _ in range(s2_size)]  # adj by S2 player
    if must_pair or leftover:
        for i, row in enumerate(adj):
            for j in row:
                col_adj[j].append(i)
    must_set = set(must_pair)
    for rule in leftover:
        if rule.left <= 0 and rule.positions:
            if not rule.positions.issubset(must_pair):  # conservatively: may not be left over
                bound.add(rule.name)
            must_set |= rule.positions
    if s1_size == 0:
        if must_set:
            return
        if any(len(rule.positions) > rule.left for rule in leftover if rule.left > 0):
            bound.update(rule.name for rule in leftover if len(rule.positions) > rule.left)
            return
        yield ()
        return
    must = sorted(must_set)
    m_all = _Matching(adj)
    if m_all.size() < s1_size:
        return
    # The must-pair matching runs from the S2 side: left = index in ``must``.
    m_must = _Matching([col_adj[j] for j in must])
    if m_must.size() < len(must):
        return
    edge_rules = []
    for k, limit in enumerate(limits):
        bit = 1 << k
        if 0 < limit.left < s1_size and broken & bit:
            good = [[j for j in adj[i] if not bits[i][j] & bit] for i in range(s1_size)]
            edge_rules.append(_Criterion(limit.name, limit.left, _Matching(good), bit=1 << k))
    side_rules = []
    for rule in leftover:
        if rule.left > 0 and len(rule.positions) > rule.left:
            positions = sorted(rule.positions)
            matching = _Matching([col_adj[j] for j in positions])
            side_rules.append(_Criterion(rule.name, rule.left, matching, positions=positions))
    for r in edge_rules:
        if s1_size - r.matching.size() > r.left:
            bound.add(r.name)
            return
    for r in side_rules:
        if len(r.positions) - r.matching.size() > r.left:
            bound.add(r.name)
            return
    must_index = {j: k for k, j in enumerate(must)}
    least = weight.bound(adj) if weight is not None else None
    side_index = [{j: k for k, j in enumerate(r.positions)} for r in side_rules]

    chosen: list[int] = []
    used: set[int] = set()
    done_sets = [set(range(i + 1)) for i in range(s1_size)]  # S1 players paired so far

    def search(
        i: int,
        ma: _Matching,
        mm: _Matching,
        edges: list[tuple[int, _Matching]],
        sides: list[tuple[int, _Matching]],
        spent: int,
    ) -> Iterator[tuple[int, ...]]:
        if i == s1_size:
            yield tuple(chosen)
            return
        done_l = done_sets[i]
        rest = s1_size - i - 1
        for j in adj[i]:
            if j in used:
                continue
            if not budget.spend():
                return
            now = spent
            if weight is not None and least is not None:
                now += weight.pair(i, j)
                used.add(j)
                over = now + least(i + 1, used) > weight.most
                used.discard(j)
                if over:
                    continue
            c = bits[i][j]
            new_edges: list[tuple[int, _Matching]] = []
            blocked_r = used | {j}
            ok = True
            for r, (left, m) in zip(edge_rules, edges, strict=True):
                nleft = left - (1 if c & r.bit else 0)
                if nleft < 0:
                    bound.add(r.name)
                    ok = False
                    break
                new_edges.append((nleft, m))
            if not ok:
                continue
            # The last S1 player (rest == 0): nothing is left for the full and
            # the per-criterion matchings to bound (they can only prune S1
            # players still to pair), so they are not updated; the must-pair
            # and leftover matchings still decide.
            na = ma.without(i, j, blocked_r, done_l) if rest else ma  # S1 0..i are paired
            if na.size() < rest:
                continue
            # must-pair side: S2 player j is now paired; S1 player i is gone.
            if must_set:
                nm = mm.without(
                    must_index.get(j),
                    i,
                    done_l,
                    {must_index[u] for u in blocked_r if u in must_index},
                )
                if nm.size() < len(must_set - blocked_r):
                    continue
            else:
                nm = mm  # empty: nothing to keep matched
            for k, (r, (nleft, m)) in enumerate(zip(edge_rules, new_edges, strict=True)):
                if not rest:
                    break  # the last S1 player: as for the full matching above
                nx = m.without(i, j, blocked_r, done_l)
                if rest - nx.size() > nleft:
                    bound.add(r.name)
                    ok = False
                    break
                new_edges[k] = (nleft, nx)
            if not ok:
                continue
            new_sides: list[tuple[int, _Matching]] = []
            for r, index, (left, m) in zip(side_rules, side_index, sides, strict=True):
                ns = m.without(index.get(j), i, done_l, {index[u] for u in blocked_r if u in index})
                open_count = sum(1 for u in r.positions if u not in blocked_r)
                if open_count - ns.size() > left:
                    bound.add(r.name)
                    ok = False
                    break
                new_sides.append((left, ns))
            if not ok:
                continue
            if not rest:
                yield (*chosen, j)
                if budget.left < 0:
                    return
                continue
            chosen.append(j)
            used.add(j)
            yield from search(i + 1, na, nm, new_edges, new_sides, now)
            used.discard(j)
            chosen.pop()
            if budget.left < 0:
                return

    yield from search(
        0,
        m_all,
        m_must,
        [(r.left, r.matching) for r in edge_rules],
        [(r.left, r.matching) for r in side_rules],
        0,
    )


def exchanges(s1_size: int, s2_size: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """D.2: the exchanges between S1 and S2 in the order of the text.

    Positions are 0-based in the bracket (S1 = 0..s1_size-1, S2 after it).
    For N = 1, 2, ... players: the S1 groups in decreasing lexicographic
    order, the S2 groups in increasing lexicographic order; the smallest
    difference (sum of S2 numbers minus sum of S1 numbers) first; ties by the
    S1 list, then by the S2 list.
    """
    for n in range(1, min(s1_size, s2_size) + 1):
        if (
            math.comb(s1_size, n) > MAX_EXCHANGE_GROUPS
            or math.comb(s2_size, n) > MAX_EXCHANGE_GROUPS
        ):
            return
        s1_groups = list(itertools.combinations(range(s1_size - 1, -1, -1), n))
        s2_groups = list(itertools.combinations(range(s1_size, s1_size + s2_size), n))
        s2_sorted = sorted(range(len(s2_groups)), key=lambda j: (sum(s2_groups[j]), j))
        s2_sums = [sum(s2_groups[j]) for j in s2_sorted]
        heap = [(s2_sums[0] - sum(g), i, s2_sorted[0], 0) for i, g in enumerate(s1_groups)]
        heapq.heapify(heap)
        while heap:
            _, i, j, pos = heapq.heappop(heap)
            yield s1_groups[i], s2_groups[j]
            if pos + 1 < len(s2_sorted):
                nxt = pos + 1
                heapq.heappush(heap, (s2_sums[nxt] - sum(s1_groups[i]), i, s2_sorted[nxt], nxt))


def mover_sets(movers: Sequence[T], m1: int) -> Iterator[tuple[T, ...]]:
    """D.3: the sets of ``m1`` moved-down players for S1, in the text's order
    (the M1 highest first; then lexicographic, as the D.3 table lists them)."""
    return itertools.combinations(movers, m1)
