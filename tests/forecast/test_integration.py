"""The forecast outside its core: config section, daemon settings, the MQTT
payload, ``tcecd watch``'s section, the daemon's background worker and
``tcecd simulate --forecast``."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tcecd.bus.outbox import outbox_key
from tcecd.bus.payloads import Kind, Projection
from tcecd.config.event_file import load_event
from tcecd.daemon.forecast import ForecastWorker
from tcecd.daemon.settings import from_config
from tcecd.errors import ConfigError
from tcecd.events import ForecastUpdated
from tcecd.forecast.forecast import Forecast, ForecastSettings, forecast
from tcecd.forecast.montecarlo import EventSnapshot
from tcecd.pairing.simulation import simulate_event
from tcecd.pairing.state_json import dumps, event_to_json
from tcecd.watch.model import Watcher
from tcecd.watch.render import render
from tests.fixtures.event_config import write_event

TS = "2026-11-22T05:00:00.000Z"


def small_forecast(sims: int = 60) -> Forecast:
    ev = simulate_event(6, 2, seed=3)
    snap = EventSnapshot("tcec-swiss", ev.players, False, ev.rounds, 5)
    return forecast(snap, ForecastSettings(simulations=sims, top=2, seed=7))


def test_config_section_is_off_by_default_and_reaches_the_daemon(tmp_path: Path) -> None:
    off = from_config(load_event(write_event(tmp_path)))
    assert off.forecast is None
    on = from_config(load_event(write_event(
        tmp_path, forecast={"simulations": 300, "top": 2, "seed": 5, "prior_sd": 80,
                            "workers": 2})))
    assert on.forecast is not None
    assert (on.forecast.simulations, on.forecast.top, on.forecast.seed) == (300, 2, 5)
    assert on.forecast.model.prior_sd == 80.0
    assert on.forecast_workers == 2
    defaults = from_config(load_event(write_event(tmp_path, forecast={})))
    assert defaults.forecast == ForecastSettings(simulations=1000, top=1, seed=0)


def test_config_top_beyond_the_field_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"forecast\.top"):
        load_event(write_event(tmp_path, forecast={"top": 99}))


def test_payload_is_a_retained_snapshot_not_in_the_outbox() -> None:
    f = small_forecast()
    (msg,) = Projection("tcecd/x", "X").messages_for(ForecastUpdated(f), TS)
    assert msg.topic == "tcecd/x/forecast"
    assert msg.retain
    assert msg.kind is Kind.SNAPSHOT  # a newer forecast replaces a queued one
    assert outbox_key("forecast", msg) is None
    doc = msg.json()
    assert doc["type"] == "forecast"
    assert doc["schema"] == 1
    assert (doc["after_round"], doc["after_game"], doc["total_rounds"]) == (2, 0, 5)
    assert (doc["simulations"], doc["seed"], doc["top"]) == (60, 7, 2)
    assert set(doc["model"]) == {"kind", "draw_rate", "white_advantage", "prior_sd", "games"}
    assert doc["model"]["games"] == 6
    assert len(doc["players"]) == 6
    for row in doc["players"]:
        assert len(row["places"]) == 6
        assert sum(row["places"]) == pytest.approx(1.0, abs=1e-3)
        assert row["top"] == pytest.approx(sum(row["places"][:2]), abs=1e-3)
    # 5 rounds of 3 games: 15 points in all, whoever wins them.
    assert sum(r["expected_score"] for r in doc["players"]) == pytest.approx(15, abs=0.02)


def test_watch_shows_the_forecast_and_forgets_a_cleared_one() -> None:
    f = small_forecast()
    (msg,) = Projection("tcecd/x", "X").messages_for(ForecastUpdated(f), TS)
    w = Watcher("tcecd")
    w.apply(msg.topic, msg.payload)
    view = w.selected
    assert view is not None
    assert view.forecast is not None
    frame = render(view)
    assert "Forecast after round 2 of 5: 60 simulations" in frame
    assert f.players[0].id in frame.split("Forecast after round", 1)[1]
    w.apply(msg.topic, b"")
    assert "Forecast" not in render(w.selected)


def test_worker_runs_one_at_a_time_and_a_newer_request_supersedes() -> None:
    ev = simulate_event(6, 4, seed=3)
    snaps = [EventSnapshot("tcec-swiss", ev.players, False, ev.rounds[:r], 4) for r in (1, 2, 3)]

    published: list[Forecast] = []

    async def main() -> None:
        worker = ForecastWorker(ForecastSettings(simulations=20), published.append, log=None,
                                pool_factory=lambda n: ThreadPoolExecutor(n))
        worker.request(snaps[0])
        await asyncio.sleep(0.05)  # the first forecast has started (or even finished)
        worker.request(snaps[1])
        worker.request(snaps[2])  # replaces the waiting second request
        await worker.aclose(wait_s=60)

    asyncio.run(main())
    # The first runs; the second never does; the third runs after the first.
    assert [f.after_round for f in published] == [1, 3]


def test_simulate_forecast_prints_a_table(tmp_path: Path) -> None:
    ev = simulate_event(6, 2, seed=1)
    state = tmp_path / "state.json"
    state.write_text(dumps(event_to_json(ev.players, False, ev.rounds)), encoding="utf-8")
    cmd = [sys.executable, "-m", "tcecd", "simulate", "--forecast", str(state),
           "--simulations", "50", "--top", "2"]
    out = subprocess.run([*cmd, "--rounds", "4"], capture_output=True, text=True, check=True)
    assert "Forecast after round 2 of 4: 50 simulations, seed 0" in out.stdout
    assert "Top2%" in out.stdout
    js = subprocess.run([*cmd, "--rounds", "4", "--json"], capture_output=True, text=True,
                        check=True)
    doc: dict[str, Any] = json.loads(js.stdout)
    assert len(doc["players"]) == 6
    bad = subprocess.run(cmd, capture_output=True, text=True)
    assert bad.returncode == 2
    assert "give --rounds" in bad.stderr
    assert "Traceback" not in bad.stderr
