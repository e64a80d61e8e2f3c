"""Checking what arrives from the broker (tcecd.bus.inbound, issue 28): everything the
daemon publishes passes; what a stranger may publish instead is refused with a reason,
and ``tcecd watch``'s view and frames never fail on it."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from tcecd.bus.inbound import (
    MAX_PAYLOAD,
    InvalidPayload,
    UnknownPayload,
    check_document,
    document_type,
    parse,
    printable,
)
from tcecd.bus.payloads import Message, Projection
from tcecd.domain import GameId, Result
from tcecd.events import (
    BracketUpdated,
    EngineDisqualified,
    EventFinished,
    ForecastUpdated,
    KibitzerReport,
)
from tcecd.formats.knockout import bracket_document
from tcecd.game.record import Score
from tcecd.outputs.tcec_json import CrossGame, crosstable_json
from tcecd.watch.model import Watcher
from tcecd.watch.render import render
from tcecd.watch.screen import screen
from tests.bus.sample import PLAYERS, all_events
from tests.forecast.test_integration import small_forecast
from tests.formats.knockout.helpers import cup7

TS = "2026-11-22T05:00:00.000Z"
ROOT = "tcecd/bus-test"


def _stream() -> list[Message]:
    """Every kind of message the daemon publishes, from a whole hand-checked event,
    a disqualification, a forecast, a TCEC-format crosstable and a cup's bracket
    (during the semi-finals and at the end)."""
    p = Projection(ROOT, "Bus Test", run_id="r1")
    out: list[Message] = []
    kibitzer = KibitzerReport(0, "Kibitz", "Threads 1", GameId(2, 2), 0,
                              "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                              Score(cp=20), depth=10, wdl=(100, 850, 50), pv_san=("e4",),
                              pv_uci=("e2e4",))
    for e in [*all_events(), EngineDisqualified("D", "3 strikes", 2),
              ForecastUpdated(small_forecast(20)), BracketUpdated(bracket_document(cup7("semis"))),
              BracketUpdated(bracket_document(cup7("finished"))), kibitzer]:
        out += p.messages_for(e, TS)
    final = next(e for e in all_events() if isinstance(e, EventFinished))
    games = [CrossGame(1, "A", "B", Result.WHITE_WINS, played=True)]
    table = crosstable_json("Bus Test", PLAYERS, games, final.standings, strikes={"D": 1})
    out.append(p.external_crosstable_message(table, TS))
    return out


def _levels(topic: str) -> list[str]:
    return topic[len(ROOT) + 1:].split("/")


def test_everything_the_daemon_publishes_passes() -> None:
    seen = set()
    for m in _stream():
        doc = parse(_levels(m.topic), m.payload)
        if m.payload:
            assert doc == json.loads(m.payload)  # returned as written
            seen.add(doc["type"] if doc else None)
    # Every document type of docs/events.md (the status is the publisher's own).
    assert seen == {"status", "event", "schedule", "pairing", "start", "move", "live", "end",
                    "fault", "disqualified", "engine", "standings", "bracket", "crosstable",
                    "forecast", "kibitzer", "finished"} - {"status"}
    status = Projection(ROOT, "Bus Test").status(True, TS, {"version": "0.1.0"})
    assert parse(["status"], status.payload) == json.loads(status.payload)


def _standings(**row: Any) -> bytes:
    base = {"rank": 1, "id": "A", "score": 2.0, "score_half": 4, "byes": 0, "games": 2,
            "tiebreaks": {"SB": 4.0}}
    return json.dumps({"schema": 1, "type": "standings", "event": "x", "ts": TS,
                       "after_round": 2, "final": False, "rows": [{**base, **row}]}).encode()


@pytest.mark.parametrize(
    ("levels", "payload", "reason"),
    [
        (["standings"], _standings(rank="x"), "standings: rows.0.rank: Input should be a valid "
                                               "integer"),
        (["standings"], _standings(score="<img src=x onerror=alert(1)>"),
         "standings: rows.0.score: Input should be a valid number"),
        (["standings"], _standings(tiebreaks={"SB": "x"}),
         "standings: rows.0.tiebreaks.SB: Input should be a valid number"),
        (["standings"], _standings(games=True), "standings: rows.0.games: Input should be a "
                                                 "valid integer"),
        (["standings"], b'{"schema":1,"type":"standings","after_round":1,"rows":[{"rank":1,'
                        b'"id":"A","score":NaN,"games":1}]}',
         "standings: rows.0.score: Input should be a finite number"),
        (["standings"], b"{not json", "standings: not JSON"),
        (["standings"], b"[1, 2]", "standings: not a JSON object"),
        (["standings"], b"[" * 100_000 + b"]" * 100_000, "standings: not JSON"),
        (["standings"], b'{"schema":1,"type":"standings","after_round":1,"rows":[],"x":'
         + b"[" * 33 + b"]" * 33 + b"}",
         "standings: nested more than 32 levels deep"),
        (["standings"], b'{"schema":1,"type":"finished","rows":[]}',
         "standings: type 'finished' on a 'standings' topic"),
        (["standings"], b" " * (MAX_PAYLOAD + 1),
         f"standings: {MAX_PAYLOAD + 1} bytes (at most {MAX_PAYLOAD})"),
        (["status"], b'{"schema":1,"type":"status","state":"<b>on</b>"}',
         "status: state: Input should be 'online' or 'offline'"),
        (["game", "1.1", "move"], b'{"schema":1,"type":"move","game":"1.2","ply":1,"san":"e4"}',
         "move: game '1.2' on the topic of another"),
        (["game", "1.1\x1b[2J", "start"],
         b'{"schema":1,"type":"start","game":"1.1\\u001b[2J","white":"A","black":"B"}',
         "start: game: String should match pattern '^[0-9]{1,9}\\.[0-9]{1,9}$'"),
        (["round", "3", "pairing"], b'{"schema":1,"type":"pairing","round":4,"games":[]}',
         "pairing: round 4 on the topic of round 3"),
        (["engine", "Alpha", "state"],
         b'{"schema":1,"type":"engine","engine":"Beta","strikes":"1","disqualified":false}',
         "engine: strikes: Input should be a valid integer"),
        (["game", "1.1", "live"], b'{"schema":1,"type":"live","game":"1.1","white":"A",'
                                  b'"black":"B","moves":["e4",5]}',
         "live: moves.1: Input should be a valid string"),
        (["forecast"], b'{"schema":1,"type":"forecast"}',
         "forecast: after_round: Field required"),
    ],
)
def test_what_breaks_the_schema_is_refused_with_a_reason(
    levels: list[str], payload: bytes, reason: str
) -> None:
    with pytest.raises(InvalidPayload) as info:
        parse(levels, payload)
    assert str(info.value) == reason


def _last(doc_type: str) -> tuple[list[str], dict[str, Any]]:
    """The topic levels and a fresh copy of the last ``doc_type`` document published."""
    for m in reversed(_stream()):
        if m.payload and json.loads(m.payload)["type"] == doc_type:
            return _levels(m.topic), json.loads(m.payload)
    raise AssertionError(doc_type)


XSS = "<img src=x onerror=document.title='pwned'>"


@pytest.mark.parametrize(("doc_type", "edit", "where"), [
    # issue 28's payloads: numbers that are markup
    ("standings", lambda d: d["rows"][0].update(score=XSS), "rows.0.score"),
    ("standings", lambda d: d["rows"][0].update(rank="x"), "rows.0.rank"),
    ("standings", lambda d: d["rows"][0]["tiebreaks"].update(wins=XSS), "rows.0.tiebreaks.wins"),
    ("engine", lambda d: d.update(strikes=XSS), "strikes"),
    ("fault", lambda d: d.update(strikes=[1]), "strikes"),
    ("forecast", lambda d: d["players"][0].update(expected_score=XSS),
     "players.0.expected_score"),
    ("forecast", lambda d: d["players"][0].update(places=[XSS]), "players.0.places.0"),
    ("crosstable", lambda d: d["crosstable"]["Table"]["Alpha"].update(Score=XSS),
     "crosstable.Table.Alpha.Score"),
    ("crosstable", lambda d: d["crosstable"].pop("Order"), "crosstable.Order"),
    ("move", lambda d: d["eval"].update(cp=True), "eval.cp"),  # a bool is no int
    ("move", lambda d: d.update(ply="1"), "ply"),  # no coercion from text
    ("move", lambda d: d.update(san="x" * 100), "san"),  # strings are bounded
    ("move", lambda d: d.update(pv=["e4"] * 1001), "pv"),  # lists too
    ("end", lambda d: d.update(result="<b>1-0</b>"), "result"),
    ("end", lambda d: d.update(termination_detail="x" * 5000), "termination_detail"),
    ("event", lambda d: d["players"][0].update(rating="3500"), "players.0.rating"),
    ("event", lambda d: d["players"][0].update(name="x" * 257), "players.0.name"),
    ("pairing", lambda d: d.update(round=None), "round"),
    ("start", lambda d: d.update(headers={"White": 1}), "headers.White"),
    ("bracket", lambda d: d["rounds"][0]["encounters"][1]["players"][0].update(score=XSS),
     "rounds.0.encounters.1.players.0.score"),
    ("bracket", lambda d: d["rounds"][0]["encounters"][1]["games"][0].update(result="2-0"),
     "rounds.0.encounters.1.games.0.result"),
    ("bracket", lambda d: d["rounds"][0]["encounters"][1].update(players=[None]),
     "rounds.0.encounters.1.players"),
])
def test_wrong_types_are_refused_naming_the_field(doc_type: str, edit: Any, where: str) -> None:
    levels, doc = _last(doc_type)
    assert check_document(doc_type, doc) is doc
    edit(doc)
    with pytest.raises(InvalidPayload) as info:
        parse(levels, json.dumps(doc).encode())
    assert str(info.value).startswith(f"{doc_type}: {where}: "), str(info.value)


def test_strings_may_hold_anything_and_new_fields_are_kept() -> None:
    """The page and watch show strings as text, so markup in one is no reason to
    refuse it; fields a newer daemon adds within schema 1 pass."""
    levels, doc = _last("standings")
    doc.update(event=XSS, new_field={"x": 1})
    assert parse(levels, json.dumps(doc).encode()) == doc


def test_what_this_reader_does_not_know_is_not_an_error() -> None:
    with pytest.raises(UnknownPayload):
        parse(["_watch", "x"], b"barrier")
    with pytest.raises(UnknownPayload):  # the stale-state sweep's marker
        parse(["_sweep", "abc"], b"x")
    with pytest.raises(UnknownPayload):
        parse(["standings"], b'{"schema":2,"type":"standings"}')
    assert parse(["standings"], b"") is None  # a deleted retained message
    assert document_type(["engine", "A", "state"]) == "engine"
    assert document_type(["round", "x", "pairing"]) is None
    # New fields within schema 1 are kept.
    doc = check_document("status", {"schema": 1, "type": "status", "state": "online",
                                    "later": {"a": 1}})
    assert doc["later"] == {"a": 1}


def test_printable_replaces_control_and_bidi_characters() -> None:
    hostile = ("\x1b]0;pwned\x07Alpha\x1b[31m\r\n\x08\x9b2J"
               "\u202eevil\u2066\u200f\x7f")
    shown = printable({"name": hostile, hostile: [hostile], "n": 3})
    assert shown == {
        "name": "\ufffd]0;pwned\ufffdAlpha\ufffd[31m\ufffd\ufffd\ufffd\ufffd2J"
                "\ufffdevil\ufffd\ufffd\ufffd",
        "\ufffd]0;pwned\ufffdAlpha\ufffd[31m\ufffd\ufffd\ufffd\ufffd2J\ufffdevil\ufffd\ufffd"
        "\ufffd": ["\ufffd]0;pwned\ufffdAlpha\ufffd[31m\ufffd\ufffd\ufffd\ufffd2J\ufffdevil"
                   "\ufffd\ufffd\ufffd"],
        "n": 3,
    }
    assert printable("Stockfish 17 — ♞ Ünïcode") == "Stockfish 17 — ♞ Ünïcode"


def _frames(w: Watcher) -> tuple[str, str]:
    """The plain frame and the rich screen (as a terminal receives it)."""
    view = w.selected
    plain = render(view, now=1.8e9)
    out = StringIO()
    Console(file=out, force_terminal=True, width=120, color_system="truecolor").print(
        screen(view, now=1.8e9))
    return plain, out.getvalue()


HOSTILE_NAME = "\x1b]0;pwned\x07\x1b]8;;http://evil/\x1b\\Alpha[blink][link=http://x]y[/]\u202e"


def test_hostile_strings_reach_the_terminal_as_text() -> None:
    """Names with an OSC title change, an OSC 8 hyperlink, rich markup and a bidi
    override: the terminal gets none of them as a sequence, and the markup as text."""
    w = Watcher("tcecd")
    for m in _stream()[:12]:
        payload = m.payload
        if m.topic.endswith("/event"):
            doc = json.loads(payload)
            doc["players"][0]["name"] = HOSTILE_NAME
            doc["site"] = HOSTILE_NAME
            payload = json.dumps(doc).encode()
        w.apply(m.topic, payload)
    plain, rich_out = _frames(w)
    for out in (plain, rich_out):
        assert "\x1b]" not in out  # no OSC (title, hyperlink) at all
        assert "\x07" not in out
        assert "\u202e" not in out
    shown = "\ufffd]0;pwned\ufffd\ufffd]8;;http://evil/\ufffd\\Alpha[blink][link=http://x]y[/]"
    assert shown[:18] in plain  # the tampering shows, as U+FFFD
    assert "Alpha[blink][link=http://x]y[/]" in rich_out  # markup shown as written


def test_a_bad_retained_standings_is_skipped_and_counted() -> None:
    """The issue's case: ``"rank": "x"`` made ``tcecd watch --once`` exit 1."""
    w = Watcher("tcecd")
    for m in _stream()[:12]:
        w.apply(m.topic, m.payload)
    before, _ = _frames(w)
    w.apply(f"{ROOT}/standings", _standings(rank="x"))
    plain, rich_out = _frames(w)
    assert plain.startswith(before.rstrip("\n"))  # the good standings are still shown
    assert plain.endswith("\n1 malformed message skipped (last: standings: rows.0.rank: "
                          "Input should be a valid integer)\n")
    assert "1 malformed message skipped" in rich_out


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8,
)


def _mutate(doc: Any, path: list[Any], value: Any) -> None:
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def _paths(doc: Any, prefix: list[Any]) -> list[list[Any]]:
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for key, value in items:
        out.append([*prefix, key])
        if isinstance(value, dict | list):
            out += _paths(value, [*prefix, key])
    return out


STREAM = [m for m in _stream() if m.payload]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_no_payload_makes_the_view_or_its_frames_fail(data: st.DataObject) -> None:
    """Take the real stream up to one of its messages, replace one value anywhere
    in that message by any JSON value: the view takes or refuses it, and both
    frames are drawn."""
    w = Watcher("tcecd")
    victim = data.draw(st.integers(0, len(STREAM) - 1))
    for i, m in enumerate(STREAM[:victim + 1]):
        payload = m.payload
        if i == victim:
            doc = json.loads(payload)
            path = data.draw(st.sampled_from(_paths(doc, [])))
            _mutate(doc, path, data.draw(_JSON))
            payload = json.dumps(doc).encode()
        w.apply(m.topic, payload, at=1.8e9)
    _frames(w)
