"""TCEC's own viewer (tcecgui, unmodified but for ``HOST`` in its js/config.js)
served by ``tcecd web --viewer`` follows a tcecd event live: its overview shows
the running game's Round and moves on to the next game without a reload.

Opt-in: tcecgui is not part of tcecd. Set ``TCECD_TCEC_VIEWER`` to a checkout
of it (the folder with index_base.html or index.html and js/config.js)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.helpers import ROOT, run_env, tcecd_argv, write_config
from tests.fixtures.mosquitto import MosquittoBroker, free_port
from tests.web.helpers import Recorder, chrome, wait_for, web_server

pytestmark = [pytest.mark.slow, pytest.mark.mosquitto]

VIEWER = os.environ.get("TCECD_TCEC_VIEWER")


def overview(driver: Any, key: str) -> str:
    """A cell of the viewer's overview table (``#overview``, ``#table-view`` before)."""
    return str(driver.execute_script(
        f"const td = document.querySelector('td[data-x=\"{key}\"]');"
        "return td ? td.textContent : ''"))


@pytest.mark.optional  # on request only: may skip under CI=true (tests/fixtures/requirements.py)
@pytest.mark.skipif(not VIEWER, reason="set TCECD_TCEC_VIEWER to a tcecgui checkout")
def test_tcec_viewer_follows_the_event(tmp_path: Path, mosquitto: MosquittoBroker) -> None:
    assert VIEWER is not None
    viewer = tmp_path / "tcecgui"
    shutil.copytree(VIEWER, viewer, ignore=shutil.ignore_patterns(".git", "node_modules"))
    if not (viewer / "index.html").exists():
        shutil.copy(viewer / "index_base.html", viewer / "index.html")
    port = free_port()
    config = viewer / "js" / "config.js"
    config.write_text(re.sub(r"HOST = '[^']*';", f"HOST = 'http://127.0.0.1:{port}';",
                             config.read_text(), count=1))
    cfg = write_config(tmp_path / "ev", rounds=2, mqtt=mosquitto.url, concurrency=1,
                       max_moves=30)
    rec = Recorder(mosquitto.host, mosquitto.port)
    with web_server(mosquitto.url, "--viewer", str(viewer), port=port) as base:
        daemon = subprocess.Popen(tcecd_argv(cfg), cwd=ROOT, env=run_env(),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        driver = chrome()
        try:
            wait_for(lambda: rec.moves, 30, "the first move")
            driver.get(f"{base}/tcec/index.html")
            first = wait_for(lambda: overview(driver, "round"), 30, "the viewer's Round")
            driver.execute_script("window.tcecdMarker = 1")
            # The viewer moves on to a later game by itself (socket.io `pgn` pushes).
            later = wait_for(lambda: (r := overview(driver, "round")) != first and r, 60,
                             "the next game in the viewer")
            assert driver.execute_script("return window.tcecdMarker") == 1  # no reload
            assert first in {k.split(":")[0] for k in rec.moves}
            assert later in {k.split(":")[0] for k in rec.moves}
            assert float(later) > float(first)
            assert overview(driver, "viewers") == "1"
        finally:
            driver.quit()
            daemon.kill()
            daemon.wait()
            rec.close()


def board_fen(driver: Any) -> str:
    """The position on the viewer's live board (its ``xboards.live``)."""
    return str(driver.execute_script(
        "return (typeof xboards !== 'undefined' && xboards.live) ? xboards.live.fen : ''"))


@pytest.mark.optional  # on request only: may skip under CI=true (tests/fixtures/requirements.py)
@pytest.mark.skipif(not VIEWER, reason="set TCECD_TCEC_VIEWER to a tcecgui checkout")
def test_tcec_viewer_places_the_board_from_the_daemons_files(tmp_path: Path) -> None:
    """Issue 27, defect 6: the viewer served the finished event's state/tcec/ files
    (any static server; no socket) shows the last game's final position, also for a
    game whose first move is Black's (the Ruy Lopez of configs/openings/demo.epd).
    With live.pgn as PGN text it stayed at the start position."""
    import json
    import sys

    import chess

    from tests.daemon.helpers import run_tcecd

    assert VIEWER is not None
    cfg = write_config(tmp_path / "ev", engines=("ab-d1", "ab-d1-noisy"), rounds=1,
                       concurrency=1, max_moves=20)
    done = run_tcecd(cfg)
    assert done.returncode == 0, done.stderr[-2000:]
    site = tmp_path / "site"
    shutil.copytree(VIEWER, site, ignore=shutil.ignore_patterns(".git", "node_modules"))
    if not (site / "index.html").exists():
        shutil.copy(site / "index_base.html", site / "index.html")
    for f in (tmp_path / "ev" / "state" / "tcec").iterdir():
        shutil.copy(f, site / f.name)
    live = json.loads((site / "live.pgn").read_text(encoding="utf-8"))
    assert chess.Board(live["Headers"]["FEN"]).turn == chess.BLACK
    final = live["Moves"][-1]["fen"]
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                               "127.0.0.1", "-d", str(site)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    driver = chrome()
    try:
        wait_for(lambda: _answers(f"http://127.0.0.1:{port}/index.html"), 10, "the site")
        driver.get(f"http://127.0.0.1:{port}/index.html#dev=S")  # no socket
        # The viewer replays a game that starts at ply 1 move by move (~0.3 s a ply).
        wait_for(lambda: board_fen(driver) == final, 60, "the final position on the board")
    finally:
        driver.quit()
        server.terminate()
        server.wait()


def _answers(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=1) as r:
            return bool(r.status == 200)
    except OSError:
        return False
