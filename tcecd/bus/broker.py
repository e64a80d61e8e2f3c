"""A small in-process MQTT 3.1.1 broker, so the demo's live view works with no broker installed.

``mqtt: embedded`` in an event config makes the publisher start one of these on
the configured host and port; ``tcecd watch`` then connects to it like to any
broker. It implements what tcecd and ordinary viewers need, over plain TCP:

* CONNECT/CONNACK (clean sessions; optional username/password check),
  PINGREQ/PINGRESP, DISCONNECT, keep-alive timeout (1.5 x the client's value);
* PUBLISH at QoS 0 and 1 (PUBACK), QoS 2 accepted (PUBREC/PUBREL/PUBCOMP) and
  delivered at most at QoS 1; retained messages (an empty payload clears one);
* SUBSCRIBE/SUBACK with ``+`` and ``#`` wildcards (granted QoS <= 1) and the
  retained messages of each new subscription; UNSUBSCRIBE/UNSUBACK;
* the Last Will, published when a connection ends without DISCONNECT.

Not implemented (not needed by a single-host demo): persistent sessions,
re-delivery of unacknowledged QoS 1 messages after a reconnect, MQTT 5, TLS,
websockets. A subscriber that cannot keep up (more than
:data:`MAX_WRITE_BUFFER` bytes pending) is disconnected rather than letting it
stall the broker; it reconnects and gets the retained state again.

For production, use Mosquitto (docs/events.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import struct
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import structlog

#: Largest packet accepted (a whole-event PGN fits easily).
MAX_PACKET = 64 * 1024 * 1024
#: A subscriber with more than this many bytes waiting to be sent is disconnected.
MAX_WRITE_BUFFER = 32 * 1024 * 1024

CONNECT, CONNACK, PUBLISH, PUBACK, PUBREC, PUBREL, PUBCOMP = 1, 2, 3, 4, 5, 6, 7
SUBSCRIBE, SUBACK, UNSUBSCRIBE, UNSUBACK, PINGREQ, PINGRESP, DISCONNECT = (
    8, 9, 10, 11, 12, 13, 14)


class ProtocolError(Exception):
    """The peer broke MQTT 3.1.1; the connection is closed."""


def valid_filter(flt: str) -> bool:
    """A subscription filter: ``#`` only as the whole last level, ``+`` only as a whole level."""
    if not flt or "\0" in flt:
        return False
    levels = flt.split("/")
    for i, level in enumerate(levels):
        if "#" in level and (level != "#" or i != len(levels) - 1):
            return False
        if "+" in level and level != "+":
            return False
    return True


def topic_matches(flt: str, topic: str) -> bool:
    """MQTT 3.1.1 section 4.7 matching (``a/#`` also matches ``a``; wildcards
    at the first level do not match ``$``-topics)."""
    if topic.startswith("$") and flt[:1] in ("+", "#"):
        return False
    f_levels, t_levels = flt.split("/"), topic.split("/")
    for i, f in enumerate(f_levels):
        if f == "#":
            return True
        if i >= len(t_levels):
            return False
        if f != "+" and f != t_levels[i]:
            return False
    return len(f_levels) == len(t_levels)


def _encode_length(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _packet(first: int, body: bytes) -> bytes:
    return bytes([first]) + _encode_length(len(body)) + body


def _string(s: str) -> bytes:
    data = s.encode()
    return struct.pack("!H", len(data)) + data


class _Body:
    """A cursor over a packet's variable header and payload."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def u8(self) -> int:
        if self.pos + 1 > len(self.data):
            raise ProtocolError("packet too short")
        self.pos += 1
        return self.data[self.pos - 1]

    def u16(self) -> int:
        if self.pos + 2 > len(self.data):
            raise ProtocolError("packet too short")
        (v,) = struct.unpack_from("!H", self.data, self.pos)
        self.pos += 2
        return int(v)

    def blob(self) -> bytes:
        n = self.u16()
        if self.pos + n > len(self.data):
            raise ProtocolError("packet too short")
        self.pos += n
        return self.data[self.pos - n:self.pos]

    def text(self) -> str:
        try:
            return self.blob().decode()
        except UnicodeDecodeError:
            raise ProtocolError("invalid UTF-8 string") from None

    def rest(self) -> bytes:
        return self.data[self.pos:]

    @property
    def done(self) -> bool:
        return self.pos >= len(self.data)


@dataclass(frozen=True, slots=True)
class _Will:
    topic: str
    payload: bytes
    qos: int
    retain: bool


class _Session:
    """One client connection."""

    def __init__(self, broker: EmbeddedBroker, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.broker, self.reader, self.writer = broker, reader, writer
        self.client_id = ""
        self.subscriptions: dict[str, int] = {}
        self.will: _Will | None = None
        self.keepalive = 0
        self._ids = itertools.cycle(range(1, 65536))
        self.closed = False

    def send(self, data: bytes) -> None:
        if self.closed:
            return
        transport = self.writer.transport
        if transport.is_closing():
            self.closed = True
            return
        if transport.get_write_buffer_size() > MAX_WRITE_BUFFER:
            self.broker.log.warning("embedded broker: dropping a slow subscriber",
                                    client=self.client_id)
            self.closed = True
            transport.abort()
            return
        self.writer.write(data)

    def deliver(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        flags = (qos << 1) | (1 if retain else 0)
        body = _string(topic) + (struct.pack("!H", next(self._ids)) if qos else b"") + payload
        self.send(_packet((PUBLISH << 4) | flags, body))

    async def read_packet(self) -> tuple[int, int, bytes]:
        timeout = self.keepalive * 1.5 if self.keepalive else None
        async with asyncio.timeout(timeout):
            first = (await self.reader.readexactly(1))[0]
            length, shift = 0, 0
            for _ in range(4):
                byte = (await self.reader.readexactly(1))[0]
                length |= (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    break
            else:
                raise ProtocolError("malformed remaining length")
            if length > MAX_PACKET:
                raise ProtocolError(f"packet too large: {length} bytes")
            body = await self.reader.readexactly(length) if length else b""
        return first >> 4, first & 0x0F, body

    async def run(self) -> None:
        clean = False
        try:
            ptype, _flags, body = await self.read_packet()
            if ptype != CONNECT:
                raise ProtocolError("first packet is not CONNECT")
            if not self._connect(_Body(body)):
                return
            while True:
                ptype, flags, body = await self.read_packet()
                if ptype == DISCONNECT:
                    clean = True
                    return
                self._dispatch(ptype, flags, _Body(body))
        except (asyncio.IncompleteReadError, ConnectionError, TimeoutError, ProtocolError,
                OSError) as exc:
            if isinstance(exc, ProtocolError):
                self.broker.log.warning("embedded broker: protocol error", client=self.client_id,
                                        error=str(exc))
        finally:
            self.closed = True
            self.broker._sessions.discard(self)
            if self.broker._by_id.get(self.client_id) is self:
                del self.broker._by_id[self.client_id]
            if not clean and self.will is not None:
                w = self.will
                self.broker.route(w.topic, w.payload, w.qos, w.retain)
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()

    def _connect(self, b: _Body) -> bool:
        name, level = b.text(), b.u8()
        if (name, level) not in (("MQTT", 4), ("MQIsdp", 3)):
            self.send(_packet(CONNACK << 4, b"\x00\x01"))  # unacceptable protocol version
            return False
        flags = b.u8()
        self.keepalive = b.u16()
        client_id = b.text()
        if flags & 0x04:
            topic, payload = b.text(), b.blob()
            self.will = _Will(topic, payload, min((flags >> 3) & 0x03, 1), bool(flags & 0x20))
        username = b.text() if flags & 0x80 else None
        password = b.blob().decode(errors="replace") if flags & 0x40 else None
        users = self.broker.users
        if users is not None and (username is None or users.get(username) != password):
            self.send(_packet(CONNACK << 4, b"\x00\x04"))  # bad user name or password
            return False
        self.client_id = client_id or f"anon-{id(self):x}"
        old = self.broker._by_id.get(self.client_id)
        if old is not None:  # a client id takes over its previous connection (MQTT 3.1.2-2)
            old.closed = True
            old.writer.transport.abort()
        self.broker._by_id[self.client_id] = self
        self.send(_packet(CONNACK << 4, b"\x00\x00"))
        return True

    def _dispatch(self, ptype: int, flags: int, b: _Body) -> None:
        if ptype == PUBLISH:
            qos, retain = (flags >> 1) & 0x03, bool(flags & 0x01)
            if qos == 3:
                raise ProtocolError("PUBLISH with QoS 3")
            topic = b.text()
            if not topic or "+" in topic or "#" in topic:
                raise ProtocolError(f"invalid topic name: {topic!r}")
            pid = b.u16() if qos else 0
            self.broker.route(topic, b.rest(), min(qos, 1), retain)
            if qos == 1:
                self.send(_packet(PUBACK << 4, struct.pack("!H", pid)))
            elif qos == 2:
                self.send(_packet(PUBREC << 4, struct.pack("!H", pid)))
        elif ptype == PUBREL:
            self.send(_packet(PUBCOMP << 4, struct.pack("!H", b.u16())))
        elif ptype in (PUBACK, PUBREC, PUBCOMP):
            if ptype == PUBREC:  # we never send QoS 2, but answer politely
                self.send(_packet((PUBREL << 4) | 0x02, struct.pack("!H", b.u16())))
        elif ptype == SUBSCRIBE:
            pid = b.u16()
            granted, new = bytearray(), []
            while not b.done:
                flt, req = b.text(), b.u8() & 0x03
                if not valid_filter(flt):
                    granted.append(0x80)
                    continue
                qos = min(req, 1)
                self.subscriptions[flt] = qos
                granted.append(qos)
                new.append((flt, qos))
            if not granted:
                raise ProtocolError("SUBSCRIBE without topic filters")
            self.send(_packet(SUBACK << 4, struct.pack("!H", pid) + bytes(granted)))
            for flt, qos in new:
                for topic, (payload, rqos) in list(self.broker.retained.items()):
                    if topic_matches(flt, topic):
                        self.deliver(topic, payload, min(qos, rqos), True)
        elif ptype == UNSUBSCRIBE:
            pid = b.u16()
            while not b.done:
                self.subscriptions.pop(b.text(), None)
            self.send(_packet(UNSUBACK << 4, struct.pack("!H", pid)))
        elif ptype == PINGREQ:
            self.send(_packet(PINGRESP << 4, b""))
        else:
            raise ProtocolError(f"unexpected packet type {ptype}")


class EmbeddedBroker:
    """``async with EmbeddedBroker(host, port) as broker:`` serves MQTT 3.1.1 on
    ``broker.host:broker.port`` (``port=0``: a free port, read back from
    ``.port``). ``users`` (name -> password) turns on authentication."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *,
                 users: dict[str, str] | None = None, log: Any = None) -> None:
        self.host = host
        self.port = port
        self.users = users
        self.log: Any = log if log is not None else structlog.get_logger("tcecd.bus.broker")
        #: topic -> (payload, qos) of every retained message.
        self.retained: dict[str, tuple[bytes, int]] = {}
        self._sessions: set[_Session] = set()
        self._by_id: dict[str, _Session] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None

    def route(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        """Deliver a publication to every matching subscription (once per
        client, at the highest matching QoS) and update the retained store."""
        if retain:
            if payload:
                self.retained[topic] = (payload, qos)
            else:
                self.retained.pop(topic, None)
        for session in list(self._sessions):
            best = -1
            for flt, sub_qos in session.subscriptions.items():
                if sub_qos > best and topic_matches(flt, topic):
                    best = sub_qos
            if best >= 0:
                session.deliver(topic, payload, min(qos, best), False)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = _Session(self, reader, writer)
        self._sessions.add(session)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await session.run()
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def __aenter__(self) -> EmbeddedBroker:
        self._server = await asyncio.start_server(self._handle, self.host, self.port,
                                                  reuse_address=True)
        sock = self._server.sockets[0]
        self.port = int(sock.getsockname()[1])
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for session in list(self._sessions):
            session.will = None  # the broker is going away, not the client
            session.writer.transport.abort()
        # Aborted connections end their sessions by themselves (EOF); cancelling
        # the stream handlers instead would make asyncio log spurious errors.
        if self._tasks:
            _done, stuck = await asyncio.wait(list(self._tasks), timeout=5)
            for task in stuck:
                task.cancel()
        await server.wait_closed()
