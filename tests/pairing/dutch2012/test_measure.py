"""B.3's matchings (``tcecd/pairing/dutch2012/measure.py``) against brute force.

On small random brackets (scores, forbidden pairs, players who may not be left
unpaired), every pairing that leaves players with the given scores unpaired
is listed: ``least_cost`` must be the least :func:`b3_cost` among them, and
``used_differences`` exactly the score differences of the pairs of those of
that cost (the search prunes every other pair, so a missing one would lose a
pairing and an extra one only time).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.pairing.base import Player
from tcecd.pairing.dutch2012.measure import least_cost, used_differences
from tcecd.pairing.dutch2012.state import PlayerState
from tcecd.pairing.dutch2012.values import b3_cost, bye_cost


def _player(k: int, score: int, stays: bool) -> PlayerState:
    pid = f"p{k}"
    return PlayerState(Player(pid, pid, 1), score, (), frozenset(), (), stays)


def _pairings(
    players: list[PlayerState], spare: int, pairable: set[frozenset[str]], stays: set[str]
) -> Iterator[tuple[list[tuple[PlayerState, PlayerState]], tuple[PlayerState, ...]]]:
    """Every pairing of ``players`` leaving ``spare`` of them unpaired."""
    for left in itertools.combinations(players, spare):
        if any(p.id in stays for p in left):
            continue
        rest = [p for p in players if p not in left]
        yield from ((pairs, left) for pairs in _perfect(rest, pairable))


def _perfect(
    players: list[PlayerState], pairable: set[frozenset[str]]
) -> Iterator[list[tuple[PlayerState, PlayerState]]]:
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for k, other in enumerate(rest):
        if frozenset((first.id, other.id)) in pairable:
            for more in _perfect(rest[:k] + rest[k + 1 :], pairable):
                yield [(first, other), *more]


@st.composite
def _brackets(draw: st.DrawFn) -> tuple[list[PlayerState], set[frozenset[str]], int]:
    n = draw(st.integers(2, 8))
    scores = draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))
    stays = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    players = [_player(k, s, b) for k, (s, b) in enumerate(zip(scores, stays, strict=True))]
    pairs = [frozenset((a.id, b.id)) for a, b in itertools.combinations(players, 2)]
    allowed = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    spare = draw(st.integers(0, min(3, n)).filter(lambda s: (n - s) % 2 == 0))
    return players, {p for p, ok in zip(pairs, allowed, strict=True) if ok}, spare


@settings(max_examples=300, deadline=None)
@given(_brackets())
def test_least_cost_and_its_differences_are_those_of_brute_force(
    bracket: tuple[list[PlayerState], set[frozenset[str]], int],
) -> None:
    players, pairable, spare = bracket
    floor = min(p.score for p in players)
    stays = {p.id for p in players if p.unplayed_point}

    def can_pair(a: PlayerState, b: PlayerState) -> bool:
        return frozenset((a.id, b.id)) in pairable

    def may_leave(p: PlayerState) -> bool:
        return p.id not in stays

    def cost(pairs: list[tuple[PlayerState, PlayerState]], left: tuple[PlayerState, ...]) -> int:
        return sum(b3_cost(a, b) for a, b in pairs) + sum(bye_cost(p, floor) for p in left)

    every = list(_pairings(players, spare, pairable, stays))
    for floaters in {tuple(sorted((p.score for p in left), reverse=True)) for _, left in every}:
        of_these = [
            (pairs, left)
            for pairs, left in every
            if tuple(sorted((p.score for p in left), reverse=True)) == floaters
        ]
        least = min(cost(pairs, left) for pairs, left in of_these)
        assert least_cost(players, floor, can_pair, may_leave, floaters=floaters) == least
        used = {
            abs(a.score - b.score)
            for pairs, left in of_these
            if cost(pairs, left) == least
            for a, b in pairs
        }
        got = used_differences(players, floor, can_pair, may_leave, [floaters], least)
        assert got == used
    # Scores nobody can leave: no pairing.
    impossible = (max(p.score for p in players) + 1,) * spare
    if spare:
        assert least_cost(players, floor, can_pair, may_leave, floaters=impossible) is None
