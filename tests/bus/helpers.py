"""Test helpers for the bus tests: a reconnecting MQTT subscriber, and the bus's
logger with a reader for what ``structlog.testing.capture_logs()`` caught of it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import uuid
from collections.abc import Callable, MutableMapping, Sequence
from typing import Any

import aiomqtt
import structlog


def bus_log() -> Any:
    """The logger the daemon hands the bus, for the functions that take one; a test
    reads what it logged with ``structlog.testing.capture_logs()``."""
    return structlog.get_logger("tcecd.bus")


def logged(entries: Sequence[MutableMapping[str, Any]], level: str | None = None) -> list[str]:
    """The events of ``capture_logs()`` entries, in order (only ``level``'s if given)."""
    return [e["event"] for e in entries if level is None or e["log_level"] == level]


class Collector:
    """Subscribes to ``topic`` and keeps every message it receives, reconnecting
    whenever the broker goes away (as a real viewer would). With ``identifier``
    and ``clean_session=False`` it is a persistent subscriber: the broker keeps
    its QoS 1 messages while it is away."""

    def __init__(self, host: str, port: int, topic: str = "tcecd/#", *,
                 username: str | None = None, password: str | None = None,
                 tls_context: ssl.SSLContext | None = None, identifier: str | None = None,
                 clean_session: bool | None = None, transport: str = "tcp") -> None:
        self.host, self.port, self.topic = host, port, topic
        self.kw: dict[str, Any] = {"username": username, "password": password,
                                   "tls_context": tls_context, "identifier": identifier,
                                   "clean_session": clean_session, "transport": transport}
        self.got: list[tuple[str, bytes, bool]] = []
        self.subscriptions = 0
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            try:
                async with aiomqtt.Client(self.host, self.port, timeout=3, **self.kw) as c:
                    await c.subscribe(self.topic, qos=1)
                    self.subscriptions += 1
                    self._changed.set()
                    async for m in c.messages:
                        payload = m.payload if isinstance(m.payload, bytes) else b""
                        self.got.append((str(m.topic), payload, bool(m.retain)))
                        self._changed.set()
            except aiomqtt.MqttError:
                await asyncio.sleep(0.05)

    async def __aenter__(self) -> Collector:
        self._task = asyncio.create_task(self._run(), name="collector")
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def wait_until(self, predicate: Callable[[Collector], bool],
                         limit_s: float = 30.0) -> None:
        """Wait until ``predicate(self)`` holds (``limit_s`` only guards against hangs)."""
        async with asyncio.timeout(limit_s):
            while not predicate(self):
                self._changed.clear()
                await self._changed.wait()

    def docs(self, suffix: str) -> list[Any]:
        """Decoded non-empty payloads of topics ending with ``suffix``, in arrival order."""
        return [json.loads(p) for t, p, _ in self.got if t.endswith(suffix) and p]

    def end_games(self) -> set[str]:
        return {d["game"] for t, p, _ in self.got if t.endswith("/end") and p
                for d in [json.loads(p)]}

    def last(self, suffix: str) -> Any:
        docs = self.docs(suffix)
        return docs[-1] if docs else None


async def retained(host: str, port: int, flt: str = "tcecd/#", *, username: str | None = None,
                   password: str | None = None, marker: str | None = None) -> dict[str, bytes]:
    """What a subscriber joining now receives as retained: topic -> payload
    (the end of the burst found with a marker, as ``tcecd watch --once`` does;
    ``username``/``password``/``marker``: an account and a topic it may publish)."""
    marker = marker or f"probe/{uuid.uuid4().hex}"
    got: dict[str, bytes] = {}
    async with aiomqtt.Client(host, port, timeout=5, username=username,
                              password=password) as c:
        await c.subscribe(flt, qos=1)
        await c.subscribe(marker, qos=1)
        await c.publish(marker, b"x", qos=1)
        async with asyncio.timeout(20):
            async for m in c.messages:
                if str(m.topic) == marker:
                    break
                if m.retain:
                    got[str(m.topic)] = m.payload if isinstance(m.payload, bytes) else b""
    return got
