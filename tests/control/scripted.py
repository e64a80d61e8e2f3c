"""An in-process event for the console's tests: a scripted game player whose
games the test ends (or leaves running), a sink to wait on, and the daemon
run in a task with its embedded Mosquitto (tcecd.control's ACL)."""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess

from tcecd.bus.settings import MqttSettings
from tcecd.config.engines import EngineConfig
from tcecd.daemon import run_event_async
from tcecd.daemon.crash import CrashPoints
from tcecd.daemon.settings import RunSettings
from tcecd.daemon.stream import BaseSink, Committed
from tcecd.domain import Color, GameId, Result, Termination
from tcecd.event.state import EventState
from tcecd.execution import Updates
from tcecd.execution.gate import StartGate, StoppedBeforeStart
from tcecd.execution.job import GameBegan, GameJob, GameResult, MoveMade
from tcecd.formats.base import FormatSettings
from tcecd.game.record import GameRecord, MoveRecord
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl

OPERATOR, OPERATOR_PASSWORD = "alice", "alice-secret"
PLIES = ("e2e4", "e7e5", "g1f3", "b8c6")


def moves() -> list[MoveRecord]:
    board = chess.Board()
    out = []
    for i, uci in enumerate(PLIES, start=1):
        move = chess.Move.from_uci(uci)
        san = board.san(move)
        color = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
        board.push(move)
        out.append(MoveRecord(i, color, uci, san, board.fen(), move_time_ms=10,
                              clock_left_ms=60_000))
    return out


@dataclass
class Attempt:
    """One attempt at a game: the test ends it with :meth:`end`."""

    job: GameJob
    result: asyncio.Future[GameResult] = field(default_factory=asyncio.Future)
    cancelled: bool = False

    def end(self, result: Result = Result.WHITE_WINS, *, fault: bool = False) -> None:
        gid = self.job.game_id
        record = GameRecord(
            game_id=gid, event=self.job.event, site=self.job.site,
            white=self.job.white.name, black=self.job.black.name,
            result=Result.BLACK_WINS if fault else result,
            termination=Termination.ABANDONED if fault else Termination.ADJUDICATION,
            termination_detail="White's engine crashed" if fault else "scripted",
            start_time="2026-11-22T00:00:00.000Z", end_time="2026-11-22T00:00:01.000Z",
            duration_ms=1000, time_control="60+1", opening=self.job.opening,
            moves=tuple(moves()),
        )  # fmt: skip
        faults = ((self.job.white.name, "crash", "scripted crash"),) if fault else ()
        if not self.result.done():
            self.result.set_result(GameResult(record, faults))


class Board:
    """The scripted game player: every attempt begins, plays :data:`PLIES` and
    waits for the test (``auto``: games listed there end at once as given)."""

    name = "scripted"

    def __init__(self) -> None:
        self.attempts: dict[str, list[Attempt]] = {}
        self.changed = asyncio.Event()
        #: gid -> (result, fault) for games that end by themselves.
        self.auto: dict[str, tuple[Result, bool]] = {}
        self.engines_seen: dict[str, list[tuple[str, ...]]] = {}

    def use_engine_groups(self, groups: Any) -> None:
        pass

    async def play(self, job: GameJob, updates: Updates, gate: StartGate) -> GameResult:
        try:
            if not await gate.may_start():
                raise StoppedBeforeStart(str(job.game_id))
        finally:
            gate.decided()
        gid = str(job.game_id)
        attempt = Attempt(job)
        self.attempts.setdefault(gid, []).append(attempt)
        for engine in (job.white, job.black):
            self.engines_seen.setdefault(engine.name, []).append(engine.command)
        updates.put_nowait(GameBegan(job.game_id, "2026-11-22T00:00:00.000Z", (), (),
                                     60_000, 60_000))  # fmt: skip
        for m in moves():
            updates.put_nowait(MoveMade(job.game_id, m, 60_000, 60_000))
        if gid in self.auto:
            result, fault = self.auto[gid]
            attempt.end(result, fault=fault)
        self.changed.set()
        try:
            return await attempt.result
        except asyncio.CancelledError:
            attempt.cancelled = True
            self.changed.set()
            raise

    async def aclose(self) -> None:
        pass

    def running(self, gid: str) -> Attempt | None:
        found = self.attempts.get(gid)
        return found[-1] if found and not found[-1].result.done() else None

    async def until(self, what: Callable[[], Any], limit_s: float = 20) -> Any:
        async with asyncio.timeout(limit_s):
            while not (got := what()):
                self.changed.clear()
                await self.changed.wait()
        return got


class Watch(BaseSink):
    """A sink that keeps the latest state and every event, and wakes waiters."""

    def __init__(self) -> None:
        self.state = EventState()
        self.events: list[Any] = []
        self.changed = asyncio.Event()

    def start(self, state: EventState) -> None:
        self.state = state
        self.changed.set()

    def handle(self, committed: Committed, state: EventState) -> None:
        self.state = state
        self.events.append(committed.event)
        self.changed.set()

    async def until(self, what: Callable[[EventState], Any], limit_s: float = 20) -> Any:
        async with asyncio.timeout(limit_s):
            while not (got := what(self.state)):
                self.changed.clear()
                await self.changed.wait()
        return got


def settings(tmp_path: Path, *, system: str = "dutch-2017", rounds: int = 3,
             players: int = 4, concurrency: int = 1, mqtt: MqttSettings | None = None,
             ) -> RunSettings:
    names = "abcdefgh"[:players]
    engines = tuple(EngineConfig(name=n, command=("/bin/true",), rating=2000 - i)
                    for i, n in enumerate(names))  # fmt: skip
    mqtt = mqtt or MqttSettings(url="mqtt://127.0.0.1:0", embedded=True,
                                embedded_ws_port=None,
                                operators=((OPERATOR, OPERATOR_PASSWORD),))  # fmt: skip
    return RunSettings(
        event="console", site="here", engines=engines,
        format=FormatSettings(system=system, rounds=rounds),
        rules=GameRules(TimeControl.parse("60+1")), state_dir=tmp_path / "state",
        pgn_path=tmp_path / "state" / "e.pgn", json_dir=None, concurrency=concurrency,
        mqtt=mqtt,
    )  # fmt: skip


@dataclass
class Running:
    task: asyncio.Task[bool]
    board: Board
    watch: Watch
    url: str
    settings: RunSettings

    def operator(self) -> MqttSettings:
        return MqttSettings.from_url(self.url, username=OPERATOR, password=OPERATOR_PASSWORD)


@contextlib.asynccontextmanager
async def running_event(run: RunSettings, board: Board) -> AsyncIterator[Running]:
    """The daemon in a task, until its embedded broker's console listens."""
    watch = Watch()
    task = asyncio.create_task(run_event_async(
        run, out=io.StringIO(), crash=CrashPoints(), install_signals=False, player=board,
        sinks=[watch]))  # fmt: skip
    assert run.mqtt is not None
    url_file = run.state_dir / "mqtt" / "url" if run.mqtt.embedded else None
    try:
        async with asyncio.timeout(30):
            while (url_file is not None and not url_file.exists()) or not watch.state.players:
                if task.done():
                    task.result()
                await asyncio.sleep(0.05)
        url = url_file.read_text().strip() if url_file is not None else run.mqtt.url
        # (The console subscribes after the publisher connects: tests ask until it answers.)
        yield Running(task, board, watch, url, run)
    finally:
        if not task.done():
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def gid(text: str) -> GameId:
    return GameId.parse(text)
