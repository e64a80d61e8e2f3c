"""Rounds paired by JaVaFo 1.4 where the 2012 text can be read more than one way.

Each file in ``data/javafo14/`` is a round of a random tournament
(:mod:`tests.pairing.dutch2012.oracle`, seed and round in the name; ``c13-``:
a round of the C.13 sample, ``record_c13_sample.py``, by its key; ``fc-``: a
round of the sample's forecasts run with other seeds, 31 to 54, or 55 to 94 with 5 to
16 players) as JaVaFo
1.4 reads it (its bye codes), with JaVaFo 1.4's own ``-p`` output beside it:
the expected pairing is JaVaFo's, not tcecd's. Each shows one reading
docs/pairing.md ("Dutch 2012") describes; no Java is needed to run them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tcecd.trf.reader import parse_trf
from tests.pairing.dutch2012.oracle import tcecd_pairing

DATA = Path(__file__).parent / "data" / "javafo14"

CASES = {
    "s19r2": "two players without any game after round 1: lot colour by pairing number",
    "s4r7": "C.10: B.5 for upfloaters dropped for one pair only (the minimum)",
    "s9r7": "B.3: the player moved down has the lowest score possible, before A.7.d and X",
    "s13r5": "B.3: the bye has the lowest score possible, before X",
    "s11r9": "B.3: a half-moved-down bracket moves down its lowest scored player",
    "s32r4": "B.3: in a merged bracket the pairs' score differences are smallest",
    "s77r8": "B.3: score differences smallest, the bye fixed first",
    "s80r8": "B.3 in a heterogeneous bracket after C.14: the lowest mover stays unpaired",
    "s44r4": "C.14.b1: the remainder counts as reached when the level was skipped",
    "s51r7": "C.12: another floater with whom more moved-down players are paired",
    "s262r4": "C.12: another floater with whom the bracket makes its P1 pairs",
    "s166r7": "C.12: no other floater when it pairs no more moved-down players",
    "s171r7": "C.12: no other floater when P1 is met only by C.1 moving a player on",
    "s125r4": "B.5: a moved-down player moved on takes no new downfloat",
    "s108r6": "C.13: the penultimate bracket keeps the lowest's moved-down player paired",
    "s142r6": "C.13: as s108r6, the bye to a resident instead of a moved-down player",
    "s3r4": "C.13: M1 = 0 in the lowest bracket when no other pairing helps",
    "s107r5": "C.13: the penultimate bracket keeps its P1 before anything else",
    "s192r7": "C.13: joined brackets paired as one, the joined players as S1, B.3 first",
    "s253r8": "C.13: a joined bracket keeps its pairs' score differences smallest (B.3)",
    "s221r5": "C.13: P zero in the penultimate bracket: it joins as S1, heterogeneous (A.3)",
    "s99r8": "C.13: as s221r5, three moved down (one by C.1) into eleven players",
    "s221r8": "C.13: no B.5/B.6 for upfloaters in the remainder of a joined bracket (A.3)",
    "s460r7": "C.14: P1 = M1 = 2 and the remainder reached: M1 lowered (C.14.b2), not P1",
    "s534r8": "C.14: as s460r7",
    "s129r9": "C.13: a joined heterogeneous bracket pairs all its movers before B.3's differences",
    "s173r8": "C.13: as s129r9, B.3's smallest differences among those pairing M1 movers",
    "s177r10": "C.13: a joined heterogeneous bracket keeps B.2 before lowering the bye's score",
    "s45r9": "B.3: two players moved down with the lowest total score (6.5 and 4, not 6 and 5)",
    "s811r4": "C.13: the penultimate bracket's floaters are a joined lowest bracket's movers",
    "s780r7": "C.13: as s811r4, two moved down into seven (five of two joined brackets)",
    "s788r10": "C.13: as s811r4, two moved down into seven, the last round",
    "s843r4": "C.13: as s811r4, two moved down into nine",
    "s885r9": "C.13: as s811r4, three moved down into eight",
    "s971r6": "C.13: as s811r4, two moved down into five",
    "s987r10": "C.13: as s811r4, two moved down into ten",
    "s994r5": "C.13: as s811r4, two moved down into five",
    "s873r6": "C.12 after C.1: other floaters, P1 pairs as before, a lower scored player moved on",
    "s710r11": "C.12 after C.1: as s873r6, 7 (6 points) moved on, not 6 (8)",
    "s985r6": "A.3: no B.5/B.6 for upfloaters in a bracket half moved down (homogeneous)",
    "s779r10": "C.13: the penultimate bracket keeps its P1 (M1 lowered) for the lowest's M1 = 0",
    "s1143r5": "C.14.b1: the remainder counts as reached when no pairing of P1 meets B.1",
    "s1444r5": "C.13: the penultimate bracket keeps its M1 too before the lowest's M1 = 0",
    "s1202r9": "C.12 after C.1: more moved-down players paired but no more pairs is no gain",
    "s1172r8": "C.13: a joined bracket without a bye: B.3's differences adding up to the least",
    "s1032r11": "A.3: no B.5/B.6 for the bye of a lowest remainder of unequal scores (joined)",
    "s1561r7": "C.13: B.3 in a joined bracket: squared differences, the bye's score with them",
    "s1610r6": "C.13: as s1561r7, two pairings of the least cost: the procedure's order decides",
    "s659r10": "C.13: as s1561r7 in a joined bracket of which at least half moved down",
    "s1970r5": "C.13: the penultimate's floaters with the same scores, else the lowest's M1 = 0",
    "s1936r9": "C.13: a joined lowest bracket lowers its M1 at once (the bye to its mover)",
    "s2037r10": "C.13: the penultimate bracket never leaves all its movers unpaired: P = 0, joined",
    "c13-c79fa2c9953e": "C.13: the lowest (3 players) failed on the bye alone: P1 lowered at M1",
    "c13-dbac8ab7609c": "C.13: as c13-c79fa2c9953e, the lowest joined (two moved down as S1)",
    "c13-48c215433ae5": "C.13: as c13-c79fa2c9953e; the lowest, half moved down: B.3 cost",
    "s670r8": "C.13: P1 lowered at P1 = M1 as it gives the bye a lower score than M1 lowered",
    "c13-419ee1501eae": "C.13: as s670r8, the bye to 4 points instead of 4.5",
    "s80r9": "C.13: P1 lowered at P1 = M1 when C.1 moved a moved-down player on through it",
    "c13-4430c9971b7e": "C.13: as s80r9, P1 = M1 = 3 (three moved down into seven)",
    "fc-bd4a0707f2ea": "C.13: B.3 in a joined bracket, the bye from the lowest score: 6.5 not 6",
    "fc-eccf474f4e03": "C.13: as fc-bd4a0707f2ea, costs equal: the procedure's order, the bye 2.5",
    "c13-ad113c84293d": "B.3: floaters of equal total and cost: the procedure's order (X) chooses",
    "fc-996f205fa1a5": "B.3: as c13-ad113c84293d, a fresh round (seeds 55 to 60)",
    "fc-66fd0f2e9833": "B.3: as c13-ad113c84293d, a fresh round (seeds 55 to 60)",
    "fc-5bb9209a1eec": "B.3: as c13-ad113c84293d, a fresh round (seeds 55 to 60)",
    "fc-6dcebc905ddb": "B.3: as c13-ad113c84293d, a fresh round (seeds 55 to 60)",
    "fc-1cd99db940dc": "B.3: as c13-ad113c84293d, a fresh round (seeds 61 to 66)",
    "fc-50d8d704cb5c": "B.3: as c13-ad113c84293d, a fresh round (seeds 61 to 66)",
    "fc-bae9b7169411": "B.3: as c13-ad113c84293d, a fresh round (seeds 61 to 66)",
    "fc-081268b20673": "B.3: as c13-ad113c84293d, a fresh round of 15 players (seeds 55 to 60)",
    "fc-7cbd0933c333": "B.3: as c13-ad113c84293d, a fresh round of 15 players (seeds 55 to 60)",
    "fc-cc3228f7193f": "C.13: P1 = M1 < P0 (C.14.b1 lowered P1): M1 lowered, not P1 (bye failed)",
    "fc-dad540d37e6f": "C.13: as fc-cc3228f7193f, a fresh round of 15 players (seeds 61 to 72)",
    "fc-932eabcbcc7c": "C.13: the lower bye of P1 lowered only if a resident of the penultimate",
    "fc-584fb146bc15": "C.13: as fc-932eabcbcc7c, a fresh round of 15 players (seeds 61 to 72)",
    "fc-62d17f7382e0": "A.3: no B.5/B.6 for the bye of a lowest bracket, S2 of unequal scores",
    "fc-75ee0e3f909d": "C.13: the lower moved-down player paired alone, the higher moved on",
    "fc-111dfc868d09": "C.13: joining keeps the pairing C.12 gave the bracket above",
    "fc-bef4372397a5": "C.13: as fc-111dfc868d09, a fresh round of 15 players (seeds 55 to 60)",
    "fc-d977645fefc5": "C.1/C.12: a moved-down player without opponent in the lowest bracket",
    "fc-a2cf9abbebde": "C.12: another floater with whom the bracket makes its P1 after C.1",
    "fc-a883c80b619f": "C.12 after C.1: as fc-a2cf9abbebde, more pairs than before",
    "fc-0fbfadad2b28": "C.12: a resident moved on by C.1 for colours alone still counts in P1",
    "fc-7b395f91c8e0": "C.12 after C.1: as fc-a883c80b619f, 13 players (seeds 43 to 54)",
    "fc-e590b01a6f61": "C.13: other floaters of the same scores before the lowest lowers M1",
    "fc-acbae079b7e4": "C.13: as fc-e590b01a6f61, 7 players (seeds 43 to 54)",
    "s2704r11": "B.3's exact cost in a joined bracket: found within the search budget",
    "fc-1b22f56660e9": "C.14.b2 at P1 = M1: M1 on down to 1 at that P1 before P1 is lowered",
    "fc-d6f6801f3be2": "C.14.b2 at P1 = M1: as fc-1b22f56660e9 (the same position)",
    "fc-330251361b70": "C.14.b2 at P1 = M1: as fc-1b22f56660e9",
    "fc-41adffbffc4f": "C.14.b2 at P1 = M1: as fc-1b22f56660e9",
    "fc-f5bc224073cd": "C.14.b2 at P1 = M1: as fc-1b22f56660e9, 13 players (seeds 43 to 54)",
    "fc-5df1f997e3ab": "C.14.b2 at P1 = M1: as fc-1b22f56660e9, 13 players (seeds 43 to 54)",
    "fc-6c1f002386bf": "C.13: each least B.3 cost with B.2 in force, then dropped, before the next",
    "fc-00e19d7b4e5e": "C.13: as fc-6c1f002386bf",
    "fc-1040903b62da": "C.13: as fc-6c1f002386bf",
    "fc-260bbbcdd6d7": "C.13: as fc-6c1f002386bf",
    "fc-3f9ba150d522": "C.13: as fc-6c1f002386bf",
    "fc-3fa066b143f6": "C.13: as fc-6c1f002386bf",
    "fc-5416cda4c014": "C.13: as fc-6c1f002386bf",
    "fc-5d5b91e03919": "C.13: as fc-6c1f002386bf",
    "fc-5efc7859348e": "C.13: as fc-6c1f002386bf",
    "fc-92b933b6bf7c": "C.13: as fc-6c1f002386bf",
    "fc-a11ba27f5c9c": "C.13: as fc-6c1f002386bf",
    "fc-b2bec4d542bc": "C.13: as fc-6c1f002386bf",
    "fc-b8642b8eb434": "C.13: as fc-6c1f002386bf",
    "fc-e4f0af890e4f": "C.13: as fc-6c1f002386bf",
    "fc-a6bc615e7f56": "C.13: as fc-6c1f002386bf, 11 players (seeds 43 to 54)",
    "fc-abe3a67a9994": "C.13: as fc-6c1f002386bf, 11 players (seeds 43 to 54)",
    "fc-74f02c597ce1": "C.13: as fc-6c1f002386bf, 11 players (seeds 43 to 54)",
    "fc-38f80b049ed4": "C.13: C.12's other set given back, it did not make the bracket's P1",
    "fc-47006bad6dad": "C.13: as fc-38f80b049ed4",
    "fc-9ca932e3f315": "C.13: as fc-38f80b049ed4",
    "fc-24169cb94d38": "C.13: C.12's set given back, it only kept a resident C.1 moved on",
    "fc-a1f195c9aba6": "C.13: as fc-24169cb94d38",
    "fc-dc670fbf2900": "C.13: as fc-24169cb94d38",
    "fc-0a21c2e892ff": "C.13: C.12's set kept when C.1 moves a player on with it (seeds 73 to 84)",
    "fc-194ce993e581": "C.13: as fc-38f80b049ed4, 13 players (seeds 85 to 90)",
    "fc-edbadbb0858d": "C.13: as fc-24169cb94d38, 13 players (seeds 85 to 90)",
    "fc-ae3b8fca87ad": "C.13: C.12's set kept once C.12 paired that bracket again (seeds 85-90)",
    "s3870r6": "C.13: failed on the bye: M1 lowered, not P1, for the same bye at a lower B.3 cost",
    "fc-da1796e19286": "C.13: as s3870r6, a fresh round of 15 players (seeds 73 to 84)",
    "fc-9c2c31d4f5a2": "C.10: no requirement state searched again for a criterion no pair can "
        "break more (seeds 91 to 94; the joined bracket ran out of steps before)",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_as_javafo_1_4_pairs_it(name: str) -> None:
    path = DATA / f"{name}.trf"
    event = parse_trf(path.read_text(), str(path))
    expected = (DATA / f"{name}.out").read_text()
    got, _ = tcecd_pairing(event)
    assert got == expected, f"{name} ({CASES[name]}):\nJaVaFo 1.4:\n{expected}tcecd:\n{got}"


def test_every_file_is_listed() -> None:
    assert {p.stem for p in DATA.glob("*.trf")} == set(CASES)
