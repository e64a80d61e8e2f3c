"""The outbox: which messages must reach subscribers, how the store keeps them
(with what they announce, all or nothing), and how the publisher reports the
broker's PUBACKs and waits for them at the end (real Mosquitto)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tcecd.bus.outbox import OutboxEntry, entries_of
from tcecd.bus.payloads import Projection
from tcecd.bus.publisher import Publisher
from tcecd.bus.settings import MqttSettings
from tcecd.domain import GameId, Result
from tcecd.errors import BusError, StateError
from tcecd.events import EventFinished, GameFinished, RoundPaired
from tcecd.store import EventStore
from tests.bus.helpers import retained
from tests.bus.sample import all_events, round_events, standings
from tests.fixtures.mosquitto import MosquittoBroker

ROOT = "tcecd/bus-test"


def test_must_deliver_messages_are_results_pairings_and_standings() -> None:
    # The sample event (sample.py): 2 rounds of 2 games, a fault, the end.
    # Must-deliver, in event order: each round's pairing, its two results and
    # the standings after it; then the final standings and `finished`. Not:
    # status/event/schedule/crosstable (re-published in full on every start and
    # reconnect), moves and live snapshots (best effort), faults, and the empty
    # payloads that clear a finished game's live snapshot.
    proj = Projection(ROOT, "Bus Test")
    events = all_events()[2:]  # without EventStarted and the standings before round 1
    keys = [e.key for ev in events for e in entries_of(ROOT, proj.messages_for(ev, "t"))]
    assert keys == [
        "pairing 1", "end 1.1", "end 1.2", "standings 1",
        "pairing 2", "end 2.1", "end 2.2", "standings 2",
        "standings final", "finished",
    ]  # fmt: skip
    proj = Projection(ROOT, "Bus Test")
    game = next(ev for ev in round_events(1) if isinstance(ev, GameFinished))  # game 1.1
    [end] = entries_of(ROOT, proj.messages_for(game, "t"))
    assert (end.topic, end.qos, end.retain) == ("game/1.1/end", 1, True)  # relative to the root
    assert json.loads(end.payload)["result"] == "1-0"


def test_outbox_entries_leave_the_publisher_view_alone() -> None:
    pub = Publisher(MqttSettings.from_url("mqtt://127.0.0.1:1", qos=2), event="Bus Test")
    for ev in [*round_events(1), *round_events(2)]:
        if isinstance(ev, RoundPaired):
            pub.publish(ev)  # (no task: only queued)
    before = json.dumps(pub._projection.schedule)
    queued = pub.pending
    final = pub.outbox_entries(EventFinished(standings(2)))
    assert [e.key for e in final] == ["standings final", "finished"]
    # The final standings say after which round: the last one the publisher saw paired.
    assert json.loads(final[0].payload)["after_round"] == 2
    assert {e.qos for e in final} == {2}  # the configured QoS
    game = next(ev for ev in round_events(1) if isinstance(ev, GameFinished))
    assert [e.key for e in pub.outbox_entries(game)] == ["end 1.1"]
    assert json.dumps(pub._projection.schedule) == before  # no result recorded
    assert pub.pending == queued  # nothing published


def test_delivery_timeout_must_not_be_negative() -> None:
    with pytest.raises(BusError, match="delivery_timeout_s"):
        MqttSettings.from_url("mqtt://h", delivery_timeout_s=-1.0)


# -- the store ----------------------------------------------------------------------------


def _entry(key: str, topic: str = "x") -> OutboxEntry:
    return OutboxEntry(key, topic, key.encode(), 1, True)


def test_store_keeps_the_outbox_with_what_it_announces(tmp_path: Path) -> None:
    from tests.store.test_store import make_record  # a full game record

    rec = make_record(GameId(1, 1), "a", "b", Result.DRAW)
    with EventStore(tmp_path) as store:
        rows = store.commit_game(rec, "pgn", played=True, outbox=[_entry("end 1.1")])
        assert [(e.key, e.payload) for _, e in rows] == [("end 1.1", b"end 1.1")]
        # The same game again fails as a whole: no second outbox row either.
        with pytest.raises(StateError):
            store.commit_game(rec, "pgn", played=True, outbox=[_entry("end 1.1 again")])
        # A key already there is left alone (a resumed run adding it again).
        assert store.add_outbox([_entry("end 1.1"), _entry("standings 1")])[0][1].key == (
            "standings 1"
        )
        assert store.mark_finished(outbox=[_entry("finished")])[0][1].key == "finished"
    with EventStore(tmp_path) as store:  # reopened: durable
        pending = store.outbox_pending()
        assert [e.key for _, e in pending] == ["end 1.1", "standings 1", "finished"]
        store.ack_outbox([pending[0][0], pending[2][0]])
        assert [e.key for _, e in store.outbox_pending()] == ["standings 1"]
        assert store.outbox_keys() == {"end 1.1", "standings 1", "finished"}


# -- the publisher against a real broker --------------------------------------------------


class Acks:
    """Stands in for the store's ``ack_outbox``: records ids and the thread."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.threads: set[bool] = set()

    def __call__(self, ids: Sequence[int]) -> None:
        import threading

        self.threads.add(threading.current_thread() is threading.main_thread())
        self.ids.extend(ids)


@pytest.mark.mosquitto
async def test_rows_are_acknowledged_only_once_the_broker_has_them(
    mosquitto_factory: Callable[..., MosquittoBroker],
) -> None:
    """Broker down: nothing is acknowledged, settle() reports the count. Broker
    back during settle(): it is tried again within a second, although the
    back-off would wait 10 s or more; everything gets there and every row id
    is reported once, from a worker thread."""
    broker = mosquitto_factory(start=False)
    acks = Acks()
    pub = Publisher(MqttSettings.from_url(broker.url), event="Bus Test",
                    backoff_initial_s=20.0, backoff_max_s=60.0, on_acked=acks)  # fmt: skip
    async with pub:
        events = [*round_events(1), *round_events(2), EventFinished(standings(2))]
        next_id = iter(range(100, 200))
        rows_by_key: dict[str, int] = {}
        for ev in events:
            rows = [(next(next_id), e) for e in pub.outbox_entries(ev)]
            rows_by_key.update((e.key, i) for i, e in rows)
            pub.publish(ev, rows)
        # A row left unacknowledged by an earlier run (the daemon queues these first).
        pub.publish_stored([(7, OutboxEntry("end 0.9", "game/0.9/end", b"{}", 1, True))])
        assert len(rows_by_key) == 10
        while pub.attempts < 1:  # noqa: ASYNC110 (polling a plain counter)
            await asyncio.sleep(0.02)
        assert await pub.settle(0.3) == 11  # down: nothing acknowledged
        assert acks.ids == []
        broker.start()
        assert await pub.settle(8.0) == 0
    assert sorted(acks.ids) == sorted([7, *rows_by_key.values()])
    assert acks.threads == {False}
    got = await retained(broker.host, broker.port, f"{ROOT}/#")
    ends = {t.split("/")[-2] for t, p in got.items() if t.endswith("/end") and p}
    assert ends == {"0.9", "1.1", "1.2", "2.1", "2.2"}
    assert json.loads(got[f"{ROOT}/standings"])["final"] is True
