"""Dutch 2012 against JaVaFo 1.4 on rounds the readings were not chosen on:
the 176 distinct rounds the ``dutch9`` forecast paired when they were
recorded with JaVaFo 1.4's pairings (``record_forecast.py``), re-paired by
tcecd without Java. Every round must give JaVaFo's output, except those in
:data:`OPEN` (each must still differ: a round that starts to agree fails, so
that it leaves OPEN), those in :data:`DEPARTURES` (JaVaFo 1.4 departs from
the text there: tcecd must give the text's pairing, worked out by hand in
``test_departures.py``) and the one JaVaFo 1.4 fails on (an assertion inside
it). Since C.13's reading of a lowest bracket that failed on the bye, the
forecast pairs six rounds outside the recording; JaVaFo 1.4 pairs all six as
tcecd does (``tests/pairing/data/make_reference_events.py``)."""

from __future__ import annotations

from tcecd.trf.reader import parse_trf
from tests.pairing.dutch2012.oracle import departure_failure, tcecd_pairing
from tests.pairing.dutch2012.record_forecast import load, round_key

#: Rounds (the start of the SHA-256 of their TRF text) where tcecd and
#: JaVaFo 1.4 still differ (docs/pairing.md, "Compared with JaVaFo 1.4").
OPEN: dict[str, str] = {}

#: Rounds where JaVaFo 1.4 departs from the text: the article, and the pairing
#: the text gives (test_departures.py), in JaVaFo's ``-p`` format.
DEPARTURES: dict[str, tuple[str, str]] = {
    "3ace259062ad": (
        "C.13: the lowest bracket reduces M1 as C.14.b2 shows, D.3's other sets of moved-down "
        "players (C.8.b) included, before the penultimate bracket is asked; JaVaFo 1.4 asks it "
        "first",
        "5\n3 1\n6 8\n7 9\n5 2\n4 0\n",
    ),
}

ROUNDS = load()


def test_the_recording_is_whole() -> None:
    keys = [round_key(r["trf"]) for r in ROUNDS]
    assert len(ROUNDS) == 176
    assert len(set(keys)) == len(keys)
    assert set(OPEN) | set(DEPARTURES) <= set(keys), (set(OPEN) | set(DEPARTURES)) - set(keys)
    assert not set(OPEN) & set(DEPARTURES)
    crashed = [k for k, r in zip(keys, ROUNDS, strict=True) if r["javafo"].startswith("CRASH")]
    assert len(crashed) == 1, crashed


def test_rounds_agree_with_recorded_javafo_1_4() -> None:
    differ = []
    for i, r in enumerate(ROUNDS):
        key = round_key(r["trf"])
        if key in OPEN or r["javafo"].startswith("CRASH"):
            continue
        got, _ = tcecd_pairing(parse_trf(r["trf"], f"dutch9 round {i}"))
        if key in DEPARTURES:
            failure = departure_failure(key, f"round {i}", got, r["javafo"], DEPARTURES[key])
            differ += [failure] if failure else []
            continue
        if got != r["javafo"]:
            differ.append(f"{key} (round {i}):\n{r['trf']}\nJaVaFo 1.4:\n{r['javafo']}\n"
                          f"tcecd:\n{got}")  # fmt: skip
    assert not differ, "\n\n".join(differ)


def test_open_rounds_still_differ() -> None:
    """Each round of :data:`OPEN` must still differ: one that starts to agree
    fails, so that it leaves OPEN (none is open now)."""
    agree = []
    for key in sorted(OPEN):
        r = next(r for r in ROUNDS if round_key(r["trf"]) == key)
        got, _ = tcecd_pairing(parse_trf(r["trf"], key))
        if got == r["javafo"]:
            agree.append(f"{key} now agrees with JaVaFo 1.4: take it out of OPEN")
    assert not agree, "\n".join(agree)
