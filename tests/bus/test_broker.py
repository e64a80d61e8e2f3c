"""The embedded broker, driven by real aiomqtt (paho) clients."""

from __future__ import annotations

import asyncio
import contextlib

import aiomqtt
import pytest

from tcecd.bus.broker import EmbeddedBroker, topic_matches, valid_filter
from tcecd.bus.publisher import Publisher
from tcecd.bus.settings import MqttSettings
from tests.bus.helpers import Collector, RecordingLog
from tests.bus.sample import all_events


@pytest.mark.parametrize(
    ("flt", "topic", "expected"),
    [
        ("a/b", "a/b", True),
        ("a/+", "a/b", True),
        ("a/+", "a/b/c", False),
        ("a/#", "a", True),  # MQTT 3.1.1 4.7.1.2: "sport/#" also matches "sport"
        ("a/#", "a/b/c", True),
        ("#", "a/b", True),
        ("+/+", "a/b", True),
        ("+", "a/b", False),
        ("a/+/c", "a/x/c", True),
        ("a/+/c", "a/x/d", False),
        ("#", "$SYS/x", False),  # 4.7.2: wildcards at the first level skip $-topics
        ("+/x", "$SYS/x", False),
        ("$SYS/#", "$SYS/x", True),
    ],
)
def test_topic_matching(flt: str, topic: str, expected: bool) -> None:
    assert topic_matches(flt, topic) is expected


def test_filter_validation() -> None:
    assert valid_filter("a/+/#")
    assert not valid_filter("a/#/b")
    assert not valid_filter("a/b#")
    assert not valid_filter("a+/b")
    assert not valid_filter("")


async def test_pubsub_retained_wildcards_unsubscribe() -> None:
    async with EmbeddedBroker() as broker:
        assert broker.port > 0
        async with aiomqtt.Client("127.0.0.1", broker.port) as pub:
            await pub.publish("t/state", b"old", qos=1, retain=True)
            await pub.publish("t/state", b"new", qos=1, retain=True)
            await pub.publish("t/gone", b"x", qos=1, retain=True)
            await pub.publish("t/gone", b"", qos=1, retain=True)  # clears it
            await pub.publish("t/volatile", b"v", qos=1)  # not retained: nobody gets it
            async with aiomqtt.Client("127.0.0.1", broker.port) as sub:
                await sub.subscribe("t/#", qos=1)
                async with asyncio.timeout(10):
                    first = await anext(aiter(sub.messages))
                assert (str(first.topic), first.payload, first.retain) == ("t/state", b"new", True)

                await sub.subscribe("x/+/z", qos=0)
                await pub.publish("x/y/z", b"q0", qos=0)
                await pub.publish("x/y/w", b"nomatch", qos=1)
                await pub.publish("t/live", b"q1", qos=1)
                await sub.unsubscribe("t/#")
                await pub.publish("t/after", b"unsubscribed", qos=1)
                await pub.publish("x/a/z", b"last", qos=1)
                got = []
                async with asyncio.timeout(10):
                    async for m in sub.messages:
                        got.append((str(m.topic), m.payload, m.retain, m.qos))
                        if m.payload == b"last":
                            break
                assert got == [("x/y/z", b"q0", False, 0), ("t/live", b"q1", False, 1),
                               ("x/a/z", b"last", False, 0)]


async def test_last_will_on_abrupt_disconnect_only() -> None:
    async with EmbeddedBroker() as broker, Collector("127.0.0.1", broker.port, "w/#") as c:
        await c.wait_until(lambda c: c.subscriptions >= 1)
        clean = aiomqtt.Client("127.0.0.1", broker.port, identifier="clean",
                               will=aiomqtt.Will("w/clean", b"dead", qos=1, retain=True))
        async with clean:
            pass  # DISCONNECT: no will
        dirty = aiomqtt.Client("127.0.0.1", broker.port, identifier="dirty",
                               will=aiomqtt.Will("w/dirty", b"dead", qos=1, retain=True))
        await dirty.__aenter__()
        # Drop the TCP connection without DISCONNECT, as a killed process would.
        session = broker._by_id["dirty"]
        session.writer.transport.abort()
        await c.wait_until(lambda c: any(t == "w/dirty" for t, _, _ in c.got))
        assert broker.retained["w/dirty"] == (b"dead", 1)
        assert "w/clean" not in broker.retained
        with contextlib.suppress(aiomqtt.MqttError):
            await dirty.__aexit__(None, None, None)


async def test_credentials_are_checked() -> None:
    async with EmbeddedBroker(users={"u": "pw"}) as broker:
        async with aiomqtt.Client("127.0.0.1", broker.port, username="u", password="pw") as ok:
            await ok.publish("a", b"1", qos=1)
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client("127.0.0.1", broker.port, username="u", password="no"):
                pass


async def test_publisher_with_embedded_broker_serves_a_viewer() -> None:
    settings = MqttSettings(url="mqtt://127.0.0.1:0", embedded=True)
    log = RecordingLog()
    async with Publisher(settings, event="Bus Test", log=log) as pub:
        assert pub._broker is not None
        port = pub._broker.port
        for event in all_events():
            pub.publish(event)
        assert await pub.flush(30)
        async with Collector("127.0.0.1", port) as late:
            await late.wait_until(lambda c: len(c.end_games()) == 4
                                  and c.last("/standings") is not None
                                  and c.last("/standings")["final"])
            assert {r["id"]: r["score"] for r in late.last("/standings")["rows"]} == {
                "A": 2.0, "B": 1.0, "C": 0.5, "D": 0.5}
    assert log.count("warning") == 0


async def test_embedded_port_taken_falls_back_to_the_broker_there() -> None:
    async with EmbeddedBroker() as other:
        log = RecordingLog()
        settings = MqttSettings(url=f"mqtt://127.0.0.1:{other.port}", embedded=True)
        async with Publisher(settings, event="Bus Test", log=log) as pub:
            assert pub._broker is None
            pub.publish(all_events()[0])
            assert await pub.flush(30)
        assert [e for lv, e, _ in log.records if lv == "warning"] == [
            "embedded mqtt broker not started; using the broker already there"]
        assert b'"name":"Bus Test"' in other.retained["tcecd/bus-test/event"][0]
