"""The Dask units in deploy/ (issue 28): ``dask scheduler --no-dashboard`` still serves
unauthenticated HTTP routes (health, metrics, /info, the workers' JSON) on
0.0.0.0:8787, and a worker on a random port of every interface. The units bind them
to loopback: started here with the units' own command lines, every socket their
processes listen on is on 127.0.0.1."""

from __future__ import annotations

import configparser
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fixtures.mosquitto import free_port

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
DASK = Path(sys.executable).parent / "dask"
INSTALLED_DASK = "/opt/tcecd/.venv/bin/dask"


def _service(unit: str) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(DEPLOY / unit)
    return parser["Service"]


def _exec_start(unit: str) -> list[str]:
    return shlex.split(_service(unit)["ExecStart"].replace("\\\n", " "))


def _environment(unit: str) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    env = {}
    for line in (DEPLOY / unit).read_text().splitlines():
        if line.startswith("Environment="):
            name, _, value = line.removeprefix("Environment=").partition("=")
            env[name] = value
    return env


def _option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_the_units_bind_their_http_servers_to_loopback() -> None:
    scheduler = _exec_start("dask-scheduler.service")
    worker = _exec_start("dask-worker.service")
    assert scheduler[:2] == [INSTALLED_DASK, "scheduler"]
    assert worker[:2] == [INSTALLED_DASK, "worker"]
    assert _option(scheduler, "--dashboard-address") == "127.0.0.1:8787"
    assert _option(worker, "--dashboard-address") == "127.0.0.1:0"
    # The docs show the same command lines.
    docs = (DEPLOY.parent / "docs" / "operations.md").read_text()
    assert "deploy/dask-scheduler.service" in docs
    assert "deploy/dask-worker.service" in docs
    for line in re.findall(r"^dask (?:scheduler|worker) .*$", docs, flags=re.M):
        assert "--dashboard-address 127.0.0.1:" in line, line


def _socket_inodes(pids: list[int]) -> set[str]:
    inodes = set()
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    return inodes


def _listening(pids: list[int]) -> list[tuple[str, int]]:
    """(local address in /proc's hex, port) of every TCP socket the processes listen on."""
    inodes = _socket_inodes(pids)
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in inodes:  # LISTEN, ours
                address, port = fields[1].split(":")
                out.append((address, int(port, 16)))
    return out


def _group(pgid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[2]) == pgid:
                pids.append(int(entry))
    return pids


def _wait_for(log: Path, pattern: str, proc: subprocess.Popen[bytes]) -> re.Match[str]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text(errors="replace"))
        if found is not None:
            return found
        assert proc.poll() is None, log.read_text(errors="replace")
        time.sleep(0.1)
    raise AssertionError(f"{pattern!r} not in {log.read_text(errors='replace')}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.mark.slow
def test_a_cluster_started_as_the_units_say_listens_on_loopback_only(tmp_path: Path) -> None:
    """The units' command lines, with the scheduler's address 10.0.0.1 replaced by
    127.0.0.1 and free ports (tests never reach another address)."""
    port, http_port = free_port(), free_port()
    scheduler = [
        str(DASK) if a == INSTALLED_DASK else a.replace("10.0.0.1", "127.0.0.1")
        for a in _exec_start("dask-scheduler.service")
    ]
    scheduler[scheduler.index("--port") + 1] = str(port)
    scheduler[scheduler.index("--dashboard-address") + 1] = f"127.0.0.1:{http_port}"
    scheduler[scheduler.index("--scheduler-file") + 1] = str(tmp_path / "scheduler.json")
    worker = [
        str(DASK) if a == INSTALLED_DASK else a.replace("10.0.0.1:8786", f"127.0.0.1:{port}")
        for a in _exec_start("dask-worker.service")
    ]
    worker[worker.index("--name") + 1] = "test-worker"
    logs = (tmp_path / "scheduler.log", tmp_path / "worker.log")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for argv, log, unit in zip((scheduler, worker), logs,
                                   ("dask-scheduler.service", "dask-worker.service"),
                                   strict=True):
            with log.open("wb") as out:
                procs.append(subprocess.Popen(
                    argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                    env={**os.environ, **_environment(unit), "PATH": os.environ["PATH"]}))
            if unit == "dask-scheduler.service":
                _wait_for(log, r"Scheduler at:", procs[0])
        _wait_for(logs[0], rf"dashboard at:\s+http://127\.0\.0\.1:{http_port}/", procs[0])
        worker_http = int(_wait_for(logs[1], r"dashboard at:\s+127\.0\.0\.1:(\d+)", procs[1])[1])
        comm = int(_wait_for(logs[1], r"Start worker at:\s+tcp://127\.0\.0\.1:(\d+)",
                             procs[1])[1])
        _wait_for(logs[0], r"Register worker", procs[0])
        loopback = {"0100007F", "00000000000000000000000001000000"}
        for proc, http in zip(procs, (http_port, worker_http), strict=True):
            sockets = _listening(_group(proc.pid))
            assert ("0100007F", http) in sockets, sockets  # the HTTP server, on loopback
            # Nothing else on another address but the worker's own comm port, which
            # the scheduler and the other workers must reach (TLS or a closed
            # network: docs/operations.md).
            elsewhere = {port for address, port in sockets if address not in loopback}
            assert elsewhere <= {comm}, sockets
    finally:
        for proc in reversed(procs):
            _stop(proc)
