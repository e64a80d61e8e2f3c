"""Speed figures for the TCEC Swiss pairing (prints them; not a test).

    .venv/bin/python bench/pairing.py

Targets (from the pairing issue), on this machine:

* one round of a realistic 50-player event (Elo-model results, about 10
  rounds in): under 10 ms;
* a whole 2,000-player, 10-round event, simulation included: under 20 s.

"Realistic" means the results come from the seeded Elo model of
``tcecd simulate`` (tcecd.pairing.simulation). A few harder shapes are printed
too (odd field, double rounds, all draws, history removal).

Also printed (no target): one round of a 200-player event paired with the
FIDE Dutch system of 2012 (``dutch-2012``), rounds 1 and 6, results from the
same Elo model.

The FIDE Dubov system (tcecd.pairing.dubov) is timed on one round of a
200-player event (no target; printed for the record).
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from tcecd.pairing.base import PlayedGame, RoundContext, RoundRecord
from tcecd.pairing.registry import get_system
from tcecd.pairing.seeding import seed_players
from tcecd.pairing.simulation import draw_result, simulate_event, synthetic_entries
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


def fide_round_times(
    system_name: str, players: int, rounds: int, *, seed: int
) -> list[tuple[int, float]]:
    """Seconds to pair each round of a ``players``-player event with a FIDE
    system (rating seeding, Elo-model results, ``rounds`` rounds)."""
    rng = random.Random(seed)
    field = seed_players(synthetic_entries(players, rng), "rating")
    rating = {p.id: float(p.rating or 0) for p in field}
    system = get_system(system_name)
    context = RoundContext(total_rounds=rounds)
    history: list[RoundRecord] = []
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        pairing = system.pair(field, history, double=False, context=context)
        times.append((pairing.round, time.perf_counter() - start))
        games = tuple(
            PlayedGame(g.white, g.black, draw_result(rating[g.white], rating[g.black], rng, 0.5))
            for g in pairing.games
        )
        history.append(RoundRecord(pairing.round, pairing.bye, (), games))
    return times


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
    print()
    print("FIDE Dutch 2012 (dutch-2012), one round of a 200-player event (no target):")
    for seed in range(2):
        times = dict(fide_round_times("dutch-2012", 200, 6, seed=seed))
        print(
            f"  seed {seed}: round 1 {times[1] * 1000:7.1f} ms, round 6 {times[6] * 1000:7.1f} ms,"
            f" slowest of 6 rounds {max(times.values()) * 1000:7.1f} ms"
        )
    print()
    print("FIDE Dubov system, one round of 200 players (9-round event, no target):")
    for seed in range(2):
        times = fide_round_times("dubov", 200, 9, seed=seed)
        per_round = ", ".join(f"r{r} {t * 1000:.0f}" for r, t in times)
        worst = max(t for _, t in times)
        print(f"  seed {seed}: ms per round: {per_round}; worst {worst * 1000:.0f} ms")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
