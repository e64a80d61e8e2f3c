"""Calibration of the forecast over many simulated events, with printed figures.

The larger version of tests/forecast/test_calibration.py (the harness is
tcecd/forecast/calibration.py): Brier scores of the place distribution for
the forecast and two naive forecasts, and reliability tables (predicted
probability bins against observed frequencies) for P(place = j) and P(top k).

    PYTHONPATH=. .venv/bin/python bench/forecast_calibration.py [--events 120] ...
"""

from __future__ import annotations

import argparse
import time

from tcecd.forecast.calibration import reliability, run_calibration


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=120)
    ap.add_argument("--players", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--cut", type=int, default=2, help="rounds played before the forecast")
    ap.add_argument("--simulations", type=int, default=200)
    ap.add_argument("--top", type=int, default=2)
    ap.add_argument("--true-sd", type=float, default=100.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    cpu = time.process_time()
    run = run_calibration(events=args.events, players=args.players, rounds=args.rounds,
                          cut=args.cut, simulations=args.simulations, top=args.top,
                          true_sd=args.true_sd, seed=args.seed)
    print(f"{args.events} events of {args.players} engines, {args.rounds} rounds, forecast "
          f"after {args.cut} with {args.simulations} simulations; true strength = rating + "
          f"N(0, {args.true_sd:g}); cpu {time.process_time() - cpu:.1f} s")
    print(f"Brier (places, per player; lower is better): forecast {run.brier:.4f}, "
          f"uniform {run.brier_uniform:.4f}, current standings {run.brier_current:.4f}")
    for title, pairs in (("P(place = j)", run.place_pairs), (f"P(top {args.top})", run.top_pairs)):
        print(f"\nReliability of {title}:  bin    predicted  observed  count")
        for start, predicted, observed, count in reliability(pairs, bins=10):
            print(f"{'':>27}{start:4.1f}+  {predicted:9.3f} {observed:9.3f} {count:6d}")


if __name__ == "__main__":
    main()
