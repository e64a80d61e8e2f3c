"""The live page in a real browser (headless Chromium through Selenium) while
`tcecd run` plays a small event on a real Mosquitto: every move shows within
1 s of its MQTT message, the standings after each round are the daemon's, the
page says when the daemon is offline, and it resumes by itself, without a
reload, when the killed daemon is started again. A screenshot is kept (set
TCECD_WEB_SCREENSHOT=1 to refresh docs/web.png)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.helpers import ROOT, crosstable_summary, run_env, tcecd_argv, write_config
from tests.fixtures.mosquitto import MosquittoBroker
from tests.web.helpers import Recorder, chrome, wait_for, web_server

# solo: "within 1 s of its MQTT message" is a timing assertion, not for the parallel phase.
pytestmark = [pytest.mark.slow, pytest.mark.mosquitto, pytest.mark.solo]

#: What the issue asks: a move on the page within 1 s of its MQTT message.
MAX_DELAY_MS = 1000


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
                # A forecast (another component's retained document) is shown as a table.
                forecast = {"rows": [{"player": "ab-d1", "expected": 1.75,
                                      "places": [0.5, 0.3, 0.15, 0.05]}]}
                rec.client.publish("tcecd/kill-test/forecast", json.dumps(forecast),
                                   qos=1, retain=True)
                assert daemon.wait(120) == 0
                daemon = None
                wait_for(lambda: driver.execute_script(
                    "return window.tcecdStandings.some(s => s.final)"), 10, "final standings")
                assert driver.execute_script("return window.tcecdMarker") == 42  # no reload
                seen: dict[str, float] = driver.execute_script("return window.tcecdSeen")
                shown: list[dict[str, Any]] = driver.execute_script(
                    "return window.tcecdStandings")
                fc = driver.find_element("id", "forecast").text
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
    assert "expected" in fc
    assert "1.750" in fc
    assert "0.5 0.3 0.15 0.05" in fc
