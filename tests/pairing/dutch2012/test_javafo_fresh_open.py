"""The fresh rounds of 15 players where tcecd's Dutch 2012 still differs from
JaVaFo 1.4, without Java.

``record_c13_sample.py``'s forecasts with 15 players and seeds 55 to 60 pair
7,427 distinct rounds; JaVaFo 1.4 answered 7,425 of them on 2026-11-29 and
paired 7,405 as tcecd did then, 7,415 since three readings taken that day
(C.14.b1 lowers P1 below M1 only at P0, and for a lower bye only when that
bye is one of the penultimate bracket's own players; B.5/B.6 no longer bar
the bye of a lowest bracket whose S2 has unequal scores).
``data/javafo14-fresh15-open.json.gz`` keeps the other 10
(``record_forecast.py``'s format; JaVaFo's outputs only), then 20 of seeds
61 to 66: JaVaFo 1.4 answered 7,434 of their 7,439 distinct rounds and
paired 7,413 as tcecd did, 7,414 since C.12 for a moved-down player without
an opponent in the lowest bracket (found on one of them, d977645fefc5, in
the sixth session that day; no other reading was chosen on those seeds).
Two more (a2cf9abbebde, a883c80b619f) agree since C.12 counts P1 after
C.1 (the seventh session that day) and are case files now: 28 left. Then
23 of seeds 67 to 72: JaVaFo 1.4 answered 7,145 of their 7,149 distinct
rounds and paired 7,121 as tcecd did, 7,122 since the penultimate
bracket's other floaters are asked before the lowest lowers M1 (found on
one of them, e590b01a6f61, that session): 51 in all. Four of them
(1b22f56660e9, d6f6801f3be2, 330251361b70, 41adffbffc4f) agree since C.14.b2
goes on at P1 = M1 (the eighth session that day) and are case files now: 47
left. Fourteen more agree since a joined bracket tries each least B.3 cost
with B.2 in force and then dropped before the next (that session): 33 left.
Six more (38f80b049ed4, 47006bad6dad, 9ca932e3f315, 24169cb94d38,
a1f195c9aba6, dc670fbf2900) agree since C.13 gives back C.12's other set of
floaters when it asks that bracket again (2026-11-30): 27 left. In all of
them, C.13 has joined the lowest brackets and asked the penultimate one
for another pairing (docs/pairing.md, "Fresh rounds of 15 players"). Each
must still differ: a
round that starts to agree fails here, so that it moves to
``test_javafo_cases.py`` with the reading that settles it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tcecd.trf.reader import parse_trf
from tests.pairing.dutch2012.oracle import tcecd_pairing
from tests.pairing.dutch2012.record_forecast import load, round_key

RECORDING = Path(__file__).parent / "data" / "javafo14-fresh15-open.json.gz"
ROUNDS = load(RECORDING)


def test_the_recording_is_whole() -> None:
    keys = [round_key(r["trf"]) for r in ROUNDS]
    assert len(ROUNDS) == 27
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("chunk", range(6))
def test_open_rounds_still_differ(chunk: int) -> None:
    agree = []
    for r in ROUNDS[chunk::6]:
        got, _ = tcecd_pairing(parse_trf(r["trf"], "fresh round"))
        assert got.strip(), got
        if got == r["javafo"]:
            agree.append(f"{round_key(r['trf'])} now agrees with JaVaFo 1.4: make it a case file")
    assert not agree, "\n".join(agree)
