"""A public broadcast past one machine with existing parts (docs/operations.md,
"Growing past one machine"), once, with real Mosquittos: the origin broker the
daemon publishes to; an edge Mosquitto bridged to it (read-only, `topic tcecd/#
in`) with its own websockets listener; `tcecd web` on the edge following the
edge broker. What is published at the origin reaches the edge's page clients
and the edge's MQTT-over-websockets subscribers, and the TCEC files carry what
a cache in front needs to revalidate them (ETag, 304)."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.fixtures.mosquitto import MosquittoBroker, free_port
from tests.web.helpers import get_json, wait_for, web_server
from tests.web.test_limits import game_stream, mqtt_client, publish

pytestmark = [pytest.mark.slow, pytest.mark.mosquitto]


def edge_broker(workdir: Path, origin: MosquittoBroker) -> tuple[MosquittoBroker, int]:
    """A Mosquitto bridged to ``origin`` (tcecd's topics in, nothing out), with a
    websockets listener for browsers; returns it (not started) and that port."""
    edge = MosquittoBroker(workdir)
    ws_port = free_port()
    with edge.conf_path.open("a") as f:
        f.write(f"listener {ws_port} 127.0.0.1\nprotocol websockets\n"
                f"connection origin\naddress {origin.host}:{origin.port}\n"
                "topic tcecd/# in 1\ncleansession true\nrestart_timeout 1\n")
    return edge, ws_port


class WsSubscriber:
    """An MQTT client over the edge's websockets listener (as a browser's mqtt.js)."""

    def __init__(self, port: int) -> None:
        import paho.mqtt.client as mqtt

        self.got: list[tuple[str, bytes]] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, transport="websockets")
        self.client.on_connect = lambda c, *a: c.subscribe("tcecd/#", qos=1)
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _message(self, client: Any, userdata: Any, m: Any) -> None:
        with self.lock:
            self.got.append((m.topic, bytes(m.payload)))

    def topics(self) -> list[str]:
        with self.lock:
            return [t for t, _ in self.got]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def revalidate(url: str) -> tuple[Any, dict[str, str], int]:
    """A TCEC file as a cache fetches it, then revalidates it with its ETag:
    (the document, its headers, the status of the revalidation)."""
    with urllib.request.urlopen(url) as r:
        headers, doc = dict(r.headers), json.loads(r.read())
    request = urllib.request.Request(url, headers={"If-None-Match": headers["ETag"]})
    try:
        with urllib.request.urlopen(request) as r:
            return doc, headers, r.status
    except urllib.error.HTTPError as exc:
        return doc, headers, exc.code


async def test_origin_to_edge_broker_to_edge_pages(tmp_path: Path,
                                                    mosquitto: MosquittoBroker) -> None:
    edge, ws_port = edge_broker(tmp_path / "edge", mosquitto)
    start, moves = game_stream(12)
    with edge, mqtt_client(mosquitto) as origin, web_server(edge.url, "--event", "flood") as base:
        subscriber = WsSubscriber(ws_port)
        try:
            # The retained documents, published at the origin before any edge client.
            await asyncio.to_thread(publish, origin, start)
            await asyncio.to_thread(wait_for, lambda: get_json(f"{base}/state.json")
                                    ["sections"]["game"], 20, "the game on the edge")
            got: list[dict[str, Any]] = []
            async with aiohttp.ClientSession() as session:
                page = await session.ws_connect(base.replace("http", "ws") + "/ws")
                await asyncio.to_thread(publish, origin, moves, False)  # live, not retained

                async def read() -> None:
                    while len([m for m in got if m["t"] == "move"]) < len(moves):
                        got.append(json.loads((await page.receive()).data))

                await asyncio.wait_for(read(), 30)
                await page.close()
            await asyncio.to_thread(wait_for, lambda: subscriber.topics().count(
                "tcecd/flood/game/1.1/move") == len(moves), 20, "the moves over websockets")
            live, headers, revalidated = await asyncio.to_thread(revalidate, f"{base}/live.json")
        finally:
            subscriber.close()
    assert [m["move"]["ply"] for m in got if m["t"] == "move"] == list(range(1, 13))
    assert "tcecd/flood/event" in subscriber.topics()  # retained, through the bridge
    assert [m["m"] for m in live["Moves"]] == [json.loads(p)["san"] for _t, p in moves]
    assert headers["Last-Modified"]
    assert headers["Cache-Control"] == "public, max-age=1"
    assert revalidated == 304
