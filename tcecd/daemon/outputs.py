"""Where the daemon's results go besides the store: the live stream and the files.

* :class:`EventSink` is what the runner needs of the live stream (the MQTT
  :class:`tcecd.bus.publisher.Publisher`, or :class:`NullPublisher` without a
  broker). Publishing never blocks and never raises for a broker's sake. The
  messages that must reach subscribers come from the sink as outbox entries
  (:mod:`tcecd.bus.outbox`) that the runner commits with what they announce,
  and go back to it with their row ids.
* :class:`FileWriter` is the single writer of the TCEC JSON files
  (``schedule.json``, ``crosstable.json``, ``live.json``). The event loop only
  hands a document over, as text or as a function that renders it
  (:meth:`FileWriter.submit`, a plain call, so that the per-move hook stays
  synchronous); one task writes it atomically (temp file + rename) in a
  worker thread. Writes to the same file are coalesced: a file is always
  written with the newest document handed over for it, so a slow disk delays
  ``live.json`` but never makes it go backwards, and never stalls a game.
  The writer writes at most once every ``interval_s`` (0.1 s), and renders a
  document only when it writes it: when moves come faster than that (fast
  games, many at once), the documents of the moves in between are never
  made, instead of being made and thrown away. :meth:`FileWriter.flush`
  waits until everything handed over is on disk (the daemon flushes after
  each game, so a finished game's JSON files are written before the next
  game starts).

The PGN append and the store commits are not here: they are awaited in order
by the commit step itself (see :mod:`tcecd.daemon.core` and docs/state.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from tcecd.bus.outbox import OutboxEntry
from tcecd.events import DomainEvent
from tcecd.game.record import GameRecord
from tcecd.outputs.files import atomic_write_text


class EventSink(Protocol):
    """What the runner needs of the live stream: :class:`tcecd.bus.publisher.Publisher`
    (or :class:`NullPublisher`). ``publish`` must never block or raise for a
    broker's sake: games never wait for viewers."""

    def publish(
        self, event: DomainEvent, stored: Sequence[tuple[int, OutboxEntry]] = ()
    ) -> None: ...

    def outbox_entries(self, event: DomainEvent) -> list[OutboxEntry]: ...

    def publish_stored(self, rows: Iterable[tuple[int, OutboxEntry]]) -> None: ...

    def publish_crosstable(self, table: dict[str, Any]) -> None: ...

    def restore_finished(self, records: Iterable[GameRecord]) -> None: ...

    async def flush(self, timeout_s: float) -> bool: ...


class NullPublisher:
    """Stands in for the MQTT publisher when the config has no ``mqtt``
    (no outbox entries: nothing is kept for a broker that is not there)."""

    def publish(
        self, event: DomainEvent, stored: Sequence[tuple[int, OutboxEntry]] = ()
    ) -> None:
        del event, stored

    def outbox_entries(self, event: DomainEvent) -> list[OutboxEntry]:
        del event
        return []

    def publish_stored(self, rows: Iterable[tuple[int, OutboxEntry]]) -> None:
        del rows

    def publish_crosstable(self, table: dict[str, Any]) -> None:
        del table

    def restore_finished(self, records: Iterable[GameRecord]) -> None:
        del records

    async def flush(self, timeout_s: float) -> bool:
        del timeout_s
        return True


def json_text(value: Any, *, indent: int | None = 1) -> str:
    """``value`` as the JSON files hold it (as :func:`tcecd.outputs.files.atomic_write_json`)."""
    return json.dumps(value, indent=indent, ensure_ascii=False) + "\n"


#: A document for :meth:`FileWriter.submit`: its text, or a function that makes it.
Document = str | Callable[[], str]

#: The least time between two writes of the JSON files (see the module docstring).
WRITE_INTERVAL_S = 0.1


def _write_all(batch: dict[Path, str]) -> None:
    for path, text in batch.items():
        atomic_write_text(path, text)


class FileWriter:
    """The one writer of the JSON output files (see the module docstring).

    Use as ``async with writer:``; the writing task lives exactly as long as
    the block and everything handed over is written when it ends (also when
    it ends by an exception or a cancellation). Outside the block
    :meth:`submit` writes at once, on the caller's thread. A failed write is
    raised again by the next :meth:`submit` or :meth:`flush`, so a full disk
    stops the event as loudly as it did when the loop wrote the files itself.
    """

    def __init__(self, interval_s: float = WRITE_INTERVAL_S) -> None:
        self.interval_s = interval_s
        self._pending: dict[Path, Document] = {}
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._error: BaseException | None = None
        self._task: asyncio.Task[None] | None = None

    def _raise_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def submit(self, path: Path, document: Document) -> None:
        """Have ``path`` replaced (atomically) by ``document``: a text, or a
        function called on the event loop when the file is written; returns
        at once."""
        self._raise_error()
        if self._task is None:
            atomic_write_text(path, document if isinstance(document, str) else document())
            return
        self._pending[path] = document
        self._idle.clear()
        self._wake.set()

    async def flush(self) -> None:
        """Wait until every text handed over so far is written."""
        if self._task is not None:
            await self._idle.wait()
        self._raise_error()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            pending, self._pending = self._pending, {}
            if pending:
                try:
                    # Rendered here, on the loop: the documents' owners change them there.
                    batch = {
                        path: doc if isinstance(doc, str) else doc()
                        for path, doc in pending.items()
                    }
                    await asyncio.to_thread(_write_all, batch)
                except Exception as exc:  # re-raised by submit/flush
                    self._error = exc
            if not self._pending:
                self._idle.set()
            if pending and self.interval_s > 0:
                await asyncio.sleep(self.interval_s)

    def start(self) -> None:
        """Start the writing task (on the running loop); :meth:`stop` ends it."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="tcecd-file-writer")

    async def stop(self) -> None:
        """Write what was handed over, then end the writing task (as leaving
        the ``async with`` block normally)."""
        await self.__aexit__(None, None, None)

    async def __aenter__(self) -> FileWriter:
        self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        task, self._task = self._task, None
        try:
            if task is not None and exc_type is None:
                await self._drain(task)
            elif task is not None:
                # Leaving by an error or an abort: still write what the last
                # game left (best effort; the original exception wins).
                with contextlib.suppress(Exception):
                    await self._drain(task)
        finally:
            if task is not None:
                task.cancel()
                # asyncio.wait, not ``await task``: a cancellation of *this*
                # task must propagate, not be swallowed with the writer's.
                await asyncio.wait([task])

    async def _drain(self, task: asyncio.Task[None]) -> None:
        if not task.done():
            await self._idle.wait()
        self._raise_error()
