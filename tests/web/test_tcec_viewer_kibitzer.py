"""TCEC's unmodified viewer (tcecgui) shows a kibitzer's panel from the files
``tcecd run`` writes (``live.pgn``, ``data.json``, ``liveeval.json``), in
headless Chromium.

The daemon writes its TCEC files into a copy of the viewer, served statically
(as TCEC serves them); the page opens with ``#dev=AS`` (no socket, no ads), so
it reads the files once. The daemon is paused (SIGSTOP) while the page loads,
right after the kibitzer reported on the position the game stands at, so that
the page and the test read the same files; it is killed afterwards.

Opt-in, like tests/web/test_tcec_viewer.py: set ``TCECD_TCEC_VIEWER`` to a
tcecgui checkout (the folder with index_base.html or index.html).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tcecd.config.engines import EngineConfig
from tests.daemon.helpers import ROOT, run_env, tcecd_argv, write_config
from tests.formats.knockout.test_tcec_viewer import static_server
from tests.web.helpers import chrome, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.stockfish]

VIEWER = os.environ.get("TCECD_TCEC_VIEWER")

#: The first kibitzer's panel (``create_live_table`` in tcecgui's js/game.js).
PANEL_JS = """
const box = document.querySelector('#table-live0');
if (!box) return null;
const text = (sel) => { const n = box.querySelector(sel); return n ? n.textContent.trim() : ''; };
return {name: text('[data-x="name"]'), title: box.querySelector('[data-x="name"]').title,
        eval: text('[data-x="eval"]'), depth: text('[data-x="depth"]'),
        speed: text('[data-x="speed"]'), node: text('[data-x="node"]'),
        pv: text('.live-pv')};
"""


def _ply_of(pv: str) -> int:
    """The analysed ply as the viewer reads it from a numbered PV (``split_move_string``)."""
    first = pv.replace("...", " ... ", 1).split()
    return (int(first[0].rstrip(".")) - 1) * 2 + (1 if first[1] == "..." else 0)


def _in_order(words: list[str], text: str) -> bool:
    """Whether ``words`` appear in ``text`` one after the other."""
    at = 0
    for word in words:
        at = text.find(word, at)
        if at < 0:
            return False
        at += len(word)
    return True


def _files(root: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]] | None:
    try:
        return (json.loads((root / "live.json").read_text()),
                json.loads((root / "data.json").read_text()),
                json.loads((root / "liveeval.json").read_text()))
    except (OSError, ValueError):
        return None


def _current(root: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]] | None:
    """The files, when the kibitzer's report is on the position the game stands at."""
    files = _files(root)
    if files is None:
        return None
    live, data, _ = files
    if data.get("round") != live["Headers"]["Round"] or len(live["Moves"]) < 2:
        return None
    fields = live["Moves"][-1]["fen"].split()  # the position after the last move
    ply = (int(fields[5]) - 1) * 2 + (fields[1] == "b")
    return files if _ply_of(data["pv"]) == ply else None


@pytest.mark.optional  # on request only: may skip under CI=true (tests/fixtures/requirements.py)
@pytest.mark.skipif(not VIEWER, reason="set TCECD_TCEC_VIEWER to a tcecgui checkout")
def test_tcec_viewer_shows_the_kibitzer_panel(
    tmp_path: Path, stockfish_config: EngineConfig
) -> None:
    del stockfish_config  # (skips without Stockfish)
    assert VIEWER is not None
    root = tmp_path / "tcecgui"
    shutil.copytree(VIEWER, root, ignore=shutil.ignore_patterns(".git", "node_modules"))
    if not (root / "index.html").exists():
        shutil.copy(root / "index_base.html", root / "index.html")
    engines = ("{ref: ab-d1, options: {Pace: 1500}}", "{ref: ab-d1-noisy, options: {Pace: 1500}}")
    cfg = write_config(
        tmp_path / "ev", engines=engines, rounds=1, max_moves=30, concurrency=1,
        extra=(f"kibitzers: [{{ref: stockfish, name: Kibitz, nice: 0}}]\n"
               f"outputs: {{state_dir: state, tcec_json_dir: {root}}}\n"))
    # From the start position: a page opened on a game from a position with Black to
    # move replays it ply by ply first (../shared/specs/tcec-formats.md).
    text = cfg.read_text().replace("outputs: {state_dir: state}\n", "", 1)
    cfg.write_text(re.sub(r"openings: .*\n", "", text))
    daemon = subprocess.Popen(tcecd_argv(cfg), cwd=ROOT, env=run_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Paused right after a report on the current position (checked again once paused).
        for _ in range(20):
            wait_for(lambda: _current(root), 60, "a report on the current position")
            daemon.send_signal(signal.SIGSTOP)
            time.sleep(0.3)  # a write under way ends (the files are replaced atomically)
            files = _current(root)
            if files is not None:
                break
            daemon.send_signal(signal.SIGCONT)
        else:
            raise AssertionError("the daemon never paused on a current report")
        live, data, history = files
        with static_server(root) as base:
            driver = chrome()
            try:
                driver.get(f"{base}/index.html#dev=AS")
                panel = wait_for(lambda: (p := driver.execute_script(PANEL_JS)) and p["eval"]
                                 and p["pv"] and p, 40, "the kibitzer panel")
                assert panel["name"] == "Kibitz"
                assert panel["title"] == "Kibitz\nThreads 1, Hash 16"  # name and desc
                assert float(panel["eval"]) == float(data["eval"])
                assert panel["depth"] == data["depth"]
                assert panel["speed"] == data["speed"]
                # The PV from the position the game stands at, move by move.
                sans = [t for t in data["pv"].replace("...", ". ").split() if t[0].isalpha()]
                assert len(sans) > 1
                assert _in_order(sans, panel["pv"])
                assert history["round"] == live["Headers"]["Round"] == data["round"]
                # The eval chart's kibitzer line (dataset 2, beside the players' 0 and 1):
                # from White's point of view at every ply, as data.json's (the history
                # holds the side to move's, which the viewer turns around for Black).
                chart = dict(driver.execute_script(
                    "return chart_data.eval.datasets[2].data.filter(x => x)"
                    ".map(x => [x.ply, x.y])"))
                white = {_ply_of(m["pv"]): float(m["eval"]) * (-1 if _ply_of(m["pv"]) % 2 else 1)
                         for m in history["moves"] if "M" not in m["eval"]}  # (mates: clamped)
                assert white
                assert {ply: y for ply, y in chart.items() if ply in white} == white
                assert chart[_ply_of(data["pv"])] == float(data["eval"])
            finally:
                driver.quit()
    finally:
        daemon.send_signal(signal.SIGKILL)
        daemon.wait()
