"""``tcecd web`` gives TCEC's viewer the kibitzers' documents, in process: the
first two kibitzers' reports from the stream become ``data.json``/``liveeval.json``
and ``data1.json``/``liveeval1.json`` over HTTP, pushed on connect and on every
report as the socket.io events the viewer listens to (``liveeval``,
``livechart``, ``liveeval1``, ``livechart1``), equal to what the daemon writes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import chess
import pytest
from aiohttp import web

from tcecd.bus.payloads import Projection
from tcecd.bus.settings import MqttSettings
from tcecd.domain import GameId
from tcecd.events import EventStarted, GameStarted, KibitzerReport
from tcecd.game.record import Opening, Score
from tcecd.outputs.tcec_kibitzer import KibitzerDocuments
from tcecd.pairing.base import Player
from tcecd.web.server import WebServer
from tests.fixtures.mosquitto import free_port

TS = "2026-11-27T10:00:00.000Z"
GID = GameId(1, 1)


def report(kibitzer: int, ply: int, cp: int, pv: tuple[str, ...]) -> KibitzerReport:
    board = chess.Board()
    for san in ("e4", "e5")[:ply]:
        board.push_san(san)
    return KibitzerReport(kibitzer, f"K{kibitzer}", "Threads 1", GID, ply, board.fen(),
                          Score(cp=cp), depth=10, seldepth=12, nodes=1000, nps=50_000,
                          pv_san=pv)


async def test_tcecd_web_serves_and_pushes_the_kibitzers_documents() -> None:
    socketio = pytest.importorskip("socketio")
    server = WebServer(MqttSettings(topic_prefix="tcecd"), port=free_port())
    projection = Projection("tcecd/kib", "Kib")

    async def publish(event: Any) -> None:
        for m in projection.messages_for(event, TS):
            await server.handle(m.topic, m.payload)
        await server.feed_queue.join()

    runner = web.AppRunner(server.app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", server.port).start()
    feeding = asyncio.create_task(server.feed_loop())
    base = f"http://127.0.0.1:{server.port}"
    sio = socketio.AsyncClient(reconnection=False)
    try:
        await publish(EventStarted("Kib", "here", "round-robin", False, 1, "60+1",
                                   (Player("A", "A", 1), Player("B", "B", 2))))
        await publish(GameStarted(GID, "A", "B", Opening(None, None), "60+1", TS, None, None))
        first = report(0, 0, 20, ("e4", "e5"))
        await publish(first)
        ours = KibitzerDocuments()
        ours.add(first)
        async with aiohttp.ClientSession() as http:
            for name, want in (("data.json", ours.data()), ("liveeval.json", ours.history())):
                async with http.get(f"{base}/{name}") as r:
                    assert r.status == 200
                    assert json.loads(await r.text()) == want
            async with http.get(f"{base}/data1.json") as r:
                assert r.status == 404  # no second kibitzer (yet)
        pushed: dict[str, list[Any]] = {}
        arrived = asyncio.Event()
        for name in ("liveeval", "livechart", "liveeval1", "livechart1"):
            def on(doc: Any, name: str = name) -> None:
                pushed.setdefault(name, []).append(doc)
                arrived.set()
            sio.on(name, on)
        await sio.connect(base)

        async def until(check: Any) -> None:
            while not check():
                arrived.clear()
                await asyncio.wait_for(arrived.wait(), 10)

        await until(lambda: "livechart" in pushed)  # on connect: what there is
        assert pushed == {"liveeval": [ours.data()], "livechart": [ours.history()]}
        second = report(1, 1, -15, ("Nc6", "Nf3"))
        await publish(second)
        theirs = KibitzerDocuments()
        theirs.add(second)
        await until(lambda: "livechart1" in pushed)
        assert pushed["liveeval1"] == [theirs.data()]
        assert pushed["livechart1"] == [theirs.history()]
        history = theirs.history()
        assert history is not None
        assert history["moves"][0]["eval"] == "0.15"  # Black to move: the side to move's
    finally:
        await sio.disconnect()
        feeding.cancel()
        await asyncio.wait([feeding])
        await runner.cleanup()


@pytest.mark.slow
async def test_the_page_shows_a_kibitzer_line_beside_the_players() -> None:
    from tests.web.helpers import chrome

    server = WebServer(MqttSettings(topic_prefix="tcecd"), port=free_port())
    projection = Projection("tcecd/kib", "Kib")
    runner = web.AppRunner(server.app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", server.port).start()
    driver = await asyncio.to_thread(chrome)
    try:
        for event in (EventStarted("Kib", "here", "round-robin", False, 1, "60+1",
                                   (Player("A", "Alpha", 1), Player("B", "Beta", 2))),
                      GameStarted(GID, "A", "B", Opening(None, None), "60+1", TS, None, None),
                      report(0, 1, -15, ("Nc6", "Nf3"))):
            for m in projection.messages_for(event, TS):
                await server.handle(m.topic, m.payload)
        await asyncio.to_thread(driver.get, f"http://127.0.0.1:{server.port}/")

        def line() -> Any:
            return driver.execute_script(
                "const k = document.querySelector('#kibitzers .kibitzer');"
                "return k && [k.querySelector('.name').textContent, k.querySelector('.name').title,"
                " k.querySelector('.eval').textContent, k.querySelector('small').textContent,"
                " k.querySelector('.pv').textContent]")

        shown = None
        for _ in range(200):
            shown = await asyncio.to_thread(line)
            if shown:
                break
            await asyncio.sleep(0.05)
        # After 1. e4 (Black to move): the evaluation from White's point of view.
        assert shown == ["K0", "Threads 1", "-0.15", "d 10/12 · 1.0k nodes · 50.0knps",
                         "1... Nc6 2. Nf3"]
    finally:
        await asyncio.to_thread(driver.quit)
        await runner.cleanup()
