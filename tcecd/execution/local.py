"""Playing a :class:`~tcecd.execution.job.GameJob` in this process (the ``local`` backend).

:func:`play_job` is the whole of "play one game" given a job: it starts (or
reuses) both engines from a :class:`~tcecd.runner.session.SessionPool`, plays
the game with :func:`tcecd.runner.game.play_game`, and returns a
:class:`~tcecd.execution.job.GameResult`; what happens meanwhile goes out
through ``emit`` as :class:`~tcecd.execution.job.GameUpdate` values. The Dask
backend runs the same function on a worker (:mod:`tcecd.execution.dask`).

An engine that cannot even start is a ``startup`` fault
(:func:`tcecd.runner.game.startup_outcome`, the one record of it): under the
``lose`` policy it loses the game (termination ``abandoned``, no moves), under
``replay`` the game is played again (each attempt is a strike, so a dead
engine is disqualified after ``strikes.max`` attempts and the game forfeited).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import chess

from tcecd.domain import Color
from tcecd.execution import Updates
from tcecd.execution.gate import StartGate, StoppedBeforeStart, open_gate
from tcecd.execution.job import GameBegan, GameJob, GameResult, GameUpdate, MoveMade
from tcecd.game.record import MoveRecord
from tcecd.game.rules import game_clock
from tcecd.runner.game import Fault, GameSetup, play_game, startup_outcome
from tcecd.runner.reaper import EngineGroups
from tcecd.runner.session import EngineFault, EngineSession, SessionPool
from tcecd.wallclock import utc_now

Probe = Callable[[chess.Board], int | None]
Emit = Callable[[GameUpdate], None]


async def play_job(
    job: GameJob,
    pool: SessionPool,
    probe: Probe | None,
    emit: Emit,
    *,
    gate: StartGate | None = None,
    where: str = "local",
) -> GameResult:
    """Play ``job`` once with engines from ``pool``; see the module docstring.
    The game starts once ``gate`` allows it (:mod:`tcecd.execution.gate`):
    when it does not, :class:`StoppedBeforeStart` (the engines are released)."""
    gate = gate if gate is not None else open_gate()
    start = utc_now()
    setup = GameSetup(job.game_id, job.event, job.site, job.rules, probe, job.opening)
    sessions: dict[Color, EngineSession] = {}
    try:
        for color, config in ((Color.WHITE, job.white), (Color.BLACK, job.black)):
            try:
                sessions[color] = await pool.acquire(config)
            except EngineFault as fault:
                failed = Fault(config.name, color, fault.kind, fault.detail)
                outcome = startup_outcome(setup, job.white, job.black, failed)
                record = None if outcome.replay else outcome.record
                return GameResult(
                    record, ((config.name, str(fault.kind), fault.detail),),
                    replay=outcome.replay, where=where,
                )  # fmt: skip
        if not await gate.may_start():
            # A signal came while the engines were starting: the game has not
            # started (no GameBegan yet), so none starts (docs/running.md, Signals).
            raise StoppedBeforeStart(str(job.game_id))
        white, black = sessions[Color.WHITE], sessions[Color.BLACK]
        clock = game_clock(job.rules, white.config, black.config)
        emit(
            GameBegan(
                game_id=job.game_id,
                start_time=start,
                white_options=white.options,
                black_options=black.options,
                white_clock_ms=clock.remaining_ms(Color.WHITE),
                black_clock_ms=clock.remaining_ms(Color.BLACK),
                where=where,
            )
        )
        gate.decided()

        def on_move(move: MoveRecord, white_ms: int | None, black_ms: int | None) -> None:
            emit(MoveMade(job.game_id, move, white_ms, black_ms))

        outcome = await play_game(setup, white, black, on_move=on_move)
        faults = tuple((f.engine, str(f.kind), f.detail) for f in outcome.faults)
        return GameResult(
            None if outcome.replay else outcome.record, faults, replay=outcome.replay,
            where=where, think_ns=outcome.think_ns, latencies_ns=outcome.latencies_ns,
        )  # fmt: skip
    except BaseException:
        # Cancelled (shutdown) or a bug: never keep these engines, kill them.
        for session in sessions.values():
            with contextlib.suppress(Exception):
                await session.close(graceful=False)
        sessions.clear()
        raise
    finally:
        gate.decided()  # a start-up fault, a stop, an error: the next game may decide
        for session in sessions.values():
            with contextlib.suppress(Exception):
                await pool.release(session)


class LocalPlayer:
    """The ``local`` backend: games are played in this process, as tcecd always did.

    Keeps the :class:`SessionPool` (``keep-alive`` engines live here between
    games) and the opened tablebases for the daemon's lifetime."""

    name = "local"

    def __init__(self) -> None:
        self.pool = SessionPool()
        self._probes: dict[str, tuple[Probe, Callable[[], None]]] = {}

    def _probe(self, path: str | None) -> Probe | None:
        if path is None:
            return None
        if path not in self._probes:
            from tcecd.game.tablebase import open_probe

            self._probes[path] = open_probe(path)
        return self._probes[path][0]

    def use_engine_groups(self, groups: EngineGroups | None) -> None:
        """Record every engine's process group in the event's state (tcecd.runner.reaper)."""
        self.pool.groups = groups

    async def play(
        self, job: GameJob, updates: Updates, gate: StartGate
    ) -> GameResult:
        probe = self._probe(job.rules.tablebase_path)
        return await play_job(job, self.pool, probe, updates.put_nowait, gate=gate)

    async def aclose(self) -> None:
        await self.pool.aclose()
        probes, self._probes = self._probes, {}
        for _, close in probes.values():
            close()
