"""Hand-worked cases of the 2012 Dutch text (../shared/seeds/fide-dutch-system-2012.txt).

Every expected pairing below was worked out by hand from the rule text; the
reasoning is written in each test. Histories are built by hand so that each
case shows one rule. Players P1..Pn are rated 2700, 2690, ... (A.2 order =
number order within a score bracket).
"""

from __future__ import annotations

from pathlib import Path

from tcecd.domain import Color, Result
from tcecd.pairing.base import Bye, ByeKind, PlayedGame, Player, RoundContext, RoundRecord
from tcecd.pairing.dutch2012.colours import (
    Preference,
    Strength,
    allocate,
    preference,
    x1_z1,
)
from tcecd.pairing.dutch2012.state import Float, PlayerState, player_states
from tcecd.pairing.dutch2012.system import Dutch2012
from tcecd.trf.reader import parse_trf

W, B = Color.WHITE, Color.BLACK
WIN, DRAW, LOSS = Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS


def field(n: int) -> list[Player]:
    return [Player(f"P{i}", f"Player {i}", i, 2710 - 10 * i) for i in range(1, n + 1)]


def rnd(
    number: int,
    *games: tuple[str, str, Result],
    bye: str | None = None,
    requested: tuple[Bye, ...] = (),
    unplayed: tuple[int, ...] = (),
) -> RoundRecord:
    return RoundRecord(
        number,
        bye,
        (),
        tuple(PlayedGame(w, b, r, i not in unplayed) for i, (w, b, r) in enumerate(games)),
        requested,
    )


def games_of(players: list[Player], history: list[RoundRecord], **kw: object) -> list[str]:
    pairing = Dutch2012().pair(players, history, double=False, **kw)  # type: ignore[arg-type]
    out = [f"{g.white}-{g.black}" for g in pairing.games]
    if pairing.bye:
        out.append(f"bye {pairing.bye}")
    return out


def test_round_one_a2_order_f4_and_e5() -> None:
    """A.2: order by rating, then FIDE title, then name. Ratings tie for X and Y;
    X is an IM and Y a GM, so Y ranks first. F.4: S1 = top half, S2 = bottom
    half, the highest of S1 against the highest of S2; odd field: the lowest
    gets the bye. E.5 with the first colour drawn white: S1's odd-numbered
    players get white, even-numbered black."""
    players = [
        Player("X", "Xavier", 1, 2600, "IM"),
        Player("Y", "Yann", 2, 2600, "GM"),
        Player("A", "Anna", 3, 2650),
        Player("C", "Carl", 4, 2500),
        Player("D", "Dora", 5, 2400),
    ]
    # A.2 order: A (2650), Y (GM 2600), X (IM 2600), C, D. S1 = {A, Y}, S2 = {X, C, D}.
    assert games_of(players, []) == ["A-X", "C-Y", "bye D"]
    black_first = RoundContext(first_colour=B)
    assert games_of(players, [], context=black_first) == ["X-A", "Y-C", "bye D"]


def test_homogeneous_bracket_transposition() -> None:
    """C.7/D.1: round 1 was P1(W)-P3 and P2(W)-P4, both drawn: one bracket of four.
    S1 = {P1, P2}, S2 = {P3, P4}. Transposition 0 (P1-P3, P2-P4) repeats both
    games (B.1a); transposition 1 swaps the two lowest of S2: P1-P4, P2-P3.
    Colours (E.1): P1, P2 had white and want black; P3, P4 want white."""
    history = [rnd(1, ("P1", "P3", DRAW), ("P2", "P4", DRAW))]
    assert games_of(field(4), history) == ["P4-P1", "P3-P2"]


def test_homogeneous_bracket_exchange() -> None:
    """C.8/D.2: round 1 was P1(W)-P3 and P4(W)-P2, both drawn. Round 2 is even:
    W (want white) = {P3, P2}, B = {P1, P4}: X1 = Z1 = 0 (A.8). S1 = {P1, P2},
    S2 = {P3, P4}: transposition 0 repeats P1-P3; transposition 1 gives P1-P4,
    both wanting black (one pair not fulfilling the strong preferences, Z1 = 0
    forbids it). No transposition left: the first exchange of D.2 swaps the
    lowest of S1 with the highest of S2 (difference 1): S1 = {P1, P3},
    S2 = {P2, P4}: P1-P2 and P3-P4 give everybody their colour."""
    history = [rnd(1, ("P1", "P3", DRAW), ("P4", "P2", DRAW))]
    assert games_of(field(4), history) == ["P2-P1", "P3-P4"]


def test_heterogeneous_bracket_with_transposition() -> None:
    """A.3, C.6, C.7 in the heterogeneous part: after round 1 (P1-P5, P6-P2,
    P3-P4, won by P1, P2, P3) the 1-point bracket {P1, P2, P3} pairs P1-P2
    and moves P3 down. The 0-point bracket {P3 | P4, P5, P6} is heterogeneous
    (one of four moved down): S1 = {P3}, S2 = {P4, P5, P6}. P3-P4 met (B.1a),
    so the next transposition pairs P3-P5; the remainder {P4, P6} pairs P4-P6.
    F.1 board order: the pair with the higher score first, then the higher sum."""
    history = [rnd(1, ("P1", "P5", WIN), ("P6", "P2", LOSS), ("P3", "P4", WIN))]
    assert games_of(field(6), history) == ["P2-P1", "P5-P3", "P4-P6"]
    states = player_states(
        field(6),
        [*history, rnd(2, ("P2", "P1", DRAW), ("P5", "P3", DRAW), ("P4", "P6", DRAW))],
        double=False,
    )
    assert states["P3"].floats[-1] is Float.DOWN  # A.4: the higher gets the downfloat
    assert states["P5"].floats[-1] is Float.UP


def test_b5_downfloater_choice_and_no_preference() -> None:
    """B.5 for downfloaters and A.7.f: in round 1 P3 won by forfeit against P6
    (never played): a point without playing makes P3 a downfloater (B.1b) and
    gives neither a colour (F.2). Round 2, bracket {P1, P2, P3}: transposition
    0 pairs P1-P2 and moves P3 down again, against B.5; transposition 1 pairs
    P1-P3 and moves P2 down. P3 has no colour preference, so P1 gets its
    preference, black. Bracket {P2 | P4, P5, P6} (even round; P2 and P4 want
    white, P5 black, P6 none: X1 = P0 - B - b - a = 2 - 1 - 0 - 1 = 0): P2-P4
    would not fulfil both preferences, P2-P5 met in round 1, so the next
    transposition gives P2-P6 (P6 has no preference: P2 gets white); the
    remainder pairs P4-P5, P4 white as both prefer."""
    history = [rnd(1, ("P1", "P4", WIN), ("P5", "P2", LOSS), ("P3", "P6", WIN), unplayed=(2,))]
    assert games_of(field(6), history) == ["P3-P1", "P2-P6", "P4-P5"]


def test_bye_b1b() -> None:
    """A.5, B.1b: round 1: P1(W)-P2 and P3(W)-P4 drawn, P5 on a requested
    half-point bye: everybody has 1/2 point, P5 without playing, so P5 may not
    get the bye. Round 2 (even; P1, P3 want black, P2, P4 white, P5 none: X1 =
    Z1 = 0): S1 = {P1, P2}, S2 = {P3, P4, P5}. Transpositions in D.1 order:
    P1-P3 fails X (both want black); P1-P4, P2-P3 leaves P5 for the bye
    (B.1b); P1-P4, P2-P5 leaves P3, who takes the bye."""
    history = [rnd(1, ("P1", "P2", DRAW), ("P3", "P4", DRAW), requested=(Bye("P5", ByeKind.HALF),))]
    assert games_of(field(5), history) == ["P4-P1", "P2-P5", "bye P3"]


def test_c13_backtrack_to_the_penultimate_bracket() -> None:
    """C.13: round 1: P3(W) beat P4; P1 and P2 had requested full-point byes
    (points without playing: downfloats, B.1b). Round 2: bracket {P1, P2, P3}
    pairs P1-P2 (both without preference) and moves P3 down; the lowest bracket
    {P3, P4} cannot be paired (they met). Backtrack: another pairing of the
    penultimate bracket. With B.5 for downfloaters neither P1 nor P2 may go
    down (both downfloated in round 1); once C.10.d drops B.5 the first new
    pairing is P1-P3 with P2 moved down, and the lowest bracket pairs P2-P4.
    Colours: P3 had white and gets black; P4 had black and gets white."""
    history = [
        rnd(
            1,
            ("P3", "P4", WIN),
            requested=(Bye("P1", ByeKind.FULL), Bye("P2", ByeKind.FULL)),
        )
    ]
    assert games_of(field(4), history) == ["P1-P3", "P4-P2"]


def test_c1_incompatible_players_move_down_and_c10e_raises_x() -> None:
    """C.1: after two rounds (P1-P2, P3-P4 drawn; P4-P1 and P2-P3 won by P1 and P2)
    the 1.5-point bracket is {P1, P2}, who met: both are moved down. The joined
    bracket {P1, P2 | P3, P4} has half its players from above, so it is paired
    as homogeneous (A.3). Only P1-P3, P2-P4 avoids repeats, and both pairs have
    equal mild preferences (P1, P3: W then B; P2, P4: B then W), so X1 = 0 is
    raised to 2 (C.10.e, round 3 is odd). Colours: equal preferences and equal
    histories, so E.4 gives the higher ranked player its preference: P1 white,
    P2 black."""
    history = [
        rnd(1, ("P1", "P2", DRAW), ("P3", "P4", DRAW)),
        rnd(2, ("P4", "P1", LOSS), ("P2", "P3", WIN)),
    ]
    assert games_of(field(4), history) == ["P1-P3", "P4-P2"]


def test_colour_preference_kinds() -> None:
    """A.7: absolute (difference beyond +-1, or the same colour twice running),
    strong (difference +-1), mild (difference 0: alternate), none (no game)."""
    assert preference([W, W, B, W]) == Preference(B, Strength.ABSOLUTE)  # difference +2
    assert preference([W, B, B]) == Preference(W, Strength.ABSOLUTE)  # black twice
    assert preference([W, B, W]) == Preference(B, Strength.STRONG)
    assert preference([B]) == Preference(W, Strength.STRONG)
    assert preference([W, B]) == Preference(W, Strength.MILD)
    assert preference([]) == Preference(None, Strength.NONE)


def test_x1_z1() -> None:
    """A.8 for a bracket of 6 (P0 = 3): odd round, 4 want black and 2 white:
    B > W, so X1 = P0 - W - w - a = 3 - 2 = 1. Even round with one mild white
    (w) among them, 3 strong black and 2 strong white: B + b = 3 > W + w = 3 is
    false, so X1 = P0 - B - b - a = 0; B > W, so Z1 = P0 - W - b - w - a = 0."""
    strong_b = Preference(B, Strength.STRONG)
    strong_w = Preference(W, Strength.STRONG)
    assert x1_z1([strong_b] * 4 + [strong_w] * 2, 3, even_round=False)[0] == 1
    mild_w = Preference(W, Strength.MILD)
    assert x1_z1([strong_b] * 3 + [strong_w] * 2 + [mild_w], 3, even_round=True) == (0, 0)


def _state(pid: str, colours: list[Color]) -> PlayerState:
    return PlayerState(Player(pid, pid, 1), 0, tuple(colours), frozenset(), (), False)


def test_colour_allocation_rules() -> None:
    """E.1 both preferences; E.2 the stronger; E.3 alternate to the last round
    with different colours; E.4 the higher ranked player's preference."""

    def colour(a: list[Color], b: list[Color]) -> Color:
        ha, lb = _state("a", a), _state("b", b)
        prefs = {"a": preference(a), "b": preference(b)}
        return allocate(ha, lb, prefs, no_preference_colour=W)

    assert colour([W], [B]) == B  # E.1: a wants black, b white
    assert colour([W, B], [B, W]) == W  # E.1: mild white for a, mild black for b
    assert colour([B, B], [W, B]) == W  # E.2: a's absolute white beats b's mild white
    assert colour([W, B, W], [B, W, W]) == W  # E.2: b's absolute black beats a's strong
    # E.3: a = B W W B and b = W B W B both have a mild white preference. Counting
    # back: round 4 B/B, round 3 W/W, round 2 W/B: a had white there, so a gets black.
    assert colour([B, W, W, B], [W, B, W, B]) == B
    # E.4: identical histories (both strong black): the higher ranked player, a,
    # gets its preference.
    assert colour([W, B, W], [W, B, W]) == B
    # A.7.f: b never played: a's preference is granted; neither played: the lot (E.5).
    assert colour([W], []) == B
    assert colour([], []) == W


def test_c13_c14_lower_p1_in_the_penultimate_bracket() -> None:
    """C.1, A.3, C.10.e, C.13, C.14 and B.3 for the players a bracket moves down.
    After R1 (P1-P4 1/2, P5-P2 0-1, P3-P6 1-0) and R2 (P2-P3 1/2, P6-P1 1-0,
    P4-P5 0-1): 1.5 {P2, P3}, 1 {P5, P6}, 1/2 {P1, P4}; every player has a
    mild preference (P1, P3, P5 white; P2, P4, P6 black).
    P2-P3 met: both move down (C.1). {P2, P3 | P5, P6} is half moved down, so
    homogeneous (A.3); its only full pairing is P2-P6, P3-P5 (X raised to 2).
    The lowest bracket {P1, P4} cannot be paired (they met): C.13 asks the
    penultimate bracket for another pairing. None with two pairs moves anybody
    down, so C.14 lowers P1 to 1 (X1 stays 0), and two players move down.
    B.3: the scores of the players moved down as low as possible: P5 and P6
    (1, 1) would leave P2-P3, who met; next come one 1.5 and one 1 player.
    X = 0 finds nothing (P2-P6 and P3-P5 both fail a colour; P5-P6 would move
    P2 and P3 down); X = 1: S1 = {P2}, S2 = {P3, P5, P6}: P2-P6, moving P3 and
    P5 down. The lowest bracket {P3, P5 | P1, P4} (homogeneous, A.3; X1 = 1):
    P3-P1 is fine but P5-P4 met; the next transposition P3-P4, P5-P1 has one
    colour failure. Colours: P2 and P6 both want black, same histories (E.3
    finds no round of different colours): E.4, the higher P2 gets black; P3
    white (E.1); P5 and P1 both want white: E.4, P5 (1 point) gets it.
    JaVaFo 1.4 pairs the same (with XXR in the file)."""
    history = [
        rnd(1, ("P1", "P4", DRAW), ("P5", "P2", LOSS), ("P3", "P6", WIN)),
        rnd(2, ("P2", "P3", DRAW), ("P6", "P1", WIN), ("P4", "P5", LOSS)),
    ]
    assert games_of(field(6), history) == ["P6-P2", "P3-P4", "P5-P1"]


def test_c10_drops_b5_for_upfloaters_before_b6_for_downfloaters() -> None:
    """C.10.a-c (docs/pairing.md, second 2012/2017 example). After three rounds
    P2 (2.5) is alone and moves down into {P4, P7} (2 points), strong white
    against P4 (strong black) and P7 (absolute black); X1 = 0.
    P4 downfloated in round 2 and upfloated in round 3; P7 upfloated in round 2.
    All requirements: P2-P4 makes P4 upfloat again (B.5), P2-P7 makes P7 upfloat
    as two rounds before (B.6). C.10.a drops B.6 for upfloaters: P2-P7 would
    move P4 down, who downfloated two rounds before (B.6 for downfloaters).
    C.10.b drops B.5 for upfloaters (and restores B.6): P2-P4, P7 moves down
    with no float against him. The rest follows (P7 has met P1 and P5, so C.1
    moves him on; C.13 joins the two lowest brackets)."""
    history = [
        rnd(1, ("P4", "P8", WIN), ("P7", "P5", DRAW), ("P3", "P2", DRAW), ("P1", "P6", WIN)),
        rnd(2, ("P7", "P1", DRAW), ("P4", "P5", LOSS), ("P6", "P2", LOSS), ("P8", "P3", DRAW)),
        rnd(3, ("P7", "P3", WIN), ("P2", "P5", WIN), ("P1", "P4", LOSS), ("P8", "P6", LOSS)),
    ]
    assert games_of(field(8), history)[0] == "P2-P4"


def test_requested_byes_are_not_paired() -> None:
    """F.5: players known not to play a round are not paired. Round 1 with six
    players, P2 absent: five in A.2 order, S1 = {P1, P3}, S2 = {P4, P5, P6}:
    P1-P4, P3-P5 and the lowest, P6, gets the bye (F.4); E.5: board 1 white
    for the top player, board 2 the other way round."""
    context = RoundContext(requested_byes=(Bye("P2", ByeKind.ZERO),))
    pairing = Dutch2012().pair(field(6), [], double=False, context=context)
    assert [f"{g.white}-{g.black}" for g in pairing.games] == ["P1-P4", "P5-P3"]
    assert pairing.bye == "P6"
    assert pairing.requested_byes == context.requested_byes


def test_double_round_schedule_and_colour_history() -> None:
    """Double rounds: the system allocates the first game's colours and the
    reversed games follow in the same board order. The round counts once in
    the colour history, with the first game's colour: after round 1 (P1 white
    in game 1 against P3, P4 white in game 1 against P2) P1 and P4 want black
    (strong, difference +1 over first games), P2 and P3 white; the round is one
    encounter worth both games' points (two draws: one point each)."""
    history = [
        RoundRecord(
            1,
            None,
            (),
            (
                PlayedGame("P1", "P3", DRAW),
                PlayedGame("P4", "P2", DRAW),
                PlayedGame("P3", "P1", DRAW),
                PlayedGame("P2", "P4", DRAW),
            ),
        )
    ]
    states = player_states(field(4), history, double=True)
    assert states["P1"].colours == (W,)
    assert states["P2"].colours == (B,)
    assert states["P1"].score == 2
    assert states["P1"].opponents == {"P3"}
    # Round 2 as in the exchange test: P2-P1 and P3-P4, then the reversed games.
    pairing = Dutch2012().pair(field(4), history, double=True)
    assert [(g.white, g.black, g.leg) for g in pairing.games] == [
        ("P2", "P1", 1),
        ("P3", "P4", 1),
        ("P1", "P2", 2),
        ("P4", "P3", 2),
    ]


def test_top_scorers_may_ignore_b2_in_the_last_round() -> None:
    """B.2's note, A.10, C.10.g. After R1 (P1-P4, P2-P5 won by white, P3-P6
    drawn) and R2 (P1-P5, P2-P6 won by white, P4-P3 drawn): P1 and P2 have 2/2
    with white twice (both absolute black), P3 1, P4 and P6 1/2, P5 0.

    Last round of 3: P1 and P2 are top scorers (over 50% of the maximum 2), so
    C.10.g drops B.2 for them: P1-P2, and E.3 finds no round with different
    colours, so E.4 gives the higher ranked P1 his black. P3 (met P4 and P6)
    moves down to P5: P5-P3 (P5's absolute white beats P3's mild, E.2); P6-P4
    (P6 absolute white, P4 mild black). F.1: the pair with P3 (1 point) before
    the 1/2-point pair.

    Not the last round: B.2 holds and P1 never meets P2."""
    history = [
        rnd(1, ("P1", "P4", WIN), ("P2", "P5", WIN), ("P3", "P6", DRAW)),
        rnd(2, ("P1", "P5", WIN), ("P2", "P6", WIN), ("P4", "P3", DRAW)),
    ]
    last = RoundContext(total_rounds=3)
    assert games_of(field(6), history, context=last) == ["P2-P1", "P5-P3", "P6-P4"]
    not_last = games_of(field(6), history, context=RoundContext(total_rounds=5))
    assert "P2-P1" not in not_last
    assert "P1-P2" not in not_last


def test_c12_backtrack_for_another_floater() -> None:
    """C.1, C.12. R1: P1-P3 1/2, P5-P4 0-1, P2-P6 1-0; R2: P1-P5 1-0, P3-P2 1-0,
    P4-P6 1-0. Round 3 brackets: 2 {P4}, 1.5 {P1, P3}, 1 {P2}, 0 {P5, P6}.
    P4 moves down alone. {P4 | P1, P3} (odd round; all want black, X1 = 1):
    the first transposition P4-P1 (one colour failure) moves P3 down. In
    {P3 | P2} P3 has met P2: an incompatible moved-down player (C.1), so C.12
    asks the previous bracket for another floater with the same score: P4-P3
    moves P1 down instead, and P1-P2 can be paired. Then P5-P6.
    Colours: P4, P3 both mild black with equal histories: E.4, P4 black; P1's
    absolute black; P6's absolute white beats P5's mild (E.2)."""
    history = [
        rnd(1, ("P1", "P3", DRAW), ("P5", "P4", LOSS), ("P2", "P6", WIN)),
        rnd(2, ("P1", "P5", WIN), ("P3", "P2", WIN), ("P4", "P6", WIN)),
    ]
    assert games_of(field(6), history) == ["P3-P4", "P2-P1", "P6-P5"]


def _trf_round(name: str) -> list[str]:
    """tcecd's pairing of a stored JaVaFo 1.4 round (data/javafo14), as
    ``white-black`` by pairing number in board order, then ``bye N``."""
    path = Path(__file__).parent / "data" / "javafo14" / f"{name}.trf"
    event = parse_trf(path.read_text(), str(path))
    pairing = Dutch2012().pair(event.players, event.rounds, double=False, context=event.context)
    out = [f"{g.white}-{g.black}" for g in pairing.games]
    if pairing.bye:
        out.append(f"bye {pairing.bye}")
    return out


def test_players_without_games_after_round_one() -> None:
    """Seed 19, round 2 (XXC black1: round 1's top board gave its higher
    player black, the lot). Present: 3 and 5 (1 point: a forfeit win and the
    bye), 2 and 6 (0: a forfeit loss, an absence); none has played a game, so
    none has a colour preference (A.7.f, F.2). Pairs 3-5 and 2-6 (F.4's
    transposition in each bracket). E.1-E.4 decide nothing; the text is silent
    after round 1, and tcecd does as JaVaFo 1.4: the higher ranked player gets
    the lot's colour (black) with an even pairing number, white with an odd one.
    3 (odd) white against 5; 2 (even) black against 6."""
    assert _trf_round("s19r2") == ["3-5", "6-2"]


def test_c10_drops_b5_for_upfloaters_for_one_pair_only() -> None:
    """Seed 4, round 7, the last (XXR 7): top scorers have over 3 points (A.10).
    1 and 2 (5 points) have met, 3 (4) has met both: all three move down (C.1)
    into the 3-point bracket {4, 6, 7, 9, 11}, heterogeneous (3 of 8): S1 =
    {1, 2, 3}, S2 = 4, 6, 7, 9, 11 in A.2 order. 1 may meet 6, 9, 11; 2 may meet
    7, 9, 11; 3 may meet 4, 6, 7, 11. 4 and 7 upfloated in round 6 (B.5 for
    upfloaters), 9 in round 5 (B.6); X1 = P0 - B = 4 - 2 = 2 (4 and 7 want
    black, the six others white). Every requirement: S1 needs three of 6, 11
    (two players): none. C.10.a drops B.6 for upfloaters: 1-6 2-9 3-11 leaves
    4-7, who met; so do 1-9 2-11 3-6 and 1-11 2-9 3-6. C.10.b drops B.5 for
    upfloaters for one pair only (the minimum): 1-6 2-7 3-11 leaves 4-9 (met);
    1-6 2-11 3-4 leaves 7-9, fine, with X = 2 (1-6 and 2-11 both want white).
    Dropping B.5 for every pair would have taken 1-6 2-7 3-4 9-11 first.
    Colours: 1 and 6 both want white mildly with the same history (E.3 finds
    no round of different colours), so 1, the higher ranked, gets it (E.4);
    11 wants white strongly, 2 mildly (E.2); 3 white, 4 black and 9 white,
    7 black grant both preferences (E.1)."""
    games = _trf_round("s4r7")
    assert games[:3] == ["1-6", "11-2", "3-4"]
    assert "9-7" in games


def test_c13_keeps_the_lowest_brackets_moved_down_player_paired() -> None:
    """Seed 108, round 6 (even). 1 (4 points, absolute black) has met 2 and 4
    (3 points), who have met each other: all three move down (C.1; the 4-point
    bracket has nobody else to send, C.12). In the 2.5 bracket 2 has met 3 and
    moves on; {1, 4 | 3} is two-thirds moved down, homogeneous (A.3); B.3: the
    player left unpaired scores as little as possible: 3 (2.5) cannot be, 1
    and 4 have met; 4 (3) can: 1-3 (both want black: X = 1). The 2-point
    bracket {2, 4 | 5}: 2-4 met, so one of them moves down; X1 = 1, Z1 = 0
    (A.8: 4 and 5 want white strongly, 2 mildly): 2-5 breaks no strong
    preference, 4-5 does (Z); 4 downfloated in round 5, so B.5 for
    downfloaters must be dropped (for one player) first: 2-5, 4 moves down.
    The lowest bracket {4 | 6, 9}: 4 has met 9; 4-6 leaves 9, who had a point
    without playing, for the bye (B.1b). C.13 reduces M1; as JaVaFo 1.4 reads
    it, the penultimate bracket is asked first for another pairing that moves
    down as many players and lets the lowest pair its moved-down player: 4-5
    (once Z = 1) moves 2 down; {2 | 6, 9}: 2-6 leaves 9 for the bye again,
    2-9 leaves 6 (no point without playing): bye 6. Colours: 1 absolute black
    (E.2), 4 absolute white (E.2), 2 white (E.1). Boards (F.1): 3-1, 4-5, 2-9."""
    assert _trf_round("s108r6") == ["3-1", "4-5", "2-9", "bye 6"]
