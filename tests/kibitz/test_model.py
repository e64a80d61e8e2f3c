"""Kibitzers, the pure part: which position each kibitzer analyses, what its
report says, and the documents made of it (TCEC's files, the MQTT payload, the
lines of ``tcecd watch`` and ``tcecd web``). Expected values are worked out by
hand from the positions (FENs as python-chess writes them)."""

from __future__ import annotations

import json

import chess
import chess.engine
import pytest

from tcecd.bus.inbound import InvalidPayload, parse
from tcecd.bus.payloads import Kind, Projection
from tcecd.domain import Color, GameId
from tcecd.events import GameStarted, KibitzerReport, MovePlayed
from tcecd.game.record import MoveRecord, Opening, Score
from tcecd.kibitz.model import Position, RunningGames, describe, kibitzer_report
from tcecd.outputs.tcec_kibitzer import KibitzerDocuments, kibitzer_entry, numbered_pv, speed
from tcecd.watch.model import Watcher
from tcecd.watch.render import kibitzer_line, render
from tcecd.web.model import PageModel
from tcecd.web.tcec import TcecFeed

START = Opening(name=None, fen=None)
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
TS = "2026-11-27T10:00:00.000Z"


def started(gid: GameId, opening: Opening = START) -> GameStarted:
    return GameStarted(gid, "A", "B", opening, "60+1", TS, 60000, 60000)


def moved(gid: GameId, ply: int, uci: str) -> MovePlayed:
    color = Color.WHITE if ply % 2 else Color.BLACK
    return MovePlayed(gid, MoveRecord(ply, color, uci, "?", "?"), None, None)


def test_a_kibitzer_follows_the_nth_running_game_of_the_playing_order() -> None:
    games = RunningGames()
    assert games.position(1) is None  # between games: nothing to analyse
    games.started(started(GameId(2, 2)))
    games.started(started(GameId(2, 1)))  # started later, but first in the playing order
    games.moved(moved(GameId(2, 1), 1, "e2e4"))
    games.moved(moved(GameId(2, 2), 1, "d2d4"))
    games.moved(moved(GameId(2, 2), 2, "d7d5"))
    first, second = games.position(1), games.position(2)
    assert first == Position(GameId(2, 1), START, ("e2e4",))
    assert second == Position(GameId(2, 2), START, ("d2d4", "d7d5"))
    assert games.position(3) is None
    assert first is not None
    assert first.ply == 1
    assert first.board().fen() == AFTER_E4
    games.finished(GameId(2, 1))
    assert games.position(1) == second  # the next game of the order still running
    assert games.position(2) is None
    games.started(started(GameId(2, 2)))  # played again from its start
    assert games.position(1) == Position(GameId(2, 2), START, ())


def test_book_plies_left_out_of_the_stream_come_from_the_opening() -> None:
    book = Opening(name="Open", fen=None, moves=("e2e4", "e7e5", "g1f3"))
    games = RunningGames()
    games.started(started(GameId(1, 1), book))
    games.moved(moved(GameId(1, 1), 4, "b8c6"))  # the first engine move: ply 4
    pos = games.position()
    assert pos is not None
    assert pos.moves == ("e2e4", "e7e5", "g1f3", "b8c6")
    assert pos.board().fen() == (
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    games.moved(moved(GameId(1, 1), 4, "g8f6"))  # a repeated ply replaces the first
    pos = games.position()
    assert pos is not None
    assert pos.moves[-1] == "g8f6"
    assert pos.ply == 4


def _info(board: chess.Board, line: str) -> dict[str, object]:
    return dict(chess.engine._parse_uci_info(line, board))


def report_after_e4() -> KibitzerReport:
    pos = Position(GameId(3, 1), START, ("e2e4",))
    board = pos.board()
    # Black to move: the engine's score and WDL are Black's.
    info = _info(board, "depth 12 seldepth 15 score cp 30 wdl 300 600 100 nodes 5000 nps 100000 "
                        "tbhits 7 hashfull 12 time 50 pv e7e5 g1f3")
    report = kibitzer_report(1, "stockfish", "Threads 1, Hash 16", pos, board, info)
    assert report is not None
    return report


def test_a_report_is_from_whites_point_of_view_with_the_pv_in_san() -> None:
    r = report_after_e4()
    assert (r.kibitzer, r.engine, r.desc, r.game_id, r.ply) == (
        1, "stockfish", "Threads 1, Hash 16", GameId(3, 1), 1)
    assert r.fen == AFTER_E4
    assert r.score == Score(cp=-30)  # Black's +0.30 is White's -0.30
    assert r.wdl == (100, 600, 300)  # Black's 300 wins are White's 300 losses
    assert (r.depth, r.seldepth, r.nodes, r.nps, r.tbhits, r.hashfull, r.time_ms) == (
        12, 15, 5000, 100000, 7, 12, 50)
    assert (r.pv_san, r.pv_uci) == (("e5", "Nf3"), ("e7e5", "g1f3"))
    pos = Position(GameId(3, 1), START, ())
    board = pos.board()
    # No score yet (an engine's first lines): nothing to report.
    assert kibitzer_report(0, "x", "", pos, board, _info(board, "depth 1 nodes 20")) is None
    mated = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    report = kibitzer_report(0, "x", "", pos, mated, _info(mated, "depth 0 score mate 0"))
    assert report is not None
    assert report.score == Score(mate=-1)
    assert report.pv_san == ()
    assert describe({"Hash": 16, "Threads": 4, "Contempt": 0}) == "Threads 4, Hash 16"
    assert describe({}) == ""


def test_tcec_pv_numbers_and_speed() -> None:
    start = chess.STARTING_FEN
    assert numbered_pv(start, ["e4", "e5", "Nf3"]) == "1. e4 e5 2. Nf3"
    assert numbered_pv(AFTER_E4, ["e5", "Nf3", "Nc6"]) == "1...e5 2. Nf3 Nc6"
    # The spec's example: White's 28th move.
    fen28 = "8/8/8/8/8/8/8/K6k w - - 0 28"
    assert numbered_pv(fen28, ["Rb6", "Kh7", "Rb8"]) == "28. Rb6 Kh7 29. Rb8"
    assert (speed(850), speed(33_400), speed(12_345_678), speed(None)) == (
        "850n/s", "33kn/s", "12.3Mn/s", None)


def test_tcec_documents_of_a_kibitzer() -> None:
    r = report_after_e4()
    assert kibitzer_entry(r) == {
        "engine": "stockfish", "desc": "Threads 1, Hash 16", "round": "3.1",
        "pv": "1...e5 2. Nf3", "eval": "-0.30", "depth": "12/15", "nodes": 5000,
        "speed": "100kn/s", "tbhits": 7, "wdl": "100 600 300"}
    docs = KibitzerDocuments()
    assert docs.data() is None
    assert docs.history() is None
    first = KibitzerReport(1, "stockfish", "", GameId(3, 1), 0, chess.STARTING_FEN,
                           Score(cp=20), depth=10, pv_san=("e4",))
    assert docs.add(first)
    assert docs.add(r)
    history = docs.history()
    assert history is not None
    assert (history["engine"], history["round"], "desc" in history) == ("stockfish", "3.1", True)
    # The history's evaluations are the side to move's (the viewer turns Black's around).
    assert [(m["pv"], m["eval"]) for m in history["moves"]] == [
        ("1. e4", "0.20"), ("1...e5 2. Nf3", "0.30")]
    assert docs.data() == kibitzer_entry(r)  # the latest, from White's point of view
    later = KibitzerReport(1, "stockfish", "", GameId(3, 1), 1, AFTER_E4, Score(cp=-25),
                           depth=14, pv_san=("c5",))
    assert docs.add(later)
    history = docs.history()
    assert history is not None
    assert [m["pv"] for m in history["moves"]] == ["1. e4", "1...c5"]
    # Without a PV the viewer cannot place a report: left out.
    assert not docs.add(KibitzerReport(1, "stockfish", "", GameId(3, 1), 2, AFTER_E4, None))
    # Another game: a history of its own.
    assert docs.add(KibitzerReport(1, "stockfish", "", GameId(3, 2), 0, chess.STARTING_FEN,
                                   Score(mate=3), pv_san=("d4",)))
    history = docs.history()
    assert history is not None
    assert history["round"] == "3.2"
    assert history["moves"] == [{"engine": "stockfish", "pv": "1. d4", "eval": "M3"}]


def test_the_mqtt_payload_passes_the_schema_check() -> None:
    (msg,) = Projection("tcecd/x", "X").messages_for(report_after_e4(), TS)
    assert (msg.topic, msg.qos, msg.retain, msg.kind) == ("tcecd/x/kibitzer/1", 0, True,
                                                          Kind.SNAPSHOT)
    doc = parse(["kibitzer", "1"], msg.payload)
    assert doc == json.loads(msg.payload)
    assert doc is not None
    assert {k: doc[k] for k in ("type", "kibitzer", "engine", "game", "ply", "eval", "wdl",
                                "pv", "pv_uci")} == {
        "type": "kibitzer", "kibitzer": 1, "engine": "stockfish", "game": "3.1", "ply": 1,
        "eval": {"cp": -30, "mate": None, "text": "-0.30"}, "wdl": [100, 600, 300],
        "pv": ["e5", "Nf3"], "pv_uci": ["e7e5", "g1f3"]}
    with pytest.raises(InvalidPayload, match="on the topic of kibitzer 0"):
        parse(["kibitzer", "0"], msg.payload)


def _messages(*events: object) -> list[tuple[str, bytes]]:
    p = Projection("tcecd/x", "X")
    return [(m.topic, m.payload) for e in events for m in p.messages_for(e, TS)]  # type: ignore[arg-type]


def test_watch_and_web_show_the_kibitzer_beside_the_players() -> None:
    gid = GameId(3, 1)
    e4 = MoveRecord(1, Color.WHITE, "e2e4", "e4", AFTER_E4, depth=20, score=Score(cp=25))
    other = KibitzerReport(0, "lc0", "", GameId(3, 2), 0, chess.STARTING_FEN, Score(cp=5),
                           pv_san=("d4",))
    msgs = _messages(started(gid), MovePlayed(gid, e4, 60000, 60000), report_after_e4(), other)
    watcher, page = Watcher("tcecd"), PageModel("tcecd")
    for topic, payload in msgs:
        watcher.apply(topic, payload)
        page.apply(topic, payload)
    view = watcher.selected
    assert view is not None
    assert [k["engine"] for k in view.kibitzers_of("3.1")] == ["stockfish"]  # not lc0's game
    line = "K2 stockfish -0.30 d12/15 5.00k: 1... e5 2. Nf3"
    assert kibitzer_line(view.kibitzers_of("3.1")[0]) == line
    assert line in render(view)
    assert page.sections["kibitzers"] == [{
        "n": 1, "engine": "stockfish", "desc": "Threads 1, Hash 16", "game": "3.1", "ply": 1,
        "eval": "-0.30", "cp": -30, "mate": None, "depth": 12, "seldepth": 15, "nodes": 5000,
        "nps": 100000, "tbhits": 7, "wdl": [100, 600, 300], "pv": "1... e5 2. Nf3"}]


def test_tcecd_web_feeds_tcec_viewer_the_daemons_documents() -> None:
    feed = TcecFeed()
    report = report_after_e4()
    changed: list[str] = []
    for topic, payload in _messages(report):
        rest = topic.split("/")[2:]
        changed += feed.apply(rest, parse(rest, payload))  # checked first, as tcecd web does
    assert changed == ["liveeval1", "livechart1"]  # the second kibitzer's events
    docs = KibitzerDocuments()
    docs.add(report)
    assert feed.docs["liveeval1"] == docs.data()
    assert feed.docs["livechart1"] == docs.history()
    # A message that breaks the schema never reaches the feed.
    with pytest.raises(InvalidPayload):
        parse(["kibitzer", "0"], b'{"schema": 1, "type": "kibitzer"}')
