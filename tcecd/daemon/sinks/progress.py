"""The terminal progress display (:mod:`tcecd.daemon.progress`) as a sink."""

from __future__ import annotations

from tcecd.daemon.progress import ProgressDisplay
from tcecd.daemon.stream import BaseSink, Committed
from tcecd.event.state import EventState


class ProgressSink(BaseSink):
    """Feeds the display every event; at start, the event so far (a resumed
    event's rounds, finished games and latest results)."""

    def __init__(self, display: ProgressDisplay) -> None:
        self.display = display

    def start(self, state: EventState) -> None:
        done = sorted(state.results.values(), key=lambda s: (s.game_id.round, s.game_id.number))
        self.display.resume(
            {r: len(p.games) for r, p in state.schedule.items()},
            len(state.results),
            names={p.id: p.name for p in state.players},
            recent=done,
        )

    def handle(self, committed: Committed, state: EventState) -> None:
        self.display.publish(committed.event)
