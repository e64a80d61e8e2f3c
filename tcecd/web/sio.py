"""TCEC's viewer's live feed: its socket.io endpoint, hardened for strangers.

TCEC's viewer (tcecgui) speaks socket.io-client 2.x, i.e. socket.io protocol
4 over Engine.IO 3; only python-socketio 4.x / python-engineio 3.x serve that
in Python, and those lines are abandoned. They come with the optional extra
``tcecd[tcec-viewer]``; without them ``import tcecd.web.sio`` fails with
ImportError and ``tcecd web`` serves the page (and TCEC's viewer files)
without the live feed. Everything tcecd needs of them is here, so that the
rest of ``tcecd web`` never touches their API or their privates:

* **Only what the viewer sends is read.** It emits a few text events
  (``getusers``, ``room``, ``noroom``, ``vote``) on the root namespace and never
  a binary packet. A binary message, a packet that announces binary
  attachments (types 5 and 6), a packet for another namespace or one larger
  than :data:`MAX_MESSAGE` ends its session (and closes its websocket) at
  once: 4.x keeps a partial
  binary packet per session for as long as its attachments take to arrive
  (unbounded, and kept after a disconnect), and a namespace per name asked.
* **Per-session state is freed on disconnect**: the partial packet, the
  environ, the manager's callbacks, and the Engine.IO socket itself (3.x
  closes a timed-out socket but keeps it in its table until its client
  polls again, i.e. for ever).
* **Sessions are capped and must stay alive.** At most ``max_sessions`` at
  once (the next handshake is refused with HTTP 401). A polling session must
  keep polling (a real one always has a request waiting: the server answers
  it when there is something to send); one with no request for
  :data:`POLL_GAP_S` is dropped, and only sessions that made a request since
  their handshake count as viewers (a handshake alone is not one). A session
  whose queue holds more than :data:`QUEUE_LIMIT` packets (its client reads
  nothing) is dropped too.
* **One encoding per push**: a document is serialised once and the same text
  queued for every session (4.x serialises it once per session).
* A manager whose broadcast works on Python 3.11+ (4.x hands ``asyncio.wait``
  bare coroutines, which 3.11 refuses).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import socketio
from aiohttp import web
from engineio import packet as eio_packet
from engineio.async_drivers import aiohttp as eio_aiohttp

#: A session's queue beyond this many packets: its client reads nothing; dropped.
QUEUE_LIMIT = 256
#: A polling session without a request for this long has stopped polling: dropped.
POLL_GAP_S = 10.0
#: The largest message a viewer may send (its events are a few dozen bytes).
MAX_MESSAGE = 4096
#: Engine.IO timings announced to the client (it pings every interval); 3.x's
#: defaults. The server also waits at most the timeout for a websocket's next
#: frame, or with a long poll's answer, so it must exceed the interval.
PING_INTERVAL_S = 25
PING_TIMEOUT_S = 60
#: How often sessions are looked over.
SWEEP_S = 1.0


def encode_event(event: str, data: Any) -> str:
    """A socket.io EVENT packet (protocol 4) carrying ``data``, as text."""
    return "2" + json.dumps([event, data], separators=(",", ":"), ensure_ascii=False)


class _Manager(socketio.AsyncManager):  # type: ignore[misc]
    """4.x's client manager, its broadcast fit for Python 3.11+ (see the module)."""

    async def emit(self, event: str, data: Any, namespace: str, room: str | None = None,
                   skip_sid: Any = None, callback: Any = None, **kwargs: Any) -> None:
        if namespace not in self.rooms or room not in self.rooms[namespace]:
            return
        skip = skip_sid if isinstance(skip_sid, list) else [skip_sid]
        sends = []
        for sid in list(self.get_participants(namespace, room)):
            if sid in skip:
                continue
            ack = self._generate_ack_id(sid, namespace, callback) if callback else None
            sends.append(self.server._emit_internal(sid, event, data, namespace, ack))
        await asyncio.gather(*sends)


class _Server(socketio.AsyncServer):  # type: ignore[misc]
    """4.x's server, reading only what TCEC's viewer sends (see the module)."""

    feed: ViewerSockets

    async def _handle_eio_message(self, sid: str, data: Any) -> None:
        if (not isinstance(data, str) or len(data) > MAX_MESSAGE
                or data[:1] not in ("0", "1", "2", "3") or data[1:2] == "/"):
            self.feed.refused += 1
            await self.feed.drop(sid)
            return
        try:
            await super()._handle_eio_message(sid, data)
        except ValueError:  # a packet that does not decode
            self.feed.refused += 1
            await self.feed.drop(sid)

    async def _handle_eio_disconnect(self, sid: str) -> None:
        await super()._handle_eio_disconnect(sid)
        self.feed.forget(sid)


class _WebSocket(eio_aiohttp.WebSocket):  # type: ignore[misc]
    """3.x's aiohttp websocket, with frames bounded to :data:`MAX_MESSAGE` (aiohttp
    closes the connection on a larger one) and known by session, so that a
    dropped session's socket is closed at once."""

    feed: ViewerSockets

    async def __call__(self, environ: dict[str, Any]) -> web.WebSocketResponse:
        request = environ["aiohttp.request"]
        self._sock = web.WebSocketResponse(max_msg_size=MAX_MESSAGE)
        await self._sock.prepare(request)
        self.environ = environ
        sid = self.handler.__self__.sid  # the Engine.IO socket this one carries
        self.feed.websockets[sid] = self
        try:
            await self.handler(self)
        finally:
            self.feed.websockets.pop(sid, None)
        return self._sock


class ViewerSockets:
    """The socket.io endpoint TCEC's viewer connects to; see the module docstring.

    ``on_connect(sid)`` is awaited when a viewer connects (to send it the
    current documents); ``on_event(sid, name)`` when it emits ``getusers``.
    :meth:`run` looks over the sessions until cancelled."""

    def __init__(self, on_connect: Callable[[str], Awaitable[None]], *,
                 max_sessions: int = 1000) -> None:  # fmt: skip
        self.max_sessions = max_sessions
        self.on_connect = on_connect
        self.sio = _Server(async_mode="aiohttp", cors_allowed_origins="*",
                           client_manager=_Manager(), logger=False, engineio_logger=False,
                           async_handlers=False, ping_interval=PING_INTERVAL_S,
                           ping_timeout=PING_TIMEOUT_S, max_http_buffer_size=MAX_MESSAGE,
                           http_compression=False, cookie=None)
        self.sio.feed = self
        self.eio = self.sio.eio
        websocket = type("_FeedWebSocket", (_WebSocket,), {"feed": self})
        self.eio._async = {**self.eio._async, "websocket": websocket}
        #: sid -> its websocket, while it has one
        self.websockets: dict[str, _WebSocket] = {}
        self.sio.on("connect", self._connect)
        self.sio.on("getusers", self._getusers)
        for name in ("room", "noroom", "vote"):
            self.sio.on(name, self._ignore)
        #: sid -> requests in flight (a long poll waiting, a websocket open).
        self._busy: dict[str, int] = {}
        #: sid -> when its handshake or its last request ended (monotonic seconds).
        self._idle_since: dict[str, float] = {}
        #: sessions that made a request since their handshake (the viewers).
        self._active: set[str] = set()
        #: messages refused (binary, attachments, other namespaces, too large).
        self.refused = 0
        #: sessions dropped (stopped polling, queue full, refused messages).
        self.dropped = 0

    def attach(self, app: web.Application, path: str = "/socket.io/") -> None:
        for method in ("GET", "POST", "OPTIONS"):
            app.router.add_route(method, path, self._handle)

    @property
    def viewers(self) -> int:
        """Viewers connected: sessions that made a request since their handshake."""
        return len(self._active)

    @property
    def sessions(self) -> int:
        """Engine.IO sessions held (viewers, fresh handshakes, closing ones)."""
        return len(self.eio.sockets)

    # -- HTTP ---------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        sid = request.query.get("sid")
        if sid is None:
            if request.method == "GET" and len(self.eio.sockets) >= self.max_sessions:
                raise web.HTTPServiceUnavailable(text="too many viewers")
            response: web.StreamResponse = await self.sio.handle_request(request)
            return response
        if sid not in self.eio.sockets:
            response = await self.sio.handle_request(request)  # its "Invalid session"
            return response
        if (request.content_length or 0) > MAX_MESSAGE:
            # (3.x would disconnect the session and wait for its client to read
            # the CLOSE packet, holding this request until then.)
            self.refused += 1
            await self.drop(sid)
            raise web.HTTPRequestEntityTooLarge(max_size=MAX_MESSAGE,
                                                actual_size=request.content_length or 0)
        self._active.add(sid)
        self._busy[sid] = self._busy.get(sid, 0) + 1
        try:
            response = await self.sio.handle_request(request)
            return response
        finally:
            left = self._busy.get(sid, 1) - 1
            if left > 0:
                self._busy[sid] = left
            else:
                self._busy.pop(sid, None)
                if sid in self.eio.sockets:
                    self._idle_since[sid] = time.monotonic()

    # -- sending ------------------------------------------------------------------------

    async def send(self, text: str, to: str | None = None) -> None:
        """Queue an encoded socket.io packet (:func:`encode_event`) for one
        session, or for every connected one; the same text object for all."""
        sids = [to] if to is not None else list(self._connected())
        for sid in sids:
            sock = self.eio.sockets.get(sid)
            if sock is None or sock.closed or sock.closing:
                continue
            if sock.queue.qsize() >= QUEUE_LIMIT:
                await self.drop(sid)
                continue
            await sock.send(eio_packet.Packet(eio_packet.MESSAGE, data=text, binary=False))

    def _connected(self) -> list[str]:
        rooms = self.sio.manager.rooms.get("/", {})
        return list(rooms.get(None, {}))

    # -- sessions -----------------------------------------------------------------------

    async def _connect(self, sid: str, environ: Any) -> None:
        self._idle_since[sid] = time.monotonic()
        if "transport=websocket" in str(environ.get("QUERY_STRING", "")):
            # A websocket from the start: its handshake request is the session
            # (it holds until the socket closes, which forgets it).
            self._busy[sid] = 1
            self._active.add(sid)
        await self.on_connect(sid)

    async def _getusers(self, sid: str, *args: Any) -> None:
        await self.send(encode_event("users", {"count": self.viewers}), to=sid)

    async def _ignore(self, sid: str, *args: Any) -> None:
        return None

    async def drop(self, sid: str) -> None:
        """End a session now, without waiting for its client."""
        self.dropped += 1
        sock = self.eio.sockets.pop(sid, None)
        if sock is not None and not sock.closed:
            # abort: no CLOSE packet queued for a client that may never read it
            await sock.close(wait=False, abort=True)
            sock.queue.put_nowait(None)  # ends a waiting long poll or websocket writer
        ws = self.websockets.pop(sid, None)
        if ws is not None:
            await ws.close()
        self.forget(sid)

    def forget(self, sid: str) -> None:
        """Free what 4.x and this class keep per session."""
        self.sio._binary_packet.pop(sid, None)
        self.sio.environ.pop(sid, None)
        manager = self.sio.manager
        manager.callbacks.pop(sid, None)
        for namespace in list(manager.pending_disconnect):
            pending = manager.pending_disconnect[namespace]
            if sid in pending:
                pending.remove(sid)
            if not pending:
                del manager.pending_disconnect[namespace]
        self._busy.pop(sid, None)
        self._idle_since.pop(sid, None)
        self._active.discard(sid)

    async def sweep(self, now: float | None = None) -> None:
        """Sessions closed (kept by 3.x until their client polls again) are
        removed; those that stopped polling are closed and removed."""
        now = time.monotonic() if now is None else now
        for sid, sock in list(self.eio.sockets.items()):
            if sock.closed:
                self.eio.sockets.pop(sid, None)
                self.forget(sid)
            elif (sid not in self._busy
                  and now - self._idle_since.get(sid, now) > POLL_GAP_S):
                await self.drop(sid)

    async def run(self) -> None:
        """Look over the sessions every :data:`SWEEP_S` until cancelled."""
        while True:
            await asyncio.sleep(SWEEP_S)
            await self.sweep()
