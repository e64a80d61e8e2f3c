"""Real engines from Debian: Stockfish (UCI) and HoiChess (xboard).

The Stockfish match is the "no false forfeits" check of the clock: 24 games of
Stockfish against itself at 1 s + 10 ms, two games at a time, must end with no
time loss. tcecd measures think time from ``go`` to ``bestmove`` with a
monotonic clock; the margin (200 ms here) absorbs OS scheduling delays on a
2-core machine that runs two Stockfish processes and tcecd at once (see
docs/engines.md, "Clocks and margins"). It was 40 games; 24 keep the suite within
its ten minutes (the match alone took 82 s of them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import pytest

from tcecd import eventloop
from tcecd.config.engines import EngineConfig
from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.record import Opening
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.runner.game import GameSetup, play_game
from tcecd.runner.match import MatchResult, MatchSpec, run_match, unique_names
from tcecd.runner.session import EngineSession, FaultKind

ConfigFactory = Callable[..., EngineConfig]


@pytest.mark.stockfish
@pytest.mark.slow
# Its promise is about a 2-core machine running the match (2 games at a time), not
# one that a parallel test worker also loads: tests/run.sh runs it on its own.
@pytest.mark.solo
def test_stockfish_24_games_no_time_forfeits(
    stockfish_config: EngineConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = stockfish_config.model_copy(update={"options": {"Threads": 1, "Hash": 16}})
    pgn_path = tmp_path / "sf.pgn"
    spec = MatchSpec(
        engines=unique_names([config, config]),
        games=24,
        time_control=TimeControl.parse("1+0.01"),
        pgn_path=pgn_path,
        concurrency=2,
        # margin_ms left at its default (200): the promise holds with defaults.
    )

    async def match() -> MatchResult:
        async with asyncio.timeout(600):
            return await run_match(spec)

    # On the loop `tcecd play` and the daemon run on (uvloop, tcecd/eventloop.py).
    monkeypatch.delenv(eventloop.ENV, raising=False)
    result = eventloop.run(match())
    assert len(result.outcomes) == 24
    forfeits = [o.faults for o in result.outcomes if o.faults]
    assert forfeits == []
    assert all(o.summary.termination is not Termination.TIME_FORFEIT for o in result.outcomes)
    assert all(o.summary.result is not Result.UNFINISHED for o in result.outcomes)
    # Every game in the PGN, readable, with a legal move sequence.
    games = []
    with pgn_path.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors
            games.append(game)
    assert len(games) == 24
    # Colours alternate: each engine had White in 12 games.
    assert sum(g.headers["White"] == "stockfish" for g in games) == 12


@pytest.mark.stockfish
async def test_stockfish_game_records_engine_output(stockfish_config: EngineConfig) -> None:
    """Per-move data from a real engine: depth, nodes, nps, score, PV, hashfull."""
    config = stockfish_config.model_copy(update={"options": {"Threads": 1, "Hash": 16}})
    setup = GameSetup(
        game_id=GameId(1, 1),
        event="sf",
        site="test",
        rules=GameRules(
            time_control=TimeControl.parse("inf nodes=5000"),
            adjudication=AdjudicationRules(max_moves=8),
        ),
    )
    seen: list[tuple[int | None, int | None]] = []
    async with asyncio.timeout(60):
        async with EngineSession(config) as w, EngineSession(config) as b:
            outcome = await play_game(setup, w, b, on_move=lambda m, wc, bc: seen.append((wc, bc)))
    record = outcome.record
    assert record.termination_detail == "TCEC max moves rule"
    assert len(record.moves) == 16 == len(seen)
    assert seen[0] == (None, None)  # no clock with a node limit
    assert record.white_options == (("Threads", "1"), ("Hash", "16"))
    board = chess.Board()
    for move in record.moves:
        assert move.depth is not None
        assert move.depth > 0
        assert move.nodes is not None
        assert 5000 <= move.nodes <= 6000
        assert move.nps is not None
        assert move.score is not None
        assert move.pv_san
        assert move.pv_san[0] == move.san
        # The PV's moves, for live.json: one per SAN, the same line.
        assert len(move.pv_uci) == len(move.pv_san)
        line = board.copy()
        for uci, san in zip(move.pv_uci, move.pv_san, strict=True):
            assert line.san(chess.Move.from_uci(uci)) == san
            line.push_uci(uci)
        assert move.hashfull is not None
        assert move.move_time_ms is not None
        assert move.clock_left_ms is None
        assert board.san(chess.Move.from_uci(move.uci)) == move.san
        board.push_uci(move.uci)
        assert board.fen() == move.fen_after


# solo: no time forfeit at 5+0.05 is a promise about an unloaded machine.
@pytest.mark.solo
async def test_xboard_engine_plays_a_legal_game(
    hoichess_config: EngineConfig, engine_config: ConfigFactory
) -> None:
    setup = GameSetup(
        game_id=GameId(1, 1),
        event="xboard",
        site="test",
        rules=GameRules(
            time_control=TimeControl.parse("5+0.05"),
            adjudication=AdjudicationRules(max_moves=30),
        ),
    )
    async with asyncio.timeout(120):
        async with EngineSession(hoichess_config) as w, EngineSession(engine_config("ab-d1")) as b:
            outcome = await play_game(setup, w, b)
    record = outcome.record
    assert outcome.faults == ()
    assert record.result is not Result.UNFINISHED
    assert record.termination in (Termination.NORMAL, Termination.ADJUDICATION)
    board = chess.Board()
    for move in record.moves:
        board.push_uci(move.uci)  # raises if illegal
    white_moves = [m for m in record.moves if m.color is Color.WHITE]
    assert all(m.move_time_ms is not None for m in white_moves)
    assert any(m.depth for m in white_moves)  # xboard "post" output was parsed


# solo: no time forfeit at 5+0.05 is a promise about an unloaded machine.
@pytest.mark.solo
async def test_fairymax_plays_from_the_start_position(
    fairymax_config: EngineConfig, engine_config: ConfigFactory
) -> None:
    """Fairy-Max lacks xboard 'setboard': book moves from the standard start
    position are sent as moves, so the game is played normally."""
    setup = GameSetup(
        game_id=GameId(1, 1),
        event="xboard",
        site="test",
        opening=Opening(name=None, fen=None, moves=("e2e4", "c7c5")),
        rules=GameRules(
            time_control=TimeControl.parse("5+0.05"),
            adjudication=AdjudicationRules(max_moves=25),
        ),
    )
    async with asyncio.timeout(120):
        async with EngineSession(engine_config("ab-d1")) as w, EngineSession(fairymax_config) as b:
            outcome = await play_game(setup, w, b)
    record = outcome.record
    assert outcome.faults == ()
    assert record.result is not Result.UNFINISHED
    assert [m.uci for m in record.moves[:2]] == ["e2e4", "c7c5"]
    board = chess.Board()
    for move in record.moves:
        board.push_uci(move.uci)
    black_moves = [m for m in record.moves[2:] if m.color is Color.BLACK]
    assert black_moves
    assert all(m.depth for m in black_moves)


async def test_fairymax_cannot_start_from_a_fen(
    fairymax_config: EngineConfig, engine_config: ConfigFactory
) -> None:
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    setup = GameSetup(
        game_id=GameId(1, 1),
        event="xboard",
        site="test",
        opening=Opening(name=None, fen=fen),
        rules=GameRules(
            time_control=TimeControl.parse("5+0.05"),
        ),
    )
    async with asyncio.timeout(60):
        async with EngineSession(engine_config("ab-d1")) as w, EngineSession(fairymax_config) as b:
            outcome = await play_game(setup, w, b)
    assert outcome.record.result is Result.WHITE_WINS
    assert outcome.record.termination is Termination.ABANDONED
    assert [f.kind for f in outcome.faults] == [FaultKind.STARTUP]
    assert "setboard" in outcome.faults[0].detail
