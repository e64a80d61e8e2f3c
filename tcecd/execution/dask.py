"""The ``dask`` backend: games are tasks on a Dask ``distributed`` cluster.

The daemon is a Dask client (``execution.scheduler``); each game is one task,
:func:`run_job`, submitted with the worker resource ``engine_slots`` (see
:func:`tcecd.execution.job.game_slots`), so a worker started with
``--resources engine_slots=4`` plays at most four slots' worth of games at
once, and a worker without the resource gets none. The task runs
:func:`tcecd.execution.local.play_job` on the worker's event loop:
engines are started there (engine programs and tablebases are worker paths),
fresh for every game (``keep-alive`` does not carry across tasks).

What crosses the network is the job's and the result's versioned JSON
encoding (:mod:`tcecd.execution.job`), never a pickled tcecd object; the
worker needs the same tcecd version installed (it imports this module).

:func:`run_job` is a coroutine function, so Dask runs it on the worker's own
event loop rather than in a task thread (``Worker.execute``: a coroutine
task is awaited there). The game's engine pipes are then read by the loop
that also sends the live moves: a move's update goes straight onto the
worker's batched stream to the scheduler, with no hand-over between a task
thread with an event loop of its own and the worker's loop (one
``add_callback`` and a contended GIL per move), which cost the worker more
CPU per move than playing the move did. Everything the game does is
non-blocking (engines are asyncio subprocesses), so the worker's heartbeats
and transfers carry on while it plays; the resource ``engine_slots`` still
bounds how many games a worker plays at once.

Live moves come back over Dask's structured events: the task logs its
updates with ``Worker.log_event`` under a topic of its own (one per game
attempt), the daemon's client subscribes to it (``Client.subscribe_topic``)
and puts the updates on the game's queue. An update goes out at once unless
the game's previous event left less than :data:`BATCH_S` ago; then it waits
for the rest of that time and goes with the updates made meanwhile, in one
event. Each event costs the worker, the scheduler and the daemon's client a
message of their own whatever it carries, so fast games (many moves a second)
send a few events a second instead of one per move; at a real event's pace
(seconds a move) every move still goes out as it is made. The task's last event is ``done``;
the daemon waits for it (bounded) before it takes the result, so no move of a
game arrives after the game was recorded.

A worker that dies mid-game: the scheduler gives the task to another worker
(Dask's own retry of tasks lost with their worker), which plays the game from
its first move; its ``began`` event tells the daemon to start the live game
over (not a fault, no strike). After ``distributed.scheduler.allowed-failures``
such losses Dask gives up (``KilledWorker``): the daemon stops with one line.
A daemon that dies or is killed: its connection to the scheduler closes, the
scheduler releases the client's tasks (``Scheduler.remove_client``) and tells
their workers, where a running task's state becomes ``cancelled``. Dask does
not interrupt a running task, so the cancellation is cooperative:
:func:`run_job` checks its own task state in the worker's state machine every
:data:`WATCH_INTERVAL_S` and, once it is no longer wanted (or the worker is
closing), cancels the game, which kills and reaps both engines.

A scheduler lost mid-event: the Dask client cancels every future it holds
(``FutureCancelledError``) and reconnects for ``connect_timeout_s``, and the
workers close (``dask worker`` exits when it loses its scheduler; systemd's
``Restart=always`` brings it back, and a starting worker waits for the
scheduler). :meth:`DaskPlayer.play` treats a future cancelled under it as
"the cluster lost the game": it waits until a client is connected again (the
same one reconnected, or a new one once it gave up), then submits the game
again, played from its first move (not a fault, no strike; the live game
starts over). Games wait as long as the scheduler is away; nothing is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import uuid
from typing import Any

import structlog

from tcecd.execution import ExecutionSettings, Updates
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
#: The least time between two live-update events of one game (see the module docstring).
BATCH_S = 0.05
#: How often a running task checks whether it was cancelled.
WATCH_INTERVAL_S = 0.5
#: How often a game waiting for a lost scheduler tries again.
RECONNECT_INTERVAL_S = 1.0


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


async def _open_client(address: str, settings: ExecutionSettings) -> Any:
    """A Dask client connected to ``address``; unreachable: :class:`ExecutionError`."""
    from distributed import Client

    if address.startswith("tls://") and (settings.tls_ca is None or settings.tls_cert is None):
        # Dask itself would fail with a TypeError about a missing SSL context.
        raise ExecutionError(
            f"execution.scheduler {address!r}: a tls:// scheduler needs execution.tls "
            "(ca, cert, key)"
        )
    try:
        return await Client(  # type: ignore[no-untyped-call]
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


class DaskPlayer:
    """Plays games on a Dask cluster (see the module docstring)."""

    name = "dask"

    def __init__(
        self, client: Any, address: str, settings: ExecutionSettings | None = None
    ) -> None:
        self.client = client
        self.address = address
        self.settings = (
            settings
            if settings is not None
            else ExecutionSettings(backend="dask", scheduler=address)
        )
        self._run = uuid.uuid4().hex[:12]
        self.log = structlog.get_logger("tcecd")
        self._reconnect = asyncio.Lock()
        self._lost = False  # the scheduler is away (logged once per outage)

    @classmethod
    async def connect(cls, settings: ExecutionSettings) -> DaskPlayer:
        """Connect to ``settings.scheduler``; unreachable: :class:`ExecutionError`."""
        address = settings.scheduler
        if address is None:
            raise ExecutionError("execution.scheduler: required with backend 'dask'")
        return cls(await _open_client(address, settings), address, settings)

    async def _ready(self) -> Any:
        """The connected client. While the scheduler is unreachable this waits
        (logged once per outage): the Dask client reconnects by itself for
        ``connect_timeout_s``, after that a new client is opened every
        :data:`RECONNECT_INTERVAL_S`."""
        while True:
            status = self.client.status
            if status == "running":
                if self._lost:
                    self._lost = False
                    self.log.warning("Dask scheduler reachable again", scheduler=self.address)
                return self.client
            if not self._lost:
                self._lost = True
                self.log.warning(
                    "Dask scheduler unreachable: games wait for it", scheduler=self.address
                )
            if status in ("closing", "closed"):
                async with self._reconnect:
                    if self.client.status in ("closing", "closed"):
                        with contextlib.suppress(ExecutionError):
                            self.client = await _open_client(self.address, self.settings)
                            continue
            await asyncio.sleep(RECONNECT_INTERVAL_S)

    def use_engine_groups(self, groups: Any) -> None:
        """Engines run on the workers: their process groups are the workers' own
        (a cancelled task kills its engines, see :func:`run_job`)."""

    async def play(
        self, job: GameJob, updates: Updates, gate: StartGate
    ) -> GameResult:
        # The game's start turn is taken when it is submitted (a task cannot ask
        # the daemon once it runs): later games are submitted after it.
        try:
            if not await gate.may_start():
                raise StoppedBeforeStart(str(job.game_id))
        finally:
            gate.decided()
        while True:
            raw = await self._attempt(job, updates, await self._ready())
            if raw is not None:
                return result_from_dict(raw)
            # The cluster lost the game with the scheduler: once it is back, the
            # game is played again from its first move (its fresh ``began``
            # tells the daemon to start the live game over).
            self.log.warning("game waits for the Dask scheduler", game=str(job.game_id))

    async def _attempt(
        self, job: GameJob, updates: Updates, client: Any
    ) -> JsonDict | None:
        """Submit the game once; its encoded result, or None when the future
        was cancelled under us (the client lost the scheduler)."""
        from distributed import KilledWorker
        from distributed.client import FutureCancelledError
        from distributed.comm.core import CommClosedError

        topic = f"tcecd-{self._run}-{job.game_id}-{uuid.uuid4().hex[:8]}"
        done = asyncio.Event()
        bad: list[str] = []

        def on_event(event: tuple[float, JsonDict]) -> None:
            msg = event[1]
            kind = msg.get("kind")
            if kind == "done":
                done.set()
                return
            try:
                if kind != "batch":
                    raise ExecutionError(f"game update is malformed: event kind {kind!r}")
                for raw in msg.get("updates", ()):
                    updates.put_nowait(update_from_dict(raw))
            except ExecutionError as exc:  # a worker running another tcecd version
                bad.append(str(exc))

        future: Any = None
        key = f"tcecd-game-{job.game_id}-{topic[-8:]}"
        try:
            client.subscribe_topic(topic, on_event)
            future = client.submit(
                run_job,
                job_to_dict(job),
                topic,
                key,
                key=key,
                resources={RESOURCE: job.slots},
                pure=False,
            )
            raw: JsonDict = await future
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(DRAIN_TIMEOUT_S):
                    await done.wait()
        except KilledWorker as exc:
            raise ExecutionError(
                f"game {job.game_id}: the Dask workers playing it died too often ({exc})"
            ) from None
        except (FutureCancelledError, CommClosedError) as exc:
            # Not our cancellation (that is asyncio.CancelledError): the client
            # cancels its futures when it loses the scheduler.
            self.log.info("game lost with the Dask scheduler", game=str(job.game_id), why=str(exc))
            return None
        except BaseException:
            # Cancelled (shutdown, abort) or failed: the worker stops the game.
            if future is not None:
                cancelled = future.cancel()
                if inspect.isawaitable(cancelled):
                    with contextlib.suppress(Exception):
                        await cancelled
            raise
        finally:
            with contextlib.suppress(Exception):
                client.unsubscribe_topic(topic)
        if bad:
            raise ExecutionError(f"game {job.game_id}: {bad[0]}")
        return raw

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self.client.close()


# -- on the worker ------------------------------------------------------------------


async def run_job(job_dict: JsonDict, topic: str, key: str) -> JsonDict:
    """The Dask task ``key``: play one game on this worker; returns the encoded
    result. Runs on the worker's event loop (see the module docstring)."""
    from distributed import get_worker
    from distributed.worker import WORKER_ANY_RUNNING

    worker = get_worker()
    job = job_from_dict(job_dict)
    loop = asyncio.get_running_loop()
    pending: list[JsonDict] = []
    last_sent = [float("-inf")]
    timer: list[asyncio.TimerHandle | None] = [None]

    def send() -> None:
        timer[0] = None
        if pending:
            # On the worker's loop thread: straight onto its batched stream.
            worker.log_event(topic, {"kind": "batch", "updates": pending[:]})
            pending.clear()
            last_sent[0] = loop.time()

    def emit(update: GameUpdate) -> None:
        pending.append(update_to_dict(update))
        if timer[0] is None:
            wait = last_sent[0] + BATCH_S - loop.time()
            if wait <= 0:
                send()
            else:
                timer[0] = loop.call_later(wait, send)

    def cancelled() -> bool:
        # Released by the scheduler (the daemon that wanted it is gone), or the
        # worker is closing (it lost the scheduler): nobody will take the result.
        if worker.status not in WORKER_ANY_RUNNING:
            return True
        ts = worker.state.tasks.get(key)
        return ts is None or ts.state in ("cancelled", "released", "forgotten")

    try:
        result = await _play(job, emit, cancelled, where=str(worker.address))
    finally:
        if timer[0] is not None:
            timer[0].cancel()
        send()  # the last moves, before "done"
        worker.log_event(topic, {"kind": "done"})
    return result_to_dict(result)


def dask_setup(worker: Any) -> None:
    """Dask's preload hook: ``dask worker --preload tcecd.execution.dask``
    imports the game player (python-chess, the runner) when the worker
    starts, so the first game does not wait a second or two for it on the
    worker's event loop (docs/operations.md)."""
    del worker
    import tcecd.execution.local
    import tcecd.runner.session  # noqa: F401


async def _play(job: GameJob, emit: Any, cancelled: Any, *, where: str) -> GameResult:
    from tcecd.execution.local import play_job
    from tcecd.runner.session import SessionPool

    pool = SessionPool()
    probe_close: Any = None
    probe = None
    if job.rules.tablebase_path is not None:
        from tcecd.game.tablebase import open_probe

        probe, probe_close = open_probe(job.rules.tablebase_path)
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
