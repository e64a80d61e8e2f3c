"""Writing output files safely: atomic replacement and the append-only PGN.

* :func:`atomic_write_text` writes a temp file in the same directory and
  renames it over the target, so a reader (or a crash) only ever sees the old
  or the new content, never a half-written file.
* :class:`PgnFile` keeps the event PGN equal to the concatenation of the
  finished games' PGN texts in schedule order (the store is the truth). At
  start-up :meth:`PgnFile.sync` rewrites the file atomically if it differs
  (a crash between a store commit and the append, or in the middle of an
  append); after each game :meth:`PgnFile.append` appends and fsyncs.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str, *, durable: bool = False) -> None:
    """Replace ``path`` with ``text`` atomically (temp file + rename).

    ``durable`` also fsyncs the file and its directory, so that the new
    content survives a power loss, not only a crash of this process.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)


def atomic_write_json(path: Path, value: Any, *, indent: int | None = 1) -> None:
    """Write ``value`` as UTF-8 JSON (``indent`` None: compact), atomically."""
    atomic_write_text(path, json.dumps(value, indent=indent, ensure_ascii=False) + "\n")


class PgnFile:
    """The event PGN file: append-only while running, repaired at start-up.

    ``crash_hook`` is called between the two halves of an append (the test-only
    ``mid-pgn-write`` crash point, see docs/state.md); it is None in production.
    """

    def __init__(self, path: Path, crash_hook: Callable[[str], None] | None = None) -> None:
        self.path = path
        self._crash_hook = crash_hook

    def sync(self, games: Sequence[str]) -> bool:
        """Make the file exactly ``"".join(games)``; returns True if it was repaired."""
        expected = "".join(games)
        try:
            current = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        except UnicodeDecodeError:
            current = ""  # a torn multi-byte character: rewrite
        if current == expected:
            return False
        atomic_write_text(self.path, expected, durable=True)
        return current is not None or bool(expected)

    def append(self, text: str, *, tag: str = "") -> None:
        """Append one game's text and fsync before returning."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        with open(self.path, "ab") as fh:
            if self._crash_hook is not None:
                half = len(data) // 2
                fh.write(data[:half])
                fh.flush()
                os.fsync(fh.fileno())
                self._crash_hook(tag)
                data = data[half:]
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
