"""Independent audit of TCEC Swiss pairing against the rule text.

Every expected value here was derived by hand from
``../shared/seeds/tcec-swiss-system.txt`` (binding) and ``../shared/specs/tcec-swiss.md``
(open points), step by step in the comments, without looking at the
implementation's own tests. Players are named A, B, C, ... with seeds 1, 2, 3, ...

Notation in the comments: ``X-Y`` is a game with X white; WGD is white games
minus black games; "order" is the STEP 1 pairing order (score DESC, seed ASC).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tcecd.domain import Result
from tcecd.errors import PairingError
from tcecd.pairing.base import PlayedGame, Player, RoundPairing, RoundRecord
from tcecd.pairing.tcec_swiss import TcecSwiss

RESULTS = {"1-0": Result.WHITE_WINS, "0-1": Result.BLACK_WINS, "=": Result.DRAW}


def players(n: int) -> list[Player]:
    return [Player(id=chr(ord("A") + i), name=f"Engine {i + 1}", seed=i + 1) for i in range(n)]


def game(spec: str, *, played: bool = True) -> PlayedGame:
    """``"B-A 1-0"``: B white, A black, white wins (``=`` for a draw)."""
    pairing, result = spec.split()
    white, black = pairing.split("-")
    return PlayedGame(white=white, black=black, result=RESULTS[result], played=played)


def record(
    number: int,
    games: Sequence[str],
    *,
    bye: str | None = None,
    removed: tuple[int, ...] = (),
    played: bool = True,
) -> RoundRecord:
    return RoundRecord(
        round=number,
        bye=bye,
        removed_history_rounds=removed,
        games=tuple(game(g, played=played) for g in games),
    )


def pairs(rp: RoundPairing) -> list[tuple[str, str]]:
    """(first-of-pair, second-of-pair) in STEP 4 order."""
    return [(p.first, p.second) for p in rp.pairs]


def schedule(rp: RoundPairing) -> list[str]:
    """Games in playing order as ``"White-Black"``; numbers must be 1, 2, ..."""
    assert [g.number for g in rp.games] == list(range(1, len(rp.games) + 1))
    return [f"{g.white}-{g.black}" for g in rp.games]


def as_record(rp: RoundPairing, results: dict[str, str]) -> RoundRecord:
    """The paired round, finished with ``results`` keyed by ``"White-Black"``."""
    games = schedule(rp)
    assert sorted(results) == sorted(games)
    return RoundRecord(
        round=rp.round,
        bye=rp.bye,
        removed_history_rounds=rp.removed_history_rounds,
        games=tuple(game(f"{g} {results[g]}") for g in games),
    )


SWISS = TcecSwiss()


# -- (a) six players, three rounds: STEP 4 must skip an allowed candidate -------


def test_six_players_round_three_skips_the_highest_allowed_candidate() -> None:
    field = players(6)

    # Round 1. Order A B C D E F (all 0, seed). No history, all WGD 0: every
    # pair is allowed. Greedy: A-B? first-of-pair A takes B, C takes D, E takes F.
    # STEP 5: equal WGD, equal score, round 1 -> second-of-pair white:
    # "seed2-seed1, seed4-seed3, ..." as the rule text's seeding note says.
    # Playing order: worst first-of-pair first: (E,F), (C,D), (A,B).
    r1 = SWISS.pair(field, [], double=False)
    assert r1.bye is None
    assert r1.removed_history_rounds == ()
    assert pairs(r1) == [("A", "B"), ("C", "D"), ("E", "F")]
    assert schedule(r1) == ["F-E", "D-C", "B-A"]
    # Every black player wins: A, C, E = 1 point (WGD -1); B, D, F = 0 (WGD +1).
    h = [as_record(r1, {"F-E": "0-1", "D-C": "0-1", "B-A": "0-1"})]

    # Round 2. Order A C E B D F. Met: AB CD EF. Sums of WGD all in [-2, 2].
    # A: B met, C allowed, rest {E B D F} has E-B, D-F -> A-C.
    # E: B allowed, rest {D F} allowed -> E-B; then D-F.
    # Colours: A,C both -1, both 1 point, round 2 -> first-of-pair white: A-C.
    #          E -1 vs B +1: the greater WGD (B) gets black: E-B.
    #          D,F both +1, both 0 points, round 2 -> first white: D-F.
    r2 = SWISS.pair(field, h, double=False)
    assert pairs(r2) == [("A", "C"), ("E", "B"), ("D", "F")]
    assert schedule(r2) == ["D-F", "E-B", "A-C"]
    h.append(as_record(r2, {"D-F": "1-0", "E-B": "0-1", "A-C": "1-0"}))

    # After round 2: A 2, B 1, C 1, D 1, E 1, F 0 (points).
    # WGD: A 0, B 0, C -2, D +2, E 0, F 0. Only C(-2)+D(+2) are extreme and
    # they have met, so the colour rule excludes nothing; the history does.
    # Met: AB CD EF AC EB DF -- a hexagon A-B-E-F-D-C-A, so each player has
    # three allowed partners: A{D E F} B{C D F} C{B E F} D{A B E} E{A C D} F{A B C}.
    # Round 3 order: A(2) B(1,s2) C(1,s3) D(1,s4) E(1,s5) F(0).
    # A: B, C met; D allowed; rest {B C E F}: E's only partner is C, then B-F -> A-D.
    # B: C is the highest-ranked unpaired player and B-C is allowed (not met,
    #    WGD 0 + -2 = -2), but it leaves {E F}, who met in round 1: no perfect
    #    matching, so STEP 4 must SKIP C. D is paired, E met B in round 2, F is
    #    allowed and leaves {C E} (not met, -2 + 0): B-F. Then C-E.
    # (A greedy without the viability test would pair B-C and get stuck with E-F.)
    r3 = SWISS.pair(field, h, double=False)
    assert r3.removed_history_rounds == ()
    assert pairs(r3) == [("A", "D"), ("B", "F"), ("C", "E")]
    # Colours: A (WGD 0, 2 pts) vs D (WGD +2, 1 pt): WGD decides before score,
    #   D black: A-D (the higher score alone would have given A black).
    # B (0, 1 pt) vs F (0, 0 pts): equal WGD, B has the higher score, B black:
    #   F-B (round 3's 2112 pattern would have given first-of-pair B white).
    # C (-2) vs E (0): E greater, E black: C-E.
    # Playing order: pair of C first, then B, then A.
    assert schedule(r3) == ["C-E", "F-B", "A-D"]


# -- (b) the colour rule excludes a pair that has not met -----------------------


def test_colour_rule_excludes_pairs_that_never_met() -> None:
    field = players(8)
    # Round 1: order A..H; pairs AB CD EF GH; round 1: second-of-pair white.
    r1 = SWISS.pair(field, [], double=False)
    assert schedule(r1) == ["H-G", "F-E", "D-C", "B-A"]
    h = [as_record(r1, {"H-G": "0-1", "F-E": "0-1", "D-C": "0-1", "B-A": "0-1"})]
    # A C E G: 1 point, WGD -1; B D F H: 0, WGD +1.
    # Round 2 order A C E G B D F H: A-C, E-G, B-D, F-H (each leaves a perfect
    # matching). Equal WGD and score in every pair, round 2: first-of-pair white.
    r2 = SWISS.pair(field, h, double=False)
    assert pairs(r2) == [("A", "C"), ("E", "G"), ("B", "D"), ("F", "H")]
    assert schedule(r2) == ["F-H", "B-D", "E-G", "A-C"]
    h.append(as_record(r2, {"F-H": "0-1", "B-D": "0-1", "E-G": "0-1", "A-C": "0-1"}))

    # After round 2: C 2, G 2, A 1, D 1, E 1, H 1, B 0, F 0.
    # WGD: C -2, G -2, B +2, F +2, A D E H 0.
    # Met: AB CD EF GH AC EG BD FH. C-G and B-F never met, but
    # |-2 + -2| = 4 and |2 + 2| = 4 > 2: the colour rule forbids both.
    # Round 3 order: C G A D E H B F.
    # C: G not met but colour-excluded; A met; D met; E: -2 + 0 allowed, and the
    #    rest {G A D H B F} has G-A, D-F, H-B -> C-E.
    # G: A allowed (-2 + 0), rest {D H B F} has D-F, H-B -> G-A.
    # D: H allowed (0 + 0) but leaves {B F}: never met, yet colour-excluded -> skip.
    #    B met in round 2; F allowed (0 + 2), rest {H B} allowed -> D-F. Then H-B.
    r3 = SWISS.pair(field, h, double=False)
    assert r3.removed_history_rounds == ()
    assert pairs(r3) == [("C", "E"), ("G", "A"), ("D", "F"), ("H", "B")]
    # Colours: the greater WGD gets black in every pair: C-E, G-A, D-F, H-B.
    assert schedule(r3) == ["H-B", "D-F", "G-A", "C-E"]
    for p in r3.pairs:
        assert {p.first, p.second} not in ({"C", "G"}, {"B", "F"})


def test_colour_rule_alone_blocking_is_a_pairing_error() -> None:
    # Hand-made records (valid input, though STEP 5 would never colour them so):
    # E and F have black in every round, A-D share the other whites.
    #   R1: A-E, B-F, C-D   R2: B-E, A-F, D-C   R3: C-E, D-F, A-B   R4: D-E, C-F, B-A
    # WGD: A W W W B = +2, B W W B W = +2, C W B W W = +2, D B W W W = +2,
    #      E = -4, F = -4.
    # Round 5: any two of A-D sum +4, E-F sum -8: forbidden whatever the
    # history. A-D can only take E or F: two partners for four players, so
    # no perfect matching exists even with an empty encounter history
    # (tcec-swiss.md STEP 3: PairingError naming the round and the WGDs).
    field = players(6)
    h = [
        record(1, ["A-E =", "B-F =", "C-D ="]),
        record(2, ["B-E =", "A-F =", "D-C ="]),
        record(3, ["C-E =", "D-F =", "A-B ="]),
        record(4, ["D-E =", "C-F =", "B-A ="]),
    ]
    with pytest.raises(PairingError) as info:
        SWISS.pair(field, h, double=False)
    message = str(info.value)
    assert "\n" not in message
    assert "round 5" in message
    assert "+2" in message
    assert "-4" in message


# -- (c) STEP 5 colour tie-breaks and the 2112 pattern --------------------------

#: Round -> does the first-of-pair get white, for equal WGD and equal score?
#: Rule text: first-of-pair white in rounds 2, 3, 6, 7, ...; second-of-pair in
#: rounds 1, 4, 5, 8, ... ("2112 2112": the pattern of who gets the white).
FIRST_WHITE = {1: False, 2: True, 3: True, 4: False, 5: False, 6: True, 7: True, 8: False}


@pytest.mark.parametrize("round_number", sorted(FIRST_WHITE))
def test_2112_pattern_with_wgd_zero(round_number: int) -> None:
    # Two players; every earlier round was A vs B drawn by a forfeit that never
    # started: no colours (WGD 0 each), equal score, and they have always met,
    # so STEP 3 removes every earlier round. A (seed 1) is first-of-pair.
    field = players(2)
    h = [record(r, ["A-B ="], played=False) for r in range(1, round_number)]
    rp = SWISS.pair(field, h, double=False)
    assert rp.removed_history_rounds == tuple(range(1, round_number))
    assert pairs(rp) == [("A", "B")]
    assert schedule(rp) == (["A-B"] if FIRST_WHITE[round_number] else ["B-A"])


@pytest.mark.parametrize("round_number", sorted(r for r in FIRST_WHITE if r > 1))
def test_2112_pattern_with_equal_odd_wgd(round_number: int) -> None:
    # Four players. Round 1 (played, drawn): A-C, B-D, so A, B have WGD +1 and
    # C, D -1. Later rounds repeat those pairs as unplayed drawn forfeits (no
    # colour). All scores equal. Order A B C D; A-C and B-D met; A: B allowed
    # (+1 +1 = 2) and leaves C-D (-2): pairs (A, B), (C, D), no removal.
    # Both pairs have equal WGD and equal score: the pattern decides.
    field = players(4)
    h = [record(1, ["A-C =", "B-D ="])]
    h += [record(r, ["A-C =", "B-D ="], played=False) for r in range(2, round_number)]
    rp = SWISS.pair(field, h, double=False)
    assert rp.removed_history_rounds == ()
    assert pairs(rp) == [("A", "B"), ("C", "D")]
    if FIRST_WHITE[round_number]:
        assert schedule(rp) == ["C-D", "A-B"]
    else:
        assert schedule(rp) == ["D-C", "B-A"]


def test_greater_wgd_gets_black_even_as_first_of_pair() -> None:
    # Six players, round 1 paired B-A, D-C, F-E; every white wins.
    # B, D, F: 1 point, WGD +1. A, C, E: 0, WGD -1.
    # Round 2 order B D F A C E: B-D (rest F A C E: F-A, C-E), F: A allowed -> F-A,
    # then C-E. Pair (F, A): first-of-pair F has the greater WGD (+1 > -1) and
    # the higher score: F gets black -> A-F. (B, D), (C, E): equal, round 2,
    # first-of-pair white: B-D, C-E. Playing order: C-E, A-F, B-D.
    field = players(6)
    h = [record(1, ["F-E 1-0", "D-C 1-0", "B-A 1-0"])]
    rp = SWISS.pair(field, h, double=False)
    assert pairs(rp) == [("B", "D"), ("F", "A"), ("C", "E")]
    assert schedule(rp) == ["C-E", "A-F", "B-D"]


# -- (d) the BYE -----------------------------------------------------------------


def test_bye_skips_a_lowest_player_who_already_had_one() -> None:
    field = players(5)
    # Round 1: order A..E; BYE: everyone has 0 BYEs, the lowest is E.
    # Pairs (A, B), (C, D); round 1: second-of-pair white. Worst pair first.
    r1 = SWISS.pair(field, [], double=False)
    assert r1.bye == "E"
    assert schedule(r1) == ["D-C", "B-A"]
    h = [as_record(r1, {"D-C": "1-0", "B-A": "1-0"})]

    # B 1, D 1, E 1 (the BYE is a win: 1 point in a single round), A 0, C 0.
    # Round 2 order: B(s2) D(s4) E(s5) A(s1) C(s3) -- E's BYE point lifts him
    # above the seeds 1 and 3. BYE: fewest BYEs (0) are B D A C; lowest: C.
    # Field B D E A. B: D allowed (+1 +1 = 2), rest E-A allowed -> B-D; E-A.
    # Colours: B, D equal WGD and score, round 2 -> first white: B-D.
    # E (WGD 0) vs A (-1): E greater, E black: A-E. Playing order: A-E, B-D.
    r2 = SWISS.pair(field, h, double=False)
    assert r2.bye == "C"
    assert pairs(r2) == [("B", "D"), ("E", "A")]
    assert schedule(r2) == ["A-E", "B-D"]
    h.append(as_record(r2, {"A-E": "1-0", "B-D": "1-0"}))

    # Scores: B 2, A 1, C 1 (BYE), D 1, E 1. Order B A C D E. E is the lowest
    # but has a BYE, as has C; among B A D (0 BYEs) the lowest is D: D's BYE.
    # Field B A C E; WGD B +2, A 0, C -1, E -1. Met: AB CD BD AE.
    # B: A met; C allowed (+2 -1 = 1) but leaves A-E, met in round 2: skip;
    #    E allowed (+1), leaves A-C (not met, -1): B-E. Then A-C.
    # Colours: B (+2) black: E-B. A (0) > C (-1): A black: C-A.
    r3 = SWISS.pair(field, h, double=False)
    assert r3.bye == "D"
    assert pairs(r3) == [("B", "E"), ("A", "C")]
    assert schedule(r3) == ["C-A", "E-B"]


def test_bye_in_a_double_round_scores_two_points() -> None:
    field = players(3)
    # Round 1: BYE C (lowest, no BYEs). Pair (A, B): first-of-pair A has black
    # in the first game: B-A, then A-B.
    r1 = SWISS.pair(field, [], double=True)
    assert r1.bye == "C"
    assert schedule(r1) == ["B-A", "A-B"]
    h = [as_record(r1, {"B-A": "1-0", "A-B": "1-0"})]
    # A 1, B 1, C 2 (a win for each of the round's two games).
    # Round 2 order: C(2) A(1, s1) B(1, s2). BYE: A, B have none; lowest is B.
    # Pair (C, A): C black first: A-C, C-A.
    r2 = SWISS.pair(field, h, double=True)
    assert r2.bye == "B"
    assert pairs(r2) == [("C", "A")]
    assert schedule(r2) == ["A-C", "C-A"]


# -- (e) encounter-history removal, permanent -----------------------------------


def test_history_removal_is_permanent() -> None:
    field = players(4)
    h: list[RoundRecord] = []

    def play(rp: RoundPairing) -> None:
        h.append(as_record(rp, {g: "=" for g in schedule(rp)}))  # every game drawn

    # All games drawn, so scores stay equal and the order is always A B C D.
    # R1: (A,B), (C,D), second white: B-A, D-C. WGD A -1 B +1 C -1 D +1.
    r1 = SWISS.pair(field, h, double=False)
    assert (pairs(r1), schedule(r1)) == ([("A", "B"), ("C", "D")], ["D-C", "B-A"])
    play(r1)
    # R2: A: B met, C allowed (-2), leaves B-D (+2) -> (A,C), (B,D). Equal WGD
    # and score, round 2: first white: A-C, B-D. WGD A 0 C -2 B +2 D 0.
    r2 = SWISS.pair(field, h, double=False)
    assert (pairs(r2), schedule(r2)) == ([("A", "C"), ("B", "D")], ["B-D", "A-C"])
    play(r2)
    # R3: A: B, C met; D allowed (0), leaves B-C (+2 -2 = 0) -> (A,D), (B,C).
    # A, D equal WGD 0 and score, round 3: first white: A-D. B (+2) black: C-B.
    # WGD A +1 D -1 B +1 C -1.
    r3 = SWISS.pair(field, h, double=False)
    assert r3.removed_history_rounds == ()
    assert (pairs(r3), schedule(r3)) == ([("A", "D"), ("B", "C")], ["C-B", "A-D"])
    play(r3)
    # R4: a round robin is complete: no allowed pair at all. Remove round 1:
    # A-B (+1 +1 = 2) and C-D (-2) come back -> (A,B), (C,D). Equal WGD and
    # score, round 4: second-of-pair white: B-A, D-C. WGD A 0 B +2 C -2 D 0.
    r4 = SWISS.pair(field, h, double=False)
    assert r4.removed_history_rounds == (1,)
    assert (pairs(r4), schedule(r4)) == ([("A", "B"), ("C", "D")], ["D-C", "B-A"])
    play(r4)
    # R5: round 1 stays removed; rounds 2, 3, 4 still forbid every pair, so
    # the earliest round in force, 2, goes (not 1 again): A-C (0 -2) and B-D
    # (+2 +0) come back. A (0) > C (-2): A black, C-A. B (+2) black: D-B.
    r5 = SWISS.pair(field, h, double=False)
    assert r5.removed_history_rounds == (2,)
    assert (pairs(r5), schedule(r5)) == ([("A", "C"), ("B", "D")], ["D-B", "C-A"])
    # Had round 4 not recorded its removal, round 5 would find round 1 still in
    # force and have to remove rounds 1 and 2: the records carry the removal.
    forgetful = [*h[:3], RoundRecord(4, None, (), h[3].games)]
    assert SWISS.pair(field, forgetful, double=False).removed_history_rounds == (1, 2)
    play(r5)
    # R6: in force 3, 4, 5 forbid every pair again: remove 3. A-D (-1 +1) and
    # B-C (+1 -1) come back. D (+1) black: A-D; B (+1) black: C-B.
    r6 = SWISS.pair(field, h, double=False)
    assert r6.removed_history_rounds == (3,)
    assert (pairs(r6), schedule(r6)) == ([("A", "D"), ("B", "C")], ["C-B", "A-D"])


# -- (f) double rounds ---------------------------------------------------------------


def test_double_round_colours_and_playing_order() -> None:
    field = players(4)
    # R1: (A,B), (C,D). First-of-pair black in game 1, white in game 2; all
    # first games (worst pair first), then all reversed games in the same order.
    r1 = SWISS.pair(field, [], double=True)
    assert pairs(r1) == [("A", "B"), ("C", "D")]
    assert schedule(r1) == ["D-C", "B-A", "C-D", "A-B"]
    assert [g.leg for g in r1.games] == [1, 1, 2, 2]
    assert [g.pair_index for g in r1.games] == [1, 0, 1, 0]
    h = [as_record(r1, {"D-C": "=", "B-A": "1-0", "C-D": "=", "A-B": "="})]
    # Scores: B 1.5, C 1, D 1, A 0.5; WGD all 0. Order B C D A.
    # B: C allowed, leaves D-A (not met) -> (B,C), (D,A). B has the higher
    # score but double rounds ignore that: first-of-pair black first: C-B, A-D.
    r2 = SWISS.pair(field, h, double=True)
    assert pairs(r2) == [("B", "C"), ("D", "A")]
    assert schedule(r2) == ["A-D", "C-B", "D-A", "B-C"]
    assert [g.leg for g in r2.games] == [1, 1, 2, 2]
    h.append(as_record(r2, {g: "=" for g in schedule(r2)}))
    # R3: met AB CD BC AD (both games of a pair are one encounter); the only
    # allowed pairs left are A-C and B-D. Scores B 2.5, C 2, D 2, A 1.5:
    # order B C D A; B: C met, D allowed, leaves C-A -> (B,D), (C,A).
    r3 = SWISS.pair(field, h, double=True)
    assert r3.removed_history_rounds == ()
    assert pairs(r3) == [("B", "D"), ("C", "A")]
    assert schedule(r3) == ["A-C", "D-B", "C-A", "B-D"]
