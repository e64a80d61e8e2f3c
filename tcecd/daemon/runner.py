"""The runner: plays the games the format schedules and commits them, nothing else.

The pieces around it each own one job: the format (:mod:`tcecd.formats`)
says what to play next and how players rank; the scheduler
(:mod:`tcecd.daemon.scheduler`) starts the scheduled games in playing order,
``concurrency`` at a time, and commits them in that order; the recorder
(:mod:`tcecd.daemon.recorder`) writes the record and feeds the stream's sinks
(:mod:`tcecd.daemon.stream`); the game player (:mod:`tcecd.execution`) plays
one game here or on a Dask worker. The runner connects them: it records what
the format schedules, turns a scheduled game into a game job (the engines,
the opening, the game's rules: :class:`~tcecd.game.rules.GameRules`), follows
the game's live updates into the stream, replays a game after a fault when
the policy says so, forfeits the games of an engine that is out, and commits
each result; after the last one, the final standings.

Durable steps (a schedule, a commit, a fault's strike) run one at a time,
in the order they were asked for: the format plans on the state the store
holds, never on one a commit is changing.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import Any

from tcecd.bus.outbox import OutboxRow
from tcecd.config.engines import EngineConfig
from tcecd.daemon.crash import CrashPoints
from tcecd.daemon.recorder import Recorder, outbox_events
from tcecd.daemon.scheduler import Scheduler, Slot
from tcecd.daemon.settings import RunSettings
from tcecd.domain import GameId, PlayerId, Result, Termination
from tcecd.errors import EngineError, first_leaf
from tcecd.event.strikes import FaultTuple, forfeit_record
from tcecd.events import (
    BracketUpdated,
    EventStarted,
    GameReplayed,
    GameStarted,
    MovePlayed,
    RoundPaired,
)
from tcecd.execution import GamePlayer
from tcecd.execution.gate import StartGate, StoppedBeforeStart
from tcecd.execution.job import (
    GameBegan,
    GameJob,
    GameRestarted,
    GameResult,
    GameUpdate,
    MoveMade,
    game_slots,
)
from tcecd.formats.base import Done, EventFormat, Schedule, closed_rounds
from tcecd.game.openings import select_opening
from tcecd.game.record import GameRecord, MoveRecord, Opening
from tcecd.game.rules import game_clock, game_opening, side_time_control_tags
from tcecd.pairing.base import Standing
from tcecd.pgn.event_tags import with_event_tags
from tcecd.pgn.writer import game_pgn, start_tags
from tcecd.wallclock import utc_now


def _ms_between(start: str, end: str) -> int:
    """Milliseconds from one ISO 8601 UTC time to another (0 if unreadable)."""
    from datetime import datetime

    try:
        a = datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return 0
    return max(0, int((b - a).total_seconds() * 1000))


@dataclass(frozen=True, slots=True)
class Interrupt:
    """What the operator's console decided about a game being played: play
    it again from its start (``restart``), end it now with ``record``
    (``adjudicate``), or stop it because an engine was withdrawn (its game is
    then a forfeit: ``withdraw``)."""

    kind: str
    record: GameRecord | None = None


class Interrupted(Exception):
    """A game's attempt was stopped by the console (:class:`Interrupt`)."""

    def __init__(self, interrupt: Interrupt) -> None:
        super().__init__(interrupt.kind)
        self.interrupt = interrupt


@dataclass
class GameHandle:
    """A game being played, as the console sees it: its job, the attempt's
    task, its start and its moves so far (the record an adjudication or an
    aborted attempt keeps), and what the console decided about it."""

    job: GameJob
    task: asyncio.Future[GameResult] | None = None
    began: GameBegan | None = None
    moves: list[MoveRecord] = dataclasses.field(default_factory=list)
    interrupt: Interrupt | None = None

    def stop(self, interrupt: Interrupt) -> None:
        """Stop the attempt (its engines are stopped and reaped by the player)."""
        if self.interrupt is None:
            self.interrupt = interrupt
        if self.task is not None and not self.task.done():
            self.task.cancel()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What playing a scheduled game gave: its record and the faults in it
    (``played`` False: forfeited, never started)."""

    record: GameRecord
    faults: tuple[FaultTuple, ...] = ()
    played: bool = True


class EventRunner:
    """Plays one event to its end, or until asked to stop (module docstring)."""

    def __init__(
        self,
        settings: RunSettings,
        fmt: EventFormat,
        recorder: Recorder,
        player: GamePlayer,
        *,
        openings: tuple[Opening, ...] = (),
        log: Any,
        crash: CrashPoints | None = None,
    ) -> None:
        self.s = settings
        self.fmt = fmt
        self.recorder = recorder
        self.player = player
        self.openings = openings
        self.log = log
        self.crash = crash or CrashPoints()
        #: The engines as configured, and as they play now (the console's
        #: ``replace`` changes the second from an engine's next game on).
        self.configured: dict[PlayerId, EngineConfig] = {e.name: e for e in settings.engines}
        self.engines: dict[PlayerId, EngineConfig] = dict(self.configured)
        state = recorder.state
        for name, definition in state.replaced.items():
            if name in self.engines:
                self.engines[name] = EngineConfig.model_validate(definition)
        self.scheduler = Scheduler(
            state.concurrency or settings.concurrency,
            plan=self._plan,
            pending=self._pending,
            play=self._produce,
            commit=self._commit,
            log=log,
        )
        self.scheduler.set_paused(state.paused and not state.finished)
        #: One durable step at a time (a schedule, a commit, a strike, a command).
        self.step = asyncio.Lock()
        #: The games being played (an attempt in progress), for the console.
        self.running: dict[GameId, GameHandle] = {}
        #: Games played and not yet recorded (waiting for an earlier one).
        self.ended: set[GameId] = set()
        self.complete = False
        self.final_standings: tuple[Standing, ...] = ()

    # -- stopping ------------------------------------------------------------------------

    def stop_requested(self) -> bool:
        return self.scheduler.stop_requested()

    def request_stop(self, *, abort: bool) -> None:
        """First signal: start no new game; with ``abort``, also cancel the
        running ones (they are replayed from their start on resume)."""
        self.scheduler.request_stop(abort=abort)

    # -- the event -----------------------------------------------------------------------

    async def start(self, started: EventStarted) -> None:
        """Before the first game: what the broker never acknowledged goes out
        first (the outbox, completed with what a crash or a run without MQTT
        left out), then the event as the state holds it (``started`` and each
        sink's catch-up), so that the retained topics end with the current
        state; then the PGN file is completed from the store (appending, never
        rewriting: :meth:`~tcecd.outputs.files.PgnFile.sync`)."""
        rec = self.recorder
        state = rec.state
        pending = await asyncio.to_thread(rec.store.outbox_pending)
        repaired: list[OutboxRow] = []
        if state.rounds and rec.stream.outbox_entries(RoundPaired(state.schedule[state.rounds[0]])):
            repaired = await rec.repair_outbox(outbox_events(rec.store, state, self.fmt))
        resend = [*pending, *repaired]
        rec.stream.resend(resend)
        if resend:
            self.log.info("re-sending results the broker had not acknowledged",
                          messages=len(resend))  # fmt: skip
        rec.live(started)
        rec.stream.start(rec.state)
        self._bracket()

        def sync() -> bool:
            return rec.pgn.sync(rec.store.ledger())

        if await asyncio.to_thread(sync):
            self.log.warning("pgn file repaired from the event state", path=str(self.s.pgn_path))

    async def run(self) -> bool:
        """Play the event from where the state left it; True when it is complete."""
        try:
            complete = await self.scheduler.run()
        except BaseExceptionGroup as group:
            # A user-facing error in one game (an engine that cannot be run at
            # all) reaches the CLI as that one line, not as a group.
            leaf = first_leaf(group)
            if leaf is not None:
                raise leaf from None
            raise
        if not complete:
            return False
        final = self.fmt.standings(self.recorder.state)
        self.final_standings = final
        async with self.step:
            await self.recorder.finish(final)
        await self.recorder.stream.flush()
        self.complete = True
        return True

    async def _plan(self) -> bool:
        """Record what the format schedules; False once the event is over."""
        async with self.step:
            while True:
                plan = await asyncio.to_thread(self.fmt.plan, self.recorder.state)
                if isinstance(plan, Schedule):
                    await self.recorder.schedule(plan.pairing)
                    self._bracket()
                    continue
                return not isinstance(plan, Done)

    def _pending(self) -> list[Slot]:
        return [Slot(GameId(r, g.number), g) for r, g in self.recorder.state.pending()]

    def _bracket(self) -> None:
        bracket = self.fmt.bracket(self.recorder.state)
        if bracket is not None:
            self.recorder.live(BracketUpdated(bracket))

    def _out(self) -> set[PlayerId]:
        """The engines that play no more games (their games are forfeited):
        disqualified, or withdrawn by the operator."""
        state = self.recorder.state
        return set(state.disqualified) | set(state.withdrawn)

    # -- the console (tcecd.control.console) -------------------------------------------

    def partial_record(
        self, handle: GameHandle, result: Result, termination: Termination, detail: str,
        extra: tuple[tuple[str, str], ...] = (),
    ) -> GameRecord:
        """The record of a game being played, as it stands (its moves so far),
        ended with ``result``: what an operator's adjudication commits, or
        (``*``) what an aborted attempt keeps."""
        job, began = handle.job, handle.began
        assert began is not None
        clock = game_clock(job.rules, job.white, job.black)
        now = utc_now()
        return GameRecord(
            game_id=job.game_id,
            event=job.event,
            site=job.site,
            white=job.white.name,
            black=job.black.name,
            result=result,
            termination=termination,
            termination_detail=detail,
            start_time=began.start_time,
            end_time=now,
            duration_ms=_ms_between(began.start_time, now),
            time_control=job.rules.time_control.pgn_tag(),
            opening=job.opening,
            moves=tuple(handle.moves),
            white_options=began.white_options,
            black_options=began.black_options,
            white_elo=job.white.rating,
            black_elo=job.black.rating,
            extra_tags=side_time_control_tags(clock, job.rules.time_control)
            + self._operator_tags(job)
            + extra,
        )

    def replace_engine(self, engine: EngineConfig) -> None:
        """From ``engine.name``'s next game on, ``engine`` plays it."""
        self.engines[engine.name] = engine

    # -- one game ------------------------------------------------------------------------

    def _opening(self, gid: GameId) -> Opening:
        """Game ``gid``'s opening, as its rules play it (Chess960 castling in a
        Chess960 event: the start tags, a forfeit's record and the game agree)."""
        if not self.openings:
            return game_opening(self.s.rules, Opening(name=None, fen=None))
        index = self.fmt.opening_index(self.recorder.state, gid)
        opening = select_opening(
            self.openings, index, order=self.s.openings_order, seed=self.s.openings_seed
        )
        return game_opening(self.s.rules, opening)

    def _forfeit(self, slot: Slot, out: set[PlayerId]) -> GameRecord:
        game = slot.game
        white, black = self.engines.get(game.white), self.engines.get(game.black)
        return forfeit_record(
            game_id=slot.game_id,
            event=self.s.event,
            site=self.s.site,
            white=game.white,
            black=game.black,
            out=out,
            withdrawn=set(self.recorder.state.withdrawn),
            opening=self._opening(slot.game_id),
            time_control=self.s.rules.time_control.pgn_tag(),
            now=utc_now(),
            white_elo=None if white is None else white.rating,
            black_elo=None if black is None else black.rating,
        )

    def _job(self, slot: Slot, opening: Opening) -> GameJob:
        """The self-contained description of one game, for the game player."""
        white, black = self.engines[slot.game.white], self.engines[slot.game.black]
        return GameJob(
            game_id=slot.game_id,
            event=self.s.event,
            site=self.s.site,
            white=white,
            black=black,
            opening=opening,
            rules=self.fmt.game_rules(self.recorder.state, slot.game_id, self.s.rules),
            slots=game_slots(white, black, self.s.execution.slots),
        )

    async def _produce(self, slot: Slot, gate: StartGate) -> Outcome:
        """Play the game (again after a fault, when so configured, or when the
        operator restarts it), forfeit it, or give the operator's result."""
        gid = slot.game_id
        attempts = 0
        while True:
            if self.stop_requested():
                raise StoppedBeforeStart(str(gid))
            decided = await self._adjudicated(gid)
            if decided is not None:
                # Adjudicated by the operator, and the daemon was stopped or
                # killed before it was recorded: recorded now, never played again.
                gate.decided()
                return Outcome(decided)
            await self.scheduler.wait_unpaused()
            if self.stop_requested():
                raise StoppedBeforeStart(str(gid))
            attempts += 1
            if attempts > 2 * self.s.strikes_max + 2:
                # Every replay costs a strike, so this only happens when the player
                # asks for replays without naming a fault: never loop forever.
                raise EngineError(f"game {gid}: replayed {attempts - 1} times without end")
            out = self._out()
            if slot.game.white in out or slot.game.black in out:
                gate.decided()  # a forfeit never starts: the next game need not wait
                return Outcome(self._forfeit(slot, out), played=False)
            job = self._job(slot, self._opening(gid))
            if self.s.max_replays is not None and attempts > self.s.max_replays:
                # The last allowed replay is played under "lose": a game always ends.
                job = dataclasses.replace(
                    job, rules=dataclasses.replace(job.rules, fault_policy="lose")
                )
            try:
                result = await self._play(job, gate)
            except Interrupted as stopped:
                interrupt = stopped.interrupt
                if interrupt.kind == "adjudicate" and interrupt.record is not None:
                    return Outcome(interrupt.record)
                attempts -= 1  # not a fault: no replay counted
                continue
            faults = tuple((PlayerId(e), k, d) for e, k, d in result.faults)
            if not result.replay:
                if result.record is None:
                    raise EngineError(f"game {gid}: the game player returned no record")
                record = result.record
                tags = self._operator_tags(job)
                if tags:
                    record = dataclasses.replace(record, extra_tags=record.extra_tags + tags)
                return Outcome(record, faults)
            # Replay policy: the faults count now (durably), then the game starts again.
            async with self.step:
                for engine, kind, detail in faults:
                    await self.recorder.fault(engine, gid, kind, detail)
            detail = "; ".join(d for _, _, d in faults) or "no fault named"
            self.recorder.live(GameReplayed(gid, slot.game.white, slot.game.black, detail))
            self.log.warning("game will be replayed after a fault", game=str(gid))

    async def _adjudicated(self, gid: GameId) -> GameRecord | None:
        """The operator's record of ``gid`` when it was adjudicated and is not
        recorded yet (the daemon stopped in between), else None."""
        state = self.recorder.state
        if gid not in state.adjudicated or gid in state.results:
            return None
        return await asyncio.to_thread(self.recorder.store.adjudicated_record, gid)

    def _operator_tags(self, job: GameJob) -> tuple[tuple[str, str], ...]:
        """PGN tags of what the console changed about this game: the program
        that played a replaced engine (``WhiteEngine``, ``BlackEngine``), and
        why the game was played again from its start (``Restarted``)."""
        import shlex

        tags: list[tuple[str, str]] = []
        for side, engine in (("White", job.white), ("Black", job.black)):
            if engine != self.configured.get(engine.name, engine):
                options = ", ".join(f"{k}={v}" for k, v in sorted(engine.options.items()))
                text = shlex.join(engine.command) + (f"; {options}" if options else "")
                tags.append((f"{side}Engine", text))
        reason = self.recorder.state.restarted.get(job.game_id)
        if reason is not None:
            tags.append(("Restarted", reason))
        return tuple(tags)

    async def _play(self, job: GameJob, gate: StartGate) -> GameResult:
        """Have the player play ``job`` while its updates go into the event
        stream as they come (handled at once, in the player's own call: no task
        switch a move), so a game's moves never follow its result. The console
        may stop the attempt (:class:`Interrupted`): the game is played in a
        task of its own (one a game), which the console cancels."""
        handle = GameHandle(job)
        self.running[job.game_id] = handle
        handle.task = asyncio.ensure_future(self.player.play(job, _Follow(self, handle), gate))
        try:
            try:
                result = await handle.task
            except BaseException:
                current = asyncio.current_task()
                mine = current is None or not current.cancelling()
                if handle.interrupt is not None and mine and handle.task.cancelled():
                    raise Interrupted(handle.interrupt) from None
                raise
            if handle.interrupt is not None:
                # The game ended by itself as the console decided about it: the
                # operator's decision was acknowledged (and recorded), so it holds.
                raise Interrupted(handle.interrupt)
            if result.record is not None and not result.replay:
                self.ended.add(job.game_id)
            return result
        finally:
            if self.running.get(job.game_id) is handle:
                del self.running[job.game_id]

    def _update(self, job: GameJob, update: GameUpdate, began: bool) -> bool:
        """One update of ``job``'s game into the stream; whether it has begun."""
        if isinstance(update, MoveMade):
            self.recorder.live(
                MovePlayed(job.game_id, update.move, update.white_clock_ms, update.black_clock_ms)
            )
        elif isinstance(update, GameBegan):
            if began:
                # Played again from its start elsewhere (its worker died): the
                # moves streamed so far are void; a fresh start follows.
                self._restarted(job.game_id, f"replayed from its start on {update.where}")
            self.recorder.live(self._started(job, update))
            if update.where != "local":
                self.log.info("game placed", game=str(job.game_id), worker=update.where)
            return True
        elif isinstance(update, GameRestarted):
            self._restarted(job.game_id, update.reason)
        return began

    def _started(self, job: GameJob, update: GameBegan) -> GameStarted:
        """The game's start, with its PGN tags as known now (the one writer's)."""
        clock = game_clock(job.rules, job.white, job.black)
        tc = job.rules.time_control
        tags = start_tags(
            event=job.event, site=job.site, game_id=job.game_id, white=job.white.name,
            black=job.black.name, start_time=update.start_time, time_control=tc.pgn_tag(),
            opening=job.opening, white_elo=job.white.rating, black_elo=job.black.rating,
            extra_tags=side_time_control_tags(clock, tc) + self._operator_tags(job),
        )  # fmt: skip
        return GameStarted(
            game_id=job.game_id,
            white=job.white.name,
            black=job.black.name,
            opening=job.opening,
            time_control=tc.pgn_tag(),
            start_time=update.start_time,
            white_clock_ms=update.white_clock_ms,
            black_clock_ms=update.black_clock_ms,
            headers=tuple(tags),
            white_options=update.white_options,
            black_options=update.black_options,
        )

    def _restarted(self, gid: GameId, reason: str) -> None:
        """A game starts again from its first move: not a fault, no strike; said
        in the log (its fresh start follows on the stream)."""
        self.log.warning("game restarted from its first move", game=str(gid), reason=reason)

    async def _commit(self, slot: Slot, outcome: Outcome) -> None:
        """Record a finished game (store, PGN, stream), then what it ends: a
        round's standings, the bracket."""
        gid = slot.game_id
        record, faults = outcome.record, outcome.faults
        async with self.step:
            self.ended.discard(gid)
            # (An engine withdrawn by the operator is not counted here: its games
            # being played were stopped and forfeited when it was withdrawn, and
            # a game it finished before that stands.)
            out = set(self.recorder.state.disqualified)
            manual = gid in self.recorder.state.adjudicated
            if outcome.played and not manual and (record.white in out or record.black in out):
                # Only with concurrency > 1: an engine was put out by an earlier
                # game while this one was running. Forfeit it, as a sequential run
                # would; its faults go too (a sequential run never played it).
                record, faults = self._forfeit(slot, out), ()
            before = closed_rounds(self.fmt, self.recorder.state)
            extra = self.fmt.record_tags(self.recorder.state, record)
            if extra:
                record = dataclasses.replace(record, extra_tags=record.extra_tags + extra)
            # What replay --verify needs from the PGN alone (tcecd.pgn.event_tags).
            state = self.recorder.state
            record = with_event_tags(
                record, self.fmt.name, self.fmt.total_rounds(state) or 0,
                {p.id: p.seed for p in state.players},
            )  # fmt: skip
            await self.recorder.game(record, game_pgn(record), faults=faults)
            await self.recorder.stream.flush()
            self.crash.hit(f"after-game:{gid}")
            state = self.recorder.state
            closed = closed_rounds(self.fmt, state)
            if closed > before:
                # Normally this game's round; after a voided result was played
                # again, the latest round over (a round-robin's later rounds may
                # have ended meanwhile: their standings waited for this game).
                await self.recorder.standings(closed, self.fmt.standings(state.upto(closed)))
            self._bracket()


class _Follow:
    """A game's updates, handed to the runner as they come (the game player's
    ``updates``: :class:`~tcecd.execution.Updates`)."""

    def __init__(self, runner: EventRunner, handle: GameHandle) -> None:
        self.runner = runner
        self.handle = handle
        self.job = handle.job
        self.began = False  # this attempt's game began once already

    def put_nowait(self, item: GameUpdate, /) -> None:
        handle = self.handle
        if handle.interrupt is not None:
            return  # the console stopped this attempt: what it still says is void
        # The console's view of the game: its start and its moves so far.
        if isinstance(item, MoveMade):
            handle.moves.append(item.move)
        elif isinstance(item, GameBegan):
            handle.began = item
            handle.moves.clear()
        elif isinstance(item, GameRestarted):
            handle.moves.clear()
        self.began = self.runner._update(self.job, item, self.began)
