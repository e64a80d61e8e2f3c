"""Writing TRF-2016: the columns FIDE's layout fixes, and what cannot be written."""

from __future__ import annotations

import pytest

from tcecd.domain import Color, Result
from tcecd.errors import TrfError
from tcecd.pairing.base import Bye, ByeKind, PlayedGame, Player, RoundContext, RoundRecord
from tcecd.trf import TrfEvent, format_trf

PLAYERS = (
    Player("stockfish", "Stockfish 17", 1, 3650, "GM"),
    Player("lc0", "Lc0", 2, 3640),
    Player("ethereal", "Ethereal", 3, None),
)


def test_columns() -> None:
    # Round 1: lc0 (2) white beats stockfish (1); ethereal (3) the pairing bye.
    # Round 2: stockfish forfeits to ethereal (never played); lc0 half-point bye.
    # Round 3 to pair: ethereal asked for a zero-point bye.
    rounds = (
        RoundRecord(1, "ethereal", (), (PlayedGame("lc0", "stockfish", Result.WHITE_WINS),)),
        RoundRecord(
            2,
            None,
            (),
            (PlayedGame("stockfish", "ethereal", Result.BLACK_WINS, played=False),),
            (Bye("lc0", ByeKind.HALF),),
        ),
    )
    context = RoundContext(5, (Bye("ethereal", ByeKind.ZERO),), Color.BLACK)
    lines = format_trf(TrfEvent("Test Cup", PLAYERS, rounds, context)).splitlines()
    assert lines[0] == "012 Test Cup"
    sf, lc0, eth = lines[1:4]
    col = lambda line, a, b: line[a - 1 : b]  # noqa: E731 - 1-based inclusive, as TRF-2016
    assert col(sf, 1, 3) == "001"
    assert col(sf, 5, 8) == "   1"
    assert col(sf, 11, 13) == " GM"
    assert col(sf, 15, 47).rstrip() == "Stockfish 17"
    assert col(sf, 49, 52) == "3650"
    assert col(eth, 49, 52) == "    "  # unrated
    # Points: stockfish 0, lc0 1 + 0.5, ethereal 1 (bye) + 1 (forfeit win).
    assert [col(x, 81, 84) for x in (sf, lc0, eth)] == [" 0.0", " 1.5", " 2.0"]
    # Rank by points: ethereal 1, lc0 2, stockfish 3.
    assert [col(x, 86, 89) for x in (sf, lc0, eth)] == ["   3", "   2", "   1"]
    # Round blocks from column 92, 10 columns each.
    assert col(sf, 92, 99) == "   2 b 0"
    assert col(sf, 102, 109) == "   3 w -"
    assert col(lc0, 92, 99) == "   1 w 1"
    assert col(lc0, 102, 109) == "0000 - H"
    assert col(eth, 92, 99) == "0000 - U"
    assert col(eth, 102, 109) == "   1 b +"
    assert col(eth, 112, 119) == "0000 - Z"  # the round to pair's requested bye
    assert len(sf) == 109  # no trailing blanks
    assert lines[4:] == ["XXR 5", "XXC black1"]


def test_absent_player_is_written_as_zero_point_bye() -> None:
    rounds = (RoundRecord(1, None, (), (PlayedGame("lc0", "stockfish", Result.DRAW),)),)
    text = format_trf(TrfEvent(None, PLAYERS, rounds, RoundContext()))
    assert text.splitlines()[2][91:99] == "0000 - Z"
    assert not text.startswith("012")


@pytest.mark.parametrize(
    ("rounds", "context", "message"),
    [
        (
            (
                RoundRecord(
                    1,
                    "ethereal",
                    (),
                    (
                        PlayedGame("lc0", "stockfish", Result.DRAW),
                        PlayedGame("stockfish", "lc0", Result.DRAW),
                    ),
                ),
            ),
            RoundContext(),
            "cannot write TRF: round 1: 'stockfish' has more than one game or bye "
            "(TRF-2016 holds one game per player and round: no double rounds)",
        ),
        (
            (
                RoundRecord(
                    1, "ethereal", (), (PlayedGame("lc0", "stockfish", Result.DRAW, False),)
                ),
            ),
            RoundContext(),
            "cannot write TRF: round 1: unplayed game 'lc0'-'stockfish' is a draw "
            "(a forfeit has a winner)",
        ),
        (
            (RoundRecord(1, "ethereal", (), (PlayedGame("lc0", "stockfish", Result.DRAW),)),),
            RoundContext(total_rounds=0),
            "cannot write TRF: XXR 0 is less than the 1 finished rounds",
        ),
    ],
)
def test_what_cannot_be_written(
    rounds: tuple[RoundRecord, ...], context: RoundContext, message: str
) -> None:
    with pytest.raises(TrfError) as info:
        format_trf(TrfEvent(None, PLAYERS, rounds, context))
    assert str(info.value) == message
