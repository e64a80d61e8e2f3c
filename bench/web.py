#!/usr/bin/env python3
"""Latency of ``tcecd web``: a move's MQTT message to its appearance on the page.

Starts a Mosquitto on a free port, ``tcecd web`` (a subprocess, as deployed),
``--clients`` websocket clients of the page protocol (default 998) and
``--pages`` real headless Chromium pages (default 2, needs Debian's chromium +
chromium-driver): 1,000 connected pages. Then ``tcecd run`` plays a small real
event (the bundled deterministic engines, one game at a time), once per
``--pace-ms`` value: ``0`` is flat out (depth-1 engines, tens of moves per
second, far faster than any real event), ``150`` makes every engine answer
each ``go`` after 150 ms, a few moves per second like a fast event.

The protocol clients live in processes of their own (``--client-procs``, default
2, on uvloop; so they do not share an interpreter with the measurement, and one
client process does not delay its last client's receipt by the others' work)
and only note when each message arrived,
parsing the messages after the run; a real page's work happens on the
reader's machine, not on the server's. They still share the machine's cores
with everything else, as do the Chromium pages.

Printed per run, milliseconds from the moment a ``game/<r.g>/move`` message
reached an MQTT subscriber in this process (its "MQTT message") to:

- **server**: the server serialised the move's protocol message (the
  message's ``now``; the server's own receipt plus its work);
- **ws client**: the message arrived at each protocol client (all pooled);
- **page receives** / **page DOM**: the message reached the Chromium page's
  script (``window.tcecdRecv``), and the move was written into its DOM
  (``window.tcecdSeen``, set right after the move list got the move): the
  issue's figure, target p99 under 100 ms;
- also from the daemon's publish time (the payload's ``ts``) to the DOM;
- **CPU** used during the event by each process (daemon with its engines,
  Mosquitto, the web server, the clients' process, Chromium), from /proc and
  the daemon's rusage, as seconds and per move message;
- **server CPU per move msg**: the recorded stream replayed afterwards into a
  ``WebServer`` in this process, CPU time per move message (page model, TCEC
  feed, queueing for 50 pages; the sockets excluded): what does not depend on
  how busy the machine is.

Figures only, no assertions. Usage: ``.venv/bin/python bench/web.py
[--clients 998] [--pages 2] [--rounds 3] [--max-moves 40] [--pace-ms 0 150]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
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

TICK = os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def summary(name: str, values: list[float]) -> str:
    if not values:
        return f"{name:>26}: no samples"
    return (f"{name:>26}: n={len(values):6d}  median {statistics.median(values):6.1f}  "
            f"p90 {pct(values, 90):6.1f}  p99 {pct(values, 99):6.1f}  "
            f"max {max(values):6.1f} ms")


# -- the protocol clients' process -------------------------------------------------------

async def _clients(url: str, n: int) -> None:
    """``n`` websocket clients; each notes (arrival time, text) per message. At
    EOF on stdin: parse everything and print one JSON document on stdout."""
    got: list[list[tuple[float, str]]] = [[] for _ in range(n)]
    ready = asyncio.Event()
    opened = 0
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # one socket per client
    connecting = asyncio.Semaphore(50)  # not all 1,000 handshakes at once

    async def client(log: list[tuple[float, str]], session: aiohttp.ClientSession) -> None:
        nonlocal opened
        # No permessage-deflate: these clients stand for pages on other machines;
        # browsers negotiate it, and the Chromium pages measure that path.
        async with connecting:
            ws = await session.ws_connect(url, compress=0, autoping=True)
        async with ws:
            opened += 1
            if opened == n:
                ready.set()
            async for msg in ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    log.append((time.time() * 1000, msg.data))

    loop = asyncio.get_running_loop()
    # limit=0: aiohttp's connector stops at 100 connections by default (the bench
    # once measured 100 clients while asking for more).
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        tasks = [asyncio.create_task(client(log, session)) for log in got]
        await ready.wait()
        print("ready", flush=True)
        await loop.run_in_executor(None, sys.stdin.readline)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    seen: list[dict[str, float]] = []
    server: dict[str, float] = {}
    kinds: dict[str, int] = {}
    for log in got:
        mine: dict[str, float] = {}
        for t, text in log:
            doc = json.loads(text)
            kinds[doc["t"]] = kinds.get(doc["t"], 0) + 1
            if doc["t"] == "move":
                key = f"{doc['game']}:{doc['move']['ply']}"
                mine.setdefault(key, t)
                server.setdefault(key, doc["now"])
        seen.append(mine)
    print(json.dumps({"seen": seen, "server": server, "kinds": kinds}), flush=True)


# -- CPU per process ------------------------------------------------------------------

def _procs() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds) of every process readable in /proc."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(d)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK)
    return out


def tree_cpu(roots: dict[str, int]) -> dict[str, float]:
    """CPU seconds so far of each named process with all its live descendants."""
    procs = _procs()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _cpu) in procs.items():
        children.setdefault(ppid, []).append(pid)
    out = {}
    for name, root in roots.items():
        total, todo = 0.0, [root]
        while todo:
            pid = todo.pop()
            total += procs.get(pid, (0, 0.0))[1]
            todo.extend(children.get(pid, []))
        out[name] = total
    return out


# -- the server's own cost --------------------------------------------------------------

class _NullTransport:
    """Where the replayed stream's frames go: nowhere (sending is not counted)."""

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0

    def write(self, data: bytes) -> None:
        return None


async def server_cost(stream: list[tuple[str, bytes]], clients: int) -> list[float]:
    """CPU time (ms) ``tcecd web`` spends on each move message of the recorded
    stream, replayed in this process: the page model, the TCEC feed and the
    frames for ``clients`` pages (the sockets' sends excluded)."""
    from tcecd.bus.settings import MqttSettings
    from tcecd.web.server import WebServer, _Page

    server = WebServer(MqttSettings.from_url("mqtt://127.0.0.1:1"))
    pages = [_Page(None, _NullTransport()) for _ in range(clients)]  # type: ignore[arg-type]
    server.pages.update(pages)
    feed = getattr(server, "feed_loop", None)  # (the TCEC documents' own task, if any)
    if feed is not None:
        asyncio.get_running_loop().create_task(feed())
    costs = []
    for topic, payload in stream:
        t0 = time.process_time()  # the whole process: a worker thread's work counts too
        await server.handle(topic, payload)
        if feed is not None:
            await server.feed_queue.join()
        if topic.endswith("/move"):
            costs.append((time.process_time() - t0) * 1000)
    return costs


# -- one run --------------------------------------------------------------------------

def run_once(args: argparse.Namespace, pace_ms: int) -> None:
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, MosquittoBroker(Path(tmp) / "mq") as broker:
        broker.start()
        engines = ("ab-d1", "ab-d1-noisy",
                   "{ref: ab-d1, name: ab-d1-n50, options: {Noise: 50, Seed: 3}}",
                   "{ref: ab-d1, name: ab-d1-n120, options: {Noise: 120, Seed: 4}}")
        if pace_ms:
            engines = tuple(
                f"{{ref: ab-d1, name: {n}, options: {{Noise: {noise}, Seed: {seed}, "
                f"Pace: {pace_ms}}}}}"
                for n, noise, seed in (("ab-p0", 0, 0), ("ab-p10", 10, 1), ("ab-p50", 50, 3),
                                       ("ab-p120", 120, 4)))
        cfg = write_config(Path(tmp) / "ev", engines=engines, rounds=args.rounds,
                           mqtt=broker.url, concurrency=1, max_moves=args.max_moves)
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
        web_pid: list[int] = []
        with web_server(broker.url, pid=web_pid) as base:
            drivers = [chrome(1000, 900) for _ in range(args.pages)]
            for d in drivers:
                d.get(base)
            shares = [args.clients // args.client_procs + (i < args.clients % args.client_procs)
                      for i in range(args.client_procs)]
            procs = [subprocess.Popen(
                [sys.executable, __file__, "--_clients", base.replace("http", "ws") + "/ws",
                 str(n)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                for n in shares if n]
            for proc in procs:
                assert proc.stdout is not None
                proc.stdout.readline()  # "ready"
            time.sleep(1.0)
            roots = {"web server": web_pid[0], "Mosquitto": broker._proc.pid}  # type: ignore[union-attr]
            roots.update({f"clients {i + 1} ({n} ws)": p.pid
                          for i, (n, p) in enumerate(zip(shares, procs, strict=False))})
            roots.update({f"Chromium {i + 1}": d.service.process.pid
                          for i, d in enumerate(drivers)})
            before = tree_cpu(roots)
            bench0 = resource.getrusage(resource.RUSAGE_SELF)
            t0 = time.monotonic()
            daemon = subprocess.Popen(tcecd_argv(cfg), cwd=ROOT, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
            _pid, status, usage = os.wait4(daemon.pid, 0)
            daemon.returncode = os.waitstatus_to_exitcode(status)
            played = time.monotonic() - t0
            after = tree_cpu(roots)
            bench1 = resource.getrusage(resource.RUSAGE_SELF)
            time.sleep(1.0)
            got: dict[str, Any] = {"seen": [], "server": {}, "kinds": {}}
            for proc in procs:
                out, _ = proc.communicate("stop\n")
                part = json.loads(out.splitlines()[-1])
                got["seen"] += part["seen"]
                for k, v in part["server"].items():
                    got["server"].setdefault(k, v)
                for k, v in part["kinds"].items():
                    got["kinds"][k] = got["kinds"].get(k, 0) + v
            dom = [d.execute_script("return window.tcecdSeen") for d in drivers]
            recv = [d.execute_script("return window.tcecdRecv") for d in drivers]
            for d in drivers:
                d.quit()
        rec.close()
    moves = dict(rec.moves)
    seen_ws: list[dict[str, float]] = got["seen"]
    server_at: dict[str, float] = got["server"]
    n = len(moves)
    lat = {
        "MQTT -> server sends": [server_at[k] - t for k, t in moves.items() if k in server_at],
        "MQTT -> ws client": [s[k] - t for s in seen_ws for k, t in moves.items() if k in s],
        "MQTT -> page receives": [p[k] - t for p in recv for k, t in moves.items() if k in p],
        "MQTT -> page DOM": [p[k] - t for p in dom for k, t in moves.items() if k in p],
        "daemon ts -> page DOM": [p[k] - ts_of[k] for p in dom for k in ts_of if k in p],
    }
    missing_ws = sum(1 for s in seen_ws for k in moves if k not in s)
    missing_dom = sum(1 for p in dom for k in moves if k not in p)
    cpu = {k: after[k] - before[k] for k in roots}
    cpu["daemon + engines"] = usage.ru_utime + usage.ru_stime
    cpu["bench (recorder)"] = (bench1.ru_utime + bench1.ru_stime
                               - bench0.ru_utime - bench0.ru_stime)
    server_ms = asyncio.run(server_cost(stream, args.clients + args.pages))
    load = os.getloadavg()
    pace = f"engines answer after {pace_ms} ms" if pace_ms else "flat out"
    print(f"\n== {pace}: {n} moves in {played:.1f} s ({n / played:.1f} moves/s), "
          f"{args.clients} websocket clients + {args.pages} Chromium page(s), loopback, "
          f"{os.cpu_count()} cores, load average {load0[0]:.1f} at the start, "
          f"{load[0]:.1f} at the end")
    for name, values in lat.items():
        print(summary(name, values))
    print(summary("server CPU per move msg", server_ms))
    print(f"{'CPU during the event':>26}: " + ", ".join(
        f"{k} {v:.1f} s ({v / n * 1000:.1f} ms/move)" for k, v in cpu.items()))
    print(f"{'CPU in use':>26}: {sum(cpu.values()) / played:.2f} of {os.cpu_count()} cores")
    print(f"{'messages per client':>26}: " + ", ".join(
        f"{k} {v / max(args.clients, 1):.0f}" for k, v in sorted(got["kinds"].items())))
    worst = sorted(((p[k] - t, k) for p in dom for k, t in moves.items() if k in p),
                   reverse=True)[:6]
    print(f"{'slowest to the DOM':>26}: " + ", ".join(f"{k} {v:.0f} ms" for v, k in worst))
    print(f"{'missing':>26}: ws {missing_ws}, dom {missing_dom}")
    dom_lat = lat["MQTT -> page DOM"]
    target = "met" if dom_lat and pct(dom_lat, 99) < 100 else "NOT met"
    print(f"{'target':>26}: DOM p99 < 100 ms with {args.clients + args.pages} pages "
          f"({pace}): {target}")




def main() -> None:
    if sys.argv[1:2] == ["--_clients"]:
        # uvloop, as tcecd's own commands: the clients' share of the CPU is smaller.
        from tcecd import eventloop

        eventloop.run(_clients(sys.argv[2], int(sys.argv[3])))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=998)
    ap.add_argument("--client-procs", type=int, default=2,
                    help="processes the clients are shared over (default: 2, one per core)")
    ap.add_argument("--pages", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--max-moves", type=int, default=40)
    ap.add_argument("--pace-ms", type=int, nargs="+", default=[0, 150],
                    help="one run per value: each engine answers go after this long (0: flat out)")
    args = ap.parse_args()
    for pace in args.pace_ms:
        run_once(args, pace)


if __name__ == "__main__":
    main()
