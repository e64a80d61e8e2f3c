"""D.1 transpositions and D.2 exchanges against the text's own lists.

The transposition search prunes with matchings; the property checks that it
still visits exactly the acceptable transpositions, in exactly D.1's order
(lexicographic, the S1-paired prefix only, D.1.2), by comparing with brute
force over every permutation of S2.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.pairing.dutch2012.transpose import (
    Budget,
    LeftoverLimit,
    Limit,
    exchanges,
    mover_sets,
    transpositions,
)

NO_LIMITS = (Limit("X", 0), Limit("Z", 0))


def test_d1_example_order() -> None:
    """D.1.1: S1 = 1..5, S2 = 6..11, everything allowed: 720 transpositions,
    the first ones as the text lists them (0. 6-7-8-9-10; 1. 6-7-8-9-11; ...),
    counted on the five S2 players paired with S1 (D.1.2: the sixth stays unpaired)."""
    found = list(transpositions(5, 6, lambda i, j: 0, NO_LIMITS, (), (), Budget(10**6), set()))
    as_numbers = [tuple(6 + j for j in t) for t in found]
    assert as_numbers[:4] == [
        (6, 7, 8, 9, 10),  # 0. 6-7-8-9-10-11
        (6, 7, 8, 9, 11),  # 1. 6-7-8-9-11-10
        (6, 7, 8, 10, 9),  # 2. 6-7-8-10-9-11
        (6, 7, 8, 10, 11),  # 3. 6-7-8-10-11-9
    ]
    assert as_numbers[-1] == (11, 10, 9, 8, 7)  # 719. 11-10-9-8-7-6
    assert len(as_numbers) == 720


def test_d2_exchange_orders() -> None:
    """D.2's tables for S1 = 1..5, S2 = 6..11 (positions 0-based here)."""
    one = [(tuple(a + 1 for a in x), tuple(b + 1 for b in y)) for x, y in exchanges(5, 6)][:3]
    assert one == [((5,), (6,)), ((5,), (7,)), ((4,), (6,))]
    two = [
        (tuple(a + 1 for a in x), tuple(b + 1 for b in y))
        for x, y in exchanges(5, 6)
        if len(x) == 2
    ][:6]
    assert two == [
        ((5, 4), (6, 7)),  # difference 4
        ((5, 4), (6, 8)),  # 5
        ((5, 3), (6, 7)),  # 5
        ((5, 4), (6, 9)),  # 6
        ((5, 4), (7, 8)),  # 6
        ((5, 3), (6, 8)),  # 6
    ]
    three = [
        (tuple(a + 1 for a in x), tuple(b + 1 for b in y))
        for x, y in exchanges(5, 6)
        if len(x) == 3
    ][:6]
    assert three == [
        ((5, 4, 3), (6, 7, 8)),
        ((5, 4, 3), (6, 7, 9)),
        ((5, 4, 2), (6, 7, 8)),
        ((5, 4, 3), (6, 7, 10)),
        ((5, 4, 3), (6, 8, 9)),
        ((5, 4, 2), (6, 7, 9)),
    ]


def test_d3_mover_sets() -> None:
    """D.3's table for M0 = 5, M1 = 3: 1-2-3, 1-2-4, 1-2-5, 1-3-4, ..., 3-4-5."""
    sets = ["-".join(map(str, s)) for s in mover_sets([1, 2, 3, 4, 5], 3)]
    assert sets[:4] == ["1-2-3", "1-2-4", "1-2-5", "1-3-4"]
    assert sets[-1] == "3-4-5"
    assert len(sets) == 10


@settings(max_examples=200, deadline=None)
@given(
    s1=st.integers(min_value=1, max_value=4),
    extra=st.integers(min_value=0, max_value=2),
    data=st.data(),
)
def test_pruned_search_is_d1_order(s1: int, extra: int, data: st.DataObject) -> None:
    """Three limited pair criteria (bits 1, 2, 4), two leftover criteria and
    players who must be paired, against brute force over S2's permutations."""
    s2 = s1 + extra
    cells = [(i, j) for i in range(s1) for j in range(s2)]
    allowed = {c: data.draw(st.booleans()) or data.draw(st.booleans()) for c in cells}
    bits = {c: data.draw(st.integers(min_value=0, max_value=7)) for c in cells}
    lefts = [data.draw(st.integers(min_value=0, max_value=s1)) for _ in range(3)]
    must = data.draw(st.lists(st.integers(min_value=0, max_value=s2 - 1), unique=True))
    sides = [
        (
            frozenset(data.draw(st.lists(st.integers(min_value=0, max_value=s2 - 1)))),
            data.draw(st.integers(min_value=0, max_value=2)),
        )
        for _ in range(2)
    ]
    expected = []
    seen = set()
    for perm in itertools.permutations(range(s2)):
        prefix = perm[:s1]
        if prefix in seen:
            continue
        seen.add(prefix)
        pairs = list(enumerate(prefix))
        if not all(allowed[p] for p in pairs):
            continue
        if any(sum(1 for p in pairs if bits[p] & 1 << k) > lefts[k] for k in range(3)):
            continue
        if any(m not in prefix for m in must):
            continue
        unpaired = set(range(s2)) - set(prefix)
        if any(len(unpaired & positions) > left for positions, left in sides):
            continue
        expected.append(prefix)
    got = list(
        transpositions(
            s1,
            s2,
            lambda i, j: bits[i, j] if allowed[i, j] else None,
            [Limit(f"L{k}", lefts[k]) for k in range(3)],
            [LeftoverLimit(f"S{k}", left, positions) for k, (positions, left) in enumerate(sides)],
            sorted(must),
            Budget(10**6),
            set(),
        )
    )
    assert got == expected


def test_pruning_keeps_a_transposition_that_frees_a_partner() -> None:
    """S1 = {a0, a1}, S2 = {b0, b1}; only b1 fulfils the colour preferences of
    either S1 player, one colour failure is acceptable (X = 1). Transposition 0
    (a0-b0 failing, a1-b1 fine) has exactly one failure and must be the first
    found, although before a0 is paired both S1 players compete for b1."""
    found = list(
        transpositions(
            2, 2, lambda i, j: 1 if j == 0 else 0, [Limit("X", 1)], (), (), Budget(100), set()
        )
    )
    assert found == [(0, 1), (1, 0)]
