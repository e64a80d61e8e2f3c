"""The bracket document and TCEC's cup files for the hand-made 7-engine cup of
``helpers.CUP7_GAMES`` (every expected value below worked out from that list).

Game numbers across the cup (``Game`` of schedule.json): round 1 is games
1-8, round 2 games 9-12, the final 13-14.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.errors import StateError
from tcecd.formats.knockout import (
    Cup,
    KnockoutSettings,
    bracket_document,
    cup_from_bracket,
    eventcrosstable_json,
    game_ordinals,
    tournament_json,
)

from .helpers import NAMES, cup7, play
from .test_properties import seeded_outcome


def test_eventcrosstable_of_the_finished_cup() -> None:
    doc = eventcrosstable_json(cup7("finished"), NAMES, faults={"1.5": "P3"})
    json.dumps(doc)  # JSON-ready
    table = doc["EventTable"]
    # One "Match N" per encounter with games, in the order their first game was
    # played (TCEC's crosscupnew.js numbers them as the PGN meets them).
    assert list(table) == [f"Match {n}" for n in range(1, 7)]
    assert table["Match 1"] == {
        "Engines": "Delta 4 v Echo 5", "Winner": "Delta 4", "Runner": "Echo 5", "Games": 2,
        "Points": "1.5-0.5", "Crashes": "0-0", "Score": "1=", "Gamesno": "1,2"}
    assert table["Match 2"]["Score"] == "11"
    assert table["Match 2"]["Points"] == "2-0"
    # P3-P6: P3 lost game 5 (a fault of P3's, say), won game 6, two draws; 2-2,
    # P3 advances as the higher seed: the Winner's results in playing order.
    assert table["Match 3"] == {
        "Engines": "Charlie dev v Foxtrot 6", "Winner": "Charlie dev", "Runner": "Foxtrot 6",
        "Games": 4, "Points": "2-2", "Crashes": "1-0", "Score": "01==",
        "Gamesno": "5,6,7,8"}
    assert (table["Match 4"]["Engines"], table["Match 4"]["Gamesno"]) == (
        "Alpha 1.0 v Delta 4", "9,10")
    assert (table["Match 5"]["Winner"], table["Match 5"]["Score"]) == ("Charlie dev", "=1")
    assert table["Match 6"] == {
        "Engines": "Alpha 1.0 v Charlie dev", "Winner": "Charlie dev", "Runner": "Alpha 1.0",
        "Games": 2, "Points": "1.5-0.5", "Crashes": "0-0", "Score": "1=", "Gamesno": "13,14"}

    # The first round in bracket order, upper place first; the BYE fills seed 8's place.
    assert [[t["name"] for t in team] for team in doc["teams"]] == [
        ["Alpha 1.0", "BYE"], ["Delta 4", "Echo 5"], ["Bravo 2", "Golf 7"],
        ["Charlie dev", "Foxtrot 6"]]
    assert [[t["seed"] for t in team] for team in doc["teams"]] == [[1, 8], [4, 5], [2, 7],
                                                                    [3, 6]]
    # results[0][round][encounter]: upper place first; the final's round has the
    # viewer's third-place match too, never played.
    assert doc["results"] == [[
        [[1, 0], [1.5, 0.5], [2, 0], [2, 2]],
        [[1.5, 0.5], [0.5, 1.5]],
        [[0.5, 1.5], [0, 0]],
    ]]
    scores = {(a["name"], b["name"]): (a["origscore"], b["origscore"])
              for a, b in doc["matchresults"]}
    assert scores[("Delta 4", "Echo 5")] == (1.5, 0.5)
    # A tie broken by seed and a BYE: strings, the loser's with a leading space,
    # so the viewer's ">" picks the engine that advanced.
    assert scores[("Charlie dev", "Foxtrot 6")] == ("2", " 2")
    assert scores[("Alpha 1.0", "BYE")] == ("-", " ")
    assert scores[("Bravo 2", "Charlie dev")] == (0.5, 1.5)


def test_eventcrosstable_during_the_semi_finals() -> None:
    doc = eventcrosstable_json(cup7("semis"), NAMES)
    table = doc["EventTable"]
    # P2-P3: game 11 drawn, game 12 running: 0.5-0.5, the higher seed listed first.
    assert table["Match 5"] == {
        "Engines": "Bravo 2 v Charlie dev", "Winner": "Bravo 2", "Runner": "Charlie dev",
        "Games": 1, "Points": "0.5-0.5", "Crashes": "0-0", "Score": "=", "Gamesno": "11"}
    assert "Match 6" not in table
    assert doc["results"][0][1:] == [[[1.5, 0.5], [0, 0]], [[0, 0], [0, 0]]]


def test_tournament_json_is_a_cup_in_the_standard_order() -> None:
    assert tournament_json("Cup 1", "cup-1") == {"name": "Cup 1", "cup": 1, "link": "event=cup-1"}


def test_game_ordinals() -> None:
    ordinals = game_ordinals(cup7("finished"))
    assert ordinals[(1, 8)] == 8
    assert ordinals[(2, 1)] == 9
    assert ordinals[(3, 2)] == 14


def test_bracket_document() -> None:
    doc = bracket_document(cup7("semis"))
    json.dumps(doc)
    assert {k: doc[k] for k in ("system", "games", "tiebreak", "players", "size", "status",
                                "round", "champion")} == {
        "system": "knockout", "games": 2, "tiebreak": {"time_control": "30+1", "max_games": 2},
        "players": 7, "size": 8, "status": "playing", "round": 2, "champion": None}
    r1, r2, r3 = doc["rounds"]
    assert (r1["name"], r1["status"], r2["name"], r2["status"], r3["name"], r3["status"]) == (
        "Quarter-finals", "finished", "Semi-finals", "playing", "Final", "waiting")
    bye, _, _, tied = r1["encounters"]
    assert bye == {"encounter": 1, "status": "bye", "games": [],
                   "players": [{"id": "P1", "seed": 1, "score": 0, "disqualified": False}, None],
                   "winner": "P1", "decision": "bye", "reason": "P1 has a BYE"}
    assert tied["status"] == "decided"
    assert [p["score"] for p in tied["players"]] == [2, 2]
    assert (tied["winner"], tied["decision"]) == ("P3", "seed")
    assert tied["reason"] == "2-2 tied after 2 tiebreak games: P3 advances as the higher seed"
    assert [(g["game"], g["tiebreak"], g["opening"]) for g in tied["games"]] == [
        ("1.5", False, 2), ("1.6", False, 2), ("1.7", True, 3), ("1.8", True, 3)]
    semi1, semi2 = r2["encounters"]
    assert (semi1["status"], semi1["winner"]) == ("decided", "P1")
    assert semi2["status"] == "playing"
    assert [p["score"] for p in semi2["players"]] == [0.5, 0.5]
    assert semi2["games"][-1] == {"game": "2.4", "white": "P3", "black": "P2", "result": None,
                                  "tiebreak": False, "opening": 5}
    # The final: P1 known already, the other place not yet.
    (fin,) = r3["encounters"]
    assert fin == {"encounter": 1, "status": "waiting", "games": [],
                   "players": [{"id": "P1", "seed": 1, "score": None, "disqualified": False},
                               None],
                   "winner": None, "decision": None, "reason": None}


def test_bracket_document_of_the_finished_cup() -> None:
    doc = bracket_document(cup7("finished"))
    assert (doc["status"], doc["champion"], doc["round"]) == ("finished", "P3", 3)
    (fin,) = doc["rounds"][2]["encounters"]
    assert (fin["winner"], fin["reason"]) == ("P3", "P3 wins 1.5-0.5")
    assert [p["id"] for p in fin["players"]] == ["P1", "P3"]


def _same_cup_from_its_bracket(cup: Cup) -> None:
    doc = bracket_document(cup)
    again = cup_from_bracket(json.loads(json.dumps(doc)))  # as it crosses MQTT
    assert bracket_document(again) == doc
    assert eventcrosstable_json(again, NAMES) == eventcrosstable_json(cup, NAMES)


def test_the_bracket_document_carries_the_whole_cup() -> None:
    """TCEC's feed in `tcecd web` rebuilds the cup from the MQTT `bracket` document
    for Eventcrosstable.json: the same bracket, the same files, at every stage."""
    for stage in ("semis", "finished"):
        _same_cup_from_its_bracket(cup7(stage))


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 11), st.integers(1, 3), st.integers(0, 10**6),
       st.one_of(st.none(), st.tuples(st.integers(1, 11), st.integers(1, 4))))
def test_every_stage_of_any_cup_comes_back_from_its_bracket(
        n: int, games: int, seed: int, dq: tuple[int, int] | None) -> None:
    """Every cup the runner sees while a cup is played (games running, rounds
    waiting, a disqualification from some round on)."""
    disqualified = None if dq is None or dq[0] > n else {f"P{dq[0]}": dq[1]}
    s = KnockoutSettings(games=games, tiebreak_time_control="10+0.1",
                         tiebreak_max_games=2 if games % 2 == 0 else 1)
    p = play(n, s, seeded_outcome(seed, 3), concurrency=3, disqualified=disqualified)
    for call in p.calls:
        _same_cup_from_its_bracket(call.cup)


def test_a_bracket_no_cup_can_make_is_refused() -> None:
    doc = bracket_document(cup7("finished"))
    doc["rounds"][0]["encounters"][1]["players"][0]["seed"] = 9
    with pytest.raises(StateError, match="seeds"):
        cup_from_bracket(doc)
    doc = bracket_document(cup7("finished"))
    doc["rounds"][1]["encounters"][0]["games"][0]["white"] = "P7"  # P7 went out in round 1
    with pytest.raises(StateError):
        cup_from_bracket(doc)
