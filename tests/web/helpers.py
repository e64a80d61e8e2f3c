"""Helpers for the `tcecd web` tests: the server as a subprocess, a headless
Chromium through Selenium, and an MQTT subscriber that notes when each move
message arrived (to compare with when the page showed it)."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.helpers import ROOT
from tests.fixtures.mosquitto import free_port

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None)


@contextlib.contextmanager
def web_server(mqtt_url: str | None, *args: str, port: int | None = None,
               pid: list[int] | None = None, nofile: int | None = None,
               env: dict[str, str] | None = None, python: list[str] | None = None,
               stderr: list[str] | None = None) -> Iterator[str]:
    """``tcecd web`` on ``port`` (default: a free one), following ``mqtt_url`` (None:
    none given, e.g. an event config in ``args``); yields its base URL once it
    answers (and appends its process id to ``pid`` if given). ``nofile``: its
    limit on open files (soft and hard); ``python``: the interpreter's argv
    (default: this one) before ``-m tcecd``; ``stderr``: gets what it wrote
    there, once it stopped."""
    port = port or free_port()
    broker = ["--mqtt", mqtt_url] if mqtt_url is not None else []

    def limit() -> None:
        if nofile is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    proc = subprocess.Popen(
        [*(python or [sys.executable]), "-m", "tcecd", "web", *broker,
         "--listen", f"127.0.0.1:{port}", *args],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limit,
        env=env)
    base = f"http://127.0.0.1:{port}"
    if pid is not None:
        pid.append(proc.pid)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"{base}/state.json", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise RuntimeError(f"tcecd web did not start: {err}") from None
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if stderr is not None and proc.stderr is not None:
            stderr.append(proc.stderr.read().decode(errors="replace"))


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def chrome(width: int = 1280, height: int = 1000) -> Any:
    """A headless Chromium (Debian's chromium + chromium-driver), or skip."""
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("chromium / chromedriver not installed (apt-get install chromium "
                    "chromium-driver; deploy/install.sh --dev does)")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        opts.add_argument(arg)
    return webdriver.Chrome(options=opts, service=Service(CHROMEDRIVER))


class Recorder:
    """Subscribes to ``<prefix>/#`` and notes the wall-clock time (ms) each move
    message ("game:ply", first arrival) and each standings document arrived."""

    def __init__(self, host: str, port: int, prefix: str = "tcecd") -> None:
        import paho.mqtt.client as mqtt

        self.moves: dict[str, float] = {}
        self.standings: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, *a: c.subscribe(f"{prefix}/#", qos=1)
        self.client.connect(host, port)
        self.client.loop_start()

    def _on_message(self, client: Any, userdata: Any, m: Any) -> None:
        now = time.time() * 1000
        parts = m.topic.split("/")
        if not m.payload:
            return
        if parts[-1] == "move":
            doc = json.loads(m.payload)
            with self.lock:
                self.moves.setdefault(f"{doc['game']}:{doc['ply']}", now)
        elif parts[-1] == "standings":
            with self.lock:
                self.standings.append(json.loads(m.payload))

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def wait_for(predicate: Any, timeout: float, what: str, step: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)
