"""The payload schemas consumers check what they read against (tcecd.bus.schema):
every message the daemon publishes passes, as docs/events.md describes it, and a
stranger's payload with the wrong types (issue 28: a retained `standings` whose
`score` is HTML, a `rank` that is a string) is refused with a reason."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from tcecd.bus.payloads import Projection
from tcecd.bus.schema import MAX_PAYLOAD, check, parse, topic_kind
from tcecd.domain import Result
from tcecd.events import EngineDisqualified, EventFinished, ForecastUpdated
from tcecd.outputs.tcec_json import CrossGame, crosstable_json
from tests.bus.sample import PLAYERS, all_events
from tests.forecast.test_integration import small_forecast

ROOT = "tcecd/bus-test"
TS = "2026-11-22T05:00:00.000Z"


def published() -> list[tuple[list[str], Any]]:
    """(topic levels below the event's root, decoded payload) of everything the
    sample event publishes, plus a disqualification, a TCEC-format crosstable and
    a forecast."""
    p = Projection(ROOT, "Bus Test", run_id="r1")
    events = [*all_events(), EngineDisqualified("Delta/x", "3 strikes", 2),
              ForecastUpdated(small_forecast())]
    msgs = [m for e in events for m in p.messages_for(e, TS)]
    final = next(e for e in all_events() if isinstance(e, EventFinished))
    games = [CrossGame(1, "A", "B", Result.WHITE_WINS, played=True)]
    table = crosstable_json("Bus Test", PLAYERS, games, final.standings, strikes={"D": 1})
    msgs.append(p.external_crosstable_message(table, TS))
    out = []
    for m in msgs:
        rest = m.topic.removeprefix(ROOT + "/").split("/")
        out.append((rest, m.json()))
    return out


def test_every_published_payload_passes() -> None:
    docs = published()
    kinds = {topic_kind(rest) for rest, _ in docs}
    # The sample covers every topic of docs/events.md's table.
    assert kinds == {"status", "event", "schedule", "round/pairing", "game/start", "game/move",
                     "game/live", "game/end", "engine/fault", "engine/disqualified",
                     "engine/state", "standings", "crosstable", "forecast", "finished"} - {
                         "status"}
    for rest, doc in docs:
        if doc is None:
            continue  # a retained document deleted
        assert check(rest, doc) is None, (rest, doc.get("type"), check(rest, doc))
    status = Projection(ROOT, "Bus Test").status(True, TS, {"version": "0.1.0"})
    assert check(["status"], status.json()) is None


def _last(rest_kind: str) -> tuple[list[str], dict[str, Any]]:
    for rest, doc in reversed(published()):
        if doc is not None and topic_kind(rest) == rest_kind:
            return rest, copy.deepcopy(doc)
    raise AssertionError(rest_kind)


XSS = "<img src=x onerror=document.title='pwned'>"


@pytest.mark.parametrize(("kind", "edit", "where"), [
    # issue 28's payloads: numbers that are markup
    ("standings", lambda d: d["rows"][0].update(score=XSS), "rows.0.score"),
    ("standings", lambda d: d["rows"][0].update(rank="x"), "rows.0.rank"),
    ("standings", lambda d: d["rows"][0]["tiebreaks"].update(wins=XSS), "rows.0.tiebreaks"),
    ("engine/state", lambda d: d.update(strikes=XSS), "strikes"),
    ("engine/fault", lambda d: d.update(strikes=[1]), "strikes"),
    ("forecast", lambda d: d["players"][0].update(expected_score=XSS), "players.0"),
    ("forecast", lambda d: d["players"][0].update(places=[XSS]), "players.0.places"),
    ("crosstable", lambda d: d["crosstable"]["Table"]["Alpha"].update(Score=XSS),
     "crosstable.Table.Alpha.Score"),
    ("game/move", lambda d: d["eval"].update(cp=True), "eval.cp"),  # a bool is no int
    ("game/move", lambda d: d.update(ply="1"), "ply"),  # no coercion from text
    ("game/move", lambda d: d.update(san="x" * 100), "san"),
    ("game/end", lambda d: d.update(result="<b>1-0</b>"), "result"),
    ("event", lambda d: d["players"][0].update(rating="3500"), "players.0.rating"),
    ("round/pairing", lambda d: d.update(round=None), "round"),
])
def test_wrong_types_are_refused_with_where(kind: str, edit: Any, where: str) -> None:
    rest, doc = _last(kind)
    assert check(rest, doc) is None
    edit(doc)
    reason = check(rest, doc)
    assert reason is not None
    assert reason.startswith(where), reason


def test_what_is_not_a_document_of_the_topic() -> None:
    rest, doc = _last("standings")
    assert check(rest, [doc]) == "not a JSON object"
    assert check(rest, {**doc, "schema": 2}) == "schema 2, not 1"
    assert check(rest, {**doc, "type": "forecast"}) == "type 'forecast' on a 'standings' topic"
    assert check(["whatever"], doc) is not None
    # Strings may hold anything (the page shows them as text); new fields are allowed.
    assert check(rest, {**doc, "event": XSS, "new_field": {"x": 1}}) is None


def test_parse_skips_unknown_topics_and_deleted_documents_and_bounds_size() -> None:
    rest, doc = _last("standings")
    assert parse(rest, json.dumps(doc).encode()) == (doc, None)
    assert parse(rest, b"") == (None, None)  # a retained document deleted
    assert parse(["_sweep", "abc"], b"x") == (None, None)  # not ours to read
    assert parse(rest, b"{not json") == (None, "not JSON")
    big = b" " * (MAX_PAYLOAD + 1)
    assert parse(rest, big)[1] == f"{MAX_PAYLOAD + 1} bytes (at most {MAX_PAYLOAD})"
