"""Rounds where JaVaFo 1.4 departs from the 2012 text and tcecd follows the text.

Each case is a round of a random tournament (test_javafo.py's DEPARTURES),
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
