"""``tcecd web``'s HTTP side, made for strangers: headers, limits, the viewer's files.

A public ``tcecd web`` is reached by anyone (directly, or behind a reverse
proxy: docs/operations.md). What this module gives the server:

* **Response headers** (:func:`security_headers`): the page's
  Content-Security-Policy allows only its own scripts, styles, images
  (chessground's pieces are ``data:`` images) and websocket, no inline script,
  no framing (:data:`PAGE_CSP`); the files and the TCEC viewer's folder are not
  framed either; every answer has ``X-Content-Type-Options: nosniff`` and
  ``Referrer-Policy: no-referrer``; the ``Server`` header names no version.
* **Connection limits** (:class:`ConnectionGuard`, :class:`CappedSite`): at
  most ``limit`` connections at once, below the file-descriptor limit; at the
  cap a new connection replaces the one idle longest (partial headers, or
  keep-alive between requests), so that a flood of idle connections cannot lock
  a viewer out, and is refused (``503``) only when every connection is busy; a
  connection that has not sent a whole request within :data:`HEADER_TIMEOUT_S`
  of opening (or of its previous answer) is closed (aiohttp's keep-alive timer,
  which also runs from the connection's start).
* **The TCEC viewer's folder** (:func:`viewer_file`): only its files, no
  dotfile or dot-directory (a checkout's ``.git``, an ``.env``), nothing a
  symbolic link leads out of the folder to, no directory listing.
"""

from __future__ import annotations

import asyncio
import resource
import time
from collections.abc import Awaitable, Callable
from pathlib import Path, PurePosixPath

from aiohttp import web

#: A connection with no whole request this long after it opened (or after its
#: previous answer) is closed: partial headers, or an idle keep-alive connection.
HEADER_TIMEOUT_S = 15.0
#: File descriptors kept for everything but the HTTP connections (MQTT, files, logs).
FD_RESERVE = 64
#: The default cap on connections (also bounded by the file-descriptor limit).
MAX_CONNECTIONS = 4096

#: The live page: its own scripts, styles, images and websocket only.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; "
            "img-src 'self' data:; connect-src 'self'; object-src 'none'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
#: TCEC's viewer (third-party code with its own inline scripts): not framed.
VIEWER_CSP = "frame-ancestors 'none'"
#: Data (JSON, PGN, socket.io): nothing to run, nothing to frame.
DATA_CSP = "default-src 'none'; frame-ancestors 'none'"
#: The ``Server`` header: no version banner.
SERVER = "tcecd"


def _policy(path: str) -> str:
    if path == "/" or path.startswith("/static/") or path == "/ws":
        return PAGE_CSP
    if path.startswith("/tcec/") and not path.endswith((".json", ".pgn")):
        return VIEWER_CSP
    return DATA_CSP


async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare``: the headers every answer carries (module docstring)."""
    headers = response.headers
    headers["Server"] = SERVER
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers["X-Frame-Options"] = "DENY"
    headers["Content-Security-Policy"] = _policy(request.path)


def raise_fd_limit() -> int:
    """Raise the soft limit on open files to the hard one (the unit's
    ``LimitNOFILE``); returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def connection_limit(requested: int | None = None) -> int:
    """The connections ``tcecd web`` accepts at once: ``requested`` (default
    :data:`MAX_CONNECTIONS`), at most the file-descriptor limit minus
    :data:`FD_RESERVE`."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    wanted = MAX_CONNECTIONS if requested is None else requested
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - FD_RESERVE))


class _Refused(asyncio.Protocol):
    """A connection beyond the cap with every slot busy: ``503``, closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                        b"Connection: close\r\nRetry-After: 10\r\n\r\n")
        transport.close()


class ConnectionGuard:
    """At most ``limit`` connections at once; at the cap, a new connection
    takes the place of the one idle longest (no request in progress: partial
    headers, or keep-alive between requests), so that idle connections, however
    many, never lock out a viewer; only when every connection is busy (pages'
    websockets, long polls, answers being sent) is the new one refused (``503``).

    :meth:`middleware` notes which connections are in a request; a connection
    is idle from its opening or from the end of its last request."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        #: connections closed to make room / refused because all were busy
        self.evicted = 0
        self.refused = 0
        self._busy: dict[asyncio.BaseProtocol, int] = {}
        # connection -> when it became idle (its opening, or its last answer);
        # closed ones are pruned once there are twice as many entries as the cap
        # (aiohttp's handlers take no weak references).
        self._since: dict[web.RequestHandler, float] = {}

    @web.middleware
    async def middleware(self, request: web.Request,
                         handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
                         ) -> web.StreamResponse:  # fmt: skip
        proto = request.protocol
        self._busy[proto] = self._busy.get(proto, 0) + 1
        try:
            return await handler(request)
        finally:
            left = self._busy.pop(proto) - 1
            if left:
                self._busy[proto] = left
            if proto in self._since:
                self._since[proto] = time.monotonic()

    def factory(self, server: web.Server) -> Callable[[], asyncio.BaseProtocol]:
        """The protocol factory for ``loop.create_server`` around aiohttp's."""

        def protocol() -> asyncio.BaseProtocol:
            live = server.connections
            if len(live) >= self.limit and not self._evict(live):
                self.refused += 1
                return _Refused()
            handler = server()
            if len(self._since) >= 2 * self.limit:
                self._since = {h: t for h, t in self._since.items() if h.transport is not None}
            self._since[handler] = time.monotonic()
            return handler

        return protocol

    def _evict(self, live: list[web.RequestHandler]) -> bool:
        idle = [(self._since.get(h, 0.0), i) for i, h in enumerate(live)
                if h not in self._busy and h.transport is not None]
        if not idle:
            return False
        live[min(idle)[1]].force_close()
        self.evicted += 1
        return True


class CappedSite(web.BaseSite):
    """A TCP site whose connections a :class:`ConnectionGuard` caps (its
    middleware must be in the application)."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, *,
                 guard: ConnectionGuard, backlog: int = 512) -> None:  # fmt: skip
        super().__init__(runner, backlog=backlog)
        self._host, self._port, self.guard = host, port, guard

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self.guard.factory(server), self._host,
                                                self._port, backlog=self._backlog,
                                                reuse_address=True)


def _viewer_path(root: Path, tail: str) -> Path | None:
    """The file ``tail`` names in the viewer folder ``root`` (resolved), or None:
    no dot-segment, nothing outside ``root`` once symbolic links are followed,
    only regular files."""
    parts = PurePosixPath(tail).parts
    if not parts or "\\" in tail or "\0" in tail or any(p.startswith(".") for p in parts):
        return None
    try:
        path = (root / tail).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not path.is_relative_to(root) or not path.is_file():
        return None
    if any(p.startswith(".") for p in path.relative_to(root).parts):
        return None  # a link inside the folder to one of its dotfiles
    return path


def viewer_file(root: Path) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """The handler of ``/tcec/{path}``: a file of the viewer folder ``root``."""
    root = root.resolve()

    async def handler(request: web.Request) -> web.StreamResponse:
        path = await asyncio.to_thread(_viewer_path, root, request.match_info["path"])
        if path is None:
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    return handler
