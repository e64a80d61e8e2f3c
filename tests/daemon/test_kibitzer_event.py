"""A kibitzer on a real event: Stockfish follows the games of two bundled Python
engines (deterministic, paced so that a game lasts a few seconds) through
``tcecd run`` with a real Mosquitto.

One run shows it all, in order: the kibitzer's retained topic and TCEC's files
(``data.json``, ``liveeval.json``) are filled while the game runs; the
kibitzer, killed by the pid the state directory records for it, is restarted
(no strike, nothing in the store); after a SIGKILL of the daemon no process of
the event is left, the kibitzer included; the event resumes to its end, and
its games are those of the same event without a kibitzer.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tcecd.config.engines import EngineConfig
from tcecd.runner.reaper import ENV_MARK, FILE_NAME
from tests.daemon.helpers import (
    ROOT,
    live_processes_with,
    normalise_pgn,
    run_env,
    run_tcecd,
    tcecd_argv,
    write_config,
)
from tests.fixtures.mosquitto import MosquittoBroker

pytestmark = [pytest.mark.slow, pytest.mark.mosquitto, pytest.mark.stockfish]

#: Two deterministic players, paced (the same moves, ~0.1 s each).
ENGINES = ("{ref: ab-d1, options: {Pace: 100}}", "{ref: ab-d1-noisy, options: {Pace: 100}}")
KIBITZER = ("kibitzers: [{ref: stockfish, name: Kibitz, nice: 10,"
            " options: {Threads: 1, Hash: 16, UCI_ShowWDL: true}}]\n")
SLUG = "kill-test"


class Stream:
    """Every message under the event's root, in arrival order."""

    def __init__(self, broker: MosquittoBroker) -> None:
        import paho.mqtt.client as mqtt

        self.messages: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, *a: c.subscribe(f"tcecd/{SLUG}/#", qos=1)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def _on_message(self, client: Any, userdata: Any, m: Any) -> None:
        try:
            doc = json.loads(m.payload) if m.payload else None
        except ValueError:
            return  # the publisher's own marker, not an event document
        if isinstance(doc, dict):
            with self.lock:
                self.messages.append((m.topic.split("/", 2)[2], doc))

    def kinds(self, name: str) -> list[dict[str, Any]]:
        with self.lock:
            return [doc for topic, doc in self.messages if topic.split("/")[-1] == name]

    def reports(self) -> list[dict[str, Any]]:
        with self.lock:
            return [doc for topic, doc in self.messages if topic == "kibitzer/0"]

    def ended(self, game: str) -> bool:
        return any(doc["game"] == game for doc in self.kinds("end"))

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def wait_for(predicate: Any, what: str, timeout_s: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return value


def log_lines(path: Path, event: str) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            doc = json.loads(line)
            if doc.get("event") == event:
                out.append(doc)
    return out


def recorded(state: Path) -> dict[str, Any]:
    """The state directory's record of engine process groups (tcecd.runner.reaper)."""
    return dict(json.loads((state / FILE_NAME).read_text()))


def marked(token: str) -> list[int]:
    """Live processes carrying the event's mark (every engine and helper of its runs)."""
    return sorted(live_processes_with(f"{ENV_MARK}={token}"))


def nice_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[16])


def when(ts: str) -> datetime:
    return datetime.fromisoformat(ts)


def test_a_kibitzer_follows_a_real_event(
    tmp_path: Path, mosquitto: MosquittoBroker, stockfish_config: EngineConfig
) -> None:
    del stockfish_config  # (skips without Stockfish)
    cfg = write_config(tmp_path / "kib", engines=ENGINES, rounds=1, double=True, max_moves=20,
                       concurrency=1, mqtt=mosquitto.url, extra=KIBITZER)
    state = cfg.parent / "state"
    tcec = state / "tcec"
    log = tmp_path / "daemon.log"
    # The same event without a kibitzer, played meanwhile (its engines mostly wait).
    ref = write_config(tmp_path / "ref", engines=ENGINES, rounds=1, double=True, max_moves=20,
                       concurrency=1)
    plain = subprocess.Popen(tcecd_argv(ref), cwd=ROOT, env=run_env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stream = Stream(mosquitto)
    with log.open("w") as err:
        daemon = subprocess.Popen(tcecd_argv(cfg), cwd=ROOT, env=run_env(),
                                  stdout=subprocess.DEVNULL, stderr=err)
    try:
        # 1. During the first game: the retained topic and TCEC's files.
        report = wait_for(lambda: next((r for r in stream.reports() if r["game"] == "1.1"),
                                       None), "a kibitzer report on game 1.1")
        assert not stream.ended("1.1")  # (the messages arrive in order)
        assert (report["engine"], report["kibitzer"], report["desc"]) == (
            "Kibitz", 0, "Threads 1, Hash 16")
        assert report["eval"]["text"]
        assert report["pv"]
        assert report["depth"] is not None

        def files_now() -> tuple[dict[str, Any], dict[str, Any]] | None:
            try:
                data = json.loads((tcec / "data.json").read_text())
                history = json.loads((tcec / "liveeval.json").read_text())
            except (OSError, ValueError):
                return None
            return (data, history) if data["round"] == "1.1" else None

        data, history = wait_for(files_now, "data.json and liveeval.json of game 1.1")
        assert not stream.ended("1.1")  # read while the game ran
        assert data["engine"] == "Kibitz"
        assert re.match(r"[0-9]+\.(\.\.)? ?[A-Za-z]", data["pv"])
        assert history["round"] == "1.1"
        assert history["moves"]
        assert {"pv", "eval", "depth", "nodes", "speed", "wdl"} <= set(history["moves"][-1])

        # 2. The kibitzer killed by its recorded pid: restarted, reporting again.
        started = wait_for(lambda: log_lines(log, "kibitzer started"), "the kibitzer's start")
        first = started[0]["pid"]
        assert str(first) in recorded(state)["groups"]
        assert nice_of(first) == 10
        os.kill(first, signal.SIGKILL)
        again = wait_for(lambda: log_lines(log, "kibitzer started")[1:], "the restart", 30)
        second = again[0]["pid"]
        assert second != first
        crashed = log_lines(log, "kibitzer crashed; restarting it")
        assert [(c["pid"], c["kind"]) for c in crashed] == [(first, "crash")], [
            line for line in log.read_text(errors="replace").splitlines() if "kibitzer" in line]
        assert str(second) in recorded(state)["groups"]
        restarted = when(again[0]["timestamp"])
        wait_for(lambda: [r for r in stream.reports() if when(r["ts"]) > restarted
                          and not stream.ended(r["game"])], "a report after the restart")

        # 3. SIGKILL of the daemon mid-game: no engine of the event survives it.
        token = recorded(state)["token"]
        assert second in marked(token)
        daemon.kill()
        daemon.wait(timeout=10)
        wait_for(lambda: not marked(token), "the event's engines to die with the daemon", 10)
        assert not stream.kinds("fault")
        assert not stream.kinds("disqualified")

        # 4. Resumed to its end; its games are those of the same event without a kibitzer.
        done = run_tcecd(cfg)
        assert done.returncode == 0, done.stderr[-2000:]
        assert stream.ended("1.2")
        _, plain_err = plain.communicate(timeout=120)
        assert plain.returncode == 0, plain_err[-2000:]
    finally:
        for proc in (daemon, plain):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        stream.close()
    ours = normalise_pgn((state / "event.pgn").read_text())
    assert ours == normalise_pgn((ref.parent / "state" / "event.pgn").read_text())
    assert ours.count("[Round ") == 2
    crosstable = json.loads((tcec / "crosstable.json").read_text())
    assert all(row["Strikes"] == 0 for row in crosstable["Table"].values())
    assert json.loads((tcec / "crash.json").read_text()) == []
    assert not stream.kinds("fault")
    late = Stream(mosquitto)  # a late subscriber gets the last report, retained
    try:
        last = wait_for(late.reports, "the retained kibitzer report", 10)[-1]
        assert last["game"] == "1.2"
        assert last["engine"] == "Kibitz"
    finally:
        late.close()
