"""An engine's pipes: made by tcecd, its stdout handed to python-chess as it is read.

An engine flushes every ``info`` line on its own: Stockfish at 20,000 nodes a move
writes a dozen a move, and each is a separate wake-up of the event loop, entered with
cold caches after the engine ran. Most of a wake-up's cost is the kernel's and the
loop's (docs/engines.md). :func:`popen_engine` starts the engine with its stdin and
stdout on plain pipes (uvloop would make Unix socket pairs, dearer for the kernel a
line), and :class:`StdoutProtocol` keeps tcecd's Python part of a line small (about
15 us of thread CPU for an ``info`` line on the bench):

- it is the stdout pipe's protocol and handles each chunk at once (the loop's own
  subprocess pipe protocol, asyncio's and uvloop's alike, would pass it on with
  ``call_soon``: one more turn of the loop per chunk);
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

No line is longer than :data:`MAX_LINE` (1 MiB; issue 28): python-chess keeps the
text after a chunk's last newline in a buffer it extends and searches again on every
read, so an engine writing one endless line grew the daemon's memory without bound
and cost CPU quadratically (50 MiB: 0.4 s). The stdout reader counts the bytes of
the line it is in; past the limit it stops handing anything on, kills the engine and
says so on the transport (:attr:`EngineTransport.overflowed`), which the session
reports as a ``garbage`` fault. On stderr (which python-chess only logs) the rest of
such a line is dropped.

Reading the pipe in a thread of its own (blocked in ``poll``, holding the ``info``
lines back until ``bestmove``) was tried and measured: the wake-up itself, not the
loop's bookkeeping, is most of a line's cost, and eight alternating runs of the bench
showed no difference (median -0.01 ms a move), so the loop reads the pipe.
"""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Callable
from typing import Any, TypeVar

import chess.engine

#: The longest line an engine may write, its newline excluded (bytes).
MAX_LINE = 1 << 20


class LineCap:
    """Counts the bytes of the line a pipe is in (the text after its last newline)."""

    __slots__ = ("partial",)

    def __init__(self) -> None:
        self.partial = 0

    def fits(self, data: bytes) -> bool:
        """Take ``data``: False when a line in it ends beyond :data:`MAX_LINE`, or the
        line it leaves open already does."""
        newline = data.find(b"\n")
        if newline < 0:
            self.partial += len(data)
            return self.partial <= MAX_LINE
        if self.partial + newline > MAX_LINE:
            return False
        last = data.rfind(b"\n")
        if last - newline > MAX_LINE and any(  # a whole long line inside one chunk
            len(line) > MAX_LINE for line in data[newline + 1 : last].split(b"\n")
        ):
            return False
        self.partial = len(data) - last - 1
        return self.partial <= MAX_LINE

    def cut(self, data: bytes) -> bytes:
        """``data`` without the bytes of any line beyond :data:`MAX_LINE` (for stderr,
        which is only logged: the rest of a long line is dropped, its newline kept)."""
        if b"\n" not in data and self.partial + len(data) <= MAX_LINE:
            self.partial += len(data)
            return data
        out = bytearray()
        for i, part in enumerate(data.split(b"\n")):
            if i:
                out += b"\n"
                self.partial = 0
            room = max(0, MAX_LINE - self.partial)
            out += part[:room]
            self.partial += len(part)
        return bytes(out)


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

    Each chunk is handled at once, in order (see the module docstring for the three
    paths a chunk takes); the end of the pipe is told to ``on_end`` (in
    :func:`popen_engine`, the join that tells the engine's protocol of the process's
    end once its stdout has ended too).
    """

    __slots__ = ("cap", "clean", "kept", "on_end", "on_overflow", "overflowed", "protocol")

    def __init__(
        self,
        on_end: Callable[[], None],
        protocol: chess.engine.Protocol,
        kept: KeptInfo | None = None,
        on_overflow: Callable[[], None] | None = None,
    ) -> None:
        self.on_end = on_end
        self.protocol = protocol
        self.kept = kept
        self.on_overflow = on_overflow
        # Whether python-chess's stdout buffer is empty: it holds the text after a
        # chunk's last newline, so it is empty after a chunk that ends with one.
        self.clean = not protocol.buffer[1]
        self.cap = LineCap()
        self.cap.partial = len(protocol.buffer[1])
        #: Set once a line went beyond MAX_LINE: nothing more is handed on.
        self.overflowed = False

    def data_received(self, data: bytes) -> None:
        # A chunk (at most 256 KiB as the loop reads) of whole lines cannot hold a
        # line beyond the limit: one comparison on the usual path.
        if self.clean and data.endswith(b"\n") and data.isascii() and len(data) <= MAX_LINE:
            if data.find(b"\n") == len(data) - 1:
                self._line(data)
            else:  # several lines (the last info and bestmove often come together)
                for line in data.split(b"\n")[:-1]:
                    self._line(line)
            return
        if self.overflowed:
            return  # the engine is being killed: the rest of its output is dropped
        if self.clean:
            self.cap.partial = 0
        if not self.cap.fits(data):
            self.overflowed = True
            if self.on_overflow is not None:
                self.on_overflow()
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
        self.on_end()


class _Process(asyncio.SubprocessProtocol):
    """The engine's process as the event loop reports it, handed on to the engine's
    protocol: its stderr, its exit, and its end (``connection_lost``) only once
    its stdout has ended too, so that every line the engine wrote reaches the
    protocol before it hears of the end (as when the loop owns the stdout pipe:
    a process transport reports the end once all its pipes are closed)."""

    def __init__(self, engine: chess.engine.Protocol) -> None:
        self.engine = engine
        self.stdout_open = True
        self.lost: tuple[Exception | None] | None = None
        self.ended = False
        self.stderr_cap = LineCap()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        if fd == 2 and isinstance(data, bytes):
            data = self.stderr_cap.cut(data)  # at most MAX_LINE of a line is logged
        self.engine.pipe_data_received(fd, data)

    def process_exited(self) -> None:
        self.engine.process_exited()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = (exc,)
        self._end()

    def stdout_closed(self) -> None:
        self.stdout_open = False
        self._end()

    def _end(self) -> None:
        if self.lost is not None and not self.stdout_open and not self.ended:
            self.ended = True
            self.engine.connection_lost(*self.lost)


class EngineTransport(asyncio.SubprocessTransport):
    """The engine's process transport with tcecd's own stdin and stdout pipes
    (see :func:`popen_engine`): what python-chess's protocol and tcecd's session
    ask of a process transport, the pipes answered from here."""

    def __init__(
        self,
        process: asyncio.SubprocessTransport,
        stdin: asyncio.WriteTransport,
        stdout: asyncio.ReadTransport,
    ) -> None:
        super().__init__()
        self.process = process
        self.stdin = stdin
        self.stdout = stdout
        #: Set when the engine wrote a line beyond MAX_LINE (it is then killed):
        #: what the session reports instead of the crash it sees.
        self.overflowed = False

    def line_overflow(self) -> None:
        """The stdout reader's word that a line went beyond MAX_LINE: the engine
        broke the protocol, and nothing it writes is read any more."""
        self.overflowed = True
        # Reading goes on (the reader drops it): the pipe's end is how python-chess
        # hears of the engine's, which its running command then reports.
        self.process.kill()

    def get_pid(self) -> int:
        return self.process.get_pid()

    def get_returncode(self) -> int | None:
        return self.process.get_returncode()

    def get_pipe_transport(self, fd: int) -> asyncio.BaseTransport | None:
        if fd == 0:
            return self.stdin
        if fd == 1:
            return self.stdout
        return self.process.get_pipe_transport(fd)

    def send_signal(self, signal: int) -> None:
        self.process.send_signal(signal)

    def terminate(self) -> None:
        self.process.terminate()

    def kill(self) -> None:
        self.process.kill()

    def is_closing(self) -> bool:
        return self.process.is_closing()

    def close(self) -> None:
        self.stdin.close()
        self.stdout.close()
        self.process.close()


class _PipeEnd(io.FileIO):
    """An engine's pipe end as handed to the event loop: ``handed`` once the loop
    asked for its descriptor (from then on the loop's transport closes it, also when
    connecting it fails)."""

    handed = False

    def fileno(self) -> int:
        self.handed = True
        return super().fileno()


def _closes_fds_itself(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the loop's pipe transports close their descriptor themselves (uvloop:
    libuv does) rather than through the file they were given (asyncio)."""
    return type(loop).__module__.partition(".")[0] == "uvloop"


P = TypeVar("P", bound=chess.engine.Protocol)


async def popen_engine(cls: type[P], argv: list[str], **kwargs: Any) -> tuple[EngineTransport, P]:
    """Start an engine as python-chess's ``cls.popen(argv, **kwargs)`` does, but
    with its stdin and stdout on pipes made here, the stdout read by
    :class:`StdoutProtocol` (a UCI engine's ``info`` lines kept in the protocol's
    ``kept``, a :class:`KeptInfo`, when it has one).

    The event loop would make a child's stdio pipes itself: uvloop (libuv) makes
    them Unix socket pairs, and a line through a Unix socket costs the kernel more
    than through a pipe, on both sides, for every line an engine writes and every
    ``go`` it is sent (``bench/match.py``: some 5-8% of tcecd's CPU per move, and
    no more runs with a high system time; docs/engines.md, "A sixth round").
    ``kwargs`` go to ``loop.subprocess_exec`` (not ``stdin``/``stdout``); stderr
    stays the loop's."""
    loop = asyncio.get_running_loop()
    engine = cls()
    kept = getattr(engine, "kept", None)
    process_protocol = _Process(engine)
    out_r, out_w = os.pipe()
    in_r, in_w = os.pipe()
    try:
        try:
            process, _ = await loop.subprocess_exec(
                lambda: process_protocol, *argv, stdin=in_r, stdout=out_w, **kwargs
            )
        finally:
            os.close(out_w)  # the child has its own copies now
            os.close(in_r)
    except BaseException:
        os.close(out_r)
        os.close(in_w)
        raise
    # Each pipe end is owned by its file, then by the loop's transport (closed with
    # it). uvloop's transports close the descriptor themselves (libuv) and then the
    # file too: a file that owned it would close(2) the same number a second time,
    # and so close whatever another thread had opened under that number meanwhile
    # (the output writer's temp file: "Bad file descriptor", once in 2,000 engine
    # starts of bench/memory.py). Under uvloop the files do not own their pipe ends.
    owned = not _closes_fds_itself(loop)
    ends = [_PipeEnd(in_w, "wb", closefd=owned), _PipeEnd(out_r, "rb", closefd=owned)]
    pipes: list[asyncio.BaseTransport] = []
    try:
        stdin, _ = await loop.connect_write_pipe(asyncio.Protocol, ends[0])
        pipes.append(stdin)
        stdout, reader = await loop.connect_read_pipe(
            lambda: StdoutProtocol(
                process_protocol.stdout_closed,
                engine,
                kept if isinstance(kept, KeptInfo) else None,
            ),
            ends[1],
        )
    # Cancelled, say: no one would own the process (tests/runner/test_event_loops.py
    # cancels a start here and finds the process killed and reaped, no pipe end open).
    except BaseException:
        for pipe in pipes:
            pipe.close()
        for end, fd in zip(ends, (in_w, out_r), strict=True):
            if not end.handed:  # (a loop that took an end closes it on its failure)
                end.close()
                if not owned:
                    os.close(fd)
        process.close()  # kills it if it still runs
        raise
    transport = EngineTransport(process, stdin, stdout)
    reader.on_overflow = transport.line_overflow
    engine.connection_made(transport)
    return transport, engine
