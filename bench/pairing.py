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

FIDE Dutch (dutch-2017) against bbpPairings v5.0.1 (``../shared/oracles``;
skipped without it), side by side on the same file: the final round of
200 and 1000 players (tournaments from bbpPairings' generator) and of 3000
players (earlier rounds from ``tcecd simulate``'s TCEC Swiss and Elo model:
the generator cannot make one in reasonable time). Each round is paired
``--runs`` times (default 3; the 3000-player round once), alternating the
two programs; it prints CPU and wall time, each run's CPU ratio, the medians
and whether the pairings are identical. Target: the 1000-player round in at
most bbpPairings' CPU time, with the same pairing. Generated files are
cached in ``$XDG_CACHE_HOME/tcecd/bench`` (``~/.cache``).

    .venv/bin/python bench/pairing.py dutch-2017 --runs 5 --sizes 200,1000

Parts can be chosen on the command line: ``python bench/pairing.py dutch-2017 fide``.

Also printed (no target): each registered FIDE-style system (``dutch-2012``,
``dubov``, ``round-robin``) on one event of 200 players, round by round, with
results from the same Elo model.

``dutch-2012-rounds`` (no target): the Dutch 2012 system's CPU over the rounds
its tests compare with JaVaFo 1.4 (the C.13 sample and the recorded random
tournaments), the slowest rounds named: most of the test suite's pairing time.

The integer-program system (tcecd.pairing.integer_program): the seed's round
of 94 players (``../shared/seeds/swiss-integer-program-model.md``: 94
participants, 47 slots) and a 200-player round, each round of an event paired
by the system itself with Elo-model results, timed round by round (model,
HiGHS solves and the tie-break; target for the 94-player round: under 5 s).
"""

from __future__ import annotations

import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

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


def _oracle() -> Path:
    """bbpPairings: $TCECD_BBPPAIRINGS, else ``../shared/oracles`` beside the
    repository (or one level further up, for a git worktree in a subfolder)."""
    env = os.environ.get("TCECD_BBPPAIRINGS")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[1]
    for shared in (repo.parent / "shared", repo.parent.parent / "shared"):
        if (shared / "oracles" / "bbpPairings-v5.0.1").exists():
            return shared / "oracles" / "bbpPairings-v5.0.1"
    return repo.parent / "shared" / "oracles" / "bbpPairings-v5.0.1"


ORACLE = _oracle()
#: Generated tournaments are kept here between runs (bbpPairings' generator
#: takes about a minute for the 1000-player one).
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tcecd" / "bench"


@dataclass(frozen=True, slots=True)
class DutchCase:
    """One round to pair: the final round ``rounds`` of a tournament of
    ``players`` whose earlier rounds come from ``source``: bbpPairings'
    generator (``bbp``: its Dutch pairings, draws, forfeits, retired players,
    half-point byes) or tcecd's simulation (``tcec-swiss``: TCEC Swiss
    pairings and Elo-model results, for fields too large for the generator,
    which pairs every round of 3000 players from the first, one bracket of
    3000, in far more than an hour)."""

    players: int
    rounds: int
    source: str
    seed: int = 1

    @property
    def path(self) -> Path:
        name = f"dutch-{self.source}-{self.players}p-{self.rounds}r-s{self.seed}.trf"
        return CACHE / name


DUTCH_CASES = (
    DutchCase(200, 7, "bbp"),
    DutchCase(1000, 5, "bbp"),
    DutchCase(3000, 6, "tcec-swiss"),
)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def dutch_file(case: DutchCase) -> Path:
    """The TRF of the tournament before its final round (with that round's
    byes and ``XXR``), made once and cached."""
    from tcecd.trf import TrfEvent
    from tcecd.trf.reader import parse_trf
    from tcecd.trf.writer import format_trf

    if case.path.exists():
        return case.path
    CACHE.mkdir(parents=True, exist_ok=True)
    if case.source == "bbp":
        with tempfile.TemporaryDirectory() as tmp:
            cfg = Path(tmp) / "cfg.txt"
            cfg.write_text(
                f"PlayersNumber={case.players}\nRoundsNumber={case.rounds}\n"
                "DrawPercentage=30\nForfeitRate=20\nRetiredRate=50\nHalfPointByeRate=20\n"
                "HighestRating=2700\nLowestRating=1400\n"
            )
            full = Path(tmp) / "full.trf"
            subprocess.run(
                [str(ORACLE), "--dutch", "-g", str(cfg), "-o", str(full), "-s", str(case.seed)],
                check=True,
                capture_output=True,
            )
            whole = parse_trf(full.read_text(), str(full))
        context = RoundContext(
            total_rounds=case.rounds,
            requested_byes=whole.rounds[-1].requested_byes,
            first_colour=whole.context.first_colour,
        )
        event = replace(whole, rounds=whole.rounds[:-1], context=context)
    else:
        sim = simulate_event(case.players, case.rounds - 1, seed=case.seed, system=case.source)
        context = replace(sim.context, total_rounds=case.rounds)
        event = TrfEvent(f"{case.players} players", sim.players, sim.rounds, context)
    case.path.write_text(format_trf(event))
    return case.path


@dataclass(frozen=True, slots=True)
class DutchRun:
    """One side-by-side run: CPU and wall seconds of each program, and
    whether tcecd's output equals bbpPairings' byte for byte."""

    tcecd_cpu: float
    tcecd_wall: float
    bbp_cpu: float
    bbp_wall: float
    same: bool


def dutch_runs(case: DutchCase, runs: int) -> list[DutchRun]:
    """Pair the case's round ``runs`` times with each program, alternating
    (bbpPairings, then tcecd), so that a change in the machine's load hits
    both; CPU time is the figure to compare on a shared machine."""
    from tcecd.pairing.dutch.system import Dutch2017
    from tcecd.trf.reader import parse_trf
    from tcecd.trf.writer import format_pairing

    path = dutch_file(case)
    event = parse_trf(path.read_text(), str(path))
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "bbp.txt"
        for _ in range(runs):
            wall, cpu = time.perf_counter(), _children_cpu()
            subprocess.run([str(ORACLE), "--dutch", str(path), "-p", str(target)], check=True)
            bbp_wall, bbp_cpu = time.perf_counter() - wall, _children_cpu() - cpu
            wall, cpu = time.perf_counter(), time.process_time()
            pairing = Dutch2017().pair(
                event.players, event.rounds, double=False, context=event.context
            )
            ours_wall, ours_cpu = time.perf_counter() - wall, time.process_time() - cpu
            expected = target.read_text().replace("\r\n", "\n").replace("\r", "\n")
            same = format_pairing(pairing, event.players) == expected
            out.append(DutchRun(ours_cpu, ours_wall, bbp_cpu, bbp_wall, same))
    return out


def dutch_figures(runs: int = 3, sizes: tuple[int, ...] = (200, 1000, 3000)) -> bool:
    """tcecd against bbpPairings on the same files (target: the 1000-player
    round in at most bbpPairings' CPU time, with the same pairing)."""
    print("FIDE Dutch (dutch-2017), final round, against bbpPairings v5.0.1 on the same file:")
    if not ORACLE.exists():
        print(f"  skipped: no bbpPairings at {ORACLE}")
        return True
    ok = True
    for case in DUTCH_CASES:
        if case.players not in sizes:
            continue
        # The 3000-player round takes bbpPairings minutes: once is enough.
        results = dutch_runs(case, 1 if case.players >= 3000 else runs)
        for k, r in enumerate(results, start=1):
            print(
                f"  {case.players:4d} players ({case.source}), run {k}: tcecd {r.tcecd_cpu:7.2f} s "
                f"CPU ({r.tcecd_wall:7.2f} s wall), bbpPairings {r.bbp_cpu:7.2f} s CPU "
                f"({r.bbp_wall:7.2f} s wall), ratio {r.tcecd_cpu / max(r.bbp_cpu, 1e-3):5.2f}"
                f"{'' if r.same else ', PAIRINGS DIFFER'}",
                flush=True,
            )
        ours = statistics.median(r.tcecd_cpu for r in results)
        theirs = statistics.median(r.bbp_cpu for r in results)
        same = all(r.same for r in results)
        ratio = ours / max(theirs, 1e-3)
        verdict = ""
        if case.players == 1000:
            met = same and ratio <= 1.0
            verdict = f"; target (ratio <= 1, same pairing): {'OK' if met else 'MISSED'}"
            ok &= met
        ok &= same
        print(
            f"  -> {case.players} players: median CPU tcecd {ours:.2f} s, bbpPairings "
            f"{theirs:.2f} s, ratio {ratio:.2f}; same pairing: {same}{verdict}",
            flush=True,
        )
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


def dutch2012_rounds_figures() -> bool:
    """dutch-2012 on the rounds its tests compare with JaVaFo 1.4 (no target): CPU
    per round over the C.13 sample (1,050 hard rounds) and the recorded random
    tournaments (seeds 1 to 2500), the slowest rounds named. Most of the test
    suite's pairing time is these rounds: a figure to compare versions with."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' data
    from tcecd.pairing.dutch2012.system import Dutch2012
    from tcecd.trf.reader import parse_trf
    from tests.pairing.dutch2012.oracle import tcecd_pairing
    from tests.pairing.dutch2012.record_c13_sample import load as load_sample
    from tests.pairing.dutch2012.record_forecast import round_key
    from tests.pairing.dutch2012.record_javafo import load, rounds

    print(f"Dutch 2012 ({Dutch2012.__name__}) on the rounds compared with JaVaFo 1.4:")
    sample = [(round_key(r["trf"]), parse_trf(r["trf"], "sample")) for r in load_sample()]
    recorded = [
        (f"seed {r.seed} round {r.round}", r.event)
        for t in load()["tournaments"]
        for r in rounds(t)
    ]
    for label, events in (("C.13 sample", sample), ("recorded rounds", recorded)):
        times: list[tuple[float, str]] = []
        for key, event in events:
            start = time.process_time()
            tcecd_pairing(event)
            times.append((time.process_time() - start, key))
        total = sum(t for t, _ in times)
        times.sort(reverse=True)
        slowest = ", ".join(f"{key} {t:.2f} s" for t, key in times[:3])
        print(f"  {label:<16} {len(times):6d} rounds: CPU {total:6.1f} s, "
              f"{1000 * total / len(times):6.2f} ms a round, the slowest 100 "
              f"{sum(t for t, _ in times[:100]) / total:.0%} of it ({slowest})", flush=True)
    return True


def main() -> int:
    parts = {
        "tcec-swiss": tcec_swiss_figures,
        "dutch-2017": dutch_figures,
        "fide": fide_figures,
        "integer-program": integer_program_figures,
        "dutch-2012-rounds": dutch2012_rounds_figures,
    }
    args = sys.argv[1:]
    runs, sizes = 3, (200, 1000, 3000)
    if "--runs" in args:
        at = args.index("--runs")
        runs = int(args[at + 1])
        del args[at : at + 2]
    if "--sizes" in args:
        at = args.index("--sizes")
        sizes = tuple(int(x) for x in args[at + 1].split(","))
        del args[at : at + 2]
    wanted = args or list(parts)
    ok = True
    for name in wanted:
        if name not in parts:
            print(f"unknown part {name!r} (known: {', '.join(parts)})", file=sys.stderr)
            return 2
        ok &= dutch_figures(runs, sizes) if name == "dutch-2017" else parts[name]()
        print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
