"""The daemon behind ``tcecd run``: a thin asyncio shell around :class:`EventRunner`.

:func:`run_event` owns every task (the event, the MQTT publisher) and the
signals, uvicorn-style: the first SIGINT/SIGTERM drains (stops after the
current game, or aborts it when ``shutdown.on_signal: abort``), persists and
exits 0; a second signal aborts at once (the interrupted game is replayed from
its start on resume). Every state change is already durable when it happens
(see :mod:`tcecd.store`), so stopping is only a matter of not starting more.

Before it exits, the daemon waits up to ``mqtt.delivery_timeout_s`` for the
broker to acknowledge the results, pairings and standings still queued, and
warns (one line, with the count) if some are not: they stay in the state's
outbox and go out on the next start (docs/events.md, "Delivery").
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from typing import TYPE_CHECKING, Any, TextIO

import structlog

from tcecd import eventloop
from tcecd import signals as early_signals
from tcecd.daemon.core import EventRunner
from tcecd.daemon.crash import CrashPoints
from tcecd.daemon.settings import RunSettings
from tcecd.daemon.table import standings_table
from tcecd.execution import GamePlayer, open_player
from tcecd.runner.reaper import helper_environment

if TYPE_CHECKING:
    from tcecd.bus.publisher import Publisher
    from tcecd.bus.settings import MqttSettings
    from tcecd.daemon.progress import ProgressDisplay

__all__ = ["EventRunner", "RunSettings", "run_event", "run_event_async"]


async def run_event_async(
    settings: RunSettings,
    *,
    out: TextIO | None = None,
    crash: CrashPoints | None = None,
    install_signals: bool = True,
    player: GamePlayer | None = None,
    progress: ProgressDisplay | None = None,
) -> int:
    """Run (or resume) the event; returns the process exit code (0: finished or
    stopped cleanly by a signal). ``progress``: a terminal display that sees the
    event stream as one more sink (:mod:`tcecd.daemon.progress`)."""
    out = out if out is not None else sys.stdout
    structlog.contextvars.bind_contextvars(event_name=settings.event)
    log = structlog.get_logger("tcecd")
    if player is None:
        # First: an unreachable Dask scheduler is one line, before the state is touched.
        player = await open_player(settings.execution)
    runner = EventRunner(settings, log=log, crash=crash or CrashPoints.from_env(), player=player)
    try:
        runner.open()
    except BaseException:
        runner.close()
        await player.aclose()
        raise
    loop = asyncio.get_running_loop()
    main_task = asyncio.current_task()
    signals_seen = [0]
    grace_timer: list[asyncio.TimerHandle] = []

    def abort_now() -> None:
        signals_seen[0] = max(signals_seen[0], 2)
        runner.request_stop(abort=True)
        if main_task is not None:
            main_task.cancel()

    def on_grace_over() -> None:
        # As uvicorn's timeout_graceful_shutdown: a drain is bounded.
        log.warning("shutdown grace period over: aborting", grace_s=settings.shutdown_grace_s)
        abort_now()

    def on_signal(signum: int) -> None:
        signals_seen[0] += 1
        name = signal.Signals(signum).name
        if signals_seen[0] == 1:
            abort = settings.on_signal == "abort"
            log.warning(
                "signal received: stopping " + ("now" if abort else "after the current game"),
                signal=name,
            )
            runner.request_stop(abort=abort)
            if not abort and settings.shutdown_grace_s is not None:
                grace_timer.append(loop.call_later(settings.shutdown_grace_s, on_grace_over))
        else:
            log.warning("second signal: aborting at once", signal=name)
            abort_now()

    installed: list[int] = []
    if install_signals:
        for sig in (int(signal.SIGINT), int(signal.SIGTERM)):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, on_signal, sig)
                installed.append(sig)
        # Signals that came during start-up (deferred by tcecd.signals), in order.
        for sig in early_signals.take():
            on_signal(sig)
    pub: Any = None
    try:
        async with contextlib.AsyncExitStack() as stack:
            # What libraries start for the event (the forecast's workers) carries the
            # event's mark: the next start reaps it if it outlived us (tcecd.runner.reaper).
            stack.enter_context(helper_environment(runner.engine_groups))
            mqtt = settings.mqtt
            if mqtt is not None and mqtt.embedded:
                from tcecd.bus.embedded import embedded_broker

                # Started before the publisher connects, stopped after it said
                # goodbye (the stack unwinds in reverse); its files under the state.
                mqtt = await stack.enter_async_context(
                    embedded_broker(mqtt, settings.state_dir / "mqtt", log=log,
                                    groups=runner.engine_groups)
                )
            if mqtt is not None:
                from tcecd.bus.publisher import Publisher

                pub = await stack.enter_async_context(
                    Publisher(
                        mqtt,
                        event=settings.event,
                        log=log,
                        # No round paired yet: a new event (or one that died before
                        # pairing, whose retained state is all re-published): clear
                        # an earlier same-named event's retained messages first.
                        fresh_event=not runner.pairings,
                        # Kept in the state: a resume publishes the same run_id.
                        run_id=runner.store.run_id() if runner.store is not None else None,
                        # Written in a worker thread; the store closes after the publisher.
                        on_acked=runner.store.ack_outbox if runner.store is not None else None,
                    )
                )
                runner.pub = pub
            if progress is not None:
                from tcecd.daemon.progress import TeeSink

                progress.resume(
                    {r: len(p.games) for r, p in runner.pairings.items()}, len(runner.finished)
                )
                runner.pub = TeeSink(runner.pub, [progress])
                stack.enter_context(progress)
            try:
                complete = await runner.run()
            finally:
                # The publisher's own exit flushes what it can while connected.
                await runner.aclose_engines()
            if pub is not None and settings.mqtt is not None:
                await _settle(pub, settings.mqtt, log)
    except asyncio.CancelledError:
        if signals_seen[0] < 2:
            raise
        complete = False
    finally:
        for timer in grace_timer:
            timer.cancel()
        for sig in installed:
            loop.remove_signal_handler(sig)
        if installed:
            early_signals.resume_deferring()
        runner.close()
    if complete:
        table = standings_table(
            runner.final_standings, settings, runner.players, runner.book.history(),
            disqualified=runner.book.disqualified,
        )
        print(table, file=out)
        log.info("event finished", pgn=str(settings.pgn_path))
    else:
        log.warning("event stopped; run the same command again to resume",
                    state_dir=str(settings.state_dir))  # fmt: skip
    return 0


async def _settle(pub: Publisher, mqtt: MqttSettings, log: Any) -> None:
    """Wait (bounded) for the broker to acknowledge what must reach subscribers;
    one warning line if some did not (a second signal cuts the wait short)."""
    timeout_s = mqtt.delivery_timeout_s
    undelivered = await pub.settle(timeout_s)
    if undelivered:
        log.warning(
            "mqtt: results not delivered in time; kept in the state, re-sent on the next start",
            undelivered=undelivered, queued=pub.pending, timeout_s=timeout_s,
        )  # fmt: skip


def run_event(
    settings: RunSettings, *, out: TextIO | None = None, progress: ProgressDisplay | None = None
) -> int:
    """Synchronous entry point for the CLI."""
    return eventloop.run(run_event_async(settings, out=out, progress=progress))
