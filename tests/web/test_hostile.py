"""Issue 28: what strangers can send `tcecd web`, through the broker and over HTTP.

* Retained documents carrying markup in every text field and values of the
  wrong types, published anonymously on the event's topics: in headless
  Chromium no script runs and no element is made from them, the text shows as
  text, the ill-typed documents are skipped (and counted) by the server, and
  the page's Content-Security-Policy blocks nothing of its own.
* The headers every answer carries; no version banner.
* ``--viewer DIR`` serves the viewer's files only: no dotfile or
  dot-directory, nothing a symbolic link leads out of the folder to.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tcecd.web.http import PAGE_CSP
from tests.fixtures.mosquitto import MosquittoBroker
from tests.web.helpers import chrome, get_json, wait_for, web_server

#: Markup that runs script if it is ever parsed as HTML (each leaves a mark).
XSS = [
    '<img src=x id=pwn1 onerror="window.pwned=1;document.title=\'pwned\'">',
    "<script id=pwn2>window.pwned=2</script>",
    '"><svg id=pwn3 onload="window.pwned=3">',
    "<b id=pwn4>bold</b>&amp;",
]
P = "tcecd/hostile"
TS = "2026-11-22T05:00:00.000Z"


def doc(doc_type: str, **fields: Any) -> bytes:
    return json.dumps({"schema": 1, "type": doc_type, "event": XSS[0], "ts": TS,
                       **fields}).encode()


def hostile_stream() -> tuple[list[tuple[str, bytes]], list[tuple[str, bytes]]]:
    """Retained documents of a whole event, markup in every text field; and
    ill-typed ones (issue 28's payloads), which must be skipped."""
    players = [{"id": "A", "name": XSS[1], "seed": 1, "rating": 3500},
               {"id": "B", "name": XSS[2], "seed": 2, "rating": None}]
    row = {"rank": 1, "id": "A", "score": 1.0, "score_half": 2, "byes": 0, "games": 1,
           "tiebreaks": {XSS[3]: 1.5}}
    row_b = {**row, "rank": 2, "id": "B", "score": 0.0, "score_half": 0, "tiebreaks": {XSS[3]: 0}}
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    places = [{"id": "A", "seed": 1, "score": 0.5, "disqualified": False},
              {"id": "B", "seed": 2, "score": 0.5, "disqualified": False}]
    bracket = {"system": XSS[2], "games": 1, "tiebreak": {"time_control": XSS[2], "max_games": 1},
               "players": 2, "size": 2, "status": XSS[3], "round": 1, "champion": "A",
               "rounds": [{"round": 1, "name": XSS[3], "status": XSS[1], "encounters": [
                   {"encounter": 1, "status": XSS[2], "players": places,
                    "games": [{"game": "1.1", "white": "A", "black": "B",
                               "result": "1/2-1/2", "tiebreak": False, "opening": 0}],
                    "winner": "A", "decision": "seed", "reason": XSS[0]}]}]}
    good = [
        ("status", doc("status", state="online")),
        ("event", doc("event", name=XSS[0], site=XSS[3], system=XSS[1], double=False,
                      rounds=1, time_control=XSS[2], run_id="r1", players=players)),
        ("round/1/pairing", doc("pairing", round=1, bye=None, removed_history_rounds=[],
                                pairs=[{"first": "A", "second": "B"}],
                                games=[{"game": "1.1", "number": 1, "white": "A", "black": "B",
                                        "pair_index": 0, "leg": 1}])),
        ("game/1.1/start", doc("start", game="1.1", round=1, number=1, white="A", black="B",
                               opening={"name": XSS[1], "eco": XSS[3], "fen": None,
                                        "moves": [], "index": None},
                               fen=None, time_control="60+1", start_time=TS,
                               white_clock_ms=60000, black_clock_ms=60000)),
        ("game/1.1/move", doc("move", game="1.1", ply=1, color="white", san="e4", uci="e2e4",
                              fen=fen, book=False, move_time_ms=100, clock_left_ms=59900,
                              eval={"cp": 20, "mate": None, "text": "<i>x</i>"}, depth=3,
                              seldepth=5, nodes=100, nps=1000, tbhits=0, hashfull=0,
                              pv=["e4", "<b id=pwn5>"], ponder=None, r50=50, rd=-1, rr=-1000,
                              white_clock_ms=59900, black_clock_ms=60000)),
        ("engine/A/fault", doc("fault", engine="A", game="1.1", kind=XSS[2], detail=XSS[0],
                               strikes=1)),
        ("engine/A/state", doc("engine", engine="A", strikes=1, disqualified=True,
                               reason=XSS[1])),
        ("standings", doc("standings", after_round=1, final=False, rows=[row, row_b])),
        ("crosstable", doc("crosstable", format="simple", order=["A", "B"], table={
            "A": {**row, "strikes": 1, "disqualified": False,
                  "results": {"B": [{"game": "1.1", "color": "white", "result": "1"}]}},
            "B": {**row_b, "strikes": 0, "disqualified": False,
                  "results": {"A": [{"game": "1.1", "color": "black", "result": "0"}]}}})),
        ("forecast", doc("forecast", after_round=1, after_game=0, total_rounds=1,
                         simulations=1, seed=0, top=1,
                         model={"kind": XSS[0], "draw_rate": 0.5, "white_advantage": 35.0,
                                "prior_sd": 100.0, "games": 1}, players=[
                             {"id": "A", "name": XSS[3], "score": 1.0, "expected_score": 1.0,
                              "expected_place": 1.0, "top": 1.0, "places": [1.0, 0.0],
                              "rating": 3500.0, "prior_rating": 3500.0}])),
        ("finished", doc("finished", winner="A", rows=[row, row_b])),
        ("bracket", doc("bracket", **bracket)),
    ]
    bad = [  # issue 28's payloads: markup where a number belongs
        ("standings", doc("standings", after_round=1, final=True, rows=[
            {**row, "score": XSS[0]}, {**row_b, "rank": "x"}])),
        ("engine/B/state", doc("engine", engine="B", strikes=XSS[0], disqualified=False)),
        ("forecast", doc("forecast", players=[{"id": "A", "expected_score": XSS[0]}])),
        ("game/1.1/move", doc("move", game="1.1", ply=2, san="e5", uci="e7e5", fen=fen,
                              depth=XSS[0])),
        ("bracket", doc("bracket", **{**bracket, "rounds": [{**bracket["rounds"][0],
                                                               "encounters": [{
            **bracket["rounds"][0]["encounters"][0],
            "players": [{**places[0], "score": XSS[0]}, places[1]]}]}]})),
    ]
    return [(f"{P}/{t}", p) for t, p in good], [(f"{P}/{t}", p) for t, p in bad]


@pytest.mark.mosquitto
def test_markup_from_the_stream_shows_as_text_and_runs_nothing(
        mosquitto: MosquittoBroker) -> None:
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)  # anonymous, as in the issue
    client.connect(mosquitto.host, mosquitto.port)
    client.loop_start()
    good, bad = hostile_stream()
    for topic, payload in good:
        client.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
    with web_server(mosquitto.url, "--event", "hostile") as base:
        wait_for(lambda: (s := get_json(f"{base}/state.json")["sections"])["forecast"]
                 and s["bracket"], 20,
                 "the retained stream")
        for topic, payload in bad:  # retained too: they replace the good ones on the broker
            client.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
        client.loop_stop()
        client.disconnect()
        state = wait_for(lambda: (s := get_json(f"{base}/state.json"))["mqtt"]["skipped"] >= 5
                         and s, 20, "the ill-typed documents")
        driver = chrome()
        try:
            driver.get(base)
            wait_for(lambda: driver.find_element("id", "event-name").text == XSS[0], 20,
                     "the event's name on the page")
            wait_for(lambda: "pwn5" in driver.find_element("id", "info-pv").text, 10, "the PV")
            marks = driver.execute_script(
                "return [window.pwned, document.title,"
                " document.querySelectorAll('[id^=pwn]').length,"
                " document.querySelectorAll('img, script:not([src]), iframe').length]")
            # (textContent: the crosstable is hidden while a bracket is shown)
            texts = {k: driver.execute_script(
                "return document.getElementById(arguments[0]).textContent", k) for k in (
                "event-info", "white-name", "black-name", "opening", "standings", "crosstable",
                "engines", "faults", "forecast", "finished", "bracket-panel")}
            console = [e["message"] for e in driver.get_log("browser")]
        finally:
            driver.quit()
    # No script ran, no element was made from the payloads.
    assert marks == [None, f"{XSS[0]} — tcecd live", 0, 0]
    # The text shows as text, wherever it is.
    assert texts["white-name"] == XSS[1]
    assert texts["black-name"] == XSS[2]
    assert texts["opening"] == XSS[1]
    assert XSS[3] in texts["event-info"]
    assert XSS[1] in texts["standings"]
    assert XSS[3] in texts["standings"]  # a tiebreak's name
    assert XSS[2] in texts["crosstable"]
    assert XSS[1] in texts["engines"]
    assert XSS[0] in texts["faults"]
    assert XSS[3] in texts["forecast"]
    assert XSS[1] in texts["finished"]  # the winner's name
    for text in (XSS[0], XSS[1], XSS[2], XSS[3]):  # reason, names, tiebreak TC, round
        assert text in texts["bracket-panel"], text
    # The ill-typed documents were skipped: the page shows the last good ones.
    sections = state["sections"]
    assert sections["standings"]["final"] is False
    assert [r["score"] for r in sections["standings"]["rows"]] == [1.0, 0.0]
    assert sections["forecast"]["players"][0]["expected_score"] == 1.0
    assert [m["san"] for m in sections["game"]["moves"]] == ["e4"]
    assert sections["bracket"]["rounds"][0]["encounters"][0]["places"][0]["score"] == "0.5"
    assert state["mqtt"]["skipped"] == 5
    # The page's own policy blocks none of its own resources (pieces are data: images).
    assert not [m for m in console if "Content Security Policy" in m], console


def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), b""


def test_headers_policy_and_no_version_banner(tmp_path: Path) -> None:
    viewer = tmp_path / "viewer"
    viewer.mkdir()
    (viewer / "index.html").write_text("<p>viewer</p>")
    with web_server("mqtt://127.0.0.1:9", "--viewer", str(viewer)) as base:
        answers = {path: _get(base + path) for path in (
            "/", "/static/app.js", "/state.json", "/live.json", "/tcec/index.html",
            "/nowhere")}
    for path, (_status, headers, _body) in answers.items():
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["Referrer-Policy"] == "no-referrer", path
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], path
        assert headers["Server"] == "tcecd", path  # no aiohttp, Python or versions
    assert answers["/"][0] == 200
    assert answers["/"][1]["Content-Security-Policy"] == PAGE_CSP
    assert "unsafe-inline" not in PAGE_CSP
    assert "script-src 'self'" in PAGE_CSP
    assert answers["/static/app.js"][1]["Content-Security-Policy"] == PAGE_CSP
    assert answers["/tcec/index.html"][0] == 200
    assert answers["/state.json"][1]["Content-Security-Policy"].startswith("default-src 'none'")
    assert answers["/live.json"][0] == 404  # no stream yet
    # The page has no inline script to allow.
    assert b"<script>" not in answers["/"][2]
    assert b" on" not in answers["/"][2].replace(b" one", b"")


def test_viewer_folder_serves_its_files_only(tmp_path: Path) -> None:
    viewer = tmp_path / "tcecgui"
    (viewer / "js").mkdir(parents=True)
    (viewer / "index.html").write_text("<p>viewer</p>")
    (viewer / "js" / "config.js").write_text("HOST = '';")
    (viewer / ".git").mkdir()
    (viewer / ".git" / "config").write_text("[remote] url = secret")
    (viewer / ".env").write_text("TOKEN=secret")
    (viewer / "js" / ".hidden").write_text("secret")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    os.symlink(outside, viewer / "out.txt")  # a link out of the folder
    os.symlink(viewer / ".env", viewer / "env.txt")  # a link in, to a dotfile
    os.symlink(viewer / "js" / "config.js", viewer / "linked.js")  # a link in: fine
    os.symlink(tmp_path, viewer / "up")  # a directory link out
    with web_server("mqtt://127.0.0.1:9", "--viewer", str(viewer)) as base:
        got = {path: _get(base + path) for path in (
            "/tcec/index.html", "/tcec/js/config.js", "/tcec/linked.js",
            "/tcec/.git/config", "/tcec/.env", "/tcec/js/.hidden", "/tcec/%2egit/config",
            "/tcec/js/../.env", "/tcec/%2e%2e/outside.txt", "/tcec/out.txt", "/tcec/env.txt",
            "/tcec/up/outside.txt", "/tcec/", "/tcec/js", "/tcec/js/")}
    ok = {p for p, (status, _h, _b) in got.items() if status == 200}
    assert ok == {"/tcec/index.html", "/tcec/js/config.js", "/tcec/linked.js"}
    for path, (status, _headers, body) in got.items():
        assert b"secret" not in body, path
        if path not in ok:
            assert status == 404, (path, status)
