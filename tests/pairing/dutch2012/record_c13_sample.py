"""JaVaFo 1.4's pairings of a sample of hard C.13 rounds from small forecasts.

Small fields with many byes send the 2012 Dutch through C.13 (the lowest
bracket asks the penultimate one for other floaters, or brackets are joined)
far more often than the random tournaments of ``record_javafo.py`` do. This
recorder runs ``dutch-2012`` forecasts of 5 to 13 players (``simulate_event``
with 1 to 3 rounds played, seeds 7 to 18, the event ``n - 2`` or ``n + 1``
rounds long, 40 simulations each: about 35,000 distinct rounds, 15 minutes),
keeps the rounds whose pairing tcecd finds in one of C.13's steps that ask
the penultimate bracket (about 22,700), draws a fixed sample per step
(1,050 rounds, random seed 2026) and gives each to JaVaFo 1.4 (about 5
minutes). Which rounds come up depends on tcecd's pairings when recorded:
the set is a snapshot (made with the code of issue 24's eighth pass, before
its per-bye B.3 targets). The file has the format of ``record_forecast.py``
with a ``flags`` list per round (the C.13 steps tcecd took then).

``python -m tests.pairing.dutch2012.record_c13_sample [-o PATH]``
"""

from __future__ import annotations

import gzip
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from tcecd.trf.reader import parse_trf
from tests.pairing.dutch2012.oracle import NoAnswer, javafo_pairing, missing, tcecd_pairing
from tests.pairing.dutch2012.record_forecast import distinct_rounds

RECORDING = Path(__file__).parent / "data" / "javafo14-c13-sample.json.gz"
FORMAT = 1
_ORACLE = "JaVaFo Rel. 1.4 (Build 1913), ../shared/oracles/javafo-1.4.jar"
_SOURCE = "tests/pairing/dutch2012/record_c13_sample.py"
#: rounds drawn per set of C.13 steps tcecd took
SAMPLE = {
    ("pen:same P1",): 250,
    ("merged", "pen:same P1"): 250,
    ("merged", "pen:any"): 200,
    ("pen:any",): 150,
    ("merged", "pen:same P1:keep"): 100,
    ("pen:same P1:keep",): 100,
}


def forecast_rounds() -> list[str]:
    """Every distinct round the forecasts pair, as TRF text."""
    from tcecd.forecast.model import fit_model
    from tcecd.forecast.montecarlo import EventSnapshot, simulate
    from tcecd.pairing.simulation import simulate_event

    def run() -> None:
        for n in range(5, 14):
            for total in (n - 2, n + 1):
                for played in (1, 2, 3):
                    for seed in range(7, 19):
                        try:
                            ev = simulate_event(n, played, seed=seed, system="dutch-2012")
                            snap = EventSnapshot("dutch-2012", ev.players, False, ev.rounds,
                                                 max(total, played + 2))
                            simulate(snap, fit_model(snap.players, snap.games_so_far()), 40, seed)
                        except Exception:  # a simulation that cannot go on
                            continue

    return distinct_rounds(run, "fc")


def c13_steps(trf: str) -> tuple[str, ...]:
    """The C.13 steps tcecd's pairing of ``trf`` took (empty: none)."""
    import tcecd.pairing.dutch2012.backtrack as backtrack

    flags: set[str] = set()
    pen, low = backtrack._c13_penultimate, backtrack.lowest

    def spy_pen(*args: Any, **kwargs: Any) -> Any:
        out = pen(*args, **kwargs)
        step = args[-1]
        if out is not None:
            flags.add(f"pen:{step.penultimate}" + (":keep" if step.keep_movers else ""))
        return out

    def spy_low(*args: Any, **kwargs: Any) -> Any:
        out = low(*args, **kwargs)
        if out is not None and kwargs.get("merged"):
            flags.add("merged")
        return out

    backtrack._c13_penultimate, backtrack.lowest = spy_pen, spy_low  # type: ignore[assignment]
    try:
        tcecd_pairing(parse_trf(trf, "forecast round"))
    finally:
        backtrack._c13_penultimate, backtrack.lowest = pen, low  # type: ignore[assignment]
    return tuple(sorted(flags))


def record(out: Path) -> int:
    kept: dict[tuple[str, ...], list[str]] = {}
    for trf in forecast_rounds():
        steps = c13_steps(trf)
        if steps:
            kept.setdefault(steps, []).append(trf)
    rnd = random.Random(2026)
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        for steps, count in SAMPLE.items():
            pool = kept.get(steps, [])
            for trf in rnd.sample(pool, min(count, len(pool))):
                try:
                    output = javafo_pairing(parse_trf(trf, "fc"), Path(tmp))
                except (NoAnswer, RuntimeError) as exc:
                    output = "CRASH: " + str(exc).splitlines()[-1][:200]
                rounds.append({"trf": trf, "flags": list(steps), "javafo": output})
    doc = {"format": FORMAT, "oracle": _ORACLE, "source": _SOURCE, "rounds": rounds}
    out.write_bytes(gzip.compress(json.dumps(doc, separators=(",", ":")).encode(), mtime=0))
    print(f"{len(rounds)} rounds written to {out}")
    return 0


def load(path: Path = RECORDING) -> list[dict[str, Any]]:
    doc = json.loads(gzip.decompress(path.read_bytes()))
    assert doc["format"] == FORMAT, doc["format"]
    rounds: list[dict[str, Any]] = doc["rounds"]
    return rounds


if __name__ == "__main__":
    if missing() is not None:
        print(missing(), file=sys.stderr)
        sys.exit(2)
    argv = sys.argv[1:]
    sys.exit(record(Path(argv[argv.index("-o") + 1]) if "-o" in argv else RECORDING))
