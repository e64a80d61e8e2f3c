"""Process groups as the session sees them when it closes an engine: a group
with a running member, with only a zombie, and with nobody (told without
reading ``/proc``, which costs a file read per process on the machine)."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from tcecd.runner import process
from tcecd.runner.process import group_exists, group_members, kill_group, wait_group_gone


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen(["sleep", "30"], start_new_session=True)


def _wait_zombie(pid: int) -> None:
    for _ in range(500):
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return
        time.sleep(0.01)
    raise AssertionError(f"{pid} did not exit")


def test_a_running_group_is_found() -> None:
    proc = _sleeper()
    try:
        assert group_exists(proc.pid)
        assert group_members(proc.pid) == [proc.pid]
    finally:
        proc.kill()
        proc.wait()


def test_a_group_of_one_zombie_exists_but_nothing_runs() -> None:
    proc = _sleeper()
    try:
        os.kill(proc.pid, signal.SIGKILL)
        _wait_zombie(proc.pid)  # exited, not reaped
        assert group_exists(proc.pid)
        assert group_members(proc.pid) == []
        assert group_members(proc.pid, include_zombies=True) == [proc.pid]
    finally:
        proc.wait()


async def test_a_killed_and_reaped_group_is_gone_without_a_proc_scan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    proc = _sleeper()
    kill_group(proc.pid)
    proc.wait()

    def no_scan(*_: object) -> object:
        raise AssertionError("/proc was scanned for a group that has no process")

    monkeypatch.setattr(process.os, "scandir", no_scan)
    assert not group_exists(proc.pid)
    assert group_members(proc.pid) == []
    assert await wait_group_gone(proc.pid, 1.0)
