"""TCEC's unmodified viewer (tcecgui) draws the bracket of a 7-engine cup from
the ``Eventcrosstable.json`` and ``tournament.json`` our code writes, in
headless Chromium: during the semi-finals and once the cup is over.

The files are served statically next to the viewer (a stdlib HTTP server on a
free port), as TCEC serves them; the page opens with ``#dev=AS`` (no socket,
no ads), so it reads the files once: ``tournament.json`` 10 s after the page
loads (``TIMEOUT_tables``), then ``Eventcrosstable.json`` since ``cup`` is
non-zero. The second load takes ``tournament.json`` from the viewer's own
cache (60 s) and fetches ``Eventcrosstable.json`` at once.

Opt-in, like tests/web/test_tcec_viewer.py: set ``TCECD_TCEC_VIEWER`` to a
tcecgui checkout (the folder with index_base.html or index.html).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tcecd.formats.knockout import Cup, eventcrosstable_json, tournament_json
from tests.web.helpers import chrome, wait_for

from .helpers import NAMES, cup7

pytestmark = [pytest.mark.slow]

VIEWER = os.environ.get("TCECD_TCEC_VIEWER")

#: Each drawn match: "upper|lower" names, then per place "name score classes".
MATCHES_JS = """
return Array.from(document.querySelectorAll('#bracket .match')).map(m => {
  const cells = Array.from(m.querySelectorAll('.match-grid > vert'));
  const out = [];
  for (let i = 0; i < cells.length; i += 2) {
    const name = cells[i], score = cells[i + 1];
    const cls = ['win', 'loss'].find(c => score.classList.contains(c)) || '';
    out.push([name.textContent.trim(), score.textContent.trim(), cls]);
  }
  return out;
});
"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def static_server(root: Path) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def write_cup(root: Path, cup: Cup) -> None:
    (root / "Eventcrosstable.json").write_text(json.dumps(eventcrosstable_json(cup, NAMES)))
    (root / "tournament.json").write_text(json.dumps(tournament_json("Test Cup", "test-cup")))


def matches(driver: Any) -> list[list[list[str]]]:
    return list(driver.execute_script(MATCHES_JS))


@pytest.mark.optional  # on request only: may skip under CI=true (tests/fixtures/requirements.py)
@pytest.mark.skipif(not VIEWER, reason="set TCECD_TCEC_VIEWER to a tcecgui checkout")
def test_tcec_viewer_draws_the_bracket(tmp_path: Path) -> None:
    assert VIEWER is not None
    root = tmp_path / "tcecgui"
    shutil.copytree(VIEWER, root, ignore=shutil.ignore_patterns(".git", "node_modules"))
    if not (root / "index.html").exists():
        shutil.copy(root / "index_base.html", root / "index.html")
    write_cup(root, cup7("semis"))
    with static_server(root) as base:
        driver = chrome()
        try:
            driver.get(f"{base}/index.html#dev=AS")
            wait_for(lambda: len(matches(driver)) == 8, 40, "the bracket")
            # Quarter-finals (the viewer numbers the places 1-8, 4-5, 2-7, 3-6, as we
            # do), the semi-finals, the final and the viewer's own third-place box.
            assert matches(driver) == [
                [["#1Alpha", "-", "win"], ["#8BYE", "", "loss"]],
                [["#4Delta", "1.5", "win"], ["#5Echo", "0.5", "loss"]],
                [["#2Bravo", "2", "win"], ["#7Golf", "0", "loss"]],
                # 2-2, Charlie advances as the higher seed: marked and carried on.
                [["#3Charlie", "2", "win"], ["#6Foxtrot", "2", "loss"]],
                [["#1Alpha", "1.5", "win"], ["#4Delta", "0.5", "loss"]],
                # Running (0.5-0.5 after game 11, game 12 being played): no winner.
                [["#2Bravo", "0.5", ""], ["#3Charlie", "0.5", ""]],
                [["#1Alpha", "--", ""], ["TBD", "--", ""]],
                [["#4Delta", "--", ""], ["TBD", "--", ""]],
            ]
            assert driver.execute_script(
                "return document.querySelector('#bracket .match-title.active').textContent"
            ) == "#6"

            # The cup is over: Charlie beats Alpha in the final.
            write_cup(root, cup7("finished"))
            driver.refresh()
            wait_for(lambda: (m := matches(driver)) and m[6][1][0] != "TBD", 30,
                     "the finished bracket")
            drawn = matches(driver)
            assert drawn[5] == [["#2Bravo", "0.5", "loss"], ["#3Charlie", "1.5", "win"]]
            assert drawn[6] == [["#1Alpha", "0.5", "loss"], ["#3Charlie", "1.5", "win"]]
            places = driver.execute_script(
                "return Array.from(document.querySelectorAll('#bracket .place'))"
                ".map(p => [p.dataset.s, p.textContent.trim()])")
            assert sorted(places) == [["1", "#2"], ["3", "#1"]]  # seed 3 first, seed 1 second
            rows = driver.execute_script(
                "return Array.from(document.querySelectorAll('#table-event tbody tr'))"
                ".map(r => Array.from(r.cells).map(c => c.textContent.trim()))")
            # The event table (the viewer splits a name's words into elements).
            assert rows[-1][:5] == ["6", "Charliedev", "1.5-0.5", "Alpha1.0", "2"]
            assert rows[2][:5] == ["3", "Charliedev", "2-2", "Foxtrot6", "4"]
            assert len(rows) == 6
        finally:
            driver.quit()
