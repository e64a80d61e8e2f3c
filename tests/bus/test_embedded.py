"""``mqtt: embedded``: the private broker of ``tcecd run`` (tcecd.bus.embedded).

A real ``tcecd run`` with the embedded broker serves the event to subscribers
over TCP and over websockets, with Mosquitto and with the amqtt fallback, and
leaves no broker behind; Mosquitto's retained state survives a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from tcecd.bus import embedded
from tcecd.bus.embedded import Listeners, embedded_broker, find_mosquitto, mosquitto_config
from tcecd.bus.settings import MqttSettings
from tcecd.errors import BusError
from tests.bus.helpers import Collector, bus_log, logged, retained
from tests.daemon.helpers import ROOT, run_env, tcecd_argv, write_config

needs_mosquitto = pytest.mark.skipif(find_mosquitto() is None, reason="mosquitto not installed")


def test_mosquitto_config_text(tmp_path: Path) -> None:
    """Both listeners on the configured host, persistence in the private folder."""
    text = mosquitto_config(Listeners("127.0.0.1", 4001, 4002), tmp_path, user=None)
    lines = text.splitlines()
    assert lines.index("listener 4001 127.0.0.1") + 1 == lines.index("protocol mqtt")
    assert lines.index("listener 4002 127.0.0.1") + 1 == lines.index("protocol websockets")
    assert f"persistence_location {tmp_path}/" in lines
    assert "persistence true" in lines
    assert not any(line.startswith("user ") for line in lines)
    no_ws = mosquitto_config(Listeners("127.0.0.1", 4001, None), tmp_path, user="root")
    assert "protocol websockets" not in no_ws
    assert "user root" in no_ws.splitlines()


def test_unknown_broker_kind_is_a_settings_error() -> None:
    with pytest.raises(BusError, match="embedded_broker"):
        MqttSettings(embedded=True, embedded_broker="hivemq")


async def test_configured_port_taken_publishes_to_the_broker_there(
        tmp_path: Path, captured_logs: list[dict[str, Any]]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        wanted = MqttSettings(url=f"mqtt://127.0.0.1:{port}", embedded=True)
        async with embedded_broker(wanted, tmp_path, log=bus_log()) as settings:
            assert settings.port == port
            assert not settings.embedded
    assert logged(captured_logs, "warning") == [
        "embedded mqtt broker not started; using the broker already there"]


async def test_amqtt_when_mosquitto_is_not_installed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        captured_logs: list[dict[str, Any]]) -> None:
    """``auto`` without the binary: amqtt in-process, TCP and websockets, free ports."""
    monkeypatch.setattr(embedded, "find_mosquitto", lambda: None)
    wanted = MqttSettings(url="mqtt://127.0.0.1", embedded=True)
    async with embedded_broker(wanted, tmp_path, log=bus_log()) as settings:
        assert settings.port not in (0, 1883)
        started = [e for e in captured_logs if e["event"] == "embedded mqtt broker started"]
        assert started[0]["broker"] == "amqtt"
        assert started[0]["url"] == settings.url
        ws_port = int(started[0]["ws_url"].rsplit(":", 1)[1].split("/")[0])
        async with aiomqtt.Client("127.0.0.1", settings.port) as c:
            await c.publish("tcecd/x/event", b"{}", qos=1, retain=True)
        async with aiomqtt.Client("127.0.0.1", ws_port, transport="websockets") as c:
            await c.subscribe("tcecd/#", qos=1)
            async with asyncio.timeout(10):
                m = await anext(aiter(c.messages))
            assert (str(m.topic), m.payload, m.retain) == ("tcecd/x/event", b"{}", True)
    assert (tmp_path / "url").read_text().strip() == settings.url


@needs_mosquitto
async def test_mosquitto_keeps_retained_state_across_a_restart(tmp_path: Path) -> None:
    """The daemon stops its Mosquitto with SIGTERM, which saves the database in the
    private folder; the next start loads it: a late subscriber still gets the
    retained messages of the first run. (Published as the daemon's own account,
    the only one that may publish the event's topics: tcecd.control.acl.)"""
    wanted = MqttSettings(url="mqtt://127.0.0.1", embedded=True, embedded_ws_port=None)
    async with embedded_broker(wanted, tmp_path, log=bus_log(), event="x") as first:
        pid = int((tmp_path / "mosquitto.pid").read_text())
        assert first.username == "tcecd-daemon"
        assert first.password
        async with aiomqtt.Client(first.host, first.port, username=first.username,
                                  password=first.password) as c:
            await c.publish("tcecd/x/finished", b'{"winner":"A"}', qos=1, retain=True)
    assert str(tmp_path / "mosquitto.conf").encode() not in b"\n".join(_cmdlines()), pid
    async with embedded_broker(wanted, tmp_path, log=bus_log(), event="x") as second:
        got = await retained(second.host, second.port, username=second.username,
                             password=second.password, marker="tcecd/x/_probe")
    assert got == {"tcecd/x/finished": b'{"winner":"A"}'}


@needs_mosquitto
async def test_a_broker_left_on_the_configured_port_is_replaced_not_used(
        tmp_path: Path, captured_logs: list[dict[str, Any]]) -> None:
    """A Mosquitto of this state directory that an earlier daemon left running (an older
    tcecd's, without the parent-death signal) holds the configured port: the next start
    stops it (found by its pid file and its command line) and starts its own, instead of
    publishing to the dead daemon's broker (issue 27)."""
    binary = find_mosquitto()
    assert binary is not None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = tmp_path / "mosquitto.conf"
    user = embedded._user_name() if os.geteuid() == 0 else None  # as the daemon writes it
    conf.write_text(mosquitto_config(Listeners("127.0.0.1", port, None), tmp_path, user=user))
    stale = await asyncio.create_subprocess_exec(
        binary, "-c", str(conf), stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL, start_new_session=True)
    try:
        async with asyncio.timeout(30):
            while not (tmp_path / "mosquitto.pid").exists() or not await _accepts(port):  # noqa: ASYNC110 (another process's state)
                await asyncio.sleep(0.05)
        wanted = MqttSettings(url=f"mqtt://127.0.0.1:{port}", embedded=True,
                              embedded_ws_port=None)
        async with embedded_broker(wanted, tmp_path, log=bus_log()) as settings:
            assert stale.returncode is not None  # stopped before the new one started
            assert settings.port == port
            events = logged(captured_logs)
            assert "stopping the embedded mqtt broker left running by an earlier daemon" in events
            assert "embedded mqtt broker started" in events
            assert "embedded mqtt broker not started; using the broker already there" not in events
    finally:
        if stale.returncode is None:
            stale.kill()
        await stale.wait()


async def _accepts(port: int) -> bool:
    try:
        _r, w = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    w.close()
    return True


async def _follow_run(cfg: Path) -> tuple[dict[str, Any], list[Collector], int, str]:
    """Run ``tcecd run`` and subscribe (TCP and websockets) as soon as it logs the
    embedded broker's URLs; returns that log line, the collectors, the exit code
    and the rest of stderr."""
    proc = await asyncio.create_subprocess_exec(
        *tcecd_argv(cfg), cwd=ROOT, env=run_env(), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    assert proc.stderr is not None
    started: dict[str, Any] | None = None
    lines: list[str] = []
    async with asyncio.timeout(60):
        while started is None:
            line = (await proc.stderr.readline()).decode()
            assert line, "".join(lines)
            lines.append(line)
            doc = json.loads(line)
            if doc["event"] == "embedded mqtt broker started":
                started = doc
    port = int(started["url"].rsplit(":", 1)[1])
    ws_port = int(started["ws_url"].rsplit(":", 1)[1].split("/")[0])
    tcp = Collector("127.0.0.1", port, "tcecd/#")
    ws = Collector("127.0.0.1", ws_port, "tcecd/#", transport="websockets")
    async with tcp, ws:
        for c in (tcp, ws):
            await c.wait_until(lambda c: any(t.endswith("/finished") for t, _, _ in c.got))
        async with asyncio.timeout(60):
            _out, err = await proc.communicate()
    lines.append(err.decode())
    assert proc.returncode is not None
    return started, [tcp, ws], proc.returncode, "".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["mosquitto", "amqtt"])
async def test_run_with_embedded_broker_serves_tcp_and_websockets(tmp_path: Path,
                                                                  kind: str) -> None:
    if kind == "mosquitto" and find_mosquitto() is None:
        pytest.skip("mosquitto not installed")
    # rounds 5: long enough for the subscribers to join while the daemon runs, even
    # on a loaded machine (the broker stops with the daemon; 2 rounds lost that race
    # under the parallel suite).
    cfg = write_config(tmp_path, rounds=5, mqtt=f"{{embedded: true, embedded_broker: {kind}}}")
    started, collectors, code, log = await _follow_run(cfg)
    assert code == 0, log
    assert started["broker"] == kind
    for c in collectors:
        finished = [json.loads(p) for t, p, _ in c.got if t == "tcecd/kill-test/finished"]
        assert finished, [t for t, _, _ in c.got]
        assert any(t == "tcecd/kill-test/event" for t, _, _ in c.got)
    assert '"embedded mqtt broker stopped"' in log
    # The broker is gone with the daemon: nobody listens on its ports any more.
    for url in (started["url"], started["ws_url"]):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    if kind == "mosquitto":
        state = tmp_path / "state" / "mqtt"
        assert (state / "mosquitto.db").exists()  # saved on SIGTERM
        assert str(state / "mosquitto.conf").encode() not in b"\n".join(_cmdlines())


def _cmdlines() -> list[bytes]:
    """The command lines of every process (a process may end while we read)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            with contextlib.suppress(OSError):
                out.append((d / "cmdline").read_bytes())
    return out
