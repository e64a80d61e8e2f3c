"""Domain events -> topics and JSON payloads (pure; expected values checked by hand
against docs/events.md and the sample event in sample.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tcecd.bus.payloads import (
    SCHEMA,
    Kind,
    Message,
    Projection,
    messages_for,
    slugify,
    topic_segment,
)
from tcecd.domain import GameId, Result
from tcecd.events import EngineDisqualified, EngineFault, GameFinished, RoundPaired
from tcecd.pairing.base import Pair, RoundPairing, ScheduledGame
from tests.bus.sample import all_events, game_events, pairing, round_events, start_events

ROOT = "tcecd/bus-test"
TS = "2026-11-22T05:00:00.000Z"


def by_topic(msgs: list[Message]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for m in msgs:
        out.setdefault(m.topic.removeprefix(ROOT + "/"), []).append(m.json())
    return out


def run_all() -> tuple[Projection, list[Message]]:
    p = Projection(ROOT, "Bus Test")
    msgs = [m for e in all_events() for m in p.messages_for(e, TS)]
    return p, msgs


def test_every_payload_is_versioned_and_stamped() -> None:
    _, msgs = run_all()
    for m in msgs:
        assert m.topic.startswith(ROOT + "/")
        doc = m.json()
        if doc is None:  # a cleared retained live snapshot
            assert m.topic.endswith("/live")
            assert m.retain
            continue
        assert doc["schema"] == SCHEMA == 1
        assert doc["ts"] == TS
        assert doc["event"] == "Bus Test"
        assert isinstance(doc["type"], str)


def test_retain_qos_and_kind_per_topic() -> None:
    _, msgs = run_all()
    for m in msgs:
        leaf = m.topic.rsplit("/", 1)[1]
        if leaf == "move":
            assert (m.retain, m.qos, m.kind) == (False, 0, Kind.LIVE)
        elif leaf == "live":
            assert m.retain
            assert m.kind is Kind.SNAPSHOT
        elif leaf == "fault":
            assert (m.retain, m.qos, m.kind) == (False, 1, Kind.ESSENTIAL)
        else:
            assert (m.retain, m.qos, m.kind) == (True, 1, Kind.ESSENTIAL), m.topic


def test_event_metadata() -> None:
    doc = messages_for(start_events()[0], ROOT, TS)[0].json()
    assert doc["type"] == "event"
    assert (doc["name"], doc["system"], doc["rounds"], doc["double"]) == (
        "Bus Test", "tcec-swiss", 2, False)
    assert doc["players"][3] == {"id": "D", "name": "Delta/x", "seed": 4, "rating": None}


def test_pairing_with_several_byes_lists_them_all() -> None:
    """The integer program may leave several players unpaired: ``byes`` lists
    them; ``bye`` is the first, for consumers written before ``byes``."""
    pairing = RoundPairing(5, ("E", "C", "D"), (), (Pair("A", "B"),),
                           (ScheduledGame(1, "A", "B", 0, 1),))
    doc = by_topic(messages_for(RoundPaired(pairing), ROOT, TS))["round/5/pairing"][0]
    assert (doc["bye"], doc["byes"]) == ("C", ["C", "D", "E"])


def test_pairing_with_bye_and_history_removal() -> None:
    pairing = RoundPairing(
        round=5, bye="E", removed_history_rounds=(1, 2),
        pairs=(Pair("A", "B"), Pair("D", "C")),
        games=(ScheduledGame(1, "A", "B", 0, 1), ScheduledGame(2, "D", "C", 1, 1),
               ScheduledGame(3, "B", "A", 0, 2), ScheduledGame(4, "C", "D", 1, 2)),
    )
    msgs = by_topic(messages_for(RoundPaired(pairing), ROOT, TS))
    doc = msgs["round/5/pairing"][0]
    assert doc["bye"] == "E"
    assert doc["byes"] == ["E"]
    assert doc["removed_history_rounds"] == [1, 2]
    assert doc["pairs"] == [{"first": "A", "second": "B"}, {"first": "D", "second": "C"}]
    assert [(g["game"], g["white"], g["black"], g["leg"]) for g in doc["games"]] == [
        ("5.1", "A", "B", 1), ("5.2", "D", "C", 1), ("5.3", "B", "A", 2), ("5.4", "C", "D", 2)]
    sched = msgs["schedule"][0]["games"]
    assert [(g["game"], g["result"]) for g in sched] == [
        ("5.1", None), ("5.2", None), ("5.3", None), ("5.4", None)]


def test_move_payload() -> None:
    p = Projection(ROOT, "Bus Test")
    events = game_events(1, 1, "A", "B", Result.WHITE_WINS)
    msgs = [m for e in events[:2] for m in p.messages_for(e, TS)]  # start + 1. e4
    move = by_topic(msgs)["game/1.1/move"][0]
    assert move["type"] == "move"
    assert (move["game"], move["ply"], move["color"], move["san"], move["uci"]) == (
        "1.1", 1, "white", "e4", "e2e4")
    assert move["fen"] == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    # sample.py: eval = 20 + ply centipawns, depth 20 + ply, clocks 59000 / 58000.
    assert move["eval"] == {"cp": 21, "mate": None, "text": "0.21"}
    assert (move["depth"], move["nodes"], move["nps"]) == (21, 1_000_000, 1_000_000)
    assert move["pv"] == ["e4", "Nc6"]
    assert (move["white_clock_ms"], move["black_clock_ms"]) == (59000, 58000)
    live = by_topic(msgs)["game/1.1/live"][-1]
    assert live["moves"] == ["e4"]
    assert live["fen"] == move["fen"]
    assert live["last"]["san"] == "e4"


def test_game_end_and_live_snapshot_cleared() -> None:
    p = Projection(ROOT, "Bus Test")
    msgs = [m for e in [*start_events(), *round_events(1)] for m in p.messages_for(e, TS)]
    topics = by_topic(msgs)
    end = topics["game/1.2/end"][0]
    assert (end["white"], end["black"], end["result"], end["termination"]) == (
        "C", "D", "1/2-1/2", "adjudication")
    assert end["plies"] == 4
    # After 1. e4 e5 2. Nf3 Nc6 (checked with a board by hand).
    assert end["final_fen"] == (
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert end["pgn"].startswith('[Event "Bus Test"]')
    assert topics["game/1.2/live"][-1] is None  # cleared once the game ended
    assert p.live == {}
    sched = topics["schedule"][-1]["games"]
    assert [(g["game"], g["result"]) for g in sched] == [("1.1", "1-0"), ("1.2", "1/2-1/2")]


def test_standings_crosstable_and_finish() -> None:
    _, msgs = run_all()
    topics = by_topic(msgs)
    final = topics["standings"][-1]
    assert final["final"] is True
    assert final["after_round"] == 2
    assert [(r["rank"], r["id"], r["score"]) for r in final["rows"]] == [
        (1, "A", 2.0), (2, "B", 1.0), (3, "C", 0.5), (4, "D", 0.5)]
    assert topics["finished"][0]["winner"] == "A"
    ct = topics["crosstable"][-1]
    assert ct["format"] == "simple"
    assert ct["order"] == ["A", "B", "C", "D"]
    a = ct["table"]["A"]["results"]
    assert a == {"B": [{"game": "1.1", "color": "white", "result": "1"}],
                 "C": [{"game": "2.1", "color": "black", "result": "1"}]}
    assert ct["table"]["D"]["results"] == {
        "C": [{"game": "1.2", "color": "black", "result": "="}],
        "B": [{"game": "2.2", "color": "black", "result": "0"}]}
    assert ct["table"]["D"]["strikes"] == 1


def test_external_crosstable_replaces_the_simple_one() -> None:
    p = Projection(ROOT, "Bus Test")
    m = p.external_crosstable_message({"Event": "Bus Test", "Order": ["A"]}, TS)
    assert m.topic == ROOT + "/crosstable"
    assert m.json()["crosstable"] == {"Event": "Bus Test", "Order": ["A"]}
    assert m.json()["format"] == "tcec"
    msgs = [m for e in all_events() for m in p.messages_for(e, TS)]
    assert not [m for m in msgs if m.topic.endswith("/crosstable")]


def test_faults_and_disqualification() -> None:
    p = Projection(ROOT, "Bus Test")
    fault = by_topic(p.messages_for(
        EngineFault("Delta/x", GameId(3, 1), "stall", "no bestmove", 2), TS))
    assert fault["engine/Delta_x/fault"][0]["kind"] == "stall"
    assert fault["engine/Delta_x/fault"][0]["game"] == "3.1"
    assert fault["engine/Delta_x/state"][0]["strikes"] == 2
    dq = by_topic(p.messages_for(EngineDisqualified("Delta/x", "3 strikes", 4), TS))
    assert dq["engine/Delta_x/disqualified"][0]["round"] == 4
    state = dq["engine/Delta_x/state"][0]
    assert (state["engine"], state["strikes"], state["disqualified"], state["reason"]) == (
        "Delta/x", 2, True, "3 strikes")


def test_names_for_topics() -> None:
    assert slugify("TCEC Swiss 7") == "tcec-swiss-7"
    assert slugify("  !!! ") == "event"
    assert topic_segment("Stockfish 15.1") == "Stockfish_15.1"
    assert topic_segment("a/b+c#d") == "a_b_c_d"


def test_deterministic_and_rejects_non_events() -> None:
    a = [m.payload for m in run_all()[1]]
    b = [m.payload for m in run_all()[1]]
    assert a == b
    assert json.loads(a[0])["type"] == "event"
    with pytest.raises(TypeError):
        Projection(ROOT).messages_for("not an event", TS)  # type: ignore[arg-type]


def test_restore_finished_games_on_resume() -> None:
    """A resumed daemon re-announces the pairings; games that finished before the
    crash keep their results in the schedule without being re-published."""
    before = [e for e in round_events(1) if isinstance(e, GameFinished)]
    p = Projection(ROOT, "Bus Test")
    for e in before:
        p.restore_finished(e.record)
    msgs = p.messages_for(RoundPaired(pairing(1)), TS)
    assert not [m for m in msgs if m.topic.endswith("/end")]
    sched = by_topic(msgs)["schedule"][0]["games"]
    assert [(g["game"], g["result"]) for g in sched] == [("1.1", "1-0"), ("1.2", "1/2-1/2")]


def test_end_carries_final_clocks_and_last_move() -> None:
    p = Projection(ROOT, "Bus Test")
    events = game_events(1, 1, "A", "B", Result.WHITE_WINS)
    msgs = [m for e in events for m in p.messages_for(e, TS)]
    end = by_topic(msgs)["game/1.1/end"][0]
    # sample.py: clock_left_ms = 60000 - 1000 * ply; White's last move is ply 3, Black's ply 4.
    assert (end["white_clock_ms"], end["black_clock_ms"]) == (57000, 56000)
    assert end["last"]["san"] == "Nc6"
    assert end["last"]["ply"] == 4


def test_start_carries_the_games_pgn_tags() -> None:
    """The `start` payload's `headers` are the daemon's own start tags (what its
    live.json shows), in the writer's order; null when the event gives none."""
    from dataclasses import replace

    from tcecd.pgn.writer import start_tags

    started = game_events(1, 1, "A", "B", Result.WHITE_WINS)[0]
    tags = start_tags(event="Bus Test", site="here", game_id="1.1", white="Alpha",
                      black="Beta", start_time="2026-11-22T04:00:00.000Z", time_control="60+1",
                      opening=started.opening, white_elo=3500,
                      extra_tags=(("WhiteTimeControl", "60+1"), ("BlackTimeControl", "30+1")))
    with_tags = replace(started, headers=tuple(tags))
    doc = by_topic(messages_for(with_tags, ROOT, TS))["game/1.1/start"][0]
    assert list(doc["headers"].items()) == tags
    assert doc["headers"]["BlackTimeControl"] == "30+1"
    assert doc["headers"]["Result"] == "*"
    bare = by_topic(messages_for(started, ROOT, TS))["game/1.1/start"][0]
    assert bare["headers"] is None
