"""The files TCEC's own web viewer reads, as a real `tcecd run` writes them,
checked field by field against ../shared/specs/tcec-formats.md ("What TCEC's
web viewer reads"): live.pgn (the live game JSON, as on TCEC's site) mid-game and
after the event, the running game in schedule.json, crash.json, tournament.json,
and no null anywhere."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import chess.pgn
import pytest

from tests.daemon.helpers import run_tcecd, write_config

pytestmark = pytest.mark.slow

#: schedule.json's Start: "HH:MM:SS on YYYY.MM.DD" (TCEC's cutechess, UTC).
START = re.compile(r"^\d\d:\d\d:\d\d on \d{4}\.\d\d\.\d\d$")


def _no_null(value: Any, where: str) -> None:
    """The viewer prints a null literally ("6/null", "0nps"): none may appear."""
    assert value is not None, where
    if isinstance(value, dict):
        for k, v in value.items():
            _no_null(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _no_null(v, f"{where}[{i}]")


def _viewer_moves(start_fen: str, moves: list[dict[str, Any]]) -> None:
    """What TCEC's viewer needs of each move to place the board: its ``fen``,
    from which it takes the move's ply (``get_fen_ply`` in tcecgui's
    js/global.js: ``(fullmove - 1) * 2 - (white to move)``), one after the other
    from the start position, and ``from``/``to``; checked by replaying the SANs."""
    board = chess.Board(start_fen)
    ply = (board.fullmove_number - 1) * 2 - (board.turn == chess.WHITE)
    for m in moves:
        move = board.parse_san(m["m"])
        board.push(move)
        ply += 1
        fields = m["fen"].split()
        assert (int(fields[5]) - 1) * 2 - (fields[1] == "w") == ply
        assert m["fen"] == board.fen()
        assert (m["from"], m["to"]) == (chess.square_name(move.from_square),
                                        chess.square_name(move.to_square))


def _json(tcec: Path, name: str) -> Any:
    return json.loads((tcec / name).read_text(encoding="utf-8"))


def test_viewer_files_mid_game_and_after_the_event(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, rounds=2, concurrency=1, max_moves=20)
    # Every move rewrites the files here (by default at most ten times a second:
    # these engines play the first ten plies in far less than 0.1 s).
    text = cfg.read_text(encoding="utf-8")
    cfg.write_text(text.replace("outputs: {state_dir: state}",
                                "outputs: {state_dir: state, live_interval_ms: 0}"),
                   encoding="utf-8")  # fmt: skip
    killed = run_tcecd(cfg, crash_at="mid-game:1.1:ply=10")
    assert killed.returncode != 0  # SIGKILLed in the middle of game 1.1
    tcec = tmp_path / "state" / "tcec"

    # live.pgn: as on TCEC's site, the live game JSON (the viewer reads it before any
    # other file; from PGN text it cannot place the board of a game whose first move
    # is Black's, issue 27). Game 1.1 starts from the Ruy Lopez, Black to move.
    live_pgn = _json(tcec, "live.pgn")
    headers = live_pgn["Headers"]
    assert headers["Round"] == "1.1"
    assert headers["Result"] == "*"
    assert "Termination" not in headers
    assert "TerminationDetails" not in headers
    assert headers["SetUp"] == "1"
    assert headers["FEN"].split()[1] == "b"
    # Killed at ply 10: the single file writer coalesces writes off the loop, so
    # the newest plies may not have reached the disk before the SIGKILL (one or
    # two alone; three in a loaded CI run, killed at ply 7: 4 moves on disk).
    assert len(live_pgn["Moves"]) >= 5
    _viewer_moves(headers["FEN"], live_pgn["Moves"])
    assert "WhiteEngineOptions" in live_pgn
    # live.json agrees with it ply for ply (either may be a ply behind the other).
    live = _json(tcec, "live.json")
    shorter = min(len(live["Moves"]), len(live_pgn["Moves"]))
    assert shorter >= 5
    assert live["Moves"][:shorter] == live_pgn["Moves"][:shorter]
    _no_null(live, "live.json")
    # schedule.json: the running game as TCEC writes it.
    schedule = _json(tcec, "schedule.json")
    running = schedule[0]
    assert (running["Result"], running["Termination"]) == ("*", "in progress")
    assert START.match(running["Start"]), running["Start"]
    assert "Start" not in schedule[1]
    assert "Result" not in schedule[1]

    done = run_tcecd(cfg)
    assert done.returncode == 0, done.stderr[-3000:]
    pgn = (tmp_path / "state" / "event.pgn").read_text(encoding="utf-8")
    last = "[Event " + pgn.split("[Event ")[-1]
    # After the event live.pgn is the last game, as in the event PGN: its tags, its
    # moves, and the board at its final position.
    final = _json(tcec, "live.pgn")
    assert final == _json(tcec, "live.json")
    game = chess.pgn.read_game(io.StringIO(last))
    assert game is not None
    assert final["Headers"] == dict(game.headers)
    start = game.headers.get("FEN", chess.STARTING_FEN)
    _viewer_moves(start, final["Moves"])
    assert [m["m"] for m in final["Moves"]] == [n.san() for n in game.mainline()]
    assert final["Moves"][-1]["fen"] == game.end().board().fen()
    schedule = _json(tcec, "schedule.json")
    for row in schedule:
        assert START.match(row["Start"]), row
        assert row["Termination"] != "in progress"
        assert row["Termination"] not in ("TCEC resign rule", "TCEC max moves rule")
    crosstable = _json(tcec, "crosstable.json")
    assert all(name in crosstable["Table"] for name in crosstable["Order"])
    assert _json(tcec, "crash.json") == []  # no engine fault in this event
    tournament = _json(tcec, "tournament.json")
    assert tournament["cup"] == 0
    assert tournament["link"]
    for name in ("schedule.json", "crosstable.json", "tournament.json", "live.json"):
        _no_null(_json(tcec, name), name)
