"""Augmenting paths (Berge's theorem) for the viability matcher of
:mod:`tcecd.pairing.matching`: from an exposed vertex, the cheap paths of
length 1, 3 and 5 first, then Edmonds' search with blossoms, over the
matcher's adjacency bitsets and restricted to its still-unpaired vertices.

The search is one concern of :class:`~tcecd.pairing.matching.ViabilityMatcher`
(which inherits it): the matcher decides which questions to ask (STEP 4's
candidates, pruning); these methods answer "is there an augmenting path,
and if so augment along it" and leave the failed search's tree for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tcecd.pairing.matching import PairingGraph


class AugmentingPaths:
    """The augmenting-path searches over a matching kept by a subclass.

    The state is the subclass's (set in its ``__init__``); it is declared
    here because the searches read and write it.
    """

    #: Try the cheap short-path augmentation before the blossom search (tests
    #: switch it off to exercise the blossom search on its own).
    use_short_paths: bool = True

    graph: PairingGraph
    #: adjacency bitsets (the matcher's own copy, pruned)
    adj: list[int]
    #: mate of each vertex in the current matching, -1 if exposed
    match: list[int]
    #: bitset of the still-unpaired vertices
    _alive: int
    #: after a successful search: the exposed vertex the path reached
    _reached: int
    #: after a failed search: its outer (even) and inner (odd) vertices, and
    #: the tree's parent links (see :meth:`_augment`)
    _even: int
    _odd: int
    _parent: list[int]

    def _short_path(self, root: int, targets: int) -> bool:
        """Augment along ``root - t`` or ``root - x = mate(x) - t`` (``t`` in
        ``targets``) if one exists.

        In the dense graphs of real events nearly every augmenting path is
        this short, and finding one this way costs one pass with no tree.
        """
        adj = self.adj
        alive = self._alive
        match = self.match
        near = adj[root] & alive
        hit = near & targets
        if hit:
            t = (hit & -hit).bit_length() - 1
            match[root], match[t] = t, root
            self._reached = t
            return True
        near &= ~targets
        while near:
            low = near & -near
            near ^= low
            x = low.bit_length() - 1
            y = match[x]
            if y == -1:
                continue
            hit = adj[y] & targets & alive
            if hit:
                t = (hit & -hit).bit_length() - 1
                match[root], match[x] = x, root
                match[y], match[t] = t, y
                self._reached = t
                return True
        return False

    def _path_of_five(self, root: int, targets: int) -> bool:
        """Augment along ``root - x = y - z = w - t`` (``t`` in ``targets``,
        exposed like ``root``) if one exists.

        STEP 4's first candidate is often viable by no shorter path early in
        a round, where the matching of the rest was shaped by other players'
        choices; one pass over the targets' neighbours and one over
        ``root``'s find these without growing a search tree (the full search
        explored about 24 vertices each time). The vertices are distinct:
        ``z`` is neither ``x`` nor ``root``, mates are distinct, and ``t`` is
        exposed while the others are matched.
        """
        adj = self.adj
        alive = self._alive
        match = self.match
        far = 0
        rest = targets
        while rest:
            low = rest & -rest
            rest ^= low
            far |= adj[low.bit_length() - 1]
        far &= alive
        back = 0  # the mates of the targets' neighbours: the possible z
        while far:
            low = far & -far
            far ^= low
            w = match[low.bit_length() - 1]
            if w != -1:
                back |= 1 << w
        if not back:
            return False
        near = adj[root] & alive & ~targets
        while near:
            low = near & -near
            near ^= low
            x = low.bit_length() - 1
            y = match[x]
            if y == -1:
                continue
            hit = adj[y] & back & ~(1 << x | 1 << root)
            if hit:
                z = (hit & -hit).bit_length() - 1
                w = match[z]
                hit = adj[w] & targets & alive
                t = (hit & -hit).bit_length() - 1
                match[root], match[x] = x, root
                match[y], match[z] = z, y
                match[w], match[t] = t, w
                self._reached = t
                return True
        return False

    def _augment(self, root: int, targets: int, stop: int = -1) -> bool:
        """Search an augmenting path from exposed ``root``; augment along it.

        ``targets`` is the bitset of the other exposed vertices: each vertex
        taken from the queue is first tested against them, so in a dense graph
        the path is found after one or two steps instead of after growing (and
        shrinking blossoms in) a tree over the whole graph. On success the
        target reached is left in ``_reached``.

        The classic single-source Edmonds search with blossom bases (as in
        Gabow's O(V^3) formulation). ``parent`` holds the tree edge into each
        odd vertex (and, after a blossom is shrunk, the way back through it),
        so that from any even vertex ``v`` the walk ``v, M(v), parent[M(v)],
        ...`` is an even alternating path to the root. When the search fails,
        ``_even`` holds its outer (even) vertices and ``_parent`` those walks;
        it stops early, with the outer vertices found so far, as soon as
        vertex ``stop`` (if not -1) is outer.
        """
        if self.use_short_paths and targets and (
            self._short_path(root, targets) or self._path_of_five(root, targets)
        ):
            return True
        adj = self.adj
        match = self.match
        alive = self._alive
        n = self.graph.n
        parent = [-1] * n
        base = list(range(n))
        #: the vertices of each shrunk blossom, by its base (bitsets)
        blossoms: dict[int, int] = {}
        even = 1 << root  # outer vertices
        tree = even  # every vertex of the tree, outer or inner
        queue = [root]
        # The targets, and the mate of ``stop``: an outer neighbour of it makes
        # ``stop`` outer.
        pull = targets
        halt = 0
        if stop != -1:
            halt = 1 << stop
            if match[stop] != -1:
                pull |= 1 << match[stop]

        def lca(a: int, b: int) -> int:
            seen = 0
            while True:
                a = base[a]
                seen |= 1 << a
                if match[a] == -1:
                    break
                a = parent[match[a]]
            while True:
                b = base[b]
                if seen >> b & 1:
                    return b
                b = parent[match[b]]

        def mark_path(x: int, b: int, child: int) -> int:
            """Link the path from ``x`` down to base ``b`` for the walk back
            through the new blossom; return the bases it passes (bitset)."""
            passed = 0
            while base[x] != b:
                passed |= 1 << base[x] | 1 << base[match[x]]
                parent[x] = child
                child = match[x]
                x = parent[child]
            return passed

        def augment_to(to: int) -> None:
            """Flip the alternating path root .. parent[to] - to."""
            self._reached = to
            x = to
            while x != -1:
                px = parent[x]
                next_x = match[px]
                match[x] = px
                match[px] = x
                x = next_x

        while queue:
            v = queue.pop()
            near = adj[v] & alive
            hit = near & targets
            if hit:
                # ``v`` is even, a target exposed: v - t ends an augmenting path.
                t = (hit & -hit).bit_length() - 1
                parent[t] = v
                augment_to(t)
                return True
            # Inner (odd) neighbours and those in v's own blossom give nothing;
            # the others are new vertices (grow the tree) or outer ones (an odd
            # cycle: shrink it into a blossom).
            near &= (~tree | even) & ~blossoms.get(base[v], 0)
            while near:
                low = near & -near
                near ^= low
                to = low.bit_length() - 1
                if base[v] == base[to]:
                    continue
                if even & low:
                    cur = lca(v, to)
                    passed = mark_path(v, cur, to) | mark_path(to, cur, v)
                    # Every vertex whose base the cycle passed now has base
                    # ``cur``, and is outer.
                    joined = 0
                    passed &= ~(1 << cur)
                    while passed:
                        low = passed & -passed
                        passed ^= low
                        joined |= blossoms.pop(low.bit_length() - 1, low)
                    fresh = joined & ~even
                    rest = joined
                    while rest:
                        low = rest & -rest
                        rest ^= low
                        x = low.bit_length() - 1
                        base[x] = cur
                        if fresh & low:
                            queue.append(x)
                    blossoms[cur] = blossoms.get(cur, 1 << cur) | joined
                    even |= joined
                    if joined & halt:
                        break
                elif not tree & low:
                    parent[to] = v
                    mate = match[to]
                    if mate == -1:
                        augment_to(to)
                        return True
                    tree |= low | 1 << mate
                    even |= 1 << mate
                    queue.append(mate)
                    if mate == stop:
                        break
                    # Look one step ahead from the new outer vertex (not only
                    # when the queue reaches it): an edge to an exposed target
                    # ends an augmenting path; one to the mate of a ``stop``
                    # vertex makes that vertex outer.
                    ahead = adj[mate] & pull & alive & ~tree
                    if ahead:
                        if ahead & targets:
                            ahead &= targets
                        t = (ahead & -ahead).bit_length() - 1
                        parent[t] = mate
                        if targets >> t & 1:
                            augment_to(t)
                            return True
                        s = match[t]
                        tree |= 1 << t | 1 << s
                        even |= 1 << s
                        queue.append(s)
                        break
            else:
                continue
            break  # a vertex of ``stop`` is outer
        self._even = even
        self._odd = tree & ~even
        self._parent = parent
        return False
