"""Audit of group seeding against the rule text's procedure and script."""

from __future__ import annotations

from tcecd.pairing.seeding import group_order, seed_players


def test_eleven_players_in_four_groups_follow_the_script() -> None:
    # The script sizes groups with ceil(remaining / groups_left):
    # ceil(11/4) = 3, ceil(8/3) = 3, ceil(5/2) = 3, ceil(2/1) = 2, so
    # A = {0 1 2}, B = {3 4 5}, C = {6 7 8}, D = {9 10} (0 = strongest).
    # (The prose example, "Groups A-C have 4 players and D has 3", adds up to
    # 15, not 11; the script is the consistent reading.)
    # Seeds: A1 B1 C1 D1 A2 B2 C2 D2 A3 B3 C3.
    assert group_order(11, 4) == [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8]


def test_group_seeding_by_rating_then_round_one() -> None:
    # Eight players, two groups of four by rating: A = r1..r4 (strongest),
    # B = r5..r8. Seeds: A1 B1 A2 B2 A3 B3 A4 B4 -> the first round pairs
    # seed2-seed1 = B1-A1, i.e. the 1st plays the 5th strongest, and so on
    # ("Group size 7 would pair 1st-8th, 2nd-9th": here size 4: 1st-5th).
    entries = [(f"r{i}", f"r{i}", 4000 - i) for i in (3, 8, 1, 6, 2, 7, 4, 5)]
    players = seed_players(entries, "group", groups=2)
    assert [p.id for p in players] == ["r1", "r5", "r2", "r6", "r3", "r7", "r4", "r8"]
    assert [p.seed for p in players] == list(range(1, 9))
