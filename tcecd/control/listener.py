"""The console's ear: one MQTT subscription to the event's ``control`` topic.

:func:`control_listener` is an async context manager the daemon enters once
its publisher is up (the replies go out through the publisher, as part of the
event stream) and leaves before it. It owns one task (``mqtt-control``) with
its own connection, as the daemon's account, subscribed at QoS 1 to
``<prefix>/<event>/control``; it hands each message, in order, to the
console (:class:`~tcecd.control.console.Console`), which never raises for a
bad command. A clean session: commands sent while the daemon is down are not
kept for it (the operator's ``tcecd ctl`` times out: nothing was applied).
Lost connections are retried with a jittered back-off, as the publisher does.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import aiomqtt

from tcecd.bus.reaping import cancel_and_reap
from tcecd.bus.settings import MqttSettings
from tcecd.control.console import Console


@contextlib.asynccontextmanager
async def control_listener(
    settings: MqttSettings, root: str, console: Console, *, log: Any
) -> AsyncIterator[asyncio.Task[None]]:
    """Listen for commands on ``<root>/control`` while the ``with`` block runs."""
    task = asyncio.create_task(_listen(settings, root, console, log), name="mqtt-control")
    try:
        yield task
    finally:
        await cancel_and_reap(task)  # again until it ends (a lost cancellation)


async def _listen(settings: MqttSettings, root: str, console: Console, log: Any) -> None:
    topic = f"{root}/control"
    ident = f"{settings.client_id or 'tcecd'}-control-{uuid.uuid4().hex[:8]}"
    ssl = await asyncio.to_thread(settings.ssl_context)
    delay, warned, connected = 0.5, False, False
    while True:
        try:
            async with aiomqtt.Client(
                settings.host, settings.port, username=settings.username,
                password=settings.password, identifier=ident, tls_context=ssl,
                tls_insecure=settings.tls_insecure if ssl is not None else None,
                timeout=5, keepalive=15, clean_session=True,
            ) as client:  # fmt: skip
                await client.subscribe(topic, qos=1)
                if warned or not connected:
                    log.info("console listening", topic=topic)
                connected, warned, delay = True, False, 0.5
                async for message in client.messages:
                    payload = message.payload if isinstance(message.payload, bytes) else b""
                    try:
                        await console.handle(payload, retained=bool(message.retain))
                    except Exception:
                        # The store refused the write (a full disk...): nothing was
                        # applied or answered; the operator's ctl times out.
                        log.exception("console command not recorded")
        except aiomqtt.MqttError as exc:
            if not warned:
                warned = True
                log.warning("console: mqtt broker unreachable; retrying", error=str(exc))
        await asyncio.sleep(delay * random.uniform(0.5, 1.0))
        delay = min(delay * 2, 30.0)
