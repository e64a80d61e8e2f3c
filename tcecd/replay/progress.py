"""A one-line progress bar on stderr, shown only on a terminal.

Reading a 10,000-game PGN takes a while; a person at a terminal should see it
move, while logs and pipes should get nothing. The bar is driven by the byte
position the PGN reader reports (:data:`tcecd.pgn.reader.ProgressCallback`).
"""

from __future__ import annotations

import sys
from typing import TextIO


class ProgressBar:
    """``reading EVENT.pgn [#########.........]  45%  4512 games``.

    Call it with ``(done, total)`` after each game (bytes of the file) or
    each round (``unit="rounds"``: rounds re-paired); it redraws at most once
    per percent. :meth:`close` clears the line. On a stream that is
    not a terminal every call is a no-op.
    """

    WIDTH = 30

    def __init__(self, label: str, stream: TextIO | None = None, *, unit: str = "games") -> None:
        self.label = label
        self.unit = unit
        self.stream: TextIO = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.games = 0
        self._last = -1
        self._drawn = False

    def __call__(self, done: int, total: int) -> None:
        self.games += 1
        if not self.enabled:
            return
        percent = 100 if total <= 0 else min(100, done * 100 // total)
        if percent == self._last:
            return
        self._last = percent
        filled = percent * self.WIDTH // 100
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {percent:3d}%  {self.games} {self.unit}")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Erase the bar so the next output starts on a clean line."""
        if self.enabled and self._drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
        self._drawn = False
