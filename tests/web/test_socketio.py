"""TCEC's viewer's socket.io events and files, from `tcecd web` while `tcecd run`
plays a small event: a python-socketio 4.x client (socket.io protocol 4 over
Engine.IO 3, what the viewer's socket.io-client 2.x speaks) receives ``pgn``,
``schedule`` and ``crosstable``; at the end the files served over HTTP equal the
ones the daemon wrote into its state directory (the same builders, fed from
the stream instead of the daemon's memory)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.helpers import ROOT, tcecd_argv, write_config
from tests.fixtures.mosquitto import MosquittoBroker
from tests.web.helpers import get_json, web_server

pytestmark = [pytest.mark.slow, pytest.mark.mosquitto]


def check_files(base: str, state: Path, want: dict[str, Any]) -> None:
    """The files over HTTP: as the daemon wrote them."""
    for name in ("schedule", "crosstable", "crash", "tournament"):
        assert get_json(f"{base}/{name}.json") == want[name], name
    assert get_json(f"{base}/live.json") == want["live"]
    with urllib.request.urlopen(f"{base}/live.pgn") as r:
        assert r.read().decode() == (state / "live.pgn").read_text()
        assert r.headers["Last-Modified"]  # the viewer's clock runs from it


async def test_socketio_client_follows_the_event_and_files_match(
        tmp_path: Path, mosquitto: MosquittoBroker) -> None:
    socketio = pytest.importorskip("socketio")
    cfg = write_config(tmp_path / "ev", rounds=2, mqtt=mosquitto.url, concurrency=1,
                       max_moves=10)
    got: dict[str, list[Any]] = {"pgn": [], "schedule": [], "crosstable": [],
                                 "tournament": []}
    with web_server(mosquitto.url) as base:
        sio = socketio.AsyncClient(reconnection=False)
        arrived = asyncio.Event()

        def on(name: str) -> Any:
            def handler(data: Any) -> None:
                got[name].append(data)
                arrived.set()
            return handler

        for name in got:
            sio.on(name, on(name))
        await sio.connect(base)
        proc = await asyncio.create_subprocess_exec(*tcecd_argv(cfg), cwd=ROOT,
                                                    stdout=asyncio.subprocess.DEVNULL,
                                                    stderr=asyncio.subprocess.DEVNULL)
        assert await asyncio.wait_for(proc.wait(), 120) == 0
        state = tmp_path / "ev" / "state" / "tcec"
        want = {n: json.loads((state / f"{n}.json").read_text()) for n in
                ("schedule", "crosstable", "crash", "tournament", "live")}

        async def settled() -> None:
            while not got["schedule"] or got["schedule"][-1] != want["schedule"] or \
                    not got["crosstable"] or got["crosstable"][-1] != want["crosstable"]:
                arrived.clear()
                await arrived.wait()

        with contextlib.suppress(TimeoutError):  # the asserts below say what differs
            await asyncio.wait_for(settled(), 10)
        assert got["schedule"]
        assert got["schedule"][-1] == want["schedule"]
        assert got["crosstable"]
        assert got["crosstable"][-1] == want["crosstable"]
        await sio.disconnect()
        await asyncio.to_thread(check_files, base, state, want)
    pgns = got["pgn"]
    assert pgns, "no pgn push"
    # 2 rounds of 2 games, one at a time: every game begins with a push that changes
    # the Headers (all plies, gameChanged 1); otherwise at most 2 plies per push.
    changed = [p for p in pgns if p["gameChanged"] == 1]
    rounds_seen = {p["Headers"]["Round"] for p in changed}
    assert {"1.2", "2.1", "2.2"} <= rounds_seen
    for p in pgns:
        assert p["numMovesToSend"] == 2
        assert isinstance(p["Users"], int)
        assert p["Users"] >= 1
        assert p["Round"] == round(float(p["Headers"]["Round"]) * 100)
        if p["gameChanged"] == 0:
            assert len(p["Moves"]) <= 2
            assert p["totalSent"] == len(p["Moves"])
            assert p["lastMoveLoaded"] + len(p["Moves"]) >= len(p["Moves"])
    # The last game (2.2), while it ran: each push carries the newest ply (and the one
    # before), every ply once and in order, as in the finished game (live.json).
    final = [(m["m"], m["fen"]) for m in want["live"]["Moves"]]
    running = [p for p in pgns if p["Headers"]["Round"] == "2.2" and p["Headers"]["Result"] == "*"]
    newest = [final.index((p["Moves"][-1]["m"], p["Moves"][-1]["fen"])) for p in running
              if p["Moves"]]
    assert newest == list(range(newest[0], len(final)))
    assert newest[0] <= 1
    for p in running:
        n = len(p["Moves"])
        if p["gameChanged"] == 0 and p["lastMoveLoaded"] != n:  # cut: the index of the first
            assert [(m["m"], m["fen"]) for m in p["Moves"]] == \
                final[p["lastMoveLoaded"]:p["lastMoveLoaded"] + n]
    assert got["tournament"][-1] == want["tournament"]
