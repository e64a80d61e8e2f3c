"""Seeding procedures (rule text, "Seeding")."""

from __future__ import annotations

import pytest

from tcecd.errors import ConfigError
from tcecd.pairing.seeding import default_groups, group_order, round_to_even, seed_players


def _entries(n: int) -> list[tuple[str, str, int | None]]:
    # s1 is the strongest: rating 3000 - 10 * i, given in a scrambled order.
    entries = [(f"s{i}", f"Strength {i}", 3000 - 10 * i) for i in range(1, n + 1)]
    return entries[::2] + entries[1::2]


def test_group_seeding_11_players_4_groups() -> None:
    # The rule text's script: group sizes ceil(remaining / groups left):
    # ceil(11/4) = 3, ceil(8/3) = 3, ceil(5/2) = 3, then 2, so A = s1-s3,
    # B = s4-s6, C = s7-s9, D = s10-s11 (the stronger groups one larger; the
    # text's "A-C have 4 players and D has 3" would be 15 players, the script
    # and the "one more player" rule both give 3/3/3/2). Seeds: S1 = A1,
    # S2 = B1, S3 = C1, S4 = D1, S5 = A2, ... S8 = D2, S9 = A3, S10 = B3, S11 = C3.
    players = seed_players(_entries(11), "group", groups=4)
    assert [p.id for p in players] == [
        "s1", "s4", "s7", "s10", "s2", "s5", "s8", "s11", "s3", "s6", "s9",
    ]  # fmt: skip
    assert [p.seed for p in players] == list(range(1, 12))
    assert group_order(11, 4) == [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8]


def test_group_seeding_default_groups() -> None:
    # round_to_even(P / 7), at least 2: 14 -> 2, 28 -> 4, 50 -> 7.14 -> 8,
    # 11 -> 1.57 -> 2, 5 -> 0.71 -> 0 -> 2; exact halves go up: 21 -> 3 -> 4.
    assert [default_groups(p) for p in (14, 28, 50, 11, 5, 21)] == [2, 4, 8, 2, 2, 4]
    assert round_to_even(7.14) == 8
    # 14 players, 2 groups of 7: "group size 7 would pair 1st-8th, 2nd-9th":
    # seeds alternate A1 (s1), B1 (s8), A2 (s2), B2 (s9), ... so round 1
    # (seed2-seed1, ...) pairs s8-s1, s9-s2, ...
    players = seed_players(_entries(14), "group")
    assert [p.id for p in players[:4]] == ["s1", "s8", "s2", "s9"]


def test_group_seeding_without_ratings_uses_the_given_order() -> None:
    entries: list[tuple[str, str, int | None]] = [(f"e{i}", f"e{i}", None) for i in range(1, 7)]
    players = seed_players(entries, "group", groups=2)
    assert [p.id for p in players] == ["e1", "e4", "e2", "e5", "e3", "e6"]


def test_rating_seeding_ties_keep_the_given_order() -> None:
    entries: list[tuple[str, str, int | None]] = [
        ("a", "a", 3000), ("b", "b", 3100), ("c", "c", 3000), ("d", "d", 3200),
    ]  # fmt: skip
    assert [p.id for p in seed_players(entries, "rating")] == ["d", "b", "a", "c"]


def test_explicit_seeding_keeps_the_order() -> None:
    entries = _entries(5)
    players = seed_players(entries, "explicit")
    assert [p.id for p in players] == [e[0] for e in entries]
    assert players[0].rating == entries[0][2]


def test_random_seeding_replays_from_its_seed() -> None:
    entries = _entries(20)
    first = seed_players(entries, "random", rng_seed=42)
    assert first == seed_players(entries, "random", rng_seed=42)
    assert sorted(p.id for p in first) == sorted(e[0] for e in entries)
    assert [p.seed for p in first] == list(range(1, 21))
    assert [p.id for p in first] != [p.id for p in seed_players(entries, "random", rng_seed=43)]


@pytest.mark.parametrize(
    ("method", "kwargs", "message"),
    [
        ("group", {"groups": 3}, "even number of groups"),
        ("group", {"groups": 12}, "12 groups for only 11 players"),
        ("random", {}, "needs an RNG seed"),
        ("swiss", {}, "unknown seeding method: 'swiss'"),
        ("rating", {"groups": 2}, "only applies to group seeding"),
    ],
)
def test_seeding_errors(method: str, kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        seed_players(_entries(11), method, **kwargs)


def test_rating_seeding_needs_ratings() -> None:
    with pytest.raises(ConfigError, match="'b' has none"):
        seed_players([("a", "a", 3000), ("b", "b", None)], "rating")
