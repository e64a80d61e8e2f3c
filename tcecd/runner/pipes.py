"""An engine's stdout, handed to python-chess as it is read.

An engine flushes every ``info`` line on its own: Stockfish at 20,000 nodes a move
writes a dozen a move, and each is a separate wake-up of the event loop, entered with
cold caches after the engine ran. Most of a wake-up's cost is the kernel's and the
loop's (docs/engines.md); :class:`StdoutProtocol` keeps tcecd's Python part of it
small (about 15 us of thread CPU for an ``info`` line on the bench):

- it replaces the loop's own protocol on the stdout pipe and handles each chunk at
  once (asyncio and uvloop alike would pass it on with ``call_soon``: one more turn
  of the loop per chunk);
- a chunk of whole ASCII lines (the usual case: one line, or the last ``info`` and
  ``bestmove`` together) is split here: a UCI engine's ``info`` line is kept as it
  came, in a :class:`KeptInfo`, without decoding it and without python-chess (tcecd
  reads only the last lines of a move, once, when its ``bestmove`` has arrived:
  ``uci.read_info``); any other line goes straight to python-chess's
  ``_line_received``, without its buffer's extend, search and split;
- anything else (a partial line, text already buffered, bytes that are not ASCII)
  takes python-chess's own ``pipe_data_received``, whose lines come back through the
  protocol's ``_line_received`` (``uci._UciProtocol`` keeps the ``info`` ones in the
  same :class:`KeptInfo`).

Reading the pipe in a thread of its own (blocked in ``poll``, holding the ``info``
lines back until ``bestmove``) was tried and measured: the wake-up itself, not the
loop's bookkeeping, is most of a line's cost, and eight alternating runs of the bench
showed no difference (median -0.01 ms a move), so the loop reads the pipe.
"""

from __future__ import annotations

import asyncio
from asyncio import base_subprocess

import chess.engine


class KeptInfo:
    """The ``info`` lines of a UCI engine's current search that tcecd reads: the
    last one with a score or a PV, the last one with a PV, and the last other one
    after them (counters), each as the engine wrote it (the line end included
    or not)."""

    __slots__ = ("last", "pv", "tail")

    def __init__(self) -> None:
        self.last: bytes | None = None
        self.pv: bytes | None = None
        self.tail: bytes | None = None

    def forget(self) -> None:
        """Before a ``go``: nothing reported yet."""
        self.last = self.pv = self.tail = None

    def keep(self, line: bytes) -> None:
        """Keep one ``info`` line if it is one of those read."""
        if b" pv " in line:
            self.last = self.pv = line
            self.tail = None
        elif b" score " in line:
            self.last = line
            self.tail = None
        elif not line.startswith(b"info string"):
            self.tail = line

    def lines(self) -> tuple[str | None, str | None, str | None]:
        """The kept lines as text without their line ends: (last, PV, tail), the
        first two the same object when the last line is the PV's (as
        ``uci.read_info`` takes them)."""

        def text(line: bytes | None) -> str | None:
            return None if line is None else line_text(line)

        last = text(self.last)
        pv = last if self.pv is self.last else text(self.pv)
        return last, pv, text(self.tail)


def line_text(line: bytes) -> str:
    """A line as python-chess's split gives it: without its newline and one
    carriage return before it, decoded as python-chess decodes it."""
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    return line.decode("utf-8")


class StdoutProtocol(asyncio.Protocol):
    """The engine's stdout pipe, handed to python-chess's protocol as it is read.

    asyncio's subprocess transport (and uvloop's) passes each chunk read from a
    child's pipe on through ``loop.call_soon``: one more turn of the event loop
    (and one more ``epoll_wait``) for every chunk. This protocol replaces the transport's
    own one on the stdout pipe and handles the chunk at once, in the same order;
    the end of the pipe still goes to the transport's protocol, so process exit is
    reported as before. See the module docstring for the three paths a chunk takes.
    """

    __slots__ = ("clean", "inner", "kept", "protocol")

    def __init__(
        self,
        inner: asyncio.BaseProtocol,
        protocol: chess.engine.Protocol,
        kept: KeptInfo | None = None,
    ) -> None:
        self.inner = inner
        self.protocol = protocol
        self.kept = kept
        # Whether python-chess's stdout buffer is empty: it holds the text after a
        # chunk's last newline, so it is empty after a chunk that ends with one.
        self.clean = not protocol.buffer[1]

    def data_received(self, data: bytes) -> None:
        if self.clean and data.endswith(b"\n") and data.isascii():
            if data.find(b"\n") == len(data) - 1:
                self._line(data)
            else:  # several lines (the last info and bestmove often come together)
                for line in data.split(b"\n")[:-1]:
                    self._line(line)
            return
        self.protocol.pipe_data_received(1, data)
        if data:
            self.clean = data.endswith(b"\n")

    def _line(self, line: bytes) -> None:
        """One ASCII line, its line end included or not: kept if it is a UCI
        ``info`` line, else handed to python-chess as its own split would."""
        kept = self.kept
        if kept is not None and line.startswith(b"info "):
            kept.keep(line)
            return
        self.protocol._line_received(line_text(line))

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
    transport: asyncio.SubprocessTransport,
    protocol: chess.engine.Protocol,
    kept: KeptInfo | None = None,
) -> None:
    """Install :class:`StdoutProtocol` on the engine's stdout when it is the
    event loop's own pipe protocol (asyncio's or uvloop's; another loop keeps
    its own), keeping a UCI engine's ``info`` lines in ``kept``."""
    pipe = transport.get_pipe_transport(1)
    if pipe is None:
        return
    inner = pipe.get_protocol()
    if _is_loop_pipe_protocol(inner):
        pipe.set_protocol(StdoutProtocol(inner, protocol, kept))
