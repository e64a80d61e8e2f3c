"""The event loop of ``tcecd run``: seeding, rounds, games, outputs, resume.

The decisions are the pure layer's (pairing, standings, openings, clocks,
adjudication); this module sequences them and records every step in the
crash-safe store (:mod:`tcecd.store`) before acting on it:

1. open the store (one daemon per state directory); a new event records its
   config fingerprint and seeded players, a resumed one must match them;
2. refuse outputs the store does not account for (:mod:`tcecd.daemon.ledger`);
   once the stored state is checked, complete the PGN file if a crash left it
   behind or torn (appending: nothing is ever removed from it);
3. per round: re-derive the pairing from the finished rounds, store it (or, on
   resume, check it equals the stored one), publish it, play the unfinished
   games in playing order (``concurrency`` at a time, committed in order);
4. final standings, ``EventFinished``, and the table on stdout.

Each finished game is one store transaction (record, PGN text, its strikes
and any disqualification together, and its MQTT ``end`` message in the
outbox), then a PGN append (fsync'd), then the JSON outputs, then the live
stream. A crash anywhere leaves a state that the next start resumes from
without losing or duplicating a game, and re-sends what the broker had not
acknowledged (:mod:`tcecd.bus.outbox`).

Once the event runs, nothing here blocks the event loop: store commits and
the PGN append are awaited in a worker thread (in that order, one game at a
time), the JSON files go through the single :class:`~tcecd.daemon.outputs.FileWriter`,
and what the store holds is read from its in-memory mirror
(:class:`~tcecd.daemon.book.EventBook`). See docs/state.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from dataclasses import dataclass
from typing import Any

import structlog

from tcecd.bus.outbox import OutboxEntry
from tcecd.bus.payloads import slugify
from tcecd.config.fingerprint import diff_fingerprints
from tcecd.daemon.book import EventBook, FaultTuple, default_fingerprint, gid_key, utc_now
from tcecd.daemon.crash import CrashPoints
from tcecd.daemon.forecast import ForecastWorker
from tcecd.daemon.forecast import snapshot as forecast_snapshot
from tcecd.daemon.ledger import check_new_event, check_resumed_event
from tcecd.daemon.live import LiveGame, live_headers
from tcecd.daemon.outputs import EventSink, FileWriter, NullPublisher, json_text
from tcecd.daemon.settings import RunSettings
from tcecd.domain import GameId, PlayerId
from tcecd.errors import EngineError, StateError, TcecdError
from tcecd.events import (
    DomainEvent,
    EngineDisqualified,
    EngineFault,
    EventFinished,
    EventStarted,
    ForecastUpdated,
    GameFinished,
    GameStarted,
    MovePlayed,
    RoundPaired,
    StandingsUpdated,
)
from tcecd.execution import GamePlayer
from tcecd.execution.gate import StartGate, StartTurn, StoppedBeforeStart
from tcecd.execution.job import (
    GameBegan,
    GameJob,
    GameRestarted,
    GameResult,
    GameUpdate,
    MoveMade,
    game_slots,
)
from tcecd.game.clock import Clock
from tcecd.game.record import GameRecord, MoveRecord, Opening
from tcecd.outputs import tcec_json
from tcecd.outputs.files import PgnFile
from tcecd.pairing.base import Player, RoundPairing, RoundRecord, ScheduledGame, Standing
from tcecd.runner.game import side_time_control_tags
from tcecd.store import EventStore, OutboxRow, StoredGame

__all__ = [
    "EventRunner",
    "EventSink",
    "FaultTuple",
    "NullPublisher",
    "default_fingerprint",
    "utc_now",
]


#: How many games of a round may be started and not yet recorded, in units of
#: ``concurrency`` (see :class:`_Permits`).
COMMIT_WINDOW = 2


class _Permits:
    """The round's game permits: at most ``playing`` games play at once, and
    at most ``window`` have started and are not yet recorded.

    Games are recorded in playing order, so a game that ends before an earlier
    one waits for it. It no longer plays, so its playing permit goes back at
    once (:meth:`finished`) and the next game starts: with ``concurrency: 2``
    a short game no longer leaves its engine slot (or its Dask worker) idle
    until a long one before it ends. A game that ends as the oldest one not
    yet recorded keeps its permit until it is recorded, as before. The window
    bounds how many finished games can wait: each is held in memory and, if
    the daemon is killed, played again on resume (it was not recorded).
    """

    def __init__(self, playing: int, window: int) -> None:
        self._playing = asyncio.Semaphore(playing)
        self._window = asyncio.Semaphore(max(playing, window))

    async def acquire(self) -> None:
        """Before a game starts: a place in the window, then a playing permit."""
        await self._window.acquire()
        try:
            await self._playing.acquire()
        except BaseException:
            self._window.release()
            raise

    def finished(self) -> None:
        """The game is no longer playing (played, or not started)."""
        self._playing.release()

    def committed(self) -> None:
        """The game is recorded (or will not be): its place in the window is free."""
        self._window.release()


@dataclass
class _Slot:
    """One game being played: what it produced once done."""

    game: ScheduledGame
    record: GameRecord | None = None
    played: bool = True
    faults: tuple[FaultTuple, ...] = ()


class EventRunner:
    """Runs one event to its end (or until asked to stop). See the module docstring."""

    def __init__(
        self,
        settings: RunSettings,
        *,
        log: Any,
        publisher: EventSink | None = None,
        crash: CrashPoints | None = None,
        player: GamePlayer | None = None,
    ) -> None:
        self.s = settings
        self.log = log
        self.pub: EventSink = publisher if publisher is not None else NullPublisher()
        self.crash = crash or CrashPoints()
        self.store: EventStore | None = None
        self.book = EventBook(settings)
        self.engines = self.book.engines
        if player is None:
            from tcecd.execution.local import LocalPlayer

            player = LocalPlayer()
        #: Plays the games (tcecd.execution): this runner never touches an engine.
        self.player: GamePlayer = player
        self.pgn = PgnFile(
            settings.pgn_path,
            crash_hook=(lambda tag: self.crash.hit(f"mid-pgn-write:{tag}"))
            if self.crash.active
            else None,
        )
        self.files = FileWriter(interval_s=settings.live_interval_ms / 1000)
        #: Set by the first signal: start no new game.
        self.stopping = False
        self._game_tasks: set[asyncio.Task[None]] = set()
        self._live_owner: GameId | None = None
        self._live: dict[GameId, LiveGame] = {}
        #: Start times of the games being played (schedule.json's running rows).
        self._started: dict[GameId, str] = {}
        self.complete = False
        self.final_standings: tuple[Standing, ...] = ()
        #: The record of engine process groups in the state directory (tcecd.runner.reaper).
        self.engine_groups: Any = None
        #: Live forecasts (tcecd.daemon.forecast), when the config asks for them.
        self.forecaster: ForecastWorker | None = None
        if settings.forecast is not None:
            self.forecaster = ForecastWorker(
                settings.forecast,
                lambda f: self.pub.publish(ForecastUpdated(f)),
                log=log,
                workers=settings.forecast_workers,
            )

    # The bookkeeping, under the names the rest of the daemon (and its tests) use.

    @property
    def players(self) -> tuple[Player, ...]:
        return self.book.players

    @property
    def pairings(self) -> dict[int, RoundPairing]:
        return self.book.pairings

    @property
    def finished(self) -> dict[GameId, StoredGame]:
        return self.book.finished

    @property
    def records(self) -> dict[GameId, GameRecord]:
        return self.book.records

    @property
    def openings(self) -> tuple[Opening, ...]:
        return self.book.openings

    def standings(self, records: list[RoundRecord]) -> tuple[Standing, ...]:
        return self.book.standings(records)

    def crosstable(self) -> dict[str, Any]:
        return self.book.crosstable()

    # -- set-up ---------------------------------------------------------------------

    def open(self) -> None:
        """Open (or create) the state, check it against the config, repair the PGN.

        Runs before any game or task exists (blocking here holds up nothing)."""
        s = self.s
        # The openings (and the book) first: a bad file fails before the state exists.
        if s.openings_file is not None:
            from tcecd.game.openings import load_openings
            from tcecd.game.polyglot import read_book

            polyglot = None
            if s.openings_book_file is not None:
                polyglot = read_book(
                    s.openings_book_file,
                    depth=s.openings_book_depth,
                    selection=s.openings_book_selection,
                    seed=s.openings_book_seed,
                )
            self.book.openings = load_openings(
                s.openings_file, fmt=s.openings_format, plies=s.openings_plies, book=polyglot
            )
        # Opening the store writes nothing; nothing is written until the checks
        # below (and the damaged-store checks of EventStore) have passed.
        store = EventStore(s.state_dir)
        self.store = store
        # Under the state directory's lock: engines an earlier run left behind die now.
        from tcecd.runner.reaper import EngineGroups

        self.engine_groups = EngineGroups(s.state_dir)
        killed = self.engine_groups.reap()
        if killed:
            self.log.warning("engine processes of an earlier run killed", pids=killed)
        fingerprint = s.fingerprint or default_fingerprint(s)
        if store.initialised:
            stored = store.fingerprint() or {}
            changes = diff_fingerprints(stored, fingerprint)
            if changes:
                store.close()
                self.store = None
                raise StateError(
                    f"{s.state_dir}: the config changed in a way that would rewrite the "
                    f"event's history; refusing to resume: {'; '.join(changes)}"
                )
            self.book.load(store)
            # The ledger: the PGN holds nothing the store does not record.
            check_resumed_event(self.pgn, self._stored_pgn(), store.path)
            self.log.info("resuming event", state_dir=str(s.state_dir))
        else:
            check_new_event(self.pgn, s.json_dir, store.path)
            players = self._seed()
            store.initialise(
                fingerprint=fingerprint,
                players=players,
                rng_seed=self._rng_seed,
                double=s.double,
            )
            self.log.info("new event", state_dir=str(s.state_dir), players=len(players))
            self.book.load(store)
        self.player.use_engine_groups(self.engine_groups)

    def _stored_pgn(self) -> list[str]:
        """The stored games' PGN texts in schedule order (what the PGN file holds)."""
        return [self.finished[gid].pgn for gid in sorted(self.finished, key=gid_key)]

    _rng_seed: int | None = None

    def _seed(self) -> tuple[Player, ...]:
        from tcecd.pairing.seeding import seed_players

        s = self.s
        self._rng_seed = s.seeding_seed
        if s.seeding == "random" and self._rng_seed is None:
            # Recorded in the state so that the seeding is known and replayable.
            self._rng_seed = secrets.randbelow(2**31)
        entries = [(e.name, e.name, e.rating) for e in s.engines]
        return tuple(
            seed_players(entries, s.seeding, groups=s.seeding_groups, rng_seed=self._rng_seed)
        )

    async def aclose_engines(self) -> None:
        """Close the game player (locally: kill and reap every engine kept alive)."""
        await self.player.aclose()
        if self.engine_groups is not None:
            # Helpers that escaped their engine's process group carry its mark. (Not
            # the event's other helpers: the embedded broker still serves the goodbye.)
            killed = await asyncio.to_thread(self.engine_groups.reap, helpers=False)
            if killed:
                self.log.warning("stray engine processes killed", pids=killed)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    # -- outputs ----------------------------------------------------------------------

    def _write_outputs(self) -> None:
        """Hand schedule.json and crosstable.json to the file writer."""
        if self.s.json_dir is None:
            return
        running = {gid: start for gid, start in self._started.items() if gid in self._live}
        schedule = self.book.schedule(running)
        self.files.submit(self.s.json_dir / "schedule.json", json_text(schedule))
        self.files.submit(self.s.json_dir / "crosstable.json", json_text(self.crosstable()))
        self.files.submit(self.s.json_dir / "crash.json", json_text(self.book.crash_rows()))
        self.files.submit(
            self.s.json_dir / "tournament.json",
            json_text(tcec_json.tournament_json(self.s.event, slugify(self.s.event))),
        )

    def _write_live(self, live: LiveGame) -> None:
        if self.s.json_dir is not None:
            # Rendered when written (at most every FileWriter.interval_s).
            self.files.submit(self.s.json_dir / "live.json", live.document_text)
            # TCEC's viewer fetches live.pgn first (PGN text with TCEC comments).
            self.files.submit(self.s.json_dir / "live.pgn", live.pgn)

    # -- the event --------------------------------------------------------------------

    async def run(self) -> bool:
        """Play the event from where the state left it; True when it is complete."""
        async with self.files:
            try:
                return await self._run()
            finally:
                structlog.contextvars.unbind_contextvars("round")
                if self.forecaster is not None:
                    # A finished event's last forecast (certain places) is quick.
                    await self.forecaster.aclose(wait_s=30.0 if self.complete else 0.0)

    def _request_forecast(self) -> None:
        if self.forecaster is not None:
            self.forecaster.request(forecast_snapshot(self.book, self.s))

    async def _run(self) -> bool:
        from tcecd.pairing.base import RoundContext
        from tcecd.pairing.registry import SystemOptions, get_system

        store = self.store
        assert store is not None
        s = self.s
        system = get_system(s.system, SystemOptions(time_limit_s=s.time_limit_s))
        await self._resend_outbox()
        self.pub.publish(
            EventStarted(
                event=s.event,
                site=s.site,
                system=s.system,
                double=s.double,
                rounds=s.rounds,
                time_control=s.time_control.pgn_tag(),
                players=self.players,
            )
        )
        for r in sorted(self.pairings):
            self.pub.publish(RoundPaired(self.pairings[r]))
        if self.records:
            # Resumed: the live schedule/crosstable include the games already played.
            self.pub.restore_finished(
                [self.records[gid] for gid in sorted(self.records, key=gid_key)]
            )
        history = self.book.history()
        self.pub.publish(StandingsUpdated(len(history), self.standings(history)))
        self._request_forecast()
        self._write_outputs()
        self.pub.publish_crosstable(self.crosstable())

        self.book.verify(store.path)
        # Only after the checks: complete the PGN (appending, never rewriting).
        if await asyncio.to_thread(self.pgn.sync, self._stored_pgn()):
            self.log.warning("pgn file repaired from the event state", path=str(s.pgn_path))
        for round_no in range(1, s.rounds + 1):
            if self.stop_requested():
                return False
            structlog.contextvars.bind_contextvars(round=round_no)
            history = self.book.history()
            if len(history) >= round_no:
                continue  # finished before a restart
            if len(history) != round_no - 1:
                raise StateError(f"{store.path}: round {len(history) + 1} is unfinished")
            # Stored pairings are authoritative: a resumed event plays the round it
            # paired before the restart and never re-pairs it (checking a pairing
            # against the rules is `tcecd replay --verify`'s job).
            if round_no not in self.pairings:
                # Off the loop: a slow pairing (Dutch on a big field, the integer
                # program) must not stall the live stream.
                derived = await asyncio.to_thread(
                    system.pair,
                    self.players,
                    history,
                    double=s.double,
                    context=RoundContext(total_rounds=s.rounds),
                )
                outbox = self.pub.outbox_entries(RoundPaired(derived))
                rows = await asyncio.to_thread(store.save_pairing, derived, outbox=outbox)
                self.pairings[round_no] = derived
                self.crash.hit(f"after-pairing:{round_no}")
                self.pub.publish(RoundPaired(derived), self._kept(rows))
                self._write_outputs()
                self.log.info(
                    "round paired",
                    round=round_no,
                    bye=derived.bye,
                    removed_history_rounds=list(derived.removed_history_rounds),
                    games=[f"{g.white}-{g.black}" for g in derived.games],
                )
            await self._play_round(self.pairings[round_no])
            if self.stop_requested() and len(self.book.history()) < round_no:
                return False
            history = self.book.history()
            table = self.standings(history)
            await self._publish_kept(StandingsUpdated(round_no, table))
            self.pub.publish_crosstable(self.crosstable())
            self.log.info(
                "round finished",
                round=round_no,
                leader=table[0].id if table else None,
                score=table[0].score if table else None,
            )
        final = self.standings(self.book.history())
        self.final_standings = final
        if not self.book.marked_finished:
            outbox = self.pub.outbox_entries(EventFinished(final))
            rows = await asyncio.to_thread(store.mark_finished, outbox=outbox)
            self.book.marked_finished = True
            self.pub.publish(EventFinished(final), self._kept(rows))
        else:  # a resumed finished event (its final rows are there unless MQTT was off)
            await self._publish_kept(EventFinished(final))
        self._write_outputs()
        await self.files.flush()
        self.complete = True
        return True

    # -- must-deliver messages (tcecd.bus.outbox) --------------------------------------

    def _kept(self, rows: list[OutboxRow]) -> list[OutboxRow]:
        """Note outbox rows just committed (the mirror follows the store)."""
        self.book.outbox_keys.update(entry.key for _, entry in rows)
        return rows

    async def _publish_kept(self, event: DomainEvent) -> None:
        """Commit ``event``'s must-deliver messages on their own (those not in the
        outbox yet), then publish it."""
        store = self.store
        assert store is not None
        outbox = [e for e in self.pub.outbox_entries(event) if e.key not in self.book.outbox_keys]
        rows = await asyncio.to_thread(store.add_outbox, outbox) if outbox else []
        self.pub.publish(event, self._kept(rows))

    async def _resend_outbox(self) -> None:
        """Start-up: add the outbox rows the state lacks (see :meth:`_missing_outbox`),
        then queue every row the broker has not acknowledged, oldest first and
        before the current state is published, so that the retained topics end
        with the current state."""
        store = self.store
        assert store is not None
        missing = await asyncio.to_thread(self._missing_outbox)
        rows = await asyncio.to_thread(store.add_outbox, missing) if missing else []
        resend = [*self.book.outbox_pending, *self._kept(rows)]
        self.book.outbox_pending = []
        if resend:
            self.pub.publish_stored(resend)
            self.log.info("re-sending results the broker had not acknowledged",
                          messages=len(resend))  # fmt: skip

    def _missing_outbox(self) -> list[OutboxEntry]:
        """The must-deliver messages of what the state holds that are not in its
        outbox: each round's pairing, each finished game's result and each
        finished round's standings, in event order. Only a crash between a
        round's last game and its standings leaves one out in normal running;
        the rest covers a state written without MQTT (or by a tcecd without the
        outbox): its results then reach the broker at least once. (The final
        standings are added at the end of :meth:`_run`.) Pure, runs in a
        worker thread before anything else reads or writes the mirror."""
        if not self.pairings:
            return []
        first = self.pairings[min(self.pairings)]
        if not self.pub.outbox_entries(RoundPaired(first)):
            return []  # this sink keeps no outbox (no MQTT)
        history = self.book.history()
        events: list[DomainEvent] = []
        for r in sorted(self.pairings):
            pairing = self.pairings[r]
            events.append(RoundPaired(pairing))
            for g in pairing.games:
                done = self.finished.get(GameId(r, g.number))
                if done is not None:
                    events.append(GameFinished(self.records[done.game_id], done.pgn))
            if r <= len(history):
                events.append(StandingsUpdated(r, self.standings(history[:r])))
        have = self.book.outbox_keys
        return [e for ev in events for e in self.pub.outbox_entries(ev) if e.key not in have]

    async def _play_round(self, pairing: RoundPairing) -> None:
        """Play the round's unfinished games: ``concurrency`` at a time, started
        and committed in playing order."""
        todo = self.book.unfinished(pairing)
        if not todo:
            return
        concurrency = max(1, self.s.concurrency)
        sem = _Permits(concurrency, COMMIT_WINDOW * concurrency)
        broken = [False]  # an earlier slot ended without committing: later ones must not
        try:
            await self._start_slots(pairing, todo, sem, broken)
        except BaseExceptionGroup as group:
            # A user-facing error in one game (e.g. an engine that cannot be run
            # at all) should reach the CLI as that one-line error, not a group.
            user = group.subgroup(lambda e: isinstance(e, TcecdError))
            if user is not None:
                leaf: BaseException = user
                while isinstance(leaf, BaseExceptionGroup):
                    leaf = leaf.exceptions[0]
                raise leaf from None
            raise

    async def _start_slots(
        self,
        pairing: RoundPairing,
        todo: list[ScheduledGame],
        sem: _Permits,
        broken: list[bool],
    ) -> None:
        previous: asyncio.Event | None = None
        turn: StartTurn | None = None
        async with asyncio.TaskGroup() as tg:
            for game in todo:
                if self.stop_requested():
                    break
                await sem.acquire()
                if self.stop_requested():
                    sem.finished()
                    sem.committed()
                    break
                mine = asyncio.Event()
                turn = StartTurn(turn)
                task = tg.create_task(
                    self._slot(pairing, game, previous, mine, sem, broken, turn),
                    name=f"game-{pairing.round}.{game.number}",
                )
                self._game_tasks.add(task)
                task.add_done_callback(self._game_tasks.discard)
                previous = mine

    async def _slot(
        self,
        pairing: RoundPairing,
        game: ScheduledGame,
        previous: asyncio.Event | None,
        mine: asyncio.Event,
        sem: _Permits,
        broken: list[bool],
        turn: StartTurn | None = None,
    ) -> None:
        committed = False
        playing = True
        # This task's own context: every log line of the game says which game.
        structlog.contextvars.bind_contextvars(game=f"{pairing.round}.{game.number}")
        try:
            try:
                slot = await self._produce(pairing, game, turn)
                if previous is not None and not previous.is_set():
                    # Played, and waiting for an earlier game: the next game may
                    # start meanwhile (see _Permits). The oldest game keeps its
                    # permit until it is recorded, so with concurrency 1 a game
                    # still starts only once the one before it is recorded.
                    playing = False
                    sem.finished()
            except StoppedBeforeStart:
                self.log.info("game not started: stopping", game=f"{pairing.round}.{game.number}")
                if previous is not None:
                    # The games before this one still finish and commit, in order;
                    # only then does "not committed" (broken) stop the later ones.
                    await previous.wait()
                return
            if previous is not None:
                await previous.wait()
            if not broken[0]:
                await self._commit(pairing, slot)
                committed = True
        finally:
            if turn is not None:
                turn.decided()
            if not committed:
                broken[0] = True
            mine.set()
            if playing:
                sem.finished()
            sem.committed()

    # -- one game ----------------------------------------------------------------------

    async def _produce(
        self, pairing: RoundPairing, game: ScheduledGame, turn: StartTurn | None = None
    ) -> _Slot:
        """Play the game (replaying it after faults when so configured) or forfeit it;
        ``turn`` keeps the starts in playing order (:class:`~tcecd.execution.gate.StartTurn`)."""
        gid = GameId(pairing.round, game.number)
        attempts = 0
        while True:
            if self.stop_requested():
                raise StoppedBeforeStart(str(gid))
            attempts += 1
            if attempts > 2 * self.s.strikes_max + 2:
                # Every replay costs a strike, so this only happens when the runner
                # asks for replays without naming a fault: never loop forever.
                raise EngineError(f"game {gid}: replayed {attempts - 1} times without end")
            disq = self.book.disqualified
            if game.white in disq or game.black in disq:
                if turn is not None:
                    turn.decided()  # a forfeit never starts: the next game need not wait
                return _Slot(game, self.book.forfeit(pairing, game), played=False)
            opening = self.book.opening_for(pairing, game)
            job = self._job(gid, game, opening)
            result = await self._play(job, StartGate(turn, self.stop_requested))
            faults = tuple((PlayerId(e), k, d) for e, k, d in result.faults)
            if not result.replay:
                if result.record is None:
                    raise EngineError(f"game {gid}: the game player returned no record")
                return _Slot(game, result.record, played=True, faults=faults)
            # Replay policy: the faults count now (durably), then the game starts again.
            for engine, kind, detail in faults:
                await self._store_fault(engine, gid, kind, detail)
            self.log.warning("game will be replayed after a fault", game=str(gid))

    def _job(self, gid: GameId, game: ScheduledGame, opening: Opening) -> GameJob:
        """The self-contained description of one game, for the game player."""
        s = self.s
        white, black = self.engines[game.white], self.engines[game.black]
        return GameJob(
            game_id=gid,
            event=s.event,
            site=s.site,
            white=white,
            black=black,
            opening=opening,
            time_control=s.time_control,
            margin_ms=s.margin_ms,
            adjudication=s.adjudication,
            fault_policy=s.on_fault,
            tablebase_path=s.tablebase_path,
            slots=game_slots(white, black, s.execution.slots),
        )

    async def _play(self, job: GameJob, gate: StartGate) -> GameResult:
        """Have the player play ``job`` while following its stream of updates
        (live files, MQTT ``move`` messages); every update is handled before
        this returns, so a game's moves never follow its result."""
        updates: asyncio.Queue[GameUpdate] = asyncio.Queue()
        follower = asyncio.create_task(self._follow(job, updates), name=f"live-{job.game_id}")
        try:
            result = await self.player.play(job, updates, gate)
        except BaseException:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower
            raise
        await updates.join()
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower
        return result

    async def _follow(self, job: GameJob, updates: asyncio.Queue[GameUpdate]) -> None:
        began = [False]  # this attempt's game began once already
        while True:
            update = await updates.get()
            try:
                self._on_update(job, update, began)
            finally:
                updates.task_done()

    def _on_update(self, job: GameJob, update: GameUpdate, began: list[bool]) -> None:
        gid = job.game_id
        if isinstance(update, MoveMade):
            self.move_played(gid, update.move, update.white_clock_ms, update.black_clock_ms)
        elif isinstance(update, GameBegan):
            if began[0]:
                # Played again from its start elsewhere (its worker died): the
                # moves streamed so far are void; the live game starts over.
                self._restart_live(gid, f"replayed from its start on {update.where}")
            began[0] = True
            headers = live_headers(
                event=job.event, site=job.site, game_id=gid, white=job.white.name,
                black=job.black.name, time_control=job.time_control.pgn_tag(),
                opening=job.opening, start=update.start_time,
            )  # fmt: skip
            # Each side under its engine's own limits, if any (as the player's clock).
            clock = Clock.start(
                job.white.time_control(job.time_control),
                job.margin_ms,
                black_tc=job.black.time_control(job.time_control),
            )
            headers.update(side_time_control_tags(clock, job.time_control))
            live = LiveGame(headers, job.opening, update.white_options, update.black_options)
            self.game_started(
                GameStarted(
                    game_id=gid,
                    white=job.white.name,
                    black=job.black.name,
                    opening=job.opening,
                    time_control=job.time_control.pgn_tag(),
                    start_time=update.start_time,
                    white_clock_ms=update.white_clock_ms,
                    black_clock_ms=update.black_clock_ms,
                ),
                live,
            )
            if update.where != "local":
                self.log.info("game placed", game=str(gid), worker=update.where)
        elif isinstance(update, GameRestarted):
            self._restart_live(gid, update.reason)

    def _restart_live(self, gid: GameId, reason: str) -> None:
        """A game starts again from its first move: not a fault, no strike; said
        in the log and on the live stream (a fresh ``start`` follows)."""
        self._live.pop(gid, None)
        self._started.pop(gid, None)
        self.log.warning("game restarted from its first move", game=str(gid), reason=reason)

    async def _store_fault(self, engine: PlayerId, gid: GameId, kind: str, detail: str) -> None:
        """A fault of a game that will be replayed: one strike, committed now
        (and the disqualification it may cause), then announced."""
        store = self.store
        assert store is not None
        await asyncio.to_thread(store.add_fault, engine, gid, kind, detail)
        strikes = self.book.add_strike(engine)
        self._announce_fault(engine, gid, kind, detail)
        if strikes >= self.s.strikes_max and engine not in self.book.disqualified:
            reason = f"{strikes} strikes (last: {kind}: {detail})"
            await asyncio.to_thread(store.disqualify, engine, gid.round, reason)
            self.book.disqualify(engine, gid.round, reason)
            self._announce_disqualified(engine, reason, gid.round)

    def _announce_fault(self, engine: PlayerId, gid: GameId, kind: str, detail: str) -> None:
        strikes = self.book.strikes.get(engine, 0)
        self.pub.publish(EngineFault(engine, gid, kind, detail, strikes))
        self.log.warning("engine fault", engine=engine, kind=kind, detail=detail, strikes=strikes)

    def _announce_disqualified(self, engine: PlayerId, reason: str, round_no: int) -> None:
        self.pub.publish(EngineDisqualified(engine, reason, round_no))
        self.log.error("engine disqualified", engine=engine, reason=reason)

    async def _commit(self, pairing: RoundPairing, slot: _Slot) -> None:
        """Record a finished game: store (one transaction), PGN, JSON, stream."""
        from tcecd.pairing.registry import canonical_name
        from tcecd.pgn.event_tags import with_event_tags
        from tcecd.pgn.writer import game_pgn

        store = self.store
        assert store is not None
        assert slot.record is not None
        record, played = slot.record, slot.played
        gid = record.game_id
        disq = set(self.book.disqualified)
        if played and (record.white in disq or record.black in disq):
            # Only with concurrency > 1: an engine was disqualified by an earlier
            # game while this one was running. Forfeit it, as a sequential run would.
            # Its faults go too: a sequential run would never have played it.
            record, played = self.book.forfeit(pairing, slot.game), False
            slot = _Slot(slot.game, record, played=False)
        # What replay --verify needs from the PGN alone (tcecd.pgn.event_tags).
        record = with_event_tags(
            record, canonical_name(self.s.system), self.s.rounds,
            {p.id: p.seed for p in self.players},
        )  # fmt: skip
        pgn = game_pgn(record)
        new_dq: list[tuple[PlayerId, str]] = []
        strikes = dict(self.book.strikes)
        for engine, kind, detail in slot.faults:
            strikes[engine] = strikes.get(engine, 0) + 1
            out = strikes[engine] >= self.s.strikes_max and engine not in disq
            if out and engine not in [e for e, _ in new_dq]:
                new_dq.append((engine, f"{strikes[engine]} strikes (last: {kind}: {detail})"))
        rows = await asyncio.to_thread(
            store.commit_game,
            record,
            pgn,
            played=played,
            faults=[(e, k, d) for e, k, d in slot.faults],
            disqualify=[(e, gid.round, why) for e, why in new_dq],
            outbox=self.pub.outbox_entries(GameFinished(record, pgn)),
        )
        # The mirror follows the commit (the order the store's readers would see).
        self.book.add_game(record, pgn, played=played)
        for engine, _, _ in slot.faults:
            self.book.add_strike(engine)
        for engine, why in new_dq:
            self.book.disqualify(engine, gid.round, why)
        self.crash.hit(f"after-store:{gid}")
        await asyncio.to_thread(self.pgn.append, pgn, tag=str(gid))
        for engine, kind, detail in slot.faults:
            self._announce_fault(engine, gid, kind, detail)
        for engine, why in new_dq:
            self._announce_disqualified(engine, why, gid.round)
        self._write_outputs()
        if self._live_owner == gid:
            self._write_live(LiveGame.finished(record, pgn, known=self._live.get(gid)))
            self._live_owner = None
        self._live.pop(gid, None)
        self._started.pop(gid, None)
        await self.files.flush()
        self.pub.publish(GameFinished(record, pgn), self._kept(rows))
        self._request_forecast()
        self.log.info(
            "game finished",
            game=str(gid),
            white=record.white,
            black=record.black,
            result=record.result.value,
            termination=record.termination.value,
            detail=record.termination_detail,
            plies=len(record.moves),
        )
        self.crash.hit(f"after-game:{gid}")

    # -- live hooks called by the game player ---------------------------------------------

    def game_started(self, event: GameStarted, live: LiveGame) -> None:
        self._live[event.game_id] = live
        self._started[event.game_id] = event.start_time
        self._write_outputs()  # the schedule shows the game "in progress"
        if self._live_owner is None or self._live_owner not in self._live:
            self._live_owner = event.game_id
        if self._live_owner == event.game_id:
            self._write_live(live)
        self.pub.publish(event)
        self.log.info(
            "game started",
            game=str(event.game_id),
            white=event.white,
            black=event.black,
            opening=event.opening.name,
        )

    def move_played(
        self, gid: GameId, move: MoveRecord, white_ms: int | None, black_ms: int | None
    ) -> None:
        live = self._live.get(gid)
        if live is not None:
            live.add(move)
            if self._live_owner == gid:
                self._write_live(live)
        self.pub.publish(MovePlayed(gid, move, white_ms, black_ms))
        if self.crash.active:
            self.crash.hit(f"mid-game:{gid}:ply={move.ply}")

    # -- shutdown -----------------------------------------------------------------------

    def stop_requested(self) -> bool:
        """True once a signal asked the daemon to stop (a method, so that type
        checkers do not assume it cannot change across an ``await``)."""
        return self.stopping

    def request_stop(self, *, abort: bool) -> None:
        """First signal: start no new game; with ``abort``, also cancel the running
        ones (they are replayed from their start on resume)."""
        self.stopping = True
        if abort:
            for task in list(self._game_tasks):
                task.cancel()
