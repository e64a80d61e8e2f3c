"""Every engine fault, with a real misbehaving process (engines/broken.py).

Each test checks what a tournament operator sees: the result, the PGN
termination and its detail, the fault kind counted as a strike, and that the
offender's whole process group is gone afterwards. Every game runs under an
outer timeout: the runner must never hang.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import pytest

from tcecd.config.engines import EngineConfig
from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.clock import GoLimits
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.runner.game import Fault, GameOutcome, GameSetup, flag_verdict, play_game
from tcecd.runner.match import MAX_REPLAYS, MatchSpec, run_match
from tcecd.runner.process import group_members
from tcecd.runner.session import EngineFault, EngineSession, FaultKind

OUTER_TIMEOUT_S = 60

ConfigFactory = Callable[..., EngineConfig]


def setup_for(tc: str, **rules: Any) -> GameSetup:
    """A game under ``tc``; ``rules``: the other rules (stall limits, policy...)."""
    return GameSetup(
        game_id=GameId(1, 1),
        event="faults",
        site="test",
        rules=GameRules(time_control=TimeControl.parse(tc), **rules),
    )


async def play(
    white: EngineConfig, black: EngineConfig, setup: GameSetup
) -> tuple[GameOutcome, int | None, int | None]:
    """Play one game; returns the outcome and both engines' pids (process groups)."""
    async with asyncio.timeout(OUTER_TIMEOUT_S):
        async with EngineSession(white) as w, EngineSession(black) as b:
            outcome = await play_game(setup, w, b)
            return outcome, w.pid, b.pid


def only_fault(outcome: GameOutcome) -> Fault:
    assert len(outcome.faults) == 1, outcome.faults
    return outcome.faults[0]


async def test_crash_loses_and_is_reaped(
    engine_config: ConfigFactory, group_gone: Callable[[int | None], None]
) -> None:
    outcome, _, bpid = await play(
        engine_config("ab-d1"), engine_config("broken-crash"), setup_for("10+0.1")
    )
    record = outcome.record
    assert record.result is Result.WHITE_WINS
    assert record.termination is Termination.ABANDONED
    assert record.termination_detail == "Black disconnects"
    fault = only_fault(outcome)
    assert (fault.engine, fault.color, fault.kind) == ("broken-crash", Color.BLACK, FaultKind.CRASH)
    assert "exit code 3" in fault.detail
    # --after 3: Black crashed on its third move, after two moves each.
    assert len(record.moves) == 5
    assert not outcome.replay
    group_gone(bpid)


async def test_hang_without_clock_is_a_stall_and_kills_the_group(
    engine_config: ConfigFactory, group_gone: Callable[[int | None], None]
) -> None:
    """The hanging engine first spawns a helper process; both must die."""
    setup = setup_for("inf depth=1", stall_timeout_ms=1500)
    outcome, wpid, _ = await play(engine_config("broken-hang"), engine_config("ab-d1"), setup)
    record = outcome.record
    assert record.result is Result.BLACK_WINS
    assert record.termination is Termination.STALLED
    assert record.termination_detail == "White's connection stalls"
    fault = only_fault(outcome)
    assert (fault.color, fault.kind) == (Color.WHITE, FaultKind.STALL)
    assert len(record.moves) == 4
    group_gone(wpid)


async def test_hang_session_spawned_helper_dies_with_it(engine_config: ConfigFactory) -> None:
    """Check the helper really exists before the kill, so the group check above is meaningful."""
    base = engine_config("broken-hang")
    command = (*base.command[:-3], "--after", "1", "--spawn-child")
    config = engine_config("broken-hang", command=command)
    async with asyncio.timeout(OUTER_TIMEOUT_S):
        session = EngineSession(config)
        await session.start()
        try:
            await session.new_game()
            with pytest.raises(EngineFault) as caught:
                await session.think(chess.Board(), GoLimits(depth=1), timeout_ms=1500)
            assert caught.value.kind is FaultKind.STALL
            assert session.pid is not None
            assert len(group_members(session.pid)) == 2  # the engine and its helper
        finally:
            await session.abort()
        assert group_members(session.pid) == []


async def test_hang_with_clock_waits_for_the_flag_then_stalls(
    engine_config: ConfigFactory, group_gone: Callable[[int | None], None]
) -> None:
    setup = setup_for("1+0", stall_grace_ms=300)
    outcome, _, bpid = await play(engine_config("ab-d1"), engine_config("broken-hang"), setup)
    assert outcome.record.result is Result.WHITE_WINS
    assert outcome.record.termination is Termination.STALLED
    fault = only_fault(outcome)
    assert fault.kind is FaultKind.STALL
    assert "flag fell" in fault.detail
    group_gone(bpid)


async def test_illegal_move_loses(
    engine_config: ConfigFactory, group_gone: Callable[[int | None], None]
) -> None:
    outcome, wpid, _ = await play(
        engine_config("broken-illegal"), engine_config("ab-d1"), setup_for("10+0.1")
    )
    record = outcome.record
    assert record.result is Result.BLACK_WINS
    assert record.termination is Termination.ILLEGAL_MOVE
    fault = only_fault(outcome)
    assert fault.kind is FaultKind.ILLEGAL_MOVE
    # The move the engine sent is quoted, and it is really illegal in the final position.
    board = chess.Board(record.moves[-1].fen_after)
    move = chess.Move.from_uci(fault.detail)
    assert move not in board.legal_moves
    assert record.termination_detail == f"White makes an illegal move: {fault.detail}"
    assert len(record.moves) == 4
    group_gone(wpid)


async def test_garbage_move_loses(
    engine_config: ConfigFactory, group_gone: Callable[[int | None], None]
) -> None:
    outcome, _, bpid = await play(
        engine_config("ab-d1"), engine_config("broken-garbage"), setup_for("10+0.1")
    )
    record = outcome.record
    assert record.result is Result.WHITE_WINS
    assert record.termination is Termination.ILLEGAL_MOVE
    fault = only_fault(outcome)
    assert fault.kind is FaultKind.GARBAGE
    assert "!!garbage!!" in fault.detail
    assert record.termination_detail.startswith("Black sends garbage: ")
    group_gone(bpid)


async def test_slow_move_loses_on_time(
    engine_config: ConfigFactory, group_gone: Callable[[int | None], None]
) -> None:
    """broken-slow sleeps 3 s on its third move with 1 s on the clock: the
    answer comes within the grace, so it is a time forfeit, not a stall."""
    setup = setup_for("1+0", stall_grace_ms=10_000)
    outcome, _, _ = await play(engine_config("broken-slow"), engine_config("ab-d1"), setup)
    record = outcome.record
    assert record.result is Result.BLACK_WINS
    assert record.termination is Termination.TIME_FORFEIT
    assert record.termination_detail == "White loses on time"
    fault = only_fault(outcome)
    assert fault.kind is FaultKind.TIME_FORFEIT
    assert len(record.moves) == 4
    assert not outcome.replay


async def test_flood_of_output_does_not_break_the_game(engine_config: ConfigFactory) -> None:
    setup = setup_for("30+0.5", adjudication=AdjudicationRules(max_moves=15))
    outcome, _, _ = await play(engine_config("broken-flood"), engine_config("ab-d1"), setup)
    assert outcome.faults == ()
    assert outcome.record.termination in (Termination.NORMAL, Termination.ADJUDICATION)
    assert outcome.record.result is not Result.UNFINISHED
    white_moves = [m for m in outcome.record.moves if m.color is Color.WHITE]
    assert len(white_moves) >= 10
    assert all(m.depth == 1 for m in white_moves)


async def test_slow_start_is_a_startup_fault(
    engine_config: ConfigFactory, group_gone: Callable[[int | None], None]
) -> None:
    session = EngineSession(engine_config("broken-slowstart"))
    async with asyncio.timeout(OUTER_TIMEOUT_S):
        with pytest.raises(EngineFault) as caught:
            await session.start()
    assert caught.value.kind is FaultKind.STARTUP
    assert "not ready within 1500 ms" in caught.value.detail
    group_gone(session.pid)


async def test_engine_that_exits_at_start_is_a_startup_fault(
    engine_config: ConfigFactory, group_gone: Callable[[int | None], None]
) -> None:
    session = EngineSession(engine_config("broken-nouciok"))
    async with asyncio.timeout(OUTER_TIMEOUT_S):
        with pytest.raises(EngineFault) as caught:
            await session.start()
    assert caught.value.kind is FaultKind.STARTUP
    assert "exited while starting" in caught.value.detail
    group_gone(session.pid)


async def test_missing_program_is_a_startup_fault(engine_config: ConfigFactory) -> None:
    config = engine_config("ab-d1", command=("/nonexistent/engine",))
    with pytest.raises(EngineFault) as caught:
        await EngineSession(config).start()
    assert caught.value.kind is FaultKind.STARTUP
    assert "/nonexistent/engine" in caught.value.detail


async def test_startup_fault_in_a_match_forfeits_the_game(
    engine_config: ConfigFactory, tmp_path: Path
) -> None:
    spec = MatchSpec(
        engines=(engine_config("broken-nouciok"), engine_config("ab-d1")),
        games=1,
        time_control=TimeControl.parse("10+0.1"),
        pgn_path=tmp_path / "m.pgn",
    )
    async with asyncio.timeout(OUTER_TIMEOUT_S):
        result = await run_match(spec)
    [outcome] = result.outcomes
    assert outcome.summary.result is Result.BLACK_WINS
    assert outcome.summary.termination is Termination.ABANDONED
    assert outcome.summary.termination_detail == "White fails to start"
    assert outcome.summary.plies == 0
    assert [kind for _, kind, _ in outcome.faults] == [str(FaultKind.STARTUP)]


async def test_replay_policy_marks_the_game_for_replay(
    engine_config: ConfigFactory, group_gone: Callable[[int | None], None]
) -> None:
    setup = setup_for("10+0.1", fault_policy="replay")
    outcome, _, bpid = await play(engine_config("ab-d1"), engine_config("broken-crash"), setup)
    assert outcome.replay
    assert outcome.record.result is Result.UNFINISHED
    assert outcome.record.termination is Termination.ABANDONED
    assert [f.kind for f in outcome.faults] == [FaultKind.CRASH]
    group_gone(bpid)


async def test_replay_policy_still_loses_on_time(engine_config: ConfigFactory) -> None:
    """A flag fall is a chess result, not an engine failure: never replayed."""
    setup = setup_for("1+0", stall_grace_ms=10_000, fault_policy="replay")
    outcome, _, _ = await play(engine_config("broken-slow"), engine_config("ab-d1"), setup)
    assert not outcome.replay
    assert outcome.record.result is Result.BLACK_WINS
    assert outcome.record.termination is Termination.TIME_FORFEIT


@pytest.mark.parametrize(
    ("fen", "loser", "result"),
    [
        # Black flags; White has a rook: White wins.
        ("7k/8/8/8/8/8/8/K6R b - - 0 1", Color.BLACK, Result.WHITE_WINS),
        # White flags; Black has a bare king: it cannot mate, so a draw (FIDE 6.9).
        ("7k/8/8/8/8/8/8/K6R w - - 0 1", Color.WHITE, Result.DRAW),
        # White (bare king) flags; a lone knight cannot mate a bare king: draw.
        ("7k/8/8/8/8/8/8/K5n1 w - - 0 1", Color.WHITE, Result.DRAW),
        # White flags; Black has only a knight but White's rook could block its
        # own king, so a mate is possible: White loses (python-chess agrees).
        ("7k/8/8/8/8/8/8/K5nR w - - 0 1", Color.WHITE, Result.BLACK_WINS),
        # White flags; Black has a pawn: a mate is possible in principle, White loses.
        ("7k/7p/8/8/8/8/8/K6R w - - 0 1", Color.WHITE, Result.BLACK_WINS),
    ],
)
def test_flag_fall_result(fen: str, loser: Color, result: Result) -> None:
    verdict = flag_verdict(chess.Board(fen), loser)
    assert verdict.result is result
    assert verdict.termination is Termination.TIME_FORFEIT


async def test_program_not_installed_is_a_startup_fault(engine_config: ConfigFactory) -> None:
    config = engine_config("ab-d1", command=("no-such-engine-xyz",))
    with pytest.raises(EngineFault) as caught:
        await EngineSession(config).start()
    assert caught.value.kind is FaultKind.STARTUP
    assert "program 'no-such-engine-xyz' not found" in caught.value.detail


async def test_match_replays_a_faulted_game_then_scores_it(
    engine_config: ConfigFactory, tmp_path: Path
) -> None:
    """Under "replay" a match plays a faulted game again, at most MAX_REPLAYS
    times; the last attempt is scored (the offender loses) so a match always ends."""
    spec = MatchSpec(
        engines=(engine_config("ab-d1"), engine_config("broken-crash")),
        games=1,
        time_control=TimeControl.parse("10+0.1"),
        pgn_path=tmp_path / "replay.pgn",
        fault_policy="replay",
    )
    lines: list[str] = []
    async with asyncio.timeout(OUTER_TIMEOUT_S):
        result = await run_match(spec, progress=lines.append)
    assert result.replays == MAX_REPLAYS
    assert sum(line.startswith("Replaying game 1 of 1") for line in lines) == MAX_REPLAYS
    [outcome] = result.outcomes
    assert outcome.summary.result is Result.WHITE_WINS
    assert outcome.summary.termination_detail == "Black disconnects"
    assert result.faults[("broken-crash", "crash")] == MAX_REPLAYS + 1
    assert (tmp_path / "replay.pgn").read_text(encoding="utf-8").count("[Event ") == 1
