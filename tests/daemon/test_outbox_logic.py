"""The daemon's outbox, in-process with a scripted game player (no engines): a
state written without MQTT gets every result, pairing and standings added when
MQTT is turned on, and the end of a run waits for them a bounded time and says
how many are left."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import structlog

from tcecd.bus.settings import MqttSettings
from tcecd.daemon import run_event_async
from tcecd.daemon.crash import CrashPoints
from tcecd.execution.job import GameJob, GameResult
from tcecd.store import EventStore
from tests.daemon.test_runner_logic import ScriptedPlayer, _game, _record, _settings
from tests.fixtures.mosquitto import free_port

# 4 players, 2 single rounds (the scripted settings): 2 pairings, 4 results, the
# standings after rounds 1 and 2, the final standings and `finished`.
MUST_DELIVER = {"pairing 1", "pairing 2", "end 1.1", "end 1.2", "end 2.1", "end 2.2",
                "standings 1", "standings 2", "standings final", "finished"}  # fmt: skip


async def play(job: GameJob) -> GameResult:
    """Every game ends at once, White winning."""
    return GameResult(_record(job.game_id, _game(job)))


async def _run(settings: Any) -> list[dict[str, Any]]:
    """Run the event; its log lines, whatever level an earlier test configured."""
    before = structlog.get_config()
    structlog.reset_defaults()
    try:
        with structlog.testing.capture_logs() as logs:
            rc = await run_event_async(settings, out=io.StringIO(), crash=CrashPoints(),
                                       install_signals=False,
                                       player=ScriptedPlayer(play))  # fmt: skip
    finally:
        structlog.configure(**before)
    assert rc is True  # complete
    return logs


def _outbox(state: Path) -> dict[str, bool]:
    with EventStore(state) as store:
        pending = {e.key for _, e in store.outbox_pending()}
        return {k: k not in pending for k in store.outbox_keys()}


async def test_no_mqtt_no_outbox_then_mqtt_later_sends_everything(
    tmp_path: Path
) -> None:
    settings = _settings(tmp_path)
    await _run(settings)  # no MQTT: nothing kept for a broker
    assert _outbox(tmp_path) == {}
    # Resumed (the event is over) with a broker configured that is not there, and
    # no time to wait: the whole event's must-deliver messages are added to the
    # state, not acknowledged, and one warning counts them.
    mqtt = MqttSettings.from_url(f"mqtt://127.0.0.1:{free_port()}", delivery_timeout_s=0.0)
    logs = await _run(replace(settings, mqtt=mqtt))
    assert _outbox(tmp_path) == dict.fromkeys(MUST_DELIVER, False)
    [warning] = [e for e in logs if "not delivered" in e["event"]]
    assert (warning["log_level"], warning["undelivered"]) == ("warning", 10)
    resent = [e for e in logs if e["event"].startswith("re-sending")]
    assert resent[0]["messages"] == 8  # all but the final two, added at the event's end
    # Once more: nothing is added twice; the same 10 wait.
    logs = await _run(replace(settings, mqtt=mqtt))
    assert _outbox(tmp_path) == dict.fromkeys(MUST_DELIVER, False)
    assert [e["messages"] for e in logs if e["event"].startswith("re-sending")] == [10]


async def test_a_lost_round_standings_row_is_added_again(tmp_path: Path) -> None:
    """As after a SIGKILL between a round's last game and its standings row."""
    mqtt = MqttSettings.from_url(f"mqtt://127.0.0.1:{free_port()}", delivery_timeout_s=0.0)
    settings = _settings(tmp_path, mqtt=mqtt)
    await _run(settings)
    with EventStore(tmp_path) as store:
        store._db.execute("DELETE FROM outbox WHERE key = 'standings 1'")
    await _run(settings)
    assert _outbox(tmp_path) == dict.fromkeys(MUST_DELIVER, False)
