#!/usr/bin/env python3
# ruff: noqa: E402
"""Per-game overhead of the Dask backend against the local one (figures only).

Plays the same short games (bundled depth-1 abengine, 10 plies from the start
position) with the ``local`` game player and with the ``dask`` one on a
loopback ``LocalCluster`` (one worker process, one task thread,
``engine_slots=1``), and prints for each backend the median and worst of:

- **start**: ``play()`` called -> the game's ``began`` update received by the
  daemon (both engines started and ready; the first ``go`` follows at once);
- **end**: the last move's update received -> ``play()`` returned the result
  (then the daemon stores it, the same for both backends);

and the Dask backend's overhead over local (the difference of the medians).
Engine start-up is in both "start" figures, so the difference is the cost of
scheduling, shipping the job and streaming the update back. Target: median
overhead under 50 ms on loopback. Usage: ``.venv/bin/python bench/dask.py
[--games 10]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is named dask.py: its folder must not shadow the real `dask` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse
import asyncio
import statistics
import time

from tcecd.config.load import load_engine
from tcecd.domain import GameId
from tcecd.execution import ExecutionSettings, GamePlayer, open_player
from tcecd.execution.gate import open_gate
from tcecd.execution.job import GameBegan, GameJob, GameUpdate, MoveMade
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.record import Opening
from tcecd.game.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parents[1]


def _job(n: int) -> GameJob:
    engines = ROOT / "engines"
    white = load_engine("ab-d1", search_dirs=(engines,))
    black = load_engine("ab-d1-noisy", search_dirs=(engines,))
    return GameJob(
        game_id=GameId(1, n),
        event="bench",
        site="here",
        white=white,
        black=black,
        opening=Opening(name=None, fen=None),
        time_control=TimeControl.parse("60+1"),
        margin_ms=200,
        adjudication=AdjudicationRules(max_moves=5),
    )


async def _one(player: GamePlayer, job: GameJob) -> tuple[float, float]:
    updates: asyncio.Queue[GameUpdate] = asyncio.Queue()
    began: list[float] = []
    last: list[float] = []

    async def follow() -> None:
        while True:
            update = await updates.get()
            if isinstance(update, GameBegan):
                began.append(time.perf_counter())
            elif isinstance(update, MoveMade):
                last[:] = [time.perf_counter()]

    follower = asyncio.create_task(follow())
    t0 = time.perf_counter()
    await player.play(job, updates, open_gate())
    t1 = time.perf_counter()
    await asyncio.sleep(0)
    follower.cancel()
    return (began[0] - t0) * 1000, (t1 - last[0]) * 1000


async def _bench(player: GamePlayer, games: int) -> tuple[list[float], list[float]]:
    starts, ends = [], []
    await _one(player, _job(games + 1))  # warm-up (imports, worker start)
    for n in range(1, games + 1):
        s, e = await _one(player, _job(n))
        starts.append(s)
        ends.append(e)
    return starts, ends


def _line(name: str, values: list[float]) -> str:
    return f"  {name:6s} median {statistics.median(values):7.1f} ms   worst {max(values):7.1f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    from distributed import LocalCluster

    local = await open_player(ExecutionSettings())
    l_start, l_end = await _bench(local, args.games)
    await local.aclose()
    async with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, resources={"engine_slots": 1},
        host="127.0.0.1", dashboard_address=None, asynchronous=True,
    ) as cluster:  # fmt: skip
        settings = ExecutionSettings(backend="dask", scheduler=cluster.scheduler_address)
        dask = await open_player(settings)
        d_start, d_end = await _bench(dask, args.games)
        await dask.aclose()
    print(f"{args.games} games, ab-d1 vs ab-d1-noisy, 10 plies")
    print("local:")
    print(_line("start", l_start))
    print(_line("end", l_end))
    print("dask (loopback LocalCluster, 1 worker process):")
    print(_line("start", d_start))
    print(_line("end", d_end))
    overhead = (statistics.median(d_start) - statistics.median(l_start)) + (
        statistics.median(d_end) - statistics.median(l_end)
    )
    print(f"dask overhead per game (start + end, medians): {overhead:.1f} ms (target < 50 ms)")


if __name__ == "__main__":
    asyncio.run(main())
