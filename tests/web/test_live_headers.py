"""The running game's PGN tags from one writer (issue 29): TCEC's feed in ``tcecd web``
shows the tags the daemon's own live.json shows, from the ``start`` message's
``headers``, for a game in which an engine plays under its own time control
(``WhiteTimeControl``/``BlackTimeControl``) and both have ratings. A daemon from
before ``headers`` gets the same tags from the same function, but for the
per-side time controls, which only the daemon knows.

The daemon is killed in the middle of game 1.1 (a test crash point at ply 6; the
engines answer no sooner than 150 ms, so its live.json and its ``start``
message are out by then), which leaves the game's live.json and the retained
``start`` on the broker as they were while it ran.
"""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from tcecd.bus.inbound import parse
from tcecd.web.tcec import TcecFeed
from tests.daemon.helpers import run_tcecd, write_config
from tests.fixtures.mosquitto import MosquittoBroker

pytestmark = [pytest.mark.slow, pytest.mark.mosquitto]

ENGINES = (
    '{ref: ab-d1, name: own-tc, tc: "30+0.5", rating: 2900, options: {Pace: 150}}',
    "{ref: ab-d1-noisy, rating: 2800, options: {Pace: 150}}",
)


def retained(broker: MosquittoBroker, root: str, want: set[str]) -> dict[str, bytes]:
    """The retained payloads under ``root`` (topic levels below it -> payload),
    once those in ``want`` have arrived."""
    import paho.mqtt.client as mqtt

    got: dict[str, bytes] = {}
    done = threading.Event()

    def on_message(client: Any, userdata: Any, m: Any) -> None:
        got[m.topic.removeprefix(root + "/")] = m.payload
        if want <= set(got):
            done.set()

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.on_message = on_message
    client.on_connect = lambda c, *a: c.subscribe(f"{root}/#", qos=1)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        assert done.wait(10), f"retained {sorted(want - set(got))} never came"
    finally:
        client.loop_stop()
        client.disconnect()
    return got


def feed_headers(messages: dict[str, bytes], *, drop_headers: bool = False) -> dict[str, str]:
    """The feed's live game tags after the event and the game's start (checked as
    ``tcecd web`` checks them)."""
    feed = TcecFeed()
    for levels in ("event", "game/1.1/start"):
        doc = parse(levels.split("/"), messages[levels])
        assert doc is not None
        if drop_headers:
            doc = {k: v for k, v in doc.items() if k != "headers"}
        feed.apply(levels.split("/"), doc)
    return dict(feed.docs["pgn"]["Headers"])


def test_feed_shows_the_daemons_live_headers(tmp_path: Path,
                                             mosquitto: MosquittoBroker) -> None:
    cfg = write_config(tmp_path / "ev", engines=ENGINES, rounds=1, mqtt=mosquitto.url,
                       concurrency=1, max_moves=30)
    proc = run_tcecd(cfg, crash_at="mid-game:1.1:ply=6")
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    live = json.loads((tmp_path / "ev" / "state" / "tcec" / "live.json").read_text())
    daemon = live["Headers"]
    # The game that ran, with what makes the tags worth comparing.
    assert (daemon["Round"], daemon["Result"]) == ("1.1", "*")
    assert "Termination" not in daemon
    assert {daemon["WhiteTimeControl"], daemon["BlackTimeControl"]} == {"30+0.5", "60+1"}
    assert {daemon["WhiteElo"], daemon["BlackElo"]} == {"2900", "2800"}
    messages = retained(mosquitto, "tcecd/kill-test", {"event", "game/1.1/start"})
    shown = feed_headers(messages)
    assert shown == daemon
    assert list(shown) == list(daemon)  # in the writer's order too
    # An older daemon's `start` (no `headers`): the same writer's tags from the
    # stream, without the per-side time controls only the daemon knows.
    older = feed_headers(messages, drop_headers=True)
    assert older == {k: v for k, v in daemon.items()
                     if k not in ("WhiteTimeControl", "BlackTimeControl")}
