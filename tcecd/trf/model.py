"""The value a TRF-2016 file holds for pairing, and its column layout."""

from __future__ import annotations

from dataclasses import dataclass

from tcecd.pairing.base import Player, RoundContext, RoundRecord

# TRF-2016 "001" player line: 1-based, inclusive column ranges of each field.
# (FIDE's TRF-2016 description; JaVaFo's AUM and bbpPairings read the same.)
START_RANK = (5, 8)
SEX = (10, 10)
TITLE = (11, 13)
NAME = (15, 47)
RATING = (49, 52)
FEDERATION = (54, 56)
FIDE_ID = (58, 68)
BIRTH = (70, 79)
POINTS = (81, 84)
RANK = (86, 89)
#: Round 1's block starts in column 92; each round takes 10 columns:
#: opponent's start rank (4), blank, colour (1), blank, result (1), 2 blanks.
FIRST_ROUND_COLUMN = 92
ROUND_WIDTH = 10


@dataclass(frozen=True, slots=True)
class TrfEvent:
    """A tournament as a TRF describes it, ready to pair.

    ``players`` are in pairing-number order; each ``Player.id`` is the pairing
    number as a string (TRF names may repeat), ``seed`` the pairing number.
    ``rounds`` are the finished rounds 1, 2, ... with games ordered by the
    lower pairing number of the two players (a TRF has no board numbers).
    ``context`` is the round to pair next: ``total_rounds`` from ``XXR``,
    ``first_colour`` from ``XXC``, ``requested_byes`` from that round's column
    (``0000 - H``/``F``/``Z``) and JaVaFo's ``XXZ`` line.
    """

    name: str | None
    players: tuple[Player, ...]
    rounds: tuple[RoundRecord, ...]
    context: RoundContext
