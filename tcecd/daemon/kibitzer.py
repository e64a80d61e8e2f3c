"""Kibitzers in the daemon: analysis engines that follow the running games.

A kibitzer (TCEC shows two) is an engine that never plays: it follows the
first game of the playing order still running (with ``board: N``, the N-th),
analyses its current position without a limit (``go infinite``), starts its
search again on every move, and stops searching between games. What it finds
goes back into the event stream, at most about once a second, as a
:class:`~tcecd.events.KibitzerReport` (through ``emit``, the recorder's
``live``), which MQTT publishes retained (``kibitzer/<n>``) and TCEC's files
sink writes (``data.json``, ``liveeval.json``: :mod:`tcecd.daemon.sinks.files`).

:class:`KibitzerSink` is the sink: it reads the games from the stream
(:class:`~tcecd.kibitz.model.RunningGames`) and tells each
:class:`Kibitzer` the position to analyse; it owns the kibitzers' tasks (one
task per kibitzer, under one task group), and stops them, engines killed and
reaped, when the run ends. A :class:`Kibitzer` owns its engine session
(:class:`~tcecd.runner.analysis.AnalysisSession`: its own process group,
recorded in the state directory like the players', so the reaper's guarantees
hold, after a SIGKILL of the daemon too), and every call to it is under a
timeout.

A kibitzer never touches the games: it runs on the daemon's host whatever
plays the games (a Dask cluster too), with its own options (threads, hash) at
its own CPU priority (``nice``). Its crash or stall is logged and it is
restarted with a back-off (1 s, doubling up to a minute; back to 1 s after a
minute of health); it is never a player's fault: no strike, nothing in the
store. A kibitzer whose engine cannot start at all is one warning, and the
event plays on without it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import chess.engine

from tcecd.daemon.settings import KibitzerSettings
from tcecd.daemon.stream import BaseSink, Committed
from tcecd.domain import GameId
from tcecd.event.state import EventState
from tcecd.events import DomainEvent, GameFinished, GameStarted, MovePlayed
from tcecd.kibitz.model import Position, RunningGames, describe, kibitzer_report
from tcecd.runner.analysis import AnalysisSession
from tcecd.runner.reaper import EngineGroups
from tcecd.runner.session import EngineFault, FaultKind

#: Least time between two reports of one kibitzer (TCEC: about one a second).
REPORT_INTERVAL_S = 1.0
#: The first restart's delay after a crash or a stall; doubled per failure ...
RESTART_FIRST_S = 1.0
#: ... up to this.
RESTART_MAX_S = 60.0
#: A session that ran this long was healthy: the next failure waits the first delay again.
HEALTHY_S = 60.0
#: How long an engine gets to answer ``stop`` with its ``bestmove``.
STOP_TIMEOUT_S = 5.0


class Kibitzer:
    """One kibitzer: its engine, the position it is told to analyse, and the
    task that runs it (:meth:`run`, owned by :class:`KibitzerSink`)."""

    def __init__(
        self,
        index: int,
        settings: KibitzerSettings,
        emit: Callable[[DomainEvent], None],
        *,
        log: Any,
        groups: EngineGroups | None = None,
        interval_s: float = REPORT_INTERVAL_S,
        restart_first_s: float = RESTART_FIRST_S,
        stop_timeout_s: float = STOP_TIMEOUT_S,
    ) -> None:
        self.index = index
        self.settings = settings
        self.engine = settings.engine
        self.board = settings.board
        self.emit = emit
        self.log = log.bind(kibitzer=index, engine=self.engine.name)
        self.groups = groups
        self.interval_s = interval_s
        self.restart_first_s = restart_first_s
        self.stop_timeout_s = stop_timeout_s
        self.desc = describe(self.engine.options)
        #: The position to analyse (None: no game to follow).
        self.target: Position | None = None
        self._changed = asyncio.Event()
        #: The running session's engine process (None: none runs).
        self.pid: int | None = None
        self._next_report = 0.0
        self._games: dict[GameId, object] = {}  # python-chess's new-game keys

    def follow(self, position: Position | None) -> None:
        """Analyse ``position`` from now on (None: stop between games). Never blocks."""
        if position != self.target:
            self.target = position
            self._changed.set()

    # -- the task ------------------------------------------------------------------------

    async def run(self) -> None:
        """Run the engine until cancelled, restarting it after a crash or a
        stall (module docstring). Never raises but for its cancellation."""
        delay = self.restart_first_s
        started_once = False
        loop = asyncio.get_running_loop()
        while True:
            session = AnalysisSession(self.engine, groups=self.groups, nice=self.settings.nice)
            began = loop.time()
            try:
                try:
                    await session.start()
                except EngineFault as fault:
                    if not started_once:
                        self.log.warning("kibitzer cannot start; the event plays on without it",
                                         kind=fault.kind.value, detail=fault.detail)  # fmt: skip
                        return
                    raise
                started_once = True
                self.pid = session.pid
                self.log.info("kibitzer started", pid=session.pid, board=self.board)
                await self._follow(session)
            except EngineFault as fault:
                what = "crashed" if fault.kind is FaultKind.CRASH else "failed"
                if loop.time() - began >= HEALTHY_S:
                    delay = self.restart_first_s
                self.log.warning(f"kibitzer {what}; restarting it", kind=fault.kind.value,
                                 detail=fault.detail, pid=self.pid, in_s=delay)  # fmt: skip
            except Exception as exc:  # a kibitzer's bug must not stop the event
                self.log.warning("kibitzer failed; restarting it",
                                 error=f"{type(exc).__name__}: {exc}", in_s=delay)  # fmt: skip
            finally:
                self.pid = None
                await session.close(graceful=False)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RESTART_MAX_S)
            self._games.clear()  # a new process: every game is new to it
            self._changed.set()

    async def _follow(self, session: AnalysisSession) -> None:
        """Analyse each position the kibitzer is told to, until a fault."""
        while True:
            self._changed.clear()
            position = self.target
            if position is None:
                await self._changed.wait()
                continue
            board = position.board()
            game = self._games.setdefault(position.game_id, object())
            if len(self._games) > 64:  # only the current games matter
                self._games = {position.game_id: game}
            analysis = await session.analyse(board, game=game)
            reader = asyncio.create_task(
                self._read(analysis, position, board), name=f"kibitzer-{self.index}-read"
            )
            changed = asyncio.create_task(self._changed.wait())
            try:
                await asyncio.wait({reader, changed}, return_when=asyncio.FIRST_COMPLETED)
                if reader.done():
                    error = reader.exception()
                    if error is not None:
                        raise session.fault_of(error)
                    await changed  # the engine ended the search itself (a mate, a limit)
            finally:
                for task in (reader, changed):
                    task.cancel()
                await asyncio.wait({reader, changed})
                for task in (reader, changed):
                    if not task.cancelled():
                        task.exception()  # seen (a reader's error is raised above)
            await session.stop(analysis, self.stop_timeout_s)

    async def _read(
        self, analysis: chess.engine.AnalysisResult, position: Position, board: chess.Board
    ) -> None:
        """Report the search, at most once per :attr:`interval_s`: the newest
        merged ``info`` when the interval is over and something new came."""
        loop = asyncio.get_running_loop()
        fresh = False  # something came since the last report
        while True:
            wait = max(0.0, self._next_report - loop.time()) if fresh else None
            try:
                async with asyncio.timeout(wait):
                    await analysis.get()  # AnalysisComplete at the end; a crash raises
                fresh = True
            except TimeoutError:
                pass
            except chess.engine.AnalysisComplete:
                if fresh:
                    await asyncio.sleep(max(0.0, self._next_report - loop.time()))
                    self._report(analysis, position, board)
                return
            if fresh and loop.time() >= self._next_report:
                fresh = False  # reported, or nothing to report before a score comes
                self._report(analysis, position, board)

    def _report(
        self, analysis: chess.engine.AnalysisResult, position: Position, board: chess.Board
    ) -> bool:
        report = kibitzer_report(self.index, self.engine.name, self.desc, position, board,
                                 analysis.info)  # fmt: skip
        if report is None:
            return False
        self._next_report = asyncio.get_running_loop().time() + self.interval_s
        self.emit(report)
        return True


class KibitzerSink(BaseSink):
    """The kibitzers as a sink of the event stream (module docstring)."""

    owns_engines = True

    def __init__(
        self,
        kibitzers: Sequence[KibitzerSettings],
        emit: Callable[[DomainEvent], None],
        *,
        log: Any,
        groups: EngineGroups | None = None,
        **kwargs: Any,
    ) -> None:
        self.log = log
        self.games = RunningGames()
        self.kibitzers = [
            Kibitzer(i, k, emit, log=log, groups=groups, **kwargs) for i, k in enumerate(kibitzers)
        ]
        self._task: asyncio.Task[None] | None = None

    def start(self, state: EventState) -> None:
        del state
        if self._task is None and self.kibitzers:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="kibitzers")

    async def _run(self) -> None:
        async with asyncio.TaskGroup() as group:
            for k in self.kibitzers:
                group.create_task(k.run(), name=f"kibitzer-{k.index}")

    def handle(self, committed: Committed, state: EventState) -> None:
        event = committed.event
        if isinstance(event, MovePlayed):
            self.games.moved(event)
        elif isinstance(event, GameStarted):
            self.games.started(event)
        elif isinstance(event, GameFinished):
            self.games.finished(event.game_id)
        else:
            return
        for k in self.kibitzers:
            k.follow(self.games.position(k.board))

    async def aclose(self) -> None:
        """Stop every kibitzer: their engines killed and reaped (bounded: a
        session's close is). Idempotent."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
