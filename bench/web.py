#!/usr/bin/env python3
"""Latency of ``tcecd web``: a move's MQTT message to its appearance on the page.

Starts a Mosquitto on a free port, ``tcecd web`` (a subprocess, as deployed),
``--clients`` websocket clients of the page protocol (default 50, each a
separate aiohttp websocket connection that parses every message, as a page
does) and ``--pages`` real headless Chromium pages (default 1, needs Debian's
chromium + chromium-driver), then plays a small real event with ``tcecd run``
(the bundled deterministic engines, one game at a time). A separate MQTT
subscriber notes when each ``game/<r.g>/move`` message reached it.

Printed, per move (``game:ply``), milliseconds from that MQTT arrival to:

- **ws**: the move's protocol message received and parsed by each of the
  websocket clients (all clients pooled);
- **dom**: the move written into the page's DOM (``window.tcecdSeen``, set
  by the page right after it appended the move to its move list) in each
  Chromium page; **page receives**: the move's message reached the page's
  script (``window.tcecdRecv``);
- **server CPU**: the recorded stream replayed afterwards into a
  ``WebServer`` in this process, CPU time per move message (page model, TCEC
  feed, queueing for ``--clients`` pages; the sockets excluded): the part
  that does not depend on how busy the machine is.

Also printed: from the daemon's publish time (the payload's ``ts``) to the DOM.
Target: dom p99 under 100 ms with the 50 clients connected. Figures only, no
assertions. Usage: ``.venv/bin/python bench/web.py [--clients 50] [--pages 1]
[--rounds 3] [--max-moves 40]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from tests.daemon.helpers import tcecd_argv, write_config  # noqa: E402
from tests.fixtures.mosquitto import MosquittoBroker  # noqa: E402
from tests.web.helpers import Recorder, chrome, web_server  # noqa: E402


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def summary(name: str, values: list[float]) -> str:
    if not values:
        return f"{name:>24}: no samples"
    return (f"{name:>24}: n={len(values):6d}  median {statistics.median(values):6.1f}  "
            f"p90 {pct(values, 90):6.1f}  p99 {pct(values, 99):6.1f}  "
            f"max {max(values):6.1f} ms")


KINDS: dict[str, int] = {}  # protocol messages received, by type (all clients)


async def ws_client(url: str, seen: dict[str, float], stop: asyncio.Event) -> None:
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        while not stop.is_set():
            try:
                msg = await asyncio.wait_for(ws.receive(), 0.5)
            except TimeoutError:
                continue
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            doc = json.loads(msg.data)
            now = time.time() * 1000
            KINDS[doc.get("t")] = KINDS.get(doc.get("t"), 0) + 1
            if doc.get("t") == "move":
                seen.setdefault(f"{doc['game']}:{doc['move']['ply']}", now)


async def server_cost(stream: list[tuple[str, bytes]], clients: int) -> list[float]:
    """CPU time (ms) ``tcecd web`` spends on each move message of the recorded
    stream, replayed in this process: the page model, the TCEC feed and the
    queueing of the result for ``clients`` pages (sending excluded)."""
    from tcecd.bus.settings import MqttSettings
    from tcecd.web.server import WebServer, _Page

    server = WebServer(MqttSettings.from_url("mqtt://127.0.0.1:1"))
    for _ in range(clients):
        server.pages.add(_Page(None))  # type: ignore[arg-type]  # queue only, never sent
    costs = []
    for topic, payload in stream:
        t0 = time.process_time()
        await server.handle(topic, payload)
        if topic.endswith("/move"):
            costs.append((time.process_time() - t0) * 1000)
        for page in server.pages:
            while not page.queue.empty():
                page.queue.get_nowait()
    return costs


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp, MosquittoBroker(Path(tmp) / "mq") as broker:
        broker.start()
        cfg = write_config(Path(tmp) / "ev", rounds=args.rounds, mqtt=broker.url,
                           concurrency=1, max_moves=args.max_moves)
        rec = Recorder(broker.host, broker.port)
        ts_of: dict[str, float] = {}
        stream: list[tuple[str, bytes]] = []
        orig = rec._on_message

        def on_message(client: Any, userdata: Any, m: Any) -> None:
            orig(client, userdata, m)
            stream.append((m.topic, bytes(m.payload)))
            if m.topic.endswith("/move") and m.payload:
                doc = json.loads(m.payload)
                stamp = datetime.fromisoformat(doc["ts"].replace("Z", "+00:00"))
                ts_of.setdefault(f"{doc['game']}:{doc['ply']}", stamp.timestamp() * 1000)

        rec.client.on_message = on_message
        with web_server(broker.url) as base:
            drivers = [chrome(1000, 900) for _ in range(args.pages)]
            for d in drivers:
                d.get(base)
            stop = asyncio.Event()
            seen_ws: list[dict[str, float]] = [{} for _ in range(args.clients)]
            ws_url = base.replace("http", "ws") + "/ws"
            tasks = [asyncio.create_task(ws_client(ws_url, s, stop)) for s in seen_ws]
            await asyncio.sleep(1.0)
            t0 = time.monotonic()
            proc = await asyncio.create_subprocess_exec(
                *tcecd_argv(cfg), cwd=ROOT, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
            await proc.wait()
            played = time.monotonic() - t0
            await asyncio.sleep(1.0)
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            dom = [d.execute_script("return window.tcecdSeen") for d in drivers]
            recv = [d.execute_script("return window.tcecdRecv") for d in drivers]
            for d in drivers:
                d.quit()
        rec.close()
    moves = dict(rec.moves)
    ws_lat = [s[k] - t for s in seen_ws for k, t in moves.items() if k in s]
    dom_lat = [p[k] - t for p in dom for k, t in moves.items() if k in p]
    page_recv = [p[k] - t for p in recv for k, t in moves.items() if k in p]
    dom_ts = [p[k] - ts_of[k] for p in dom for k in ts_of if k in p]
    missing_ws = sum(1 for s in seen_ws for k in moves if k not in s)
    missing_dom = sum(1 for p in dom for k in moves if k not in p)
    server_ms = await server_cost(stream, args.clients)
    load = os.getloadavg()
    print(f"tcecd web latency: {len(moves)} moves in {played:.1f} s "
          f"({len(moves) / played:.0f} moves/s), {args.clients} websocket clients, "
          f"{args.pages} Chromium page(s), loopback, {os.cpu_count()} cores, "
          f"load average {load[0]:.1f} at the end")
    print(summary("MQTT -> ws client", ws_lat))
    print(summary("MQTT -> page receives", page_recv))
    print(summary("MQTT -> page DOM", dom_lat))
    print(summary("daemon ts -> page DOM", dom_ts))
    print(summary("server CPU per move msg", server_ms))
    print(f"{'messages per client':>24}: "
          + ", ".join(f"{k} {v / max(args.clients, 1):.0f}" for k, v in sorted(KINDS.items())))
    print(f"{'missing':>24}: ws {missing_ws}, dom {missing_dom}")
    target = "met" if dom_lat and pct(dom_lat, 99) < 100 else "NOT met"
    print(f"{'target':>24}: DOM p99 < 100 ms with {args.clients} clients: {target}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--pages", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--max-moves", type=int, default=40)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
