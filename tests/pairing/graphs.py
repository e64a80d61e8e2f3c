"""Random allowed-pair graphs and their networkx form, for the matcher tests."""

from __future__ import annotations

import random

import networkx as nx

from tcecd.pairing.matching import PairingGraph


def random_graph(rng: random.Random, n: int, density: float) -> PairingGraph:
    """A random allowed-pair graph: each pair forbidden with probability
    ``1 - density``, WGDs from -2 to 2 (mostly 0)."""
    forbidden: list[set[int]] = [set() for _ in range(n)]
    for a in range(n):
        for b in range(a + 1, n):
            if rng.random() > density:
                forbidden[a].add(b)
                forbidden[b].add(a)
    wgd = [rng.choice([-2, -1, 0, 0, 0, 1, 2]) for _ in range(n)]
    return PairingGraph(forbidden, wgd)


def nx_graph(graph: PairingGraph, nodes: list[int]) -> nx.Graph:
    """``graph`` restricted to ``nodes`` as a networkx graph (the reference)."""
    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(
        (a, b) for i, a in enumerate(nodes) for b in nodes[i + 1 :] if graph.edge(a, b)
    )
    return g
