"""The Dask backend on a real cluster on loopback: a ``dask scheduler`` and two
``dask worker`` subprocesses (one task thread and ``engine_slots=1`` each).

The engine program exists only on the workers' ``PATH`` (a wrapper script in a
temp dir, named by a bare name in the engine definitions): the daemon cannot
run it, so a finished event proves that the games were played on the workers.
The same event played in-process (with the wrapper on the daemon's ``PATH``)
must give byte-identical games (wall-clock fields aside), results and
standings: the engines are deterministic (depth-1 abengine), so where a game
is played must not change it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.daemon.helpers import (
    ROOT,
    crosstable_summary,
    normalise_pgn,
    schedule_summary,
    standings_block,
    tcecd_argv,
    write_config,
)
from tests.fixtures.mosquitto import free_port

pytestmark = pytest.mark.slow

DASK = Path(sys.executable).with_name("dask")
PROGRAM = "tcecd-test-abengine"  # on the workers' PATH only

#: The four players of tests/daemon/helpers.py FAST_ENGINES, started by the
#: worker-only program (same arguments, options and ratings as the bundled ones).
WORKER_ENGINES = tuple(
    f"{{name: {name}, command: [{PROGRAM}, --depth, '1', --noise, '{noise}', --seed, "
    f"'{seed}', --name, {name}]{options}{rating}}}"
    for name, noise, seed, options, rating in (
        ("ab-d1", 0, 0, "", ", rating: 1000"),
        ("ab-d1-noisy", 80, 1, "", ", rating: 900"),
        ("ab-d1-n50", 0, 0, ", options: {Noise: 50, Seed: 3}", ", rating: 1000"),
        ("ab-d1-n120", 0, 0, ", options: {Noise: 120, Seed: 4}", ", rating: 1000"),
    )
)


@dataclass
class Cluster:
    address: str
    bindir: Path
    procs: list[subprocess.Popen[bytes]]


def _wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout=60) as client:
        client.wait_for_workers(count, timeout=90)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("cluster")
    bindir = tmp / "bin"
    bindir.mkdir()
    wrapper = bindir / PROGRAM
    wrapper.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{ROOT / "engines" / "abengine.py"}" "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = (tmp / "cluster.log").open("wb")
    procs = [
        subprocess.Popen(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port),
             "--no-dashboard"],
            stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
        )
    ]  # fmt: skip
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    for _ in range(2):
        procs.append(
            subprocess.Popen(
                [str(DASK), "worker", address, "--nworkers", "1", "--nthreads", "1",
                 "--resources", "engine_slots=1", "--no-dashboard"],
                stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
            )
        )  # fmt: skip
    try:
        _wait_for_workers(address, 2)
        yield Cluster(address, bindir, procs)
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


def _run(cfg: Path, *args: str, path: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=path)
    env.pop("TCECD_TEST_CRASH_AT", None)
    return subprocess.run(
        tcecd_argv(cfg, *args), cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=240, check=False,
    )  # fmt: skip


def _log_lines(proc: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def test_event_on_the_cluster_equals_the_local_event(cluster: Cluster, tmp_path: Path) -> None:
    base_path = os.environ.get("PATH", "")
    local_cfg = write_config(tmp_path / "local", engines=WORKER_ENGINES, rounds=2)
    remote_cfg = write_config(tmp_path / "dask", engines=WORKER_ENGINES, rounds=2)

    # Without the program on its PATH the daemon cannot play in-process: one line.
    refused = _run(local_cfg, path=base_path)
    assert refused.returncode == 2, refused.stderr
    assert PROGRAM in refused.stderr
    assert "not found" in refused.stderr

    local = _run(local_cfg, path=f"{cluster.bindir}{os.pathsep}{base_path}")
    assert local.returncode == 0, local.stderr[-2000:]
    # The daemon's PATH lacks the program: only the workers can run the engines.
    remote = _run(remote_cfg, "--scheduler", cluster.address, path=base_path)
    assert remote.returncode == 0, remote.stderr[-2000:]

    local_state, remote_state = tmp_path / "local" / "state", tmp_path / "dask" / "state"
    local_pgn = (local_state / "event.pgn").read_text(encoding="utf-8")
    remote_pgn = (remote_state / "event.pgn").read_text(encoding="utf-8")
    assert local_pgn.count("[Event ") == 4  # 4 players, 2 single rounds: 2 games each
    assert normalise_pgn(remote_pgn) == normalise_pgn(local_pgn)
    assert schedule_summary(remote_state) == schedule_summary(local_state)
    assert crosstable_summary(remote_state) == crosstable_summary(local_state)
    assert standings_block(remote.stdout) == standings_block(local.stdout)

    # Concurrency 2, one engine slot per worker: both workers played.
    placed = [e for e in _log_lines(remote) if e.get("event") == "game placed"]
    assert len(placed) == 4
    assert {str(e["worker"]) for e in placed} == {*_worker_addresses(cluster.address)}


def test_unreachable_scheduler_is_one_line_and_exit_2(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, rounds=1)
    cfg.write_text(
        cfg.read_text(encoding="utf-8")
        + "execution: {backend: dask, scheduler: 'tcp://127.0.0.1:"
        + f"{free_port()}', connect_timeout_s: 1}}\n",
        encoding="utf-8",
    )
    started = time.monotonic()
    proc = _run(cfg, path=os.environ.get("PATH", ""))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "cannot reach the Dask scheduler" in lines[0]
    assert not (tmp_path / "state").exists()  # refused before the state was made
    assert time.monotonic() - started < 120


def _worker_addresses(address: str) -> list[str]:
    from distributed import Client

    with Client(address, timeout=30) as client:
        return list(client.scheduler_info()["workers"])


def test_a_worker_killed_mid_game_replays_the_game_elsewhere(
    cluster: Cluster, tmp_path: Path
) -> None:
    """SIGKILL the worker process playing the game: Dask gives the task to the
    other worker, which plays the game from its first move; the daemon says so
    in its log, counts no strike, and the game is the one a local run plays."""
    engines = tuple(
        f"{{name: {name}, command: [{PROGRAM}, --depth, '3', --noise, '{noise}', --seed, '1', "
        f"--name, {name}]}}"
        for name, noise in (("kill-d3", 0), ("kill-d3-noisy", 80))
    )
    remote_cfg = write_config(tmp_path / "dask", engines=engines, rounds=1, max_moves=60,
                              concurrency=1)  # fmt: skip
    local_cfg = write_config(tmp_path / "local", engines=engines, rounds=1, max_moves=60,
                             concurrency=1)  # fmt: skip
    base_path = os.environ.get("PATH", "")
    env = dict(os.environ, PATH=base_path)
    env.pop("TCECD_TEST_CRASH_AT", None)
    daemon = subprocess.Popen(
        tcecd_argv(remote_cfg, "--scheduler", cluster.address), cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        engine = _wait_for_engine("kill-d3", timeout_s=120)
        time.sleep(1.0)  # a few moves into the game
        worker = _parent(engine)
        os.kill(worker, 9)
        out, err = daemon.communicate(timeout=240)
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.communicate()
    assert daemon.returncode == 0, err[-2000:]
    logs = _log_lines(subprocess.CompletedProcess([], 0, out, err))
    restarted = [e for e in logs if e.get("event") == "game restarted from its first move"]
    assert len(restarted) == 1
    placed = [str(e["worker"]) for e in logs if e.get("event") == "game placed"]
    assert len(placed) == 2
    assert placed[0] != placed[1]
    from tcecd.store import EventStore

    with EventStore(tmp_path / "dask" / "state") as store:
        assert store.strikes() == {}  # not the engines' fault
    local = _run(local_cfg, path=f"{cluster.bindir}{os.pathsep}{base_path}")
    assert local.returncode == 0, local.stderr[-2000:]
    remote_pgn = (tmp_path / "dask" / "state" / "event.pgn").read_text(encoding="utf-8")
    local_pgn = (tmp_path / "local" / "state" / "event.pgn").read_text(encoding="utf-8")
    assert remote_pgn.count("[Event ") == 1
    assert normalise_pgn(remote_pgn) == normalise_pgn(local_pgn)
    _wait_for_workers(cluster.address, 2)  # the nanny restarted the killed worker


def _wait_for_engine(name: str, *, timeout_s: float) -> int:
    """The pid of the running engine process started with ``--name NAME``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"abengine.py" in b" ".join(argv) and name.encode() in argv:
                return int(entry.name)
        time.sleep(0.1)
    raise AssertionError(f"engine {name} never started")


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    return int(stat.rsplit(")", 1)[1].split()[1])
