"""The recorder: the one writer of the event's record, and the source of its stream.

Every durable step goes through here, in its crash-safe order: the store
transaction (with the MQTT messages that must reach subscribers, the
outbox: :mod:`tcecd.bus.outbox`), then the PGN append (fsync'd), then the
committed domain event goes to the stream's sinks (:mod:`tcecd.daemon.stream`),
each once. The event state (:mod:`tcecd.event.state`) is the fold of those
events: the recorder applies each to it right after its commit, before any
sink sees it, so every reader sees the state the store holds.

A crash anywhere leaves a state that the next start resumes from without
losing or duplicating a game (docs/state.md): a game is recorded by one
transaction; the PGN is completed from the store at start-up; what the
broker had not acknowledged is sent again from the outbox.

Blocking work (SQLite commits, the PGN's fsync) runs in a worker thread,
awaited in order, one step at a time; the event loop only folds and emits.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from tcecd.bus.outbox import OutboxEntry, OutboxRow
from tcecd.daemon.crash import CrashPoints
from tcecd.daemon.stream import Committed, EventStream
from tcecd.domain import GameId, PlayerId
from tcecd.event.state import EventState, apply
from tcecd.event.strikes import FaultTuple, charge
from tcecd.events import (
    CommandAnswered,
    ControlEntry,
    DomainEvent,
    EngineDisqualified,
    EngineFault,
    EventFinished,
    GameFinished,
    MovePlayed,
    RoundPaired,
    StandingsUpdated,
)
from tcecd.game.record import GameRecord
from tcecd.outputs.files import PgnFile
from tcecd.pairing.base import RoundPairing, Standing
from tcecd.store import EventStore
from tcecd.store.console import StoredAttempt


class Recorder:
    """Records the event and emits its stream (see the module docstring)."""

    def __init__(
        self,
        store: EventStore,
        pgn: PgnFile,
        stream: EventStream,
        state: EventState,
        *,
        strikes_max: int,
        crash: CrashPoints | None = None,
        outbox_keys: set[str] | None = None,
    ) -> None:
        self.store = store
        self.pgn = pgn
        self.stream = stream
        self.state = state
        self.strikes_max = strikes_max
        self.crash = crash or CrashPoints()
        #: Keys of the store's outbox rows (a message is committed once).
        self.outbox_keys: set[str] = set(outbox_keys or ())

    # -- the stream ----------------------------------------------------------------------

    def _emit(self, event: DomainEvent, stored: Sequence[OutboxRow] = ()) -> None:
        self.state = apply(self.state, event)
        self.stream.emit(Committed(event, tuple(stored)), self.state)

    def live(self, event: DomainEvent) -> None:
        """An event that is not part of the record (a game's start, a move, a
        forecast, a bracket): to the sinks at once."""
        self._emit(event)
        if self.crash.active and isinstance(event, MovePlayed):
            self.crash.hit(f"mid-game:{event.game_id}:ply={event.move.ply}")

    def _outbox(self, event: DomainEvent) -> list[OutboxEntry]:
        return [e for e in self.stream.outbox_entries(event) if e.key not in self.outbox_keys]

    def _kept(self, rows: list[OutboxRow]) -> list[OutboxRow]:
        self.outbox_keys.update(entry.key for _, entry in rows)
        return rows

    # -- durable steps -------------------------------------------------------------------

    async def schedule(self, pairing: RoundPairing) -> None:
        """Record a round's schedule (a new round, or more games of one)."""
        event = RoundPaired(pairing)
        store = self.store
        rows = await asyncio.to_thread(
            store.save_pairing, pairing, outbox=self._outbox(event),
            replace=pairing.round in self.state.schedule,
        )  # fmt: skip
        self._emit(event, self._kept(rows))
        self.crash.hit(f"after-pairing:{pairing.round}")

    async def game(
        self, record: GameRecord, pgn: str, *, faults: Sequence[FaultTuple] = ()
    ) -> None:
        """Record a finished (or forfeited) game with the faults it caused and
        the disqualifications they lead to: one store transaction, then the
        PGN append, then its events (faults, disqualifications, the game)."""
        gid = record.game_id
        state = self.state
        charged = charge(state.strikes, state.disqualified, faults, self.strikes_max)
        finished = GameFinished(record, pgn)
        rows = await asyncio.to_thread(
            self.store.commit_game,
            record,
            pgn,
            played=finished.summary.played,
            faults=list(faults),
            disqualify=[(e, gid.round, why) for e, why in charged.disqualified],
            outbox=self._outbox(finished),
        )
        self.crash.hit(f"after-store:{gid}")
        await asyncio.to_thread(self.pgn.append, pgn, tag=str(gid))
        for (engine, kind, detail), (_, strikes) in zip(faults, charged.strikes, strict=True):
            self._emit(EngineFault(engine, gid, kind, detail, strikes))
        for engine, why in charged.disqualified:
            self._emit(EngineDisqualified(engine, why, gid.round))
        self._emit(finished, self._kept(rows))

    async def fault(self, engine: PlayerId, gid: GameId, kind: str, detail: str) -> None:
        """A fault of a game that will be played again: its strike (and the
        disqualification it may cause) committed now, then announced."""
        charged = charge(
            self.state.strikes, self.state.disqualified, [(engine, kind, detail)],
            self.strikes_max,
        )  # fmt: skip
        await asyncio.to_thread(self.store.add_fault, engine, gid, kind, detail)
        ((_, strikes),) = charged.strikes
        self._emit(EngineFault(engine, gid, kind, detail, strikes))
        for out, why in charged.disqualified:
            await asyncio.to_thread(self.store.disqualify, out, gid.round, why)
            self._emit(EngineDisqualified(out, why, gid.round))

    async def standings(self, after_round: int, table: tuple[Standing, ...]) -> None:
        """A round is over: its standings, kept until the broker has them."""
        await self._kept_event(StandingsUpdated(after_round, table))

    async def finish(self, final: tuple[Standing, ...]) -> None:
        """The event is over: the final standings, and the store's mark."""
        event = EventFinished(final)
        if self.state.finished:
            # A resumed finished event: its final rows are there unless MQTT was off.
            await self._kept_event(event)
            return
        rows = await asyncio.to_thread(self.store.mark_finished, outbox=self._outbox(event))
        self._emit(event, self._kept(rows))

    async def command(
        self,
        entry: ControlEntry,
        *,
        attempt: StoredAttempt | None = None,
        void: GameId | None = None,
        then: Callable[[], None] | None = None,
    ) -> ControlEntry:
        """Record a console command (accepted or refused) with what it does to
        a game (:meth:`~tcecd.store.EventStore.record_command`: one transaction),
        then do ``then`` (apply it to the run: it is durable now), then emit it
        (its reply and the audit log) and the facts it decided
        (:func:`~tcecd.control.facts.facts_of`). Returns the entry as recorded
        (with its ``seq``)."""
        from tcecd.control.facts import facts_of

        seq = await asyncio.to_thread(
            self.store.record_command, entry, attempt=attempt, void=void
        )
        if void is not None:
            self.outbox_keys.discard(f"end {void}")
        recorded = dataclasses.replace(entry, seq=seq)
        self.crash.hit(f"after-command:{entry.command}")
        if then is not None:
            then()
        self._emit(CommandAnswered(recorded))
        for fact in facts_of(recorded):
            self._emit(fact)
        return recorded

    def answer_again(self, entry: ControlEntry) -> None:
        """A command id that came again: its recorded answer goes out again."""
        self._emit(CommandAnswered(entry, repeated=True))

    async def _kept_event(self, event: DomainEvent) -> None:
        """Commit ``event``'s must-deliver messages on their own (those not in
        the outbox yet), then emit it."""
        outbox = self._outbox(event)
        rows = await asyncio.to_thread(self.store.add_outbox, outbox) if outbox else []
        self._emit(event, self._kept(rows))

    # -- start-up ------------------------------------------------------------------------

    async def repair_outbox(self, events: Iterable[DomainEvent]) -> list[OutboxRow]:
        """Add the outbox rows the state lacks for ``events`` (the must-deliver
        messages of what the state holds: each round's pairing, each finished
        game, each finished round's standings; a state written without MQTT,
        or a crash between a round's last game and its standings, lacks some),
        and return them: they go out, then what the broker had not acknowledged.
        ``events`` may read the store as it goes: it is consumed in a worker
        thread (start-up only, before anything else runs)."""

        def missing() -> list[OutboxEntry]:
            return [e for ev in events for e in self._outbox(ev)]

        entries = await asyncio.to_thread(missing)
        if not entries:
            return []
        rows = await asyncio.to_thread(self.store.add_outbox, entries)
        return self._kept(rows)


def load_state(store: EventStore) -> EventState:
    """The event state a store holds: the same fold the live run makes, over
    the store's events (:func:`stored_events`). Blocking (reads the store)."""
    from tcecd.event.state import fold

    return fold(stored_events(store), EventState(players=store.players()))


def stored_events(store: EventStore) -> Iterator[DomainEvent]:
    """The recorded events of a store, one at a time (each finished game's
    record is read when its event is made, and can go once it is folded):
    what the console decided (the facts of every accepted command, in order,
    then the latest commands for the audit log), every round's schedule,
    every game, the faults with the strikes after each, the
    disqualifications, and the end. (The console's facts come first: a game
    whose result the operator voided is not in the store's games any more,
    and the game played again after it must not be voided by the fold.)"""
    from tcecd.control.facts import facts_of
    from tcecd.event.state import AUDIT_TAIL

    for entry in store.commands(accepted=True):
        yield from facts_of(entry)
    for entry in store.commands(last=AUDIT_TAIL):
        yield CommandAnswered(entry)
    for pairing in store.pairings():
        yield RoundPaired(pairing)
    for game in store.iter_games():
        yield GameFinished(game.record, game.pgn)
    counts: dict[PlayerId, int] = {}
    for engine, gid, kind, detail in store.faults():
        counts[engine] = counts.get(engine, 0) + 1
        yield EngineFault(engine, gid, kind, detail, counts[engine])
    for engine, (round_no, reason) in store.disqualified().items():
        yield EngineDisqualified(engine, reason, round_no)
    if store.finished:
        yield EventFinished(())


def outbox_events(store: EventStore, state: EventState, fmt: Any) -> Iterator[DomainEvent]:
    """The must-deliver events of what ``state`` holds, in event order (see
    :meth:`Recorder.repair_outbox`), reading each finished game from the store
    when its turn comes (blocking: a worker thread, at start-up only)."""
    from tcecd.formats.base import closed_rounds

    games = store.iter_games()
    stored = next(games, None)
    closed = closed_rounds(fmt, state)
    for r in state.rounds:
        pairing = state.schedule[r]
        yield RoundPaired(pairing)
        while stored is not None and stored.game_id.round == r:
            yield GameFinished(stored.record, stored.pgn)
            stored = next(games, None)
        if r <= closed:
            yield StandingsUpdated(r, fmt.standings(state.upto(r)))
