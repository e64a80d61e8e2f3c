"""``tcecd watch``: show a live event from MQTT in the terminal, redrawn in place.

Subscribes to ``#`` and finds the events from their retained ``event``
documents (``--prefix`` fixes the topic prefix instead: ``<prefix>/#``, or
``<prefix>/<event>/#``), feeds every message to the pure view-model
(:mod:`tcecd.watch.model`) and redraws at most ten times a second: on a
terminal a rich screen (:mod:`tcecd.watch.screen`) whose running clock ticks,
elsewhere plain text frames (:mod:`tcecd.watch.render`). When the broker goes
away it says so on the frame and reconnects. ``--once`` prints one plain frame
after the retained state has arrived and exits (for scripts and tests).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import time
import uuid

import aiomqtt

from tcecd import eventloop
from tcecd.bus.reaping import cancelling, stop_when
from tcecd.bus.settings import MqttSettings
from tcecd.commands.mqtt_password import (
    add_password_file_option,
    command_line_password,
    with_password,
)
from tcecd.errors import BusError
from tcecd.watch.model import Watcher
from tcecd.watch.render import render

HELP = "watch a live event over MQTT in the terminal"

#: Redraw at most this often (seconds).
_FRAME_S = 0.1
#: How long Ctrl-C waits for the reader and the drawer before exiting without them.
_STOP_S = 5.0
#: ``--once`` without a barrier: the retained burst is over after this much silence.
_QUIET_S = 1.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mqtt", metavar="URL", default="mqtt://127.0.0.1:1883",
                        help="broker URL: mqtt://[user:pass@]host[:port] or mqtts://... "
                             "(default: %(default)s)")
    parser.add_argument("--prefix", default=None,
                        help="topic prefix the daemon publishes under (default: found from "
                             "the events' retained event documents)")
    parser.add_argument("--event", metavar="SLUG",
                        help="show this event (topic slug, e.g. tcec-swiss-7); default: the "
                             "event with the latest message")
    parser.add_argument("--tls-ca", metavar="FILE", help="CA certificate for mqtts://")
    add_password_file_option(parser)
    parser.add_argument("--once", action="store_true",
                        help="print one frame once the retained state has arrived, then exit")
    parser.add_argument("--wait", type=float, default=5.0, metavar="SECONDS",
                        help="with --once: longest wait for the retained state "
                             "(default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    settings = MqttSettings.from_url(args.mqtt, topic_prefix=args.prefix or "tcecd",
                                     tls_ca=args.tls_ca)
    settings = with_password(settings, command_line_password(args, os.environ))
    warning = settings.plain_password_warning()
    if warning is not None:
        print(f"tcecd watch: warning: {warning}", file=sys.stderr, flush=True)
    prefix: str | None = settings.topic_prefix if args.prefix else None
    if args.once:
        frame = eventloop.run(_once(settings, prefix, args.event, args.wait))
        sys.stdout.write(frame)
        return 0
    eventloop.run(_live(settings, prefix, args.event, sys.stdout.isatty()))
    return 0


def _client(settings: MqttSettings, identifier: str) -> aiomqtt.Client:
    ctx = settings.ssl_context()
    return aiomqtt.Client(settings.host, settings.port, username=settings.username,
                          password=settings.password, identifier=identifier, tls_context=ctx,
                          tls_insecure=settings.tls_insecure if ctx is not None else None,
                          timeout=5)


def _filter(prefix: str | None, event: str | None) -> str:
    if prefix is None:
        return "#"  # the events' roots are found from their event documents
    return f"{prefix}/{event}/#" if event else f"{prefix}/#"


def _apply(watcher: Watcher, m: aiomqtt.Message) -> bool:
    payload = m.payload if isinstance(m.payload, bytes) else b""
    return watcher.apply(str(m.topic), payload, at=time.time(), retained=bool(m.retain))


async def _once(settings: MqttSettings, prefix: str | None, event: str | None,
                wait_s: float) -> str:
    """Connect, subscribe, and return one frame once the retained messages are in.

    The end of the retained burst is found with a barrier: after subscribing,
    the viewer publishes one message to its own topic ``<prefix>/_watch/<id>``
    (prefix ``tcecd`` when none is given);
    brokers send the retained messages of a subscription before anything
    published later on, so when the barrier comes back everything retained has
    arrived. If publishing is not allowed (a read-only viewer account), a
    quiet second after the last message, or ``wait_s`` in all, ends the wait.
    """
    ident = f"tcecd-watch-{uuid.uuid4().hex[:12]}"
    barrier = f"{settings.topic_prefix}/_watch/{ident}"
    watcher = Watcher(prefix, event)
    try:
        async with _client(settings, ident) as client:
            await client.subscribe(_filter(prefix, event), qos=1)
            await client.subscribe(barrier, qos=1)
            await client.publish(barrier, b"barrier", qos=1)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + wait_s
            messages = aiter(client.messages)
            got_any = False
            while (remaining := deadline - loop.time()) > 0:
                step = min(remaining, _QUIET_S) if got_any else remaining
                try:
                    async with asyncio.timeout(step):
                        m = await anext(messages)
                except TimeoutError:
                    break
                topic = str(m.topic)
                if topic == barrier:
                    break
                got_any = True
                _apply(watcher, m)
    except aiomqtt.MqttError as exc:
        raise BusError(f"cannot watch {settings.redacted_url()}: {exc}") from None
    return render(watcher.selected, source=settings.redacted_url())


async def _live(settings: MqttSettings, prefix: str | None, event: str | None,
                tty: bool) -> None:
    """Watch until interrupted, reconnecting whenever the broker goes away."""
    url = settings.redacted_url()
    watcher = Watcher(prefix, event)
    dirty = asyncio.Event()
    note = ""
    live = None
    if tty:
        from rich.console import Console
        from rich.live import Live

        live = Live(console=Console(), auto_refresh=False, redirect_stderr=False,
                    vertical_overflow="crop")

    def ticking() -> bool:
        view = watcher.selected
        g = view.current_game if view is not None else None
        return bool(g is not None and g.result is None and view is not None
                    and view.status == "online")

    def draw() -> None:
        if live is not None:
            from tcecd.watch.screen import screen

            live.update(screen(watcher.selected, source=url, now=time.time(), note=note),
                        refresh=True)
            return
        frame = render(watcher.selected, source=url)
        if note:
            frame += f"\n{note}\n"
        sys.stdout.write(frame + "\n")
        sys.stdout.flush()

    async def drawer() -> None:
        while True:
            if live is not None and ticking():
                # The running clock ticks: redraw even without news.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(_FRAME_S):
                        await dirty.wait()
            else:
                await dirty.wait()
            dirty.clear()
            draw()
            await asyncio.sleep(_FRAME_S)

    async def reader() -> None:
        nonlocal note
        delay = 0.5
        ident = f"tcecd-watch-{uuid.uuid4().hex[:12]}"
        while True:
            try:
                async with _client(settings, ident) as client:
                    await client.subscribe(_filter(prefix, event), qos=1)
                    note, delay = "", 0.5
                    dirty.set()
                    async for m in client.messages:
                        if _apply(watcher, m):
                            dirty.set()
            except aiomqtt.MqttError as exc:
                if cancelling():  # aiomqtt's __aexit__ turned our cancellation into this
                    raise asyncio.CancelledError from exc
                note = f"(broker {url} unreachable: {exc}; retrying)"
                dirty.set()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    # Ctrl-C: this task stops the reader and the drawer itself, cancelling again
    # what a single cancellation does not stop (aiomqtt on Python 3.11,
    # tcecd.bus.reaping), and gives up on them after a bound; then it exits 130
    # with "tcecd: interrupted", as before.
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop.set)
    dirty.set()
    with live if live is not None else contextlib.nullcontext():
        tasks = [asyncio.create_task(drawer(), name="watch-draw"),
                 asyncio.create_task(reader(), name="watch-read")]
        if not await stop_when(stop, tasks, _STOP_S):
            print(f"tcecd watch: a task did not stop within {_STOP_S:g} s", file=sys.stderr,
                  flush=True)
            os._exit(130)  # the bounded shutdown's last resort
    if stop.is_set():
        raise KeyboardInterrupt
