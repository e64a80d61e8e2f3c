"""``tcecd watch``: show a live event from MQTT in the terminal, redrawn in place.

Subscribes to ``<prefix>/#`` (or ``<prefix>/<event>/#``), feeds every message to
the pure view-model (:mod:`tcecd.watch.model`) and redraws a text frame
(:mod:`tcecd.watch.render`) at most ten times a second. When the broker goes
away it says so on the frame and reconnects. ``--once`` prints one frame after
the retained state has arrived and exits (for scripts and tests).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid

import aiomqtt

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
#: ``--once`` without a barrier: the retained burst is over after this much silence.
_QUIET_S = 1.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mqtt", metavar="URL", default="mqtt://127.0.0.1:1883",
                        help="broker URL: mqtt://[user:pass@]host[:port] or mqtts://... "
                             "(default: %(default)s)")
    parser.add_argument("--prefix", default="tcecd",
                        help="topic prefix the daemon publishes under (default: %(default)s)")
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
    settings = MqttSettings.from_url(args.mqtt, topic_prefix=args.prefix, tls_ca=args.tls_ca)
    settings = with_password(settings, command_line_password(args, os.environ))
    if args.once:
        frame = asyncio.run(_once(settings, args.event, args.wait))
        sys.stdout.write(frame)
        return 0
    out = sys.stdout
    tty = out.isatty()
    try:
        if tty:
            out.write("\x1b[?25l")  # hide the cursor while redrawing
        asyncio.run(_live(settings, args.event, tty))
    finally:
        if tty:
            out.write("\x1b[?25h\n")
            out.flush()
    return 0


def _client(settings: MqttSettings, identifier: str) -> aiomqtt.Client:
    ctx = settings.ssl_context()
    return aiomqtt.Client(settings.host, settings.port, username=settings.username,
                          password=settings.password, identifier=identifier, tls_context=ctx,
                          tls_insecure=settings.tls_insecure if ctx is not None else None,
                          timeout=5)


def _filter(prefix: str, event: str | None) -> str:
    return f"{prefix}/{event}/#" if event else f"{prefix}/#"


async def _once(settings: MqttSettings, event: str | None, wait_s: float) -> str:
    """Connect, subscribe, and return one frame once the retained messages are in.

    The end of the retained burst is found with a barrier: after subscribing,
    the viewer publishes one message to its own topic ``<prefix>/_watch/<id>``;
    brokers send the retained messages of a subscription before anything
    published later on, so when the barrier comes back everything retained has
    arrived. If publishing is not allowed (a read-only viewer account), a
    quiet second after the last message, or ``wait_s`` in all, ends the wait.
    """
    ident = f"tcecd-watch-{uuid.uuid4().hex[:12]}"
    barrier = f"{settings.topic_prefix}/_watch/{ident}"
    watcher = Watcher(settings.topic_prefix, event)
    try:
        async with _client(settings, ident) as client:
            await client.subscribe(_filter(settings.topic_prefix, event), qos=1)
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
                watcher.apply(topic, m.payload if isinstance(m.payload, bytes) else b"")
    except aiomqtt.MqttError as exc:
        raise BusError(f"cannot watch {settings.redacted_url()}: {exc}") from None
    return render(watcher.selected, source=settings.redacted_url())


async def _live(settings: MqttSettings, event: str | None, tty: bool) -> None:
    """Watch until interrupted, reconnecting whenever the broker goes away."""
    url = settings.redacted_url()
    watcher = Watcher(settings.topic_prefix, event)
    dirty = asyncio.Event()
    note = ""

    def draw() -> None:
        frame = render(watcher.selected, source=url)
        if note:
            frame += f"\n{note}\n"
        out = sys.stdout
        if tty:
            rows = os.get_terminal_size().lines if out.isatty() else 50
            lines = frame.splitlines()[: max(rows - 1, 1)]
            out.write("\x1b[H" + "".join(f"{line}\x1b[K\n" for line in lines) + "\x1b[J")
        else:
            out.write(frame + "\n")
        out.flush()

    async def drawer() -> None:
        while True:
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
                    await client.subscribe(_filter(settings.topic_prefix, event), qos=1)
                    note, delay = "", 0.5
                    dirty.set()
                    async for m in client.messages:
                        payload = m.payload if isinstance(m.payload, bytes) else b""
                        if watcher.apply(str(m.topic), payload):
                            dirty.set()
            except aiomqtt.MqttError as exc:
                note = f"(broker {url} unreachable: {exc}; retrying)"
                dirty.set()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    dirty.set()
    async with asyncio.TaskGroup() as tg:
        tg.create_task(drawer(), name="watch-draw")
        tg.create_task(reader(), name="watch-read")
