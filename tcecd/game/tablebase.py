"""The I/O shell around Syzygy tablebases: opens the files, returns a probe.

The pure :class:`tcecd.game.adjudication.Adjudicator` only sees the probe
function; this module is the one place that opens tablebase files.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import chess
import chess.syzygy

from tcecd.errors import ConfigError


def open_probe(
    path: str | Path,
) -> tuple[Callable[[chess.Board], int | None], Callable[[], None]]:
    """Open the Syzygy tables under ``path`` (a directory, or several joined
    by ``os.pathsep``); return ``(probe, close)``.

    ``probe(board)`` is the WDL value from the side to move (2 win, 1 cursed
    win, 0 draw, -1 blessed loss, -2 loss) or None when no table covers the
    position (too many pieces, castling rights, missing file). Raises
    :class:`ConfigError` when a directory does not exist.
    """
    dirs = [Path(part) for part in str(path).split(os.pathsep) if part]
    if not dirs:
        raise ConfigError(f"tablebase path is empty: {str(path)!r}")
    for directory in dirs:
        if not directory.is_dir():
            raise ConfigError(f"tablebase directory not found: {str(directory)!r}")
    tablebase = chess.syzygy.Tablebase()
    for directory in dirs:
        tablebase.add_directory(str(directory))

    def probe(board: chess.Board) -> int | None:
        if board.castling_rights:
            return None
        try:
            return tablebase.get_wdl(board)
        except (KeyError, ValueError):  # pragma: no cover - get_wdl returns None instead
            return None

    return probe, tablebase.close
