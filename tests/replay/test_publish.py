"""Re-streaming a replayed event: the domain events, and a real broker."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from tcecd.bus.settings import MqttSettings
from tcecd.cli import main
from tcecd.domain import GameId
from tcecd.errors import BusError
from tcecd.events import (
    EventFinished,
    EventStarted,
    GameFinished,
    GameStarted,
    MovePlayed,
    RoundPaired,
    StandingsUpdated,
)
from tcecd.pairing.standings import standings
from tcecd.replay.event import ReplayedEvent, rebuild_from_pgn
from tcecd.replay.publish import StandingsFn, publish_replay, replay_events
from tests.fixtures.mosquitto import MosquittoBroker
from tests.fixtures.replay_pgn import sample_moves, simulate_event, tcecd_pgn


def replayed(tmp_path: Path, players: int = 5, rounds: int = 2) -> ReplayedEvent:
    _, games, _ = simulate_event(players, rounds)
    path = tmp_path / "event.pgn"
    path.write_text(tcecd_pgn(games))
    return rebuild_from_pgn(path)


def standings_of(event: ReplayedEvent) -> StandingsFn:
    return lambda rounds: standings(event.players, rounds, double=event.double)


def test_domain_events_in_live_order(tmp_path: Path) -> None:
    event = replayed(tmp_path)
    items = list(replay_events(event, standings_of(event)))
    kinds = [type(e).__name__ for _, e in items]
    game = ["GameStarted", *["MovePlayed"] * 4, "GameFinished"]
    # 5 players: two games a round, one BYE.
    assert kinds == [
        "EventStarted", "StandingsUpdated",
        "RoundPaired", *game, *game, "StandingsUpdated",
        "RoundPaired", *game, *game, "StandingsUpdated",
        "EventFinished",
    ]  # fmt: skip
    started = items[0][1]
    assert isinstance(started, EventStarted)
    assert started.players == event.players
    assert started.rounds == 2
    assert started.double is False
    assert started.time_control == "60+1"
    paired = items[2][1]
    assert isinstance(paired, RoundPaired)
    assert paired.pairing.bye == event.rounds[0].bye
    first = items[3][1]
    assert isinstance(first, GameStarted)
    assert first.game_id == GameId(1, 1)
    assert (first.white_clock_ms, first.black_clock_ms) == (60_000, 60_000)

    # Moves wait their recorded move time (book moves: none).
    moves = [(d, e) for d, e in items[4:8]]
    assert [d for d, _ in moves] == [0, 1002, 1003, 1004]
    plies = [e for _, e in moves]
    assert all(isinstance(e, MovePlayed) for e in plies)
    assert tuple(e.move for e in plies if isinstance(e, MovePlayed)) == sample_moves()
    last = plies[-1]
    assert isinstance(last, MovePlayed)
    # Clocks: White's after its 2. Nf3 (ply 3: 60000 - 1500), Black's after 2... Nc6.
    assert (last.white_clock_ms, last.black_clock_ms) == (58_500, 58_000)

    finished = items[8][1]
    assert isinstance(finished, GameFinished)
    assert finished.record.result is event.rounds[0].games[0].result
    assert '[Round "1.1"]' in finished.pgn
    end = items[-1][1]
    assert isinstance(end, EventFinished)
    after = items[-2][1]
    assert isinstance(after, StandingsUpdated)
    assert after.after_round == 2
    assert end.standings == after.standings


def test_unfinished_event_has_no_finish(tmp_path: Path) -> None:
    _, games, _ = simulate_event(4, 2)
    path = tmp_path / "event.pgn"
    path.write_text(tcecd_pgn(games[:3]))
    event = rebuild_from_pgn(path)
    kinds = [type(e).__name__ for _, e in replay_events(event, standings_of(event))]
    assert "EventFinished" not in kinds
    assert kinds.count("GameFinished") == 3
    assert kinds[-1] == "GameFinished"


class Viewer:
    """An MQTT subscriber keeping every (topic, payload) it receives."""

    def __init__(self, host: str, port: int, topic: str) -> None:
        self.host, self.port, self.topic = host, port, topic
        self.got: list[tuple[str, Any]] = []
        self.ready = asyncio.Event()
        self.changed = asyncio.Event()

    async def run(self) -> None:
        async with aiomqtt.Client(self.host, self.port, timeout=10) as client:
            await client.subscribe(self.topic, qos=1)
            self.ready.set()
            async for m in client.messages:
                payload = m.payload if isinstance(m.payload, bytes) else b""
                self.got.append((str(m.topic), json.loads(payload) if payload else None))
                self.changed.set()

    def count(self, suffix: str) -> int:
        return sum(1 for t, _ in self.got if t.endswith(suffix))

    async def wait_for(self, ends: int) -> None:
        """Until ``ends`` game results and the finish arrived (30 s guards a hang)."""
        async with asyncio.timeout(30):
            while self.count("/end") < ends or not self.count("/finished"):
                self.changed.clear()
                await self.changed.wait()


@pytest.mark.mosquitto
async def test_publish_to_a_real_broker(tmp_path: Path, mosquitto: MosquittoBroker) -> None:
    event = replayed(tmp_path, players=4, rounds=2)
    viewer = Viewer(mosquitto.host, mosquitto.port, "tcecd/#")
    task = asyncio.create_task(viewer.run())
    try:
        async with asyncio.timeout(30):
            await viewer.ready.wait()
        count = await publish_replay(
            event, MqttSettings.from_url(mosquitto.url), standings_of(event), speed=0
        )
        # EventStarted, standings before round 1, then per round: the pairing,
        # 2 x (start, 4 moves, end), standings; finally EventFinished.
        assert count == 2 + 2 * (1 + 2 * 6 + 1) + 1
        await viewer.wait_for(ends=4)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    got = viewer.got
    root = "tcecd/tcecd-sim/"
    topics = [t for t, _ in got]
    assert root + "event" in topics
    assert root + "round/1/pairing" in topics
    assert root + "round/2/pairing" in topics
    moves = [doc for t, doc in got if t.endswith("/move")]
    assert len(moves) == 4 * 4  # every ply of every game, none dropped
    end_docs = {t: doc for t, doc in got if t.endswith("/end")}
    for g in event.games:
        doc = end_docs[f"{root}game/{g.game_id}/end"]
        assert doc["result"] == g.result.value
    crosstables = [doc for t, doc in got if t == root + "crosstable"]
    # The TCEC crosstable follows every standings update; the last one counts
    # every game (4 players x 2 rounds).
    tcec = [doc["crosstable"] for doc in crosstables if doc.get("format") == "tcec"]
    assert tcec
    assert sum(row["Games"] for row in tcec[-1]["Table"].values()) == 8
    standings_docs = [doc for t, doc in got if t == root + "standings"]
    assert standings_docs[-1]["final"] is True


@pytest.mark.mosquitto
def test_cli_publish_leaves_the_retained_state(
    tmp_path: Path, mosquitto: MosquittoBroker, capsys: pytest.CaptureFixture[str]
) -> None:
    _, games, _ = simulate_event(4, 1)
    path = tmp_path / "event.pgn"
    path.write_text(tcecd_pgn(games))
    code = main(["replay", str(path), "--publish", "--mqtt", mosquitto.url, "--speed", "0"])
    assert code == 0
    # EventStarted, standings before round 1, the pairing, 2 x (start, 4 moves,
    # end), standings after round 1, EventFinished.
    assert f"published 17 events to {mosquitto.url}" in capsys.readouterr().out

    async def late_viewer() -> list[str]:
        viewer = Viewer(mosquitto.host, mosquitto.port, "tcecd/tcecd-sim/#")
        task = asyncio.create_task(viewer.run())
        try:
            await viewer.wait_for(ends=2)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return [t for t, _ in viewer.got]

    topics = asyncio.run(late_viewer())
    for suffix in ("event", "schedule", "round/1/pairing", "game/1.1/end", "game/1.2/end",
                   "standings", "finished"):  # fmt: skip
        assert f"tcecd/tcecd-sim/{suffix}" in topics


async def test_pacing_divides_move_times_by_speed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tcecd.replay.publish as publish_module
    from tests.fixtures.mosquitto import free_port

    slept: list[float] = []

    async def record(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(publish_module, "_sleep", record)
    event = replayed(tmp_path, players=4, rounds=1)
    # No broker listens there: moves are still paced (the queue takes them),
    # and the replay ends with an error once it has waited for the broker.
    settings = MqttSettings.from_url(f"mqtt://127.0.0.1:{free_port()}")
    with pytest.raises(BusError, match=r"did not take the replay within 0\.1 s \(\d+ messages"):
        await publish_replay(event, settings, standings_of(event), speed=4, flush_timeout_s=0.1)
    # Two games; in each the book move waits nothing, the engine moves their
    # recorded mt (1002, 1003, 1004 ms) divided by 4.
    assert slept == pytest.approx([1.002 / 4, 1.003 / 4, 1.004 / 4] * 2)
