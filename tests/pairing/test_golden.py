"""Golden cases worked out by hand from the rule text (seeds/tcec-swiss-system.txt).

Every expected value below was derived on paper from the rules, step by
step; the reasoning is written next to it. Games are written "white-black" in
playing order. All-draw events keep every score level, so the pairing order is
the seed order and the colour rules (WGD, then the 2112 pattern) show clearly.
"""

from __future__ import annotations

import pytest

from tcecd.domain import Result
from tcecd.errors import PairingError
from tcecd.pairing.base import PlayedGame, RoundRecord
from tcecd.pairing.tcec_swiss import TcecSwiss, first_of_pair_white
from tests.pairing.helpers import all_draws, field, finish, games, run_event


def test_round_one_is_seed2_seed1_worst_pair_first() -> None:
    # "The 1st round pairing is: seed2-seed1, seed4-seed3, ...": everybody has
    # 0 points, so the pairing order is the seed order; STEP 4 pairs 1-2, 3-4,
    # ...; STEP 5: equal WGD and score, round 1 -> second-of-pair is white.
    # Playing order: DESC pairing order of the first-of-pair -> 9-10 first.
    pairing = TcecSwiss().pair(field(10), [], double=False)
    assert games(pairing) == ["P10-P9", "P8-P7", "P6-P5", "P4-P3", "P2-P1"]
    assert [(p.first, p.second) for p in pairing.pairs] == [
        ("P1", "P2"), ("P3", "P4"), ("P5", "P6"), ("P7", "P8"), ("P9", "P10"),
    ]  # fmt: skip
    assert pairing.bye is None
    assert pairing.removed_history_rounds == ()
    assert [g.number for g in pairing.games] == [1, 2, 3, 4, 5]


def test_round_one_odd_field_gives_the_bye_to_the_last_seed() -> None:
    # STEP 2: nobody has a BYE; the bottom of the pairing order is seed 7.
    pairing = TcecSwiss().pair(field(7), [], double=False)
    assert pairing.bye == "P7"
    assert games(pairing) == ["P6-P5", "P4-P3", "P2-P1"]


def test_colour_pattern_2112_over_rounds_1_to_8() -> None:
    # STEP 5: first-of-pair white on rounds 2, 3, 6, 7; second-of-pair on 1, 4, 5, 8.
    assert [first_of_pair_white(r) for r in range(1, 9)] == [
        False, True, True, False, False, True, True, False,
    ]  # fmt: skip


# Four players, all draws, eight rounds. Worked by hand:
# R1  order 1234. Pairs (1,2) (3,4). Tie, round 1 -> second white.
#     WGD after: 1:-1 2:+1 3:-1 4:+1.
# R2  1: 2 met, 3 allowed (-1-1=-2), rest {2,4} ok -> (1,3) (2,4). Equal WGD and
#     score, round 2 -> first white: 1-3, 2-4. WGD: 1:0 2:+2 3:-2 4:0.
# R3  1: 2,3 met; 4 ok, rest {2,3} (+2-2) ok -> (1,4) (2,3). (1,4) tie, round 3 ->
#     first white 1-4; (2,3): 2 has the greater WGD -> black: 3-2.
#     WGD: 1:+1 2:+1 3:-1 4:-1.
# R4  all six pairs met -> remove round 1 (12, 34 allowed again): (1,2) (3,4);
#     ties, round 4 -> second white: 2-1, 4-3. WGD: 1:0 2:+2 3:-2 4:0.
# R5  history R2-R4 covers all pairs -> remove round 2 (13, 24): (1,3): 1 has the
#     greater WGD (0 > -2) -> 3-1; (2,4): +2 > 0 -> 4-2. WGD: 1:-1 2:+1 3:-1 4:+1.
# R6  remove round 3 (14, 23): (1,4): 4 greater -> 1-4; (2,3): 2 greater -> 3-2.
#     WGD all 0.
# R7  remove round 4 (12, 34): ties, round 7 -> first white: 1-2, 3-4.
#     WGD: 1:+1 2:-1 3:+1 4:-1.
# R8  remove round 5 (13, 24): (1,3) +1/+1 tie, round 8 -> second white 3-1;
#     (2,4) tie -> 4-2.
FOUR_PLAYERS_ALL_DRAWS = [
    (["P4-P3", "P2-P1"], ()),
    (["P2-P4", "P1-P3"], ()),
    (["P3-P2", "P1-P4"], ()),
    (["P4-P3", "P2-P1"], (1,)),
    (["P4-P2", "P3-P1"], (2,)),
    (["P3-P2", "P1-P4"], (3,)),
    (["P3-P4", "P1-P2"], (4,)),
    (["P4-P2", "P3-P1"], (5,)),
]


def test_four_players_all_draws_eight_rounds() -> None:
    played = run_event(field(4), 8, double=False, result=all_draws)
    got = [(games(p), p.removed_history_rounds) for p, _ in played]
    assert got == FOUR_PLAYERS_ALL_DRAWS


# Six players, all draws, seven rounds: history removal once everybody has met.
# R1  (1,2)(3,4)(5,6), round 1 -> second white. WGD 1:-1 2:+1 3:-1 4:+1 5:-1 6:+1.
# R2  1: 3 (rest {2,4,5,6} has 2-5, 4-6). 2: 4 leaves {5,6} who met -> not viable;
#     5 ok -> (2,5), then (4,6). (1,3) tie round 2 -> 1-3; (2,5) 2 greater -> 5-2;
#     (4,6) tie -> 4-6. WGD 1:0 2:0 3:-2 4:+2 5:0 6:0.
# R3  1: 2,3 met; 4 (0+2) ok, rest {2,3,5,6} has 2-6, 3-5. 2: 3 leaves {5,6} met;
#     5 met; 6 ok -> (2,6) (3,5). (1,4): 4 greater -> 1-4; (2,6) tie round 3 ->
#     2-6; (3,5): 5 greater -> 3-5. WGD 1:+1 2:+1 3:-1 4:+1 5:-1 6:-1.
# R4  1: only 5 and 6 unmet; 5 ok, rest {2,3,4,6} has 2-4, 3-6. 2: 3 leaves {4,6}
#     met; 4 (+1+1=2) ok -> (2,4) (3,6). (1,5): 1 greater -> 5-1; (2,4), (3,6)
#     ties round 4 -> second white 4-2, 6-3. WGD 1:0 2:0 3:-2 4:+2 5:0 6:0.
# R5  the only unmet pairs are 16, 23, 45 -> (1,6) tie round 5 -> 6-1; (2,3): 2
#     greater -> 3-2; (4,5): 4 greater -> 5-4. WGD 1:-1 2:-1 3:-1 4:+1 5:+1 6:+1.
# R6  all 15 pairs met -> remove round 1: (1,2) tie round 6 -> 1-2; (3,4): 4
#     greater -> 3-4; (5,6) tie -> 5-6. WGD 1:0 2:-2 3:0 4:0 5:+2 6:0.
# R7  rounds 2-6 cover all pairs -> remove round 2 (13, 25, 46): (1,3) tie round 7
#     -> 1-3; (2,5): 5 greater -> 2-5; (4,6) tie -> 4-6.
SIX_PLAYERS_ALL_DRAWS = [
    (["P6-P5", "P4-P3", "P2-P1"], ()),
    (["P4-P6", "P5-P2", "P1-P3"], ()),
    (["P3-P5", "P2-P6", "P1-P4"], ()),
    (["P6-P3", "P4-P2", "P5-P1"], ()),
    (["P5-P4", "P3-P2", "P6-P1"], ()),
    (["P5-P6", "P3-P4", "P1-P2"], (1,)),
    (["P4-P6", "P2-P5", "P1-P3"], (2,)),
]


def test_history_removal_six_players_seven_rounds() -> None:
    played = run_event(field(6), 7, double=False, result=all_draws)
    got = [(games(p), p.removed_history_rounds) for p, _ in played]
    assert got == SIX_PLAYERS_ALL_DRAWS


# Five players, all draws: a BYE scores 2 half-points, so the BYE player jumps
# ahead and the next BYE goes to the lowest player still without one.
# R1  BYE 5. (1,2)(3,4) -> 4-3, 2-1. Half-points 5:2, others 1.
# R2  order 5,1,2,3,4; fewest BYEs among 1-4, lowest = 4. 5: 1 ok (rest {2,3})
#     -> (5,1): 5 has the greater WGD (0 > -1) -> 1-5; (2,3): 2 greater -> 3-2.
# R3  half-points 4:3 5:3 1:2 2:2 3:2; BYE 3. Order 4,5,1,2: 5 leaves {1,2} who
#     met -> 1 -> (4,1): 4 greater (+1 > 0) -> 1-4; (5,2): 2 greater -> 5-2.
# R4  3:4 4:4 5:4 1:3 2:3; BYE 2. Order 3,4,5,1: 4 met; 5 leaves {4,1} met -> 1
#     -> (3,1): 1 greater -> 3-1; (4,5) WGD 0/0, 4/4 half-points, round 4 ->
#     second white 5-4.
# R5  2,3,4,5 at 5 half-points, 1 at 4; BYE 1 (the only one without). Order
#     2,3,4,5: 3 met; 4 ok (WGD -1-1), rest {3,5} (+1+1) -> (2,4) (3,5), ties at
#     round 5 -> second white: 4-2, 5-3.
# R6  everybody has 6 half-points and one BYE -> lowest in order: 5.
FIVE_PLAYERS_ALL_DRAWS = [
    ("P5", ["P4-P3", "P2-P1"]),
    ("P4", ["P3-P2", "P1-P5"]),
    ("P3", ["P5-P2", "P1-P4"]),
    ("P2", ["P5-P4", "P3-P1"]),
    ("P1", ["P5-P3", "P4-P2"]),
]


def test_bye_rotation_five_players() -> None:
    played = run_event(field(5), 6, double=False, result=all_draws)
    got = [(p.bye, games(p)) for p, _ in played[:5]]
    assert got == FIVE_PLAYERS_ALL_DRAWS
    assert played[5][0].bye == "P5"


def test_bye_rotation_seven_players() -> None:
    # All draws: after k rounds BYE receivers have k+1 half-points, the others
    # k, all level on seed otherwise, so each round the BYE goes to the highest
    # seed number without one: 7, 6, ..., 1; then everybody has one BYE and 8
    # half-points, and it goes to the bottom of the pairing order again: 7.
    played = run_event(field(7), 8, double=False, result=all_draws)
    assert [p.bye for p, _ in played] == ["P7", "P6", "P5", "P4", "P3", "P2", "P1", "P7"]


# Four players, double rounds. First-of-pair has black in the first game; all
# first games (worst pair first) before all reversed games.
# R1  (1,2) (3,4): 4-3, 2-1, 3-4, 1-2. Results 1-0, 0-1, =, = ->
#     half-points 1:3 4:3 2:1 3:1.
# R2  order 1,4,2,3: (1,4) (2,3): 3-2, 4-1, 2-3, 1-4. Results =, =, =, 1-0 ->
#     1:6 4:4 2:3 3:3.
# R3  order 1,4,2,3: 1 met 4 and 2 -> (1,3), rest (4,2): 2-4, 3-1, 4-2, 1-3.
#     Results 0-1, 0-1, 1-0, 1-0 -> 1:10 4:8 2:3 3:3.
# R4  all pairs met -> remove round 1: (1,2) (4,3): 3-4, 2-1, 4-3, 1-2.
DOUBLE_ROUNDS = [
    (["P4-P3", "P2-P1", "P3-P4", "P1-P2"], ["1-0", "0-1", "1/2-1/2", "1/2-1/2"], ()),
    (["P3-P2", "P4-P1", "P2-P3", "P1-P4"], ["1/2-1/2", "1/2-1/2", "1/2-1/2", "1-0"], ()),
    (["P2-P4", "P3-P1", "P4-P2", "P1-P3"], ["0-1", "0-1", "1-0", "1-0"], ()),
    (["P3-P4", "P2-P1", "P4-P3", "P1-P2"], None, (1,)),
]


def test_double_round_event() -> None:
    players = field(4)
    history: list[RoundRecord] = []
    for expected_games, results, removed in DOUBLE_ROUNDS:
        pairing = TcecSwiss().pair(players, history, double=True)
        assert games(pairing) == expected_games
        assert pairing.removed_history_rounds == removed
        assert [g.leg for g in pairing.games] == [1, 1, 2, 2]
        # Both games of a pair point at the same pair.
        assert pairing.games[0].pair_index == pairing.games[2].pair_index
        if results is not None:
            history.append(finish(pairing, results))


def test_bye_in_double_rounds_scores_two_wins() -> None:
    # Three players, double rounds: the BYE is worth 4 half-points (two wins),
    # so after round 1 (P3's BYE, P1 and P2 split their games) P3 leads and
    # tops the pairing order; the BYE of round 2 goes to the lowest player
    # without one: P2 (level with P1 on points, worse seed).
    players = field(3)
    r1 = TcecSwiss().pair(players, [], double=True)
    assert r1.bye == "P3"
    assert games(r1) == ["P2-P1", "P1-P2"]
    history = [finish(r1, ["1-0", "1-0"])]
    r2 = TcecSwiss().pair(players, history, double=True)
    assert r2.bye == "P2"
    # P3 (4 half-points) is first-of-pair and takes black in the first game.
    assert games(r2) == ["P1-P3", "P3-P1"]


def test_colour_rule_alone_blocking_a_round_is_a_pairing_error() -> None:
    # Records no real event produces, but a state file could hold: P1 has had
    # white twice (WGD +2), P2 once (WGD +1); P3 has had black twice and no
    # BYE, so round 4's BYE is P3's and P1-P2 is left: |+2 + +1| > 2. With no
    # history left to remove, the round cannot be paired.
    players = field(3)
    history = [
        RoundRecord(1, "P2", (), (PlayedGame("P1", "P3", Result.DRAW),)),
        RoundRecord(2, "P1", (), (PlayedGame("P2", "P3", Result.DRAW),)),
        RoundRecord(3, "P2", (), (PlayedGame("P1", "P3", Result.DRAW),)),
    ]
    with pytest.raises(PairingError, match=r"^round 4: .*colour rule.*'P1' \(WGD \+2\)"):
        TcecSwiss().pair(players, history, double=False)


def test_unplayed_forfeit_counts_as_encounter_and_score_not_colour() -> None:
    # Round 1: P2-P1 is a forfeit never played (P1 wins), P4-P3 played (draw).
    # WGD: P1 0, P2 0 (no colour), P3 -1, P4 +1. Half-points: P1 2, P2 0,
    # P3 1, P4 1. Round 2 order: P1, P3, P4, P2. P1 takes P3 (rest P4-P2 has
    # not met). Colours, round 2: (P1,P3): P1 has the greater WGD (0 > -1) ->
    # black: P3-P1. (P4,P2): P4 greater (+1 > 0) -> black: P2-P4.
    players = field(4)
    history = [
        RoundRecord(
            1,
            None,
            (),
            (
                PlayedGame("P4", "P3", Result.DRAW),
                PlayedGame("P2", "P1", Result.BLACK_WINS, played=False),
            ),
        )
    ]
    pairing = TcecSwiss().pair(players, history, double=False)
    assert games(pairing) == ["P2-P4", "P3-P1"]


@pytest.mark.parametrize(
    ("history", "message"),
    [
        ([RoundRecord(2, None, (), ())], "expected round 1"),
        (
            [RoundRecord(1, None, (), (PlayedGame("P1", "P9", Result.DRAW),))],
            "unknown player 'P9'",
        ),
        (
            [RoundRecord(1, None, (), (PlayedGame("P1", "P2", Result.UNFINISHED),))],
            "has no result",
        ),
        (
            [
                RoundRecord(
                    1,
                    None,
                    (),
                    (PlayedGame("P1", "P2", Result.DRAW), PlayedGame("P1", "P3", Result.DRAW)),
                )
            ],
            "'P1' is paired more than once",
        ),
    ],
)
def test_bad_history_is_reported(history: list[RoundRecord], message: str) -> None:
    with pytest.raises(PairingError, match=message):
        TcecSwiss().pair(field(4), history, double=False)
