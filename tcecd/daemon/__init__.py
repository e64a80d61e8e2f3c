"""The daemon behind ``tcecd run``: the asyncio shell that wires the event's
parts.

:func:`run_event_async` opens the state directory
(:mod:`tcecd.daemon.state_dir`), builds the event stream's sinks
(:mod:`tcecd.daemon.sinks`: TCEC's files, MQTT, the progress display,
forecasts, the log), the recorder and the runner (:mod:`tcecd.daemon.runner`),
and owns every task and the signals, uvicorn-style: the first SIGINT/SIGTERM
drains (stops after the current game, or aborts it when ``shutdown.on_signal:
abort``), persists and exits 0; a second signal aborts at once (the interrupted
game is replayed from its start on resume). Every state change is already
durable when it happens (see :mod:`tcecd.store`), so stopping is only a matter
of not starting more.

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
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

import structlog

from tcecd import eventloop
from tcecd import signals as early_signals
from tcecd.daemon.crash import CrashPoints
from tcecd.daemon.recorder import Recorder
from tcecd.daemon.runner import EventRunner
from tcecd.daemon.settings import RunSettings
from tcecd.daemon.sinks.log import LogSink
from tcecd.daemon.state_dir import open_event
from tcecd.daemon.stream import EventStream, Sink
from tcecd.daemon.table import standings_table
from tcecd.errors import StateError
from tcecd.event.state import EventState
from tcecd.events import EventStarted
from tcecd.execution import GamePlayer, open_player
from tcecd.formats.base import EventFormat, get_format
from tcecd.game.record import Opening
from tcecd.outputs.files import PgnFile
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
    sinks: Sequence[Sink] = (),
    openings: tuple[Opening, ...] | None = None,
    fmt: EventFormat | None = None,
    log: Any = None,
    quiet: bool = False,
) -> bool:
    """Run (or resume) the event; True when it is complete, False when it was
    stopped (by a signal: cleanly, resumable). ``progress``: a terminal display,
    one more sink of the event stream (:mod:`tcecd.daemon.progress`); ``sinks``:
    more sinks (:mod:`tcecd.daemon.stream`), after the daemon's own.
    ``openings`` (already loaded) and ``fmt`` replace what the settings name;
    ``quiet``: no standings table on ``out`` at the end (``tcecd play``)."""
    out = out if out is not None else sys.stdout
    structlog.contextvars.bind_contextvars(event_name=settings.event)
    log = log if log is not None else structlog.get_logger("tcecd")
    crash = crash or CrashPoints.from_env()
    if player is None:
        # First: an unreachable Dask scheduler is one line, before the state is touched.
        player = await open_player(settings.execution)
    try:
        fmt = fmt if fmt is not None else get_format(settings.format)
        opened = open_event(settings, log=log, openings=openings)
        state = opened.state
        if state.paused and not state.finished and not (settings.mqtt and settings.mqtt.console):
            opened.close()
            raise StateError(
                f"{settings.state_dir}: the event was paused from its console, and the config "
                "has no mqtt.operators to resume it: add them, run, and send `tcecd ctl resume`"
            )
    except BaseException:
        await player.aclose()
        raise
    store = opened.store
    stream = EventStream()
    pgn = PgnFile(
        settings.pgn_path,
        crash_hook=(lambda tag: crash.hit(f"mid-pgn-write:{tag}")) if crash.active else None,
        durable=settings.durable,
    )
    recorder = Recorder(
        store, pgn, stream, opened.state, strikes_max=settings.strikes_max, crash=crash,
        outbox_keys=store.outbox_keys(),
    )  # fmt: skip
    runner = EventRunner(
        settings, fmt, recorder, player, openings=opened.openings, log=log, crash=crash
    )
    player.use_engine_groups(opened.engine_groups)
    _add_sinks(stream, settings, fmt, recorder, log, opened.engine_groups)
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

    def first_stop(what: str, **why: str) -> None:
        # The first SIGINT/SIGTERM, or the console's `stop`.
        abort = settings.on_signal == "abort"
        log.warning(f"{what}: stopping " + ("now" if abort else "after the current game"),
                    **why)
        runner.request_stop(abort=abort)
        if not abort and settings.shutdown_grace_s is not None:
            grace_timer.append(loop.call_later(settings.shutdown_grace_s, on_grace_over))

    def on_signal(signum: int) -> None:
        signals_seen[0] += 1
        name = signal.Signals(signum).name
        if signals_seen[0] == 1:
            first_stop("signal received", signal=name)
        else:
            log.warning("second signal: aborting at once", signal=name)
            abort_now()

    def console_stop() -> None:
        if signals_seen[0] == 0 and not runner.stop_requested():
            first_stop("console command")

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
    complete = False
    try:
        async with contextlib.AsyncExitStack() as stack:
            # What libraries start for the event (the forecast's workers) carries the
            # event's mark: the next start reaps it if it outlived us (tcecd.runner.reaper).
            stack.enter_context(helper_environment(opened.engine_groups))
            mqtt = settings.mqtt
            if mqtt is not None and mqtt.embedded:
                from tcecd.bus.embedded import embedded_broker

                # Started before the publisher connects, stopped after it said
                # goodbye (the stack unwinds in reverse); its files under the state.
                mqtt = await stack.enter_async_context(
                    embedded_broker(mqtt, settings.state_dir / "mqtt", log=log,
                                    groups=opened.engine_groups, event=settings.event)
                )
            if mqtt is not None:
                from tcecd.bus.publisher import Publisher
                from tcecd.daemon.sinks.mqtt import MqttSink

                pub = await stack.enter_async_context(
                    Publisher(
                        mqtt,
                        event=settings.event,
                        log=log,
                        # No round paired yet: a new event (or one that died before
                        # pairing, whose retained state is all re-published): clear
                        # an earlier same-named event's retained messages first.
                        fresh_event=not opened.state.schedule,
                        # Kept in the state: a resume publishes the same run_id.
                        run_id=store.run_id(),
                        # Written in a worker thread; the store closes after the publisher.
                        on_acked=store.ack_outbox,
                    )
                )
                stream.add(MqttSink(pub, settings.event, fmt))
            if progress is not None:
                from tcecd.daemon.sinks.progress import ProgressSink

                stream.add(ProgressSink(progress))
                stack.enter_context(progress)
            for sink in sinks:
                stream.add(sink)
            try:
                await runner.start(_event_started(settings, fmt, recorder.state))
                async with contextlib.AsyncExitStack() as console:
                    if mqtt is not None and mqtt.console:
                        # The console listens while the event runs (its answers go
                        # out through the publisher, as part of the event stream).
                        from tcecd.control.console import Console
                        from tcecd.control.listener import control_listener

                        await console.enter_async_context(control_listener(
                            mqtt, pub.root, Console(runner, stop=console_stop, log=log),
                            log=log,
                        ))  # fmt: skip
                    complete = await runner.run()
            finally:
                await _close(runner, stream, complete, opened.engine_groups, log)
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
        opened.close()
    if complete:
        if not quiet:
            state = recorder.state
            table = standings_table(
                runner.final_standings, settings, state.players, state.history(),
                disqualified=state.disqualified,
            )  # fmt: skip
            print(table, file=out)
        log.info("event finished", pgn=str(settings.pgn_path))
    else:
        log.warning("event stopped; run the same command again to resume",
                    state_dir=str(settings.state_dir))  # fmt: skip
    return complete


def _event_started(settings: RunSettings, fmt: EventFormat, state: EventState) -> EventStarted:
    return EventStarted(
        event=settings.event,
        site=settings.site,
        system=fmt.name,
        double=settings.format.double,
        rounds=fmt.total_rounds(state) or 0,
        time_control=settings.rules.time_control.pgn_tag(),
        players=state.players,
        variant=settings.rules.variant,
    )


def _add_sinks(
    stream: EventStream, settings: RunSettings, fmt: EventFormat, recorder: Recorder, log: Any,
    groups: Any = None,
) -> None:  # fmt: skip
    """The daemon's own sinks: TCEC's files, forecasts, the kibitzers, the log
    (MQTT and the progress display join once they are up)."""
    if settings.json_dir is not None:
        from tcecd.bus.payloads import slugify
        from tcecd.daemon.sinks.files import KibitzerFilesSink, LiveFilesSink, TcecTablesSink

        interval_s = settings.live_interval_ms / 1000
        stream.add(TcecTablesSink(settings.json_dir, settings.event, slugify(settings.event),
                                  fmt, interval_s=interval_s))  # fmt: skip
        stream.add(LiveFilesSink(settings.json_dir, interval_s=interval_s))
        if settings.kibitzers:
            stream.add(KibitzerFilesSink(settings.json_dir, interval_s=interval_s))
    if settings.kibitzers:
        from tcecd.daemon.kibitzer import KibitzerSink

        # On this host whatever plays the games: its engines recorded with the players'.
        stream.add(KibitzerSink(settings.kibitzers, recorder.live, log=log, groups=groups))
    if settings.forecast is not None:
        from tcecd.daemon.forecast import ForecastSink

        stream.add(ForecastSink(
            settings.forecast, settings.format, fmt.total_rounds(recorder.state) or 0,
            recorder.live, log=log, workers=settings.forecast_workers,
            context=getattr(fmt, "context", None),
        ))  # fmt: skip
    stream.add(LogSink(log))


async def _close(
    runner: EventRunner, stream: EventStream, complete: bool, groups: Any, log: Any
) -> None:
    """After the run: the kibitzers' and the players' engines first (killed and
    reaped), then the sinks (files written out, the forecast's workers stopped)."""
    try:
        # The kibitzers first: the reap below would take their engines for strays.
        await stream.close_engines()
        await runner.player.aclose()
        if groups is not None:
            # Helpers that escaped their engine's process group carry its mark. (Not
            # the event's other helpers: the embedded broker still serves the goodbye.)
            killed = await asyncio.to_thread(groups.reap, helpers=False)
            if killed:
                log.warning("stray engine processes killed", pids=killed)
    finally:
        await stream.aclose(complete=complete)


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
    """Synchronous entry point for the CLI: the exit code (0: finished, or
    stopped cleanly by a signal and resumable)."""
    eventloop.run(run_event_async(settings, out=out, progress=progress))
    return 0
