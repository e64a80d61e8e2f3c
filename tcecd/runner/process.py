"""Engine processes: the argv to run, the spawn options, and killing whole groups.

Every engine runs in its own session (``start_new_session=True``), hence its
own process group whose id is the engine's pid. That gives two guarantees a
100-hour event needs:

- a terminal's Ctrl-C (SIGINT to the foreground group) never reaches engines
  directly: the daemon decides how and when they stop;
- tearing an engine down kills *everything* it started (helper processes,
  ``sh -c`` wrappers, an ssh client) with one ``killpg``, so nothing keeps
  burning CPU on the machine after a game.

The leader itself is reaped by asyncio's child watcher (we await its exit
code); orphaned grandchildren are re-parented to init, which reaps them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tcecd.config.engines import EngineConfig
from tcecd.config.load import EXTRA_BIN_DIRS, find_executable
from tcecd.errors import EngineError


def resolve_program(program: str, *, engine: str) -> str:
    """Absolute path of an engine program: bare names are looked up on ``PATH``
    and in the Debian directories (``/usr/games`` ...) that are often not on it."""
    if "/" in program:
        return program
    found = find_executable(program)
    if found is None:
        dirs = ", ".join(["PATH", *(str(d) for d in EXTRA_BIN_DIRS)])
        raise EngineError(f"engine {engine!r}: program {program!r} not found (looked in {dirs})")
    return str(found)


def engine_argv(config: EngineConfig) -> list[str]:
    """The argv that starts ``config``'s engine: local, or wrapped in ssh when
    ``config.remote`` is set (:func:`tcecd.runner.remote.remote_argv`, owned by
    the deployment area)."""
    if config.remote is not None:
        try:
            from tcecd.runner.remote import remote_argv
        except ImportError:  # pragma: no cover - depends on the deploy area landing
            # TODO(remote): tcecd.runner.remote is not there yet; remote engines cannot run.
            raise EngineError(
                f"engine {config.name!r}: remote engines need tcecd.runner.remote (missing)"
            ) from None
        return list(remote_argv(config))
    return [resolve_program(config.command[0], engine=config.name), *config.command[1:]]


#: What an engine gets of the daemon's own environment (issue 28): an engine is a
#: third-party program, and the daemon's environment may hold secrets (the broker
#: password in ``TCECD_MQTT_PASSWORD``, cloud or CI tokens). Anything else an engine
#: needs goes in its definition's ``env``.
ENGINE_ENV_PASSED: tuple[str, ...] = ("PATH", "HOME", "LANG", "TZ")
#: What the local ``ssh`` client of a remote engine gets besides: the agent's socket
#: (a key held by ssh-agent). The engine on the far host gets none of the local
#: environment (ssh sends only what ``SendEnv`` names; the definition's ``env`` is
#: set there by the remote command, :func:`tcecd.runner.remote.remote_command`).
SSH_ENV_PASSED: tuple[str, ...] = ("SSH_AUTH_SOCK",)


def engine_env(
    config: EngineConfig,
    extra_env: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The whole environment an engine process starts with: the allowlisted
    variables of ``environ`` (default: the daemon's, :data:`ENGINE_ENV_PASSED`),
    the definition's ``env`` (a local engine's; a remote one's applies on the
    far host), then ``extra_env`` (tcecd's own mark, :mod:`tcecd.runner.reaper`)."""
    source = os.environ if environ is None else environ
    names = ENGINE_ENV_PASSED
    if config.remote is not None:
        names = (*names, *SSH_ENV_PASSED)
    env = {name: source[name] for name in names if name in source}
    if config.remote is None:
        env.update(config.env)
    env.update(extra_env or {})
    return env


def spawn_kwargs(
    config: EngineConfig, extra_env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Keyword arguments for ``loop.subprocess_exec`` (through python-chess's
    ``popen``): own session/process group, working directory, and the
    allowlisted environment of :func:`engine_env` (never the daemon's whole
    environment)."""
    kwargs: dict[str, Any] = {"start_new_session": True}
    # A remote engine's workdir lives on the far host (remote_command does the
    # `cd` there); the local ssh client keeps our own working directory.
    if config.workdir is not None and config.remote is None:
        kwargs["cwd"] = config.workdir
    kwargs["env"] = engine_env(config, extra_env)
    return kwargs


def kill_group(pgid: int) -> None:
    """SIGKILL every process in group ``pgid``; a group already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


async def wait_group_gone(pgid: int, timeout_s: float) -> bool:
    """After :func:`kill_group`: wait until no process of group ``pgid`` runs.

    SIGKILL is delivered asynchronously: a helper the engine forked may still
    be scheduled for a moment after ``killpg`` returns, and reaping the leader
    says nothing about it. Polls ``/proc`` (in a worker thread: it reads a
    file per process) and repeats the kill; True when the group is gone.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    # The scan reads /proc in a worker thread; a group already empty needs none.
    while group_exists(pgid):
        if not await asyncio.to_thread(group_members, pgid):
            break
        if loop.time() >= deadline:
            return False
        kill_group(pgid)
        await asyncio.sleep(0.01)
    return True


def _proc_stat(pid: int) -> tuple[str, int] | None:
    """(state letter, process group) of ``pid`` from ``/proc``, None if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may contain spaces and parentheses: split
    # after the last ')'.
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[2])


def group_members(pgid: int, *, include_zombies: bool = False) -> list[int]:
    """Pids of the processes in group ``pgid`` (a ``/proc`` scan: no psutil).

    Zombies (exited, not yet reaped by their parent) are left out unless asked
    for: they no longer run and init reaps orphans.

    A group with no process at all, zombies included (the usual case once an
    engine is killed and reaped), is known from one ``killpg(pgid, 0)`` without
    the scan, which reads a file per process on the machine (some 6 ms of CPU
    with 140 processes, paid at every engine's close).
    """
    if pgid > 0 and not group_exists(pgid):
        return []
    return list(_iter_group(pgid, include_zombies))


def group_exists(pgid: int) -> bool:
    """Whether any process, a zombie included, is in group ``pgid`` (> 0): one
    ``killpg`` with signal 0, which delivers nothing."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # members exist, owned by someone else
    return True


def _iter_group(pgid: int, include_zombies: bool) -> Iterator[int]:
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        stat = _proc_stat(int(entry.name))
        if stat is None or stat[1] != pgid:
            continue
        if stat[0] == "Z" and not include_zombies:
            continue
        yield int(entry.name)
