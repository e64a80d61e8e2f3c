"""TCEC's viewer feed (tcecd.web.sio) at the protocol level, as a stranger may
speak it over HTTP long polling (Engine.IO 3 payloads, socket.io protocol 4):
a viewer's events are answered, a binary packet, a packet announcing binary
attachments or one for another namespace ends the session; and without the
optional ``tcec-viewer`` extra ``tcecd web`` serves the page and says the feed
is off."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from tests.web.helpers import get_json, web_server


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    """One ``tcecd web`` for the module's sessions (each test makes its own)."""
    pytest.importorskip("socketio")
    with web_server("mqtt://127.0.0.1:9") as url:
        yield url


def _request(url: str, body: bytes | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET",
                                 headers={"Content-Type": "text/plain;charset=UTF-8"})
    try:
        with urllib.request.urlopen(req, timeout=70) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _payload(*packets: str) -> bytes:
    """An Engine.IO 3 polling payload: ``<length>:<packet>`` per packet."""
    return "".join(f"{len(p)}:{p}" for p in packets).encode()


def _handshake(base: str) -> str:
    status, body = _request(f"{base}/socket.io/?EIO=3&transport=polling&b64=1")
    assert status == 200
    opened = json.loads(body[body.index("{"):body.index("}") + 1])
    return str(opened["sid"])


@pytest.mark.parametrize(("packet", "kept"), [
    pytest.param('42["getusers"]', True, id="getusers"),  # what the viewer sends: answered
    pytest.param('451-["getusers",{"_placeholder":true,"num":0}]', False, id="attachments"),
    pytest.param('46["x"]', False, id="binary-ack"),
    pytest.param("40/evil", False, id="namespace"),
    pytest.param('42/evil,["getusers"]', False, id="namespace-event"),
    pytest.param('42["vote","' + "x" * 5000 + '"]', False, id="too-large"),
    pytest.param("b4AAAA", False, id="binary-message"),  # a binary Engine.IO message
])
def test_what_a_viewer_does_not_send_ends_its_session(base: str, packet: str,
                                                      kept: bool) -> None:
    sid = _handshake(base)
    url = f"{base}/socket.io/?EIO=3&transport=polling&b64=1&sid={sid}"
    status, _ = _request(url, _payload(packet))
    if kept:
        assert status == 200
        status, body = _request(url)  # the answer waits in the session's queue
        assert status == 200
        assert '42["users",{"count":1}]' in body
    else:
        # Dropped at once: the session is gone, nothing of it is kept.
        assert status in (200, 400, 413)
        status, body = _request(url)
        assert status == 400
        assert "Invalid session" in body


def test_web_serves_the_page_without_python_socketio() -> None:
    """The extra left out (its modules made unimportable): the page and the files
    are served, /socket.io/ is not, and the terminal says why."""
    block = ("import sys; sys.modules['socketio'] = None; sys.modules['engineio'] = None; "
             "sys.argv = ['tcecd', *sys.argv[3:]]; "
             "from tcecd.cli import main; raise SystemExit(main())")
    err: list[str] = []
    with web_server("mqtt://127.0.0.1:9", python=[sys.executable, "-c", block],
                    stderr=err) as base:
        assert get_json(f"{base}/state.json")["t"] == "snapshot"
        page, _ = _request(f"{base}/")
        sio, _ = _request(f"{base}/socket.io/?EIO=3&transport=polling&b64=1")
    assert page == 200
    assert sio == 404
    assert ("TCEC viewer feed disabled: python-socketio 4.x is not installed "
            "(pip install 'tcecd[tcec-viewer]')") in err[0]


async def test_ended_and_silent_sessions_leave_nothing_behind() -> None:
    """What 4.x and the adapter keep per session is gone once it ends (a CLOSE
    packet) or stops polling (swept 10 s after its last request)."""
    pytest.importorskip("socketio")
    import time

    import aiohttp
    from aiohttp import web
    from aiohttp.test_utils import TestServer

    from tcecd.web.sio import POLL_GAP_S, ViewerSockets

    connected: list[str] = []

    async def on_connect(sid: str) -> None:
        connected.append(sid)

    feed = ViewerSockets(on_connect, max_sessions=10)
    app = web.Application()
    feed.attach(app)
    async with TestServer(app) as server, aiohttp.ClientSession() as http:
        url = str(server.make_url("/socket.io/")) + "?EIO=3&transport=polling&b64=1"
        for _ in range(3):
            async with http.get(url) as r:
                assert r.status == 200
        closing = connected[0]
        async with http.post(f"{url}&sid={closing}", data=_payload("1")) as r:  # CLOSE
            assert r.status == 200
        # 3.x keeps a closed session in its table until its client polls again.
        assert feed.eio.sockets[closing].closed
        assert feed.viewers == 0  # ended, and a handshake alone is no viewer
        await feed.sweep(time.monotonic() + POLL_GAP_S + 1)
    sio = feed.sio
    assert len(connected) == 3
    assert feed.sessions == 0
    assert not sio.environ
    assert not sio._binary_packet
    assert not sio.manager.callbacks
    assert not sio.manager.rooms.get("/", {}).get(None)
    assert not feed._busy
    assert not feed._idle_since
    assert not feed._active
