"""A knockout cup run by ``tcecd run`` (the 7-engine cup of tests/daemon/test_cup.py,
publishing to a real Mosquitto), then shown from the broker's retained documents:

* ``tcecd web``'s page draws its bracket in headless Chromium;
* ``tcecd web`` serves TCEC's ``tournament.json`` (``cup`` non-zero) and
  ``Eventcrosstable.json`` over HTTP and pushes the ``bracket`` socket.io event,
  each equal to the file the daemon wrote into its state directory (the feed
  rebuilds the cup from the MQTT ``bracket`` document);
* ``tcecd watch --once`` prints it;
* (opt-in, ``TCECD_TCEC_VIEWER``: a tcecgui checkout) TCEC's unmodified viewer
  draws it from the daemon's own files, and from ``tcecd web --viewer`` with its
  live socket.

The cup, worked out by hand from its PGN (seeds: 1 ab-d1, 2 ab-d1-noisy, 3
ab-d1-n50, 4 ab-d1-n120, 5 ab-d1-n200, 6 ab-d1-n300, 7 ab-d1-n400; the draw
1-BYE, 4-5, 2-7, 3-6): 4-5 and 3-6 draw their two games and both tiebreak
games, the higher seeds advance; 2-7 is 1-0 then a draw (1.5-0.5). Semi-finals:
ab-d1 draws then wins with Black against ab-d1-n120 (1.5-0.5); ab-d1-noisy and
ab-d1-n50 draw four games, the higher seed advances. The final ab-d1 -
ab-d1-noisy: four draws, ab-d1 is champion as the higher seed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.helpers import ROOT, run_tcecd
from tests.daemon.test_cup import write_cup
from tests.fixtures.mosquitto import MosquittoBroker, find_binary, free_port
from tests.web.helpers import chrome, get_json, wait_for, web_server

# One worker for the module: its tests share the cup played once (a module
# fixture; spread over workers it was played once per worker).
pytestmark = [pytest.mark.slow, pytest.mark.mosquitto, pytest.mark.xdist_group("web-cup")]

VIEWER = os.environ.get("TCECD_TCEC_VIEWER")
SLUG = "cup-test"

#: The page's bracket, worked out from the PGN (see the module docstring): per round
#: its heading, then per encounter both places (seed, name, points, won/lost) and
#: the games from the upper place's side.
PAGE_BRACKET = [
    ["Quarter-finals finished", [
        [["1", "ab-d1", "", "won"], ["", "BYE", "", ""], ""],
        [["4", "ab-d1-n120", "2", "won"], ["5", "ab-d1-n200", "2", "lost"], "== | =="],
        [["2", "ab-d1-noisy", "1.5", "won"], ["7", "ab-d1-n400", "0.5", "lost"], "1="],
        [["3", "ab-d1-n50", "2", "won"], ["6", "ab-d1-n300", "2", "lost"], "== | =="]]],
    ["Semi-finals finished", [
        [["1", "ab-d1", "1.5", "won"], ["4", "ab-d1-n120", "0.5", "lost"], "=1"],
        [["2", "ab-d1-noisy", "2", "won"], ["3", "ab-d1-n50", "2", "lost"], "== | =="]]],
    ["Final finished", [
        [["1", "ab-d1", "2", "won"], ["2", "ab-d1-noisy", "2", "lost"], "== | =="]]],
]

BRACKET_JS = """
return Array.from(document.querySelectorAll('#bracket .bround')).map(r => [
  r.querySelector('h3').textContent,
  Array.from(r.querySelectorAll('.enc')).map(e => [
    ...Array.from(e.querySelectorAll('.place')).map(p => [
      p.querySelector('.seed').textContent, p.querySelector('.name').textContent,
      p.querySelector('.score').textContent,
      p.classList.contains('won') ? 'won' : p.classList.contains('lost') ? 'lost' : '']),
    e.querySelector('.marks').textContent])]);
"""


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MosquittoBroker, Path]]:
    """The cup played to its end, its retained documents on a Mosquitto; its state dir."""
    if find_binary("mosquitto") is None:
        pytest.skip("mosquitto binary not found (PATH, /usr/sbin)")
    broker = MosquittoBroker(tmp_path_factory.mktemp("mosquitto"))
    broker.start()
    try:
        cfg = write_cup(tmp_path_factory.mktemp("webcup"))
        with cfg.open("a", encoding="utf-8") as f:
            f.write(f"mqtt: {broker.url}\n")
        proc = run_tcecd(cfg)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "Final standings" in proc.stdout
        yield broker, cfg.parent / "state"
    finally:
        broker.kill()


def test_page_files_and_socketio_show_the_cup(cup: tuple[MosquittoBroker, Path]) -> None:
    broker, state = cup
    tcec = state / "tcec"
    daemon_files = {name: json.loads((tcec / name).read_text(encoding="utf-8"))
                    for name in ("tournament.json", "Eventcrosstable.json")}
    with web_server(broker.url, "--event", SLUG) as base:
        wait_for(lambda: (get_json(f"{base}/state.json")["sections"]["bracket"] or {}).get(
            "champion"), 30, "the finished bracket")
        # TCEC's files, over HTTP: the daemon's own.
        for name, doc in daemon_files.items():
            assert get_json(f"{base}/{name}") == doc, name
            assert get_json(f"{base}/tcec/{name}") == doc, name
        assert daemon_files["tournament.json"]["cup"] != 0
        pushed = asyncio.run(_socketio_documents(base)) if _has_socketio() else None
        driver = chrome()
        try:
            driver.get(base)
            shown = wait_for(lambda: (b := driver.execute_script(BRACKET_JS)) and
                             b[-1][0] == "Final finished" and b, 20, "the bracket on the page")
            info = driver.find_element("id", "bracket-info").text
            crosstable_hidden = driver.execute_script(
                "return document.getElementById('crosstable-panel').hidden")
            note = driver.execute_script(
                "return document.querySelector('#bracket .bround:last-child .note').textContent")
        finally:
            driver.quit()
    assert shown == PAGE_BRACKET
    assert info == ("(7 engines · 2 games an encounter · tiebreak 30+0.5 (at most 2 games) · "
                    "champion: ab-d1)")
    assert crosstable_hidden  # the bracket takes the crosstable's place
    assert note == "2-2 tied after 2 tiebreak games: ab-d1 advances as the higher seed"
    if pushed is not None:
        # What TCEC's viewer gets on connecting: the same documents.
        assert pushed["bracket"] == daemon_files["Eventcrosstable.json"]
        assert pushed["tournament"] == daemon_files["tournament.json"]


def _has_socketio() -> bool:
    try:
        import socketio  # noqa: F401
    except ImportError:
        return False
    return True


async def _socketio_documents(base: str) -> dict[str, Any]:
    """The ``tournament`` and ``bracket`` events a viewer gets when it connects."""
    import socketio

    got: dict[str, Any] = {}
    both = asyncio.Event()
    sio = socketio.AsyncClient(reconnection=False)
    for name in ("tournament", "bracket"):
        def handler(data: Any, name: str = name) -> None:
            got[name] = data
            if len(got) == 2:
                both.set()
        sio.on(name, handler)
    await sio.connect(base)
    try:
        with contextlib.suppress(TimeoutError):  # the asserts say what is missing
            await asyncio.wait_for(both.wait(), 10)
    finally:
        await sio.disconnect()
    return got


def test_watch_once_prints_the_bracket(cup: tuple[MosquittoBroker, Path]) -> None:
    broker, _ = cup
    proc = subprocess.run(
        [sys.executable, "-m", "tcecd", "watch", "--once", "--mqtt", broker.url,
         "--event", SLUG], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    frame = proc.stdout
    start = frame.index("Bracket: ")
    lines = [line.rstrip() for line in frame[start:].splitlines()[:14]]
    assert lines == [
        "Bracket: 7 engines, 2 games an encounter, tiebreak 30+0.5 (at most 2 games); "
        "champion ab-d1",
        "Quarter-finals (finished)",
        "  (1) ab-d1                        BYE                              -> ab-d1",
        "  (4) ab-d1-n120            2-2    (5) ab-d1-n200         == | ==   -> ab-d1-n120",
        "      2-2 tied after 2 tiebreak games: ab-d1-n120 advances as the higher seed",
        "  (2) ab-d1-noisy         1.5-0.5  (7) ab-d1-n400         1=        -> ab-d1-noisy",
        "  (3) ab-d1-n50             2-2    (6) ab-d1-n300         == | ==   -> ab-d1-n50",
        "      2-2 tied after 2 tiebreak games: ab-d1-n50 advances as the higher seed",
        "Semi-finals (finished)",
        "  (1) ab-d1               1.5-0.5  (4) ab-d1-n120         =1        -> ab-d1",
        "  (2) ab-d1-noisy           2-2    (3) ab-d1-n50          == | ==   -> ab-d1-noisy",
        "      2-2 tied after 2 tiebreak games: ab-d1-noisy advances as the higher seed",
        "Final (finished)",
        "  (1) ab-d1                 2-2    (2) ab-d1-noisy        == | ==   -> ab-d1",
    ]


# -- TCEC's own viewer (opt-in) ------------------------------------------------------------

#: What TCEC's viewer draws (the helper of tests/formats/knockout/test_tcec_viewer.py:
#: per place the name with its seed, the score, win/loss): the quarter-finals (its
#: places 1-8, 4-5, 2-7, 3-6, as ours), the semi-finals, the final, its own
#: third-place box (tcecd's cups have none). Ties broken by seed: the winner marked.
VIEWER_BRACKET = [
    [["#1ab-d1", "-", "win"], ["#8BYE", "", "loss"]],
    [["#4ab-d1-n120", "2", "win"], ["#5ab-d1-n200", "2", "loss"]],
    [["#2ab-d1-noisy", "1.5", "win"], ["#7ab-d1-n400", "0.5", "loss"]],
    [["#3ab-d1-n50", "2", "win"], ["#6ab-d1-n300", "2", "loss"]],
    [["#1ab-d1", "1.5", "win"], ["#4ab-d1-n120", "0.5", "loss"]],
    [["#2ab-d1-noisy", "2", "win"], ["#3ab-d1-n50", "2", "loss"]],
    [["#1ab-d1", "2", "win"], ["#2ab-d1-noisy", "2", "loss"]],
]


def _viewer_copy(root: Path) -> Path:
    assert VIEWER is not None
    shutil.copytree(VIEWER, root, ignore=shutil.ignore_patterns(".git", "node_modules"))
    if not (root / "index.html").exists():
        shutil.copy(root / "index_base.html", root / "index.html")
    return root


@pytest.mark.optional  # on request only: may skip under CI=true (tests/fixtures/requirements.py)
@pytest.mark.skipif(not VIEWER, reason="set TCECD_TCEC_VIEWER to a tcecgui checkout")
def test_tcec_viewer_draws_the_cup(cup: tuple[MosquittoBroker, Path], tmp_path: Path) -> None:
    from tests.formats.knockout.test_tcec_viewer import matches, static_server

    broker, state = cup
    # 1. The daemon's own files (state/tcec/), served as TCEC serves them; no socket.
    site = _viewer_copy(tmp_path / "site")
    for f in (state / "tcec").iterdir():
        shutil.copy(f, site / f.name)
    # 2. `tcecd web --viewer`: the viewer's socket points at it (HOST in js/config.js).
    live = _viewer_copy(tmp_path / "live")
    port = free_port()
    config = live / "js" / "config.js"
    config.write_text(re.sub(r"HOST = '[^']*';", f"HOST = 'http://127.0.0.1:{port}';",
                             config.read_text(), count=1))
    drawn: dict[str, Any] = {}
    with static_server(site) as files, web_server(broker.url, "--event", SLUG, "--viewer",
                                                  str(live), port=port) as base:
        driver = chrome()
        try:
            for key, url in (("files", f"{files}/index.html#dev=AS"),
                             ("web", f"{base}/tcec/index.html")):
                driver.get(url)
                drawn[key] = wait_for(
                    lambda: (m := matches(driver)) and len(m) == 8 and m[6][0][0] != "TBD"
                    and m, 60, f"the bracket ({key})")
            # The live viewer is on tcecd web's socket.io feed (its `bracket` push is
            # the file, as the first test shows).
            wait_for(lambda: driver.execute_script(
                "return typeof socket !== 'undefined' && !!socket && socket.connected"), 20,
                "the viewer's socket")
        finally:
            driver.quit()
    for key in ("files", "web"):
        assert drawn[key][:7] == VIEWER_BRACKET, key
