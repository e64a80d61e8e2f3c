"""Sections B, C, D and E of the Dubov text, worked by hand.

The bracket tests build each player's section-A facts directly (score,
colours of the played games, ARO, opponents met, float history), so each
case shows one article at work; the whole-round tests go through
:class:`~tcecd.pairing.dubov.system.Dubov`. Scores are in points.
"""

from __future__ import annotations

import pytest

from tcecd.domain import Color
from tcecd.errors import PairingError
from tcecd.pairing.base import Bye, ByeKind, RoundContext
from tcecd.pairing.dubov.bracket import (
    FloatRules,
    _containers,
    _levels,
    _sets_in_container,
    choose_upfloaters,
    pair_bracket,
    shifter_order,
)
from tcecd.pairing.dubov.colours import white_of
from tcecd.pairing.dubov.facts import Facts
from tcecd.pairing.dubov.graph import LegalGraph
from tcecd.pairing.dubov.system import Dubov

from .helpers import facts, field, pairs, rnd

NOT_LAST = FloatRules(max_upfloats=3, last_round=False)


def ids(players: tuple[Facts, ...] | list[Facts]) -> list[str]:
    return [p.id for p in players]


def upfloaters(
    residents: list[Facts], pool: list[Facts], rules: FloatRules = NOT_LAST
) -> list[str]:
    graph = LegalGraph([*residents, *pool])
    return ids(choose_upfloaters(graph, residents, pool, rules))


# -- D.1: containers and sets ----------------------------------------------------


def test_d1_example_containers_in_c6_order() -> None:
    # D.1.b's example: #1-#3 have 3 points, #4 and #5 2.5, #6 1.5; two upfloaters.
    pool = [facts(str(i), i, s) for i, s in enumerate([3, 3, 3, 2.5, 2.5, 1.5], start=1)]
    levels = _levels(pool)
    order = [
        sorted(str(p.score / 2) for p in next(iter(_sets_in_container(levels, c))))
        for c in _containers(levels, 2)
    ]
    # C.6 sorts the containers: the lowest score as high as possible, then
    # the second lowest: {3,3}, {3,2.5}, {2.5,2.5}, {3,1.5}, {2.5,1.5}. (The
    # example lists {3,1.5} before {2.5,2.5} as it meets them, then says the
    # containers "are sorted along the lines described by criterion C.6".)
    assert order == [
        ["3.0", "3.0"],
        ["2.5", "3.0"],
        ["2.5", "2.5"],
        ["1.5", "3.0"],
        ["1.5", "2.5"],
    ]
    # Inside a container, sets go in lexicographic order of the sequence
    # numbers, as the example lists them: {#1,#4} {#1,#5} {#2,#4} ...
    second = _containers(levels, 2)[1]
    assert [ids(s) for s in _sets_in_container(levels, second)] == [
        ["1", "4"],
        ["1", "5"],
        ["2", "4"],
        ["2", "5"],
        ["3", "4"],
        ["3", "5"],
    ]


# -- B.1, B.2, C.4-C.10: choosing the upfloaters ------------------------------------


def test_c6_the_lowest_upfloater_score_as_high_as_possible() -> None:
    # X and Y (4 points) met: two upfloaters needed (B.1). Pool: P 3.5,
    # Q 3, R 2.5, S 2. Q-S and R-S met, so C.4 (the rest must still pair)
    # rules out {P,Q} (leaves R-S) and {P,R} (leaves Q-S). Left: {Q,R}
    # (lowest 2.5) and {P,S} (lowest 2). C.6 takes {Q,R}. (Reading the
    # containers highest score first, as py4swiss does, would give {P,S}:
    # the "C.6" difference of test_py4swiss.py.)
    x = facts("X", 1, 4, "WB", met="Y")
    y = facts("Y", 2, 4, "BW", met="X")
    pool = [
        facts("P", 3, 3.5, "WB"),
        facts("Q", 4, 3, "BW", met="S"),
        facts("R", 5, 2.5, "WB", met="S"),
        facts("S", 6, 2, "BW", met="QR"),
    ]
    assert upfloaters([x, y], pool) == ["Q", "R"]


def test_c6_before_c7() -> None:
    # X (3 points) wants black (colours WBW: difference +1). P (2 points)
    # also wants black; Q (1 point) wants white. C.6 (higher score) beats C.7
    # (colour preferences): P.
    x = facts("X", 1, 3, "WBW")
    pool = [facts("P", 2, 2, "WBW"), facts("Q", 3, 1, "BWB"), facts("R", 4, 0, "WBW")]
    assert upfloaters([x], pool) == ["P"]


def test_c7_within_a_container() -> None:
    # X wants black. P and Q have the same score; P (first in D.1 order)
    # wants black too, so one of X and P would not get his colour; Q wants
    # white: C.7 takes Q.
    x = facts("X", 1, 3, "WBW")
    pool = [facts("P", 2, 2, "WBW"), facts("Q", 3, 2, "BWB"), facts("R", 4, 1, "BWB")]
    assert upfloaters([x], pool) == ["Q"]


def test_c8_maximum_upfloaters_unless_last_round() -> None:
    # MaxT = 3 (A.7 with 9 or 10 rounds... here given). P has already been
    # upfloated 3 times: a maximum upfloater; Q once. C.8 takes Q, except in
    # the last round, where the D.1 order decides: P.
    x = facts("X", 1, 3, "WBW")
    pool = [
        facts("P", 2, 2, "BWB", upfloats=3),
        facts("Q", 3, 2, "BWB", upfloats=1),
        facts("R", 4, 1, "BWB"),
    ]
    assert upfloaters([x], pool) == ["Q"]
    assert upfloaters([x], pool, FloatRules(max_upfloats=3, last_round=True)) == ["P"]


def test_c9_fewer_upfloats_of_a_maximum_upfloater() -> None:
    # Both are maximum upfloaters (MaxT 3); Q has been upfloated fewer times.
    x = facts("X", 1, 3, "WBW")
    pool = [
        facts("P", 2, 2, "BWB", upfloats=4),
        facts("Q", 3, 2, "BWB", upfloats=3),
        facts("R", 4, 1, "BWB"),
    ]
    assert upfloaters([x], pool) == ["Q"]


def test_c10_not_upfloated_last_round_but_after_c7() -> None:
    x = facts("X", 1, 3, "WBW")  # wants black
    # Same colour wishes: C.10 takes Q, who did not upfloat last round.
    pool = [
        facts("P", 2, 2, "BWB", upfloated_last_round=True),
        facts("Q", 3, 2, "BWB"),
        facts("R", 4, 1, "BWB"),
    ]
    assert upfloaters([x], pool) == ["Q"]
    # P wants white, Q black: C.7 ranks above C.10: P.
    pool[1] = facts("Q", 3, 2, "WBW")
    assert upfloaters([x], pool) == ["P"]


def test_b1_as_many_upfloaters_as_needed() -> None:
    # X, Y, Z (2 points) all met each other: each needs an upfloater (B.1:
    # the minimum is 3). All wishes alike, so the first set in D.1 order.
    residents = [
        facts("X", 1, 2, "WB", met="YZ"),
        facts("Y", 2, 2, "WB", met="XZ"),
        facts("Z", 3, 2, "WB", met="XY"),
    ]
    pool = [facts(c, 4 + i, 1, "BW") for i, c in enumerate("PQRST")]
    assert upfloaters(residents, pool) == ["P", "Q", "R"]


def test_c3_two_absolute_preferences_for_the_same_colour_never_meet() -> None:
    # X must have white (colours BB); P must too: C.3 rules P out.
    x = facts("X", 1, 2, "BB")
    pool = [facts("P", 2, 1, "WBB"), facts("Q", 3, 1, "BWB"), facts("R", 4, 0, "WBW")]
    assert upfloaters([x], pool) == ["Q"]


# -- B.3-B.6, D.2, D.3: pairing a bracket -------------------------------------------


def test_d2_sequence_numbers_from_the_middle() -> None:
    # D.2.b's example: A..G (black seekers, sorted by initial ranking) get
    # #1 D, #2 C, #3 E, #4 B, #5 F, #6 A, #7 G.
    seekers = [facts(c, i, 1, "W") for i, c in enumerate("ABCDEFG", start=1)]
    assert ids(shifter_order(seekers)) == list("DCEBFAG")
    # White seekers are sorted by ascending ARO first (D.2.a).
    whites = [
        facts(c, i, 1, "B", aro=a)
        for i, (c, a) in enumerate(zip("PQR", [2300, 2100, 2200], strict=True))
    ]
    assert ids(shifter_order(whites)) == ["R", "Q", "P"]  # by ARO: Q, R, P; middle R first


def test_b5_s1_by_ascending_aro_b6_first_transposition() -> None:
    # B.3: G1 = the white seekers W1, W2; G2 = the black seekers B1, B2.
    # B.5: S1 sorts G1 by ascending ARO: W2 (2400) before W1 (2500), though
    # W1 is ranked higher. B.6: T2 = (B1, B2), the first transposition.
    bracket = [
        facts("B1", 1, 1, "W"),
        facts("W1", 2, 1, "B", aro=2500),
        facts("B2", 3, 1, "W"),
        facts("W2", 4, 1, "B", aro=2400),
    ]
    graph = LegalGraph(bracket)
    assert [(a.id, b.id) for a, b in pair_bracket(graph, bracket)] == [("W2", "B1"), ("W1", "B2")]
    # If W2 already met B1, the first legal transposition is (B2, B1).
    bracket[3] = facts("W2", 4, 1, "B", aro=2400, met=("B1",))
    bracket[0] = facts("B1", 1, 1, "W", met=("W2",))
    graph = LegalGraph(bracket)
    assert [(a.id, b.id) for a, b in pair_bracket(graph, bracket)] == [("W2", "B2"), ("W1", "B1")]


def test_b4_equalising_shift_takes_the_middle_aro_white_seeker() -> None:
    # Four white seekers (AROs 2100..2400), two black seekers. B.4: shift
    # (4 - 2) / 2 = 1 white seeker into G2, the first in D.2 order: sorted
    # by ARO w1..w4, #1 is w2 (the higher of the two in the middle).
    # Then S1 = (w1, w3, w4) by ARO; T2 = (w2, b1, b2) by initial ranking.
    bracket = [
        facts("w1", 1, 1, "B", aro=2100),
        facts("w2", 2, 1, "B", aro=2200),
        facts("w3", 3, 1, "B", aro=2300),
        facts("w4", 4, 1, "B", aro=2400),
        facts("b1", 5, 1, "W"),
        facts("b2", 6, 1, "W"),
    ]
    graph = LegalGraph(bracket)
    assert [(a.id, b.id) for a, b in pair_bracket(graph, bracket)] == [
        ("w1", "w2"),
        ("w3", "b1"),
        ("w4", "b2"),
    ]


def test_b4_unavoidable_pair_and_the_equalising_pool() -> None:
    # Round 8 of 11 players x 9 rounds (seed 9 of an earlier differential
    # run), the 4.5-point bracket with its three upfloaters, players named by
    # initial ranking (B = #2, C = #3, E = #5, F = #6, J = #10, K = #11).
    # White seekers: B (strong, ARO 2416), C (mild, 2418), E (absolute, 2354);
    # black seekers: F, J, K. E has met everyone but C, so E-C is forced: one
    # pair inside G1 is unavoidable (B.4, first step): shift one white
    # seeker to G2, the first set in D.2 order that still allows a legal
    # pairing: by ARO E, B, C, so #1 is B; but with B shifted E and C stay
    # together in G1, so the set {E} (#2). Then equalise: G2 has 4, G1 2;
    # one black seeker moves to G1: D.2 numbers the black seekers F, J, K
    # (by ranking) from the middle: J first, and J works. G1 = {C, B, J},
    # G2 = {F, K, E}. B.5: S1 = B (2416), C (2418), J (2467). B.6: T2 by
    # ranking (E, F, K): B-E met, so B-F; then C-E, J-K.
    # py4swiss numbers the whole larger subgroup {E, F, J, K} by ranking
    # and shifts F (the "D.2" difference of test_py4swiss.py): B-K, C-E, F-J.
    bracket = [
        facts("B", 2, 4.5, "BWBWBBW", aro=2416, met="CEJ"),
        facts("C", 3, 4.5, "WBWBWB", aro=2418, met="BF"),
        facts("E", 5, 3.5, "WBWWBB", aro=2354, met="BFKJ"),
        facts("F", 6, 4.5, "BWBWWBW", aro=2397, met="CEK"),
        facts("J", 10, 2, "BWBWBW", aro=2467, met="BE"),
        facts("K", 11, 4.5, "BWBWBW", aro=2414, met="EF"),
    ]
    graph = LegalGraph(bracket)
    assert [(a.id, b.id) for a, b in pair_bracket(graph, bracket)] == [
        ("B", "F"),
        ("C", "E"),
        ("J", "K"),
    ]


# -- E: colours -----------------------------------------------------------------------


def test_e0_initial_colour_by_the_higher_ranked_players_pairing_number() -> None:
    odd, below = facts("X", 3, 0), facts("Y", 6, 0)
    assert white_of(odd, below, Color.WHITE) is odd  # number 3 is odd: initial colour
    assert white_of(odd, below, Color.BLACK) is below
    even, lower = facts("X", 4, 0), facts("Y", 7, 0)
    assert white_of(even, lower, Color.WHITE) is lower  # number 4: the other colour
    # "Higher ranked" is more points first: Z (number 5, 1 point from a
    # requested bye) outranks Y (number 2, 0 points); 5 is odd.
    z, y = facts("Z", 5, 1), facts("Y", 2, 0)
    assert white_of(y, z, Color.WHITE) is z


def test_e1_e2_e3_e4() -> None:
    # E.1: different wishes are both granted.
    wants_white, wants_black = facts("X", 2, 1, "WB"), facts("Y", 1, 1, "BW")
    assert white_of(wants_white, wants_black, Color.WHITE) is wants_white
    # E.2: both want white; X's wish is strong (BWB: -1), Y's mild (WB).
    strong, mild = facts("X", 2, 1, "BWB"), facts("Y", 1, 1, "WB")
    assert white_of(mild, strong, Color.WHITE) is strong
    # E.3: both mildly want white (WBWB and BWWB); going back, the first
    # round with different colours is the third-last: X had B, Y had W, so
    # X gets white, although Y is ranked higher (E.4 would favour Y).
    x, y = facts("X", 2, 1, "WBWB"), facts("Y", 1, 1, "BWWB")
    assert white_of(x, y, Color.WHITE) is x
    # E.4: identical histories: the higher-ranked player's wish (white).
    x, y = facts("X", 2, 1, "WB"), facts("Y", 1, 1, "WB")
    assert white_of(x, y, Color.WHITE) is y


# -- Whole rounds: round 1, B.0, requested byes, impossible rounds --------------------


def test_round_one_first_half_against_second_half() -> None:
    players = field([2600, 2500, 2400, 2300, 2200, 2100])
    # B.3: nobody has played, G1 = A, B, C; S1 = A, B, C; T2 = D, E, F.
    # E.0 with white drawn: A (1, odd) white, B (2) black, C (3) white.
    assert pairs(Dubov().pair(players, [], double=False)) == ["A-D", "E-B", "C-F"]
    black_first = RoundContext(first_colour=Color.BLACK)
    assert pairs(Dubov().pair(players, [], double=False, context=black_first)) == [
        "D-A",
        "B-E",
        "F-C",
    ]


def test_b0_bye_to_the_player_who_played_more_games() -> None:
    players = field([2500, 2400, 2300, 2200, 2100])
    # Round 1: A won against E by forfeit (never played), B beat C, D had the bye.
    history = [rnd(1, "A-E +-", "B-C 1-0", bye="D")]
    # B.0.1 (C.2): A (forfeit win) and D (bye) may not have it. B.0.3: the
    # lowest score, 0: C and E. B.0.4: C played a game, E none: C, although
    # E is ranked lower (B.0.5). py4swiss gives it to E (the "B.0.4"
    # difference of test_py4swiss.py).
    pairing = Dubov().pair(players, history, double=False)
    assert pairing.bye == "C"
    # The rest: A, B, D (1 point) need one upfloater: E. All four wish for
    # black (B strongly); G1 (white seekers) is empty, so B.4 shifts two
    # black seekers, D.2 (by ranking A, B, D, E, from the middle): B, D.
    # S1 = D (ARO 0), B (ARO 2300); T2 = A, E: D-A, B-E. A and E can meet:
    # the forfeit was no encounter. Colours: A and D have not played (E.0:
    # A, number 1, white); B's strong wish for black beats E's mild (E.2).
    assert pairs(pairing) == ["A-D", "E-B"]


def test_b0_bye_must_leave_a_complete_pairing() -> None:
    players = field([2500, 2400, 2300, 2200, 2100])
    history = [rnd(1, "A-B 1/2-1/2", "E-C 0-1", bye="D")]
    context = RoundContext(requested_byes=(Bye("C", ByeKind.HALF), Bye("D", ByeKind.ZERO)))
    # Playing: A, B (1/2) and E (0). E has the lowest score, but without E
    # only A and B are left, who met (B.0.2): not E. Then A and B: same
    # score and games; B.0.5: B, ranked lower.
    pairing = Dubov().pair(players, history, double=False, context=context)
    assert pairing.bye == "B"
    # A and E both had white and wish for black (strong); E.3 finds no round
    # where they differed; E.4: A (more points) gets his wish, black.
    assert pairs(pairing) == ["E-A"]
    assert pairing.requested_byes == context.requested_byes


def test_requested_byes_are_not_paired_and_give_no_pairing_bye() -> None:
    players = field([2500, 2400, 2300, 2200, 2100])
    context = RoundContext(requested_byes=(Bye("E", ByeKind.HALF),))
    pairing = Dubov().pair(players, [], double=False, context=context)
    assert pairing.bye is None
    assert pairs(pairing) == ["A-C", "D-B"]


def test_c2_no_second_pairing_bye() -> None:
    players = field([2500, 2400, 2300])
    history = [rnd(1, "A-B 1-0", bye="C"), rnd(2, "C-A 0-1", bye="B")]
    # B and C had the bye; only A may have it; B-C have not met.
    pairing = Dubov().pair(players, history, double=False)
    assert pairing.bye == "A"
    assert pairs(pairing) in (["B-C"], ["C-B"])
    history.append(rnd(3, "B-C 1-0", bye="A"))
    with pytest.raises(PairingError, match=r"B\.0"):
        Dubov().pair(players, history, double=False)


def test_a8_incomplete_round_is_an_error() -> None:
    players = field([2500, 2400])
    with pytest.raises(PairingError, match=r"A\.8"):
        Dubov().pair(players, [rnd(1, "A-B 1-0")], double=False)
