"""Speed figures for the pairing systems (prints them; not a test).

    .venv/bin/python bench/pairing.py                    # everything
    .venv/bin/python bench/pairing.py integer-program    # one part: tcec-swiss, integer-program

Targets (from the pairing issue), on this machine:

* one round of a realistic 50-player event (Elo-model results, about 10
  rounds in): under 10 ms;
* a whole 2,000-player, 10-round event, simulation included: under 20 s.

"Realistic" means the results come from the seeded Elo model of
``tcecd simulate`` (tcecd.pairing.simulation). A few harder shapes are printed
too (odd field, double rounds, all draws, history removal).

Also printed (no target): each registered FIDE-style system (``dutch-2012``,
``dubov``, ``round-robin``) on one event of 200 players, round by round, with
results from the same Elo model.

The integer-program system (tcecd.pairing.integer_program): the seed's round
of 94 players (``../shared/seeds/swiss-integer-program-model.md``: 94
participants, 47 slots) and a 200-player round, each round of an event paired
by the system itself with Elo-model results, timed round by round (model,
HiGHS solves and the tie-break; target for the 94-player round: under 5 s).
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from tcecd.pairing.base import PlayedGame, RoundContext, RoundRecord
from tcecd.pairing.integer_program import IntegerProgram
from tcecd.pairing.registry import SystemOptions, get_system
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
    """Seconds to pair each round of a ``players``-player event with a FIDE-style
    system (rating seeding, Elo-model results, ``rounds`` rounds)."""
    rng = random.Random(seed)
    field = seed_players(synthetic_entries(players, rng), "rating")
    rating = {p.id: float(p.rating or 0) for p in field}
    system = get_system(system_name)
    # A round-robin's field fixes its length: time its first ``rounds`` rounds.
    context = RoundContext(total_rounds=system.rounds_for(players) or rounds)
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
        history.append(
            RoundRecord(pairing.round, pairing.bye, (), games, pairing.requested_byes)
        )
    return times


def fide_figures() -> bool:
    """dutch-2012, dubov and round-robin on a 200-player event (no targets)."""
    for name, rounds in (("dutch-2012", 6), ("dubov", 9), ("round-robin", 9)):
        print(f"{name}, one event of 200 players ({rounds} rounds, no target):")
        for seed in range(2):
            times = fide_round_times(name, 200, rounds, seed=seed)
            per_round = ", ".join(f"r{r} {t * 1000:.0f}" for r, t in times)
            worst = max(t for _, t in times)
            print(f"  seed {seed}: ms per round: {per_round}; worst {worst * 1000:.0f} ms")
    return True


def integer_program_event(
    players: int, rounds: int, *, seed: int
) -> list[tuple[float, float, int, int]]:
    """Pair ``rounds`` rounds of a ``players`` field with the integer program, results
    from the Elo model; per round: wall seconds and CPU seconds to pair it (HiGHS
    runs on one thread; CPU time is the figure a busy machine does not inflate),
    pairs, players unpaired."""
    rng = random.Random(seed)
    field = seed_players(synthetic_entries(players, rng), "rating")
    rating = {p.id: p.rating or 0 for p in field}
    system = IntegerProgram(SystemOptions(time_limit_s=120.0))
    history: list[RoundRecord] = []
    out = []
    for _ in range(rounds):
        start, cpu = time.perf_counter(), time.process_time()
        pairing = system.pair(field, history, double=False)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        out.append((seconds, cpu, len(pairing.pairs), players - 2 * len(pairing.pairs)))
        games = tuple(
            PlayedGame(g.white, g.black, draw_result(rating[g.white], rating[g.black], rng, 0.5))
            for g in pairing.games
        )
        history.append(RoundRecord(pairing.round, pairing.bye, (), games, pairing.requested_byes))
    return out


def integer_program_figures() -> bool:
    print("Integer-program system (HiGHS), one event each, round by round:", flush=True)
    ok = True
    for players, rounds, target in ((94, 9, 5.0), (200, 5, None)):
        times = integer_program_event(players, rounds, seed=1)
        for r, (seconds, cpu, pairs, unpaired) in enumerate(times, start=1):
            print(
                f"  {players} players, round {r}: {seconds:6.2f} s (CPU {cpu:6.2f} s; "
                f"{pairs} pairs, {unpaired} unpaired)",
                flush=True,
            )
        worst = max(t for t, _, _, _ in times)
        verdict = ""
        if target is not None:
            verdict = f" (target < {target:g} s): {'OK' if worst < target else 'MISSED'}"
            ok &= worst < target
        print(f"  -> {players} players: slowest round {worst:.2f} s{verdict}")
    return ok


def tcec_swiss_figures() -> bool:
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
    return ok


def main() -> int:
    parts = {
        "tcec-swiss": tcec_swiss_figures,
        "fide": fide_figures,
        "integer-program": integer_program_figures,
    }
    wanted = sys.argv[1:] or list(parts)
    ok = True
    for name in wanted:
        if name not in parts:
            print(f"unknown part {name!r} (known: {', '.join(parts)})", file=sys.stderr)
            return 2
        ok &= parts[name]()
        print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
