"""The incremental viability check agrees with networkx on every graph tried.

Random allowed-pair graphs (random forbidden pairs and WGDs), with the cheap
short-path step on and off, so the blossom search is checked on its own too:
the maximum matching has networkx's size, and every STEP 4 candidate test
answers exactly "does the rest still have a perfect matching" as networkx does.
"""

from __future__ import annotations

import random

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.pairing.matching import PairingGraph, ViabilityMatcher
from tests.pairing.graphs import nx_graph, random_graph


def _nx_size(graph: PairingGraph, nodes: list[int]) -> int:
    return len(nx.max_weight_matching(nx_graph(graph, nodes), maxcardinality=True))


def _check(graph: PairingGraph, order: list[int], rng: random.Random, short_paths: bool) -> None:
    matcher = ViabilityMatcher(graph, order)
    matcher.use_short_paths = short_paths
    exposed = matcher.maximize()
    mates = [x for x in order if matcher.match[x] != -1]
    # A valid matching on allowed edges, of maximum size.
    for x in mates:
        assert matcher.match[matcher.match[x]] == x
        assert graph.edge(x, matcher.match[x])
    assert len(mates) // 2 == _nx_size(graph, order)
    assert sorted(exposed) == sorted(set(order) - set(mates))
    if exposed:
        return
    # STEP 4 style: pair off the first active vertex with candidates in random
    # order, comparing each answer with networkx on the rest of the graph.
    while matcher.active:
        first = matcher.active[0]
        # One search names every vertex whose removal (with ``first``) leaves
        # a perfect matching.
        others = [x for x in matcher.active if x != first]
        expected_viable = {
            v
            for v in others
            if 2 * _nx_size(graph, [x for x in others if x != v]) == len(others) - 1
        }
        before = list(matcher.match)
        assert matcher.viable_partners(first) == expected_viable
        assert matcher.match == before
        candidates = [v for v in matcher.active[1:] if graph.edge(first, v)]
        rng.shuffle(candidates)
        for v in candidates:
            rest = [x for x in matcher.active if x not in (first, v)]
            expected = 2 * _nx_size(graph, rest) == len(rest)
            before = list(matcher.match)
            assert matcher.try_pair(first, v) == expected
            if expected:
                assert matcher.is_perfect()
                assert all(graph.edge(x, matcher.match[x]) for x in matcher.active)
                break
            assert matcher.match == before  # a failed test changes nothing
        else:
            pytest.fail("no candidate kept a perfect matching")


@pytest.mark.parametrize("short_paths", [True, False])
@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(0, 16),
    density=st.floats(0.1, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_agrees_with_networkx(short_paths: bool, n: int, density: float, seed: int) -> None:
    rng = random.Random(seed)
    graph = random_graph(rng, n, density)
    order = list(range(n))
    rng.shuffle(order)
    _check(graph, order, rng, short_paths)


@pytest.mark.parametrize("short_paths", [True, False])
def test_blossom_heavy_graphs(short_paths: bool) -> None:
    # Sparse graphs of a few dozen vertices are rich in odd cycles, so the
    # search has to shrink (nested) blossoms to find the augmenting paths.
    rng = random.Random(20261122)
    for _ in range(25):
        n = rng.choice([30, 31, 40])
        graph = random_graph(rng, n, rng.choice([0.06, 0.1, 0.15]))
        _check(graph, list(range(n)), rng, short_paths)


def test_petersen_graph_has_a_perfect_matching() -> None:
    # The Petersen graph: every perfect-matching search must go through blossoms
    # (5-cycles). Outer cycle 0-4, spokes i-(i+5), inner pentagram.
    edges = {(i, (i + 1) % 5) for i in range(5)}
    edges |= {(i, i + 5) for i in range(5)}
    edges |= {(5 + i, 5 + (i + 2) % 5) for i in range(5)}
    allowed = {frozenset(e) for e in edges}
    forbidden = [
        {b for b in range(10) if b != a and frozenset((a, b)) not in allowed} for a in range(10)
    ]
    graph = PairingGraph(forbidden, [0] * 10)
    for short_paths in (True, False):
        # In this order the greedy start pairs 7-2, 8-3, 1-0, 4-9 and leaves 5
        # and 6 exposed: maximize must match them (by the path 5-0=1-6, or by
        # the blossom search when short paths are off).
        matcher = ViabilityMatcher(graph, [7, 2, 8, 1, 4, 0, 5, 9, 3, 6])
        matcher.use_short_paths = short_paths
        assert matcher.exposed() == [5, 6]
        assert matcher.maximize() == []
        assert all(graph.edge(x, matcher.match[x]) for x in range(10))


@pytest.mark.parametrize("short_paths", [True, False])
@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(0, 14),
    density=st.floats(0.05, 0.9),
    seed=st.integers(0, 2**32 - 1),
)
def test_deficient_is_gallai_edmonds_d(
    short_paths: bool, n: int, density: float, seed: int
) -> None:
    # D: the vertices some maximum matching leaves exposed, i.e. those whose
    # removal keeps the maximum matching's size (networkx, by brute force).
    rng = random.Random(seed)
    graph = random_graph(rng, n, density)
    order = list(range(n))
    rng.shuffle(order)
    matcher = ViabilityMatcher(graph, order)
    matcher.use_short_paths = short_paths
    matcher.maximize()
    size = _nx_size(graph, order)
    expected = {v for v in order if _nx_size(graph, [x for x in order if x != v]) == size}
    got = matcher.deficient()
    assert {v for v in range(n) if got >> v & 1} == expected
