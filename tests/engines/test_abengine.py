"""The bundled alpha-beta engine, as a real UCI subprocess.

What the demo and the daemon's kill/resume tests rely on: the engine is
deterministic (the same game every time from the same opening), answers the
UCI limits sensibly, reports the info fields the PGN needs, and its
strengths really differ.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import chess
import chess.engine
import pytest

from tcecd.config.engines import EngineConfig
from tcecd.domain import GameId, Result
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.clock import GoLimits
from tcecd.game.record import Opening
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.runner.game import GameOutcome, GameSetup, play_game
from tcecd.runner.session import EngineSession

ConfigFactory = Callable[..., EngineConfig]
OUTER_TIMEOUT_S = 60

# After 1. e4 e5 2. Nf3 Nc6 3. Bb5 (a Ruy Lopez) as a book opening.
RUY = Opening(name="Ruy Lopez", fen=None, moves=("e2e4", "e7e5", "g1f3", "b8c6", "f1b5"))


async def one_game(
    white: EngineConfig, black: EngineConfig, opening: Opening, *, max_moves: int = 40
) -> GameOutcome:
    setup = GameSetup(
        game_id=GameId(1, 1),
        event="determinism",
        site="test",
        opening=opening,
        rules=GameRules(
            time_control=TimeControl.parse("60+1"),
            # 40 moves are plenty to tell games apart and keep the test quick.
            adjudication=AdjudicationRules(max_moves=max_moves),
        ),
    )
    async with asyncio.timeout(OUTER_TIMEOUT_S):
        async with EngineSession(white) as w, EngineSession(black) as b:
            return await play_game(setup, w, b)


async def test_same_opening_gives_the_same_game(engine_config: ConfigFactory) -> None:
    white, black = engine_config("ab-d2"), engine_config("ab-d2-noisy")
    first = await one_game(white, black, RUY)
    second = await one_game(white, black, RUY)
    moves = [m.uci for m in first.record.moves]
    assert moves == [m.uci for m in second.record.moves]
    assert first.record.result == second.record.result
    assert first.record.termination_detail == second.record.termination_detail
    # The book moves come first and are marked as such.
    assert moves[:5] == list(RUY.moves)
    assert [m.book for m in first.record.moves[:6]] == [True] * 5 + [False]
    assert first.record.result is not Result.UNFINISHED
    assert first.faults == ()


async def test_noise_changes_the_play(engine_config: ConfigFactory) -> None:
    """ab-d2 and ab-d2-wild (same depth, noisy eval) do not play the same game:
    they part within the first dozen moves (here at the first move out of book)."""
    plain = await one_game(engine_config("ab-d2"), engine_config("ab-d2"), RUY, max_moves=12)
    wild = await one_game(
        engine_config("ab-d2-wild"), engine_config("ab-d2-wild"), RUY, max_moves=12
    )
    assert [m.uci for m in plain.record.moves] != [m.uci for m in wild.record.moves]


async def uci_go(
    config: EngineConfig, fen: str, limit: chess.engine.Limit
) -> chess.engine.PlayResult:
    """One move straight through python-chess (the engine process, no tcecd)."""
    _transport, engine = await chess.engine.popen_uci(list(config.command))
    try:
        async with asyncio.timeout(OUTER_TIMEOUT_S):
            return await engine.play(chess.Board(fen), limit, info=chess.engine.INFO_ALL)
    finally:
        await engine.quit()


async def test_uci_reports_the_info_fields(engine_config: ConfigFactory) -> None:
    result = await uci_go(engine_config("ab-d2"), chess.STARTING_FEN, chess.engine.Limit(depth=3))
    info = result.info
    assert info["depth"] == 3  # go depth overrides the configured depth
    assert info["nodes"] > 0
    assert "nps" in info
    assert info["score"].relative.score() is not None
    assert info["pv"][0] == result.move
    assert result.move in chess.Board().legal_moves


async def test_finds_mate_in_one_and_reports_it(engine_config: ConfigFactory) -> None:
    # White to move: Qh5xf7# is mate (scholar's mate pattern, checked by hand:
    # f7 is covered by the bishop on c4, the king on e8 has no flight square).
    fen = "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    result = await uci_go(engine_config("ab-d1"), fen, chess.engine.Limit(depth=1))
    assert result.move == chess.Move.from_uci("h5f7")
    assert result.info["score"].relative.mate() == 1


async def test_node_limit_stops_the_deepening(engine_config: ConfigFactory) -> None:
    result = await uci_go(engine_config("ab-d3"), chess.STARTING_FEN, chess.engine.Limit(nodes=10))
    assert result.info["depth"] == 1  # depth 1 already exceeds 10 nodes


async def test_session_think_measures_time_and_keeps_going(engine_config: ConfigFactory) -> None:
    async with asyncio.timeout(OUTER_TIMEOUT_S):
        async with EngineSession(engine_config("ab-d1")) as session:
            await session.new_game()
            board = chess.Board()
            for _ in range(4):
                answer = await session.think(
                    board, GoLimits(wtime_ms=10_000, btime_ms=10_000), timeout_ms=5_000
                )
                assert answer.move in board.legal_moves
                assert answer.used_ms >= 0
                assert answer.finished_ns >= answer.started_ns
                board.push(answer.move)  # type: ignore[arg-type]
            assert session.alive
            pid = session.pid
        assert pid is not None
        assert not session.alive


@pytest.mark.parametrize(
    "name", ["ab-d1", "ab-d1-noisy", "ab-d2", "ab-d2-noisy", "ab-d2-wild", "ab-d3", "ab-d3-noisy"]
)
def test_bundled_definitions_load(engine_config: ConfigFactory, name: str) -> None:
    config = engine_config(name)
    assert config.name == name
    assert config.protocol == "uci"
    assert config.rating is not None
    assert config.command[1].endswith("engines/abengine.py")


def test_pace_delays_the_answer_but_not_the_move() -> None:
    """``Pace`` (bench/web.py's realistic pace): ``bestmove`` no sooner than asked,
    and the same move as without it."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    engine = Path(__file__).resolve().parents[2] / "engines" / "abengine.py"

    def answer(pace: int) -> tuple[str, float]:
        lines = ["uci", f"setoption name Pace value {pace}", "isready",
                 "position startpos moves e2e4", "go wtime 60000 btime 60000", "quit"]
        started = time.monotonic()
        out = subprocess.run([sys.executable, str(engine), "--depth", "1"], text=True,
                             input="\n".join(lines) + "\n", capture_output=True, timeout=60,
                             check=True).stdout
        took = time.monotonic() - started
        best = next(line for line in out.splitlines() if line.startswith("bestmove"))
        return best, took

    plain, _ = answer(0)
    paced, took = answer(400)
    assert paced == plain
    assert took >= 0.4
