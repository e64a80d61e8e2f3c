"""Reading TRF-2016: what each code becomes, and one-line errors for bad files."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tcecd.domain import Color, Result
from tcecd.errors import TcecdError, TrfError
from tcecd.pairing.base import Bye, ByeKind, PlayedGame, Player
from tcecd.trf import parse_trf
from tests.trf.helpers import player_line as pl


def test_columns_and_codes() -> None:
    # Five players, two finished rounds, round 3 to pair.
    # Round 1: 1-3 white wins; 4 forfeits to 2 (4 listed white, never played);
    #          5 gets the pairing-allocated bye.
    # Round 2: 5-1 draw (5 white); 2 and 3 play unrated: 3 white wins (W/L);
    #          4 requested a half-point bye.
    # Round 3 (to pair): 2 requested a zero-point bye in its column, XXZ adds 5.
    text = "\n".join(
        [
            "012 Test Open",
            pl(1, "Alpha, A", 2400, "3 w 1", "5 b =", title="GM"),
            pl(2, "Beta, B", 2300, "4 b +", "3 b L", "0000 - Z"),
            pl(3, "Gamma, C", None, "1 b 0", "2 w W"),
            pl(4, "Delta, D", 0, "2 w -", "0000 - H"),
            pl(5, "Alpha, A", 2100, "0000 - U", "1 w ="),
            "XXR 7",
            "XXC black1",
            "XXZ 5",
        ]
    )
    event = parse_trf(text + "\n", "t.trf")
    assert event.name == "Test Open"
    assert event.players[0] == Player("1", "Alpha, A", 1, 2400, "GM")
    # Names may repeat: ids are the pairing numbers. Rating 0 (unrated) and blank read as None.
    assert [p.id for p in event.players] == ["1", "2", "3", "4", "5"]
    assert event.players[4].name == "Alpha, A"
    assert event.players[2].rating is None
    assert event.players[3].rating is None
    r1, r2 = event.rounds
    assert r1.bye == "5"
    assert r1.requested_byes == ()
    # Games ordered by the lower pairing number of the pair: (1,3) before (2,4).
    assert r1.games == (
        PlayedGame("1", "3", Result.WHITE_WINS),
        PlayedGame("4", "2", Result.BLACK_WINS, played=False),
    )
    assert r2.bye is None
    assert r2.games == (
        PlayedGame("5", "1", Result.DRAW),
        PlayedGame("3", "2", Result.WHITE_WINS),
    )
    assert r2.requested_byes == (Bye("4", ByeKind.HALF),)
    assert event.context.total_rounds == 7
    assert event.context.first_colour is Color.BLACK
    assert event.context.requested_byes == (Bye("2", ByeKind.ZERO), Bye("5", ByeKind.ZERO))


def test_line_ends_absent_players_old_codes_and_double_forfeit() -> None:
    # bbpPairings writes CR line ends. Round 1: 1-2 a double forfeit (no game:
    # two zero-point byes); 3 has no entry (absent: zero-point bye); 4 has
    # JaVaFo's old code "0000 - +" (the pairing-allocated bye). Round 2: 4 has
    # "0000 - =" (old half-point bye), 1-2 and 3 blank; it holds no game and no
    # pairing-allocated bye and is the last column, so it is the round to pair.
    lines = [
        pl(1, "A", 2000, "2 - -", ""),
        pl(2, "B", 1900, "1 - -", ""),
        pl(3, "C", 1800, ""),
        pl(4, "D", 1700, "0000 - +", "0000 - ="),
    ]
    event = parse_trf("\r".join(lines), "cr.trf")
    (r1,) = event.rounds
    assert r1.games == ()
    assert r1.bye == "4"
    assert r1.requested_byes == (
        Bye("1", ByeKind.ZERO),
        Bye("2", ByeKind.ZERO),
        Bye("3", ByeKind.ZERO),
    )
    assert event.context.requested_byes == (Bye("4", ByeKind.HALF),)
    assert event.context.total_rounds is None


def test_first_colour_inferred_without_xxc() -> None:
    # No XXC: bbpPairings' rule, the colour of the highest participant of the
    # first round with colours. Player 1 is absent; player 2, the highest
    # participant, has black: black.
    lines = [
        pl(1, "A", 2000, "0000 - Z"),
        pl(2, "B", 1900, "3 b 1"),
        pl(3, "C", 1800, "2 w 0"),
    ]
    assert parse_trf("\n".join(lines), "x").context.first_colour is Color.BLACK
    # Player 1 plays without a colour (forfeit): the next participant, 2, has
    # white, so 1 would have had black (participants alternate colours).
    lines = [
        pl(1, "A", 2000, "3 - +"),
        pl(2, "B", 1900, "4 w 1"),
        pl(3, "C", 1800, "1 - -"),
        pl(4, "D", 1700, "2 b 0"),
    ]
    assert parse_trf("\n".join(lines), "x").context.first_colour is Color.BLACK


GOOD = [pl(1, "A", 2000, "2 w 1"), pl(2, "B", 1900, "1 b 0"), pl(3, "C", 1800, "0000 - U")]


#: Bad files and the exact error line each gives (also run through the CLI
#: in tests/pairing/test_cli_trf.py).
BAD_CASES: list[tuple[list[str], str]] = [
    (
        [GOOD[0].replace("2 w 1", "2 x 1"), *GOOD[1:]],
        "bad.trf:1: round 1 colour: expected w, b or -, got 'x'",
    ),
    (
        [GOOD[0], GOOD[1].replace("1 b 0", "1 b ?"), GOOD[2]],
        "bad.trf:2: round 1 result: invalid result '?' for a game ('1 b ?')",
    ),
    (
        # The block shifted one column left.
        [GOOD[0].replace("   2 w 1", "  2 w 1 "), *GOOD[1:]],
        "bad.trf:1: round 1: expected 'NNNN c r' in the round's columns, got '2 w 1'",
    ),
    (
        [GOOD[0].replace("   2 w 1", "   7 w 1"), *GOOD[1:]],
        "bad.trf:1: round 1 opponent: unknown pairing number 7",
    ),
    (
        [GOOD[0], GOOD[1].replace("1 b 0", "1 w 0"), GOOD[2]],
        "bad.trf:2: round 1 colour: colours disagree: player 1 has '2 w 1', player 2 has '1 w 0'",
    ),
    (
        [GOOD[0], GOOD[1].replace("1 b 0", "1 b 1"), GOOD[2]],
        "bad.trf:2: round 1 result: results disagree: player 1 has '2 w 1', player 2 has '1 b 1'",
    ),
    (
        [GOOD[0], GOOD[1].replace("   1 b 0", "   3 b 0"), GOOD[2]],
        "bad.trf:1: round 1 opponent: player 1 lists '2 w 1' but player 2 lists '3 b 0'",
    ),
    (
        [*GOOD, "XXR 0"],
        "bad.trf:4: XXR: expected the number of rounds, got '0'",
    ),
    (
        ["XXR 1", *[line + "  0000 - H" for line in GOOD]],
        "bad.trf:1: XXR: 1 rounds, but the file has 1 finished round(s) and byes for the next",
    ),
    (
        [*GOOD, "XXC random"],
        "bad.trf:4: XXC: unsupported value 'random' (expected white1 or black1)",
    ),
    (
        [GOOD[0], GOOD[1].replace("   2 ", "   1 ", 1), GOOD[2]],
        "bad.trf:2: start rank: duplicate pairing number 1 (also on line 1)",
    ),
    (
        [GOOD[0], GOOD[1], GOOD[2].replace("   3 ", "   9 ", 1)],
        "bad.trf:3: start rank: pairing number 9 with 3 players (pairing numbers must be 1..3)",
    ),
    (
        [GOOD[0].replace("2000", "20x0"), *GOOD[1:]],
        "bad.trf:1: rating: expected a number, got '20x0'",
    ),
    (
        [*GOOD, "XXZ 4"],
        "bad.trf:4: XXZ: unknown pairing number 4",
    ),
    (
        [*GOOD, "XXA    1  1.x"],
        "bad.trf:4: XXA: round 1 (columns 10-13): expected a number, got '1.x'",
    ),
    (
        [*GOOD, "XXA    1  1.00"],
        "bad.trf:4: XXA: round 1 (columns 10-13): expected 'pp.p' and a blank column, "
        "got ' 1.00'",
    ),
    (
        [*GOOD, "XXA    1  .25"],
        "bad.trf:4: XXA: round 1 (columns 10-13): points are multiples of 0.1, got '.25'",
    ),
    ([*GOOD, "XXA    4  1.0"], "bad.trf:4: XXA: unknown pairing number 4"),
    (
        [*GOOD, "XXR 2", "XXA    1  1.0  1.0  0.5"],
        "bad.trf:5: XXA: virtual points for 3 rounds, but XXR is 2",
    ),
    ([*GOOD, "XXP 1 4"], "bad.trf:4: XXP: unknown pairing number 4"),
    (
        [*GOOD, "XXP 3"],
        "bad.trf:4: XXP: expected two pairing numbers (a forbidden pair), got '3'",
    ),
    ([*GOOD, "XXP 1 x"], "bad.trf:4: XXP: expected pairing numbers, got 'x'"),
    (
        [*GOOD, "XXS W=3 WIN=1"],
        "bad.trf:4: XXS: expected CODE=points (WW BW WD BD WL BL FW FL PAB FPB HPB ZPB W D L), "
        "got 'WIN=1'",
    ),
    ([*GOOD, "XXS W=-1"], "bad.trf:4: XXS W: points cannot be negative, got '-1'"),
    ([*GOOD, "BBD  x.5"], "bad.trf:4: BBD: expected a number, got 'x.5'"),
    (
        # bbpPairings' check: a score the results do not give under the point system.
        [pl(1, "A", 2000, "2 w 1", points="1.0"), *GOOD[1:], "BBW  3.0"],
        "bad.trf:1: points: player 1's score is 1, but its results give 3 "
        "(points: win 3, draw 0.5, loss 0)",
    ),
    (
        [pl(1, "A", 2000, "2 w 1"), pl(2, "B", 1900, "1 b 0", points="0.5"), GOOD[2]],
        "bad.trf:2: points: player 2's score is 0.5, but its results give 0",
    ),
    (
        [pl(1, "A", 2000, "2 w 1", points="1.x"), *GOOD[1:]],
        "bad.trf:1: points: expected points such as 2.5, got '1.x'",
    ),
    (["012 empty"], "bad.trf: no player lines (001)"),
]


@pytest.mark.parametrize(("lines", "message"), BAD_CASES)
def test_bad_trf_is_one_line(lines: list[str], message: str) -> None:
    with pytest.raises(TrfError) as info:
        parse_trf("\n".join(lines) + "\n", "bad.trf")
    assert str(info.value) == message
    assert isinstance(info.value, TcecdError)
    assert info.value.exit_code == 2


def test_rule_lines_and_unknown_codes() -> None:
    """``XXP``, ``XXA``, ``XXS`` and ``BB?`` lines become the context's rules;
    other ``XX?`` and ``BB?`` codes pass, as JaVaFo lets them (and the ``012``
    name survives an ``XXS`` line)."""
    lines = [
        "012 Rules",
        pl(1, "A", 2000, "2 w 1", points="3.0"),
        pl(2, "B", 1900, "1 b 0", points="0.0"),
        pl(3, "C", 1800, "0000 - U", points="3.0"),
        "XXR 5",
        "XXP 1 3",
        "XXP 2 3 1",  # bbpPairings: every two of them
        "XXA    2  0.0  1.0",
        "XXS W=3 D=1",
        "BBU  3.0",
        "XXY anything",
        "BBX 1.0",
    ]
    event = parse_trf("\n".join(lines) + "\n", "rules.trf")
    assert event.name == "Rules"
    context = event.context
    assert context.forbidden_pairs == {frozenset(p) for p in (("1", "3"), ("2", "3"), ("1", "2"))}
    assert context.points.describe() == "win 3, draw 1, loss 0"
    assert context.acceleration.virtual("2", 2) == context.points.units(Fraction(1))
    assert context.acceleration.virtual("1", 2) == 0


def test_a_last_column_with_only_a_pairing_allocated_bye_is_a_finished_round() -> None:
    """Round 2: players 1, 2 and 4 absent (no entries), 3 the pairing-allocated bye
    ``U``: a round that was paired and is over (a bye is never requested as ``U``),
    not the round to pair. bbpPairings v5.0.1 reads the file so too: it pairs round 3,
    ``1 3`` and ``2 4`` (by hand: 3 leads on 2 points, 1 has 1, 2 and 4 none; 3-1 and
    2-4 never met; 3 and 1 both had white last, the higher ranked 3 gets black; 2 and 4
    both had black, the higher ranked 2 gets white). Reading it as unfinished passed
    every test (issue 27)."""
    lines = [
        pl(1, "A", 2000, "2 w 1", ""),
        pl(2, "B", 1900, "1 b 0", ""),
        pl(3, "C", 1800, "4 w 1", "0000 - U"),
        pl(4, "D", 1700, "3 b 0", ""),
        "XXR 3",
        "XXC white1",
    ]
    event = parse_trf("\n".join(lines) + "\n", "u.trf")
    _r1, r2 = event.rounds
    assert (r2.round, r2.bye, r2.games) == (2, "3", ())
    assert r2.requested_byes == tuple(Bye(n, ByeKind.ZERO) for n in ("1", "2", "4"))
    assert event.context.requested_byes == ()
    from tcecd.pairing.registry import get_system

    pairing = get_system("dutch-2017").pair(
        event.players, event.rounds, double=False, context=event.context
    )
    assert pairing.round == 3
    assert [(g.white, g.black) for g in pairing.games] == [("1", "3"), ("2", "4")]
