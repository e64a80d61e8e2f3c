"""A fresh event that reuses an earlier event's topic root (same event name) must
not show the earlier event's retained state; a resume must keep its own.

Against a real Mosquitto and the embedded amqtt fallback: the "earlier event" is a whole
sample event published by a first Publisher (pairings, results, ``finished`` ...),
then a second Publisher starts the same event name fresh or as a resume.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from tcecd.bus.embedded import embedded_broker
from tcecd.bus.payloads import Projection
from tcecd.bus.publisher import Publisher
from tcecd.bus.settings import MqttSettings
from tcecd.events import RoundPaired
from tcecd.watch.model import Watcher
from tests.bus.helpers import Collector, bus_log, retained
from tests.bus.sample import all_events, pairing, start_events
from tests.daemon.helpers import run_tcecd, write_config

ROOT = "tcecd/bus-test"
OTHER = "tcecd/another-event/finished"  # another event's root: never touched
TS = "2026-11-22T05:00:00.000Z"


def publisher(url: str, **kw: Any) -> Publisher:
    return Publisher(MqttSettings.from_url(url), event="Bus Test", backoff_initial_s=0.05,
                     backoff_max_s=0.3, **kw)


async def earlier_event(url: str, host: str, port: int) -> dict[str, bytes]:
    """Publish a whole finished event under ROOT and another event's retained
    message; return the retained state a late subscriber then sees."""
    async with publisher(url, fresh_event=True) as pub:
        for e in all_events():
            pub.publish(e)
        assert await pub.flush(20)
    async with aiomqtt.Client(host, port, timeout=5) as c:
        await c.publish(OTHER, b'{"winner":"X"}', qos=1, retain=True)
    before = await retained(host, port)
    # The sample event really left the state the bug report describes.
    for level in ("finished", "round/2/pairing", "game/2.2/end", "game/1.1/start",
                  "schedule", "engine/D/state", "status"):
        assert f"{ROOT}/{level}" in before, level
    return before


def event_doc(state: dict[str, bytes]) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(state[f"{ROOT}/event"])
    return doc


async def fresh_start_clears(url: str, host: str, port: int) -> None:
    before = await earlier_event(url, host, port)
    old_run = event_doc(before)["run_id"]
    async with publisher(url, fresh_event=True) as pub:
        for e in [*start_events(), RoundPaired(pairing(1))]:
            pub.publish(e)
        assert await pub.flush(20)
        after = await retained(host, port)
        # Every retained topic of the earlier event was found and deleted once.
        assert sorted(pub.cleared) == sorted(t for t in before if t.startswith(ROOT + "/"))
    # Only what the new event published (start, standings after round 0, round 1
    # paired) is left under the root; the other event is untouched.
    assert sorted(after) == sorted([
        OTHER, f"{ROOT}/status", f"{ROOT}/event", f"{ROOT}/standings", f"{ROOT}/crosstable",
        f"{ROOT}/round/1/pairing", f"{ROOT}/schedule",
    ])
    assert after[OTHER] == before[OTHER]
    assert json.loads(after[f"{ROOT}/standings"])["after_round"] == 0
    sched = json.loads(after[f"{ROOT}/schedule"])["games"]
    assert {g["game"] for g in sched} == {"1.1", "1.2"}
    assert all(g["result"] is None for g in sched)  # none played in the new event
    new_run = event_doc(after)["run_id"]
    assert new_run == pub.run_id
    assert new_run
    assert new_run != old_run


@pytest.mark.mosquitto
async def test_fresh_event_clears_stale_retained_state_mosquitto(mosquitto: Any) -> None:
    await fresh_start_clears(mosquitto.url, "127.0.0.1", mosquitto.port)


async def test_fresh_event_clears_stale_retained_state_amqtt(tmp_path: Path) -> None:
    wanted = MqttSettings(url="mqtt://127.0.0.1:0", embedded=True, embedded_broker="amqtt",
                          embedded_ws_port=None)
    async with embedded_broker(wanted, tmp_path, log=bus_log()) as settings:
        await fresh_start_clears(settings.url, settings.host, settings.port)


@pytest.mark.mosquitto
async def test_resume_keeps_the_retained_state(mosquitto: Any) -> None:
    host, port = "127.0.0.1", mosquitto.port
    before = await earlier_event(mosquitto.url, host, port)
    async with publisher(mosquitto.url) as pub:  # a resume: fresh_event not set
        assert pub.run_id is None
        for e in start_events():
            pub.publish(e)
        assert await pub.flush(20)
        after = await retained(host, port)
    assert pub.cleared == []
    assert set(before) <= set(after)
    for level in ("finished", "round/2/pairing", "game/2.2/end", "engine/D/state"):
        assert after[f"{ROOT}/{level}"] == before[f"{ROOT}/{level}"], level
    assert event_doc(after)["run_id"] is None


@pytest.mark.mosquitto
async def test_connected_viewer_drops_the_earlier_event(mosquitto: Any) -> None:
    """A viewer subscribed across both events shows only the new one."""
    host, port = "127.0.0.1", mosquitto.port
    async with Collector(host, port) as c:
        await c.wait_until(lambda c: c.subscriptions >= 1)
        await earlier_event(mosquitto.url, host, port)
        await c.wait_until(lambda c: any(t.endswith("/finished") for t, _, _ in c.got))
        async with publisher(mosquitto.url, fresh_event=True) as pub:
            pub.publish(start_events()[0])
            assert await pub.flush(20)
        await c.wait_until(lambda c: bool(c.docs("/event")) and
                           c.docs("/event")[-1]["run_id"] == pub.run_id)
        w = Watcher("tcecd", "bus-test")
        for topic, payload, _ in c.got:
            w.apply(topic, payload)
    view = w.selected
    assert view is not None
    assert view.run_id == pub.run_id
    assert view.finished is None
    assert view.pairings == {}
    assert view.games == {}
    assert view.standings is None
    assert view.meta is not None
    assert view.meta["run_id"] == pub.run_id


# -- the view-model alone --------------------------------------------------------------


def feed(w: Watcher, run_id: str | None, events: list[Any]) -> None:
    p = Projection(ROOT, "Bus Test", run_id=run_id)
    for e in events:
        for m in p.messages_for(e, TS):
            w.apply(m.topic, m.payload)


def test_view_resets_on_a_new_run_id_only() -> None:
    w = Watcher("tcecd")
    feed(w, "run-a", all_events())
    view = w.selected
    assert view is not None
    assert view.finished is not None
    assert view.pairings.keys() == {1, 2}
    w.apply(f"{ROOT}/status", json.dumps({"schema": 1, "type": "status", "state": "online"})
            .encode())
    # A resume of the same instance (run_id null): nothing is forgotten.
    feed(w, None, start_events())
    assert view.run_id == "run-a"
    assert view.finished is not None
    assert view.pairings.keys() == {1, 2}
    # A new instance: the earlier one's pairings, games and result are gone.
    feed(w, "run-b", [*start_events(), RoundPaired(pairing(1))])
    assert view.run_id == "run-b"
    assert view.finished is None
    assert view.pairings.keys() == {1}
    assert view.games == {}
    assert view.status == "online"  # the daemon status is not the event's
    assert view.meta is not None
    assert view.meta["run_id"] == "run-b"


def test_late_viewer_keeps_retained_state_that_precedes_the_event_document() -> None:
    """A broker may send retained messages in any order: the first run_id seen
    must not wipe the same instance's pairing that arrived before it."""
    w = Watcher("tcecd")
    feed(w, "run-a", [RoundPaired(pairing(1))])
    feed(w, "run-a", start_events())
    view = w.selected
    assert view is not None
    assert view.run_id == "run-a"
    assert view.pairings.keys() == {1}


def test_empty_retained_payloads_delete_what_they_held() -> None:
    w = Watcher("tcecd")
    feed(w, None, all_events())
    view = w.selected
    assert view is not None
    for level in ("finished", "round/2/pairing", "game/2.2/end", "game/2.2/start",
                  "standings", "schedule", "engine/D/state", "event"):
        assert w.apply(f"{ROOT}/{level}", b""), level
    assert view.finished is None
    assert view.pairings.keys() == {1}
    assert "2.2" not in view.games
    assert "2.1" in view.games
    assert view.standings is None
    assert view.schedule == []
    assert view.meta is None
    assert "D" not in view.engines
    # An empty live snapshot still only says "the game ended" (the end message tells).
    assert not w.apply(f"{ROOT}/game/2.1/live", b"")
    assert "2.1" in view.games


# -- the daemon decides fresh vs resume --------------------------------------------------


@pytest.mark.slow
@pytest.mark.mosquitto
def test_tcecd_run_fresh_state_dir_clears_resume_keeps(tmp_path: Path, mosquitto: Any) -> None:
    """``tcecd run`` end to end: a 2-round event, then its resume (same state
    directory: nothing cleared), then a 1-round event of the same name in a new
    state directory: round 2 of the earlier event is gone for a late subscriber."""
    root = "tcecd/kill-test"  # the slug of write_config's event name

    def run(cfg: Path, state: str) -> None:
        done = run_tcecd(cfg, "--state-dir", str(tmp_path / state), "--mqtt", mosquitto.url)
        assert done.returncode == 0, done.stderr[-2000:]

    def now() -> dict[str, bytes]:
        return asyncio.run(retained("127.0.0.1", mosquitto.port, f"{root}/#"))

    two = write_config(tmp_path / "two", rounds=2)
    run(two, "a")
    first = now()
    for level in ("round/2/pairing", "game/2.1/end", "game/2.2/end", "finished"):
        assert f"{root}/{level}" in first, level
    run(two, "a")  # resumes the finished event: republishes, plays nothing
    resumed = now()
    def doc(state: dict[str, bytes], level: str) -> dict[str, Any]:
        d: dict[str, Any] = json.loads(state[f"{root}/{level}"])
        d.pop("ts")  # what the resume re-publishes carries a new time stamp
        return d

    for level in ("round/2/pairing", "game/1.1/end", "game/2.2/end", "finished"):
        assert doc(resumed, level) == doc(first, level), level
    # The resume is the same event instance: it publishes the run_id the first
    # run had (kept in the state), so a viewer that saw either keeps its view.
    first_run = json.loads(first[f"{root}/event"])["run_id"]
    assert first_run
    assert json.loads(resumed[f"{root}/event"])["run_id"] == first_run
    run(write_config(tmp_path / "one", rounds=1), "b")
    fresh = now()
    assert not [t for t in fresh if t.startswith(f"{root}/round/2/")
                or t.startswith(f"{root}/game/2.")]
    assert f"{root}/game/1.1/end" in fresh
    assert json.loads(fresh[f"{root}/standings"])["after_round"] == 1
    assert json.loads(fresh[f"{root}/event"])["rounds"] == 1
    assert json.loads(fresh[f"{root}/event"])["run_id"] not in (None, first_run)
    # Published payloads carry no local paths (the state directory, the config):
    # a subscriber anywhere must not learn the host's file layout.
    assert f"{root}/status" in fresh
    for topic, payload in (*first.items(), *fresh.items()):
        assert str(tmp_path).encode() not in payload, topic
