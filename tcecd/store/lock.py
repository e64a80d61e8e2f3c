"""The state directory's lock: one tcecd process per event."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from tcecd.errors import StateError


def lock_directory(state_dir: Path) -> int:
    """Create ``state_dir`` if needed and hold an exclusive ``flock`` on the
    directory itself; returns the descriptor (closing it releases the lock).

    The directory, not a lock file in it: a file can be deleted from under a
    running daemon (a second one would then lock a new file and run the same
    event), the directory of a running event cannot be replaced while it
    holds the database. The kernel drops the lock when the process dies."""
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise StateError(f"{state_dir}: is not a directory (state_dir must name one)") from None
    except OSError as exc:
        raise StateError(
            f"{state_dir}: cannot create the state directory: {exc.strerror}"
        ) from None
    try:
        fd = os.open(state_dir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise StateError(f"{state_dir}: cannot open the state directory: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StateError(
            f"{state_dir}: another tcecd process is running this state directory"
        ) from None
    return fd
