"""The daemon publishes forecasts while an event runs (in-process, bundled engines)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import structlog

from tcecd.bus.outbox import OutboxEntry
from tcecd.config.load import load_event
from tcecd.daemon.core import EventRunner
from tcecd.daemon.outputs import NullPublisher
from tcecd.daemon.settings import from_config
from tcecd.events import DomainEvent, ForecastUpdated
from tests.daemon.helpers import write_config

pytestmark = pytest.mark.slow  # a whole (tiny) event with engines: ~10 s on a busy machine


class Recorder(NullPublisher):
    def __init__(self) -> None:
        self.events: list[DomainEvent] = []

    def publish(self, event: DomainEvent, stored: Sequence[tuple[int, OutboxEntry]] = ()) -> None:
        self.events.append(event)


def test_forecasts_follow_the_event_to_its_certain_end(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, rounds=3, extra="forecast: {simulations: 30, top: 2}\n")
    settings = from_config(load_event(cfg))
    sink = Recorder()
    runner = EventRunner(settings, log=structlog.get_logger("test"), publisher=sink)
    assert runner.forecaster is not None
    # Threads instead of spawned processes: the same code path, cheaper in a test.
    runner.forecaster._pool_factory = ThreadPoolExecutor

    async def main() -> bool:
        try:
            return await runner.run()
        finally:
            await runner.aclose_engines()

    runner.open()
    try:
        assert asyncio.run(main())
    finally:
        runner.close()
    forecasts = [e.forecast for e in sink.events if isinstance(e, ForecastUpdated)]
    # The start-up forecast comes first; the last one is after the last game.
    assert (forecasts[0].after_round, forecasts[0].after_game) == (0, 0)
    last = forecasts[-1]
    assert (last.after_round, last.after_game, last.simulations) == (3, 0, 1)
    final = {s.id: s.rank for s in runner.final_standings}
    for p in last.players:
        assert p.places[final[p.id] - 1] == 1.0
    # In between: forecasts in event order (one at a time, newer ones superseding).
    order = [(f.after_round, f.after_game) for f in forecasts]
    assert order == sorted(order)
    assert len(forecasts) >= 3  # at least one mid-event forecast between start and end
