"""No engine process of an event survives its daemon (tcecd.runner.reaper).

An engine that ignores EOF (``broken.py --mode hang --spawn-child``: it forks a sleeping
helper, then never answers) kept running after tcecd was SIGKILLed, and its helper even
after the restarted event had finished. Each engine here carries a test tag in its
environment (the engine definition's ``env``), so the test finds exactly its own
processes by their environment, whatever else runs on the machine.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tcecd.runner.reaper import FILE_NAME, EngineGroups, start_time
from tests.daemon.helpers import (
    ROOT,
    live_processes_with,
    run_env,
    run_tcecd,
    tcecd_argv,
    wait_until,
)

TAG = "TCECD_TEST_SURVIVOR"


def _tagged(tag: str) -> set[int]:
    """Live (non-zombie) processes whose environment holds ``TAG=tag``."""
    return live_processes_with(f"{TAG}={tag}")


def _config(directory: Path, tag: str) -> Path:
    hang = (
        f"{{name: hang, command: ['{{python}}', '{ROOT}/engines/broken.py', '--mode', 'hang', "
        f"'--after', '3', '--spawn-child'], env: {{{TAG}: '{tag}'}}}}"
    )
    cfg = directory / "event.yaml"
    cfg.write_text(
        "\n".join(
            [
                "event: {name: survivors, site: tests}",
                "pairing: {rounds: 1}",
                f"engines: [{hang}, ab-d1]",
                # A 2 s clock: the hanging engine is declared stalled after 2 s + 2 s grace.
                'time_control: {tc: "2+0.1"}',
                "outputs: {state_dir: state}",
                "logging: {level: info, format: json}",
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    return cfg


@pytest.mark.slow
def test_engines_of_a_sigkilled_daemon_do_not_survive_the_next_run(tmp_path: Path) -> None:
    tag = secrets.token_hex(6)
    cfg = _config(tmp_path, tag)
    proc = subprocess.Popen(
        tcecd_argv(cfg), cwd=ROOT, env=run_env(), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        # The hanging engine and its helper (spawned at its third move) are both up.
        assert wait_until(lambda: len(_tagged(tag)) >= 2), _tagged(tag)
    finally:
        proc.kill()
        proc.wait(timeout=10)
    left = _tagged(tag)
    try:
        # The restarted event kills them before anything else and plays to its end
        # (the new hanging engine stalls and loses); nothing of either run survives it.
        done = run_tcecd(cfg, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "engine processes of an earlier run killed" in done.stderr
        assert wait_until(lambda: not _tagged(tag), 5.0), _tagged(tag)
    finally:
        for pid in left | _tagged(tag):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_reaper_kills_only_what_is_provably_ours(tmp_path: Path) -> None:
    """A recorded group whose leader's start time differs (a reused pid) is left alone;
    one whose leader is the very process recorded is killed, helpers and all."""
    stranger = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    ours = subprocess.Popen(
        [sys.executable, "-c",
         "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', "
         "'import time; time.sleep(60)']); time.sleep(60)"],
        start_new_session=True,
    )  # fmt: skip
    try:
        groups = EngineGroups(tmp_path)
        begun = start_time(stranger.pid)
        assert begun is not None
        groups.groups[stranger.pid] = begun + 1  # as if the pid had been reused since
        groups.started(ours.pid)
        assert wait_until(lambda: len(_members(ours.pid)) == 2, 10.0)
        helpers = _members(ours.pid)
        killed = EngineGroups(tmp_path).reap()  # a new run reads the record
        assert sorted(killed) == sorted(helpers)
        assert ours.wait(timeout=10) == -signal.SIGKILL
        assert stranger.poll() is None
        assert (tmp_path / FILE_NAME).exists()
        assert EngineGroups(tmp_path).groups == {}
    finally:
        stranger.kill()
        ours.kill()
        stranger.wait()
        ours.wait()


def _members(pgid: int) -> list[int]:
    from tcecd.runner.process import group_members

    return group_members(pgid)


def test_an_engine_dies_with_its_parent() -> None:
    """``with_parent_death_signal``: the kernel kills the engine when the process that
    started it dies, even an engine that ignores the end of its input."""
    script = (
        "import subprocess, sys, time\n"
        "from tcecd.runner.reaper import with_parent_death_signal\n"
        "argv = with_parent_death_signal([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "child = subprocess.Popen(argv, start_new_session=True)\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    # setpriv sets the signal and then execs the engine: until that exec the signal may not
    # be set yet (a daemon killed in that window is covered by the reaper's mark and
    # record). Kill the parent only once the engine itself runs, else a loaded machine
    # loses the race and the test fails for the wrong reason.
    assert wait_until(lambda: _program(pid) == Path(sys.executable).resolve(), 10.0)
    parent.kill()
    parent.wait(timeout=10)
    try:
        assert wait_until(lambda: not _alive(pid), 5.0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _program(pid: int) -> Path | None:
    """The program a process runs (``/proc/PID/exe``), None when it is gone."""
    try:
        return Path(os.readlink(f"/proc/{pid}/exe")).resolve()
    except OSError:
        return None


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"
