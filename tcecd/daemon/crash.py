"""Test-only crash points: ``TCECD_TEST_CRASH_AT`` makes the daemon SIGKILL itself.

The kill/resume tests need to hit precise moments (in the middle of a game,
between a store commit and the PGN append, in the middle of the PGN append,
right after a round was paired). Real SIGKILLs at random moments are tested as
well; these points make the interesting ones deterministic. Never set this
variable in production: the daemon kills itself with SIGKILL, exactly as if the
machine had lost power for this process (docs/state.md lists the points).

Syntax: comma-separated points, each ``KIND:ARG``:

* ``after-pairing:R``     round R's pairing is committed, nothing of it played;
* ``after-store:r.g``     game r.g is committed in the store, not yet in the PGN;
* ``mid-pgn-write:r.g``   half of game r.g's PGN text is appended and fsync'd;
* ``after-game:r.g``      game r.g is fully recorded (store, PGN, JSON files);
* ``mid-game:r.g:ply=N``  game r.g has just played ply N.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping

ENV_VAR = "TCECD_TEST_CRASH_AT"


class CrashPoints:
    """The parsed ``TCECD_TEST_CRASH_AT`` points; :meth:`hit` kills the process
    at a matching point and does nothing otherwise."""

    def __init__(self, spec: str = "") -> None:
        self._points: set[str] = {p.strip() for p in spec.split(",") if p.strip()}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> CrashPoints:
        env = os.environ if environ is None else environ
        return cls(env.get(ENV_VAR, ""))

    @property
    def active(self) -> bool:
        return bool(self._points)

    def wants(self, point: str) -> bool:
        return point in self._points

    def hit(self, point: str) -> None:
        """SIGKILL this process if ``point`` (e.g. ``"after-game:2.1"``) is armed."""
        if point in self._points:
            os.kill(os.getpid(), signal.SIGKILL)
