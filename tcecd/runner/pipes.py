"""An engine's stdout, handed to python-chess as it is read.

An engine flushes every ``info`` line on its own: Stockfish at 20,000 nodes a move
writes a dozen a move, and each is a separate wake-up of the event loop, entered with
cold caches after the engine ran (some 35 µs of tcecd's CPU a line, measured in place
with ``bench/match.py``). :class:`StdoutProtocol` keeps the loop's part of that small:
it replaces the loop's own protocol on the stdout pipe and hands each chunk to
python-chess at once (asyncio and uvloop alike would pass it on with ``call_soon``:
one more turn of the loop per chunk), a whole line straight to ``_line_received``.

Reading the pipe in a thread of its own (blocked in ``poll``, holding the ``info``
lines back until ``bestmove``) was tried and measured: the wake-up itself, not the
loop's bookkeeping, is most of a line's cost, and eight alternating runs of the bench
showed no difference (median -0.01 ms a move), so the loop reads the pipe.
"""

from __future__ import annotations

import asyncio
from asyncio import base_subprocess

import chess.engine


class StdoutProtocol(asyncio.Protocol):
    """The engine's stdout pipe, handed to python-chess's protocol as it is read.

    asyncio's subprocess transport (and uvloop's) passes each chunk read from a
    child's pipe on through ``loop.call_soon``: one more turn of the event loop
    (and one more ``epoll_wait``) for every chunk. This protocol replaces the transport's
    own one on the stdout pipe and calls ``pipe_data_received`` at once, in the
    same order; the end of the pipe still goes to the transport's protocol, so
    process exit is reported as before.

    A chunk is mostly one whole line (the engine flushes each): that line goes
    to the protocol's ``_line_received`` as python-chess would pass it, without
    its buffer's extend, search and split. Anything else (a partial line, text
    already buffered, several lines, bytes that are not UTF-8) takes
    python-chess's own ``pipe_data_received``.
    """

    def __init__(self, inner: asyncio.BaseProtocol, protocol: chess.engine.Protocol) -> None:
        self.inner = inner
        self.protocol = protocol

    def data_received(self, data: bytes) -> None:
        # python-chess's stdout buffer (it replaces the bytearray as it splits).
        pending = self.protocol.buffer[1]
        if data and not pending and data.find(b"\n") == len(data) - 1:
            try:
                line = data[:-2] if data.endswith(b"\r\n") else data[:-1]
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                pass  # python-chess logs it
            else:
                self.protocol._line_received(text)
                return
        self.protocol.pipe_data_received(1, data)

    def eof_received(self) -> bool | None:
        return None  # as asyncio's pipe protocol: the transport then closes

    def connection_lost(self, exc: Exception | None) -> None:
        self.inner.connection_lost(exc)


def _is_loop_pipe_protocol(inner: asyncio.BaseProtocol) -> bool:
    """Whether ``inner`` is the event loop's own protocol of a child's read pipe,
    which hands each chunk on with ``call_soon``: asyncio's, or uvloop's class of
    the same name and behaviour (``UVProcessTransport._pipe_data_received``)."""
    kind = type(inner)
    if kind is base_subprocess.ReadSubprocessPipeProto:
        return True
    return kind.__name__ == "ReadSubprocessPipeProto" and kind.__module__.startswith("uvloop")


def read_engine_stdout(
    transport: asyncio.SubprocessTransport, protocol: chess.engine.Protocol
) -> None:
    """Install :class:`StdoutProtocol` on the engine's stdout when it is the
    event loop's own pipe protocol (asyncio's or uvloop's; another loop keeps
    its own)."""
    pipe = transport.get_pipe_transport(1)
    if pipe is None:
        return
    inner = pipe.get_protocol()
    if _is_loop_pipe_protocol(inner):
        pipe.set_protocol(StdoutProtocol(inner, protocol))
