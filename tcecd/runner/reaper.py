"""Nothing tcecd starts outlives its daemon: processes are marked, recorded and reaped.

An engine that ignores EOF on stdin (``engines/broken-hang.yaml``) keeps running when
tcecd dies without tearing it down (SIGKILL, OOM killer, power cut of the daemon only),
and so does any helper it forked; so would a forecast worker blocked on its queue
(with multiprocessing's resource tracker waiting for it) or the embedded Mosquitto.
Three layers make sure none survives:

1. **Parent-death signal.** On Linux each engine and each helper program starts under
   ``setpriv --pdeathsig SIG`` (util-linux; it sets ``PR_SET_PDEATHSIG`` and execs the
   program), so the kernel signals it the moment tcecd dies: SIGKILL for engines,
   SIGTERM for the embedded Mosquitto (it saves its database on SIGTERM). It does not
   reach the program's own children. Python workers that multiprocessing starts (they
   cannot be exec'd under setpriv) run :func:`tcecd.runner.parent.die_with_parent`
   first: a thread that ends the worker once its parent is gone.
2. **A mark in the environment.** Every engine gets ``TCECD_ENGINE_OF=<token>`` in its
   environment, one random token per state directory; every other process tcecd starts
   for the event gets ``TCECD_HELPER_OF=<token>`` (:func:`helper_environment` puts it in
   the daemon's own environment while the event runs, so that what libraries start,
   multiprocessing's workers and resource tracker, inherits it too). Children inherit
   the marks, even those that leave the process group.
3. **A record in the state directory.** ``engine-groups.json`` holds the token and the
   process group of every engine and helper program started and not yet seen gone,
   with the leader's start time (``/proc/PID/stat`` field 22) and the boot id, so that
   a reused pid is never mistaken for ours.

:meth:`EngineGroups.reap` runs when an event starts (under the state directory's lock:
everything of an earlier run, engines and helpers) and when it ends (engines only: the
helpers are stopped by their owners, the broker after the publisher's goodbye): it
SIGKILLs every process that carries this state directory's mark, and every recorded
group whose leader is still the very process we started (same boot, same start time).
Nothing else is touched.

:func:`spawn_helper` starts any other program under these rules (the embedded
Mosquitto; whatever comes next); engines go through :mod:`tcecd.runner.session`, which
applies the same rules with the engine mark.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tcecd.runner.process import group_members

#: The environment variable that marks an engine (and its helpers) as this event's.
ENV_MARK = "TCECD_ENGINE_OF"
#: The environment variable that marks every other process started for this event.
HELPER_MARK = "TCECD_HELPER_OF"
#: The record's file name in the state directory.
FILE_NAME = "engine-groups.json"


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (``/proc/PID/stat`` field 22),
    None when it is gone. With the boot id it identifies a process for good."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # Field 2 (the command) may hold spaces and parentheses: split after the last ')'.
    return int(text[text.rindex(")") + 2 :].split()[19])


def _marked(pid: int, marks: tuple[bytes, ...]) -> bool:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:  # gone, or another user's
        return False
    entries = environ.split(b"\0")
    return any(mark in entries for mark in marks)


def _ancestors() -> set[int]:
    """This process and its ancestors: never reaped, whatever their environment says
    (a daemon started from a shell that ran an event in-process, say)."""
    found: set[int] = set()
    pid = os.getpid()
    while pid > 1 and pid not in found:
        found.add(pid)
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(text[text.rindex(")") + 2 :].split()[1])
    return found


def with_parent_death_signal(
    argv: list[str], sig: signal.Signals = signal.SIGKILL
) -> list[str]:
    """``argv`` wrapped in ``setpriv --pdeathsig SIG --`` on Linux when setpriv exists
    and the program can be run (else as given: then Popen reports a bad program)."""
    if not sys.platform.startswith("linux") or not os.access(argv[0], os.X_OK):
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return argv
    return [setpriv, "--pdeathsig", sig.name.removeprefix("SIG"), "--", *argv]


class EngineGroups:
    """The processes of one state directory: their mark, their record, and the reaper.

    (Named for the engines it first kept; it keeps the helpers as well.)"""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FILE_NAME
        self._lock = threading.Lock()
        self.boot = _boot_id()
        self.token = ""
        #: pgid -> leader start time, for engine groups started on this boot (a record
        #: from another boot is dropped: nothing of it can still run).
        self.groups: dict[int, int] = {}
        #: The same for helper programs (:func:`spawn_helper`).
        self.helpers: dict[int, int] = {}
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
            self.token = str(doc["token"])
            if doc.get("boot") == self.boot:
                self.groups = {int(k): int(v) for k, v in dict(doc["groups"]).items()}
                self.helpers = {int(k): int(v) for k, v in dict(doc.get("helpers", {})).items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass  # none yet, or unreadable: start afresh (the mark below still works)
        if not self.token:
            self.token = secrets.token_hex(8)
            self._save()

    def env(self) -> dict[str, str]:
        """The environment entry every engine of this event gets."""
        return {ENV_MARK: self.token}

    def helper_env(self) -> dict[str, str]:
        """The environment entry every other process of this event gets."""
        return {HELPER_MARK: self.token}

    def started(self, pid: int, *, helper: bool = False) -> None:
        """Record the group of an engine (``helper``: a helper program) just spawned
        (its pid is its pgid). Thread-safe: sessions call it off the event loop (it
        writes a file)."""
        begun = start_time(pid)
        if begun is not None:
            with self._lock:
                (self.helpers if helper else self.groups)[pid] = begun
                self._save()

    def ended(self, pid: int, *, helper: bool = False) -> None:
        """Forget a group that was seen gone (thread-safe, as :meth:`started`)."""
        with self._lock:
            if (self.helpers if helper else self.groups).pop(pid, None) is not None:
                self._save()

    def survivors(self, *, helpers: bool = True) -> list[int]:
        """Pids of processes that are this event's engines or their helpers, and
        (``helpers``) the other processes started for the event."""
        marks = [f"{ENV_MARK}={self.token}".encode()]
        recorded = dict(self.groups)
        if helpers:
            marks.append(f"{HELPER_MARK}={self.token}".encode())
            recorded.update(self.helpers)
        spared = _ancestors()
        found: set[int] = set()
        for pgid, begun in recorded.items():
            if start_time(pgid) == begun:  # the very leader we started, still there
                found.update(group_members(pgid))
        for entry in os.scandir("/proc"):
            if entry.name.isdigit() and _marked(int(entry.name), tuple(marks)):
                found.add(int(entry.name))
        return sorted(found - spared)

    def reap(self, timeout_s: float = 5.0, *, helpers: bool = True) -> list[int]:
        """SIGKILL every survivor (see the module docstring; ``helpers`` False: the
        engines only, as at the end of an event, while the broker still runs), wait
        until they are gone, clear the record; returns the pids killed. Blocking: call
        it off the event loop or before the loop runs engines."""
        killed = self.survivors(helpers=helpers)
        deadline = time.monotonic() + timeout_s
        pending = killed
        while pending:
            for pid in pending:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                break
            time.sleep(0.01)
            pending = [pid for pid in pending if _running(pid)]
        with self._lock:
            if self.groups or (helpers and self.helpers):
                self.groups = {}
                if helpers:
                    self.helpers = {}
                self._save()
        return killed

    def _save(self) -> None:
        doc = {"token": self.token, "boot": self.boot, "groups": self.groups,
               "helpers": self.helpers}  # fmt: skip
        tmp = self.path.with_name(self.path.name + ".tmp")
        with contextlib.suppress(OSError):  # a record we cannot write must not stop games
            tmp.write_text(json.dumps(doc), encoding="utf-8")
            os.replace(tmp, self.path)


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rindex(")") + 2 :].split()[0] != "Z"


@contextlib.contextmanager
def helper_environment(groups: EngineGroups | None) -> Iterator[None]:
    """While the event runs, the daemon's own environment carries the helper mark, so
    that every process started by a library without an ``env`` of ours (multiprocessing's
    spawn workers and its resource tracker) inherits it; restored on the way out (an
    event run inside a test process leaves nothing behind)."""
    if groups is None:
        yield
        return
    before = os.environ.get(HELPER_MARK)
    os.environ[HELPER_MARK] = groups.token
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(HELPER_MARK, None)
        else:
            os.environ[HELPER_MARK] = before


def helper_spawn(
    argv: list[str],
    groups: EngineGroups | None,
    *,
    death_signal: signal.Signals = signal.SIGKILL,
    env: dict[str, str] | None = None,
) -> tuple[list[str], dict[str, Any]]:
    """The argv and ``subprocess``/``loop.subprocess_exec`` keyword arguments that
    start a helper program under the rules of the module docstring: its own session
    (a terminal's Ctrl-C reaches the daemon only; one ``killpg`` ends it all),
    ``death_signal`` from the kernel when the daemon dies, the helper mark in its
    environment. Record the group with ``groups.started(pid, helper=True)`` once
    it runs (:func:`spawn_helper` does both)."""
    mark = groups.helper_env() if groups is not None else {}
    kwargs: dict[str, Any] = {
        "start_new_session": True,
        "env": {**os.environ, **(env or {}), **mark},
    }
    return with_parent_death_signal(argv, death_signal), kwargs


async def spawn_helper(
    argv: list[str],
    groups: EngineGroups | None,
    *,
    death_signal: signal.Signals = signal.SIGKILL,
    env: dict[str, str] | None = None,
    **kwargs: Any,
) -> asyncio.subprocess.Process:
    """Start a helper program for the event (``asyncio.create_subprocess_exec`` with
    ``kwargs``: stdio, cwd) under the reaper's rules (:func:`helper_spawn`) and record
    its group in the state directory. Call ``groups.ended(pid, helper=True)`` once it
    was stopped and reaped."""
    argv, spawn = helper_spawn(argv, groups, death_signal=death_signal, env=env)
    program, *args = argv
    proc = await asyncio.create_subprocess_exec(program, *args, **spawn, **kwargs)
    if groups is not None:
        await asyncio.to_thread(groups.started, proc.pid, helper=True)
    return proc
