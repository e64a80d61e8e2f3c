"""`tcecd web EVENT.yaml` with an `mqtt: embedded` event: it finds the broker the
daemon started (on a free port), and a connected page gets the event's last
messages (the last game's last move and result, the final standings, the
finished event) before the daemon stops its broker, even when `tcecd web` is
kept busy (TCEC's viewer file read on every move) on a loaded machine: before
the broker lingered after the daemon's goodbye, 3 runs in 13 lost them
(tcecd.bus.embedded.LINGER_S). Protocol-level: a websocket client of the page's
protocol (the browser tests cover rendering)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

import aiohttp
import chess.pgn
import pytest

from tests.daemon.helpers import ROOT, crosstable_summary, run_env, tcecd_argv, write_config
from tests.fixtures.mosquitto import find_binary
from tests.web.helpers import web_server

pytestmark = pytest.mark.slow


def _final_game(state: Path) -> tuple[str, int, str]:
    """(round "r.g", plies, result) of the event's last game, from the daemon's PGN."""
    last = None
    with (state / "event.pgn").open(encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            last = game
    assert last is not None
    return last.headers["Round"], len(list(last.mainline_moves())), last.headers["Result"]


@pytest.mark.parametrize("broker", [
    pytest.param("mosquitto", marks=pytest.mark.skipif(
        find_binary("mosquitto") is None, reason="mosquitto not installed")),
    "amqtt",
])
async def test_page_gets_the_last_messages_of_an_embedded_broker_event(
        tmp_path: Path, broker: str) -> None:
    cfg = write_config(tmp_path / "ev", rounds=2, concurrency=1, max_moves=10,
                       extra=f"mqtt: {{embedded: true, embedded_broker: {broker}}}\n")
    got: list[dict[str, Any]] = []
    with web_server(None, str(cfg)) as base:  # no --mqtt: the config says where
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(base.replace("http", "ws") + "/ws") as ws:

            finished = asyncio.Event()  # the event's `finished` reached the page

            async def read() -> None:
                async for msg in ws:
                    got.append(json.loads(msg.data))
                    if ((got[-1].get("sections") or {}).get("event") or {}).get("finished"):
                        finished.set()
                    if got[-1]["t"] == "move":  # TCEC's viewer reading the game as it goes
                        async with session.get(f"{base}/live.json") as r:
                            await r.read()

            reader = asyncio.create_task(read())
            daemon = await asyncio.create_subprocess_exec(
                *tcecd_argv(cfg), cwd=ROOT, env=run_env(),
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
            _out, err = await asyncio.wait_for(daemon.communicate(), 120)
            assert daemon.returncode == 0, err.decode()[-2000:]
            # The page reads at its own pace (a GET per move): wait for the last message
            # of the event, which can only come through the broker before it stopped.
            waiter = asyncio.create_task(finished.wait())
            await asyncio.wait([waiter, reader], timeout=30,
                               return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            if reader.done():
                reader.result()  # the page's reading failed: say why
            await asyncio.sleep(0.5)
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            async with session.get(f"{base}/live.json") as r:
                live = await r.json()
            async with session.get(f"{base}/state.json") as r:
                server = await r.json()  # the server's own view, to tell who missed what

    # The page's view, rebuilt from what it was sent (snapshot, deltas, moves).
    sections: dict[str, Any] = {}
    for msg in got:
        if msg["t"] in ("snapshot", "delta"):
            sections.update(msg["sections"])
        elif msg["t"] == "move":
            game = sections["game"]
            game.update(msg["head"])
            game["moves"].append(msg["move"])
    state = tmp_path / "ev" / "state"
    gid, plies, result = _final_game(state)
    game = sections["game"]
    print(f"{len(got)} messages; last game {gid} of {plies} plies, {result}; the last ones:",
          [(m["t"], list(m.get("sections") or ()), m["mqtt"]) for m in got[-5:]],
          "; the server's standings final:", (server["sections"]["standings"] or {}).get("final"),
          "finished:", server["sections"]["event"]["finished"], file=sys.stderr)
    assert game["id"] == gid
    assert len(game["moves"]) == plies
    assert game["result"] == result
    assert sections["standings"]["final"] is True
    assert [(r["name"], r["score"]) for r in sections["standings"]["rows"]] == [
        (name, score) for name, score, _rank in crosstable_summary(state)]
    assert sections["event"]["finished"] is not None
    # The page was following the broker live, not only its leftovers: moves came one by one.
    assert sum(1 for m in got if m["t"] == "move") >= plies
    # TCEC's viewer gets the last game as the daemon's own file has it (built from the
    # stream's plies while it was read during the game, then finished from the end's PGN).
    assert live == json.loads((state / "tcec" / "live.json").read_text(encoding="utf-8"))
