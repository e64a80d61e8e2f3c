"""Issue 28's floods against `tcecd web` on 127.0.0.1, each bounded in time: the
server's memory (RSS) and file descriptors stay bounded, and viewers still get in.

* 1,000 connections that send partial headers, with a 256-file limit: the
  server holds at most its cap (the limit minus 64) of them, a normal request
  still gets its answer, and the header timeout closes them all.
* 8 pages sending 8-byte ``snapshot`` frames as fast as they can, with a
  32-engine event (a ~27 kB snapshot): nothing is serialised or queued for them
  beyond the snapshot they already have.
* 2,000 socket.io polling handshakes that never poll again, while moves are
  pushed: sessions capped, not counted as viewers.
* socket.io binary attachments (4.x keeps them, unbounded, also after a
  disconnect): the session and its websocket are closed at once, nothing kept.

Figures, not timings: memory in MB from /proc, and counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import socket
import time
from collections.abc import Iterator
from typing import Any

import aiohttp
import chess
import pytest

from tests.fixtures.mosquitto import MosquittoBroker
from tests.web.helpers import get_json, wait_for, web_server

pytestmark = [pytest.mark.slow]

P = "tcecd/flood"
TS = "2026-11-22T05:00:00.000Z"


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@contextlib.contextmanager
def more_files(n: int) -> Iterator[None]:
    """This process may open ``n`` files (the flood's client side)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < n:
        pytest.skip(f"the hard limit on open files ({hard}) is below {n}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, n), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def doc(doc_type: str, **fields: Any) -> bytes:
    return json.dumps({"schema": 1, "type": doc_type, "event": "Flood", "ts": TS,
                       **fields}).encode()


def big_event(n: int = 32) -> list[tuple[str, bytes]]:
    """Retained documents of an event of ``n`` engines after 13 double rounds."""
    ids = [f"P{i:02d}" for i in range(1, n + 1)]
    players = [{"id": pid, "name": f"Engine {pid} dev-20261122-{i}", "seed": i,
                "rating": 3500 - i} for i, pid in enumerate(ids, 1)]
    rows = [{"rank": i, "id": pid, "score": (n - i) / 4, "score_half": (n - i) // 2, "byes": 0,
             "games": 9, "tiebreaks": {"buchholz": 40.5, "sonneborn-berger": 30.25,
                                       "black-games": 4.0, "wins": 3.0}}
            for i, pid in enumerate(ids, 1)]
    table = {r["id"]: {**r, "strikes": 0, "disqualified": False, "results": {
        ids[(i + k) % n]: [{"game": f"{k}.{i % 16 + 1}", "color": c, "result": "="}
                           for c in ("white", "black")]
        for k in range(1, 14)}} for i, r in enumerate(rows)}
    return [(f"{P}/{t}", p) for t, p in (
        ("status", doc("status", state="online")),
        ("event", doc("event", name="Flood", site="here", system="tcec-swiss", double=False,
                      rounds=13, time_control="60+1", run_id="r1", players=players)),
        ("standings", doc("standings", after_round=9, final=False, rows=rows)),
        ("crosstable", doc("crosstable", format="simple", order=ids, table=table)),
    )]


@contextlib.contextmanager
def mqtt_client(broker: MosquittoBroker) -> Iterator[Any]:
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        yield client
    finally:
        client.loop_stop()
        client.disconnect()


def publish(client: Any, msgs: list[tuple[str, bytes]], retain: bool = True) -> None:
    for topic, payload in msgs:
        client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)


def game_stream(plies: int) -> tuple[list[tuple[str, bytes]], list[tuple[str, bytes]]]:
    """A running game: its retained start documents, and ``plies`` move messages."""
    start = [(f"{P}/{t}", p) for t, p in (
        ("event", doc("event", name="Flood", rounds=1, run_id="r1",
                      players=[{"id": "A", "name": "Alpha"}, {"id": "B", "name": "Beta"}])),
        ("round/1/pairing", doc("pairing", round=1, pairs=[{"first": "A", "second": "B"}],
                                games=[{"game": "1.1", "number": 1, "white": "A",
                                        "black": "B"}])),
        ("game/1.1/start", doc("start", game="1.1", round=1, number=1, white="A", black="B",
                               start_time=TS, white_clock_ms=60000, black_clock_ms=60000)),
    )]
    board = chess.Board()
    moves = []
    for ply in range(1, plies + 1):
        move = next(iter(board.legal_moves))
        san = board.san(move)
        board.push(move)
        moves.append((f"{P}/game/1.1/move", doc(
            "move", game="1.1", ply=ply, color="white" if ply % 2 else "black", san=san,
            uci=move.uci(), fen=board.fen(), book=False, depth=10, nodes=1000,
            eval={"cp": 10, "mate": None, "text": "0.10"}, pv=[san] * 20)))
    return start, moves


def test_partial_headers_flood_is_bounded_and_a_viewer_gets_in(
        mosquitto: MosquittoBroker) -> None:
    pid: list[int] = []
    with more_files(1200), web_server(mosquitto.url, "--header-timeout", "3",
                                      pid=pid, nofile=256) as base:
        port = int(base.rsplit(":", 1)[1])
        before = rss_mb(pid[0])
        socks = []
        for _ in range(1000):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /state.json HTTP/1.1\r\nHost: flood\r\nX-Slow: ")  # never ends
            socks.append(s)
        # A viewer still gets its answer: it takes the place of an idle connection.
        assert get_json(f"{base}/state.json")["t"] == "snapshot"
        held_fds = fds(pid[0])
        grew = rss_mb(pid[0]) - before

        def closed(s: socket.socket) -> bool:
            s.settimeout(0.01)
            try:
                return s.recv(1) == b""
            except TimeoutError:
                return False
            except OSError:
                return True

        # The header timeout (3 s here) closes every connection the cap had not.
        open_socks = list(socks)
        deadline = time.monotonic() + 30
        while open_socks and time.monotonic() < deadline:
            open_socks = [s for s in open_socks if not closed(s)]
            time.sleep(0.2)
        for s in socks:
            s.close()
        assert get_json(f"{base}/state.json")["t"] == "snapshot"
    assert held_fds <= 256
    assert not open_socks, f"{len(open_socks)} partial connections still open"
    assert grew < 20, f"RSS grew by {grew:.0f} MB"


async def test_snapshot_frames_flood_serialises_nothing_more(mosquitto: MosquittoBroker) -> None:
    with mqtt_client(mosquitto) as client:
        await asyncio.to_thread(publish, client, big_event())
    pid: list[int] = []
    with web_server(mosquitto.url, "--event", "flood", pid=pid) as base:
        state = await asyncio.to_thread(
            wait_for, lambda: (s := get_json(f"{base}/state.json"))["sections"]["crosstable"]
            and s, 20, "the event")
        size = len(json.dumps(state))
        before = rss_mb(pid[0])
        got: list[str] = []
        async with aiohttp.ClientSession() as session:
            reader = await session.ws_connect(base.replace("http", "ws") + "/ws")
            pages = [await session.ws_connect(base.replace("http", "ws") + "/ws")
                     for _ in range(8)]
            for _ in range(2000):  # 8 x 2000 x 8 bytes = 128 kB, as in the issue
                for page in [*pages, reader]:
                    await page.send_str("snapshot")
            with contextlib.suppress(TimeoutError):
                while True:
                    msg = await asyncio.wait_for(reader.receive(), 2)
                    got.append(json.loads(msg.data)["t"])
            grew = rss_mb(pid[0]) - before
            for page in pages:
                await page.close()
            await reader.close()
        assert get_json(f"{base}/state.json")["t"] == "snapshot"  # still serving
    assert size > 20_000  # a snapshot worth the flood (tens of kB)
    # The page got the one snapshot of this state (and the time), however often it asked.
    assert got == ["snapshot", "link"]
    assert grew < 20, f"RSS grew by {grew:.0f} MB"


async def test_polling_handshakes_are_capped_and_not_viewers(
        mosquitto: MosquittoBroker) -> None:
    socketio = pytest.importorskip("socketio")
    start, moves = game_stream(40)
    pid: list[int] = []
    with mqtt_client(mosquitto) as client, more_files(1200), web_server(
            mosquitto.url, "--event", "flood", "--max-connections", "500", pid=pid) as base:
        await asyncio.to_thread(publish, client, start)
        await asyncio.to_thread(wait_for, lambda: get_json(f"{base}/state.json")["sections"]
                                ["game"], 20, "the game")
        viewer = socketio.AsyncClient(reconnection=False)
        users: list[int] = []
        viewer.on("users", lambda data: users.append(data["count"]))
        await viewer.connect(base)
        before = rss_mb(pid[0])
        statuses: dict[int, int] = {}
        url = f"{base}/socket.io/?EIO=3&transport=polling"
        async with aiohttp.ClientSession() as session:
            for i in range(2000):
                async with session.get(url) as r:
                    statuses[r.status] = statuses.get(r.status, 0) + 1
                if i % 100 == 0:  # moves pushed to every session meanwhile
                    await asyncio.to_thread(publish, client, moves[i // 100 * 2:][:2], False)
            await viewer.emit("getusers")
            await asyncio.to_thread(wait_for, lambda: users, 10, "the viewer count")
            grew = rss_mb(pid[0]) - before
        await viewer.disconnect()
    # At most 500 sessions at once (the viewer holds one): the rest were refused
    # until sessions that stopped polling were dropped (10 s without a request;
    # tests/web/test_viewer_feed.py checks that they leave nothing behind).
    assert set(statuses) == {200, 503}
    assert statuses[200] >= 499
    assert statuses[503] > 0
    assert users == [1]  # the handshakes are not viewers
    assert grew < 40, f"RSS grew by {grew:.0f} MB"


async def test_binary_attachments_end_the_session_and_nothing_stays(
        mosquitto: MosquittoBroker) -> None:
    pytest.importorskip("socketio")
    pid: list[int] = []
    with web_server(mosquitto.url, pid=pid) as base:
        url = base.replace("http", "ws") + "/socket.io/?EIO=3&transport=websocket"
        blob = b"\x04" + os.urandom(3 * 1024 * 1024)
        before = rss_mb(pid[0])
        closed = 0
        async with aiohttp.ClientSession() as session:
            for _ in range(10):
                ws = await session.ws_connect(url, max_msg_size=0)
                opened = await ws.receive()
                assert opened.data.startswith("0{")  # Engine.IO OPEN
                # A BINARY_EVENT announcing 1,000 attachments, then 3 MiB frames.
                await ws.send_str('451000-["x",{"_placeholder":true,"num":0}]')
                with contextlib.suppress(ConnectionError, RuntimeError):
                    for _ in range(10):
                        await ws.send_bytes(blob)
                while not ws.closed:
                    msg = await asyncio.wait_for(ws.receive(), 10)
                    if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                                    aiohttp.WSMsgType.ERROR):
                        break
                closed += 1
                await ws.close()
        await asyncio.sleep(0.5)
        grew = rss_mb(pid[0]) - before
        assert get_json(f"{base}/state.json")["t"] == "snapshot"
    assert closed == 10
    assert grew < 30, f"RSS grew by {grew:.0f} MB"  # 4.6.1 kept ~24 MB per round
