"""Section A of the Dubov text, worked by hand: ratings and the initial ranking
(A.1, A.2), colour preferences (A.5), ARO (A.6), MaxT (A.7), and what
forfeits, requested byes and double rounds leave in a player's record."""

from __future__ import annotations

import pytest

from tcecd.domain import Color
from tcecd.errors import PairingError
from tcecd.pairing.base import Player, RoundContext
from tcecd.pairing.dubov.facts import (
    Preference,
    Strength,
    aro,
    colour_preference,
    initial_ranking,
    max_upfloats,
    player_facts,
)
from tcecd.pairing.dubov.system import Dubov

from .helpers import field, game, pairs, rnd

W, B = Color.WHITE, Color.BLACK


@pytest.mark.parametrize(
    ("colours", "expected"),
    [
        # A.5.d: no game yet: a mild preference for black.
        ("", Preference(B, Strength.MILD)),
        # A.5.b: colour difference +1 -> strong black; -1 -> strong white.
        ("W", Preference(B, Strength.STRONG)),
        ("BWB", Preference(W, Strength.STRONG)),
        # A.5.c: difference 0: alternate with respect to the last game.
        ("WB", Preference(W, Strength.MILD)),
        ("BWBW", Preference(B, Strength.MILD)),
        # A.5.a: the same colour in the two latest games...
        ("WW", Preference(B, Strength.ABSOLUTE)),
        ("WBB", Preference(W, Strength.ABSOLUTE)),  # difference -1, but BB last
        ("BWW", Preference(B, Strength.ABSOLUTE)),
        # ... or a difference beyond +-1 (here +2, the last two differ).
        ("WWBW", Preference(B, Strength.ABSOLUTE)),
        ("BBWB", Preference(W, Strength.ABSOLUTE)),
    ],
)
def test_colour_preferences_a5(colours: str, expected: Preference) -> None:
    assert colour_preference([W if c == "W" else B for c in colours]) == expected


def test_aro_is_rounded_to_the_nearest_integer_halves_up_a6() -> None:
    assert aro([]) == 0  # "if a player has yet to play a game, his ARO is zero"
    assert aro([2000, 2001]) == 2001  # 2000.5 -> the higher
    assert aro([2000, 2000, 2001]) == 2000  # 2000.33
    assert aro([2000, 2001, 2001]) == 2001  # 2000.67


def test_max_upfloats_a7() -> None:
    # MaxT = 2 + [Rnds / 5], rounded downwards.
    assert max_upfloats(4) == 2
    assert max_upfloats(9) == 3
    assert max_upfloats(10) == 4
    assert max_upfloats(None) is None  # unknown length: nobody is a maximum upfloater


def test_initial_ranking_is_resorted_by_rating_before_round_4_a2() -> None:
    # Seeds (pairing numbers) were given as A, B, C, D; the ratings say otherwise.
    players = (
        Player("A", "A", 1, 2400),
        Player("B", "B", 2, 2500),
        Player("C", "C", 3, 2500, "GM"),
        Player("D", "D", 4, 2500),
    )
    # Rounds 1-4: C.04.2.B: rating, then title (C, a GM, before the untitled
    # B and D), then the seed order standing for the names.
    for round_number in (1, 4):
        assert [p.id for p in initial_ranking(players, round_number)] == ["C", "B", "D", "A"]
    # From round 5 the list is no longer re-sorted: the seed order stands.
    assert [p.id for p in initial_ranking(players, 5)] == ["A", "B", "C", "D"]
    # Round 1 is paired on the re-sorted list: G1 = {C, B} (first half),
    # S1 = C, B; T2 = D, A. E.0: C (number 1, odd) gets the initial colour
    # white; B (number 2, even) the other one.
    assert pairs(Dubov().pair(players, [], double=False)) == ["C-D", "A-B"]


def test_a_player_without_rating_is_an_error_a1() -> None:
    players = (Player("A", "A", 1, 2400), Player("B", "B", 2, None))
    with pytest.raises(PairingError, match=r"A\.1.*'B'"):
        Dubov().pair(players, [], double=False)


def test_forfeits_and_requested_byes_in_the_record() -> None:
    players = field([2500, 2400, 2300, 2200, 2100])
    history = [rnd(1, "A-B +-", "C-D 1-0", requested=["E"])]
    f = player_facts(players, history, double=False)
    # A won by forfeit: the point counts, but no colour, no ARO, no
    # encounter (C.1 lets A and B meet later); C.2: no pairing-allocated bye.
    assert (f["A"].score, f["A"].colours, f["A"].aro, f["A"].met) == (2, (), 0, frozenset())
    assert f["A"].bye_barred
    assert not f["B"].bye_barred
    assert f["A"].preference == Preference(B, Strength.MILD)  # A.5.d: no game played
    assert f["A"].games_played == 0
    # C played D over the board: white, ARO = D's rating, D met.
    assert (f["C"].colours, f["C"].aro, f["C"].met) == ((W,), 2200, frozenset("D"))
    # E's requested half-point bye: half a point, nothing else.
    assert (f["E"].score, f["E"].colours, f["E"].games_played) == (1, (), 0)


def test_upfloats_are_the_lower_scored_player_of_a_pair_a3() -> None:
    players = field([2500, 2400, 2300, 2200])
    history = [rnd(1, "A-C 1-0", "D-B 1/2-1/2"), rnd(2, "B-A 1-0", "C-D 1-0")]
    f = player_facts(players, history, double=False)
    # Round 2: B (1/2) met A (1): B upfloated; C (0) met D (1/2): C upfloated.
    assert (f["B"].upfloats, f["B"].upfloated_last_round) == (1, True)
    assert (f["C"].upfloats, f["C"].upfloated_last_round) == (1, True)
    assert (f["A"].upfloats, f["D"].upfloats) == (0, 0)


def test_double_round_is_one_encounter_with_the_first_games_colour() -> None:
    players = field([2500, 2400, 2300, 2200])
    # Round 1, double: first games A-C and D-B, then the reversed games.
    pairing = Dubov().pair(players, [], double=True, context=RoundContext())
    assert [(g.white, g.black, g.leg, g.pair_index) for g in pairing.games] == [
        ("A", "C", 1, 0),
        ("D", "B", 1, 1),
        ("C", "A", 2, 0),
        ("B", "D", 2, 1),
    ]
    history = [
        rnd(1, "A-C 1-0", "D-B 0-1", "C-A 1/2-1/2", "B-D 1/2-1/2"),
    ]
    f = player_facts(players, history, double=True)
    # Both games' points (A: 1.5 = 3 half-points) but one colour, the
    # first game's: A had white, so A.5.b gives A a strong wish for black.
    assert f["A"].score == 3
    assert f["A"].colours == (W,)
    assert f["A"].preference == Preference(B, Strength.STRONG)
    assert f["B"].colours == (B,)
    assert f["B"].met == frozenset("D")


def test_record_helper_reads_forfeits() -> None:
    assert not game("A-B -+").played
