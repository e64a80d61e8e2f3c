"""MQTT as a sink of the event stream: every committed event goes to the
publisher (:class:`tcecd.bus.publisher.Publisher`), which maps it to its
topics and never blocks or raises for the broker's sake.

The messages that must reach subscribers (results, pairings, standings)
come from here as outbox entries (:meth:`MqttSink.outbox_entries`): the
recorder commits them with what they announce and hands them back with the
event, and the publisher reports each one the broker acknowledged to the
state. At start-up the rows the broker never acknowledged go out first
(:meth:`MqttSink.resend`), then the event as it stands (:meth:`MqttSink.start`),
so that the retained topics end with the current state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tcecd.bus.outbox import OutboxEntry
from tcecd.daemon.sinks.files import event_crosstable
from tcecd.daemon.stream import BaseSink, Committed, OutboxRow
from tcecd.domain import GameId
from tcecd.event.state import EventState
from tcecd.events import DomainEvent, EventFinished, RoundPaired, StandingsUpdated
from tcecd.formats.base import EventFormat

if TYPE_CHECKING:
    from tcecd.bus.publisher import Publisher


class MqttSink(BaseSink):
    """The live stream over MQTT (see the module docstring)."""

    def __init__(self, publisher: Publisher, event: str, fmt: EventFormat) -> None:
        self.pub = publisher
        self.event = event
        self.fmt = fmt

    def resend(self, rows: Sequence[OutboxRow]) -> None:
        if rows:
            self.pub.publish_stored(rows)

    def start(self, state: EventState) -> None:
        for r in state.rounds:
            self.pub.publish(RoundPaired(state.schedule[r]))
        if state.results:
            # Resumed: the retained schedule and crosstable include the games played.
            self.pub.restore_finished(
                state.results[gid] for gid in sorted(state.results, key=_order)
            )
        done = len(state.history())
        self.pub.publish(StandingsUpdated(done, self.fmt.standings(state.upto(done))))
        self.pub.publish_crosstable(event_crosstable(self.event, state, self.fmt))

    def handle(self, committed: Committed, state: EventState) -> None:
        self.pub.publish(committed.event, committed.stored)
        if isinstance(committed.event, StandingsUpdated | EventFinished):
            self.pub.publish_crosstable(event_crosstable(self.event, state, self.fmt))

    def outbox_entries(self, event: DomainEvent) -> list[OutboxEntry]:
        return self.pub.outbox_entries(event)


def _order(gid: GameId) -> tuple[int, int]:
    return (gid.round, gid.number)
