"""The event as it stands: a fold over its committed domain events.

:class:`EventState` is what the runner, the formats and the sinks read of
the event: the players, the stored schedule (each round's games, as the
format scheduled them), a summary of each finished game, strikes and
disqualifications, and whether the event is over. It changes only by
:func:`apply`, one committed event at a time (:mod:`tcecd.events`), and the
same fold rebuilds it from the store on resume (the store gives back its
events in order: :meth:`tcecd.store.EventStore.events`). So the live view
and a resumed one cannot differ, and there is no second mirror of the store
to keep in step by hand.

Values, not a shared object: :func:`apply` returns a new state and never
changes the one it was given (containers are copied when they change), so
a state handed to a worker thread (a pairing) or a sink stays what it was.
Finished games are kept as :class:`~tcecd.game.record.GameSummary` values
(no moves): memory grows by a few hundred bytes a game. Pure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tcecd.domain import GameId, PlayerId, Result
from tcecd.events import (
    CommandAnswered,
    ConcurrencyChanged,
    ControlEntry,
    DomainEvent,
    EngineDisqualified,
    EngineFault,
    EngineReplaced,
    EngineWithdrawn,
    EventFinished,
    EventPaused,
    EventStarted,
    GameAdjudicationOrdered,
    GameFinished,
    GameRestartOrdered,
    GameStarted,
    KibitzerReport,
    MovePlayed,
    RoundPaired,
)
from tcecd.game.record import GameSummary
from tcecd.pairing.base import (
    PlayedGame,
    Player,
    RoundPairing,
    RoundRecord,
    ScheduledGame,
)


@dataclass(frozen=True)
class EventState:
    """The event's committed state (see the module docstring). Treat every
    container as read-only: :func:`apply` makes the next state."""

    players: tuple[Player, ...] = ()
    #: round -> the games scheduled in it (a round's pairing; a cup's round grows).
    schedule: Mapping[int, RoundPairing] = field(default_factory=dict)
    results: Mapping[GameId, GameSummary] = field(default_factory=dict)
    strikes: Mapping[PlayerId, int] = field(default_factory=dict)
    #: engine -> (round, reason)
    disqualified: Mapping[PlayerId, tuple[int, str]] = field(default_factory=dict)
    #: The final standings were recorded (``EventFinished``).
    finished: bool = False
    #: The first round with a game not finished (None: every scheduled game is):
    #: where :meth:`pending` starts, so a long match's finished rounds cost nothing.
    first_open: int | None = None

    # What the operator's console decided (tcecd.control): facts of the record,
    # rebuilt by the same fold on resume (docs/running.md, "The console").

    #: ``pause``d: no game starts until ``resume``.
    paused: bool = False
    #: engine -> (round, reason): withdrawn by the operator.
    withdrawn: Mapping[PlayerId, tuple[int, str]] = field(default_factory=dict)
    #: engine -> the definition that plays its games from now on (JSON data).
    replaced: Mapping[PlayerId, Mapping[str, object]] = field(default_factory=dict)
    #: Games at once, as the operator set it (None: the config's).
    concurrency: int | None = None
    #: game -> why the operator restarted it (its record then says so).
    restarted: Mapping[GameId, str] = field(default_factory=dict)
    #: How many finished results the operator has voided so far (restart-game
    #: of a game a fault ended): what counts results in order counts again.
    voided: int = 0
    #: game -> (result, reason) the operator adjudicated it with.
    adjudicated: Mapping[GameId, tuple[Result, str]] = field(default_factory=dict)
    #: The latest commands, accepted or refused, oldest first (at most AUDIT_TAIL).
    audit: tuple[ControlEntry, ...] = ()

    # -- reading ----------------------------------------------------------------------

    @property
    def rounds(self) -> list[int]:
        """The rounds scheduled so far, in order."""
        return sorted(self.schedule)

    def game(self, gid: GameId) -> ScheduledGame | None:
        """The scheduled game ``gid``, if it is in the schedule."""
        pairing = self.schedule.get(gid.round)
        if pairing is None:
            return None
        return next((g for g in pairing.games if g.number == gid.number), None)

    def round_done(self, round_no: int) -> bool:
        """Every scheduled game of the round is finished."""
        pairing = self.schedule.get(round_no)
        return pairing is not None and all(
            GameId(round_no, g.number) in self.results for g in pairing.games
        )

    def pending(self) -> list[tuple[int, ScheduledGame]]:
        """The scheduled games not finished yet, in playing order (round, then
        the position in the round)."""
        out: list[tuple[int, ScheduledGame]] = []
        r = self.first_open
        # Rounds are numbered 1, 2, ... without gaps: walk from the first open one.
        while r is not None and r in self.schedule:
            out += [(r, g) for g in self.schedule[r].games
                    if GameId(r, g.number) not in self.results]  # fmt: skip
            r += 1
        return out

    def history(self) -> list[RoundRecord]:
        """The finished rounds in order (up to the first unfinished one), as
        the pairing systems and the standings read them."""
        out: list[RoundRecord] = []
        for r in sorted(self.schedule):
            if not self.round_done(r):
                break
            out.append(self.round_record(r))
        return out

    def records_so_far(self) -> list[RoundRecord]:
        """Every round scheduled so far, the unfinished ones with the games
        finished so far (live standings)."""
        return [self.round_record(r) for r in sorted(self.schedule)]

    def round_record(self, round_no: int) -> RoundRecord:
        """Round ``round_no`` as the pairing core reads it: its finished games
        in playing order."""
        pairing = self.schedule[round_no]
        games: list[PlayedGame] = []
        for g in pairing.games:
            done = self.results.get(GameId(round_no, g.number))
            if done is not None:
                games.append(PlayedGame(done.white, done.black, done.result, done.played))
        return RoundRecord(
            round=round_no,
            byes=pairing.byes,
            removed_history_rounds=pairing.removed_history_rounds,
            games=tuple(games),
            requested_byes=pairing.requested_byes,
        )

    def upto(self, round_no: int) -> EventState:
        """The event as it stood when round ``round_no`` ended: the rounds
        after it left out (standings after a round)."""
        schedule = {r: p for r, p in self.schedule.items() if r <= round_no}
        results = {g: s for g, s in self.results.items() if g.round <= round_no}
        return dataclasses.replace(self, schedule=schedule, results=results)

    def ordinal(self, gid: GameId) -> int | None:
        """The game's 1-based position in the whole event's playing order."""
        n = 0
        for r in sorted(self.schedule):
            for g in self.schedule[r].games:
                n += 1
                if r == gid.round and g.number == gid.number:
                    return n
        return None


#: Commands the state keeps for the audit log's readers (the whole log is in the store).
AUDIT_TAIL = 50


#: Events that never change the state (not part of the record).
_LIVE: frozenset[type[DomainEvent]] = frozenset({MovePlayed, GameStarted, KibitzerReport})


def apply(state: EventState, event: DomainEvent) -> EventState:
    """The state after one committed event (a new value; ``state`` is left as
    it was). Events that do not change the record (a move, a start, a
    forecast, standings) give back ``state`` itself."""
    if type(event) in _LIVE:  # (the commonest events first: a move each ply)
        return state
    if isinstance(event, EventStarted):
        return dataclasses.replace(state, players=tuple(event.players))
    if isinstance(event, RoundPaired):
        schedule = dict(state.schedule)
        r = event.pairing.round
        schedule[r] = event.pairing
        first = state.first_open
        if first is None or r < first:
            first = _first_open(schedule, state.results, r)
        return dataclasses.replace(state, schedule=schedule, first_open=first)
    if isinstance(event, GameFinished):
        results = dict(state.results)
        results[event.game_id] = event.summary
        first = state.first_open
        if first is not None and event.game_id.round == first:
            first = _first_open(state.schedule, results, first)
        return dataclasses.replace(state, results=results, first_open=first)
    if isinstance(event, EngineFault):
        strikes = dict(state.strikes)
        strikes[event.engine] = event.strikes
        return dataclasses.replace(state, strikes=strikes)
    if isinstance(event, EngineDisqualified):
        if event.engine in state.disqualified:
            return state  # the first disqualification stands (as the store keeps it)
        disqualified = dict(state.disqualified)
        disqualified[event.engine] = (event.round, event.reason)
        return dataclasses.replace(state, disqualified=disqualified)
    if isinstance(event, EventFinished):
        return dataclasses.replace(state, finished=True)
    return _apply_control(state, event)


def _apply_control(state: EventState, event: DomainEvent) -> EventState:
    """The console's facts (see :class:`EventState`)."""
    if isinstance(event, CommandAnswered):
        if event.repeated:
            return state
        return dataclasses.replace(state, audit=(*state.audit, event.entry)[-AUDIT_TAIL:])
    if isinstance(event, EventPaused):
        return dataclasses.replace(state, paused=event.paused)
    if isinstance(event, EngineWithdrawn):
        if event.engine in state.withdrawn:
            return state
        withdrawn = dict(state.withdrawn)
        withdrawn[event.engine] = (event.round, event.reason)
        return dataclasses.replace(state, withdrawn=withdrawn)
    if isinstance(event, EngineReplaced):
        replaced = dict(state.replaced)
        replaced[event.engine] = dict(event.definition)
        return dataclasses.replace(state, replaced=replaced)
    if isinstance(event, ConcurrencyChanged):
        return dataclasses.replace(state, concurrency=event.concurrency)
    if isinstance(event, GameRestartOrdered):
        restarted = dict(state.restarted)
        restarted[event.game_id] = event.reason
        adjudicated = {g: v for g, v in state.adjudicated.items() if g != event.game_id}
        new = dataclasses.replace(state, restarted=restarted, adjudicated=adjudicated)
        if event.voided and event.game_id in state.results:
            results = {g: s for g, s in state.results.items() if g != event.game_id}
            first = state.first_open
            r = event.game_id.round
            if first is None or r < first:
                first = _first_open(state.schedule, results, r)
            new = dataclasses.replace(
                new, results=results, first_open=first, voided=state.voided + 1
            )
        return new
    if isinstance(event, GameAdjudicationOrdered):
        adjudicated = dict(state.adjudicated)
        adjudicated[event.game_id] = (event.result, event.reason)
        return dataclasses.replace(state, adjudicated=adjudicated)
    return state


def _first_open(
    schedule: Mapping[int, RoundPairing], results: Mapping[GameId, GameSummary], start: int
) -> int | None:
    """The first round from ``start`` on with a game not finished (None: none)."""
    r = start
    while r in schedule:
        if any(GameId(r, g.number) not in results for g in schedule[r].games):
            return r
        r += 1
    return None


def fold(events: Iterable[DomainEvent], state: EventState | None = None) -> EventState:
    """The state after ``events`` in order, from ``state`` (default: empty)."""
    out = state if state is not None else EventState()
    for event in events:
        out = apply(out, event)
    return out
