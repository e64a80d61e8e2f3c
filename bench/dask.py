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

``--speed``: does a second worker halve an event? A 12-game Stockfish event
(``/usr/games/stockfish``, Threads=1, Hash=16, ``--nodes`` a move, no clock:
24 players, one round, so all 12 games are ready at once) is played by
``tcecd run`` on a real ``dask scheduler`` with first one ``dask worker`` (one
task thread, ``engine_slots=1``), then two such workers. ``concurrency: 3``
(``--concurrency``): the workers' slots let two games run at once, and a
third game waits in Dask's queue for the first free worker (a game that ended
early waits for an earlier one to be recorded without holding its place; the
printed in-order model shows what recording in order still costs). The
workers and the scheduler run with ``ENGINE_CLUSTER_ENV``, as the systemd
units of docs/operations.md. Printed: each event's time (the
daemon's ``new event`` to ``event finished`` log lines, so the daemon's own
start-up is left out; the process wall time too), the ratio two/one (target:
at most 0.55), whether both played the same games (fixed nodes, one thread:
they must), and the load average. The machine needs two free cores for the
ratio to mean anything. Usage: ``.venv/bin/python bench/dask.py --speed
[--nodes 100000]`` (about 85 ms of engine time a move; at 20,000 nodes, 24 ms, the
daemon's, scheduler's and workers' Python per move is a larger share of the two
cores the engines need).
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is named dask.py: its folder must not shadow the real `dask` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from datetime import datetime

from tcecd.config.load import load_engine
from tcecd.domain import GameId
from tcecd.execution import ExecutionSettings, GamePlayer, open_player
from tcecd.execution.gate import open_gate
from tcecd.execution.job import GameBegan, GameJob, GameUpdate, MoveMade
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.record import Opening
from tcecd.game.rules import GameRules
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
        rules=GameRules(
            time_control=TimeControl.parse("60+1"),
            margin_ms=200,
            adjudication=AdjudicationRules(max_moves=5),
        ),
    )


async def _one(player: GamePlayer, job: GameJob) -> tuple[float, float, float]:
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
    return (began[0] - t0) * 1000, (t1 - last[0]) * 1000, (t1 - t0) * 1000


async def _bench(player: GamePlayer, games: int) -> tuple[list[float], list[float], list[float]]:
    starts, ends, wholes = [], [], []
    await _one(player, _job(games + 1))  # warm-up (imports, worker start)
    for n in range(1, games + 1):
        s, e, w = await _one(player, _job(n))
        starts.append(s)
        ends.append(e)
        wholes.append(w)
    return starts, ends, wholes


def _line(name: str, values: list[float]) -> str:
    return f"  {name:6s} median {statistics.median(values):7.1f} ms   worst {max(values):7.1f} ms"


async def overhead(games: int) -> None:
    from distributed import LocalCluster

    local = await open_player(ExecutionSettings())
    l_start, l_end, l_whole = await _bench(local, games)
    await local.aclose()
    async with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, resources={"engine_slots": 1},
        host="127.0.0.1", dashboard_address=None, asynchronous=True,
    ) as cluster:  # fmt: skip
        settings = ExecutionSettings(backend="dask", scheduler=cluster.scheduler_address)
        dask = await open_player(settings)
        d_start, d_end, d_whole = await _bench(dask, games)
        await dask.aclose()
    print(f"{games} games, ab-d1 vs ab-d1-noisy, 10 plies")
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
    # A game's last moves can reach the daemon up to BATCH_S after they were made
    # (they go with the task's last event), which the "end" leg, timed from their
    # arrival, does not see; the whole play() call does.
    whole = statistics.median(d_whole) - statistics.median(l_whole)
    print(f"whole game (play() called -> returned, medians): local "
          f"{statistics.median(l_whole):.1f} ms, dask {statistics.median(d_whole):.1f} ms: "
          f"{whole:+.1f} ms")


# -- --speed: one worker against two ----------------------------------------------------

DASK = Path(sys.executable).with_name("dask")
SPEED_PLAYERS = 24  # one round of 12 games


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _speed_config(directory: Path, scheduler: str, nodes: int, concurrency: int) -> Path:
    engines = ", ".join(
        f"{{ref: stockfish, name: sf-{n:02d}, rating: {3500 - n}}}"
        for n in range(1, SPEED_PLAYERS + 1)
    )
    cfg = directory / "event.yaml"
    cfg.write_text(
        "\n".join([
            "event: {name: dask speed, site: bench}",
            "pairing: {rounds: 1, seeding: {method: explicit}}",
            f"engines: [{engines}]",
            f'time_control: {{tc: "inf nodes={nodes}"}}',
            "adjudication: {win: {score: 10.0, moves: 5}, max_moves: 120}",
            f"openings: {{file: {ROOT / 'configs' / 'openings' / 'demo.epd'}}}",
            f"concurrency: {concurrency}",
            "outputs: {state_dir: state}",
            "logging: {level: info, format: json}",
            f"execution: {{backend: dask, scheduler: '{scheduler}'}}",
        ]) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    return cfg


#: Dask settings for an engine cluster, as docs/operations.md's systemd units set
#: them: no statistical profiler (it samples a worker's threads every 10 ms), and
#: the event loop, memory and system monitors every 1-2 s instead of 20-500 ms.
#: An idle worker, its nanny and the scheduler then take about 0.7 % of a core
#: instead of 5 %: CPU the engines of the same host want.
ENGINE_CLUSTER_ENV = {
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
    "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "2s",
    "DASK_DISTRIBUTED__WORKER__MEMORY__MONITOR_INTERVAL": "1s",
}


def _start_worker(address: str, log: object) -> subprocess.Popen[bytes]:
    # As docs/operations.md's systemd unit: tcecd imported when the worker starts.
    env = dict(os.environ, **ENGINE_CLUSTER_ENV)
    return subprocess.Popen(
        [str(DASK), "worker", address, "--nworkers", "1", "--nthreads", "1",
         "--resources", "engine_slots=1", "--no-dashboard", "--preload", "tcecd.execution.dask"],
        stdout=log, stderr=subprocess.STDOUT, env=env,  # type: ignore[arg-type]
    )  # fmt: skip


def _wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout=60) as client:
        client.wait_for_workers(count, timeout=120)


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _game_seconds(pgn: str) -> list[float]:
    """Each game's duration from its GameStartTime/GameEndTime tags."""

    def times(tag: str) -> list[float]:
        return [
            _stamp(m.replace(" UTC", "Z")) for m in re.findall(rf'^\[{tag} "([^"]+)"\]', pgn, re.M)
        ]

    return [end - start for start, end in zip(times("GameStartTime"), times("GameEndTime"),
                                                strict=True)]  # fmt: skip


def _event(
    directory: Path, address: str, nodes: int, concurrency: int
) -> tuple[float, float, str, list[float]]:
    """(event seconds, process wall seconds, the PGN without clock fields, game seconds)."""
    directory.mkdir()
    cfg = _speed_config(directory, address, nodes, concurrency)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "tcecd", "run", str(cfg)], cwd=directory, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"tcecd run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    stamps: dict[str, float] = {}
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.startswith("{"):
            with contextlib.suppress(ValueError, KeyError):
                entry = json.loads(line)
                if entry.get("event") in ("new event", "event finished"):
                    stamps[entry["event"]] = _stamp(entry["timestamp"])
    pgn = (directory / "state" / "event.pgn").read_text(encoding="utf-8")
    if pgn.count("[Event ") != SPEED_PLAYERS // 2:
        raise SystemExit(f"expected {SPEED_PLAYERS // 2} games, got {pgn.count('[Event ')}")
    # Wall-clock tags and comments aside, fixed-nodes games are the same games.
    same = re.sub(r'\[(Date|Time|UTCDate|UTCTime|GameStartTime|GameEndTime|GameDuration)'
                  r' "[^"]*"\]\n|\{[^}]*\}', "", pgn)  # fmt: skip
    return stamps["event finished"] - stamps["new event"], wall, same, _game_seconds(pgn)


def _in_order_model(games: list[float], concurrency: int, workers: int) -> float:
    """When the last game is recorded if games took ``games`` seconds each, on
    ``workers`` one-slot workers, under the daemon's rules: at most
    ``concurrency`` games playing (a game's place is free once it ends), at most
    2 x ``concurrency`` started and not yet recorded, games recorded in playing
    order, and Dask starting queued tasks in submission order on the first free
    worker."""
    free = [0.0] * workers
    finishes: list[float] = []
    commits: list[float] = []
    for i, seconds in enumerate(games):
        permit = sorted(finishes)[i - concurrency] if i >= concurrency else 0.0
        window = commits[i - 2 * concurrency] if i >= 2 * concurrency else 0.0
        w = min(range(workers), key=free.__getitem__)
        start = max(permit, window, free[w])
        free[w] = start + seconds
        finishes.append(free[w])
        commits.append(max(free[w], commits[-1] if commits else 0.0))
    return commits[-1]


def speed(nodes: int, concurrency: int) -> None:
    if shutil.which("stockfish", path=os.environ.get("PATH", "") + ":/usr/games") is None:
        raise SystemExit("--speed needs stockfish (/usr/games/stockfish)")
    env_path = os.environ.get("PATH", "") + os.pathsep + "/usr/games"
    os.environ["PATH"] = env_path  # the workers find stockfish on their PATH
    load0 = os.getloadavg()
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="tcecd-dask-speed-") as tmp_name:
        tmp = Path(tmp_name)
        log = (tmp / "cluster.log").open("wb")
        procs = [
            subprocess.Popen(
                [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                 "--no-dashboard"], stdout=log, stderr=subprocess.STDOUT,
                env=dict(os.environ, **ENGINE_CLUSTER_ENV),
            )
        ]  # fmt: skip
        try:
            procs.append(_start_worker(address, log))
            _wait_for_workers(address, 1)
            one = _event(tmp / "one", address, nodes, concurrency)
            procs.append(_start_worker(address, log))
            _wait_for_workers(address, 2)
            two = _event(tmp / "two", address, nodes, concurrency)
        finally:
            for proc in reversed(procs):
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
            log.close()
    load1 = os.getloadavg()
    print(f"{SPEED_PLAYERS // 2}-game Stockfish event (Threads=1, nodes={nodes} a move, no clock),"
          f" concurrency {concurrency}, dask backend on loopback")  # fmt: skip
    print(f"  1 worker x 1 slot : event {one[0]:6.1f} s   (process {one[1]:6.1f} s)")
    print(f"  2 workers x 1 slot: event {two[0]:6.1f} s   (process {two[1]:6.1f} s)")
    print(f"  ratio two/one: event {two[0] / one[0]:.2f}   (process {two[1] / one[1]:.2f})"
          "   target <= 0.55")  # fmt: skip
    print(f"  same games in both runs: {'yes' if one[2] == two[2] else 'NO'}")
    games = one[3]
    best = max(sum(games) / 2, max(games))
    print(f"  one worker's games: {sum(games):.1f} s in all, longest {max(games):.1f} s")
    print(f"  two workers, these games: at best {best:.1f} s (ratio {best / sum(games):.2f})")
    for c in sorted({2, 3, concurrency}):
        model = _in_order_model(games, c, 2)
        print(f"    recorded in order, concurrency {c}: {model:.1f} s "
              f"(ratio {model / sum(games):.2f})")  # fmt: skip
    print(f"  load average before {load0[0]:.2f}, after {load1[0]:.2f} "
          f"({os.cpu_count()} cores)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="overhead: games per backend")
    parser.add_argument("--speed", action="store_true", help="one worker against two (Stockfish)")
    parser.add_argument("--nodes", type=int, default=100_000, help="--speed: nodes a move")
    parser.add_argument("--concurrency", type=int, default=3, help="--speed: the event's")
    args = parser.parse_args()
    if args.speed:
        speed(args.nodes, args.concurrency)
    else:
        asyncio.run(overhead(args.games))


if __name__ == "__main__":
    main()
