"""JaVaFo 1.4's pairings of the rounds a ``dutch-2012`` forecast pairs, recorded
once and replayed without Java (``test_javafo_forecast.py``).

The random tournaments of ``record_javafo.py`` were used while choosing how
tcecd reads the 2012 text; these rounds were not: they are what the ``dutch9``
forecast reference (``tests/pairing/data/make_reference_events.py``: 9
players, 2 rounds played, 7 in all, 50 simulations, many byes) asks
``dutch-2012`` to pair, every distinct round once. They check that the
readings hold outside the rounds they were chosen on.

``python -m tests.pairing.dutch2012.record_forecast [-o PATH]`` runs that
forecast with tcecd (which rounds come up depends on tcecd's own pairings: the
set is a snapshot, recorded with the code of the commit that wrote it), gives
each distinct round to JaVaFo 1.4 (Java and ``javafo-1.4.jar``; about 30 s)
and writes :data:`RECORDING`, gzip'd JSON::

    {"format": 1, "oracle": "...", "source": "...",
     "rounds": [{"trf": "<TRF-2016 text>", "javafo": "<-p output>"}, ...]}

``javafo`` is JaVaFo 1.4's ``-p`` output for the next round of ``trf``
(``NO PAIRING`` when it found none), or ``CRASH: <message>`` when JaVaFo
failed on it (an assertion inside JaVaFo: nothing to compare). The expected
pairings are JaVaFo's only: tcecd's output is never recorded.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tcecd.pairing.base import Player, RoundContext, RoundPairing, RoundRecord
from tcecd.trf.model import TrfEvent
from tcecd.trf.writer import format_trf
from tests.pairing.dutch2012.oracle import jar_path, javafo_pairing, missing

RECORDING = Path(__file__).parent / "data" / "javafo14-dutch9-forecast.json.gz"
FORMAT = 1
_ORACLE = "JaVaFo Rel. 1.4 (Build 1913), ../shared/oracles/javafo-1.4.jar"
_SOURCE = ("tests/pairing/data/make_reference_events.py FORECASTS 'dutch9': "
           "simulate_event(9, 2, seed=7, system='dutch-2012'), 7 rounds, 50 simulations, seed 4")


def round_key(trf: str) -> str:
    """A recorded round's name in the tests: the start of the SHA-256 of its TRF."""
    return hashlib.sha256(trf.encode()).hexdigest()[:12]


def distinct_rounds(run: Callable[[], None], name: str) -> list[str]:
    """The TRF text of every distinct round ``dutch-2012`` pairs while ``run``
    runs, in the order they first come up (event name ``name``)."""
    from tcecd.pairing.registry import SystemOptions, get_system

    system = type(get_system("dutch-2012", SystemOptions()))
    seen: dict[str, None] = {}
    pair = system.pair

    def spy(self: Any, players: tuple[Player, ...], history: tuple[RoundRecord, ...], *,
            double: bool = False, context: RoundContext | None = None) -> RoundPairing:
        event = TrfEvent(name, tuple(players), tuple(history), context or RoundContext())
        seen.setdefault(format_trf(event), None)
        return pair(self, players, history, double=double, context=context)

    system.pair = spy  # type: ignore[method-assign]
    try:
        run()
    finally:
        system.pair = pair  # type: ignore[method-assign]
    return list(seen)


def forecast_rounds() -> list[str]:
    """The TRF text of every distinct round the ``dutch9`` forecast pairs, in
    the order they first come up."""
    from tcecd.forecast.model import fit_model
    from tcecd.forecast.montecarlo import EventSnapshot, simulate
    from tcecd.pairing.simulation import simulate_event

    def run() -> None:
        ev = simulate_event(9, 2, seed=7, double=False, system="dutch-2012")
        snap = EventSnapshot("dutch-2012", ev.players, False, ev.rounds, 7)
        simulate(snap, fit_model(snap.players, snap.games_so_far()), 50, 4)

    return distinct_rounds(run, "dutch9")


def record(out: Path) -> int:
    from tcecd.trf.reader import parse_trf

    rounds: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, trf in enumerate(forecast_rounds()):
            event = parse_trf(trf, f"dutch9 round {i}")
            try:
                output = javafo_pairing(event, Path(tmp), f"d{i}")
            except RuntimeError as exc:
                output = "CRASH: " + str(exc).splitlines()[-1][:200]
            rounds.append({"trf": trf, "javafo": output})
    doc = {"format": FORMAT, "oracle": _ORACLE, "source": _SOURCE, "rounds": rounds}
    with gzip.open(out, "wt", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))
    print(f"{len(rounds)} rounds written to {out}")
    return 0


def load(path: Path = RECORDING) -> list[dict[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    assert doc["format"] == FORMAT, doc["format"]
    rounds: list[dict[str, str]] = doc["rounds"]
    return rounds


def _main(argv: list[str]) -> int:
    if missing() is not None or jar_path() is None:
        print(missing(), file=sys.stderr)
        return 2
    out = Path(argv[argv.index("-o") + 1]) if "-o" in argv else RECORDING
    return record(out)


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
