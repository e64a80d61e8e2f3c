"""``bench/match.py --runs N``: the summary table a reader compares hosts by."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _bench_match():  # type: ignore[no-untyped-def]
    # bench/match.py imports its neighbour bench/floor.py as a script does.
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("match")
    finally:
        sys.path.remove(str(BENCH))


def test_the_summary_lists_each_run_the_medians_and_the_runs_within_1_ms() -> None:
    bench = _bench_match()
    runs = [
        bench.Run(tcecd=0.9, floor=0.4, peers={"fastchess": 0.3}),
        bench.Run(tcecd=1.2, floor=0.5, peers={"fastchess": 0.4}),
        bench.Run(tcecd=0.8, floor=0.4, peers={}),  # the peer failed in this run
    ]
    assert bench.summary(runs) == [
        "summary of 3 runs, CPU per move in ms:",
        "| run | tcecd | floor | tcecd's own work | fastchess | tcecd / fastchess |",
        "| --- | --- | --- | --- | --- | --- |",
        "| 1 | 0.900 | 0.400 | 0.500 | 0.300 | 3.00x |",
        "| 2 | 1.200 | 0.500 | 0.700 | 0.400 | 3.00x |",
        "| 3 | 0.800 | 0.400 | 0.400 | - | - |",
        # Medians of the runs that have the figure: (0.3 + 0.4) / 2 for fastchess.
        "| median | 0.900 | 0.400 | 0.500 | 0.350 | 3.00x |",
        "tcecd at most 1 ms per move in 2 of 3 runs",
    ]
