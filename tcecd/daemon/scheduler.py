"""The scheduler: which scheduled game starts when, and in which order results commit.

The format says what the event schedules (:mod:`tcecd.formats.base`); the
runner plays one game and commits it (:mod:`tcecd.daemon.runner`). Between
them the scheduler owns the playing order and the concurrency:

- games start in playing order (round, then position in the round), at most
  ``concurrency`` playing at once, each only after the one before it has
  started or will not start (:class:`~tcecd.execution.gate.StartTurn`), so a
  stop never leaves a later game running while an earlier one never started;
- results commit in the same order: a game that ends before an earlier one
  waits for it (it no longer plays, so the next game may start meanwhile:
  :class:`Permits`);
- after every commit it asks the runner for the next plan (a round paired
  once the last one is over, a cup's next games), so the format decides
  with every result known and counts the games still playing as playing;
- once a stop is requested no game starts; the games started finish and
  commit in order (``abort``: they are cancelled and played again on resume).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog

from tcecd.domain import GameId
from tcecd.errors import StateError
from tcecd.execution.gate import StartGate, StartTurn, StoppedBeforeStart
from tcecd.pairing.base import ScheduledGame

#: How many games may be started and not yet recorded, in units of
#: ``concurrency`` (see :class:`Permits`).
COMMIT_WINDOW = 2


class Permits:
    """Game permits: at most ``playing`` games play at once, and at most
    ``window`` have started and are not yet recorded.

    Games are recorded in playing order, so a game that ends before an earlier
    one waits for it. It no longer plays, so its playing permit goes back at
    once (:meth:`finished`) and the next game starts: with ``concurrency: 2``
    a short game no longer leaves its engine slot (or its Dask worker) idle
    until a long one before it ends. A game that ends as the oldest one not
    yet recorded keeps its permit until it is recorded. The window bounds
    how many finished games can wait: each is held in memory and, if the
    daemon is killed, played again on resume (it was not recorded).

    The limits can change while games play (:meth:`resize`: the console's
    ``concurrency``): a larger one lets the next games start at once, a
    smaller one lets no game start until enough have ended.
    """

    def __init__(self, playing: int, window: int) -> None:
        self.limit = playing
        self.window = max(playing, window)
        self.playing = 0
        self.held = 0
        self._changed = asyncio.Event()

    def _free(self) -> bool:
        return self.held < self.window and self.playing < self.limit

    async def acquire(self) -> None:
        """Before a game starts: a place in the window and a playing permit."""
        while not self._free():
            self._changed.clear()
            await self._changed.wait()
        self.held += 1
        self.playing += 1

    def finished(self) -> None:
        """The game is no longer playing (played, or not started)."""
        self.playing -= 1
        self._changed.set()

    def committed(self) -> None:
        """The game is recorded (or will not be): its place in the window is free."""
        self.held -= 1
        self._changed.set()

    def resize(self, playing: int, window: int) -> None:
        """New limits, from now on (games playing go on)."""
        self.limit = playing
        self.window = max(playing, window)
        self._changed.set()


@dataclass(frozen=True, slots=True)
class Slot:
    """A scheduled game to play: its id and its place in the schedule."""

    game_id: GameId
    game: ScheduledGame


#: The runner's side: ``plan()`` schedules what the format asks for and says
#: whether the event goes on (False: done); ``pending()`` the scheduled games
#: not finished, in playing order; ``play(slot, gate)`` plays one and returns
#: what to commit; ``commit(slot, outcome)`` records it.
PlanFn = Callable[[], Awaitable[bool]]
PendingFn = Callable[[], list[Slot]]
PlayFn = Callable[[Slot, StartGate], Awaitable[Any]]
CommitFn = Callable[[Slot, Any], Awaitable[None]]


class Scheduler:
    """Plays every scheduled game (see the module docstring)."""

    def __init__(
        self,
        concurrency: int,
        *,
        plan: PlanFn,
        pending: PendingFn,
        play: PlayFn,
        commit: CommitFn,
        log: Any,
    ) -> None:
        self.concurrency = max(1, concurrency)
        self._plan = plan
        self._pending = pending
        self._play = play
        self._commit = commit
        self.log = log
        self.stopping = False
        #: No game starts while paused (the console's ``pause``).
        self.paused = False
        self._resumed = asyncio.Event()
        self._resumed.set()
        #: Set when a game commits or gives up its turn (the plan may change).
        self._changed = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._broken = False  # a slot ended without committing: later ones must not
        self.permits = Permits(self.concurrency, COMMIT_WINDOW * self.concurrency)
        #: Games started in this run (a game played again is forgotten first).
        self._started: set[GameId] = set()

    def stop_requested(self) -> bool:
        """True once a stop was requested (a method, so that type checkers do
        not assume it cannot change across an ``await``)."""
        return self.stopping

    def request_stop(self, *, abort: bool) -> None:
        """Start no new game; with ``abort``, also cancel the running ones
        (they are played again from their start on resume)."""
        self.stopping = True
        self._changed.set()
        self._resumed.set()  # a paused run stops too
        if abort:
            for task in list(self._tasks):
                task.cancel()

    def set_paused(self, paused: bool) -> None:
        """Pause (no game starts, nothing new is scheduled; the games playing
        finish) or resume."""
        self.paused = paused
        if paused:
            self._resumed.clear()
        else:
            self._resumed.set()
        self._changed.set()

    async def wait_unpaused(self) -> None:
        """Until the run is not paused (or is stopping)."""
        while self.paused and not self.stopping:
            await self._resumed.wait()

    def set_concurrency(self, concurrency: int) -> None:
        """How many games may play at once, from now on."""
        self.concurrency = max(1, concurrency)
        self.permits.resize(self.concurrency, COMMIT_WINDOW * self.concurrency)

    def forget(self, game: GameId) -> None:
        """``game`` is to be played again (its result was voided): the run
        starts it again when its turn comes."""
        self._started.discard(game)
        self._changed.set()

    async def run(self) -> bool:
        """Play until the format says the event is done (True) or a stop was
        requested (False)."""
        started = self._started
        previous: asyncio.Event | None = None
        turn: StartTurn | None = None
        async with asyncio.TaskGroup() as tg:
            while not self.stop_requested() and not self._broken:
                # The permit first, then the plan: a game waiting for a permit
                # waits for a commit, which may change what is next (an SPRT
                # decided, a cup's encounter over).
                await self.permits.acquire()
                if self.paused:
                    # Nothing new is scheduled either: an operator may still
                    # void a result the next round would be paired from.
                    await self.wait_unpaused()
                if self.stop_requested() or self._broken:
                    self._unused_permit()
                    break
                if not await self._plan():
                    self._unused_permit()
                    if self._tasks:
                        await self._wait_change()
                        continue
                    return True
                todo = [s for s in self._pending() if s.game_id not in started]
                if not todo:
                    self._unused_permit()
                    if not self._tasks:
                        raise StateError("the event's format schedules nothing to play")
                    await self._wait_change()
                    continue
                slot = todo[0]
                started.add(slot.game_id)
                mine = asyncio.Event()
                turn = StartTurn(turn)
                task = tg.create_task(
                    self._slot(slot, previous, mine, turn), name=f"game-{slot.game_id}"
                )
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
                previous = mine
        return False

    def _unused_permit(self) -> None:
        self.permits.finished()
        self.permits.committed()

    async def _wait_change(self) -> None:
        self._changed.clear()
        await self._changed.wait()

    async def _slot(
        self,
        slot: Slot,
        previous: asyncio.Event | None,
        mine: asyncio.Event,
        turn: StartTurn,
    ) -> None:
        committed = False
        playing = True
        # This task's own context: every log line of the game says which game.
        structlog.contextvars.bind_contextvars(
            round=slot.game_id.round, game=str(slot.game_id)
        )
        try:
            try:
                gate = StartGate(turn, self.stop_requested, self.wait_unpaused)
                outcome = await self._play(slot, gate)
                if previous is not None and not previous.is_set():
                    # Played, and waiting for an earlier game: the next game may
                    # start meanwhile (see Permits). The oldest game keeps its
                    # permit until it is recorded, so with concurrency 1 a game
                    # still starts only once the one before it is recorded.
                    playing = False
                    self.permits.finished()
            except StoppedBeforeStart:
                self.log.info("game not started: stopping", game=str(slot.game_id))
                if previous is not None:
                    # The games before this one still finish and commit, in order;
                    # only then does "not committed" (broken) stop the later ones.
                    await previous.wait()
                return
            if previous is not None:
                await previous.wait()
            if not self._broken:
                await self._commit(slot, outcome)
                committed = True
        finally:
            turn.decided()
            if not committed:
                self._broken = True
            mine.set()
            if playing:
                self.permits.finished()
            self.permits.committed()
            self._changed.set()
