"""Hand-worked cases of the Dutch rules (C.04.3, 2017), reasoning in each test."""

from __future__ import annotations

from tcecd.domain import Color, Result
from tcecd.pairing.base import Bye, ByeKind, PlayedGame, Player, RoundContext, RoundRecord
from tcecd.pairing.dutch.colours import Strength, allocate, preference
from tcecd.pairing.dutch.state import PlayerState
from tcecd.pairing.dutch.system import Dutch2017

W, B = Color.WHITE, Color.BLACK


def players(n: int) -> list[Player]:
    return [Player(f"p{k}", f"P{k}", k) for k in range(1, n + 1)]


def boards(
    n: int, history: list[RoundRecord], **context: object
) -> tuple[list[tuple[str, str]], str | None]:
    ctx = RoundContext(**context)  # type: ignore[arg-type]
    pairing = Dutch2017().pair(players(n), history, double=False, context=ctx)
    return [(p.first, p.second) for p in pairing.pairs], pairing.bye


def state(
    seed: int, colours: tuple[Color | None, ...], score: int = 0, top: bool = False
) -> PlayerState:
    return PlayerState(
        id=f"p{seed}",
        seed=seed,
        score=score,
        colours=colours,
        floats=(None,) * len(colours),
        opponents=frozenset(),
        pab_allowed=True,
        topscorer=top,
    )


def test_round_one_s1_against_s2_and_e5_alternates_by_pairing_number() -> None:
    # One homogeneous bracket of 4: S1 = {1, 2}, S2 = {3, 4}; the first
    # candidate 1-3, 2-4 is perfect (B.4). Nobody has a preference, so E.5:
    # 1 (odd) gets the initial colour, 2 (even) the other one.
    assert boards(4, []) == ([("p1", "p3"), ("p4", "p2")], None)
    assert boards(4, [], first_colour=B) == ([("p3", "p1"), ("p2", "p4")], None)


def test_round_one_odd_field_lowest_player_gets_the_bye() -> None:
    # 5 players: MaxPairs 2, S1 = {1, 2}, S2 = {3, 4, 5}. The first candidate
    # pairs 1-3 and 2-4 and leaves 5, the last BSN of S2, as the downfloater
    # of the last bracket: the pairing-allocated bye (A.5, A.9 note).
    assert boards(5, []) == ([("p1", "p3"), ("p4", "p2")], "p5")


def test_absent_players_are_left_out_and_the_last_bracket_gets_the_bye() -> None:
    # Round 1: 1-2 (1 wins), 3-4 (draw), 5 the bye. In round 2, 2 and 4 are
    # absent (requested zero-point byes): 1 and 5 on 1 point, 3 on 0.5 --
    # three players. Bracket 1.0 {1, 5}: 1-5 is its pair (they never met),
    # and 3, alone in the last bracket, gets the pairing-allocated bye (it
    # never had one, C.2; 5, who had, is paired).
    r1 = RoundRecord(
        1,
        "p5",
        (),
        (PlayedGame("p1", "p2", Result.WHITE_WINS), PlayedGame("p3", "p4", Result.DRAW)),
    )
    absent = (Bye("p2", ByeKind.ZERO), Bye("p4", ByeKind.ZERO))
    pairs, bye = boards(5, [r1], requested_byes=absent)
    # Colours: 1 played white (mild preference for black), 5 none: E.1.
    assert (pairs, bye) == ([("p5", "p1")], "p3")


def test_bracket_with_moved_down_player_and_c10_floater_choice() -> None:
    # Round 1: 1-3 (1 white wins), 2-4 (2 white wins), 5 the bye.
    # Round 2 scores: 1, 2, 5 on 1 point; 3, 4 on 0.
    # Bracket 1.0 {1, 2, 5}: MaxPairs 1, S1 = {1}, S2 = {2, 5}. The first
    # candidate 1-2 has both players preferring black (mild, after white):
    # one of them does not get it (C.10). The transposition 1-5 grants both
    # (5 played no game, A.6.d), with equal C.5-C.7 (one pair, one
    # downfloater of the same score, and the following bracket gets one pair
    # and a bye either way). So 1-5; 2 floats down.
    # Last bracket {2 | 3, 4}: 2 met 4, so the MDP-pairing is 2-3 and 4 is left
    # for the bye (never had one: C.2 allows it).
    # Colours: 1-5: E.1, 1 black, 5 white. 2-3: 2 prefers black, 3 (black in
    # round 1) white: E.1. Boards: (5, 1) has the higher sum of scores.
    r1 = RoundRecord(
        1,
        "p5",
        (),
        (PlayedGame("p1", "p3", Result.WHITE_WINS), PlayedGame("p2", "p4", Result.WHITE_WINS)),
    )
    assert boards(5, [r1]) == ([("p5", "p1"), ("p3", "p2")], "p4")


def test_d1_transposition_comes_before_an_exchange_when_criteria_tie() -> None:
    # Round 1 (7 players): 1-5 draw, 2-6 (2 wins), 3-7 (3 wins), 4 the bye
    # (a bye is a downfloat, A.4.b). Round 2: 2, 3, 4 on 1 point; 1, 5 on
    # 0.5; 6, 7 on 0. Bracket 1.0 {2, 3, 4}: one pair, one downfloater.
    # Colours: 2 and 3 played white (both prefer black), 4 none. Candidates:
    # 2-3 (4 floats) breaks a preference (C.10); 2-4 (3 floats) and 3-4
    # (2 floats) grant all. 4 would float again after its bye (C.12), but it
    # is paired in both of those. C.12-C.19 do not separate 2-4 from 3-4 (2
    # and 3 had no float), so the D rules decide: S1 = {2}, S2 = {3, 4}: the
    # transposition 2-4 comes before the exchange that puts 3 in S1. 3 floats.
    r1 = RoundRecord(
        1,
        "p4",
        (),
        (
            PlayedGame("p1", "p5", Result.DRAW),
            PlayedGame("p2", "p6", Result.WHITE_WINS),
            PlayedGame("p3", "p7", Result.WHITE_WINS),
        ),
    )
    pairs, _bye = boards(7, [r1])
    assert ("p4", "p2") in pairs
    assert all("p3" not in pair or "p4" not in pair for pair in pairs)


def test_e1_grant_both_preferences() -> None:
    a, b = state(2, (B,)), state(1, (W,))
    assert allocate(a, preference(a), b, preference(b), W) is W


def test_e2_grant_the_stronger_preference() -> None:
    # a: colour difference -1 (strong white); b: 0 after black (mild white).
    a, b = state(2, (B, W, B)), state(1, (W, B))
    assert preference(a).strength is Strength.STRONG
    assert preference(b).strength is Strength.MILD
    assert allocate(a, preference(a), b, preference(b), W) is W


def test_e2_both_absolute_topscorers_the_wider_colour_difference() -> None:
    a, b = state(1, (B, B), top=True), state(2, (B, W, B, B, B), top=True)
    assert preference(a).absolute
    assert preference(b).absolute
    # a: difference -2, b: -3: b gets white.
    assert allocate(a, preference(a), b, preference(b), W) is B


def test_e3_alternate_to_the_last_round_with_different_colours() -> None:
    # Both mild white (difference 0, last game black). Backwards: black/black,
    # white/white, then a white, b black: a now gets black, b white, although
    # E.4 would give the higher ranked a its preference (white).
    a = state(1, (B, W, W, B), score=4)
    b = state(2, (W, B, W, B), score=4)
    assert preference(a).colour is W
    assert preference(b).colour is W
    assert allocate(a, preference(a), b, preference(b), W) is B


def test_e3_skips_rounds_without_a_game() -> None:
    # C.04.2.D.5: a round a player did not play is left out: a's games are
    # W, B and b's W, B (with a bye in between): no round differs -> E.4.
    a = state(1, (W, None, B), score=3)
    b = state(2, (W, B, None), score=2)
    assert allocate(a, preference(a), b, preference(b), B) is W


def test_e4_higher_ranked_player_gets_the_preference() -> None:
    a = state(2, (W, B), score=2)  # higher score: higher ranked
    b = state(1, (W, B), score=1)
    assert allocate(a, preference(a), b, preference(b), B) is W
    assert allocate(b, preference(b), a, preference(a), B) is B


def test_e5_initial_colour_by_pairing_number_parity() -> None:
    a, b = state(3, ()), state(4, ())
    assert allocate(a, preference(a), b, preference(b), W) is W  # 3 odd: initial colour
    c, d = state(4, ()), state(5, ())
    assert allocate(c, preference(c), d, preference(d), W) is B  # 4 even: the other one


def test_double_round_first_game_colour_is_the_rounds_colour() -> None:
    # A double round: 1 (white) - 2 and the reversed game 2 (white) - 1, both
    # drawn; 3-4 likewise. One encounter (C.1), and for the colour rules the
    # first game's colour counts: 1 and 3 "had white", 2 and 4 "had black".
    r1 = RoundRecord(
        1,
        None,
        (),
        (
            PlayedGame("p1", "p2", Result.DRAW),
            PlayedGame("p3", "p4", Result.DRAW),
            PlayedGame("p2", "p1", Result.DRAW),
            PlayedGame("p4", "p3", Result.DRAW),
        ),
    )
    pairing = Dutch2017().pair(players(4), [r1], double=True)
    # All on 1 point, one bracket: S1 = {1, 2}, S2 = {3, 4}. The first
    # candidate 1-3, 2-4 pairs two players preferring black (1, 3: mild, after
    # white) and two preferring white (2, 4): two preferences not granted
    # (C.10). The transposition 1-4, 2-3 grants all four: it is chosen.
    # Colours E.1: 4 white against 1, 2 white against 3. Boards: equal
    # scores, so by the higher ranked player: 1's pair, then 2's.
    assert [(p.first, p.second) for p in pairing.pairs] == [("p4", "p1"), ("p2", "p3")]
    # Every first game, then every reversed game, in board order.
    assert [(g.white, g.black, g.leg) for g in pairing.games] == [
        ("p4", "p1", 1),
        ("p2", "p3", 1),
        ("p1", "p4", 2),
        ("p3", "p2", 2),
    ]


def test_c12_a_player_who_had_the_bye_does_not_float_again() -> None:
    # Round 1: 1-3 (1 white wins), 4-2 (2 wins with black), 5 the bye (a
    # round without a game: a downfloat, A.4.b). Round 2: 1, 2, 5 on 1 point,
    # 3, 4 on 0. Bracket 1.0 {1, 2, 5}: one pair, one downfloater. Colour
    # preferences: 1 black (mild), 2 white (mild), 5 none, so every pair
    # grants them all (C.10, C.11 equal), and the following bracket gets one
    # pair and a bye whoever floats (C.7 equal). C.12 decides: floating 5
    # would repeat its downfloat, so the first candidate 1-2 (5 floats) is
    # not the best; the next one, the transposition 1-5, floats 2.
    # Last bracket {2 | 3, 4}: 2 met 4, so 2-3 and the bye to 4. Colours:
    # 5 white against 1 (E.1); 2-3 both prefer white (mild), E.3 finds no
    # round with different colours (both had black), E.4: 2, higher ranked.
    r1 = RoundRecord(
        1,
        "p5",
        (),
        (PlayedGame("p1", "p3", Result.WHITE_WINS), PlayedGame("p4", "p2", Result.BLACK_WINS)),
    )
    assert boards(5, [r1]) == ([("p5", "p1"), ("p2", "p3")], "p4")


def test_ppb_and_collapsed_last_bracket() -> None:
    # Round 1: 5-6 drawn; 1, 2, 3, 4 had requested full-point byes. Round 2:
    # bracket 1.0 {1, 2, 3, 4}, bracket 0.5 {5, 6} -- who met. Paired on its
    # own, the top bracket makes two pairs (C.5) and leaves 5 and 6 with
    # nobody: the round cannot be completed, so the top bracket is the PPB
    # (A.9). Re-paired with C.4 it must send two downfloaters: one pair.
    # Nothing in C.6-C.19 separates the candidates (nobody has a colour
    # preference; all four downfloated in round 1, having played no game),
    # so D.1: S1 = {1}, S2 = {2, 3, 4}, the first candidate 1-2, with 3 and 4
    # floating. The CLB {3, 4 | 5, 6}: S1 = {3, 4}, S2 = {5, 6}: 3-5, 4-6.
    # Colours: 1-2 by E.5 (1 odd: the initial colour, white); 5 and 6 want to
    # alternate (E.1 with the other having no preference): 3 white against
    # 5, 6 white against 4. Boards: the pair on 1 point + 1 point first, then
    # by the higher ranked player, 3 before 4.
    r1 = RoundRecord(
        1,
        None,
        (),
        (PlayedGame("p5", "p6", Result.DRAW),),
        tuple(Bye(f"p{k}", ByeKind.FULL) for k in range(1, 5)),
    )
    assert boards(6, [r1]) == ([("p1", "p2"), ("p3", "p5"), ("p6", "p4")], None)
