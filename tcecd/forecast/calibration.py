"""Calibration of the forecast over many simulated events (tests and bench).

Each event: synthetic engines with published ratings (drawn as
:func:`tcecd.pairing.simulation.synthetic_entries` does) and hidden true
strengths ``published + N(0, true_sd)``; ``cut`` rounds are played with the
true strengths (:func:`~tcecd.pairing.simulation.draw_result`), the forecast
is made from those rounds with the published ratings as its prior, then the
event is played to its end with the true strengths. Every (probability,
outcome) pair is kept: ``P(place = j)`` against "finished j-th", ``P(top k)``
against "finished in the top k".

Scores (lower is better): the multi-class Brier score of the place
distribution, ``mean over players of sum_j (p_j - o_j)^2``, for the forecast
and for two naive forecasts: uniform over places (``1/P`` each) and the
current standings taken as final (probability 1 on the current rank). The
reliability table bins predicted probabilities and compares each bin's mean
prediction with the observed frequency.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tcecd.forecast.forecast import ForecastSettings, forecast
from tcecd.forecast.model import ModelSettings
from tcecd.forecast.montecarlo import EventSnapshot
from tcecd.pairing.base import PlayedGame, Player, RoundContext, RoundRecord
from tcecd.pairing.registry import get_system
from tcecd.pairing.seeding import seed_players
from tcecd.pairing.simulation import draw_result, synthetic_entries
from tcecd.pairing.standings import standings


@dataclass(frozen=True, slots=True)
class CalibrationRun:
    """The pairs collected and the three Brier scores (per player, mean)."""

    place_pairs: tuple[tuple[float, int], ...]
    top_pairs: tuple[tuple[float, int], ...]
    brier: float
    brier_uniform: float
    brier_current: float
    events: int


def _play(
    field: tuple[Player, ...],
    history: list[RoundRecord],
    upto: int,
    total: int,
    truth: dict[str, float],
    rng: random.Random,
    draw_rate: float,
) -> None:
    system = get_system("tcec-swiss")
    context = RoundContext(total_rounds=total)
    while len(history) < upto:
        pairing = system.pair(field, history, double=False, context=context)
        games = tuple(
            PlayedGame(g.white, g.black, draw_result(truth[g.white], truth[g.black], rng,
                                                     draw_rate))
            for g in pairing.games
        )
        history.append(pairing.record(games))


def run_calibration(
    *,
    events: int,
    players: int,
    rounds: int,
    cut: int,
    simulations: int,
    top: int = 2,
    true_sd: float = 100.0,
    draw_rate: float = 0.5,
    seed: int = 0,
) -> CalibrationRun:
    """Play ``events`` events (module docstring) and score their forecasts."""
    place_pairs: list[tuple[float, int]] = []
    top_pairs: list[tuple[float, int]] = []
    brier = brier_uniform = brier_current = 0.0
    for e in range(events):
        rng = random.Random(seed * 1_000_003 + e)
        entries = synthetic_entries(players, rng)
        field = tuple(seed_players(entries, "rating"))
        truth = {p.id: float(p.rating or 0) + rng.gauss(0.0, true_sd) for p in field}
        history: list[RoundRecord] = []
        _play(field, history, cut, rounds, truth, rng, draw_rate)
        snap = EventSnapshot("tcec-swiss", field, False, tuple(history), rounds)
        settings = ForecastSettings(simulations=simulations, top=top, seed=seed + e,
                                    model=ModelSettings(prior_sd=true_sd))
        f = forecast(snap, settings)
        now = {s.id: s.rank for s in standings(field, history, double=False)}
        _play(field, history, rounds, rounds, truth, rng, draw_rate)
        final = {s.id: s.rank for s in standings(field, history, double=False)}
        for p in f.players:
            for j, prob in enumerate(p.places, start=1):
                hit = int(final[p.id] == j)
                place_pairs.append((prob, hit))
                brier += (prob - hit) ** 2
                brier_uniform += (1.0 / players - hit) ** 2
                brier_current += (float(now[p.id] == j) - hit) ** 2
            top_pairs.append((p.top, int(final[p.id] <= top)))
    n = events * players
    return CalibrationRun(tuple(place_pairs), tuple(top_pairs), brier / n, brier_uniform / n,
                          brier_current / n, events)


def reliability(
    pairs: tuple[tuple[float, int], ...], bins: int = 10
) -> list[tuple[float, float, float, int]]:
    """Per bin of predicted probability ``[i/bins, (i+1)/bins)`` (the last bin
    closed): (bin start, mean prediction, observed frequency, count); empty
    bins are left out."""
    sums: list[list[float]] = [[0.0, 0.0, 0.0] for _ in range(bins)]
    for prob, hit in pairs:
        i = min(int(prob * bins), bins - 1)
        sums[i][0] += prob
        sums[i][1] += hit
        sums[i][2] += 1
    return [
        (i / bins, s[0] / s[2], s[1] / s[2], int(s[2]))
        for i, s in enumerate(sums)
        if s[2]
    ]
