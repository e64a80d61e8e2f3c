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

from tcecd.config.engines import EngineConfig
from tcecd.daemon.crash import CrashPoints
from tcecd.daemon.recorder import Recorder, outbox_events
from tcecd.daemon.scheduler import Scheduler, Slot
from tcecd.daemon.settings import RunSettings
from tcecd.daemon.stream import OutboxRow
from tcecd.domain import GameId, PlayerId
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
from tcecd.formats.base import Done, EventFormat, Schedule
from tcecd.game.openings import select_opening
from tcecd.game.record import GameRecord, Opening
from tcecd.game.rules import game_clock, game_opening, side_time_control_tags
from tcecd.pairing.base import Standing
from tcecd.pgn.event_tags import with_event_tags
from tcecd.pgn.writer import game_pgn, start_tags
from tcecd.wallclock import utc_now


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
        self.engines: dict[PlayerId, EngineConfig] = {e.name: e for e in settings.engines}
        self.scheduler = Scheduler(
            settings.concurrency,
            plan=self._plan,
            pending=self._pending,
            play=self._produce,
            commit=self._commit,
            log=log,
        )
        #: One durable step at a time (a schedule, a commit, a strike).
        self._step = asyncio.Lock()
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
            return rec.pgn.sync([g.pgn for g in rec.store.iter_games()])

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
        async with self._step:
            await self.recorder.finish(final)
        await self.recorder.stream.flush()
        self.complete = True
        return True

    async def _plan(self) -> bool:
        """Record what the format schedules; False once the event is over."""
        async with self._step:
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
        """The engines that play no more games (their games are forfeited)."""
        return set(self.recorder.state.disqualified)

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
        """Play the game (again after a fault, when so configured) or forfeit it."""
        gid = slot.game_id
        attempts = 0
        while True:
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
            result = await self._play(job, gate)
            faults = tuple((PlayerId(e), k, d) for e, k, d in result.faults)
            if not result.replay:
                if result.record is None:
                    raise EngineError(f"game {gid}: the game player returned no record")
                return Outcome(result.record, faults)
            # Replay policy: the faults count now (durably), then the game starts again.
            async with self._step:
                for engine, kind, detail in faults:
                    await self.recorder.fault(engine, gid, kind, detail)
            detail = "; ".join(d for _, _, d in faults) or "no fault named"
            self.recorder.live(GameReplayed(gid, slot.game.white, slot.game.black, detail))
            self.log.warning("game will be replayed after a fault", game=str(gid))

    async def _play(self, job: GameJob, gate: StartGate) -> GameResult:
        """Have the player play ``job`` while its updates go into the event
        stream as they come (handled at once, in the player's own call: no task
        switch a move), so a game's moves never follow its result."""
        return await self.player.play(job, _Follow(self, job), gate)

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
            extra_tags=side_time_control_tags(clock, tc),
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
        async with self._step:
            out = self._out()
            if outcome.played and (record.white in out or record.black in out):
                # Only with concurrency > 1: an engine was put out by an earlier
                # game while this one was running. Forfeit it, as a sequential run
                # would; its faults go too (a sequential run never played it).
                record, faults = self._forfeit(slot, out), ()
            before = self.fmt.round_over(self.recorder.state, gid.round)
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
            if not before and self.fmt.round_over(state, gid.round):
                await self.recorder.standings(gid.round, self.fmt.standings(state.upto(gid.round)))
            self._bracket()


class _Follow:
    """A game's updates, handed to the runner as they come (the game player's
    ``updates``: :class:`~tcecd.execution.Updates`)."""

    def __init__(self, runner: EventRunner, job: GameJob) -> None:
        self.runner = runner
        self.job = job
        self.began = False  # this attempt's game began once already

    def put_nowait(self, item: GameUpdate, /) -> None:
        self.began = self.runner._update(self.job, item, self.began)
