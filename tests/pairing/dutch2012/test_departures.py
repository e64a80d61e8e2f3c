"""Rounds where JaVaFo 1.4 departs from the 2012 text and tcecd follows the text.

Each case is a round of a random tournament (oracle.py's DEPARTURES),
kept as a TRF in ``data/`` with JaVaFo 1.4's bye codes; tcecd's pairing is
worked out by hand from the article that decides it (docs/pairing.md,
"Dutch 2012", departures).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tcecd.errors import PairingError
from tcecd.pairing.dutch2012.system import Dutch2012
from tcecd.trf.reader import parse_trf
from tests.pairing.dutch2012.oracle import TEXT_PAIRINGS, tcecd_pairing

DATA = Path(__file__).parent / "data"


def test_b1b_no_bye_for_a_player_who_had_a_point_without_playing() -> None:
    """Seed 66, round 5 of 5. Players 1 and 6 are absent (``0000 - -`` in the
    round's column), so five play and one must be left without an opponent
    (A.5). Every one of them already received a point or half point without
    playing: 7 the pairing-allocated bye of round 1 (``0000 - +``), 4 that of
    round 2, 3 that of round 3, 2 that of round 4, and 5 a half-point bye in
    round 1 (``0000 - =``). B.1b: such a player "shall not receive a bye", and
    B.1 is absolute ("these may not be violated"): no pairing exists.
    JaVaFo 1.4 pairs 3-2, 7-4 and gives 5 (the only one whose point without
    playing was a half point) a second bye."""
    path = DATA / "b1b_every_player_had_a_bye.trf"
    event = parse_trf(path.read_text(), str(path))
    with pytest.raises(PairingError, match="round 5: no pairing satisfies the absolute criteria"):
        Dutch2012().pair(event.players, event.rounds, double=False, context=event.context)


def test_c10_float_criteria_are_dropped_before_x_is_raised() -> None:
    """Seed 45, round 7 of 9 (odd: A.7.d applies); player 13 absent, 12 play.

    Scores: 1 5.5; 3 4.5; 2, 5 4; 4, 6, 7, 8 3; 9 2.5; 10 2; 11 1.5; 12 0.
    1 meets nobody above 8 (B.1a), 3 neither 2 nor 5: 1 and 3 move down (C.1),
    2-5 is the 4-point bracket's pair, and 1 and 3 come down into the 3-point
    bracket {4, 6, 7, 8} (two of six: heterogeneous, A.3). Below it 9, 10, 11
    and 12 have all met one another: the lowest brackets need players from
    above, and C.13 joins them upwards until the 3-point bracket is the
    penultimate one, asked for "another pairing ... which will allow a
    pairing in the lowest score bracket". There 12 and 10 can only meet 1, 3
    or 8 (1 and 8 only if 3 stays), 11 only 1, 3, 4 or 6, 9 only 1, 4, 7 or 8:
    the bracket must move 1 and 8 down and keep at most one pair. P1 goes down
    (C.14.b1, the remainder was reached with 1-8, 3-6, 4-7) to one pair with
    one moved-down player (M1 = 1), and with it X1: 1 at P0 = 3 (B = 4: 1, 4,
    6, 8 want black; W = 2: 3, 7; X1 = P0 - W), 0 from P1 = 2 on (C.14.a:
    "as long as X1 is greater than zero, decrease X1 by 1"). S1 = {1} gives
    only 1-8; S1 = {3} (D.3) gives 3-6 or 3-7:

    * 3-6 (3 mild white, 6 absolute black: both colours granted) moves 1, 4,
      7, 8 down. 6 upfloated in rounds 6 and 5 (B.5 and B.6 for upfloaters),
      7 downfloated in round 6 (B.5 for downfloaters), 4 in round 5 (B.6).
    * 3-7 (both mild white: X = 1) moves 1, 4, 6, 8 down; 4 breaks B.6 for
      downfloaters.

    C.10 drops B.6 and B.5 for upfloaters (a, b), then B.6 and B.5 for
    downfloaters (c, d), each for one pair or player only, and only then
    raises X (e: "If X < P1, increase X by 1 and restart from C.3.e", every
    float criterion back in force). So with X = 0 the float criteria are
    dropped and 3-6 is the bracket's pairing; 3-7 would need X = 1. The
    lowest bracket then has 1, 4, 7, 8 with 9, 10, 11, 12: 11 must meet 4,
    9 then 7, and 10 and 12 share 1 and 8: 1-10, 8-12 (score differences 3.5
    and 3, B.3) rather than 1-12, 8-10 (5.5 and 1). With E's colours:
    10-1, 3-6, 2-5, 7-9, 11-4, 8-12. JaVaFo 1.4 pairs 7-3, 9-4, 11-6 instead:
    it accepts the colour failure first. (Dropping each C.10 step on its own,
    never B.5 and B.6 together, would give 3-7 here, and changes 276 of the
    recorded rounds: JaVaFo 1.4 does combine them elsewhere.)
    """
    path = DATA / "c10_floats_dropped_before_x.trf"
    event = parse_trf(path.read_text(), str(path))
    got, pairing = tcecd_pairing(event)
    assert pairing is not None
    pairs = {(p.first, p.second) for p in pairing.pairs}  # white first
    assert ("3", "6") in pairs
    assert ("7", "3") not in pairs
    assert got == TEXT_PAIRINGS[45, 7]


def _sample_round(
    key: str, *, forecast: bool = False
) -> tuple[str, str, set[frozenset[str]], frozenset[str]]:
    """A round of the C.13 sample (or of the ``dutch9`` forecast): tcecd's
    pairing (``-p`` text), JaVaFo 1.4's, and tcecd's pairs and byes."""
    from tests.pairing.dutch2012 import record_c13_sample, record_forecast
    from tests.pairing.dutch2012.record_forecast import round_key

    rounds = record_forecast.load() if forecast else record_c13_sample.load()
    (recorded,) = [r for r in rounds if round_key(r["trf"]) == key]
    got, pairing = tcecd_pairing(parse_trf(recorded["trf"], f"c13 sample {key}"))
    assert pairing is not None
    pairs = {frozenset((p.first, p.second)) for p in pairing.pairs}
    return got, recorded["javafo"], pairs, pairing.byes


def test_c8_other_sets_of_moved_down_players_before_x_793e3eceb28d() -> None:
    """C.13 sample round 793e3eceb28d: round 6 (even) of 9, eleven players.

    Scores: 2 4.5; 1, 3, 6 3.5; 4, 5 3; 7, 8, 9 2; 10, 11 1.5. Players 7 to 11
    each had a pairing-allocated bye (B.1b): the bye goes to one of 1 to 6.
    2 moves down into {1, 3, 6} and meets 6 (the only one he has not met);
    1-3. 4 and 5 have met: both move down (C.1) into {7, 8, 9} (two of five:
    heterogeneous, A.3). 4 has met 7 and 9, so M1 = 2 gives 4-8 with 5-7 or
    5-9, and 9 or 7 moves down to {10, 11}, where nobody may have the bye.
    C.13 asks this bracket for another pairing: the lowest needs 4 or 5.
    Colours: 4 strong white, 5 absolute black, 7, 8 and 9 mild white (A.8:
    W = 1, w = 3, B = 1, X1 = P0 - B = 1). Floats: 7 downfloated in rounds 5
    and 4 (the bye), 8 in round 5 (the bye) and upfloated in round 4, 9
    downfloated in round 4.

    * P1 kept at 2, M1 lowered to 1 (C.14.b2): S1 = {4} gives 4-8 (both
      white: X), then 7-9 (both white) moving 5 down: X = 2, and B.6 for the
      upfloater 8. D.3's next set S1 = {5} gives 5-7 and 8-9 moving 4 down:
      X = 1, nothing else broken. C.8.b tries it before C.10 raises X.
    * P1 lowered to 1 (C.14.b1, "reduce P1, X1": X1 = 0): S1 = {4} gives
      only 4-8 (X = 1), moving 5, 7, 9 down; S1 = {5} gives 5-7 (X = 0),
      moving 4, 8, 9 down (B.5 for downfloaters by 8, B.6 by 9), which C.10.c-d
      allow before C.10.e raises X.

    Either way the pairing is 5-7, 8-9 and the bye to 4 (the lowest bracket
    {4, 8, 9, 10, 11}: 8-9, 10-11; 4 has met 9, 10 and 11). With E's colours
    (7-5: 5's absolute black; 9-8 and 11-10 by E.3; 2-6 by E.4): 2-6, 3-1,
    7-5, 9-8, 11-10, bye 4. JaVaFo 1.4 pairs 4-8, 7-9 and gives 5 the bye:
    two colour failures where the text's pairing has one.
    """
    got, javafo, pairs, byes = _sample_round("793e3eceb28d")
    assert {frozenset(("5", "7")), frozenset(("8", "9"))} <= pairs
    assert frozenset(("4", "8")) not in pairs
    assert byes == frozenset({"4"})
    assert got == "6\n2 6\n3 1\n7 5\n9 8\n11 10\n4 0\n"
    assert javafo == "6\n2 6\n3 1\n4 8\n7 9\n11 10\n5 0\n"


def test_c8_other_sets_of_moved_down_players_before_x_e0897a5e90a7() -> None:
    """C.13 sample round e0897a5e90a7: round 6 (even) of 9, eleven players.

    Scores: 1 5; 2, 3, 4, 5, 8 3; 6, 9, 10 2.5; 7 1.5; 11 1. Players 6, 7, 9,
    10 and 11 each had a pairing-allocated bye. Above 2.5 points both programs
    pair 5-1 and 2-8 (3 has met 2, 4 and 8, and 5 has met 2, 4 and 8, so one
    of them moves on) and move 3 and 4 (who have met) down into {6, 9, 10}
    (two of five: heterogeneous, A.3); what follows does not change that. 3 has met
    6; 4 has met 9 and 10: M1 = 2 gives 4-6 with 3-9 or 3-10, moving 10 or 9
    down, who cannot be paired below ({7} then {11}: C.13 joins them, and
    nobody there may have the bye). C.13 asks this bracket for another
    pairing: the lowest needs 3 or 4 for the bye. Colours: 3 strong black, 4
    strong white, 6, 9 and 10 mild black (A.8: B = 1, b = 3, W = 1, X1 = P0 -
    W = 1; Z1 = 0). Floats: 6 and 9 downfloated in round 5 (6: the bye), 9
    upfloated in round 4.

    * P1 kept at 2, M1 lowered to 1 (C.14.b2): S1 = {3} gives 3-9 (both
      black: X), then 6-10 (both black) moving 4 down: X = 2, and B.6 for the
      upfloater 9. D.3's next set S1 = {4} gives 4-6 and 9-10 moving 3 down:
      X = 1. C.8.b tries it before C.10 raises X.
    * P1 lowered to 1 (C.14.b1, X1 = 0): S1 = {3} gives 3-9 or 3-10 (X = 1);
      S1 = {4} gives 4-6 (X = 0) moving 3, 9, 10 down (B.5 for downfloaters by
      9), which C.10.d allows before C.10.e raises X.

    Either way the pairing is 4-6, 9-10 and the bye to 3 (the joined lowest
    bracket {3, 9, 10, 7, 11}: 9 has met 7 and 11). With E's colours: 5-1
    (E.4), 2-8, 4-6, 9-10 (E.3), 7-11 (E.4), bye 3. JaVaFo 1.4 pairs 3-9,
    6-10 and gives 4 the bye: two colour failures where the text's pairing
    has one.
    """
    got, javafo, pairs, byes = _sample_round("e0897a5e90a7")
    assert {frozenset(("4", "6")), frozenset(("9", "10"))} <= pairs
    assert frozenset(("3", "9")) not in pairs
    assert byes == frozenset({"3"})
    assert got == "6\n5 1\n2 8\n4 6\n9 10\n7 11\n3 0\n"
    assert javafo == "6\n5 1\n2 8\n9 3\n10 6\n7 11\n4 0\n"


def test_c13_lowest_bracket_tries_d3_sets_before_the_penultimate_3ace259062ad() -> None:
    """The ``dutch9`` forecast round 3ace259062ad: round 7 (the last) of 7,
    nine players.

    Scores: 4 5.5; 1 5; 3, 6, 8, 9 3; 2, 5, 7 2.5. Players 2, 3, 5, 7, 8 and 9
    each had a pairing-allocated bye (B.1b): the bye goes to 1, 4 or 6. 4 has
    met 1, 3, 6, 8 and 9: C.1 moves him on through the 5- and 3-point
    brackets into {2, 5, 7}. 1 moves down into {3, 6, 8, 9} and can meet only
    3 (1-3); the remainder pairs 6-8 and moves 9 down (8-9 would give two
    black preferences, 8 strong and 9 absolute: X1 = 0 there, and 9's
    downfloat in round 6 is dropped first, C.10.d before C.10.e).

    The lowest bracket is {2, 5, 7} with 4 and 9 moved down (two of five:
    heterogeneous, A.3), and only 4 may have the bye. C.13: "try to reduce
    the number of pairable moved-down players (M1), as shown in C.14.b2";
    only otherwise backtrack to the penultimate bracket. With M1 = 2 both 4
    and 9 are paired and the bye falls to 2, 5 or 7. C.14.b2 lowers M1 to 1
    and restarts from C.3.a: S1 = {4} (C.4, the highest) gives 4-5 or 4-7 and
    again a bye for 2, 5, 7 or 9; C.8.b then tries D.3's next set, S1 = {9}
    (S2: 4, 2, 5, 7; 9 has met 4 and 5). 9-2 leaves 4, 5, 7, where 5 and 7
    have met and 4 with either leaves the other the bye; 9-7 leaves 4, 2, 5,
    which pairs 2-5 (4-5 would leave 2 the bye; 4 has met 2), 4 the bye. So
    the penultimate bracket is never asked. With E's colours (3, 6 and 7
    absolute white, 5 strong white against 2's absolute black): 3-1, 6-8,
    7-9, 5-2, bye 4.
    JaVaFo 1.4 asks the penultimate bracket first (1-3, 8-9, moving 6 down:
    7-4, 5-2 and the bye to 6). The C.13 sample's round a9236b415e37, where
    JaVaFo 1.4 takes the lowest bracket's next set before asking, agrees
    with tcecd.
    """
    got, javafo, pairs, byes = _sample_round("3ace259062ad", forecast=True)
    assert {frozenset(("7", "9")), frozenset(("2", "5"))} <= pairs
    assert byes == frozenset({"4"})
    assert got == "5\n3 1\n6 8\n7 9\n5 2\n4 0\n"
    assert javafo == "5\n7 4\n3 1\n8 9\n5 2\n6 0\n"
