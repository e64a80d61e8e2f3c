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

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest

from tcecd.store import EventStore
from tests.daemon.helpers import (
    ROOT,
    crosstable_summary,
    normalise_pgn,
    schedule_summary,
    standings_block,
    tcecd_argv,
    write_config,
)
from tests.fixtures.mosquitto import broker_port, free_port

#: One cluster per module: under ``pytest -n 2 --dist loadgroup`` (tests/run.sh)
#: these tests all go to one xdist worker instead of each starting a cluster.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("dask-cluster")]

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
    """A scheduler on a fixed loopback port and two workers, each under a
    restart loop (as systemd's ``Restart=always``: ``dask worker`` exits when
    it loses its scheduler, and a starting worker waits for one)."""

    address: str
    port: int
    bindir: Path
    log: IO[bytes]
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]]

    def start_scheduler(self) -> None:
        self.scheduler = _start_scheduler(self.port, self.log)

    def kill_scheduler(self) -> None:
        self.scheduler.kill()
        self.scheduler.wait()


def _start_scheduler(port: int, log: IO[bytes], *tls: str) -> subprocess.Popen[bytes]:
    # Without a dashboard the scheduler still serves HTTP (health, metrics), on 8787
    # unless told: a free port, so that another cluster of the suite finds 8787 free.
    return subprocess.Popen(
        [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard",
         "--dashboard-address", "127.0.0.1:0", *tls],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
    )  # fmt: skip


def _start_worker(address: str, bindir: Path, log: IO[bytes], *tls: str) -> subprocess.Popen[bytes]:
    """A ``dask worker`` restarted whenever it exits, in a session of its own
    (so that teardown can end the loop and the worker together)."""
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    argv = [str(DASK), "worker", address, "--nworkers", "1", "--nthreads", "1",
            "--resources", "engine_slots=1", "--no-dashboard",
            "--preload", "tcecd.execution.dask", *tls]  # fmt: skip  (as docs/operations.md)
    return subprocess.Popen(
        ["sh", "-c", 'while :; do "$@"; sleep 0.2; done', "worker-loop", *argv],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """Scheduler: terminate. Worker loops: terminate the whole session (the
    loop, the nanny and its worker), killed if it is not gone in 20 s."""
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):
            if proc.args[0] == "sh":
                os.killpg(proc.pid, signal.SIGTERM)
            else:
                proc.terminate()
    deadline = time.monotonic() + 20
    for proc in procs:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.args[0] == "sh":
            while _group_alive(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)


def _wait_for_workers(address: str, count: int, security: Any = None) -> None:
    from distributed import Client

    with Client(address, timeout=60, security=security) as client:
        client.wait_for_workers(count, timeout=90)


def _engine_wrapper(bindir: Path) -> None:
    bindir.mkdir()
    wrapper = bindir / PROGRAM
    wrapper.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{ROOT / "engines" / "abengine.py"}" "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("cluster")
    bindir = tmp / "bin"
    _engine_wrapper(bindir)
    port = broker_port()  # (kept when the scheduler is stopped and started again)
    address = f"tcp://127.0.0.1:{port}"
    log = (tmp / "cluster.log").open("wb")
    scheduler = _start_scheduler(port, log)
    workers = [_start_worker(address, bindir, log) for _ in range(2)]
    cluster = Cluster(address, port, bindir, log, scheduler, workers)
    try:
        _wait_for_workers(address, 2)
        yield cluster
    finally:
        _stop([*cluster.workers, cluster.scheduler])
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
    in its log, counts no strike, the killed worker's engines do not outlive
    it, and the game is the one a local run plays."""
    names = ("kill-a", "kill-b")
    engines = tuple(
        f"{{name: {name}, command: [{PROGRAM}, --depth, '1', --noise, '{noise}', --seed, '1', "
        f"--delay-ms, '100', --name, {name}]}}"
        for name, noise in zip(names, (0, 80), strict=True)
    )
    remote_cfg = write_config(tmp_path / "dask", engines=engines, rounds=1, max_moves=40,
                              concurrency=1)  # fmt: skip
    local_cfg = write_config(tmp_path / "local", engines=engines, rounds=1, max_moves=40,
                             concurrency=1)  # fmt: skip
    base_path = os.environ.get("PATH", "")
    env = dict(os.environ, PATH=base_path)
    env.pop("TCECD_TEST_CRASH_AT", None)
    daemon = subprocess.Popen(
        tcecd_argv(remote_cfg, "--scheduler", cluster.address), cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        first = _wait_for_games(names, timeout_s=120)
        time.sleep(1.0)  # a few moves into the game
        worker = _parent(next(iter(first)))
        os.kill(worker, 9)
        _wait_gone(first, timeout_s=5)  # no engine left behind by the dead worker
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
    with EventStore(tmp_path / "dask" / "state") as store:
        assert store.strikes() == {}  # not the engines' fault
    assert _engines_running(names) == {}
    local = _run(local_cfg, path=f"{cluster.bindir}{os.pathsep}{base_path}")
    assert local.returncode == 0, local.stderr[-2000:]
    remote_pgn = (tmp_path / "dask" / "state" / "event.pgn").read_text(encoding="utf-8")
    local_pgn = (tmp_path / "local" / "state" / "event.pgn").read_text(encoding="utf-8")
    assert remote_pgn.count("[Event ") == 1
    assert normalise_pgn(remote_pgn) == normalise_pgn(local_pgn)
    _wait_for_workers(cluster.address, 2)  # the nanny restarted the killed worker


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    return int(stat.rsplit(")", 1)[1].split()[1])


def _describe(pid: int) -> str:
    """``"PID command line"``, for assertions that name processes."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return f"{pid} (gone)"
    return f"{pid} " + " ".join(a.decode(errors="replace") for a in argv if a)


# -- the daemon killed, the scheduler lost: a slower event, one local reference -----

#: Four depth-1 players that wait 100 ms before each move: games of 6-8 s with
#: hardly any CPU, so an engine still running seconds after the kill was not
#: stopped. Named for this part only: their processes are found by ``--name``.
SLOW_NAMES = ("slow-a", "slow-b", "slow-c", "slow-d")
SLOW_ENGINES = tuple(
    f"{{name: {name}, command: [{PROGRAM}, --depth, '1', --noise, '{noise}', --seed, "
    f"'{seed}', --delay-ms, '100', --name, {name}]}}"
    for name, noise, seed in zip(SLOW_NAMES, (0, 80, 40, 120), (1, 2, 3, 4), strict=True)
)


def _slow_config(directory: Path, extra: str = "") -> Path:
    """One round of two games, both at once (concurrency 2, one slot per worker)."""
    return write_config(directory, engines=SLOW_ENGINES, rounds=1, max_moves=40,
                        concurrency=2, extra=extra)  # fmt: skip


@dataclass(frozen=True)
class Reference:
    pgn: str
    schedule: object
    crosstable: object
    standings: str


@pytest.fixture(scope="module")
def slow_reference(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Reference:
    """The slow event played in-process (the program on the daemon's PATH)."""
    tmp = tmp_path_factory.mktemp("slow-local")
    cfg = _slow_config(tmp)
    proc = _run(cfg, path=f"{cluster.bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    state = tmp / "state"
    return Reference(
        normalise_pgn((state / "event.pgn").read_text(encoding="utf-8")),
        schedule_summary(state),
        crosstable_summary(state),
        standings_block(proc.stdout),
    )


def _assert_same_event(state: Path, stdout: str, ref: Reference) -> None:
    pgn = (state / "event.pgn").read_text(encoding="utf-8")
    assert pgn.count("[Event ") == 2
    assert normalise_pgn(pgn) == ref.pgn
    assert schedule_summary(state) == ref.schedule
    assert crosstable_summary(state) == ref.crosstable
    assert standings_block(stdout) == ref.standings


def _engines_running(names: tuple[str, ...]) -> dict[int, str]:
    """pid -> name of the running abengine processes started with ``--name NAME``."""
    found: dict[int, str] = {}
    wanted = {n.encode(): n for n in names}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state == "Z" or b"abengine.py" not in b" ".join(argv):
            continue
        for arg in argv:
            if arg in wanted:
                found[int(entry.name)] = wanted[arg]
    return found


def _wait_for_games(names: tuple[str, ...], *, timeout_s: float) -> dict[int, str]:
    """Until each of ``names`` has exactly one engine running (both games are on,
    and no engine of an earlier attempt at a game is still on its way out)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        running = _engines_running(names)
        if sorted(running.values()) == sorted(names):
            return running
        time.sleep(0.1)
    raise AssertionError(f"the games never ran: {_engines_running(names)}")


def _wait_gone(pids: dict[int, str], *, timeout_s: float) -> float:
    """Seconds until none of ``pids`` is a live engine any more (else fail)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        left = {p: n for p, n in _engines_running(tuple(set(pids.values()))).items() if p in pids}
        if not left:
            return time.monotonic() - started
        time.sleep(0.1)
    raise AssertionError(f"engines left behind on the workers: {left}")


def _daemon(cfg: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.pop("TCECD_TEST_CRASH_AT", None)
    return subprocess.Popen(
        tcecd_argv(cfg, *args), cwd=ROOT, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


# solo: "gone within 5 s" (stopped, not played out) is a timing assertion.
@pytest.mark.solo
def test_a_daemon_killed_mid_event_leaves_no_engine_and_resumes_identically(
    cluster: Cluster, slow_reference: Reference, tmp_path: Path
) -> None:
    """SIGKILL the daemon while both games run on the workers: the scheduler
    drops the dead client's tasks and each worker kills that game's engines
    (bounded time); the daemon run again finishes the event, identical to the
    local run."""
    cfg = _slow_config(tmp_path)
    daemon = _daemon(cfg, "--scheduler", cluster.address)
    try:
        engines = _wait_for_games(SLOW_NAMES, timeout_s=120)
        time.sleep(0.5)  # a few moves into both games
        # Read while the games run: once the daemon is killed, the workers stop the
        # engines and a dying engine's parent is no longer a fact about the game.
        parents = {pid: _parent(pid) for pid in engines}
        nannies = {_describe(_parent(worker)) for worker in parents.values()}
        assert daemon.poll() is None
        daemon.kill()
        daemon.communicate(timeout=30)
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.communicate()
    # The engines were the workers' (the daemon's PATH lacks the program).
    workers = set(parents.values())
    assert len(workers) == 2, (parents, nannies)  # one game on each worker
    assert daemon.pid not in workers
    # Each worker process is the child of one of this cluster's `dask worker`s.
    assert len(nannies) == 2, nannies
    assert all(f"dask worker {cluster.address}" in n for n in nannies), nannies
    # The games had some 7 s left (up to 80 plies at 100 ms each, killed about 0.5 s
    # in): gone within 5 s, they were stopped, not played out. (3 s was too short for
    # a loaded 2-core machine: the scheduler first has to notice the client is gone.)
    gone_after = _wait_gone(engines, timeout_s=5)
    assert _engines_running(SLOW_NAMES) == {}  # no orphan, and nothing restarted them
    with EventStore(tmp_path / "state") as store:
        assert store.games() == []  # killed mid-game: nothing was recorded yet

    again = _run(cfg, "--scheduler", cluster.address, path=os.environ.get("PATH", ""))
    assert again.returncode == 0, again.stderr[-2000:]
    _assert_same_event(tmp_path / "state", again.stdout, slow_reference)
    print(f"engines gone {gone_after:.1f} s after the daemon was killed")


def test_a_scheduler_lost_mid_event_holds_the_games_until_it_is_back(
    cluster: Cluster, slow_reference: Reference, tmp_path: Path
) -> None:
    """SIGKILL the scheduler while both games run, keep it away a few seconds
    (longer than the client's own reconnection window, ``connect_timeout_s:
    1``), start it again on the same port: the workers' engines are stopped
    (the workers exit with their scheduler), the daemon waits, the restarted
    workers join the new scheduler, both games are played again from their
    start and the event is the local one."""
    cfg = _slow_config(
        tmp_path,
        f"execution: {{backend: dask, scheduler: '{cluster.address}', connect_timeout_s: 1}}\n",
    )
    daemon = _daemon(cfg)
    try:
        engines = _wait_for_games(SLOW_NAMES, timeout_s=120)
        time.sleep(0.5)
        cluster.kill_scheduler()
        # The workers close with their scheduler and stop their games.
        gone_after = _wait_gone(engines, timeout_s=3)
        time.sleep(3.0)  # the scheduler stays away: the games wait
        assert daemon.poll() is None, daemon.communicate()[1][-2000:]
        cluster.start_scheduler()
        out, err = daemon.communicate(timeout=240)
    finally:
        if cluster.scheduler.poll() is not None:
            cluster.start_scheduler()
        if daemon.poll() is None:
            daemon.kill()
            daemon.communicate()
    assert daemon.returncode == 0, err[-2000:]
    logs = _log_lines(subprocess.CompletedProcess([], 0, out, err))
    events = [str(e.get("event")) for e in logs]
    assert events.count("Dask scheduler unreachable: games wait for it") == 1
    assert events.count("Dask scheduler reachable again") == 1
    assert events.count("game restarted from its first move") == 2
    with EventStore(tmp_path / "state") as store:
        assert store.strikes() == {}
    _assert_same_event(tmp_path / "state", out, slow_reference)
    _wait_for_workers(cluster.address, 2)
    print(f"engines gone {gone_after:.1f} s after the scheduler was killed")


# -- TLS ------------------------------------------------------------------------------


def _certificates(directory: Path) -> None:
    """A private CA and one certificate per party (scheduler, worker, daemon),
    made with the ``openssl`` program as docs/operations.md shows."""
    directory.mkdir()

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True)

    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    openssl("req", "-x509", *ec, "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=tcecd test CA")  # fmt: skip
    for name in ("sched", "worker", "daemon"):
        openssl("req", *ec, "-keyout", f"{name}-key.pem", "-out", f"{name}.csr",
                "-subj", f"/CN={name}")  # fmt: skip
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
                "-CAcreateserial", "-out", f"{name}.pem", "-days", "2")  # fmt: skip


def _tls_flags(certs: Path, name: str) -> tuple[str, ...]:
    return ("--tls-ca-file", str(certs / "ca.pem"), "--tls-cert", str(certs / f"{name}.pem"),
            "--tls-key", str(certs / f"{name}-key.pem"))  # fmt: skip


def test_an_event_over_tls(tmp_path: Path) -> None:
    """A ``tls://`` scheduler and worker (mutual TLS, certificates from a
    private CA): the daemon connects with ``execution.tls`` and the event is
    played on the worker; without the TLS files it is refused with one line."""
    certs = tmp_path / "certs"
    _certificates(certs)
    bindir = tmp_path / "bin"
    _engine_wrapper(bindir)
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    log = (tmp_path / "cluster.log").open("wb")
    procs = [_start_scheduler(port, log, *_tls_flags(certs, "sched"))]
    try:
        procs.append(_start_worker(address, bindir, log, *_tls_flags(certs, "worker")))
        from distributed.security import Security

        security = Security(  # type: ignore[no-untyped-call]
            tls_ca_file=str(certs / "ca.pem"), tls_client_cert=str(certs / "daemon.pem"),
            tls_client_key=str(certs / "daemon-key.pem"), require_encryption=True,
        )  # fmt: skip
        _wait_for_workers(address, 1, security)

        plain = write_config(tmp_path / "plain", engines=WORKER_ENGINES, rounds=1)
        refused = _run(plain, "--scheduler", address, path=os.environ.get("PATH", ""))
        assert refused.returncode == 2
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1, refused.stderr
        assert "a tls:// scheduler needs execution.tls" in lines[0]

        tls = (
            f"execution: {{backend: dask, scheduler: '{address}', tls: {{ca: {certs}/ca.pem, "
            f"cert: {certs}/daemon.pem, key: {certs}/daemon-key.pem}}}}\n"
        )
        cfg = write_config(tmp_path / "tls", engines=WORKER_ENGINES, rounds=1, extra=tls)
        done = _run(cfg, path=os.environ.get("PATH", ""))
        assert done.returncode == 0, done.stderr[-2000:]
    finally:
        _stop(procs)
        log.close()
    pgn = (tmp_path / "tls" / "state" / "event.pgn").read_text(encoding="utf-8")
    assert pgn.count("[Event ") == 2
    placed = [str(e["worker"]) for e in _log_lines(done) if e.get("event") == "game placed"]
    assert len(placed) == 2
    assert all(w.startswith("tls://127.0.0.1:") for w in placed)
