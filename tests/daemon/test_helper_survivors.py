"""Nothing a daemon starts outlives it: forecast workers, multiprocessing's resource
tracker and the embedded Mosquitto die with a SIGKILLed daemon, and the next start
reaps whatever an earlier run left (tcecd.runner.reaper, issue 27).

Before, a ``forecast`` section left a spawn worker (blocked on its queue for good)
and the resource tracker (waiting for it) reparented to init, and the embedded
Mosquitto stayed up, so that the next start published to it. The processes are found
by what the state directory records (the event's token, which every process the
daemon starts carries in its environment, and the recorded process groups), never by
name: only the daemon's own children are looked at, and only the pid this test started
is killed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tcecd.runner.process import group_members
from tcecd.runner.reaper import ENV_MARK, FILE_NAME, HELPER_MARK, EngineGroups
from tests.daemon.helpers import (
    ROOT,
    live_processes_with,
    run_env,
    run_tcecd,
    tcecd_argv,
    wait_until,
    write_config,
)
from tests.fixtures.requirements import require_program

pytestmark = pytest.mark.slow


def _environ(pid: int) -> list[bytes] | None:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def _alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def _marked(token: str) -> set[int]:
    """Live processes carrying the event's engine or helper mark."""
    return live_processes_with(f"{ENV_MARK}={token}", f"{HELPER_MARK}={token}")


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[1] == pid and stat[0] != "Z":
                found.add(int(entry.name))
    return found


def _record(state: Path) -> dict[str, object]:
    try:
        doc = json.loads((state / FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    assert isinstance(doc, dict)
    return doc


def test_forecast_workers_and_broker_die_with_a_sigkilled_daemon(tmp_path: Path) -> None:
    require_program("mosquitto")
    cfg = write_config(
        tmp_path, rounds=7, max_moves=200,
        mqtt="{embedded: true, url: 'mqtt://127.0.0.1', embedded_ws_port: null}",
        extra="forecast: {simulations: 200}\n",
    )  # fmt: skip
    state = tmp_path / "state"
    daemon = subprocess.Popen(
        tcecd_argv(cfg), cwd=ROOT, env=run_env(), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    seen: set[int] = set()
    try:
        # The broker's group is recorded; the daemon's children with the event's mark
        # and no engine mark are the broker, the forecast's spawn worker and
        # multiprocessing's resource tracker (the worker starts with the first forecast).
        def helpers_up() -> bool:
            token = str(_record(state).get("token", ""))
            if not token or not _record(state).get("helpers"):
                return False
            engine_mark = f"{ENV_MARK}={token}".encode()
            helpers = {
                pid for pid in _children(daemon.pid) & _marked(token)
                if engine_mark not in (_environ(pid) or [engine_mark])
            }  # fmt: skip
            seen.update(helpers)
            return len(helpers) >= 3

        assert wait_until(helpers_up, 60), (seen, _record(state))
        token = str(_record(state)["token"])
        recorded = [int(pgid) for pgid in dict(_record(state)["helpers"])]  # type: ignore[arg-type]
        seen |= _marked(token)
        for pgid in recorded:
            seen.update(group_members(pgid))
    finally:
        daemon.send_signal(signal.SIGKILL)  # only the pid this test started
        daemon.wait(timeout=30)
    try:
        # Gone without any help: parent-death signal (broker, engines) and the
        # workers' own watch; the tracker ends once no one holds its pipe.
        assert wait_until(lambda: not any(_alive(pid) for pid in seen), 30), [
            (pid, Path(f"/proc/{pid}/cmdline").read_bytes()) for pid in seen if _alive(pid)
        ]
        assert not _marked(token)
        for pgid in recorded:
            assert group_members(pgid) == []
    finally:
        for pid in seen:
            if _alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def test_the_next_start_reaps_what_an_earlier_run_left(tmp_path: Path) -> None:
    """Leftovers a death signal missed (a helper of an older tcecd, a worker whose
    watch never ran): one carrying the event's helper mark, one in a recorded helper
    group (a leader and its child). The resumed event kills both before anything else."""
    cfg = write_config(tmp_path, rounds=1, max_moves=4)
    state = tmp_path / "state"
    state.mkdir()
    groups = EngineGroups(state)
    sleeper = [sys.executable, "-c", "import time; time.sleep(120)"]
    marked = subprocess.Popen(
        sleeper, env={**os.environ, **groups.helper_env()}, start_new_session=True
    )
    leader = subprocess.Popen(
        [sys.executable, "-c",
         "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', "
         "'import time; time.sleep(120)']); time.sleep(120)"],
        start_new_session=True,
    )  # fmt: skip
    try:
        groups.started(leader.pid, helper=True)
        assert wait_until(lambda: len(group_members(leader.pid)) == 2, 30)
        left = {marked.pid, *group_members(leader.pid)}
        done = run_tcecd(cfg, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "engine processes of an earlier run killed" in done.stderr
        assert marked.wait(timeout=30) == -signal.SIGKILL
        assert leader.wait(timeout=30) == -signal.SIGKILL
        assert wait_until(lambda: not any(_alive(pid) for pid in left), 30)
        assert EngineGroups(state).helpers == {}
    finally:
        for proc in (marked, leader):
            proc.kill()
            proc.wait()
        for pid in group_members(leader.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
