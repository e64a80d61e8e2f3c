"""Perfect-matching viability for TCEC Swiss STEP 3 and STEP 4.

The rule text (STEP 3) asks whether the *allowed-pair graph* has a perfect
matching; STEP 4 then pairs greedily and must keep one after every pair it
forms. Computing a fresh maximum matching per candidate (networkx's
``max_weight_matching`` is O(n^3) in pure Python) is far too slow for large
fields, so :class:`ViabilityMatcher` keeps **one** perfect matching ``M`` of the
players still unpaired and answers each question with at most one search:

* STEP 4 for the first unpaired ``u``: if its first allowed candidate ``v``
  (in pairing order) is ``u``'s mate in ``M``, ``M - {u, v}`` is already
  perfect;
* otherwise, with ``a = M(u)`` and ``b = M(v)``, the graph without ``u`` and
  ``v`` has a perfect matching iff ``M - {ua, vb}`` (which leaves exactly ``a``
  and ``b`` exposed) has an augmenting path, which must run from ``a`` to
  ``b`` (Berge's theorem). The paths of length 1, 3 and 5 that real events
  usually offer are looked for first (a pass or two over neighbourhoods, no
  search tree);
* if there is none, one Edmonds search from ``a`` in the graph without ``u``
  settles every candidate at once: ``v`` keeps a perfect matching iff an
  even alternating path reaches it from ``a`` (Gallai-Edmonds). The first
  candidate in pairing order that the search reaches is the partner, and
  flipping the alternating path from it back to ``a`` gives the perfect
  matching of the rest with no further search. The search stops as soon as
  the first candidate is reached (no other can beat it).

Late in an event the players at the bottom of the pairing order have met
most of their possible opponents. In the forecast's 50-player events (rounds
21 to 40, ``bench/forecast.py``) about half of the STEP 4 steps found their
first candidate not viable: typically a *barrier* ``A`` of the few players
the bottom ones can still meet, each of whom must be paired with one of
them, yet who come early in the pairing order as candidates of the players
paired before them. Such a
step's search runs to its end, and its Gallai-Edmonds structure says which
edges no perfect matching of the rest uses (those from ``A`` to anyone but
the bottom groups): the matcher drops them from its own copy of the graph
for the rest of the round (:meth:`ViabilityMatcher._prune`), so the later
steps skip those candidates instead of searching again. With the paths of
length 5 tried first, the full searches fell from about 55% of the steps to
under 20%, most of them running to their end (and pruning again).

The graph is a list of adjacency **bitsets** (Python ints over the vertices):
``adj[x]`` has bit ``y`` set iff ``x`` and ``y`` may meet (``y`` not in the
encounter history of ``x`` and ``|wgd[x] + wgd[y]| <= limit``, the colour
balancing condition). The searches intersect these with the set of vertices
still unpaired and with the search tree's own sets, so a step of the search
costs one machine-word operation per 64 vertices instead of a Python loop
over every player; for a 50-player round every set fits in one word.

The augmenting-path searches (the paths of length 1, 3 and 5, then Edmonds'
search) are :mod:`tcecd.pairing.augmenting`, which the matcher inherits.

networkx is the reference in the tests; this module does not import it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tcecd.pairing.augmenting import AugmentingPaths


def bits(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(vertices: Iterable[int]) -> int:
    """The bitset of ``vertices``."""
    mask = 0
    for x in vertices:
        mask |= 1 << x
    return mask


def colour_masks(wgd: Sequence[int], limit: int, vertices: Iterable[int]) -> dict[int, int]:
    """For each WGD value ``w`` of ``vertices``, those of them ``y`` with
    ``|w + wgd[y]| <= limit``."""
    by_wgd: dict[int, int] = {}
    for y in vertices:
        w = wgd[y]
        by_wgd[w] = by_wgd.get(w, 0) | 1 << y
    compatible: dict[int, int] = {}
    for w in by_wgd:
        mask = 0
        for v, m in by_wgd.items():
            if -limit <= w + v <= limit:
                mask |= m
        compatible[w] = mask
    return compatible


class PairingGraph:
    """The allowed-pair graph of STEP 3 over vertices ``0..n-1``.

    ``forbidden[x]`` holds the vertices ``x`` may not meet (symmetric; the
    encounter history still in force); ``wgd[x]`` is the white game
    difference; an edge needs ``|wgd[x] + wgd[y]| <= limit``. The graph is
    kept as adjacency bitsets (``adj``); :meth:`from_masks` builds it from
    forbidden bitsets directly.
    """

    __slots__ = ("adj", "n")

    def __init__(self, forbidden: Sequence[set[int]], wgd: Sequence[int], limit: int = 2) -> None:
        if len(forbidden) != len(wgd):
            raise ValueError("forbidden and wgd must have one entry per vertex")
        self._build([mask_of(f) for f in forbidden], wgd, limit)

    @classmethod
    def from_masks(cls, forbidden: Sequence[int], wgd: Sequence[int], limit: int = 2,
                   members: int | Sequence[int] | None = None) -> PairingGraph:
        """The graph from forbidden *bitsets* (``forbidden[x]`` bit ``y``: ``x``
        may not meet ``y``); only the vertices of ``members`` (a bitset or a
        list of vertices, all by default) get edges."""
        if len(forbidden) != len(wgd):
            raise ValueError("forbidden and wgd must have one entry per vertex")
        graph = cls.__new__(cls)
        graph._build(forbidden, wgd, limit, bits(members) if isinstance(members, int) else members)
        return graph

    def _build(self, forbidden: Sequence[int], wgd: Sequence[int], limit: int,
               vertices: Sequence[int] | None = None) -> None:
        n = len(wgd)
        self.n = n
        if vertices is None:
            vertices = range(n)
        compatible = colour_masks(wgd, limit, vertices)
        adj = [0] * n
        for x in vertices:
            adj[x] = compatible[wgd[x]] & ~forbidden[x] & ~(1 << x)
        self.adj = adj

    def edge(self, x: int, y: int) -> bool:
        """Whether ``x`` and ``y`` may be paired (STEP 3 "allowed to be paired")."""
        return x != y and bool(self.adj[x] >> y & 1)


class ViabilityMatcher(AugmentingPaths):
    """A maximum matching of the still-unpaired vertices, kept up to date.

    ``order`` lists the vertices taking part (for TCEC Swiss: the players
    other than the BYE, in pairing order). Searches are deterministic.
    """

    def __init__(
        self, graph: PairingGraph, order: Sequence[int], members: int | None = None
    ) -> None:
        self.graph = graph
        #: the graph's adjacency bitsets, less the edges STEP 4 has found to
        #: be in no perfect matching (:meth:`_prune`)
        self.adj: list[int] = list(graph.adj)
        #: still-unpaired vertices, in the given order
        self.active: list[int] = list(order)
        #: mate of each vertex in the current matching, -1 if exposed
        self.match: list[int] = [-1] * graph.n
        #: bitset of the still-unpaired vertices (``members``, if given, must
        #: be the bitset of ``order``)
        self._alive = mask_of(self.active) if members is None else members
        #: after a successful search: the exposed vertex the path reached
        self._reached = -1
        #: after a failed search: its outer (even) and inner (odd) vertices,
        #: and the tree's parent links (see :meth:`_augment`)
        self._even = 0
        self._odd = 0
        self._parent: list[int] = []
        self._greedy()

    # -- building a maximum matching ------------------------------------------

    def _greedy(self) -> None:
        """Start from a greedy matching: each vertex still exposed, in order,
        takes the lowest-numbered later exposed vertex it may meet.

        Lowest-numbered rather than first in order: a TCEC Swiss session
        numbers the players in seed order, close to the pairing order near the
        top, and one bit operation finds it. On the forecast's late rounds
        (``bench/forecast.py``: 50 players, rounds 21 to 40) this left about 6
        of 48 players exposed, against about 12 when taking the first in
        order, and the whole forecast took about 8 % less CPU, although STEP 4
        then finds the first candidate to be the mate a little less often.
        """
        match = self.match
        adj = self.adj
        later = self._alive  # exposed vertices not yet visited
        for x in self.active:
            if match[x] != -1:
                continue
            later ^= 1 << x
            candidates = adj[x] & later
            if candidates:
                y = (candidates & -candidates).bit_length() - 1
                match[x] = y
                match[y] = x
                later ^= 1 << y

    def exposed(self) -> list[int]:
        """The unpaired vertices the current matching leaves exposed."""
        return [x for x in self.active if self.match[x] == -1]

    def maximize(self) -> list[int]:
        """Grow the matching to a maximum one; return the vertices left exposed.

        One search per exposed vertex suffices: a vertex with no augmenting
        path keeps none after later augmentations (Edmonds).
        """
        exposed = self.exposed()
        if len(exposed) > 1:
            targets = mask_of(exposed)
            for root in exposed:
                if self.match[root] == -1:
                    targets &= ~(1 << root)
                    if self._augment(root, targets):
                        targets &= ~(1 << self._reached)
        return self.exposed()

    def deficient(self) -> int:
        """The active vertices that some maximum matching leaves exposed (the
        set D of Gallai-Edmonds), as a bitset. Call it on a maximum matching
        (after :meth:`maximize`).

        A vertex is in D iff an even alternating path reaches it from an
        exposed vertex: the outer vertices of one search from each exposed
        vertex (none of them augments, the matching being maximum).
        """
        found = 0
        for root in self.exposed():
            if self._augment(root, 0):  # pragma: no cover - the matching is maximum
                raise ValueError("deficient needs a maximum matching")
            found |= self._even
        return found

    def is_perfect(self) -> bool:
        return all(self.match[x] != -1 for x in self.active)

    def refresh(self, graph: PairingGraph) -> list[int]:
        """Switch to a graph with at least the same edges (a history round was
        removed), keep the matching and grow it; return the exposed vertices."""
        self.graph = graph
        self.adj = list(graph.adj)
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
        kept = self._alive
        self._alive = kept & ~(1 << u | 1 << v)
        match[u] = match[v] = match[a] = match[b] = -1
        if self._augment(a, 1 << b):
            self._alive = kept
            self._remove(u, v)
            return True
        self._alive = kept
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
        kept = self._alive
        self._alive = kept & ~(1 << u)
        match[u] = match[a] = -1
        try:
            if self._augment(a, 0):  # pragma: no cover - a is the only exposed vertex
                raise AssertionError("augmenting path in a maximum matching")
        finally:
            self._alive = kept
            match[u], match[a] = a, u
        return set(bits(self._even))

    def pair_first(self, u: int) -> int | None:
        """STEP 4 for ``u``: pair it with the first active vertex (in order)
        that it may meet and that keeps a perfect matching of the rest;
        return that partner, or None if there is none.

        Requires a perfect matching of the active vertices. The first allowed
        candidate is tried on its own (usually ``u``'s mate, or one short path
        away); if that does not settle it, one search from ``u``'s mate in the
        graph without ``u`` names every viable partner (:meth:`viable_partners`)
        and the path it found to the chosen one re-matches the rest.
        """
        candidates = self.adj[u] & self._alive & ~(1 << u)
        if not candidates:
            return None
        if self.match[u] == -1:
            raise ValueError("pair_first needs a perfect matching")
        return self._pair_with_first(u, self._first(candidates), candidates)

    def _pair_with_first(self, u: int, first: int, candidates: int) -> int | None:
        """:meth:`pair_first` once ``u``'s candidates (a bitset) and the first
        of them are known."""
        match = self.match
        alive = self._alive
        a = match[u]
        if first == a:
            self._remove(u, a)
            return a
        if self.use_short_paths:
            b = match[first]
            self._alive = alive & ~(1 << u | 1 << first)
            match[u] = match[first] = match[a] = match[b] = -1
            if self._short_path(a, 1 << b) or self._path_of_five(a, 1 << b):
                self._alive = alive
                self._remove(u, first)
                return first
            match[u], match[a] = a, u
            match[first], match[b] = b, first
        # One search from a with u removed: the even vertices are the viable
        # partners. It may stop as soon as the first candidate is one.
        self._alive = alive & ~(1 << u)
        match[u] = match[a] = -1
        try:
            if self._augment(a, 0, first):  # pragma: no cover - a is the only exposed
                raise AssertionError("augmenting path in a maximum matching")
        finally:
            self._alive = alive
        viable = candidates & self._even
        if not viable:
            match[u], match[a] = a, u
            return None
        v = self._first(viable)
        if not self._even >> first & 1:
            # The search ran to its end (it stops only once ``first`` is
            # outer): its structure holds for the rest of the round.
            self._prune(v)
        if v != a:
            # Flip the even alternating path v = M(v) - ... - a: a gets a mate,
            # v is left exposed, and the rest stays perfectly matched.
            parent = self._parent
            x = match[v]
            match[v] = -1
            while True:
                px = parent[x]
                nxt = match[px]
                match[x] = px
                match[px] = x
                if nxt == -1:
                    break
                x = nxt
        self._remove(u, v)
        return v

    def pair_all(self) -> list[tuple[int, int]] | None:
        """STEP 4 for the whole round: :meth:`pair_first` for the first active
        vertex until none is left; the pairs formed, in order (None if a
        vertex found no partner, which a perfect matching rules out; it is
        then ``active[0]``)."""
        formed: list[tuple[int, int]] = []
        active = self.active
        match = self.match
        adj = self.adj
        if -1 in map(match.__getitem__, active):
            raise ValueError("pair_all needs a perfect matching")
        while active:
            u = active[0]
            candidates = adj[u] & self._alive
            for first in active:
                if candidates >> first & 1:
                    break
            else:
                return None
            a = match[u]
            if first == a:
                # The usual step, inline: u's mate is its first candidate.
                self._alive &= ~(1 << u | 1 << a)
                match[u] = match[a] = -1
                del active[0]
                active.remove(a)
                formed.append((u, a))
                continue
            v = self._pair_with_first(u, first, candidates)
            if v is None:  # pragma: no cover - a perfect matching offers the mate
                return None
            formed.append((u, v))
        return formed

    def _prune(self, v: int) -> None:
        """Drop the edges that no perfect matching uses any more, after a
        search from ``a = M(u)`` in the graph ``H`` without ``u`` ran to its
        end and ``u`` is to be paired with outer vertex ``v``.

        Gallai-Edmonds on ``H`` (deficiency 1): the outer vertices ``D`` form
        ``|A| + 1`` odd components, ``A`` (the inner vertices) being their
        other neighbours. Without ``v`` too, the ``|A|`` components of ``D``
        other than ``v``'s are odd components of ``H - v - A``, so every
        perfect matching of ``H - v`` matches each vertex of ``A`` into a
        different one of them: an edge from ``A`` to any other vertex is in
        no perfect matching. Nor, then, in one of any smaller graph STEP 4
        goes on with (it removes a pair of a perfect matching: one using the
        edge plus that pair would be one of the larger graph). So dropping
        these edges changes no later answer, and spares the searches that
        would otherwise find, step after step, that a vertex of ``A`` listed
        early in the pairing order is not a viable partner.
        """
        odd = self._odd
        if not odd:
            return  # one component: nothing to learn
        adj = self.adj
        even = self._even
        component = frontier = 1 << v
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            new = adj[low.bit_length() - 1] & even & ~component
            component |= new
            frontier |= new
        keep = even & ~component
        # A's edges to anything but ``keep``, on both sides: a vertex has one
        # only if it is a neighbour of A.
        touched = 0
        rest = odd
        while rest:
            low = rest & -rest
            rest ^= low
            x = low.bit_length() - 1
            touched |= adj[x]
            adj[x] &= keep
        touched &= self._alive & ~keep & ~odd
        while touched:
            low = touched & -touched
            touched ^= low
            adj[low.bit_length() - 1] &= ~odd

    def _first(self, mask: int) -> int:
        """The first active vertex (in order) in ``mask`` (which must hold one)."""
        for x in self.active:
            if mask >> x & 1:
                return x
        raise ValueError("no active vertex in the mask")  # pragma: no cover

    def _remove(self, u: int, v: int) -> None:
        self._alive &= ~(1 << u | 1 << v)
        self.match[u] = self.match[v] = -1
        self.active.remove(u)
        self.active.remove(v)
