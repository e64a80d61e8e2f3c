"""The live page in a real browser (headless Chromium through Selenium) while
`tcecd run` plays a small event on a real Mosquitto: every move shows within
1 s of its MQTT message, the standings after each round are the daemon's, the
page says when the daemon is offline, and it resumes by itself, without a
reload, when the killed daemon is started again. A screenshot is kept (set
TCECD_WEB_SCREENSHOT=1 to refresh docs/web.png)."""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import chess.pgn
import pytest

from tcecd.bus.payloads import Projection
from tcecd.events import ForecastUpdated
from tests.daemon.helpers import ROOT, crosstable_summary, run_env, tcecd_argv, write_config
from tests.fixtures.mosquitto import MosquittoBroker
from tests.forecast.test_integration import small_forecast
from tests.web.helpers import Recorder, chrome, wait_for, web_server

# solo: "within 1 s of its MQTT message" is a timing assertion, not for the parallel phase.
pytestmark = [pytest.mark.slow, pytest.mark.mosquitto, pytest.mark.solo]

#: What the issue asks: a move on the page within 1 s of its MQTT message.
MAX_DELAY_MS = 1000
#: A forecast as the daemon computes it (6 synthetic players).
FORECAST = small_forecast()


def last_game_pgn(state: Path) -> str:
    text = (state / "event.pgn").read_text(encoding="utf-8")
    return "[Event " + text.split("[Event ")[-1]


def badge(driver: Any) -> str:
    return str(driver.execute_script("return document.getElementById('status').dataset.state"))


def test_page_follows_the_event_and_survives_a_daemon_restart(
        tmp_path: Path, mosquitto: MosquittoBroker) -> None:
    cfg = write_config(tmp_path / "ev", rounds=3, mqtt=mosquitto.url, concurrency=1,
                       max_moves=10)
    rec = Recorder(mosquitto.host, mosquitto.port)
    daemon: subprocess.Popen[bytes] | None = None
    try:
        with web_server(mosquitto.url) as base:
            driver = chrome()
            try:
                driver.get(base)
                wait_for(lambda: badge(driver) in ("waiting", "online"), 10, "the page")
                driver.execute_script("window.tcecdMarker = 42")  # gone if the page reloads
                daemon = subprocess.Popen(tcecd_argv(cfg), cwd=ROOT, env=run_env(),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                wait_for(lambda: badge(driver) == "online", 20, "daemon online on the page")
                # Kill the daemon once round 1 is over and round 2 has begun.
                wait_for(lambda: any(s["after_round"] == 1 for s in rec.standings)
                         and any(k.startswith("2.") for k in rec.moves), 60, "round 2")
                daemon.send_signal(signal.SIGKILL)
                daemon.wait()
                # The broker publishes the daemon's Last Will: the page says offline.
                wait_for(lambda: badge(driver) == "offline", 10, "daemon offline on the page")
                daemon = subprocess.Popen(tcecd_argv(cfg), cwd=ROOT, env=run_env(),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                wait_for(lambda: badge(driver) == "online", 20, "daemon back online")
                # A forecast as the daemon publishes it (docs/events.md) is shown as a
                # table (issue 27: the page read `rows`, the daemon sends `players`).
                (forecast,) = Projection("tcecd/kill-test", "kill test").messages_for(
                    ForecastUpdated(FORECAST), "2026-11-22T05:00:00.000Z")
                rec.client.publish(forecast.topic, forecast.payload, qos=1, retain=True)
                assert daemon.wait(120) == 0
                daemon = None
                wait_for(lambda: driver.execute_script(
                    "return window.tcecdStandings.some(s => s.final)"), 10, "final standings")
                assert driver.execute_script("return window.tcecdMarker") == 42  # no reload
                seen: dict[str, float] = driver.execute_script("return window.tcecdSeen")
                shown: list[dict[str, Any]] = driver.execute_script(
                    "return window.tcecdStandings")
                fc = driver.find_element("id", "forecast").text
                last_move = driver.find_element("id", "info-move").text
                heads = driver.execute_script(
                    "return [...document.querySelectorAll('#crosstable th[title]')]"
                    ".map(th => [th.textContent, th.title])")
                badges = driver.execute_script("return window.tcecdBadges")
                skipped = driver.execute_script("return window.tcecdState.mqtt.skipped")
                driver.save_screenshot(str(tmp_path / "web.png"))
                if os.environ.get("TCECD_WEB_SCREENSHOT"):
                    shutil.copy(tmp_path / "web.png", ROOT / "docs" / "web.png")
            finally:
                driver.quit()
    finally:
        if daemon is not None:
            daemon.kill()
            daemon.wait()
        rec.close()

    # Every move of the event (3 rounds x 2 games) was shown, within 1 s of its message.
    games = {k.split(":")[0] for k in rec.moves}
    assert games == {"1.1", "1.2", "2.1", "2.2", "3.1", "3.2"}
    late = {k: seen.get(k, float("inf")) - t for k, t in rec.moves.items()
            if seen.get(k, float("inf")) - t > MAX_DELAY_MS}
    assert not late, f"moves shown late or never (ms): {late}"
    # The standings after each round, as the daemon published them, were on the page.
    for doc in rec.standings:
        rows = [[r["id"], r["score"]] for r in doc["rows"]]
        assert any(s["after_round"] == doc["after_round"] and s["rows"] == rows
                   for s in shown), f"standings after round {doc['after_round']} not shown"
    # ... and the final ones are the daemon's own crosstable.json (order and points).
    final = next(s for s in reversed(shown) if s["final"])
    state = tmp_path / "ev" / "state"
    assert [(n, p) for n, p in final["rows"]] == [(n, s) for n, s, _r in
                                                  crosstable_summary(state)]
    # The forecast: one row per engine, in the daemon's order, with its figures.
    assert "Expected" in fc
    for p in FORECAST.players:
        assert f"{p.name} " in fc
        assert f"{p.expected_score:.2f}" in fc
    assert fc.index(FORECAST.players[0].name) < fc.index(FORECAST.players[-1].name)
    # "Last move" is numbered as the PGN numbers it (issue 27: "96. Rxd4" for 49. Rxd4).
    last = list(chess.pgn.read_game(io.StringIO(last_game_pgn(state))).mainline())[-1]
    number = last.parent.board().fullmove_number
    turn = last.parent.board().turn
    assert last_move == f"{number}{'.' if turn else '...'} {last.san()}"
    # The crosstable's heads: unique, letters and digits, the whole name on hover.
    names = [n for n, _s, _r in crosstable_summary(state)]
    assert sorted(t for _a, t in heads) == sorted(names)
    abbrs = [a.lower() for a, _t in heads]
    assert len(set(abbrs)) == len(abbrs)
    assert all(a.isalnum() for a in abbrs)
    # The page was never told "broker unreachable" (the broker was up all along),
    # and no message of the daemon was skipped as ill-typed.
    assert "down" not in badges, badges
    assert skipped == 0
