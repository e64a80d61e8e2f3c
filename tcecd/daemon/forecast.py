"""Live forecasts in the daemon: computed off the event loop, one at a time.

After every finished game (and once at start-up) the forecast sink
(:class:`ForecastSink`) hands :meth:`ForecastWorker.request` a snapshot of
the event; the worker computes
the forecast (:func:`tcecd.forecast.forecast.forecast`) in low-priority worker
processes (:mod:`tcecd.forecast.parallel`: the pairing system is pure Python,
so a thread would hold the GIL against the event loop, and the engines come
first) and publishes a :class:`~tcecd.events.ForecastUpdated`. One forecast
runs at a time; a request arriving meanwhile waits, and a newer request
replaces a waiting one, so a fast round never queues stale work. Games never
wait for a forecast, and a forecast that fails is logged and skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from tcecd.daemon.stream import BaseSink, Committed
from tcecd.event.state import EventState
from tcecd.events import DomainEvent, ForecastUpdated, GameFinished
from tcecd.forecast.forecast import Forecast, ForecastSettings, forecast
from tcecd.forecast.montecarlo import EventSnapshot
from tcecd.forecast.parallel import make_pool, simulate_in
from tcecd.formats.base import FormatSettings
from tcecd.pairing.base import RoundContext


def snapshot(
    state: EventState,
    fs: FormatSettings,
    total_rounds: int,
    context: RoundContext | None = None,
) -> EventSnapshot:
    """The event as the forecast reads it: finished rounds, and the round being
    played with its games finished so far; ``context``: what its rounds are
    paired with (the event's pairing rules)."""
    history = state.history()
    current = state.schedule.get(len(history) + 1)
    games = state.round_record(current.round).games if current is not None else ()
    return EventSnapshot(
        system=fs.system,
        players=state.players,
        double=fs.double,
        rounds=tuple(history),
        total_rounds=total_rounds,
        tiebreaks=fs.tiebreaks,
        current=current,
        current_games=tuple(games),
        context=context if context is not None else RoundContext(total_rounds=total_rounds),
        time_limit_s=fs.time_limit_s,
    )


class ForecastWorker:
    """Computes forecasts in the background (module docstring)."""

    def __init__(
        self,
        settings: ForecastSettings,
        publish: Callable[[Forecast], None],
        *,
        log: Any,
        workers: int = 1,
        pool_factory: Callable[[int], Executor] | None = None,
    ) -> None:
        self.settings = settings
        self.publish = publish
        self.log = log
        self.workers = workers
        self._pool_factory = pool_factory
        self._pool: Executor | None = None
        self._pending: EventSnapshot | None = None
        self._task: asyncio.Task[None] | None = None

    def request(self, snap: EventSnapshot) -> None:
        """Forecast ``snap`` once the running forecast (if any) is done,
        replacing a request still waiting."""
        self._pending = snap
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        while self._pending is not None:
            snap, self._pending = self._pending, None
            if self._pool is None:
                factory = self._pool_factory or make_pool
                self._pool = factory(self.workers)
            runner = functools.partial(simulate_in, self._pool)
            try:
                # The thread only fits the model and waits for the pool's chunks.
                result = await asyncio.to_thread(forecast, snap, self.settings, runner)
            except Exception as exc:  # a forecast is best effort: never stop the event
                self.log.warning("forecast failed", error=f"{type(exc).__name__}: {exc}")
                continue
            self.publish(result)

    async def aclose(self, *, wait_s: float = 0.0) -> None:
        """Let the forecast in progress (and a waiting one) finish for up to
        ``wait_s`` seconds, then cancel and stop the worker processes."""
        task = self._task
        if task is not None and not task.done():
            if wait_s > 0:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(asyncio.shield(task), wait_s)
            self._pending = None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class ForecastSink(BaseSink):
    """Forecasts as a sink: a request at start-up and after every finished
    game; each forecast goes back into the stream (``emit``) as a
    :class:`~tcecd.events.ForecastUpdated`."""

    def __init__(
        self,
        worker_settings: ForecastSettings,
        fs: FormatSettings,
        total_rounds: int,
        emit: Callable[[DomainEvent], None],
        *,
        log: Any,
        workers: int = 1,
        context: Callable[[EventState], RoundContext] | None = None,
    ) -> None:
        self.fs = fs
        self.total_rounds = total_rounds
        self.context = context
        self.worker = ForecastWorker(
            worker_settings, lambda f: emit(ForecastUpdated(f)), log=log, workers=workers
        )

    def _snapshot(self, state: EventState) -> EventSnapshot:
        context = None if self.context is None else self.context(state)
        return snapshot(state, self.fs, self.total_rounds, context)

    def start(self, state: EventState) -> None:
        self.worker.request(self._snapshot(state))

    def handle(self, committed: Committed, state: EventState) -> None:
        if isinstance(committed.event, GameFinished):
            self.worker.request(self._snapshot(state))

    async def aclose(self) -> None:
        # A finished event's last forecast (certain places) is quick.
        await self.worker.aclose(wait_s=30.0 if self.complete else 0.0)
