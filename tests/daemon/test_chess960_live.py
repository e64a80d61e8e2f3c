"""A running Chess960 game on every live channel, fed the domain events the runner
emits (no engines): TCEC's ``live.json`` (castling's ``from``/``to``,
the start position), the MQTT payloads, ``tcecd watch``'s view and ``tcecd web``'s
page model and TCEC feed."""

from __future__ import annotations

import io
from typing import Any

import chess
import chess.pgn

from tcecd.bus.inbound import parse
from tcecd.bus.payloads import Projection
from tcecd.daemon.live import LiveGame
from tcecd.domain import GameId
from tcecd.events import EventStarted, GameFinished, GameStarted, MovePlayed
from tcecd.pairing.base import Player
from tcecd.pgn.writer import game_pgn, start_tags
from tcecd.watch.model import Watcher
from tcecd.watch.render import opening_text
from tcecd.web.model import PageModel
from tcecd.web.tcec import TcecFeed
from tests.pgn.test_chess960_pgn import DOUBLE, chess960_record

TS = "2026-11-27T10:00:00.000Z"
RECORD = chess960_record()
GID = GameId(1, 1)


def _events() -> list[Any]:
    tags = start_tags(
        event="FRC test", site="tests", game_id=GID, white="sf-a", black="sf-b",
        start_time=RECORD.start_time, time_control="60+1", opening=DOUBLE,
    )  # fmt: skip
    started = GameStarted(GID, "sf-a", "sf-b", DOUBLE, "60+1", RECORD.start_time, 60_000,
                          60_000, headers=tuple(tags))  # fmt: skip
    moves = [MovePlayed(GID, m, 59_000, 59_000) for m in RECORD.moves[:2]]
    players = (Player("sf-a", "sf-a", 1), Player("sf-b", "sf-b", 2))
    return [EventStarted("FRC test", "tests", "round-robin", False, 1, "60+1", players,
                         variant="chess960"), started, *moves]  # fmt: skip


def _messages() -> list[tuple[str, bytes, Any]]:
    projection = Projection("tcecd/frc-test", "FRC test")
    return [
        (m.topic, m.payload, m.json()) for e in _events() for m in projection.messages_for(e, TS)
    ]


def test_live_json_and_pgn_show_the_start_and_the_castling() -> None:
    started = _events()[1]
    live = LiveGame(dict(started.headers), DOUBLE)
    for move in RECORD.moves[:2]:
        live.add(move)
    doc = live.document()
    assert doc["Headers"]["FEN"] == DOUBLE.fen
    assert doc["Headers"]["Variant"] == "fischerandom"
    # Castling as TCEC's cutechess writes it: from the king's square to the rook's.
    first, second = doc["Moves"]
    assert (first["m"], first["from"], first["to"]) == ("O-O-O", "d1", "c1")
    assert (second["m"], second["from"], second["to"]) == ("O-O", "f8", "g8")
    assert second["fen"] == RECORD.moves[1].fen_after
    # The PV's moves too (the second move's PV is the castling itself).
    assert second["pv"]["Moves"] == [{"m": "O-O", "fen": second["fen"], "from": "f8", "to": "g8"}]
    # live.pgn holds this JSON document (as on TCEC's site); the game's PGN text is
    # event.pgn's, which reads back as the Chess960 game.
    game = chess.pgn.read_game(io.StringIO(game_pgn(RECORD)))
    assert game is not None
    assert not game.errors
    assert game.board().chess960
    # The finished game: the final PGN, its moves as the running game showed them.
    final = LiveGame.finished(RECORD, game_pgn(RECORD), known=live)
    assert final.document()["Moves"][:2] == doc["Moves"]
    assert final.document()["Headers"]["Variant"] == "fischerandom"


def test_mqtt_payloads_say_chess960_and_castle_king_takes_rook() -> None:
    docs = {topic: doc for topic, _, doc in _messages()}
    assert docs["tcecd/frc-test/event"]["variant"] == "chess960"
    start = docs["tcecd/frc-test/game/1.1/start"]
    assert start["variant"] == "chess960"
    assert start["opening"]["chess960"] is True
    assert start["fen"] == DOUBLE.fen
    moves = [doc for topic, _, doc in _messages() if topic.endswith("/move")]
    assert [(m["san"], m["uci"]) for m in moves] == [("O-O-O", "d1c1"), ("O-O", "f8g8")]
    # The uci a consumer reads is a Chess960 move of the position before it.
    board = chess.Board(start["fen"], chess960=True)
    for m in moves:
        board.push_uci(m["uci"])
        assert board.fen() == m["fen"]


def test_watch_shows_a_chess960_game() -> None:
    watcher = Watcher("tcecd")
    for topic, payload, _ in _messages():
        watcher.apply(topic, payload)
    view = watcher.selected
    assert view is not None
    game = view.current_game
    assert game is not None
    assert game.chess960
    assert game.start_fen == DOUBLE.fen
    assert game.moves == ["O-O-O", "O-O"]
    assert game.fen == RECORD.moves[1].fen_after
    assert opening_text(game) == "dfrc-1 (Chess960)"


def test_web_page_and_tcec_feed_of_a_chess960_game() -> None:
    page, feed = PageModel("tcecd"), TcecFeed()
    for topic, payload, _ in _messages():
        page.apply(topic, payload)
        levels = topic.split("/")[2:]
        feed.apply(levels, parse(levels, payload))
    game = page.snapshot()["sections"]["game"]
    assert game["chess960"] is True
    assert game["start_fen"] == DOUBLE.fen
    assert game["last"]["uci"] == "f8g8"
    live = feed.docs["pgn"]
    assert live["Headers"]["Variant"] == "fischerandom"
    assert live["Headers"]["FEN"] == DOUBLE.fen
    assert [(m["m"], m["from"], m["to"]) for m in live["Moves"]] == [
        ("O-O-O", "d1", "c1"), ("O-O", "f8", "g8")
    ]
    finished = GameFinished(RECORD, game_pgn(RECORD))
    for m in Projection("tcecd/frc-test", "FRC test").messages_for(finished, TS):
        levels = m.topic.split("/")[2:]
        feed.apply(levels, parse(levels, m.payload))
    assert feed.docs["pgn"]["Headers"]["Variant"] == "fischerandom"
