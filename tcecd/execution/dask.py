"""The ``dask`` backend: games are tasks on a Dask ``distributed`` cluster.

The daemon is a Dask client (``execution.scheduler``); each game is one task,
:func:`run_job`, submitted with the worker resource ``engine_slots`` (see
:func:`tcecd.execution.job.game_slots`), so a worker started with
``--resources engine_slots=4`` plays at most four slots' worth of games at
once, and a worker without the resource gets none. The task runs
:func:`tcecd.execution.local.play_job` on the worker, in its own event loop:
engines are started there (engine programs and tablebases are worker paths),
fresh for every game (``keep-alive`` does not carry across tasks).

What crosses the network is the job's and the result's versioned JSON
encoding (:mod:`tcecd.execution.job`), never a pickled tcecd object; the
worker needs the same tcecd version installed (it imports this module).

Live moves come back over Dask's structured events: the task logs each
update with ``Worker.log_event`` under a topic of its own (one per game
attempt), the daemon's client subscribes to it (``Client.subscribe_topic``)
and puts the updates on the game's queue. The task's last event is ``done``;
the daemon waits for it (bounded) before it takes the result, so no move of a
game arrives after the game was recorded.

A worker that dies mid-game: the scheduler gives the task to another worker
(Dask's own retry of tasks lost with their worker), which plays the game from
its first move; its ``began`` event tells the daemon to start the live game
over (not a fault, no strike). After ``distributed.scheduler.allowed-failures``
such losses Dask gives up (``KilledWorker``): the daemon stops with one line.
A task whose client went away (the daemon died or was killed) is cancelled by
the scheduler; :func:`run_job` notices within a second and kills its engines.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import uuid
from typing import Any

import structlog

from tcecd.execution import ExecutionSettings
from tcecd.execution.gate import StartGate, StoppedBeforeStart
from tcecd.execution.job import (
    ExecutionError,
    GameJob,
    GameResult,
    GameUpdate,
    JsonDict,
    job_from_dict,
    job_to_dict,
    result_from_dict,
    result_to_dict,
    update_from_dict,
    update_to_dict,
)

#: The worker resource every game asks for (``dask worker --resources engine_slots=N``).
RESOURCE = "engine_slots"
#: How long the daemon waits for a finished task's last events to arrive.
DRAIN_TIMEOUT_S = 10.0
#: How often a running task checks whether it was cancelled.
WATCH_INTERVAL_S = 0.5


def _security(settings: ExecutionSettings) -> Any:
    if settings.tls_ca is None and settings.tls_cert is None:
        return None
    from distributed.security import Security

    return Security(  # type: ignore[no-untyped-call]
        tls_ca_file=settings.tls_ca,
        tls_client_cert=settings.tls_cert,
        tls_client_key=settings.tls_key,
        require_encryption=True,
    )


class DaskPlayer:
    """Plays games on a Dask cluster (see the module docstring)."""

    name = "dask"

    def __init__(self, client: Any, address: str) -> None:
        self.client = client
        self.address = address
        self._run = uuid.uuid4().hex[:12]
        self.log = structlog.get_logger("tcecd")

    @classmethod
    async def connect(cls, settings: ExecutionSettings) -> DaskPlayer:
        """Connect to ``settings.scheduler``; unreachable: :class:`ExecutionError`."""
        from distributed import Client

        address = settings.scheduler
        if address is None:
            raise ExecutionError("execution.scheduler: required with backend 'dask'")
        try:
            client = await Client(  # type: ignore[no-untyped-call]
                address,
                asynchronous=True,
                timeout=settings.connect_timeout_s,
                security=_security(settings),
                set_as_default=False,
            )
        except (OSError, ValueError) as exc:
            raise ExecutionError(
                f"execution.scheduler {address!r}: cannot reach the Dask scheduler "
                f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
            ) from None
        return cls(client, address)

    def use_engine_groups(self, groups: Any) -> None:
        """Engines run on the workers: their process groups are the workers' own
        (a cancelled task kills its engines, see :func:`run_job`)."""

    async def play(
        self, job: GameJob, updates: asyncio.Queue[GameUpdate], gate: StartGate
    ) -> GameResult:
        from distributed import KilledWorker

        # The game's start turn is taken when it is submitted (a task cannot ask
        # the daemon once it runs): later games are submitted after it.
        try:
            if not await gate.may_start():
                raise StoppedBeforeStart(str(job.game_id))
        finally:
            gate.decided()

        topic = f"tcecd-{self._run}-{job.game_id}-{uuid.uuid4().hex[:8]}"
        done = asyncio.Event()
        bad: list[str] = []

        def on_event(event: tuple[float, JsonDict]) -> None:
            msg = event[1]
            if msg.get("kind") == "done":
                done.set()
                return
            try:
                updates.put_nowait(update_from_dict(msg))
            except ExecutionError as exc:  # a worker running another tcecd version
                bad.append(str(exc))

        self.client.subscribe_topic(topic, on_event)
        future = self.client.submit(
            run_job,
            job_to_dict(job),
            topic,
            key=f"tcecd-game-{job.game_id}-{topic[-8:]}",
            resources={RESOURCE: job.slots},
            pure=False,
        )
        try:
            try:
                raw = await future
            except KilledWorker as exc:
                raise ExecutionError(
                    f"game {job.game_id}: the Dask workers playing it died too often ({exc})"
                ) from None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(DRAIN_TIMEOUT_S):
                    await done.wait()
        except BaseException:
            # Cancelled (shutdown, abort) or failed: the worker stops the game.
            cancelled = future.cancel()
            if inspect.isawaitable(cancelled):
                with contextlib.suppress(Exception):
                    await cancelled
            raise
        finally:
            with contextlib.suppress(Exception):
                self.client.unsubscribe_topic(topic)
        if bad:
            raise ExecutionError(f"game {job.game_id}: {bad[0]}")
        return result_from_dict(raw)

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self.client.close()


# -- on the worker ------------------------------------------------------------------


def run_job(job_dict: JsonDict, topic: str) -> JsonDict:
    """The Dask task: play one game on this worker; returns the encoded result.

    Runs in one of the worker's task threads, with an event loop of its own."""
    from distributed import get_worker

    worker = get_worker()
    key = worker.get_current_task()
    job = job_from_dict(job_dict)

    def emit(update: GameUpdate) -> None:
        worker.log_event(topic, update_to_dict(update))

    def cancelled() -> bool:
        ts = worker.state.tasks.get(key)
        return ts is None or ts.state in ("cancelled", "released", "forgotten")

    try:
        result = asyncio.run(_play(job, emit, cancelled, where=str(worker.address)))
    finally:
        worker.log_event(topic, {"kind": "done"})
    return result_to_dict(result)


async def _play(job: GameJob, emit: Any, cancelled: Any, *, where: str) -> GameResult:
    from tcecd.execution.local import play_job
    from tcecd.runner.session import SessionPool

    pool = SessionPool()
    probe_close: Any = None
    probe = None
    if job.tablebase_path is not None:
        from tcecd.game.tablebase import open_probe

        probe, probe_close = open_probe(job.tablebase_path)
    game = asyncio.ensure_future(play_job(job, pool, probe, emit, where=where))

    async def watch() -> None:
        while not game.done():
            await asyncio.sleep(WATCH_INTERVAL_S)
            if cancelled():
                game.cancel()  # kills and reaps both engines (play_job)
                return

    watcher = asyncio.ensure_future(watch())
    try:
        return await game
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await pool.aclose()
        if probe_close is not None:
            probe_close()
