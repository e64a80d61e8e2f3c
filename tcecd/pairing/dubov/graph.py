"""The legal-pair graph of the Dubov system and the matching questions asked of it.

A pair is legal when it breaks no absolute criterion: C.1 (the players have
not met over the board) and C.3 (they do not share an absolute colour
preference, A.5.a). C.2 concerns the bye and is applied in B.0.

The procedure of section B keeps asking "can these players all be paired
legally?" (B.1's legality, C.4's completion, B.4's and B.6's "can yield a
legal pairing"). Whole-group questions go to TCEC Swiss's perfect-matching
engine (:mod:`tcecd.pairing.matching`, an Edmonds search with cheap short
paths first); the small weighted questions of C.7 (fewest players without
their colour preference) and the bipartite questions of B.4 and B.6 go to
networkx.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import networkx as nx

from tcecd.domain import PlayerId
from tcecd.pairing.dubov.facts import Facts
from tcecd.pairing.matching import PairingGraph, ViabilityMatcher


def legal_pair(a: Facts, b: Facts) -> bool:
    """C.1 (never met) and C.3 (not both with the same absolute preference)."""
    if b.id in a.met:
        return False
    pa, pb = a.preference, b.preference
    return not (pa.absolute and pb.absolute and pa.colour is pb.colour)


class LegalGraph:
    """The legal pairs among the players of one round (vertices 0..n-1)."""

    def __init__(self, players: Sequence[Facts]) -> None:
        self.players = list(players)
        self.index: dict[PlayerId, int] = {p.id: i for i, p in enumerate(self.players)}
        n = len(self.players)
        forbidden: list[set[int]] = [set() for _ in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                if not legal_pair(self.players[i], self.players[j]):
                    forbidden[i].add(j)
                    forbidden[j].add(i)
        self.forbidden = forbidden
        self._graph = PairingGraph(forbidden, [0] * n)
        self._perfect: dict[frozenset[int], bool] = {}

    def legal(self, a: Facts, b: Facts) -> bool:
        return self._graph.edge(self.index[a.id], self.index[b.id])

    def _vertices(self, players: Iterable[Facts]) -> list[int]:
        return [self.index[p.id] for p in players]

    def can_pair_all(self, players: Iterable[Facts]) -> bool:
        """Whether ``players`` can all be paired among themselves legally."""
        vertices = self._vertices(players)
        if len(vertices) % 2:
            return False
        key = frozenset(vertices)
        found = self._perfect.get(key)
        if found is None:
            matcher = ViabilityMatcher(self._graph, sorted(vertices))
            found = not matcher.maximize()
            self._perfect[key] = found
        return found

    def min_inside_pairs(self, players: Sequence[Facts], inside: Iterable[Facts]) -> int:
        """The fewest pairs with both players in ``inside`` over the legal
        pairings of all ``players`` (which must exist)."""
        vertices = self._vertices(players)
        ins = set(self._vertices(inside))
        forbidden = [set(self.forbidden[v]) for v in range(len(self.players))]
        for v in ins:
            forbidden[v] |= ins
        fast = ViabilityMatcher(PairingGraph(forbidden, [0] * len(self.players)), vertices)
        if not fast.maximize():
            return 0
        g = nx.Graph()
        for i, x in enumerate(vertices):
            for y in vertices[i + 1 :]:
                if y not in self.forbidden[x]:
                    g.add_edge(x, y, weight=1 if (x in ins and y in ins) else 2)
        matching = nx.max_weight_matching(g, maxcardinality=True)
        return sum(1 for x, y in matching if x in ins and y in ins)

    def fewest_across(self, players: Sequence[Facts], group: Iterable[Facts]) -> int:
        """The fewest pairs joining a player of ``group`` to one outside it,
        over the legal pairings of all ``players`` (which must exist): the
        fewest upfloaters a scoregroup needs (B.1)."""
        vertices = self._vertices(players)
        ins = set(self._vertices(group))
        g = nx.Graph()
        for i, x in enumerate(vertices):
            for y in vertices[i + 1 :]:
                if y not in self.forbidden[x]:
                    g.add_edge(x, y, weight=1 if ((x in ins) != (y in ins)) else 2)
        matching = nx.max_weight_matching(g, maxcardinality=True)
        return sum(1 for x, y in matching if (x in ins) != (y in ins))

    def all_legal(self, players: Iterable[Facts]) -> bool:
        """Whether every two of ``players`` may meet (no C.1 or C.3 bar)."""
        vertices = set(self._vertices(players))
        return not any(self.forbidden[v] & vertices for v in vertices)

    def min_cost_across(
        self, left: Sequence[Facts], right: Sequence[Facts], *, costed: bool
    ) -> tuple[int, dict[PlayerId, PlayerId]] | None:
        """Pair every player of ``left`` with one of ``right`` (equal sizes),
        legally: None if impossible, else the fewest pairs whose players share
        their colour preference (C.7) and one such pairing (left id -> right
        id). With ``costed`` False only whether it is possible is asked (the
        count is then 0 and the pairing any legal one)."""
        if len(left) != len(right):
            return None
        if not costed and self.all_legal([*left, *right]):
            return 0, {a.id: b.id for a, b in zip(left, right, strict=True)}
        g = nx.Graph()
        lv = [("L", p.id) for p in left]
        rv = [("R", p.id) for p in right]
        g.add_nodes_from(lv)
        g.add_nodes_from(rv)
        for a, x in zip(left, lv, strict=True):
            for b, y in zip(right, rv, strict=True):
                if self.legal(a, b):
                    same = a.preference.colour is b.preference.colour
                    g.add_edge(x, y, weight=1 if same else 2)
        if not costed:
            found = nx.bipartite.hopcroft_karp_matching(g, top_nodes=lv)
            if len(found) != 2 * len(left):
                return None
            return 0, {x[1]: found[x][1] for x in lv}
        weighted = nx.max_weight_matching(g, maxcardinality=True)
        if len(weighted) != len(left):
            return None
        mates: dict[PlayerId, PlayerId] = {}
        for x, y in weighted:
            lx, ry = (x, y) if x[0] == "L" else (y, x)
            mates[lx[1]] = ry[1]
        return sum(1 for x, y in weighted if g[x][y]["weight"] == 1), mates
