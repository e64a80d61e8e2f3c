"""The ``tcecd web`` server: one asyncio process, aiohttp for HTTP and websockets,
python-socketio 4.x for TCEC's viewer, aiomqtt for the stream.

* ``/`` the live page (``static/``: HTML, JS, CSS, the vendored chessground);
* ``/ws`` the page's websocket: a snapshot on connect, then deltas
  (:mod:`tcecd.web.model`; the protocol is in docs/web.md);
* ``/live.pgn``, ``/live.json``, ``/schedule.json``, ``/crosstable.json``,
  ``/tournament.json``, ``/crash.json`` and the kibitzers' ``/data.json``,
  ``/liveeval.json``, ``/data1.json``, ``/liveeval1.json``: TCEC's viewer files
  (also under ``/tcec/``, next to a TCEC viewer folder served with ``--viewer DIR``);
* ``/socket.io/`` the socket.io events TCEC's viewer listens to (``pgn``,
  ``schedule``, ``crosstable``, ``tournament``, ``crash``, ``users``,
  ``liveeval``, ``livechart``, ``liveeval1``, ``livechart1``), protocol 4 over
  Engine.IO 3 (what its socket.io-client 2.x speaks).

Nothing polls: every MQTT message is applied to the models at once and what
changed is pushed. A page that cannot keep up (its send queue fills) is
disconnected; it reconnects and gets a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
import uuid
from collections.abc import Callable
from email.utils import formatdate
from pathlib import Path
from typing import Any

import aiohttp
import aiomqtt
import socketio
from aiohttp import web

from tcecd.bus.settings import MqttSettings
from tcecd.web.model import PageModel
from tcecd.web.tcec import (
    FILES,
    KIBITZER_EVENTS,
    TcecFeed,
    delta_pgn,
    end_pgn,
    end_record,
)

STATIC = Path(__file__).parent / "static"

#: Messages queued for one page before it counts as stuck and is dropped.
CLIENT_QUEUE = 1000
#: How often the page's server looks for the event's embedded broker while its
#: daemon has not started (a file read): steady, not backing off, so that a page
#: opened before the daemon follows the event from its first move.
EMBEDDED_POLL_S = 0.25


def _client(settings: MqttSettings, identifier: str) -> aiomqtt.Client:
    ctx = settings.ssl_context()
    return aiomqtt.Client(settings.host, settings.port, username=settings.username,
                          password=settings.password, identifier=identifier, tls_context=ctx,
                          tls_insecure=settings.tls_insecure if ctx is not None else None,
                          timeout=5)


class _Manager(socketio.AsyncManager):  # type: ignore[misc]
    """python-socketio 4.x's client manager with ``emit`` fit for Python 3.11+.

    4.x (the last server line speaking socket.io protocol 4 / Engine.IO 3) hands
    bare coroutines to ``asyncio.wait``, which Python 3.11 refuses ("Passing
    coroutines is forbidden"): every emit would fail. This sends the same
    packets to the same participants, awaited together with ``asyncio.gather``.
    """

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


class _Page:
    """One connected page: its websocket and its send queue."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str] = asyncio.Queue(CLIENT_QUEUE)


class WebServer:
    """See the module docstring. ``await serve()`` runs until cancelled."""

    def __init__(self, settings: MqttSettings, *, event: str | None = None,
                 host: str = "127.0.0.1", port: int = 8080, viewer: Path | None = None,
                 locate: Callable[[], MqttSettings | None] | None = None) -> None:  # fmt: skip
        self.settings = settings
        #: Where the broker is now (an ``mqtt: embedded`` event's moves with its
        #: daemon), asked before each connection attempt; None: ``settings``.
        self.locate = locate
        self.host, self.port = host, port
        self.viewer = viewer
        self.model = PageModel(settings.topic_prefix, event)
        self.feeds: dict[str, TcecFeed] = {}
        #: MQTT messages for :meth:`feed_loop` (event slug, topic levels below it, payload).
        self.feed_queue: asyncio.Queue[tuple[str, list[str], bytes]] = asyncio.Queue()
        self.pages: set[_Page] = set()
        self.mqtt_up = False
        self.mqtt_error: str | None = None
        self.modified: dict[str, float] = {}  # TCEC document -> when it last changed
        self.sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*",
                                        client_manager=_Manager(), logger=False,
                                        engineio_logger=False)
        self._prev_headers: Any = None
        self.sio_clients: set[str] = set()
        self.app = self._make_app()

    # -- HTTP ---------------------------------------------------------------------------

    def _make_app(self) -> web.Application:
        app = web.Application()
        self.sio.attach(app)
        self.sio.on("connect", self._sio_connect)
        self.sio.on("disconnect", self._sio_disconnect)
        self.sio.on("getusers", self._sio_getusers)
        for name in ("room", "noroom", "vote"):
            self.sio.on(name, self._sio_ignore)
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
            app.router.add_static("/tcec/", self.viewer, show_index=False)
        return app

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html")

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(self._envelope(self.model.snapshot()))

    @property
    def feed(self) -> TcecFeed | None:
        view = self.model.view
        return self.feeds.get(view.slug) if view is not None else None

    def _file(self, key: str, body: str, content_type: str) -> web.Response:
        # The viewer runs the side to move's clock from Date - Last-Modified.
        modified = self.modified.get(key, time.time())
        return web.Response(text=body, content_type=content_type, headers={
            "Last-Modified": formatdate(modified, usegmt=True),
            "Cache-Control": "no-cache", "Access-Control-Allow-Origin": "*"})

    async def _live_pgn(self, request: web.Request) -> web.Response:
        feed = self.feed
        text = feed.live_pgn() if feed is not None else None
        if text is None:
            raise web.HTTPNotFound()
        return self._file("pgn", text, "application/x-chess-pgn")

    async def _live_json(self, request: web.Request) -> web.Response:
        return self._doc("pgn")

    async def _tcec_file(self, request: web.Request) -> web.Response:
        return self._doc(FILES[request.path.rsplit("/", 1)[-1]])

    def _doc(self, key: str) -> web.Response:
        feed = self.feed
        doc = feed.docs.get(key) if feed is not None else None
        if doc is None:
            raise web.HTTPNotFound()
        return self._file(key, json.dumps(doc), "application/json")

    # -- the page's websocket -----------------------------------------------------------

    def _envelope(self, msg: dict[str, Any]) -> dict[str, Any]:
        msg["now"] = int(time.time() * 1000)
        msg["mqtt"] = {"up": self.mqtt_up, "error": self.mqtt_error}
        return msg

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        # No permessage-deflate: it would compress every message once per page
        # (its dictionary is per connection), where now one serialised text is
        # written to all; moves are ~1 kB, and the CPU is what 50 pages share.
        ws = web.WebSocketResponse(heartbeat=20, compress=False)
        await ws.prepare(request)
        page = _Page(ws)
        page.queue.put_nowait(json.dumps(self._envelope(self.model.snapshot())))
        self.pages.add(page)
        writer = asyncio.create_task(self._writer(page))
        try:
            async for msg in ws:
                if msg.type == aiohttp.WSMsgType.TEXT and msg.data == "snapshot":
                    self._send(page, json.dumps(self._envelope(self.model.snapshot())))
        finally:
            self.pages.discard(page)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        return ws

    async def _writer(self, page: _Page) -> None:
        while True:
            text = await page.queue.get()
            try:
                await page.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return

    def _send(self, page: _Page, text: str) -> None:
        try:
            page.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.pages.discard(page)  # stuck: drop it; it reconnects and gets a snapshot
            asyncio.get_running_loop().create_task(page.ws.close())

    def broadcast(self, msg: dict[str, Any]) -> None:
        text = json.dumps(self._envelope(msg))
        for page in list(self.pages):
            self._send(page, text)

    # -- socket.io (TCEC's viewer) -------------------------------------------------------

    def _users(self) -> int:
        return len(self.sio_clients)

    async def _sio_connect(self, sid: str, environ: Any) -> None:
        self.sio_clients.add(sid)
        feed = self.feed
        if feed is None:
            return
        doc = feed.docs.get("pgn")
        if doc is not None:  # the whole game, as after a game change
            self._prev_headers = doc.get("Headers")  # what the next push compares with
            await self.sio.emit("pgn", delta_pgn(doc, {}, self._users()), room=sid)
        for name in ("tournament", "schedule", "crosstable", "crash",
                     *(event for pair in KIBITZER_EVENTS for event in pair)):
            if name in feed.docs:
                await self.sio.emit(name, feed.docs[name], room=sid)

    async def _sio_disconnect(self, sid: str) -> None:
        self.sio_clients.discard(sid)

    async def _sio_getusers(self, sid: str, *args: Any) -> None:
        await self.sio.emit("users", {"count": self._users()}, room=sid)

    async def _sio_ignore(self, sid: str, *args: Any) -> None:
        return None

    async def _push_tcec(self, feed: TcecFeed, changed: list[str]) -> None:
        now = time.time()
        for name in changed:
            self.modified[name] = now
        if not self.sio_clients:
            # No TCEC viewer connected: nothing to push, and the documents
            # (the live game's above all) are built when one asks for them.
            return
        for name in changed:
            doc = feed.docs[name]
            if name == "pgn":
                headers = doc.get("Headers")
                payload = delta_pgn(doc, self._prev_headers, self._users())
                self._prev_headers = headers
                await self.sio.emit("pgn", payload)
            else:
                await self.sio.emit(name, doc)

    # -- MQTT ---------------------------------------------------------------------------

    async def handle(self, topic: str, payload: bytes) -> None:
        """Apply one MQTT message to the pages' model and send them what changed
        at once; queue it for TCEC's documents (:meth:`feed_loop`)."""
        for msg in self.model.apply(topic, payload):
            self.broadcast(msg)
        levels = topic.split("/")
        n = len(self.model.prefix)
        if levels[:n] != self.model.prefix or len(levels) < n + 2:
            return
        slug = levels[n]
        if self.model.watcher.event is not None and slug != self.model.watcher.event:
            return
        self.feed_queue.put_nowait((slug, levels[n + 1:], payload))

    async def feed_loop(self) -> None:
        """TCEC's documents, kept apart from the pages' path: a game's end has
        its whole PGN parsed (tens of ms for a long game), in a worker thread,
        while the pages get the next game's first moves."""
        while True:
            slug, rest, payload = await self.feed_queue.get()
            try:
                end = end_pgn(rest, payload)
                record = None if end is None else await asyncio.to_thread(end_record, *end)
                feed = self.feeds.setdefault(slug, TcecFeed())
                changed = feed.apply(rest, payload, end=record)
                view = self.model.view
                if changed and view is not None and view.slug == slug:
                    await self._push_tcec(feed, changed)
            except Exception as exc:  # one odd message must not stop the viewer's feed
                print(f"tcecd web: TCEC feed: {'/'.join(rest)}: {type(exc).__name__}: {exc}",
                      file=sys.stderr, flush=True)
            finally:
                self.feed_queue.task_done()

    def _link(self, up: bool, error: str | None) -> None:
        if (up, error) != (self.mqtt_up, self.mqtt_error):
            self.mqtt_up, self.mqtt_error = up, error
            self.broadcast({"t": "link", "seq": self.model.seq})

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
                    self._link(True, None)
                    delay = 0.25
                    async for m in client.messages:
                        payload = m.payload if isinstance(m.payload, bytes) else b""
                        try:
                            await self.handle(str(m.topic), payload)
                        except Exception as exc:  # one odd message must not stop the page
                            print(f"tcecd web: {m.topic}: {type(exc).__name__}: {exc}",
                                  file=sys.stderr, flush=True)
            except aiomqtt.MqttError as exc:
                self._link(False, str(exc) or type(exc).__name__)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    async def serve(self, ready: asyncio.Event | None = None) -> None:
        runner = web.AppRunner(self.app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        if ready is not None:
            ready.set()
        try:
            async with asyncio.TaskGroup() as tasks:
                tasks.create_task(self.feed_loop())
                await self.mqtt_loop()
        finally:
            for page in list(self.pages):
                await page.ws.close()
            await runner.cleanup()
