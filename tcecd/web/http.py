"""``tcecd web``'s HTTP side, made for strangers: headers, limits, the viewer's files.

A public ``tcecd web`` is reached by anyone (directly, or behind a reverse
proxy: docs/operations.md). What this module gives the server:

* **Response headers** (:func:`security_headers`): the page's
  Content-Security-Policy allows only its own scripts, styles, images
  (chessground's pieces are ``data:`` images) and websocket, no inline script,
  no framing (:data:`PAGE_CSP`); the files and the TCEC viewer's folder are not
  framed either; every answer has ``X-Content-Type-Options: nosniff`` and
  ``Referrer-Policy: no-referrer``; the ``Server`` header names no version.
* **Connection limits** (:class:`CappedSite`): at most ``limit`` connections
  at once (a connection beyond it gets ``503`` and is closed at once, so that
  a flood of idle connections cannot use up the file descriptors a page or a
  TCEC viewer needs); a connection that has not sent a whole request within
  :data:`HEADER_TIMEOUT_S` of opening (or of its previous answer) is closed
  (aiohttp's keep-alive timer, which also runs from the connection's start).
* **The TCEC viewer's folder** (:func:`viewer_file`): only its files, no
  dotfile or dot-directory (a checkout's ``.git``, an ``.env``), nothing a
  symbolic link leads out of the folder to, no directory listing.
"""

from __future__ import annotations

import asyncio
import resource
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
    """A connection beyond the cap: ``503`` and closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                        b"Connection: close\r\nRetry-After: 10\r\n\r\n")
        transport.close()


class CappedSite(web.BaseSite):
    """A TCP site that serves at most ``limit`` connections at once."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, *, limit: int,
                 backlog: int = 512) -> None:  # fmt: skip
        super().__init__(runner, backlog=backlog)
        self._host, self._port, self.limit = host, port, limit
        #: connections refused because the cap was reached
        self.refused = 0

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None

        def protocol() -> asyncio.BaseProtocol:
            if len(server.connections) >= self.limit:
                self.refused += 1
                return _Refused()
            return server()

        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(protocol, self._host, self._port,
                                                backlog=self._backlog, reuse_address=True)


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
