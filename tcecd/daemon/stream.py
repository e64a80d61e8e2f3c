"""The event stream: committed domain events, handed to small sinks.

The recorder (:mod:`tcecd.daemon.recorder`) emits every domain event once,
after it is durable (a finished game after its store transaction and its
PGN append; a move or a game's start at once: they are not part of the
record). Each consumer is a :class:`Sink` subscribed to the stream with its
own read model: the TCEC JSON files, the live files, MQTT, the terminal
progress display, the forecasts, the log (:mod:`tcecd.daemon.sinks`).
Adding an output is adding a sink; the commit does not change.

A sink sees each event with the event state after it (the fold,
:mod:`tcecd.event.state`) and must not block or raise for its own sake: it
hands slow work (a file write, a broker round trip) to its own task, and
its :meth:`Sink.flush` says when that work is done (the runner flushes the
stream after each finished game, so a game's files are on disk before the
next game's result). A sink that needs outbox rows (MQTT) gives the
messages that must reach subscribers through :meth:`Sink.outbox_entries`:
the recorder commits them in the same transaction as what they announce,
and hands them back with the event (:class:`Committed`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from tcecd.bus.outbox import OutboxEntry, OutboxRow
from tcecd.event.state import EventState
from tcecd.events import DomainEvent


@dataclass(frozen=True, slots=True)
class Committed:
    """A domain event as the stream delivers it: with the outbox rows the
    recorder committed for it (empty for everything MQTT need not keep)."""

    event: DomainEvent
    stored: tuple[OutboxRow, ...] = ()


class Sink(Protocol):
    """A consumer of the event stream (see the module docstring)."""

    def start(self, state: EventState) -> None:
        """The event as the state holds it before anything new happens (a new
        event: its players; a resumed one: everything so far)."""
        ...

    def handle(self, committed: Committed, state: EventState) -> None:
        """One event, with the state after it. Never blocks, never raises for
        the sink's own sake."""
        ...

    def outbox_entries(self, event: DomainEvent) -> list[OutboxEntry]:
        """Messages about ``event`` that must be committed with it (MQTT)."""
        ...

    def resend(self, rows: Sequence[OutboxRow]) -> None:
        """At start-up, before anything else: stored messages the broker has
        not acknowledged, oldest first (MQTT)."""
        ...

    async def flush(self) -> None:
        """Until what was handed over so far is out (files on disk)."""
        ...

    async def aclose(self) -> None:
        """The run is over: finish or stop the sink's own work (bounded)."""
        ...

    #: The event types the sink handles (None: every one). The stream hands a
    #: sink only those: a move, the commonest event, then costs nothing in the
    #: sinks that ignore it (``tcecd play``'s, the log's).
    wants: frozenset[type[DomainEvent]] | None
    #: The sink runs engines of its own (kibitzers): it is closed before the
    #: players' engines are reaped (:meth:`EventStream.close_engines`).
    owns_engines: bool

    #: Set before :meth:`aclose` when the event is complete (a forecast then
    #: waits for its last, certain, forecast).
    complete: bool


class BaseSink:
    """A sink that does nothing: subclasses override what they need."""

    owns_engines = False
    complete = False
    wants: frozenset[type[DomainEvent]] | None = None

    def start(self, state: EventState) -> None:
        del state

    def handle(self, committed: Committed, state: EventState) -> None:
        del committed, state

    def outbox_entries(self, event: DomainEvent) -> list[OutboxEntry]:
        del event
        return []

    def resend(self, rows: Sequence[OutboxRow]) -> None:
        del rows

    async def flush(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


class EventStream:
    """The sinks of one run, in the order they were added (which is the
    order each event reaches them)."""

    def __init__(self, sinks: Sequence[Sink] = ()) -> None:
        self.sinks: list[Sink] = list(sinks)
        #: Event type -> the sinks that want it, in order (made on first use).
        self._routes: dict[type[DomainEvent], list[Sink]] = {}

    def add(self, sink: Sink) -> None:
        self.sinks.append(sink)
        self._routes.clear()

    def _route(self, kind: type[DomainEvent]) -> list[Sink]:
        sinks = [s for s in self.sinks if (w := getattr(s, "wants", None)) is None or kind in w]
        self._routes[kind] = sinks
        return sinks

    def start(self, state: EventState) -> None:
        for sink in self.sinks:
            sink.start(state)

    def emit(self, committed: Committed, state: EventState) -> None:
        kind = type(committed.event)
        for sink in self._routes.get(kind) or self._route(kind):
            sink.handle(committed, state)

    def outbox_entries(self, event: DomainEvent) -> list[OutboxEntry]:
        return [entry for sink in self.sinks for entry in sink.outbox_entries(event)]

    def resend(self, rows: Sequence[OutboxRow]) -> None:
        for sink in self.sinks:
            sink.resend(rows)

    async def flush(self) -> None:
        for sink in self.sinks:
            await sink.flush()

    async def close_engines(self) -> None:
        """Close the sinks that run engines of their own (before the players'
        engines are reaped, which would take theirs for strays)."""
        for sink in self.sinks:
            if sink.owns_engines:
                await sink.aclose()

    async def aclose(self, *, complete: bool = False) -> None:
        """Close every sink, in reverse order (``complete``: the event is);
        the first error is raised after all were closed."""
        error: BaseException | None = None
        for sink in reversed(self.sinks):
            sink.complete = complete
            try:
                await sink.aclose()
            except Exception as exc:  # close the others first
                error = error or exc
        if error is not None:
            raise error
