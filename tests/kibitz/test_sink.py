"""The kibitzers' sink with real engines: Stockfish follows the running game
(``go infinite``, a new search per move, ``stop`` between games), a kibitzer
that cannot start is one warning, and a stalled one is restarted, its process
group gone. The event stream is fed by hand (the daemon's own run is in
tests/daemon/test_kibitzer_event.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import structlog

from tcecd.config.engines import EngineConfig
from tcecd.daemon.kibitzer import KibitzerSink
from tcecd.daemon.settings import KibitzerSettings
from tcecd.daemon.stream import Committed
from tcecd.domain import Color, GameId, Result, Termination
from tcecd.event.state import EventState
from tcecd.events import DomainEvent, GameFinished, GameStarted, KibitzerReport, MovePlayed
from tcecd.game.record import GameRecord, MoveRecord, Opening
from tcecd.runner.process import group_members
from tests.daemon.helpers import ROOT

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
TS = "2026-11-27T10:00:00.000Z"
GID = GameId(1, 1)


async def until(predicate: Callable[[], object], what: str, timeout_s: float = 30.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not (value := predicate()):
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)
    return value


def feed(sink: KibitzerSink, event: DomainEvent) -> None:
    sink.handle(Committed(event), EventState())


def finished(gid: GameId) -> GameFinished:
    record = GameRecord(gid, "E", "S", "A", "B", Result.DRAW, Termination.ADJUDICATION, "test",
                        TS, TS, 0, "60+1", Opening(None, None), ())
    return GameFinished(record, "")


def sent_commands(log_file: Path) -> list[str]:
    """What Stockfish received (its ``Debug Log File``: ``>> `` lines)."""
    if not log_file.exists():
        return []
    return [line[3:] for line in log_file.read_text().splitlines() if line.startswith(">> ")]


async def test_stockfish_follows_the_game_and_stops_between_games(
    tmp_path: Path, stockfish_config: EngineConfig
) -> None:
    log_file = tmp_path / "sf.log"
    engine = stockfish_config.model_copy(
        update={"options": {**stockfish_config.options, "Debug Log File": str(log_file)}})
    reports: list[KibitzerReport] = []
    emit: Callable[[DomainEvent], None] = lambda e: reports.append(e)  # type: ignore[arg-type]  # noqa: E731
    sink = KibitzerSink([KibitzerSettings(engine, nice=0)], emit,
                        log=structlog.get_logger(), interval_s=0.05)
    sink.start(EventState())
    try:
        feed(sink, GameStarted(GID, "A", "B", Opening(None, None), "60+1", TS, 60000, 60000))
        await until(lambda: any(r.ply == 0 for r in reports), "a report of the start position")
        e4 = MoveRecord(1, Color.WHITE, "e2e4", "e4", AFTER_E4)
        feed(sink, MovePlayed(GID, e4, 60000, 60000))
        after = await until(lambda: [r for r in reports if r.ply == 1], "a report after 1. e4")
        r = after[0]
        assert (r.kibitzer, r.engine, r.game_id, r.fen, r.desc) == (
            0, "stockfish", GID, AFTER_E4, "Threads 1, Hash 16")
        assert r.score is not None
        assert r.depth is not None
        assert r.nodes is not None
        assert r.pv_san
        assert chess.Board(AFTER_E4).parse_san(r.pv_san[0])
        commands = sent_commands(log_file)
        # A search per position, the whole game sent: the second after a stop.
        assert "position startpos moves e2e4" in commands
        assert commands.count("go infinite") >= 2
        assert commands[commands.index("position startpos moves e2e4") - 1] == "stop"
        feed(sink, finished(GID))
        # Between games: the search is stopped and no new one starts.
        await until(lambda: sent_commands(log_file)[-1:] == ["stop"], "the stop after the game")
        assert sink.kibitzers[0].target is None
        pid = sink.kibitzers[0].pid
    finally:
        await sink.aclose()
    assert pid is not None
    assert group_members(pid) == []


async def test_a_kibitzer_that_cannot_start_is_one_warning() -> None:
    engine = EngineConfig(name="nothing", command=("/nonexistent/engine",))
    with structlog.testing.capture_logs() as logs:
        sink = KibitzerSink([KibitzerSettings(engine)], lambda e: None,
                            log=structlog.get_logger())
        sink.start(EventState())
        try:
            task = sink._task
            assert task is not None
            await until(task.done, "the kibitzer to give up")
            feed(sink, GameStarted(GID, "A", "B", Opening(None, None), "60+1", TS, None, None))
        finally:
            await sink.aclose()
    warnings = [e for e in logs if e["log_level"] == "warning"]
    assert [e["event"] for e in warnings] == [
        "kibitzer cannot start; the event plays on without it"]
    assert warnings[0]["kind"] == "startup"
    assert "/nonexistent/engine" in warnings[0]["detail"]


async def test_a_stalled_kibitzer_is_restarted() -> None:
    # Never answers its first ``go`` and ignores ``stop``: a stall at the next move.
    hang = EngineConfig(name="hang", command=(
        sys.executable,
        str(ROOT / "engines" / "broken.py"), "--mode", "hang", "--after", "1"))
    with structlog.testing.capture_logs() as logs:
        sink = KibitzerSink([KibitzerSettings(hang, nice=0)], lambda e: None,
                            log=structlog.get_logger(), stop_timeout_s=0.5,
                            restart_first_s=0.05)
        sink.start(EventState())
        try:
            feed(sink, GameStarted(GID, "A", "B", Opening(None, None), "60+1", TS, None, None))
            first = await until(lambda: sink.kibitzers[0].pid, "the kibitzer's engine")
            feed(sink, MovePlayed(GID, MoveRecord(1, Color.WHITE, "e2e4", "e4", AFTER_E4),
                                  None, None))
            second = await until(lambda: (p := sink.kibitzers[0].pid) not in (None, first) and p,
                                 "a new engine")
            assert group_members(first) == []
        finally:
            await sink.aclose()
    assert group_members(second) == []
    failed = [e for e in logs if e["event"] == "kibitzer failed; restarting it"]
    assert failed
    assert failed[0]["kind"] == "stall"
    assert failed[0]["pid"] == first
    started = [e["pid"] for e in logs if e["event"] == "kibitzer started"]
    assert started[:2] == [first, second]



async def test_an_engine_killed_before_its_search_starts_is_a_crash_at_once() -> None:
    # python-chess quirk: an engine that dies while a new game's analysis waits for
    # ``readyok`` ends the analysis with the error but never answers the command
    # itself, so the start of the search would wait out its timeout (a "stall", 30 s
    # here). The session watches the process' end too: a crash, at once.
    from tcecd.runner.analysis import AnalysisSession, FaultKind

    slow = EngineConfig(name="slowready", command=(
        sys.executable, str(ROOT / "engines" / "broken.py"), "--mode", "slowready",
        "--delay-ms", "60000"), startup_timeout_ms=30_000)
    session = AnalysisSession(slow)
    await session.start()
    try:
        starting = asyncio.ensure_future(session.analyse(chess.Board(), game=object()))
        await asyncio.sleep(0.3)  # ucinewgame, isready sent: no readyok for a minute
        assert not starting.done()
        assert session.pid is not None
        os.kill(session.pid, signal.SIGKILL)
        async with asyncio.timeout(5):
            fault = (await asyncio.gather(starting, return_exceptions=True))[0]
        assert getattr(fault, "kind", None) is FaultKind.CRASH, fault
        assert "process died (exit code -9)" in str(fault)
    finally:
        await session.close(graceful=False)
