#!/usr/bin/env python3
"""Orchestration cost of tcecd's game runner, next to the engines' own work.

Plays a 4-game Stockfish vs Stockfish match at ``nodes=20000`` a move
(Threads=1, Hash=16, two openings, colours reversed, one game at a time, the
engines kept alive between games as fastchess and cutechess-cli do) and prints:

- wall time of the games against the sum of the engines' think time (``go`` ->
  ``bestmove`` as tcecd measures it); target: at most 1.05x;
- tcecd's own CPU time per move (this process only, engines excluded);
- the latency from receiving ``bestmove`` to sending the next ``go``: median
  and 99th percentile; target: median under 1 ms;
- the match statistics as ``tcecd play`` prints them (Elo, nElo, pentanomial).

If ``fastchess`` or ``cutechess-cli`` is on PATH, the same match is run with it
and its wall time and its own CPU time per move are printed beside tcecd's
(Stockfish with one thread at a fixed node count plays the same games, so
tcecd's move count is used for both). Neither is packaged for Debian or PyPI
(PyPI's "fastchess" is an unrelated chess library): build them from source to
compare. The load average is printed too: on a loaded machine every figure,
tcecd's CPU per move included, is larger. Usage: ``.venv/bin/python bench/match.py
[--games 4] [--nodes 20000]``. Figures only, no assertions (see docs/engines.md).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tcecd.config.load import find_executable, load_engine
from tcecd.game.record import Opening
from tcecd.game.timecontrol import TimeControl
from tcecd.runner.match import MatchSpec, run_match, unique_names

OPENINGS = (
    Opening(name="Open game", fen=None, moves=("e2e4", "e7e5")),
    Opening(name="Queen's gambit", fen=None, moves=("d2d4", "d7d5", "c2c4")),
)
EPD_LINES = (
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -",
    "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq -",
)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


async def tcecd_match(games: int, nodes: int) -> tuple[float, int]:
    """Run the match with tcecd; prints the figures and returns the wall time (s)
    and the number of engine moves."""
    stockfish = load_engine("stockfish").model_copy(
        update={"options": {"Threads": 1, "Hash": 16}, "restart": "keep-alive"}
    )
    with tempfile.TemporaryDirectory() as tmp:
        spec = MatchSpec(
            engines=unique_names([stockfish, stockfish]),
            rounds=max(1, games // 2),  # as fastchess's -rounds N -games 2
            games=2,
            time_control=TimeControl(nodes=nodes),
            pgn_path=Path(tmp) / "bench.pgn",
            openings=OPENINGS,
            concurrency=1,
        )
        cpu0, wall0 = time.process_time(), time.perf_counter()
        result = await run_match(spec)
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
    outcomes = result.outcomes
    think_s = sum(sum(o.think_ns) for o in outcomes) / 1e9
    game_wall_s = sum(o.record.duration_ms for o in outcomes) / 1000
    moves = sum(len(o.think_ns) for o in outcomes)
    latencies_ms = [ns / 1e6 for o in outcomes for ns in o.latencies_ns]
    print(f"tcecd: {len(outcomes)} games, {moves} engine moves at nodes={nodes}")
    print(f"  engines' think time (go -> bestmove): {think_s:8.3f} s")
    print(
        f"  wall time of the games:               {game_wall_s:8.3f} s"
        f"  -> {game_wall_s / think_s:.3f}x think time (target <= 1.05x)"
    )
    print(f"  wall time incl. engine start-up:      {wall:8.3f} s  -> {wall / think_s:.3f}x")
    print(
        f"  tcecd CPU time: {cpu:.3f} s = {cpu / moves * 1000:.3f} ms per move"
        " (target <= 1 ms)"
    )
    if latencies_ms:
        print(
            f"  bestmove -> next go latency: median {statistics.median(latencies_ms):.3f} ms,"
            f" p99 {percentile(latencies_ms, 99):.3f} ms, max {max(latencies_ms):.3f} ms"
            f" (n={len(latencies_ms)}, target: median < 1 ms)"
        )
    # The statistics tcecd play prints (fastchess's, see tcecd/runner/stats.py).
    for line in result.report():
        print(f"  {line}")
    return wall, moves


def peer_commands(tool: str, stockfish: str, games: int, nodes: int, epd: Path) -> list[str]:
    engine = ["cmd=" + stockfish, "option.Threads=1", "option.Hash=16"]
    if Path(tool).name.startswith("fastchess"):
        return [
            tool,
            "-engine",
            *engine,
            "name=sf1",
            "-engine",
            *engine,
            "name=sf2",
            "-each",
            "tc=inf",
            f"nodes={nodes}",
            "-rounds",
            str(games // 2),
            "-games",
            "2",
            "-repeat",
            "-openings",
            f"file={epd}",
            "format=epd",
            "order=sequential",
            "-concurrency",
            "1",
        ]
    return [
        tool,
        "-engine",
        *engine,
        "name=sf1",
        "-engine",
        *engine,
        "name=sf2",
        "-each",
        "proto=uci",
        "tc=inf",
        f"nodes={nodes}",
        "-games",
        "2",
        "-rounds",
        str(games // 2),
        "-repeat",
        "-openings",
        f"file={epd}",
        "format=epd",
        "order=sequential",
        "-concurrency",
        "1",
    ]


def own_cpu_s(argv: list[str], cwd: str) -> tuple[float, float]:
    """Run ``argv`` to its end; (wall s, its own CPU s: user + system, its
    engines excluded), read from /proc while it is a zombie, before it is reaped."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    wall = time.perf_counter() - start
    text = Path(f"/proc/{proc.pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    proc.wait()
    return wall, cpu


def run_peers(games: int, nodes: int, tcecd_wall: float, moves: int) -> None:
    stockfish = find_executable("stockfish")
    assert stockfish is not None
    found = False
    for name in ("fastchess", "cutechess-cli"):
        tool = shutil.which(name)
        if tool is None:
            continue
        found = True
        with tempfile.TemporaryDirectory() as tmp:
            epd = Path(tmp) / "openings.epd"
            epd.write_text("\n".join(EPD_LINES) + "\n", encoding="utf-8")
            wall, cpu = own_cpu_s(peer_commands(tool, str(stockfish), games, nodes, epd), tmp)
        print(
            f"{name}: wall {wall:.3f} s; tcecd/{name} = {tcecd_wall / wall:.3f}x;"
            f" its own CPU {cpu:.3f} s = {cpu / moves * 1000:.3f} ms per move"
        )
    if not found:
        print(
            "peers: neither fastchess nor cutechess-cli is on PATH (not run; neither is "
            "packaged for Debian or PyPI: build them from source to compare)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--nodes", type=int, default=20_000)
    args = parser.parse_args()
    if find_executable("stockfish") is None:
        print("bench/match.py: stockfish not found (bash deploy/install.sh)", file=sys.stderr)
        return 2
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average: {load} on {os.cpu_count()} CPUs")
    wall, moves = asyncio.run(tcecd_match(args.games, args.nodes))
    run_peers(args.games, args.nodes, wall, moves)
    return 0


if __name__ == "__main__":
    sys.exit(main())
