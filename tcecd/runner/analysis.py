"""An engine that analyses instead of playing: ``go infinite``, then ``stop``.

:class:`AnalysisSession` is an :class:`~tcecd.runner.session.EngineSession`
(the same start-up under its timeout, own process group, parent-death signal,
record in the state directory, kill and reap on close) whose searches have no
limit: :meth:`AnalysisSession.analyse` starts one on a position and returns
python-chess's :class:`chess.engine.AnalysisResult` at once, and
:meth:`AnalysisSession.stop` ends it and waits, bounded, for the engine's
``bestmove``. Kibitzers use it (:mod:`tcecd.daemon.kibitzer`).

It speaks python-chess's own UCI protocol, not tcecd's lean one
(:mod:`tcecd.runner.uci` keeps ``info`` lines raw for games and never hands
them to python-chess's analysis), and python-chess parses each ``info`` line
into the result's merged :attr:`~chess.engine.AnalysisResult.info`. Every call
is under a timeout; a timeout is a ``stall``, a dead process a ``crash``
(:class:`~tcecd.runner.session.EngineFault`), and the session must then be
closed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable
from typing import Any, TypeVar

import chess
import chess.engine

from tcecd.config.engines import EngineConfig
from tcecd.config.load import find_executable
from tcecd.runner.reaper import EngineGroups
from tcecd.runner.session import EngineFault, EngineSession, FaultKind, SessionState

#: What a kibitzer reads of each ``info`` line (no ``currmove``, ``refutation``...).
ANALYSIS_INFO = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE | chess.engine.INFO_PV

T = TypeVar("T")


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Done-callback: mark an abandoned task's outcome as seen."""
    if not task.cancelled():
        task.exception()


class AnalysisSession(EngineSession):
    """An engine session for infinite analysis (module docstring). ``nice``: the
    Unix CPU priority the engine runs at (0-19; None: the daemon's own)."""

    uci_protocol = chess.engine.UciProtocol

    def __init__(
        self, config: EngineConfig, *, groups: EngineGroups | None = None, nice: int | None = None
    ) -> None:
        super().__init__(config, groups=groups)
        self.nice = nice

    def argv(self) -> list[str]:
        """The engine's command, run through ``nice -n N`` when a priority is
        set (nice execs the engine: it keeps its pid, process group and
        parent-death signal, and every thread it starts has that priority)."""
        argv = super().argv()
        nice = find_executable("nice") if self.nice else None
        if nice is None or not os.access(argv[0], os.X_OK):
            return argv  # (a program that cannot run is said so by the spawn)
        return [str(nice), "-n", str(self.nice), "--", *argv]

    async def _call(self, awaitable: Awaitable[T], timeout_s: float, what: str) -> T:
        """Await a python-chess command within ``timeout_s``, never cancelling it
        (a command cancelled while the engine may still answer breaks
        python-chess's bookkeeping: see ``session._uncancellable``); a timeout
        abandons the wait, and the caller closes the session, which ends it."""
        task = asyncio.ensure_future(awaitable)
        task.add_done_callback(_retrieve)
        protocol = self._protocol
        try:
            async with asyncio.timeout(timeout_s):
                if protocol is not None and not task.done():
                    # python-chess quirk: an engine that dies while a new game's
                    # analysis waits for ``readyok`` fails the analysis but never
                    # answers the command, which would wait out the timeout (a
                    # "stall"); the process' end is watched too, so that a death is
                    # a crash at once (tests/kibitz/test_sink.py). asyncio.wait
                    # cancels neither on a timeout.
                    watched: set[asyncio.Future[Any]] = {task, protocol.returncode}
                    await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
                    if not task.done():
                        raise self._terminated()
                return await asyncio.shield(task)
        except TimeoutError:
            raise self._fault(
                FaultKind.STALL, f"{what} not answered within {int(timeout_s * 1000)} ms"
            ) from None
        except chess.engine.EngineTerminatedError:
            raise self._terminated() from None
        except chess.engine.EngineError as exc:
            raise self._fault(FaultKind.GARBAGE, str(exc)[:200]) from None

    def fault_of(self, error: BaseException) -> BaseException:
        """What a search's error means: an :class:`EngineFault` for what the
        engine did (it died, it broke the protocol), else ``error`` itself."""
        if isinstance(error, EngineFault):
            return error
        if isinstance(error, chess.engine.EngineTerminatedError):
            return self._terminated()
        if isinstance(error, chess.engine.EngineError):
            return self._fault(FaultKind.GARBAGE, str(error)[:200])
        return error

    async def analyse(self, board: chess.Board, *, game: object) -> chess.engine.AnalysisResult:
        """Start analysing ``board`` without a limit (``go infinite``); a new
        ``game`` key first sends ``ucinewgame`` (and waits for ``readyok``).
        Returns once the search runs; raises :class:`EngineFault`."""
        assert self.state is SessionState.READY, self.state
        protocol = self._protocol
        assert protocol is not None
        self.state = SessionState.THINKING
        result = await self._call(
            protocol.analysis(board, info=ANALYSIS_INFO, game=game),
            self.startup_timeout_s,
            "the start of a search",
        )
        return result

    async def stop(self, analysis: chess.engine.AnalysisResult, timeout_s: float) -> None:
        """End the search (``stop``) and wait at most ``timeout_s`` for its
        ``bestmove``; raises :class:`EngineFault` (a ``stall`` when it does not
        come)."""
        assert self.state is SessionState.THINKING, self.state
        analysis.stop()
        await self._call(analysis.wait(), timeout_s, "stop")
        self.state = SessionState.READY


__all__ = ["ANALYSIS_INFO", "AnalysisSession", "EngineFault", "FaultKind"]
