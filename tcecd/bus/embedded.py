"""``mqtt: embedded``: a private MQTT broker that lives and dies with the daemon.

:func:`embedded_broker` is an async context manager the daemon enters before
its publisher connects and leaves after the publisher said goodbye. It starts

* a **Mosquitto** child process (Debian package ``mosquitto``) with its own
  config file, log and persistence directory under ``<state_dir>/mqtt/``, so
  that retained messages and persistent sessions survive a daemon restart; or,
  where the mosquitto binary is not installed,
* an **amqtt** broker in the daemon's own event loop (PyPI ``amqtt``): the same
  listeners, but its retained state lasts only as long as the daemon.

Both listen for MQTT over TCP on the URL's host and port and for MQTT over
websockets (browsers) on ``embedded_ws_port``; port 0 (or no port in the URL)
picks a free one, and the URLs chosen are logged (``embedded mqtt broker
started``) and written to ``<state_dir>/mqtt/url``. A configured TCP port that is
already taken means a broker is already running there: the daemon then
publishes to that broker instead, with a warning, as before.

On a normal end the broker stays up :data:`LINGER_S` after the publisher's
goodbye, so that subscribers still catching up get the event's last messages.
Mosquitto is stopped with SIGTERM (it then saves its database), and SIGKILL
after :data:`STOP_TIMEOUT_S`.

The broker dies with its daemon: Mosquitto is started under the reaper's rules
(:func:`tcecd.runner.reaper.spawn_helper`), so a daemon killed outright (SIGKILL,
the OOM killer) takes it along: the kernel sends it SIGTERM (it saves its
database and exits), its group is recorded in the state directory and it
carries the event's helper mark, so that the next start kills it if it is still
there, and a broker of an older tcecd found through its pid file is stopped
before the port is looked at. The next start never publishes to a broker its
dead predecessor left: it starts its own, which reads the saved database.

The config text (:func:`mosquitto_config`) is pure; the rest is the process shell.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import os
import secrets
import shutil
import signal
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from tcecd.bus.payloads import slugify
from tcecd.bus.settings import MqttSettings
from tcecd.config.runtime import DAEMON_USER
from tcecd.errors import BusError
from tcecd.runner.reaper import EngineGroups, spawn_helper

#: Seconds Mosquitto gets to save its database and exit after SIGTERM.
STOP_TIMEOUT_S = 5.0
#: Seconds the broker stays up after a normal end (the publisher's goodbye), for
#: subscribers still catching up to get the last messages (tests/web/test_embedded.py).
LINGER_S = 2.0
#: Seconds a broker gets to accept connections after it was started.
START_TIMEOUT_S = 15.0
#: Seconds between Mosquitto's database saves while running (it also saves on SIGTERM).
AUTOSAVE_S = 30
#: Where Debian and others install the broker, besides PATH.
_SBIN = ("/usr/sbin", "/usr/local/sbin")
#: Attempts with freshly picked ports when a free port was taken in the meantime.
_PORT_TRIES = 3
#: The largest MQTT packet the embedded Mosquitto accepts.
MAX_PACKET_BYTES = 16 * 1024 * 1024
#: The password file and ACL of the embedded Mosquitto, in its directory.
PASSWORD_FILE = "passwd"
ACL_FILE = "acl"


@dataclass(frozen=True, slots=True)
class Listeners:
    """Where an embedded broker listens (``ws_port`` None: no websockets)."""

    host: str
    port: int
    ws_port: int | None


@dataclass(frozen=True, slots=True)
class RunningBroker:
    """A started embedded broker, as the daemon reports it."""

    kind: str  # "mosquitto" or "amqtt"
    listeners: Listeners

    @property
    def url(self) -> str:
        return f"mqtt://{_host_for_url(self.listeners.host)}:{self.listeners.port}"

    @property
    def ws_url(self) -> str | None:
        if self.listeners.ws_port is None:
            return None
        return f"ws://{_host_for_url(self.listeners.host)}:{self.listeners.ws_port}/mqtt"


def _host_for_url(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def find_mosquitto() -> str | None:
    """The mosquitto binary: on PATH, else in /usr/sbin or /usr/local/sbin."""
    found = shutil.which("mosquitto")
    if found:
        return found
    for d in _SBIN:
        path = Path(d) / "mosquitto"
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def mosquitto_config(
    listeners: Listeners, workdir: Path, *, user: str | None, secured: bool = False
) -> str:
    """The private broker's ``mosquitto.conf`` (Mosquitto 2.x). Pure.

    Anonymous access (the listeners bind to the configured host, 127.0.0.1 by
    default), persistence in ``workdir``, errors and warnings to a log file there.
    ``user``: the account to stay (Mosquitto started as root otherwise switches
    to user ``mosquitto``, which cannot write the state directory). ``secured``:
    the password file and ACL in ``workdir`` apply (:mod:`tcecd.control.acl`:
    anonymous clients only read; one setting for every listener)."""
    lines = [
        "# Written by tcecd for `mqtt: embedded`; rewritten on every start.",
        "per_listener_settings false",
        "allow_anonymous true",
    ]
    if secured:
        lines += [f"password_file {workdir / PASSWORD_FILE}", f"acl_file {workdir / ACL_FILE}"]
    # What any client can make the broker (and the daemon's console) take at once;
    # a game's `end` with its whole PGN is far below it.
    lines.append(f"max_packet_size {MAX_PACKET_BYTES}")
    lines += [
        f"listener {listeners.port} {listeners.host}",
        "protocol mqtt",
    ]
    if listeners.ws_port is not None:
        lines += [f"listener {listeners.ws_port} {listeners.host}", "protocol websockets"]
    lines += [
        "persistence true",
        f"persistence_location {workdir}/",  # (the trailing slash is required)
        "persistence_file mosquitto.db",
        f"autosave_interval {AUTOSAVE_S}",
        f"pid_file {workdir / 'mosquitto.pid'}",
        f"log_dest file {workdir / 'mosquitto.log'}",
        "log_type error",
        "log_type warning",
        "connection_messages false",
    ]
    if user is not None:
        lines.append(f"user {user}")
    return "\n".join(lines) + "\n"


def _free_port(host: str) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _port_taken(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return True
            raise BusError(f"embedded mqtt broker: cannot listen on {host}:{port}: {exc}") from None
    return False


def _requested_port(url: str) -> int:
    """The URL's explicit port, 0 when it names none (a free one is picked)."""
    port = urlsplit(url).port
    return port or 0


def _with_port(url: str, port: int) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)
    host = parts.hostname or "127.0.0.1"
    hostport = f"{_host_for_url(host)}:{port}"
    netloc[-1] = hostport
    return urlunsplit((parts.scheme, "@".join(netloc), parts.path, "", ""))


@contextlib.asynccontextmanager
async def embedded_broker(
    settings: MqttSettings,
    workdir: Path,
    *,
    log: Any,
    groups: EngineGroups | None = None,
    event: str = "event",
) -> AsyncIterator[MqttSettings]:
    """Start the private broker for ``settings`` (``embedded`` must be set), yield
    the settings to publish with (the URL with the port chosen, ``embedded``
    off; with Mosquitto, the daemon's own account), stop the broker on the way
    out. ``groups``: the event's process record (:mod:`tcecd.runner.reaper`),
    where Mosquitto's group is kept while it runs. ``event``: the event's name
    (its topics are the ones the daemon's account publishes). See the module
    docstring."""
    if settings.tls:
        raise BusError("mqtt: embedded: the embedded broker speaks plain mqtt:// only")
    host = settings.host
    port = _requested_port(settings.url)
    kind = settings.embedded_broker
    binary = find_mosquitto() if kind in ("auto", "mosquitto") else None
    if binary is not None:
        # Before the port is looked at: a broker an earlier daemon of this state
        # directory left would hold it, and the event would publish to it.
        await asyncio.to_thread(_stop_stale, workdir, log)
    if port and await asyncio.to_thread(_port_taken, host, port):
        if settings.console:
            # Whose ACL guards that broker's control topic is unknown: never run open.
            raise BusError(f"embedded mqtt broker: port {port} is taken by another broker; "
                           "with mqtt.operators tcecd must run its own (it sets who may "
                           "publish): free the port or give another")
        log.warning("embedded mqtt broker not started; using the broker already there",
                    url=settings.redacted_url())
        yield dataclasses.replace(settings, embedded=False)
        return
    if kind == "mosquitto" and binary is None:
        raise BusError("mqtt: embedded_broker: mosquitto, but the mosquitto binary is not "
                       "installed (apt-get install mosquitto)")
    if binary is None and settings.console:
        raise BusError("mqtt.operators needs Mosquitto as the embedded broker: amqtt cannot "
                       "restrict who publishes, so anyone could send commands "
                       "(apt-get install mosquitto; docs/operations.md)")
    await asyncio.to_thread(workdir.mkdir, parents=True, exist_ok=True)
    broker: _Mosquitto | _Amqtt
    if binary is not None:
        broker = _Mosquitto(binary, workdir, groups)
        # Only tcecd publishes the event, only operators send commands: its own
        # account's password is made now and known to this process only.
        password = secrets.token_urlsafe(32)
        root = f"{settings.topic_prefix}/{slugify(event)}"
        await asyncio.to_thread(_write_security, workdir, settings, root, password)
        settings = dataclasses.replace(settings, username=DAEMON_USER, password=password)
    else:
        log.warning("embedded mqtt broker is amqtt (mosquitto is not installed): any local "
                    "client may publish on the event's topics (docs/operations.md)")
        broker = _Amqtt()
    running = await _start(broker, host, port, settings.embedded_ws_port, log)
    try:
        await asyncio.to_thread((workdir / "url").write_text, running.url + "\n")
        log.info("embedded mqtt broker started", broker=running.kind, url=running.url,
                 ws_url=running.ws_url, state_dir=str(workdir) if binary else None)
        yield dataclasses.replace(settings, url=_with_port(settings.url, running.listeners.port),
                                  embedded=False)
        # A normal end: the publisher said goodbye, but a subscriber that is behind
        # (a busy `tcecd web`, a slow link) still has the last messages queued in the
        # broker or unread in its socket; stopping now would lose them (a broker
        # that closes a connection drops what it had not sent yet, and the reset
        # discards what the client had not read). Not after an error or a cancel.
        await asyncio.sleep(LINGER_S)
    finally:
        await broker.stop()
        log.info("embedded mqtt broker stopped", broker=running.kind)


async def _start(broker: _Mosquitto | _Amqtt, host: str, port: int, ws_port: int | None,
                 log: Any) -> RunningBroker:
    """Start ``broker``; free ports are picked anew if one was taken meanwhile."""
    for attempt in range(1, _PORT_TRIES + 1):
        listeners = Listeners(
            host,
            port or _free_port(host),
            None if ws_port is None else ws_port or _free_port(host),
        )
        try:
            await broker.start(listeners)
        except _PortRace as exc:
            if attempt == _PORT_TRIES or (port and ws_port):
                raise BusError(f"embedded mqtt broker did not start: {exc}") from None
            log.debug("embedded mqtt broker: port taken meanwhile; trying others", error=str(exc))
            continue
        return RunningBroker(broker.kind, listeners)
    raise AssertionError("unreachable")


class _PortRace(Exception):
    """A port picked as free was taken before the broker could listen on it."""


async def _wait_listening(listeners: Listeners, dead: Any) -> None:
    """Until every listener accepts a TCP connection (``dead()`` returns an error
    text once the broker cannot come up any more)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_TIMEOUT_S
    ports = [listeners.port] + ([listeners.ws_port] if listeners.ws_port is not None else [])
    for p in ports:
        while True:
            why = dead()
            if why is not None:
                raise BusError(f"embedded mqtt broker did not start: {why}")
            try:
                _r, w = await asyncio.open_connection(listeners.host, p)
            except OSError:
                if loop.time() > deadline:
                    raise BusError(f"embedded mqtt broker did not listen on {listeners.host}:"
                                   f"{p} within {START_TIMEOUT_S:g} s") from None
                await asyncio.sleep(0.05)
                continue
            w.close()
            with contextlib.suppress(OSError):
                await w.wait_closed()
            break


class _Mosquitto:
    """The Mosquitto child process, a helper under the reaper's rules: its own
    session (a Ctrl-C on the daemon's terminal reaches the daemon only, which keeps
    publishing while it drains), SIGTERM from the kernel when the daemon dies, its
    group recorded in ``groups`` while it runs."""

    kind = "mosquitto"

    def __init__(self, binary: str, workdir: Path, groups: EngineGroups | None = None) -> None:
        self.binary, self.workdir, self.groups = binary, workdir, groups
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, listeners: Listeners) -> None:
        conf = self.workdir / "mosquitto.conf"
        user = _user_name() if os.geteuid() == 0 else None
        text = mosquitto_config(listeners, self.workdir, user=user, secured=True)
        err_path = self.workdir / "mosquitto.stderr"

        def prepare() -> Any:
            conf.write_text(text, encoding="utf-8")
            (self.workdir / "mosquitto.log").unlink(missing_ok=True)
            return err_path.open("wb")

        err = await asyncio.to_thread(prepare)
        try:
            # SIGTERM when the daemon dies: Mosquitto saves its database and exits.
            self.proc = await spawn_helper(
                [self.binary, "-c", str(conf)], self.groups, death_signal=signal.SIGTERM,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=err)
        finally:
            err.close()
        proc = self.proc

        def dead() -> str | None:
            if proc.returncode is None:
                return None
            text = _tail(err_path) + _tail(self.workdir / "mosquitto.log")
            if "in use" in text:
                raise _PortRace(text.strip())
            return f"mosquitto exited with {proc.returncode}: {text.strip()}"

        try:
            await _wait_listening(listeners, dead)
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGTERM)
                try:
                    async with asyncio.timeout(STOP_TIMEOUT_S):
                        await proc.wait()
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
                    await proc.wait()
        finally:
            if self.groups is not None:  # stopped and reaped: out of the record
                await asyncio.to_thread(self.groups.ended, proc.pid, helper=True)


def _write_security(workdir: Path, settings: MqttSettings, root: str, password: str) -> None:
    """The password file (the daemon's account and the operators', hashed) and
    the ACL, readable by this user only (:mod:`tcecd.control.acl`)."""
    from tcecd.control.acl import acl_text, password_line

    lines = [password_line(DAEMON_USER, password)]
    for name, secret in settings.operators:
        if secret is None:
            raise BusError(f"mqtt.operators: {name!r} has no password (password_file)")
        lines.append(password_line(name, secret))
    _write_private(workdir / PASSWORD_FILE, "".join(lines))
    text = acl_text(root, DAEMON_USER, [name for name, _ in settings.operators])
    _write_private(workdir / ACL_FILE, text)


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (mode 600 from the start), replacing it."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _tail(path: Path, limit: int = 2000) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-limit:]
    except OSError:
        return ""


def _user_name() -> str:
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name


def _stop_stale(workdir: Path, log: Any) -> None:
    """Stop a Mosquitto of this state directory left running by a daemon that was
    killed outright (found by its pid file and its command line naming our
    config), so that it neither holds the port nor writes the same database."""
    import time

    pid_file = workdir / "mosquitto.pid"
    try:
        pid = int(pid_file.read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError):
        return
    if str(workdir / "mosquitto.conf").encode() not in cmdline:
        return  # a recycled pid: not ours
    log.warning("stopping the embedded mqtt broker left running by an earlier daemon", pid=pid)
    for sig, wait_s in ((signal.SIGTERM, STOP_TIMEOUT_S), (signal.SIGKILL, STOP_TIMEOUT_S)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if not Path(f"/proc/{pid}").exists():
                return
            time.sleep(0.05)


class _Amqtt:
    """amqtt's broker in this event loop: the fallback without Mosquitto."""

    kind = "amqtt"

    def __init__(self) -> None:
        self.broker: Any = None

    async def start(self, listeners: Listeners) -> None:
        from amqtt.broker import Broker

        config: dict[str, Any] = {
            "listeners": {"default": {"type": "tcp", "bind": f"{listeners.host}:{listeners.port}"}},
            # Anonymous access only: no $SYS topics, no packet logging.
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin":
                        {"allow_anonymous": True}},
        }
        if listeners.ws_port is not None:
            config["listeners"]["ws"] = {"type": "ws",
                                         "bind": f"{listeners.host}:{listeners.ws_port}"}
        broker = Broker(config)
        try:
            await broker.start()
        except Exception as exc:
            with contextlib.suppress(Exception):
                await broker.shutdown()
            if "in use" in str(exc) or isinstance(exc, OSError):
                raise _PortRace(str(exc)) from None
            raise BusError(f"embedded mqtt broker (amqtt) did not start: {exc}") from None
        # (start() returns with the listeners bound; a probe connection would only
        # make amqtt log an error about a client that sent nothing.)
        self.broker = broker

    async def stop(self) -> None:
        broker, self.broker = self.broker, None
        if broker is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(STOP_TIMEOUT_S):
                    await broker.shutdown()
