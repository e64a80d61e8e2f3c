"""Honesty: over many simulated events the forecast's probabilities match the
observed frequencies, and it beats the naive forecasts (bench/forecast_calibration.py
runs the same check larger and prints the table)."""

from __future__ import annotations

import math

from tcecd.forecast.calibration import reliability, run_calibration


def test_forecasts_are_calibrated_and_beat_naive_forecasts() -> None:
    # 24 events of 8 engines, 6 rounds, forecast after 2; the true strengths
    # differ from the published ratings by N(0, 100) (the fit must learn them).
    run = run_calibration(events=24, players=8, rounds=6, cut=2, simulations=100, seed=1)
    # Brier score of the place distribution (lower is better): uniform over
    # places scores 1 - 1/8 = 0.875 exactly; the current standings taken as
    # final score 2 * P(rank changes) (1.46 here: ranks move a lot in 4 rounds).
    assert run.brier_uniform == 0.875
    assert run.brier < run.brier_uniform
    assert run.brier < run.brier_current
    for pairs in (run.place_pairs, run.top_pairs):
        for _, predicted, observed, count in reliability(pairs, bins=5):
            # Each bin's observed frequency within 3 binomial standard errors
            # (plus 0.03 for the forecast's own Monte Carlo noise).
            se = math.sqrt(max(predicted * (1 - predicted), 0.01) / count)
            assert abs(predicted - observed) <= 3 * se + 0.03, (predicted, observed, count)


def test_calibration_run_is_deterministic() -> None:
    a = run_calibration(events=2, players=6, rounds=4, cut=1, simulations=20, seed=5)
    b = run_calibration(events=2, players=6, rounds=4, cut=1, simulations=20, seed=5)
    assert a == b
