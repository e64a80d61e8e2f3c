"""The page's state (tcecd.web.model) and the TCEC pushes (tcecd.web.tcec) from
hand-written MQTT messages, shaped as docs/events.md describes them."""

from __future__ import annotations

import json
from typing import Any

from tcecd.web.model import PageModel
from tcecd.web.tcec import TcecFeed, delta_pgn

P = "tcecd/ev"


def msg(doc_type: str, **fields: Any) -> bytes:
    return json.dumps({"schema": 1, "type": doc_type, "event": "Ev",
                       "ts": "2026-11-22T05:00:00.000Z", **fields}).encode()


EVENT = msg("event", name="Ev", site="here", system="tcec-swiss", double=False, rounds=2,
            time_control="60+1", run_id="run1",
            players=[{"id": "A", "name": "Alpha", "seed": 1, "rating": 3500},
                     {"id": "B", "name": "Beta", "seed": 2, "rating": None}])
PAIRING = msg("pairing", round=1, bye=None, removed_history_rounds=[],
              pairs=[{"first": "A", "second": "B"}],
              games=[{"game": "1.1", "number": 1, "white": "A", "black": "B",
                      "pair_index": 0, "leg": 1}])
START = msg("start", game="1.1", round=1, number=1, white="A", black="B",
            opening={"name": "Open", "eco": None, "fen": None, "moves": [], "index": None},
            fen=None, time_control="60+1", start_time="2026-11-22T05:00:00.000Z",
            white_clock_ms=60000, black_clock_ms=60000)


def move(ply: int, san: str, uci: str, fen: str, cp: int) -> bytes:
    return msg("move", game="1.1", ply=ply, color="white" if ply % 2 else "black", san=san,
               uci=uci, fen=fen, book=False, move_time_ms=1000, clock_left_ms=59000,
               eval={"cp": cp, "mate": None, "text": f"{cp / 100:.2f}"}, depth=20 + ply,
               seldepth=30, nodes=1000, nps=1000, tbhits=None, hashfull=None, pv=[san],
               ponder=None, r50=50, rd=-11, rr=-1000, white_clock_ms=59000,
               black_clock_ms=60000 - 1000 * (ply // 2))


E4 = move(1, "e4", "e2e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 21)
E5 = move(2, "e5", "e7e5", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", 15)


FORECAST = msg("forecast", after_round=1, after_game=0, total_rounds=2, simulations=1000,
               seed=0, top=1, model={"kind": "elo-draw", "draw_rate": 0.5,
                                     "white_advantage": 35.0, "prior_sd": 100.0, "games": 1},
               players=[{"id": "B", "name": "Beta", "score": 1.0, "expected_score": 1.6,
                         "expected_place": 1.3, "top": 0.7, "places": [0.7, 0.3],
                         "rating": 3520.0, "prior_rating": 3500.0},
                        {"id": "A", "name": "Alpha", "score": 0.0, "expected_score": 0.4,
                         "expected_place": 1.7, "top": 0.3, "places": [0.3, 0.7],
                         "rating": 3480.0, "prior_rating": 3500.0}])


def feed(model: PageModel, *msgs: tuple[str, bytes]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for topic, payload in msgs:
        out += model.apply(f"{P}/{topic}", payload)
    return out


def test_a_move_is_one_small_message_and_the_page_state_follows_the_game() -> None:
    m = PageModel("tcecd")
    feed(m, ("event", EVENT), ("round/1/pairing", PAIRING), ("game/1.1/start", START))
    game = m.snapshot()["sections"]["game"]
    assert game["white"] == {"id": "A", "name": "Alpha"}
    assert game["moves"] == []
    assert game["clock_ts"] == "2026-11-22T05:00:00.000Z"  # clocks run from the start
    out = feed(m, ("game/1.1/move", E4))
    # One ply appended: a "move" message with the ply and the head, not the whole game.
    assert [o["t"] for o in out] == ["move"]
    assert out[0]["move"]["san"] == "e4"
    assert out[0]["move"]["eval"] == "0.21"
    assert out[0]["move"]["depth"] == 21
    assert out[0]["head"]["turn"] == "b"
    assert "moves" not in out[0]["head"]
    out2 = feed(m, ("game/1.1/move", E5))
    assert out2[0]["seq"] == out[0]["seq"] + 1  # the page detects gaps by seq
    sections = m.snapshot()["sections"]
    assert [x["san"] for x in sections["game"]["moves"]] == ["e4", "e5"]
    assert [x["cp"] for x in sections["game"]["moves"]] == [21, 15]  # the eval graph's data
    assert sections["round"]["games"][0] == {"game": "1.1", "white": "Alpha", "black": "Beta",
                                             "result": None, "termination": None,
                                             "running": True}


def test_standings_crosstable_faults_forecast_and_status() -> None:
    m = PageModel("tcecd")
    feed(m, ("event", EVENT), ("status", msg("status", state="online")))
    out = feed(m, ("standings", msg("standings", after_round=1, final=False, rows=[
        {"rank": 1, "id": "B", "score": 1.0, "score_half": 2, "byes": 0, "games": 1,
         "tiebreaks": {"sonneborn-berger": 0.0, "wins": 1.0}},
        {"rank": 2, "id": "A", "score": 0.0, "score_half": 0, "byes": 0, "games": 1,
         "tiebreaks": {"sonneborn-berger": 0.0, "wins": 0.0}}])))
    assert out[0]["t"] == "delta"
    assert list(out[0]["sections"]) == ["standings"]
    st = out[0]["sections"]["standings"]
    assert [(r["rank"], r["name"], r["score"]) for r in st["rows"]] == [(1, "Beta", 1.0),
                                                                        (2, "Alpha", 0.0)]
    assert st["tiebreaks"] == ["sonneborn-berger", "wins"]
    feed(m, ("engine/Alpha/fault", msg("fault", engine="A", game="1.1", kind="crash",
                                       detail="process died (exit code 3)", strikes=1)),
         ("engine/Alpha/state", msg("engine", engine="A", strikes=1, disqualified=False,
                                    reason=None)))
    s = m.snapshot()["sections"]
    assert s["engines"]["faults"][0]["engine"] == "Alpha"
    assert s["engines"]["faults"][0]["kind"] == "crash"
    assert s["standings"]["rows"][1]["strikes"] == 1
    # A TCEC-format crosstable: names in rank order, head-to-head texts.
    feed(m, ("crosstable", msg("crosstable", format="tcec", crosstable={
        "Order": ["Beta", "Alpha"], "Table": {
            "Beta": {"Rank": 1, "Abbreviation": "Bet", "Score": 1.0,
                     "Results": {"Alpha": {"Text": "1"}}},
            "Alpha": {"Rank": 2, "Abbreviation": "Alp", "Score": 0.0,
                      "Results": {"Beta": {"Text": "0"}}}}})))
    ct = m.snapshot()["sections"]["crosstable"]
    assert [p["abbr"] for p in ct["players"]] == ["Bet", "Alp"]
    assert ct["cells"] == {"Beta": {"Alpha": "1"}, "Alpha": {"Beta": "0"}}
    # The forecast as the daemon publishes it (docs/events.md: `players`, best first):
    # the page gets each engine's row (issue 27: it read `rows` and showed nothing).
    out = feed(m, ("forecast", FORECAST))
    assert out[0]["sections"] == {"forecast": {
        "after_round": 1, "after_game": 0, "total_rounds": 2, "simulations": 1000, "top": 1,
        "players": [
            {"name": "Beta", "score": 1.0, "expected_score": 1.6, "expected_place": 1.3,
             "top": 0.7, "places": [0.7, 0.3]},
            {"name": "Alpha", "score": 0.0, "expected_score": 0.4, "expected_place": 1.7,
             "top": 0.3, "places": [0.3, 0.7]}]}}
    out = feed(m, ("status", msg("status", state="offline")))
    assert out[0]["sections"]["event"]["status"] == "offline"


def test_the_followed_game_stays_until_it_ends() -> None:
    """Two games at once (concurrency 2): the page keeps the one it shows until it ends."""
    m = PageModel("tcecd")
    start2 = START.replace(b'"1.1"', b'"1.2"').replace(b'"number": 1', b'"number": 2')
    feed(m, ("event", EVENT), ("game/1.1/start", START), ("game/1.2/start", start2))
    first = m.snapshot()["sections"]["game"]["id"]
    other = "1.2" if first == "1.1" else "1.1"
    feed(m, (f"game/{other}/move", E4.replace(b'"1.1"', f'"{other}"'.encode())))
    assert m.snapshot()["sections"]["game"]["id"] == first
    feed(m, (f"game/{first}/end", msg("end", game=first, white="A", black="B", result="1-0",
                                      termination="adjudication", termination_detail="x",
                                      plies=0, pgn="")))
    feed(m, (f"game/{other}/move", E5.replace(b'"1.1"', f'"{other}"'.encode())))
    assert m.snapshot()["sections"]["game"]["id"] == other


def test_a_new_run_of_the_event_forgets_the_old_one() -> None:
    m = PageModel("tcecd")
    feed(m, ("event", EVENT), ("game/1.1/start", START), ("game/1.1/move", E4),
         ("forecast", FORECAST))
    assert m.snapshot()["sections"]["forecast"] is not None
    feed(m, ("event", EVENT.replace(b"run1", b"run2")))
    s = m.snapshot()["sections"]
    assert s["game"] is None
    assert s["forecast"] is None


def test_pgn_push_is_cut_as_tcec_server_does() -> None:
    """TCEC's server.js: same Headers -> the last 2 plies, lastMoveLoaded = the index
    of the first sent (5 plies: 3), totalSent 2; Round "2.1" -> 210. Headers changed
    -> every ply, gameChanged 1, lastMoveLoaded = 5."""
    doc = {"Headers": {"Round": "2.1", "White": "A"}, "Moves": [{"m": str(i)} for i in range(5)]}
    same = delta_pgn(doc, {"Round": "2.1", "White": "A"}, users=3)
    assert [x["m"] for x in same["Moves"]] == ["3", "4"]
    assert (same["lastMoveLoaded"], same["totalSent"], same["gameChanged"]) == (3, 2, 0)
    assert (same["Round"], same["Users"], same["numMovesToSend"]) == (210, 3, 2)
    assert len(doc["Moves"]) == 5  # the kept document is not cut
    new = delta_pgn(doc, {"Round": "1.2", "White": "A"}, users=3)
    assert (len(new["Moves"]), new["lastMoveLoaded"], new["gameChanged"]) == (5, 5, 1)
    one = delta_pgn({"Headers": {"Round": "1.1"}, "Moves": [{"m": "e4"}]}, None, users=0)
    assert (one["lastMoveLoaded"], one["totalSent"]) == (1, 1)


def test_tcec_feed_builds_the_running_game_and_schedule() -> None:
    f = TcecFeed()
    for topic, payload in (("event", EVENT), ("round/1/pairing", PAIRING),
                           ("game/1.1/start", START), ("game/1.1/move", E4)):
        f.apply(topic.split("/"), json.loads(payload))
    live = f.docs["pgn"]
    # While the game runs: Result "*", no Termination (the viewer would end the game).
    assert live["Headers"]["Result"] == "*"
    assert "Termination" not in live["Headers"]
    assert live["Headers"]["White"] == "Alpha"
    assert live["Headers"]["WhiteElo"] == "3500"
    assert live["Moves"][0]["m"] == "e4"
    assert live["Moves"][0]["wv"] == "0.21"
    assert (live["Moves"][0]["from"], live["Moves"][0]["to"]) == ("e2", "e4")
    sched = f.docs["schedule"]
    assert sched == [{"Game": 1, "Round": "1.1", "White": "Alpha", "Black": "Beta",
                      "Start": "05:00:00 on 2026.11.22", "Result": "*",
                      "Termination": "in progress"}]
    assert f.docs["tournament"] == {"name": "Ev", "cup": 0, "link": "event=ev"}


def test_tcec_feed_serves_a_cup_from_its_bracket_document() -> None:
    """A knockout cup: tournament.json says `cup` (TCEC's viewer then shows the
    bracket) and Eventcrosstable.json is the daemon's, rebuilt from the retained
    `bracket` document; a bracket no cup can have made changes nothing."""
    from tcecd.formats.knockout import bracket_document, eventcrosstable_json
    from tests.formats.knockout.helpers import NAMES, cup7

    players = [{"id": pid, "name": name, "seed": int(pid[1:]), "rating": None}
               for pid, name in NAMES.items()]
    f = TcecFeed()
    changed = f.apply(["event"], json.loads(msg("event", name="Cup", system="knockout",
                                                 players=players)))
    assert "tournament" in changed
    assert f.docs["tournament"] == {"name": "Cup", "cup": 1, "link": "event=cup"}
    assert "bracket" not in f.docs
    semis = json.loads(msg("bracket", **bracket_document(cup7("semis"))))
    assert f.apply(["bracket"], semis) == ["bracket"]
    assert f.docs["bracket"] == eventcrosstable_json(cup7("semis"), NAMES)
    wrong = json.loads(json.dumps(semis))
    wrong["rounds"][1]["encounters"][0]["games"][0]["white"] = "P7"  # out in round 1
    assert f.apply(["bracket"], wrong) == []
    assert f.docs["bracket"] == eventcrosstable_json(cup7("semis"), NAMES)
    assert f.apply(["bracket"], json.loads(msg("bracket", **bracket_document(
        cup7("finished"))))) == ["bracket"]
    assert f.docs["bracket"] == eventcrosstable_json(cup7("finished"), NAMES)
