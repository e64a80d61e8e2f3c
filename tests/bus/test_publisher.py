"""The Publisher against a real Mosquitto: outages, restarts, Last Will, auth, TLS."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import ssl
import sys
from collections.abc import Callable
from typing import Any

import aiomqtt
import pytest

from tcecd.bus.publisher import Publisher
from tcecd.bus.settings import MqttSettings
from tests.bus.helpers import Collector, logged, retained
from tests.bus.sample import GAMES, all_events, round_events, start_events
from tests.fixtures.mosquitto import MosquittoBroker

pytestmark = pytest.mark.mosquitto

Factory = Callable[..., MosquittoBroker]
ALL_GAMES = {f"{r}.{n}" for r, n, *_ in GAMES}
FINAL_SCORES = {"A": 2.0, "B": 1.0, "C": 0.5, "D": 0.5}  # hand-computed, see sample.py


def fast(pub_settings: MqttSettings, **kw: Any) -> Publisher:
    """A publisher that retries quickly (tests should not wait 30 s backoffs),
    logging to structlog as the daemon's does (``captured_logs`` reads it)."""
    return Publisher(pub_settings, event="Bus Test", backoff_initial_s=0.05,
                     backoff_max_s=0.3, **kw)


def final_standings(c: Collector) -> dict[str, float] | None:
    doc = c.last("/standings")
    if doc is None or not doc["final"]:
        return None
    return {row["id"]: row["score"] for row in doc["rows"]}


async def wait_attempts(pub: Publisher, n: int) -> None:
    async with asyncio.timeout(30):
        while pub.attempts < n:  # noqa: ASYNC110 (polling a plain counter)
            await asyncio.sleep(0.02)


async def test_broker_down_then_up_delivers_everything(
        mosquitto_factory: Factory, captured_logs: list[dict[str, Any]]) -> None:
    broker = mosquitto_factory(start=False)
    async with fast(MqttSettings.from_url(broker.url)) as pub:
        for event in all_events():
            pub.publish(event)  # must return at once although nothing listens
        assert not pub.connected
        assert pub.pending > 0
        await wait_attempts(pub, 4)
        # Warned exactly once for the whole outage, no matter how many retries.
        warnings = logged(captured_logs, "warning")
        assert len(warnings) == 1
        assert "unreachable" in warnings[0]

        broker.start()
        assert await pub.flush(30)
        assert pub.connected
        async with Collector(broker.host, broker.port) as late:
            await late.wait_until(lambda c: c.end_games() >= ALL_GAMES
                                  and final_standings(c) is not None)
            assert final_standings(late) == FINAL_SCORES
            status = late.last("/status")
            assert status["state"] == "online"
            schedule = late.last("/schedule")
            assert [(g["game"], g["result"]) for g in schedule["games"]] == [
                ("1.1", "1-0"), ("1.2", "1/2-1/2"), ("2.1", "0-1"), ("2.2", "1-0")]
            # Finished games leave no live snapshot behind.
            assert not [t for t, p, _ in late.got if t.endswith("/live") and p]


async def test_broker_restart_mid_event_loses_no_result(mosquitto: MosquittoBroker) -> None:
    settings = MqttSettings.from_url(mosquitto.url)
    async with Collector(mosquitto.host, mosquitto.port) as watcher, fast(settings) as pub:
        await watcher.wait_until(lambda c: c.subscriptions >= 1)
        for event in [*start_events(), *round_events(1)]:
            pub.publish(event)
        assert await pub.flush(30)
        await watcher.wait_until(lambda c: {"1.1", "1.2"} <= c.end_games())

        mosquitto.kill()  # abrupt: no persistence, retained state is gone
        for event in all_events()[len(start_events()) + len(round_events(1)):]:
            pub.publish(event)  # round 2 and the end, while the broker is down
        mosquitto.start()  # same port
        assert await pub.flush(30)
        assert pub.connections >= 2

        await watcher.wait_until(lambda c: c.end_games() == ALL_GAMES
                                 and final_standings(c) is not None)
        assert final_standings(watcher) == FINAL_SCORES
        results = {d["game"]: d["result"] for d in watcher.docs("/end")}
        assert results == {"1.1": "1-0", "1.2": "1/2-1/2", "2.1": "0-1", "2.2": "1-0"}
        assert all(d["pgn"].startswith('[Event "Bus Test"]') for d in watcher.docs("/end"))

        # A viewer joining after the restart gets the whole retained state back,
        # including what was published before the broker lost it.
        async with Collector(mosquitto.host, mosquitto.port) as late:
            await late.wait_until(lambda c: c.end_games() == ALL_GAMES
                                  and final_standings(c) is not None
                                  and c.last("/event") is not None
                                  and c.last("/round/1/pairing") is not None)
            assert all(r for t, _, r in late.got)  # everything a late joiner sees is retained
            assert final_standings(late) == FINAL_SCORES
            assert late.last("/status")["state"] == "online"


_LWT_SCRIPT = """
import asyncio, sys
from tcecd.bus.publisher import Publisher
from tcecd.bus.settings import MqttSettings

async def main():
    async with Publisher(MqttSettings.from_url(sys.argv[1]), event="Bus Test") as pub:
        assert await pub.flush(30)
        print("ready", flush=True)
        await asyncio.sleep(3600)

asyncio.run(main())
"""


async def test_last_will_marks_daemon_offline_on_sigkill(mosquitto: MosquittoBroker) -> None:
    async with Collector(mosquitto.host, mosquitto.port) as watcher:
        await watcher.wait_until(lambda c: c.subscriptions >= 1)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", _LWT_SCRIPT, mosquitto.url, stdout=asyncio.subprocess.PIPE,
            cwd=os.getcwd(),
        )
        try:
            assert proc.stdout is not None
            async with asyncio.timeout(30):
                assert (await proc.stdout.readline()).strip() == b"ready"
            await watcher.wait_until(lambda c: c.docs("/status") != [])
            assert watcher.last("/status")["state"] == "online"
            proc.send_signal(signal.SIGKILL)
            await proc.wait()
            await watcher.wait_until(lambda c: c.last("/status")["state"] == "offline")
            topic = [t for t, _, _ in watcher.got if t.endswith("/status")][-1]
            assert topic == "tcecd/bus-test/status"
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


async def test_clean_exit_publishes_offline(mosquitto: MosquittoBroker) -> None:
    async with fast(MqttSettings.from_url(mosquitto.url)) as pub:
        assert await pub.flush(30)
    async with Collector(mosquitto.host, mosquitto.port) as late:
        await late.wait_until(lambda c: c.docs("/status") != [])
        status = late.last("/status")
        assert status["state"] == "offline"
        assert status["schema"] == 1


async def test_credentials(
        mosquitto_factory: Factory, captured_logs: list[dict[str, Any]]) -> None:
    broker = mosquitto_factory(users={"tcecd": "s3cr:et"})
    good = MqttSettings.from_url(f"mqtt://tcecd:s3cr%3Aet@127.0.0.1:{broker.port}")
    async with fast(good) as pub:
        pub.publish(start_events()[0])
        assert await pub.flush(30)
    async with Collector(broker.host, broker.port, username="tcecd",
                         password="s3cr:et") as c:
        await c.wait_until(lambda c: c.last("/event") is not None)
        assert c.last("/event")["name"] == "Bus Test"

    captured_logs.clear()
    bad = MqttSettings.from_url(f"mqtt://tcecd:wrong@127.0.0.1:{broker.port}")
    async with fast(bad) as pub:
        pub.publish(start_events()[0])  # refused by the broker: queued, no exception
        await wait_attempts(pub, 3)
        assert not pub.connected
        assert pub.pending >= 1
        assert len(logged(captured_logs, "warning")) == 1


async def test_tls(mosquitto_factory: Factory) -> None:
    broker = mosquitto_factory(tls=True)
    assert broker.tls_ca is not None
    settings = MqttSettings.from_url(broker.url, tls_ca=str(broker.tls_ca))
    assert settings.tls
    async with fast(settings) as pub:
        pub.publish(start_events()[0])
        assert await pub.flush(30)
    ctx = ssl.create_default_context(cafile=str(broker.tls_ca))
    async with Collector(broker.host, broker.port, tls_context=ctx) as c:
        await c.wait_until(lambda c: c.last("/event") is not None)
        assert json.dumps(c.last("/event")["players"][0]) == json.dumps(
            {"id": "A", "name": "Alpha", "seed": 1, "rating": 3500})


async def test_silent_broker_never_stalls_the_caller() -> None:
    """A 'broker' that accepts TCP connections and never answers."""
    conns: list[asyncio.StreamWriter] = []

    async def hold(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        conns.append(w)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        async with fast(MqttSettings.from_url(f"mqtt://127.0.0.1:{port}")) as pub:
            for _ in range(50):
                for event in all_events():
                    pub.publish(event)
            assert not pub.connected
            assert not await pub.flush(0.2)
            assert pub.pending > 0
        for w in conns:
            w.close()


async def test_full_queue_drops_moves_but_keeps_every_result(
        mosquitto_factory: Factory, captured_logs: list[dict[str, Any]]) -> None:
    broker = mosquitto_factory(start=False)
    settings = MqttSettings.from_url(broker.url, queue_limit=10)
    async with fast(settings) as pub:
        for event in all_events():
            pub.publish(event)
        assert pub.dropped > 0  # all 16 move updates could not fit in 10 slots
        assert [e for e in logged(captured_logs, "warning") if "queue" in e]
        broker.start()
        assert await pub.flush(30)
        async with Collector(broker.host, broker.port) as late:
            await late.wait_until(lambda c: c.end_games() == ALL_GAMES
                                  and final_standings(c) is not None)
            assert final_standings(late) == FINAL_SCORES
            pairings = {t for t, _, _ in late.got if t.endswith("/pairing")}
            assert pairings == {"tcecd/bus-test/round/1/pairing", "tcecd/bus-test/round/2/pairing"}


async def test_exit_before_the_first_connection_still_delivers(mosquitto: MosquittoBroker) -> None:
    """A run that ends within moments (resuming a finished event) leaves the
    publisher before its first connection is up: what it published still goes out."""
    async with fast(MqttSettings.from_url(mosquitto.url)) as pub:
        for event in start_events():
            pub.publish(event)
    got = await retained("127.0.0.1", mosquitto.port)
    assert json.loads(got["tcecd/bus-test/event"])["name"] == "Bus Test"
    assert json.loads(got["tcecd/bus-test/status"])["state"] == "offline"


async def test_close_ends_even_when_a_cancellation_is_lost(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On Python 3.11 asyncio.wait_for (inside aiomqtt's connect) can swallow a
    cancellation that arrives as its future completes; the background task
    then goes on retrying. Closing must still end, within its bounds."""

    class Swallowing:
        async def __aenter__(self) -> None:
            with contextlib.suppress(asyncio.CancelledError):  # the lost cancellation
                await asyncio.sleep(0.05)
            raise aiomqtt.MqttError("refused")

        async def __aexit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(Publisher, "_client", lambda self: Swallowing())
    settings = MqttSettings.from_url("mqtt://127.0.0.1:1")
    async with asyncio.timeout(10):
        async with fast(settings) as pub:
            pub.publish(start_events()[0])
            await wait_attempts(pub, 2)
        assert pub.attempts >= 2


async def test_cancel_and_reap_cancels_again_until_the_task_ends() -> None:
    """A task that ignores its first cancellation (as one lost on Python 3.11)."""
    from tcecd.bus.reaping import cancel_and_reap

    seen = []

    async def stubborn() -> None:
        for _ in range(2):
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(60)
            seen.append("cancelled")
        await asyncio.sleep(60)

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    async with asyncio.timeout(10):
        await cancel_and_reap(task, retry_s=0.05)
    assert task.cancelled()
    assert seen == ["cancelled", "cancelled"]
