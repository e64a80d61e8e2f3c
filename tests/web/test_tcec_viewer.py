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
