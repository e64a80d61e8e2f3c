"""Speed figures for the TCEC Swiss pairing (prints them; not a test).

    .venv/bin/python bench/pairing.py

Targets (from the pairing issue), on this machine:

* one round of a realistic 50-player event (Elo-model results, about 10
  rounds in): under 10 ms;
* a whole 2,000-player, 10-round event, simulation included: under 20 s.

"Realistic" means the results come from the seeded Elo model of
``tcecd simulate`` (tcecd.pairing.simulation). A few harder shapes are printed
too (odd field, double rounds, all draws, history removal).
"""

from __future__ import annotations

import statistics
import sys
import time

from tcecd.pairing.simulation import simulate_event
from tcecd.pairing.tcec_swiss import TcecSwiss


def round_time(players: int, rounds_done: int, *, double: bool, seed: int) -> list[float]:
    """Seconds to pair round ``rounds_done + 1`` (several timings)."""
    event = simulate_event(players, rounds_done, double=double, seed=seed)
    system = TcecSwiss()
    timings = []
    for _ in range(30):
        start = time.perf_counter()
        system.pair(event.players, event.rounds, double=double)
        timings.append(time.perf_counter() - start)
    return timings


def whole_event(
    players: int, rounds: int, *, seed: int, double: bool = False, draw_rate: float = 0.5
) -> tuple[float, int]:
    """Seconds to simulate a whole event, and the history rounds it removed."""
    start = time.perf_counter()
    event = simulate_event(players, rounds, seed=seed, double=double, draw_rate=draw_rate)
    removals = sum(len(r.removed_history_rounds) for r in event.rounds)
    return time.perf_counter() - start, removals


def main() -> int:
    ok = True
    print("TCEC Swiss pairing benchmark")
    print()
    print("One round of 50 players, about 10 rounds in (target < 10 ms):")
    worst = 0.0
    for seed in range(5):
        t = round_time(50, 10, double=False, seed=seed)
        med = statistics.median(t)
        worst = max(worst, med)
        print(f"  seed {seed}: median {med * 1000:6.2f} ms, max {max(t) * 1000:6.2f} ms")
    print(f"  -> worst median {worst * 1000:.2f} ms: {'OK' if worst < 0.010 else 'MISSED'}")
    ok &= worst < 0.010
    print()
    print("Whole events, simulation included (target for 2000 x 10: < 20 s):")
    shapes = [
        ("2000 players x 10 rounds", 2000, 10, False, 0.5),
        ("2001 players x 10 rounds (BYEs)", 2001, 10, False, 0.5),
        ("2000 players x 10 double rounds", 2000, 10, True, 0.5),
        ("2000 players x 10 rounds, all draws", 2000, 10, False, 1.0),
        ("51 players x 60 rounds (history removal)", 51, 60, False, 0.5),
    ]
    for i, (label, n, r, double, draw_rate) in enumerate(shapes):
        seconds, removals = whole_event(n, r, seed=1, double=double, draw_rate=draw_rate)
        verdict = ""
        if i == 0:
            verdict = "  OK" if seconds < 20 else "  MISSED"
            ok &= seconds < 20
        print(f"  {label:<42} {seconds:7.2f} s  ({removals} history rounds removed){verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
