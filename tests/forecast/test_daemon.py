"""The daemon publishes forecasts while an event runs (in-process, bundled engines)."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import tcecd.daemon.forecast as forecast_module
from tcecd import eventloop
from tcecd.config.event_file import load_event
from tcecd.daemon import run_event_async
from tcecd.daemon.settings import from_config
from tcecd.daemon.stream import BaseSink, Committed
from tcecd.event.state import EventState
from tcecd.events import DomainEvent, EventFinished, ForecastUpdated
from tests.daemon.helpers import write_config

pytestmark = pytest.mark.slow  # a whole (tiny) event with engines: ~10 s on a busy machine


class Seen(BaseSink):
    def __init__(self) -> None:
        self.events: list[DomainEvent] = []

    def handle(self, committed: Committed, state: EventState) -> None:
        self.events.append(committed.event)


def test_forecasts_follow_the_event_to_its_certain_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = write_config(tmp_path, rounds=3, extra="forecast: {simulations: 30, top: 2}\n")
    settings = from_config(load_event(cfg))
    sink = Seen()
    # Threads instead of spawned processes: the same code path, cheaper in a test.
    monkeypatch.setattr(forecast_module, "make_pool", ThreadPoolExecutor)
    rc = eventloop.run(run_event_async(settings, out=io.StringIO(), install_signals=False,
                                       sinks=[sink]))  # fmt: skip
    assert rc is True  # complete
    [finished] = [e for e in sink.events if isinstance(e, EventFinished)]
    forecasts = [e.forecast for e in sink.events if isinstance(e, ForecastUpdated)]
    # The start-up forecast comes first; the last one is after the last game.
    assert (forecasts[0].after_round, forecasts[0].after_game) == (0, 0)
    last = forecasts[-1]
    assert (last.after_round, last.after_game, last.simulations) == (3, 0, 1)
    final = {s.id: s.rank for s in finished.standings}
    for p in last.players:
        assert p.places[final[p.id] - 1] == 1.0
    # In between: forecasts in event order (one at a time, newer ones superseding).
    order = [(f.after_round, f.after_game) for f in forecasts]
    assert order == sorted(order)
    assert len(forecasts) >= 3  # at least one mid-event forecast between start and end
