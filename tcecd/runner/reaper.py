"""No engine outlives its daemon: engine processes are marked, recorded and reaped.

An engine that ignores EOF on stdin (``engines/broken-hang.yaml``) keeps running when
tcecd dies without tearing it down (SIGKILL, OOM killer, power cut of the daemon only),
and so does any helper it forked. Three layers make sure none survives:

1. **Parent-death signal.** On Linux each engine starts under ``setpriv --pdeathsig KILL``
   (util-linux; it sets ``PR_SET_PDEATHSIG`` and execs the engine), so the kernel kills
   the engine itself the moment tcecd dies. It does not reach the engine's own children.
2. **A mark in the environment.** Every engine gets ``TCECD_ENGINE_OF=<token>`` in its
   environment, one random token per state directory; helpers inherit it, even those that
   leave the engine's process group.
3. **A record in the state directory.** ``engine-groups.json`` holds the token and the
   process group of every engine started and not yet seen gone, with the leader's start
   time (``/proc/PID/stat`` field 22) and the boot id, so that a reused pid is never
   mistaken for ours.

:meth:`EngineGroups.reap` runs when an event starts (under the state directory's lock)
and when it ends: it SIGKILLs every process that carries this state directory's mark,
and every recorded group whose leader is still the very process we started (same boot,
same start time). Nothing else is touched.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

from tcecd.runner.process import group_members

#: The environment variable that marks an engine (and its helpers) as this event's.
ENV_MARK = "TCECD_ENGINE_OF"
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


def _marked(pid: int, mark: bytes) -> bool:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:  # gone, or another user's
        return False
    return mark in environ.split(b"\0")


def with_parent_death_signal(argv: list[str]) -> list[str]:
    """``argv`` wrapped in ``setpriv --pdeathsig KILL --`` on Linux when setpriv exists
    and the program can be run (else as given: then Popen reports a bad program)."""
    if not sys.platform.startswith("linux") or not os.access(argv[0], os.X_OK):
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return argv
    return [setpriv, "--pdeathsig", "KILL", "--", *argv]


class EngineGroups:
    """The engines of one state directory: their mark, their record, and the reaper."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FILE_NAME
        self._lock = threading.Lock()
        self.boot = _boot_id()
        self.token = ""
        #: pgid -> leader start time, for groups started on this boot (a record from
        #: another boot is dropped: nothing of it can still run).
        self.groups: dict[int, int] = {}
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
            self.token = str(doc["token"])
            if doc.get("boot") == self.boot:
                self.groups = {int(k): int(v) for k, v in dict(doc["groups"]).items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass  # none yet, or unreadable: start afresh (the mark below still works)
        if not self.token:
            self.token = secrets.token_hex(8)
            self._save()

    def env(self) -> dict[str, str]:
        """The environment entry every engine of this event gets."""
        return {ENV_MARK: self.token}

    def started(self, pid: int) -> None:
        """Record the group of an engine just spawned (its pid is its pgid).
        Thread-safe: sessions call it off the event loop (it writes a file)."""
        begun = start_time(pid)
        if begun is not None:
            with self._lock:
                self.groups[pid] = begun
                self._save()

    def ended(self, pid: int) -> None:
        """Forget a group that was seen gone (thread-safe, as :meth:`started`)."""
        with self._lock:
            if self.groups.pop(pid, None) is not None:
                self._save()

    def survivors(self) -> list[int]:
        """Pids of processes that are this event's engines or their helpers."""
        mark = f"{ENV_MARK}={self.token}".encode()
        me = os.getpid()
        found: set[int] = set()
        for pgid, begun in self.groups.items():
            if start_time(pgid) == begun:  # the very leader we started, still there
                found.update(group_members(pgid))
        for entry in os.scandir("/proc"):
            if entry.name.isdigit() and int(entry.name) != me and _marked(int(entry.name), mark):
                found.add(int(entry.name))
        return sorted(found)

    def reap(self, timeout_s: float = 5.0) -> list[int]:
        """SIGKILL every survivor (see the module docstring), wait until they are gone,
        clear the record; returns the pids killed. Blocking: call it off the event loop
        or before the loop runs engines."""
        killed = self.survivors()
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
            if self.groups:
                self.groups = {}
                self._save()
        return killed

    def _save(self) -> None:
        doc = {"token": self.token, "boot": self.boot, "groups": self.groups}
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
