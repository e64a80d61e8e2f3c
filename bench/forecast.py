"""Speed of the forecast: 2,000 simulations of the last 20 rounds of a
50-player TCEC Swiss event (target: within 10 s on this machine).

Prints wall-clock and CPU seconds for one process and for a pool of worker
processes (``--workers``), and checks the pool gives the same counts.

    .venv/bin/python bench/forecast.py [--simulations 2000] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from tcecd.forecast.forecast import ForecastSettings, forecast
from tcecd.forecast.montecarlo import EventSnapshot, simulate
from tcecd.forecast.parallel import make_pool, simulate_in
from tcecd.pairing.simulation import simulate_event


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--played", type=int, default=20)
    ap.add_argument("--simulations", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-serial", action="store_true")
    args = ap.parse_args()
    ev = simulate_event(args.players, args.played, seed=7)
    snap = EventSnapshot("tcec-swiss", ev.players, False, ev.rounds, args.rounds)
    settings = ForecastSettings(simulations=args.simulations, top=2, seed=1)
    print(f"{args.players} players, {args.rounds - args.played} rounds to simulate, "
          f"{args.simulations} simulations; cpus={os.cpu_count()} "
          f"load={os.getloadavg()[0]:.1f}")
    serial = None
    if not args.skip_serial:
        w, c = time.perf_counter(), time.process_time()
        serial = forecast(snap, settings, simulate)
        print(f"1 process : wall {time.perf_counter() - w:6.1f} s  "
              f"cpu {time.process_time() - c:6.1f} s")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with make_pool(args.workers, low_priority=False) as pool:
        pool.submit(int).result()  # start the workers before timing
        w = time.perf_counter()
        par = forecast(snap, settings, lambda s, m, n, seed: simulate_in(pool, s, m, n, seed))
        wall = time.perf_counter() - w
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers have exited
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(f"{args.workers} workers: wall {wall:6.1f} s  cpu {cpu:6.1f} s (all workers, incl. "
          f"start-up)  load now {os.getloadavg()[0]:.1f}")
    if serial is not None:
        print("same result:", serial == par)
    top = par.players[0]
    print(f"favourite {top.id}: P(1st) {top.places[0]:.3f}, P(top 2) {top.top:.3f}, "
          f"expected score {top.expected_score:.2f}")


if __name__ == "__main__":
    main()
