"""The ``tcecd web`` server: one asyncio process, aiohttp for HTTP and websockets,
aiomqtt for the stream, and (with the ``tcec-viewer`` extra) python-socketio 4.x
for TCEC's viewer.

* ``/`` the live page (``static/``: HTML, JS, CSS, the vendored chessground);
* ``/ws`` the page's websocket: a snapshot on connect, then deltas
  (:mod:`tcecd.web.model`; the protocol is in docs/web.md);
* ``/live.pgn``, ``/live.json``, ``/schedule.json``, ``/crosstable.json``,
  ``/tournament.json``, ``/crash.json``, a cup's ``/Eventcrosstable.json`` and the
  kibitzers' ``/data.json``, ``/liveeval.json``, ``/data1.json``, ``/liveeval1.json``:
  TCEC's viewer files (also under ``/tcec/``, next to a TCEC viewer folder served with
  ``--viewer DIR``);
* ``/socket.io/`` the socket.io events TCEC's viewer listens to (``pgn``,
  ``schedule``, ``crosstable``, ``tournament``, ``crash``, ``bracket``, ``users``,
  ``liveeval``, ``livechart``, ``liveeval1``, ``livechart1``), protocol 4 over
  Engine.IO 3 (:mod:`tcecd.web.sio`; absent without the extra).

Nothing polls: every MQTT message is checked against its schema, once
(:mod:`tcecd.bus.inbound`; a bad one is skipped and counted), applied to the
models at once and what changed is pushed: one websocket frame made per
message and written to every page. A page that cannot keep up (128 kB it has
not taken) is disconnected; it reconnects and gets a fresh snapshot.
Strangers are bounded (:mod:`tcecd.web.http`): a cap on connections, a header
timeout, one serialised snapshot per state shared by every page and at most
one pending per page, a cap on socket.io sessions.
"""

from __future__ import annotations

import asyncio
import json
import struct
import sys
import time
import uuid
from collections.abc import Callable
from email.utils import formatdate
from pathlib import Path
from typing import Any

import aiohttp
import aiomqtt
from aiohttp import web

from tcecd.bus.settings import MqttSettings
from tcecd.web.http import (
    HEADER_TIMEOUT_S,
    CappedSite,
    ConnectionGuard,
    connection_limit,
    security_headers,
    viewer_file,
)
from tcecd.web.model import PageModel
from tcecd.web.tcec import (
    FILES,
    KIBITZER_EVENTS,
    TcecFeed,
    delta_pgn,
    end_pgn,
    end_record,
)

try:  # the optional extra tcecd[tcec-viewer]
    from tcecd.web.sio import ViewerSockets, encode_event
except ImportError:  # pragma: no cover - exercised by a subprocess test
    ViewerSockets = None  # type: ignore[assignment,misc]
    encode_event = None  # type: ignore[assignment]

STATIC = Path(__file__).parent / "static"

#: Bytes written to a page and not yet taken by its connection, beyond which
#: the page counts as stuck and is dropped (it reconnects and gets a snapshot):
#: about a hundred moves, or two snapshots of a large event.
PAGE_BUFFER = 128 * 1024
#: How often the page's server looks for the event's embedded broker while its
#: daemon has not started (a file read): steady, not backing off, so that a page
#: opened before the daemon follows the event from its first move.
EMBEDDED_POLL_S = 0.25
#: The largest message a page sends (the text ``snapshot``).
PAGE_MESSAGE_MAX = 64
#: At most one line a minute about skipped messages (after the first).
SKIP_REPORT_S = 60.0

#: Why the TCEC viewer's live feed is off, printed at start without the extra.
NO_SOCKETIO = ("TCEC viewer feed disabled: python-socketio 4.x is not installed "
               "(pip install 'tcecd[tcec-viewer]'); the page and TCEC's viewer files "
               "are served, without the viewer's live pushes")


def _client(settings: MqttSettings, identifier: str) -> aiomqtt.Client:
    ctx = settings.ssl_context()
    return aiomqtt.Client(settings.host, settings.port, username=settings.username,
                          password=settings.password, identifier=identifier, tls_context=ctx,
                          tls_insecure=settings.tls_insecure if ctx is not None else None,
                          timeout=5)


def _say(text: str) -> None:
    print(f"tcecd web: {text}", file=sys.stderr, flush=True)


def ws_frame(text: str) -> bytes:
    """``text`` as one unmasked websocket text frame, as a server sends it
    (RFC 6455, 5.2): made once per message and written as it is to every page,
    where aiohttp's ``send_str`` would frame it again for each (see _Page)."""
    data = text.encode()
    n = len(data)
    if n < 126:
        head = struct.pack("!BB", 0x81, n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x81, 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, 127, n)
    return head + data


class _Page:
    """One connected page: its websocket and the connection under it.

    What the server sends a page (snapshots, deltas, moves) is written straight
    to the connection as a ready-made frame (:func:`ws_frame`), the same bytes
    for every page, with no task or queue per page: at 1,000 pages a move costs
    one write each. aiohttp's websocket keeps the rest (the page's messages,
    pings, the close): each of its writes is a whole frame too, so frames never
    interleave. The connection's own buffer holds what the page has not taken
    yet; past :data:`PAGE_BUFFER` the page is dropped."""

    def __init__(self, ws: web.WebSocketResponse, transport: asyncio.Transport) -> None:
        self.ws = ws
        self.transport = transport
        #: the model's seq of the last snapshot sent (None: none yet)
        self.snapshot_seq: int | None = None


class WebServer:
    """See the module docstring. ``await serve()`` runs until cancelled."""

    def __init__(self, settings: MqttSettings, *, event: str | None = None,
                 host: str = "127.0.0.1", port: int = 8080, viewer: Path | None = None,
                 locate: Callable[[], MqttSettings | None] | None = None,
                 max_connections: int | None = None,
                 header_timeout_s: float = HEADER_TIMEOUT_S) -> None:  # fmt: skip
        self.settings = settings
        #: Where the broker is now (an ``mqtt: embedded`` event's moves with its
        #: daemon), asked before each connection attempt; None: ``settings``.
        self.locate = locate
        self.host, self.port = host, port
        self.viewer = viewer
        #: Connections served at once (and socket.io sessions held at once).
        self.max_connections = connection_limit(max_connections)
        self.guard = ConnectionGuard(self.max_connections)
        self.header_timeout_s = header_timeout_s
        self.model = PageModel(settings.topic_prefix, event)
        self.feeds: dict[str, TcecFeed] = {}
        #: MQTT messages for :meth:`feed_loop`: (event slug, topic levels below it,
        #: the checked document or None for a deleted one).
        self.feed_queue: asyncio.Queue[tuple[str, list[str], dict[str, Any] | None]] = (
            asyncio.Queue())
        self.pages: set[_Page] = set()
        self.mqtt_up = False
        self.mqtt_error: str | None = None
        self.modified: dict[str, float] = {}  # TCEC document -> when it last changed
        self._snapshot: tuple[Any, str] | None = None  # (key, serialised snapshot)
        self._snapshot_bytes: tuple[Any, bytes] | None = None  # (key, its frame)
        self._skip_report = 0.0  # when skipped messages were last reported
        self._skips_reported = 0
        self._prev_headers: Any = None
        #: TCEC document name -> (the document, its socket.io packet for a new viewer)
        self._encoded: dict[str, tuple[Any, str]] = {}
        self.sockets = (ViewerSockets(self._sio_connect, max_sessions=self.max_connections)
                        if ViewerSockets is not None else None)
        self.site: CappedSite | None = None
        self.app = self._make_app()

    # -- HTTP ---------------------------------------------------------------------------

    def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard.middleware])
        app.on_response_prepare.append(security_headers)
        if self.sockets is not None:
            self.sockets.attach(app)
        app.router.add_get("/", self._index)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/state.json", self._state)
        for base in ("", "/tcec"):
            app.router.add_get(f"{base}/live.pgn", self._live_pgn)
            app.router.add_get(f"{base}/live.json", self._live_json)
            for name in FILES:
                app.router.add_get(f"{base}/{name}", self._tcec_file)
        app.router.add_static("/static/", STATIC)
        if self.viewer is not None:
            app.router.add_get("/tcec/{path:.+}", viewer_file(self.viewer))
        return app

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html")

    async def _state(self, request: web.Request) -> web.Response:
        return web.Response(text=self._snapshot_text(), content_type="application/json")

    @property
    def feed(self) -> TcecFeed | None:
        view = self.model.view
        return self.feeds.get(view.slug) if view is not None else None

    def _file(self, request: web.Request, key: str, body: str | None,
              content_type: str) -> web.Response:  # fmt: skip
        """A TCEC document: ``Last-Modified`` is when it last changed (the viewer
        runs the side to move's clock from ``Date`` minus it); its ``ETag``
        names that change, so that a cache in front (docs/operations.md) may
        keep it a second and revalidate it (``If-None-Match``: 304 while it has
        not changed; Last-Modified's whole seconds could miss a second change
        within one)."""
        if body is None:
            raise web.HTTPNotFound()
        modified = self.modified.setdefault(key, time.time())
        etag = f'"{key}-{modified:.6f}"'
        headers = {"Last-Modified": formatdate(modified, usegmt=True), "ETag": etag,
                   "Cache-Control": "public, max-age=1", "Access-Control-Allow-Origin": "*"}
        if etag in request.headers.get("If-None-Match", ""):
            raise web.HTTPNotModified(headers=headers)
        return web.Response(text=body, content_type=content_type, headers=headers)

    async def _live_pgn(self, request: web.Request) -> web.Response:
        # TCEC's live.pgn is the live game JSON (docs/web.md), as the daemon writes it.
        feed = self.feed
        text = feed.live_pgn() if feed is not None else None
        return self._file(request, "pgn", text, "application/json")

    async def _live_json(self, request: web.Request) -> web.Response:
        return self._doc(request, "pgn")

    async def _tcec_file(self, request: web.Request) -> web.Response:
        return self._doc(request, FILES[request.path.rsplit("/", 1)[-1]])

    def _doc(self, request: web.Request, key: str) -> web.Response:
        feed = self.feed
        doc = feed.docs.get(key) if feed is not None else None
        return self._file(request, key, None if doc is None else json.dumps(doc),
                          "application/json")

    # -- the page's websocket -----------------------------------------------------------

    def _mqtt_status(self) -> dict[str, Any]:
        return {"up": self.mqtt_up, "error": self.mqtt_error, "skipped": self.model.skipped}

    def _envelope(self, msg: dict[str, Any]) -> dict[str, Any]:
        msg["now"] = int(time.time() * 1000)
        msg["mqtt"] = self._mqtt_status()
        return msg

    def _snapshot_text(self) -> str:
        """The snapshot, serialised once per state and shared by every page
        that asks (its ``now`` is when it was made: each page gets a ``link``
        message with the current time after it)."""
        key = (self.model.seq, self.mqtt_up, self.mqtt_error, self.model.skipped)
        if self._snapshot is None or self._snapshot[0] != key:
            self._snapshot = (key, json.dumps(self._envelope(self.model.snapshot())))
        return self._snapshot[1]

    def _snapshot_frame(self) -> bytes:
        key = (self.model.seq, self.mqtt_up, self.mqtt_error, self.model.skipped)
        if self._snapshot_bytes is None or self._snapshot_bytes[0] != key:
            self._snapshot_bytes = (key, ws_frame(self._snapshot_text()))
        return self._snapshot_bytes[1]

    def _link_text(self) -> str:
        return json.dumps(self._envelope({"t": "link", "seq": self.model.seq}))

    def _send_snapshot(self, page: _Page) -> None:
        """The current snapshot for ``page`` (then a ``link`` with the time),
        unless it has this one already, or something sent before is still in
        its buffer (one pending at a time; a page that needs a snapshot asks
        again at its next message)."""
        if page.snapshot_seq == self.model.seq or page.transport.get_write_buffer_size():
            return
        page.snapshot_seq = self.model.seq
        self._send(page, self._snapshot_frame())
        self._send(page, ws_frame(self._link_text()))

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        # No permessage-deflate: it would compress every message once per page
        # (its dictionary is per connection), where now one frame is written to
        # all; moves are ~1 kB, and the CPU is what the pages share.
        ws = web.WebSocketResponse(heartbeat=20, compress=False,
                                   max_msg_size=PAGE_MESSAGE_MAX)
        await ws.prepare(request)
        transport = request.transport
        if transport is None:
            return ws  # gone already
        page = _Page(ws, transport)
        self._send_snapshot(page)
        self.pages.add(page)
        try:
            async for msg in ws:
                if msg.type == aiohttp.WSMsgType.TEXT and msg.data == "snapshot":
                    self._send_snapshot(page)
        finally:
            self.pages.discard(page)
        return ws

    def _send(self, page: _Page, frame: bytes) -> None:
        transport = page.transport
        if transport.is_closing():
            self.pages.discard(page)
        elif transport.get_write_buffer_size() > PAGE_BUFFER:
            # Stuck: dropped; it reconnects and gets a snapshot.
            self.pages.discard(page)
            transport.abort()
        else:
            transport.write(frame)

    def broadcast(self, msg: dict[str, Any]) -> None:
        frame = ws_frame(json.dumps(self._envelope(msg)))
        for page in list(self.pages):
            self._send(page, frame)

    # -- socket.io (TCEC's viewer) -------------------------------------------------------

    def _users(self) -> int:
        return self.sockets.viewers if self.sockets is not None else 0

    def _encoded_doc(self, name: str, doc: Any) -> str:
        """The socket.io packet a new viewer gets for ``doc``, made once per document."""
        cached = self._encoded.get(name)
        if cached is None or cached[0] is not doc:
            data = delta_pgn(doc, {}, self._users()) if name == "pgn" else doc
            cached = (doc, encode_event(name, data))
            self._encoded[name] = cached
        return cached[1]

    async def _sio_connect(self, sid: str) -> None:
        feed = self.feed
        if feed is None or self.sockets is None:
            return
        doc = feed.docs.get("pgn")
        if doc is not None:  # the whole game, as after a game change
            self._prev_headers = doc.get("Headers")  # what the next push compares with
            await self.sockets.send(self._encoded_doc("pgn", doc), to=sid)
        for name in ("tournament", "schedule", "crosstable", "crash", "bracket",
                     *(event for pair in KIBITZER_EVENTS for event in pair)):
            if name in feed.docs:
                await self.sockets.send(self._encoded_doc(name, feed.docs[name]), to=sid)

    async def _push_tcec(self, feed: TcecFeed, changed: list[str]) -> None:
        now = time.time()
        for name in changed:
            self.modified[name] = now
        if self.sockets is None or not self.sockets.sessions:
            # No TCEC viewer connected: nothing to push, and the documents
            # (the live game's above all) are built when one asks for them.
            return
        for name in changed:
            doc = feed.docs[name]
            if name == "pgn":
                headers = doc.get("Headers")
                payload = delta_pgn(doc, self._prev_headers, self._users())
                self._prev_headers = headers
                await self.sockets.send(encode_event("pgn", payload))
            else:
                await self.sockets.send(self._encoded_doc(name, doc))

    # -- MQTT ---------------------------------------------------------------------------

    async def handle(self, topic: str, payload: bytes) -> None:
        """Apply one MQTT message to the pages' model and send them what changed
        at once; queue it, checked, for TCEC's documents (:meth:`feed_loop`). A
        message whose payload is not what its topic carries
        (:mod:`tcecd.bus.inbound`) is skipped by both, and counted; one the
        schema does not know (another topic, another schema version) is
        ignored by both."""
        skipped = self.model.skipped
        for msg in self.model.apply(topic, payload):
            self.broadcast(msg)
        if self.model.skipped != skipped:
            self._report_skip()
        if self.model.accepted is not None:
            self.feed_queue.put_nowait(self.model.accepted)

    def _report_skip(self) -> None:
        """One line for the first skipped message, then at most one a minute."""
        now = time.monotonic()
        if self._skips_reported and now - self._skip_report < SKIP_REPORT_S:
            return
        self._skip_report, self._skips_reported = now, self.model.skipped
        _say(f"skipped a message that is not what its topic carries "
             f"({self.model.skipped} so far): {self.model.skip_reason}")

    async def feed_loop(self) -> None:
        """TCEC's documents, kept apart from the pages' path: a game's end has
        its whole PGN parsed (tens of ms for a long game), in a worker thread,
        while the pages get the next game's first moves."""
        while True:
            slug, rest, doc = await self.feed_queue.get()
            try:
                end = end_pgn(rest, doc)
                record = None if end is None else await asyncio.to_thread(end_record, *end)
                feed = self.feeds.setdefault(slug, TcecFeed())
                changed = feed.apply(rest, doc, end=record)
                view = self.model.view
                if changed and view is not None and view.slug == slug:
                    await self._push_tcec(feed, changed)
            except Exception as exc:  # one odd message must not stop the viewer's feed
                _say(f"TCEC feed: {'/'.join(rest)}: {type(exc).__name__}: {exc}")
            finally:
                self.feed_queue.task_done()

    def _source(self, settings: MqttSettings | None = None) -> str:
        return (settings or self.settings).redacted_url()

    def _link(self, up: bool, error: str | None, settings: MqttSettings | None = None) -> None:
        """The broker connection went up or down: the pages are told, and so is
        the terminal (once per change, not once per retry)."""
        if (up, error) != (self.mqtt_up, self.mqtt_error):
            self.mqtt_up, self.mqtt_error = up, error
            self.broadcast({"t": "link", "seq": self.model.seq})
            if up:
                _say(f"connected to the broker {self._source(settings)}")
            else:
                _say(f"broker {self._source(settings)} unreachable ({error}); retrying")

    async def mqtt_loop(self) -> None:
        """Follow the stream until cancelled, reconnecting with back-off."""
        prefix, event = self.settings.topic_prefix, self.model.watcher.event
        topic = f"{prefix}/{event}/#" if event else f"{prefix}/#"
        ident = f"tcecd-web-{uuid.uuid4().hex[:12]}"
        delay = 0.25
        while True:
            settings: MqttSettings | None = self.settings
            if self.locate is not None:
                settings = await asyncio.to_thread(self.locate)
            if settings is None:
                self._link(False, "the event's embedded broker is not running "
                                  "(its daemon has not started)")
                await asyncio.sleep(EMBEDDED_POLL_S)
                continue
            try:
                async with _client(settings, ident) as client:
                    await client.subscribe(topic, qos=1)
                    self._link(True, None, settings)
                    delay = 0.25
                    async for m in client.messages:
                        payload = m.payload if isinstance(m.payload, bytes) else b""
                        try:
                            await self.handle(str(m.topic), payload)
                        except Exception as exc:  # one odd message must not stop the page
                            _say(f"{m.topic}: {type(exc).__name__}: {exc}")
            except aiomqtt.MqttError as exc:
                self._link(False, str(exc) or type(exc).__name__, settings)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    async def serve(self, ready: asyncio.Event | None = None) -> None:
        # A connection with no whole request within HEADER_TIMEOUT_S is closed
        # (aiohttp's keep-alive timer runs from the connection's start too).
        runner = web.AppRunner(self.app, access_log=None,
                               keepalive_timeout=self.header_timeout_s)
        await runner.setup()
        self.site = CappedSite(runner, self.host, self.port, guard=self.guard)
        await self.site.start()
        if self.sockets is None:
            _say(NO_SOCKETIO)
        if ready is not None:
            ready.set()
        try:
            async with asyncio.TaskGroup() as tasks:
                tasks.create_task(self.feed_loop())
                if self.sockets is not None:
                    tasks.create_task(self.sockets.run())
                await self.mqtt_loop()
        finally:
            for page in list(self.pages):
                await page.ws.close()
            await runner.cleanup()

