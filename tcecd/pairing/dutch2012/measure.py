"""B.3's measures of a bracket read off maximum-weight matchings: the least
:func:`~tcecd.pairing.dutch2012.values.b3_cost` of a pairing, and the score
differences its pairs may have (:class:`~tcecd.pairing.dutch2012.bracket.BracketProcedure`
turns them into targets for the search).

Each player left unpaired is an extra vertex, joined to the players who may
be left unpaired with its score; every edge weighs a constant less its cost,
the constant beyond any total, so that a maximum-weight matching is of
greatest size first and of least cost within that."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from tcecd.domain import PlayerId
from tcecd.pairing.dutch.matcher import Matcher
from tcecd.pairing.dutch2012.state import PlayerState
from tcecd.pairing.dutch2012.values import b3_cost, bye_cost

#: whether two players may meet (the absolute criteria)
Pairable = Callable[[PlayerState, PlayerState], bool]
#: whether a player may be left unpaired (B.1b in the lowest bracket)
MayLeave = Callable[[PlayerState], bool]


def least_cost(
    players: Sequence[PlayerState],
    floor: int,
    pairable: Pairable,
    may_leave: MayLeave,
    s1: frozenset[PlayerId] = frozenset(),
    floaters: tuple[int, ...] | None = None,
    *,
    spare: int | None = None,
) -> int | None:
    """The least :func:`b3_cost` of a pairing of ``players`` (``floor``: their
    lowest score) that pairs every player of ``s1`` with one outside it and
    leaves unpaired players with the scores ``floaters`` (None: ``spare``
    players, by default the bye if the number is odd, with any score); None
    if none does."""
    n = len(players)
    count = n % 2 if spare is None else spare
    slots: tuple[int | None, ...] = (None,) * count if floaters is None else floaters
    edges = _edges(players, floor, pairable, may_leave, slots, s1=s1)
    matching = max_weight_matching(n + len(slots), edges)
    if 2 * len(matching) != n + len(slots):
        return None
    return _cost(players, floor, matching)


def fewest_breaking(
    players: Sequence[PlayerState],
    floor: int,
    pairable: Pairable,
    may_leave: MayLeave,
    spare: int,
    breaks: Pairable,
) -> int | None:
    """The fewest pairs that ``breaks`` (a relative criterion) among the
    pairings of ``players`` of the least :func:`b3_cost` leaving ``spare``
    players (any score) unpaired (one unit of cost outweighs them all); None
    if there is no such pairing."""
    n = len(players)
    slots: tuple[int | None, ...] = (None,) * spare
    edges = _edges(players, floor, pairable, may_leave, slots, scale=n + 1, penalty=breaks)
    matching = max_weight_matching(n + spare, edges)
    if 2 * len(matching) != n + spare:
        return None
    return sum(1 for i, j in matching if j < n and breaks(players[i], players[j]))


def _cost(
    players: Sequence[PlayerState], floor: int, matching: Sequence[tuple[int, int]]
) -> int:
    """The :func:`b3_cost` of a matching of :func:`_edges` (i < j: the extra
    vertices, the players left unpaired, come second)."""
    n = len(players)
    return sum(
        b3_cost(players[i], players[j]) if j < n else bye_cost(players[i], floor)
        for i, j in matching
    )


def used_differences(
    players: Sequence[PlayerState],
    floor: int,
    pairable: Pairable,
    may_leave: MayLeave,
    sets: Sequence[tuple[int, ...]],
    cost: int,
) -> frozenset[int]:
    """The score differences the pairs of a pairing of ``players`` of the least
    cost ``cost`` that leaves players with one of ``sets`` unpaired may have:
    for each difference, a matching of that cost with as many pairs of it as
    possible (one unit of cost outweighs them all). The search skips the other
    pairs."""
    n = len(players)
    differences = {
        abs(a.score - b.score) for a, b in itertools.combinations(players, 2) if pairable(a, b)
    }
    used: set[int] = set()
    for d in sorted(differences):
        for floaters in sets:
            edges = _edges(players, floor, pairable, may_leave, floaters, scale=n + 1, bonus=d)
            matching = max_weight_matching(n + len(floaters), edges)
            if any(j < n and abs(players[i].score - players[j].score) == d for i, j in matching):
                used.add(d)
                break
    return frozenset(used)


def _edges(
    players: Sequence[PlayerState],
    floor: int,
    pairable: Pairable,
    may_leave: MayLeave,
    slots: Sequence[int | None],
    *,
    s1: frozenset[PlayerId] = frozenset(),
    scale: int = 1,
    bonus: int | None = None,
    penalty: Pairable | None = None,
) -> list[tuple[int, int, int]]:
    """The weighted graph: pairs (not both in ``s1``), and one extra vertex per
    player to leave unpaired (``slots``: his score, None: any); costs times
    ``scale``, plus one for a pair of score difference ``bonus``, less one
    for a pair that ``penalty`` names."""
    n = len(players)
    top = (
        1
        + n
        + scale
        * (
            sum(bye_cost(p, floor) for p in players)
            + sum(b3_cost(a, b) for a, b in itertools.combinations(players, 2))
        )
    )
    edges: list[tuple[int, int, int]] = []
    for i, j in itertools.combinations(range(n), 2):
        a, b = players[i], players[j]
        if pairable(a, b) and not (a.id in s1 and b.id in s1):
            extra = 1 if bonus is not None and abs(a.score - b.score) == bonus else 0
            if penalty is not None and penalty(a, b):
                extra -= 1
            edges.append((i, j, top - scale * b3_cost(a, b) + extra))
    for k, score in enumerate(slots):
        for i, p in enumerate(players):
            if may_leave(p) and p.id not in s1 and score in (None, p.score):
                edges.append((i, n + k, top - scale * bye_cost(p, floor)))
    return edges


def max_weight_matching(size: int, edges: Sequence[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """A maximum-weight matching of the graph on vertices ``0..size-1`` with
    ``edges`` (i, j, weight > 0), as pairs (i, j) with i < j: the compiled blossom
    of py4swiss (:class:`Matcher`; the weights may be any width). The callers
    weigh their edges so that every maximum-weight matching is of greatest
    size and all of them have the measure they read off it, so which one is
    returned does not matter."""
    if not edges:
        return []
    matcher = Matcher(size, max(w for _, _, w in edges).bit_length())
    for i, j, w in edges:
        matcher.set(i, j, w)
    return [(u, v) for u, v in enumerate(matcher.compute()) if u < v]
