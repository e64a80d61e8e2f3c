"""The event loop every tcecd command runs on: uvloop's, else asyncio's own.

A game's CPU cost in tcecd is mostly the event loop waking up: an engine flushes
each ``info`` line on its own (Stockfish about ten a move), and every line is one
turn of the loop, entered with cold caches after the engine ran. uvloop (libuv,
compiled) takes that turn, the pipe read and the subprocess bookkeeping out of
Python; only the line itself reaches Python (:mod:`tcecd.runner.pipes`). On the
bench's match (``bench/match.py``) that is about an eighth less of tcecd's CPU per
move (docs/engines.md, "The event loop").

``TCECD_EVENT_LOOP=asyncio`` selects asyncio's own loop (to compare, or to rule
uvloop out when chasing a problem); ``uvloop`` or unset selects uvloop where it is
installed (it is a dependency on Linux and macOS). Everything tcecd does on a loop
is plain asyncio API, so both loops run the same code; the test suite runs the
commands on uvloop and the in-process tests on asyncio's loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from tcecd.errors import ConfigError

T = TypeVar("T")

#: The environment variable that chooses the loop (``uvloop`` or ``asyncio``).
ENV = "TCECD_EVENT_LOOP"


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The loop factory for :class:`asyncio.Runner`: uvloop's unless
    ``TCECD_EVENT_LOOP=asyncio`` or uvloop is not installed (None: asyncio's)."""
    choice = os.environ.get(ENV, "").strip().lower() or "uvloop"
    if choice not in ("uvloop", "asyncio"):
        raise ConfigError(f"{ENV}={choice!r}: expected 'uvloop' or 'asyncio'")
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def name() -> str:
    """The chosen loop as people read it: ``uvloop 0.23.0`` or ``asyncio``."""
    factory = loop_factory()
    if factory is None:
        return "asyncio"
    from importlib.metadata import version

    return f"uvloop {version('uvloop')}"


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the loop :func:`loop_factory` chooses."""
    try:
        factory = loop_factory()
    except ConfigError:
        main.close()  # never awaited: no "coroutine was never awaited" warning
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
