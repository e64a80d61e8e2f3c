"""Remote engines: run an engine on another host over SSH, as TCEC does.

An engine definition with a ``remote:`` block (:class:`~tcecd.config.engines.RemoteConfig`)
is started as a local ``ssh`` client whose remote command runs the engine; the
UCI/xboard dialogue flows over the SSH channel's stdin/stdout unchanged, so the
rest of the runner treats it exactly like a local process.

Two things need care, and this module owns both:

**The far-side process must die with the link.** Without a pseudo-terminal
(and we never want one: a pty echoes our commands back, translates line endings
and caps line length) sshd does not signal the remote command when the
connection drops; the engine only sees EOF on its stdin, and an engine that
keeps searching or ignores EOF would run on forever, eating the engine host's
cores during the next game. So the engine is started under a small POSIX ``sh``
wrapper (:data:`REMOTE_WRAPPER`)::

    trap "exit 0" HUP; trap "exit 1" USR1
    (trap "" TERM; echo; cat; kill -TERM 0; exec 2>/dev/null; sleep 2; kill -KILL 0) |
    (read -r _; "$@"; s=$?; [ "$s" -eq 0 ] && kill -HUP 0
     echo "tcecd-engine: $1 exited with status $s" >&2; kill -USR1 0)

* ``cat`` copies the channel's stdin to the engine. It returns when that stdin
  reaches EOF, which happens both when the ssh client closes it and when the
  connection is lost (the client was SIGKILLed, the network died and
  ``ServerAliveInterval`` gave up, sshd's ``ClientAliveInterval`` fired). Then
  the left side sends SIGTERM to the whole process group and, two seconds
  later, SIGKILL. sshd puts every session in a process group of its own
  (``setsid`` before running the command), so this reaches the engine, any
  helper processes it forked, and the wrapper itself — and nothing else. The
  left side ignores SIGTERM only so that it survives its own TERM to send the
  KILL; ``cat`` is done by then.
* When the engine exits on its own (after ``quit``), the right side sends
  SIGHUP to the group: ``cat`` dies (it would otherwise wait for a stdin EOF
  that the client sends only after the remote command ended), and the outer
  shell traps HUP to exit 0, so a normal end of game ends the ssh session at
  once with status 0. An engine that exits with an error (it crashed, or its
  program is missing on that host: 127) gets a line on stderr naming it and
  its status, and SIGUSR1 instead, so the session ends with status 1.
* Traps set to a command are reset in subshells, and the engine inherits the
  default dispositions of HUP and TERM (the TERM-ignore is confined to the
  left-hand subshell), so a well-behaved engine dies on the first signal.
* The engine starts only once the left side is running: it sends one empty
  line, which the right side reads (``read`` takes it a byte at a time, so
  nothing of the engine's input is lost) before it starts the engine. A
  subshell resets the traps it inherited only after ``fork``; a HUP or USR1
  arriving before that is caught by the outer shell's handler, and dash drops
  it once the subshell's traps are reset: the subshell lives on. Without the
  handshake an engine that fails at once (a missing program: 127) could
  signal the group while the left side was still in that window: it survived,
  its ``cat`` died of SIGPIPE on the first command, and its TERM then killed
  the outer shell (the session ended by a signal, ssh's status 255, not 1;
  seen in CI under load, 2 runs in 40 on a loaded machine).

The remote command is quoted for a POSIX login shell (sh, dash, bash, zsh);
an engine account whose login shell is csh or fish needs a POSIX shell.

**The clock pays for the network, not the engine.** ``latency_ms`` is the
round trip the operator measured to the engine host. The runner measures
think time locally (``go`` sent to ``bestmove`` received), which includes that
round trip. Per move, the mover gets the latency as extra allowance:
:func:`think_deadline_ms` (when to declare a time forfeit) is extended by it,
and :func:`charged_ms` (what is taken off the clock) subtracts it, never below
zero. The ``wtime``/``btime`` sent to the engine are the clock as is.
"""

from __future__ import annotations

import math
import re
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

from tcecd.config.engines import EngineConfig, RemoteConfig
from tcecd.errors import ConfigError, EngineError

#: The far-side wrapper (run by ``sh -c``, the engine argv as ``$@``); see the
#: module docstring for why each piece is there.
REMOTE_WRAPPER = (
    'trap "exit 0" HUP; trap "exit 1" USR1; '
    '(trap "" TERM; echo; cat; kill -TERM 0; exec 2>/dev/null; sleep 2; kill -KILL 0)'
    ' | (read -r _; "$@"; s=$?; [ "$s" -eq 0 ] && kill -HUP 0;'
    ' echo "tcecd-engine: $1 exited with status $s" >&2; kill -USR1 0)'
)

#: ``$0`` of the wrapper shell: what ``ps`` on the engine host shows.
WRAPPER_NAME = "tcecd-engine"

#: Seconds between keep-alive probes from the client; after
#: :data:`SERVER_ALIVE_COUNT_MAX` unanswered probes the client exits, so a
#: dead link is noticed in about 15 s and reported as an engine disconnect.
SERVER_ALIVE_INTERVAL_S = 5
SERVER_ALIVE_COUNT_MAX = 3

#: The default host-key policy: trust a host on first contact, refuse a key
#: that changed. Overridden by ``StrictHostKeyChecking`` in ``ssh_options``.
DEFAULT_HOST_KEY_POLICY = "accept-new"

#: Where to look for the ssh client besides ``PATH``.
SSH_FALLBACK_DIRS = ("/usr/bin", "/usr/local/bin")

_OPTION_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*\s*(=|\s)\s*\S.*$")
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def find_ssh() -> str:
    """Absolute path of the ``ssh`` client; :class:`EngineError` when missing."""
    found = shutil.which("ssh")
    if found is not None:
        return found
    for directory in SSH_FALLBACK_DIRS:
        candidate = Path(directory) / "ssh"
        if candidate.is_file():
            return str(candidate)
    raise EngineError("remote engines need the OpenSSH client ('ssh'), which is not installed")


def _check(engine: EngineConfig, remote: RemoteConfig) -> None:
    """Refuse values that ssh would read as options (argument injection) or
    cannot parse, naming the engine and quoting the value."""
    where = f"engine {engine.name!r}: remote"
    if not remote.host or remote.host.startswith("-") or any(c.isspace() for c in remote.host):
        raise ConfigError(f"{where}.host: invalid host name {remote.host!r}")
    if remote.user is not None and (
        not remote.user or remote.user.startswith("-") or any(c.isspace() for c in remote.user)
    ):
        raise ConfigError(f"{where}.user: invalid user name {remote.user!r}")
    for i, option in enumerate(remote.ssh_options):
        if not _OPTION_RE.match(option):
            raise ConfigError(
                f"{where}.ssh_options[{i}]: expected an ssh_config option such as "
                f"'StrictHostKeyChecking=yes', got {option!r}"
            )
    for name in engine.env:
        if not _ENV_NAME_RE.match(name):
            raise ConfigError(f"engine {engine.name!r}: env: invalid variable name {name!r}")


def remote_command(engine: EngineConfig) -> str:
    """The command line the far side's login shell runs: the wrapper with the
    engine's argv (after ``env`` settings and a ``cd`` to ``workdir`` when
    given), quoted for a POSIX shell."""
    wrapper = REMOTE_WRAPPER
    if engine.workdir is not None:
        wrapper = f"cd {shlex.quote(engine.workdir)} || exit 127; {wrapper}"
    argv: list[str] = list(engine.command)
    if engine.env:
        argv = ["env", *(f"{k}={v}" for k, v in sorted(engine.env.items())), *argv]
    return shlex.join(["sh", "-c", wrapper, WRAPPER_NAME, *argv])


def remote_argv(engine: EngineConfig, *, ssh: str | None = None) -> list[str]:
    """The local argv that runs ``engine`` on its remote host over SSH.

    The options, in the order ssh gives them precedence (first value wins):
    the operator's ``ssh_options`` first, so they can override any default;
    then ``BatchMode`` (never prompt: a daemon has nobody to answer),
    ``StrictHostKeyChecking=accept-new``, keep-alives so a dead link is
    noticed, a connect timeout from the engine's startup timeout, and no
    forwardings. ``-T`` (no pty) and ``-e none`` keep the channel a clean
    8-bit pipe. Raises :class:`ConfigError` when ``engine.remote`` is not set
    or holds a value ssh would misread.
    """
    remote = engine.remote
    if remote is None:
        raise ConfigError(f"engine {engine.name!r} has no 'remote' section")
    _check(engine, remote)
    argv = [ssh if ssh is not None else find_ssh(), "-T", "-e", "none", "-x", "-a"]
    for option in remote.ssh_options:
        argv += ["-o", option]
    connect_timeout_s = max(1, math.ceil(engine.startup_timeout_ms / 1000))
    argv += [
        "-o", "BatchMode=yes",
        "-o", f"StrictHostKeyChecking={DEFAULT_HOST_KEY_POLICY}",
        "-o", f"ServerAliveInterval={SERVER_ALIVE_INTERVAL_S}",
        "-o", f"ServerAliveCountMax={SERVER_ALIVE_COUNT_MAX}",
        "-o", f"ConnectTimeout={connect_timeout_s}",
        "-o", "ClearAllForwardings=yes",
        "-o", "LogLevel=ERROR",
    ]  # fmt: skip
    if remote.identity_file is not None:
        key = str(Path(remote.identity_file).expanduser())
        argv += ["-i", key, "-o", "IdentitiesOnly=yes"]
    argv += ["-p", str(remote.port)]
    if remote.user is not None:
        argv += ["-l", remote.user]
    argv += [remote.host, remote_command(engine)]
    return argv


def engine_argv(engine: EngineConfig, *, ssh: str | None = None) -> list[str]:
    """What to execute locally for ``engine``: its own command, or the ssh
    client that runs it remotely. The one call the runner needs."""
    if engine.remote is None:
        return list(engine.command)
    return remote_argv(engine, ssh=ssh)


def latency_ms(engine: EngineConfig) -> int:
    """The per-move network allowance of ``engine`` (0 for a local engine)."""
    return 0 if engine.remote is None else engine.remote.latency_ms


def charged_ms(engine: EngineConfig, used_ms: int) -> int:
    """Time to take off ``engine``'s clock for a move that took ``used_ms`` as
    measured locally: the measured time less the network allowance, never
    negative. Pure."""
    return max(0, used_ms - latency_ms(engine))


def think_deadline_ms(engine: EngineConfig, remaining_ms: int, margin_ms: int = 0) -> int:
    """How long, measured locally, ``engine`` may take over one move before it
    forfeits on time: its clock, plus the forfeit margin, plus the network
    allowance. Pure."""
    return remaining_ms + margin_ms + latency_ms(engine)


def describe(engine: EngineConfig) -> str:
    """A short human description of where ``engine`` runs, for logs and
    ``tcecd validate``: ``local`` or ``ssh user@host:port (+40 ms/move)``."""
    remote = engine.remote
    if remote is None:
        return "local"
    who = f"{remote.user}@{remote.host}" if remote.user else remote.host
    extra = f" (+{remote.latency_ms} ms/move)" if remote.latency_ms else ""
    return f"ssh {who}:{remote.port}{extra}"


__all__: Sequence[str] = (
    "REMOTE_WRAPPER",
    "charged_ms",
    "describe",
    "engine_argv",
    "find_ssh",
    "latency_ms",
    "remote_argv",
    "remote_command",
    "think_deadline_ms",
)
