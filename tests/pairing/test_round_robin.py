"""The Berger-table round-robin (tcecd/pairing/round_robin.py).

The tables below are copied by hand from FIDE Handbook C.05, Annex 1 ("Berger
Tables for Round-Robin Tournaments"), white first on every board, boards in the
published order. They are the check on the construction rule the module uses
(round 1: 1-n, 2-(n-1), ...; then every number but n advances by n/2 modulo
n-1, and n's board reverses its colours).
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from tcecd.errors import PairingError
from tcecd.pairing.base import Bye, ByeKind, RoundContext, RoundPairing, RoundRecord
from tcecd.pairing.registry import get_system
from tcecd.pairing.round_robin import RoundRobin, berger_round

from .helpers import field, finish

FIDE_4 = [
    "1-4 2-3",
    "4-3 1-2",
    "2-4 3-1",
]
FIDE_6 = [
    "1-6 2-5 3-4",
    "6-4 5-3 1-2",
    "2-6 3-1 4-5",
    "6-5 1-4 2-3",
    "3-6 4-2 5-1",
]
FIDE_8 = [
    "1-8 2-7 3-6 4-5",
    "8-5 6-4 7-3 1-2",
    "2-8 3-1 4-7 5-6",
    "8-6 7-5 1-4 2-3",
    "3-8 4-2 5-1 6-7",
    "8-7 1-6 2-5 3-4",
    "4-8 5-3 6-2 7-1",
]


def _parse(row: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in (board.split("-") for board in row.split())]


@pytest.mark.parametrize(("n", "table"), [(4, FIDE_4), (6, FIDE_6), (8, FIDE_8)])
def test_construction_reproduces_the_published_tables(n: int, table: list[str]) -> None:
    for r, row in enumerate(table, start=1):
        assert berger_round(n, r) == _parse(row), f"round {r}"


def _play(players: int, rounds: int, *, double: bool = False) -> list[RoundPairing]:
    """Pair and record ``rounds`` rounds (all draws)."""
    system = RoundRobin()
    people = field(players)
    history: list[RoundRecord] = []
    out = []
    for _ in range(rounds):
        pairing = system.pair(people, history, double=double)
        history.append(finish(pairing, ["1/2-1/2"] * len(pairing.games)))
        out.append(pairing)
    return out


def _seed(pid: str) -> int:
    return int(pid[1:])


def test_eight_players_pair_exactly_as_the_table() -> None:
    rounds = _play(8, 7)
    for pairing, row in zip(rounds, FIDE_8, strict=True):
        assert [(_seed(p.first), _seed(p.second)) for p in pairing.pairs] == _parse(row)
        assert pairing.bye is None


@pytest.mark.parametrize("players", [2, 3, 4, 5, 7, 10, 11, 12])
def test_every_pair_meets_exactly_once_per_cycle(players: int) -> None:
    cycle = RoundRobin().rounds_for(players)
    assert cycle == (players - 1 if players % 2 == 0 else players)
    met = Counter(
        frozenset((p.first, p.second)) for pairing in _play(players, cycle) for p in pairing.pairs
    )
    everyone = {frozenset(pair) for pair in itertools.combinations(field(players), 2)}
    assert set(met) == {frozenset(p.id for p in pair) for pair in everyone}
    assert set(met.values()) == {1}


@pytest.mark.parametrize("n", [4, 6, 8, 10, 12])
def test_colours_are_as_balanced_as_the_tables_give(n: int) -> None:
    # In a Berger table of n (even) players everybody plays n-1 games, n/2 with
    # one colour and n/2 - 1 with the other; half the field has the extra white.
    whites = Counter(p.first for pairing in _play(n, n - 1) for p in pairing.pairs)
    counts = sorted(whites[f"P{i}"] for i in range(1, n + 1))
    assert counts == [n // 2 - 1] * (n // 2) + [n // 2] * (n // 2)


@pytest.mark.parametrize("players", [3, 5, 7, 9])
def test_odd_field_byes_rotate_through_the_players_who_meet_the_dummy(players: int) -> None:
    rounds = _play(players, players)
    # The table of players + 1: the bye goes to whoever meets the dummy number.
    for r, pairing in enumerate(rounds, start=1):
        (dummy_board,) = [b for b in berger_round(players + 1, r) if players + 1 in b]
        expected = dummy_board[0] if dummy_board[1] == players + 1 else dummy_board[1]
        assert pairing.bye == f"P{expected}"
    assert sorted(p.bye for p in rounds if p.bye) == sorted(f"P{i}" for i in range(1, players + 1))


def test_five_players_hand_checked() -> None:
    # The 6-table with number 6 as the dummy: round 1 1-6 (P1 bye), 2-5, 3-4;
    # round 2 6-4 (P4 bye), 5-3, 1-2; round 3 2-6 (P2 bye), 3-1, 4-5.
    rounds = _play(5, 3)
    assert [(r.bye, [(p.first, p.second) for p in r.pairs]) for r in rounds] == [
        ("P1", [("P2", "P5"), ("P3", "P4")]),
        ("P4", [("P5", "P3"), ("P1", "P2")]),
        ("P2", [("P3", "P1"), ("P4", "P5")]),
    ]


def test_second_cycle_reverses_the_colours() -> None:
    rounds = _play(6, 10)
    for first, second in zip(rounds[:5], rounds[5:], strict=True):
        assert [(p.second, p.first) for p in first.pairs] == [
            (p.first, p.second) for p in second.pairs
        ]
    # Over the two cycles every pair played once with each colour.
    played = Counter((p.first, p.second) for r in rounds for p in r.pairs)
    assert set(played.values()) == {1}
    assert len(played) == 6 * 5


def test_double_rounds_play_each_pair_twice_with_colours_reversed() -> None:
    (pairing,) = _play(4, 1, double=True)
    assert [(g.white, g.black, g.leg, g.pair_index) for g in pairing.games] == [
        ("P1", "P4", 1, 0),
        ("P2", "P3", 1, 1),
        ("P4", "P1", 2, 0),
        ("P3", "P2", 2, 1),
    ]
    assert [g.number for g in pairing.games] == [1, 2, 3, 4]


def test_requested_byes_are_refused() -> None:
    context = RoundContext(requested_byes=(Bye("P2", ByeKind.HALF),))
    with pytest.raises(
        PairingError, match=r"round 1: a round-robin has no requested byes \('P2'\)"
    ):
        RoundRobin().pair(field(4), [], double=False, context=context)


def test_total_rounds_must_be_whole_cycles() -> None:
    system = RoundRobin()
    system.pair(field(4), [], double=False, context=RoundContext(total_rounds=6))
    with pytest.raises(PairingError, match="whole cycles of 3 rounds; 4 rounds"):
        system.pair(field(4), [], double=False, context=RoundContext(total_rounds=4))


def test_pairing_numbers_must_be_one_to_p() -> None:
    from tcecd.pairing.base import Player

    players = (Player("A", "A", 1), Player("B", "B", 3))
    with pytest.raises(PairingError, match=r"must be 1\.\.2, got \[1, 3\]"):
        RoundRobin().pair(players, [], double=False)


def test_registered() -> None:
    system = get_system("round-robin")
    assert isinstance(system, RoundRobin)
    assert system.rounds_for(9) == 9
    assert system.rounds_for(10) == 9
