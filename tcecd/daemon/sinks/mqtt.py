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

from tcecd.bus.outbox import OutboxEntry, OutboxRow
from tcecd.daemon.sinks.files import event_crosstable
from tcecd.daemon.stream import BaseSink, Committed
from tcecd.domain import GameId
from tcecd.event.state import EventState
from tcecd.events import (
    CommandAnswered,
    ConcurrencyChanged,
    DomainEvent,
    EngineReplaced,
    EngineWithdrawn,
    EventFinished,
    EventPaused,
    RoundPaired,
    StandingsUpdated,
)
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
        # The latest round over (a round-robin's round re-opened by the console
        # does not take the standings back to round 0: its game is to be played).
        done = max((r for r in state.rounds if state.round_done(r)), default=0)
        self.pub.publish(StandingsUpdated(done, self.fmt.standings(state.upto(done))))
        self.pub.publish_crosstable(event_crosstable(self.event, state, self.fmt))
        if state.audit or _console_changed(state):
            self._console(state)
            self._audit(state)

    def handle(self, committed: Committed, state: EventState) -> None:
        event = committed.event
        self.pub.publish(event, committed.stored)
        if isinstance(event, StandingsUpdated | EventFinished):
            self.pub.publish_crosstable(event_crosstable(self.event, state, self.fmt))
        elif isinstance(event, CommandAnswered):
            self._reply(event, state)
            if not event.repeated:
                self._audit(state)
        elif isinstance(event, EventPaused | EngineWithdrawn | EngineReplaced | ConcurrencyChanged):
            self._console(state)

    # -- the console (docs/events.md, "The console") ---------------------------------

    def _reply(self, event: CommandAnswered, state: EventState) -> None:
        """The answer, once per command received (QoS 1, not retained), on
        ``control/reply/<id>`` (``control/error`` for a payload without an id);
        a ``status`` answer with the latest audit entries."""
        from tcecd.control.console import public_entry, status_audit

        entry = public_entry(event.entry)
        body = entry.reply()
        if entry.command == "status" and entry.ok:
            body["effect"] = {**(entry.effect or {}), "audit": status_audit(state.audit)}
        levels = ("control", "reply", entry.id) if entry.id else ("control", "error")
        self.pub.publish_raw(self.pub.message(levels, {"type": "reply", **body},
                                              retain=False))  # fmt: skip

    def _audit(self, state: EventState) -> None:
        """The retained audit log: the latest commands, accepted or refused."""
        from tcecd.control.console import audit_document

        doc = {"type": "audit", "entries": audit_document(state.audit)}
        self.pub.publish_raw(self.pub.message(("audit",), doc))

    def _console(self, state: EventState) -> None:
        """The retained console state: paused, withdrawn and replaced engines,
        the concurrency the operator set."""
        doc = {
            "type": "console",
            "paused": state.paused,
            "concurrency": state.concurrency,
            "withdrawn": {e: {"round": r, "reason": why}
                          for e, (r, why) in sorted(state.withdrawn.items())},
            "replaced": {e: {"command": d.get("command"), "options": d.get("options")}
                         for e, d in sorted(state.replaced.items())},
        }  # fmt: skip
        self.pub.publish_raw(self.pub.message(("console",), doc))

    def outbox_entries(self, event: DomainEvent) -> list[OutboxEntry]:
        return self.pub.outbox_entries(event)


def _console_changed(state: EventState) -> bool:
    return bool(state.paused or state.withdrawn or state.replaced or state.concurrency)


def _order(gid: GameId) -> tuple[int, int]:
    return (gid.round, gid.number)
