"""Keep-alive engines (``restart: keep-alive``) and the per-move live callback."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest

from tcecd.config.engines import EngineConfig
from tcecd.domain import Color, GameId
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.record import MoveRecord, Opening
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.runner.game import GameSetup, play_game
from tcecd.runner.process import group_members
from tcecd.runner.session import EngineSession, SessionPool

ConfigFactory = Callable[..., EngineConfig]
OPENING = Opening(name=None, fen=None, moves=("d2d4", "d7d5"))


def setup(number: int) -> GameSetup:
    return GameSetup(
        game_id=GameId(1, number),
        event="keep-alive",
        site="test",
        opening=OPENING,
        rules=GameRules(
            time_control=TimeControl.parse("20+0.2"),
            adjudication=AdjudicationRules(max_moves=20),
        ),
    )


async def test_keep_alive_engine_is_reused_and_plays_the_same_game(
    engine_config: ConfigFactory,
) -> None:
    white_cfg = engine_config("ab-d1", restart="keep-alive")
    black_cfg = engine_config("ab-d2")  # per-game: a fresh process each time
    pool = SessionPool()
    games = []
    pids: list[tuple[int | None, int | None]] = []
    async with asyncio.timeout(60):
        try:
            for number in (1, 2):
                white = await pool.acquire(white_cfg)
                black = await pool.acquire(black_cfg)
                try:
                    games.append(await play_game(setup(number), white, black))
                finally:
                    pids.append((white.pid, black.pid))
                    await pool.release(white)
                    await pool.release(black)
            assert pids[0][0] == pids[1][0]  # the same White process, after ucinewgame
            assert pids[0][1] != pids[1][1]  # Black restarted
            assert group_members(pids[0][1]) == []  # the per-game Black was closed
            assert group_members(pids[0][0]) != []  # the kept White still runs
        finally:
            await pool.aclose()
    assert group_members(pids[0][0]) == []
    first, second = ([m.uci for m in g.record.moves] for g in games)
    assert first == second


async def test_on_move_streams_every_ply_with_both_clocks(engine_config: ConfigFactory) -> None:
    seen: list[tuple[MoveRecord, int | None, int | None]] = []
    pool = SessionPool()
    async with asyncio.timeout(60):
        white = await pool.acquire(engine_config("ab-d1"))
        black = await pool.acquire(engine_config("ab-d1"))
        try:
            outcome = await play_game(
                setup(1), white, black, on_move=lambda m, w, b: seen.append((m, w, b))
            )
        finally:
            await white.close()
            await black.close()
    assert [m for m, _, _ in seen] == list(outcome.record.moves)
    assert [m.ply for m, _, _ in seen] == list(range(1, len(seen) + 1))
    # Book plies first (no engine data, full clocks), then engine plies.
    assert [m.book for m, _, _ in seen[:3]] == [True, True, False]
    assert seen[0][1:] == (20_000, 20_000)
    for move, white_ms, black_ms in seen[2:]:
        mover_clock = white_ms if move.color is Color.WHITE else black_ms
        assert move.clock_left_ms == mover_clock
        assert move.move_time_ms is not None
        assert move.depth == 1
        assert move.score is not None
    # Clock arithmetic: after White's first engine move its clock is
    # 20 s - think time + 0.2 s increment.
    first = seen[2][0]
    assert first.move_time_ms is not None
    assert first.clock_left_ms == 20_000 - first.move_time_ms + 200


async def test_cancelling_new_game_leaves_no_error_behind(
    engine_config: ConfigFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """A shutdown that cancels ``new_game`` while the engine is about to send
    ``readyok`` must not leave python-chess failing inside the event loop."""
    session = EngineSession(engine_config("ab-d1"))
    async with asyncio.timeout(30):
        await session.start()
        try:
            # Told when python-chess has handled the engine's readyok (waited for, not
            # slept: on a loaded machine 0.3 s was sometimes too short, proving nothing).
            protocol = session._protocol
            assert protocol is not None
            handled = asyncio.Event()
            line_received = protocol._line_received

            def spy(line: str) -> None:
                line_received(line)
                if line.strip() == "readyok":
                    handled.set()

            protocol._line_received = spy  # type: ignore[method-assign]
            task = asyncio.create_task(session.new_game())
            await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await handled.wait()  # the engine's readyok arrived after the cancel
            for _ in range(3):  # and whatever it scheduled has run
                await asyncio.sleep(0)
        finally:
            await session.abort()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
