"""A null move (``bestmove 0000``) is the sender's illegal move, never the opponent's problem.

python-chess reads ``0000`` as ``chess.Move.null()`` and does not check it against the
position. Passed on, it reaches the opponent as ``position ... moves ... 0000``: Stockfish
crashes on it (exit -11) and the innocent engine lost the game ("disconnects"), and
``tcecd play`` stopped the whole match with exit 2. A null move is never legal in a game
(FIDE Laws 3.1: a move must be made; "passing" is not a move), so the engine that sent
it makes an illegal move; its opponent never sees it.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import pytest

from tcecd.config.engines import EngineConfig
from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.runner.game import GameOutcome, GameSetup, play_game
from tcecd.runner.session import EngineSession, FaultKind

ConfigFactory = Callable[..., EngineConfig]


async def _play(white: EngineConfig, black: EngineConfig) -> GameOutcome:
    setup = GameSetup(
        game_id=GameId(1, 1),
        event="null",
        site="test",
        rules=GameRules(
            time_control=TimeControl.parse("10+0.1"),
        ),
    )
    async with asyncio.timeout(60):
        async with EngineSession(white) as w, EngineSession(black) as b:
            return await play_game(setup, w, b)


async def test_null_move_against_stockfish_is_an_illegal_move_of_its_sender(
    engine_config: ConfigFactory,
    stockfish_config: EngineConfig,
) -> None:
    sf = stockfish_config.model_copy(update={"options": {"Threads": 1, "Hash": 16}})
    outcome = await _play(sf, engine_config("broken-null"))
    record, faults = outcome.record, outcome.faults
    # broken-null (--after 3) sends 0000 on its third go, as Black: after 1-3 moves each
    # side has made two moves, plus White's third: 5 plies, none of them a null move.
    assert [(f.engine, f.color, f.kind, f.detail) for f in faults] == [
        ("broken-null", Color.BLACK, FaultKind.ILLEGAL_MOVE, "0000")
    ]
    assert record.result is Result.WHITE_WINS
    assert record.termination is Termination.ILLEGAL_MOVE
    assert record.termination_detail == "Black makes an illegal move: 0000"
    assert len(record.moves) == 5
    assert all(m.uci != "0000" for m in record.moves)


@pytest.mark.slow
def test_play_goes_on_after_a_null_move(tmp_path: Path) -> None:
    """``tcecd play``: both games are lost by the null-move engine; the match ends, exit 0."""
    pgn = tmp_path / "m.pgn"
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "tcecd", "play", "broken-null", "ab-d1"),
            *("--games", "2", "--tc", "10+0.1", "--pgn", str(pgn)),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    games = []
    with pgn.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors, game.errors
            games.append(game)
    assert len(games) == 2
    for game in games:
        loser_is_white = game.headers["White"] == "broken-null"
        assert game.headers["Result"] == ("0-1" if loser_is_white else "1-0")
        side = "White" if loser_is_white else "Black"
        assert game.headers["TerminationDetails"] == f"{side} makes an illegal move: 0000"
        # Every recorded move is legal (python-chess would report an error otherwise)
        # and none is the null move.
        assert all(move != chess.Move.null() for move in game.mainline_moves())
