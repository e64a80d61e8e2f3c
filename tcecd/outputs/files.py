"""Writing output files safely: atomic replacement and the append-only PGN.

* :func:`atomic_write_text` writes a temp file in the same directory and
  renames it over the target, so a reader (or a crash) only ever sees the old
  or the new content, never a half-written file.
* :class:`PgnFile` keeps the event PGN equal to the concatenation of the
  finished games' PGN texts in schedule order (the store is the truth). At
  start-up :meth:`PgnFile.sync` appends what a crash between a store commit
  and the append (or in the middle of an append) left out; it never removes
  or rewrites anything: a file that is not a beginning of the stored games'
  text is refused (docs/state.md, "What tcecd promises"). After each game
  :meth:`PgnFile.append` appends and fsyncs, and refuses a file that
  someone else changed meanwhile.

Files are created as ``open(path, "w")`` would create them: mode ``0o666``
less the umask, or the mode of the file they replace, so that a web server
running as another user can read them like any other file of the daemon.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tcecd.errors import StateError


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _create_temp(path: Path) -> tuple[int, str]:
    """A new temp file beside ``path``: mode 0o666 less the umask (not
    ``mkstemp``'s 0o600), or ``path``'s own mode when it exists."""
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    while True:
        tmp = str(path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        if mode is not None:
            os.fchmod(fd, mode)
        return fd, tmp


def atomic_write_text(path: Path, text: str, *, durable: bool = False) -> None:
    """Replace ``path`` with ``text`` atomically (temp file + rename).

    ``durable`` also fsyncs the file and its directory, so that the new
    content survives a power loss, not only a crash of this process.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_temp(path)
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

    def __init__(
        self,
        path: Path,
        crash_hook: Callable[[str], None] | None = None,
        *,
        durable: bool = True,
    ) -> None:
        """``durable`` False: appends are not fsync'd (``tcecd play`` without
        ``--state``, as fastchess and cutechess-cli write their PGNs)."""
        self.path = path
        self._crash_hook = crash_hook
        self._durable = durable
        #: The file's size as this process last left it (None: not checked yet).
        self._size: int | None = None

    def read(self) -> bytes | None:
        """The file's bytes (None: no file); a :class:`StateError` when the
        path is not a regular file or cannot be read."""
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise StateError(f"{self.path}: is a directory, not the event PGN") from None
        except OSError as exc:
            raise StateError(f"{self.path}: cannot read the event PGN: {exc.strerror}") from None

    def missing_tail(self, games: Sequence[str]) -> bytes | None:
        """What to append to make the file ``"".join(games)``: ``b""`` when it
        is already, None when the file holds anything else (text the games do
        not account for: it must not be touched)."""
        expected = "".join(games).encode("utf-8")
        current = self.read() or b""
        # Bytes, not text: a crash may tear a multi-byte character.
        if not expected.startswith(current):
            return None
        return expected[len(current) :]

    def sync(self, games: Sequence[str]) -> bool:
        """Make the file ``"".join(games)`` by appending what is missing;
        returns True if something was appended. Never removes anything: a
        file that is not a beginning of the games' text is a :class:`StateError`."""
        tail = self.missing_tail(games)
        if tail is None:
            raise StateError(
                f"{self.path}: holds text that the event state does not record; "
                "refusing to overwrite it"
            )
        self._size = len("".join(games).encode("utf-8")) - len(tail)
        if not tail and self.path.exists():
            return False
        self._write(tail)  # also creates a missing file: the event's PGN exists from its start
        return bool(tail)

    def _write(self, data: bytes, tag: str = "") -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as fh:
            size = os.fstat(fh.fileno()).st_size
            if self._size is not None and size != self._size:
                raise StateError(
                    f"{self.path}: changed by another program while the event ran "
                    f"({size} bytes where the event wrote {self._size}); refusing to "
                    f"append {'game ' + tag if tag else 'to it'}"
                )
            total = len(data)
            if self._crash_hook is not None:
                half = len(data) // 2
                fh.write(data[:half])
                fh.flush()
                os.fsync(fh.fileno())
                self._crash_hook(tag)
                data = data[half:]
            fh.write(data)
            fh.flush()
            if self._durable:
                os.fsync(fh.fileno())
        if self._size is not None:
            self._size = size + total

    def append(self, text: str, *, tag: str = "") -> None:
        """Append one game's text and fsync before returning (when durable)."""
        self._write(text.encode("utf-8"), tag)


def count_games(data: bytes) -> int:
    """The number of games in PGN bytes (their ``[Event`` tags), for messages."""
    return len(re.findall(rb"^\[Event ", data, re.M))
