"""Perfect-matching viability for TCEC Swiss STEP 3 and STEP 4.

The rule text (STEP 3) asks whether the *allowed-pair graph* has a perfect
matching; STEP 4 then pairs greedily and must keep one after every pair it
forms. Computing a fresh maximum matching per candidate (networkx's
``max_weight_matching`` is O(n^3) in pure Python) is far too slow for large
fields, so :class:`ViabilityMatcher` keeps **one** perfect matching ``M`` of the
players still unpaired and tests a candidate pair ``(u, v)`` with a single
augmenting-path search:

* if ``v`` is ``u``'s mate in ``M``, ``M - {u, v}`` is already perfect;
* otherwise, with ``a = M(u)`` and ``b = M(v)``, the graph without ``u`` and
  ``v`` has a perfect matching iff ``M - {ua, vb}`` (which leaves exactly ``a``
  and ``b`` exposed) has an augmenting path, which must run from ``a`` to
  ``b`` (Berge's theorem). One Edmonds blossom search from ``a`` answers that,
  after a cheap look for the paths of length 1 and 3 that real events nearly
  always offer;
* if that first candidate fails, one search from ``a`` in the graph without
  ``u`` settles all the others at once: ``v`` keeps a perfect matching iff an
  even alternating path reaches it from ``a`` (Gallai-Edmonds), so STEP 4
  runs at most three searches per player (the failed one, this one, and the
  augmentation for the partner it names).

The graph is never materialised: an edge ``x-y`` exists iff ``y`` is not in
``forbidden[x]`` (the encounter history) and ``|wgd[x] + wgd[y]| <= limit``
(the colour balancing condition). For the dense graphs of real events the
search from ``a`` almost always reaches ``b`` within a few steps.

networkx is the reference in the tests; this module does not import it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


class PairingGraph:
    """The allowed-pair graph of STEP 3 over vertices ``0..n-1``.

    ``forbidden[x]`` holds the vertices ``x`` may not meet (symmetric; the
    encounter history still in force); ``wgd[x]`` is the white game
    difference; an edge needs ``|wgd[x] + wgd[y]| <= limit``.
    """

    __slots__ = ("forbidden", "limit", "n", "wgd")

    def __init__(self, forbidden: Sequence[set[int]], wgd: Sequence[int], limit: int = 2) -> None:
        if len(forbidden) != len(wgd):
            raise ValueError("forbidden and wgd must have one entry per vertex")
        self.n = len(wgd)
        self.forbidden = list(forbidden)
        self.wgd = list(wgd)
        self.limit = limit

    def edge(self, x: int, y: int) -> bool:
        """Whether ``x`` and ``y`` may be paired (STEP 3 "allowed to be paired")."""
        return (
            x != y
            and y not in self.forbidden[x]
            and -self.limit <= self.wgd[x] + self.wgd[y] <= self.limit
        )


class ViabilityMatcher:
    """A maximum matching of the still-unpaired vertices, kept up to date.

    ``order`` lists the vertices taking part (for TCEC Swiss: the players
    other than the BYE, in pairing order). Searches scan vertices in that
    order, so every run is deterministic.
    """

    #: Try the cheap short-path augmentation before the blossom search (tests
    #: switch it off to exercise the blossom search on its own).
    use_short_paths: bool = True

    def __init__(self, graph: PairingGraph, order: Sequence[int]) -> None:
        self.graph = graph
        #: still-unpaired vertices, in the given order
        self.active: list[int] = list(order)
        #: mate of each vertex in the current matching, -1 if exposed
        self.match: list[int] = [-1] * graph.n
        self._dead = bytearray(graph.n)
        for x in range(graph.n):
            self._dead[x] = 1
        for x in self.active:
            self._dead[x] = 0
        self._greedy()

    # -- building a maximum matching ------------------------------------------

    def _greedy(self) -> None:
        """Start from the greedy matching in order (usually already perfect,
        and usually what STEP 4 ends up choosing, so its tests are instant)."""
        match = self.match
        edge = self.graph.edge
        for i, x in enumerate(self.active):
            if match[x] != -1:
                continue
            for y in self.active[i + 1 :]:
                if match[y] == -1 and edge(x, y):
                    match[x] = y
                    match[y] = x
                    break

    def exposed(self) -> list[int]:
        """The unpaired vertices the current matching leaves exposed."""
        return [x for x in self.active if self.match[x] == -1]

    def maximize(self) -> list[int]:
        """Grow the matching to a maximum one; return the vertices left exposed.

        One search per exposed vertex suffices: a vertex with no augmenting
        path keeps none after later augmentations (Edmonds).
        """
        for root in self.exposed():
            if self.match[root] == -1:
                self._augment(root, [x for x in self.exposed() if x != root])
        return self.exposed()

    def is_perfect(self) -> bool:
        return all(self.match[x] != -1 for x in self.active)

    def refresh(self, graph: PairingGraph) -> list[int]:
        """Switch to a graph with at least the same edges (a history round was
        removed), keep the matching and grow it; return the exposed vertices."""
        self.graph = graph
        return self.maximize()

    # -- STEP 4 -----------------------------------------------------------------

    def try_pair(self, u: int, v: int) -> bool:
        """Pair ``u`` with ``v`` if the rest keeps a perfect matching.

        Requires a perfect matching of the active vertices and ``edge(u, v)``.
        On success both leave the active set and the matching stays perfect;
        on failure nothing changes.
        """
        match = self.match
        a = match[u]
        if a == -1:
            raise ValueError("try_pair needs a perfect matching")
        if a == v:
            self._remove(u, v)
            return True
        b = match[v]
        dead = self._dead
        dead[u] = dead[v] = 1
        match[u] = match[v] = match[a] = match[b] = -1
        if self._augment(a, [b]):
            self._remove(u, v)
            return True
        dead[u] = dead[v] = 0
        match[u], match[a] = a, u
        match[v], match[b] = b, v
        return False

    def viable_partners(self, u: int) -> set[int]:
        """Every active ``v`` such that the active vertices other than ``u``
        and ``v`` still have a perfect matching (edges to ``u`` aside).

        With ``u`` removed, ``a = M(u)`` is the only exposed vertex, so the
        matching is maximum and the vertices some maximum matching leaves
        exposed are exactly those an even alternating path reaches from ``a``
        (Gallai-Edmonds): the outer vertices of one blossom search from ``a``.
        ``v`` is one of them iff the graph without ``u`` and ``v`` has a
        perfect matching. One search answers for every candidate at once.
        """
        match = self.match
        a = match[u]
        if a == -1:
            raise ValueError("viable_partners needs a perfect matching")
        self._dead[u] = 1
        match[u] = match[a] = -1
        outer: set[int] = set()
        try:
            if self._augment(a, (), outer):  # pragma: no cover - a is the only exposed vertex
                raise AssertionError("augmenting path in a maximum matching")
        finally:
            self._dead[u] = 0
            match[u], match[a] = a, u
        return outer

    def pair_first(self, u: int) -> int | None:
        """STEP 4 for ``u``: pair it with the first active vertex after it (in
        order) that it may meet and that keeps a perfect matching of the rest;
        return that partner, or None if there is none.

        The first allowed candidate is tested on its own (usually ``u``'s mate,
        or one short path away); only if it fails does one full search
        (:meth:`viable_partners`) settle every remaining candidate.
        """
        edge = self.graph.edge
        candidates = (v for v in self.active[1:] if v != u and edge(u, v))
        first = next(candidates, None)
        if first is None:
            return None
        if self.try_pair(u, first):
            return first
        viable = self.viable_partners(u)
        for v in candidates:
            if v in viable:
                if not self.try_pair(u, v):  # pragma: no cover - viable_partners said so
                    raise AssertionError("viable partner failed its test")
                return v
        return None

    def _remove(self, u: int, v: int) -> None:
        self._dead[u] = self._dead[v] = 1
        self.match[u] = self.match[v] = -1
        self.active.remove(u)
        self.active.remove(v)

    # -- Edmonds' blossom search -----------------------------------------------

    def _short_path(self, root: int, targets: Sequence[int]) -> bool:
        """Augment along ``root - t`` or ``root - x = mate(x) - t`` if one exists.

        In the dense graphs of real events nearly every augmenting path is
        this short, and finding one this way costs one pass with no tree.
        """
        graph = self.graph
        forbidden = graph.forbidden
        wgd = graph.wgd
        limit = graph.limit
        match = self.match
        dead = self._dead
        live = [t for t in targets if t != root and match[t] == -1 and not dead[t]]
        if not live:
            return False
        forb_r = forbidden[root]
        lo = -limit - wgd[root]
        hi = limit - wgd[root]
        for t in live:
            if t not in forb_r and lo <= wgd[t] <= hi:
                match[root], match[t] = t, root
                return True
        for x in self.active:
            if dead[x] or x == root or x in forb_r or not lo <= wgd[x] <= hi:
                continue
            y = match[x]
            if y == -1:
                continue
            forb_y = forbidden[y]
            lo_y = -limit - wgd[y]
            hi_y = limit - wgd[y]
            for t in live:
                if t not in forb_y and lo_y <= wgd[t] <= hi_y:
                    match[root], match[x] = x, root
                    match[y], match[t] = t, y
                    return True
        return False

    def _augment(self, root: int, targets: Sequence[int], outer: set[int] | None = None) -> bool:
        """Search an augmenting path from exposed ``root``; augment along it.

        ``targets`` are the other exposed vertices: each vertex taken from the
        queue is first tested against them, so in a dense graph the path is
        found after one or two steps instead of after growing (and shrinking
        blossoms in) a tree over the whole graph.

        The classic single-source Edmonds search with blossom bases (as in
        Gabow's O(V^3) formulation), with dictionaries so that a search costs
        what it explores, not O(n). ``parent`` holds the tree edge into each
        odd vertex (and, after a blossom is shrunk, the way back through it).
        When the search fails and ``outer`` is given, it receives the outer
        (even) vertices of the final tree.
        """
        graph = self.graph
        forbidden = graph.forbidden
        wgd = graph.wgd
        limit = graph.limit
        match = self.match
        dead = self._dead
        active = self.active
        parent: dict[int, int] = {}
        base: dict[int, int] = {}
        even: set[int] = {root}
        tree: list[int] = [root]
        queue: deque[int] = deque((root,))

        def find_base(x: int) -> int:
            return base.get(x, x)

        def lca(a: int, b: int) -> int:
            seen: set[int] = set()
            while True:
                a = find_base(a)
                seen.add(a)
                if match[a] == -1:
                    break
                a = parent[match[a]]
            while True:
                b = find_base(b)
                if b in seen:
                    return b
                b = parent[match[b]]

        def mark_path(x: int, b: int, child: int, blossom: set[int]) -> None:
            while find_base(x) != b:
                blossom.add(find_base(x))
                blossom.add(find_base(match[x]))
                parent[x] = child
                child = match[x]
                x = parent[match[x]]

        def augment_to(to: int) -> None:
            """Flip the alternating path root .. parent[to] - to."""
            x = to
            while x != -1:
                px = parent[x]
                next_x = match[px]
                match[x] = px
                match[px] = x
                x = next_x

        if self.use_short_paths and self._short_path(root, targets):
            return True

        while queue:
            v = queue.popleft()
            forb = forbidden[v]
            lo = -limit - wgd[v]
            hi = limit - wgd[v]
            for t in targets:
                # ``v`` is even, ``t`` exposed: v - t ends an augmenting path.
                if match[t] == -1 and t not in forb and lo <= wgd[t] <= hi and t != v:
                    parent[t] = v
                    augment_to(t)
                    return True
            mate_v = match[v]
            for to in active:
                if dead[to] or to in (v, mate_v) or to in forb:
                    continue
                w = wgd[to]
                if w < lo or w > hi:
                    continue
                base_v = find_base(v)
                if base_v == find_base(to):
                    continue
                mate_to = match[to]
                if to == root or (mate_to != -1 and mate_to in parent):
                    # ``to`` is even too: an odd cycle, shrink it into a blossom.
                    cur = lca(v, to)
                    blossom: set[int] = set()
                    mark_path(v, cur, to, blossom)
                    mark_path(to, cur, v, blossom)
                    for x in tree:
                        if find_base(x) in blossom:
                            base[x] = cur
                            if x not in even:
                                even.add(x)
                                queue.append(x)
                elif to not in parent:
                    parent[to] = v
                    if mate_to == -1:
                        augment_to(to)
                        return True
                    tree.append(to)
                    tree.append(mate_to)
                    even.add(mate_to)
                    queue.append(mate_to)
        if outer is not None:
            outer |= even
        return False
