"""SIGINT/SIGTERM that arrive before the daemon's event loop handles them.

``tcecd run`` installs :func:`defer` first thing, before it imports the config
layer, the daemon and python-chess (about 0.4 s): until then a SIGTERM would kill
the process (exit -15) and a SIGINT raise ``KeyboardInterrupt`` (exit 130), against
the documented exit 0. Deferred signals are only recorded; the daemon takes them
(:func:`take`) once its own handlers are in place and treats them as if they had
just arrived (docs/running.md, "Signals"). Kept tiny and import-free on purpose.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

#: The signals the daemon handles (first: stop; second: abort).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

_pending: list[int] = []
_deferring = False


def _record(signum: int, frame: FrameType | None) -> None:
    _pending.append(signum)


def defer() -> dict[int, object]:
    """Record SIGINT/SIGTERM from now on instead of dying; returns the previous handlers
    (none when called outside the main thread, where Python cannot set handlers)."""
    global _deferring
    if threading.current_thread() is not threading.main_thread():
        return {}
    _deferring = True
    return {int(sig): signal.signal(sig, _record) for sig in STOP_SIGNALS}


def resume_deferring() -> None:
    """Record again after the event loop removed its handlers (until the process exits),
    when :func:`defer` was called in this process."""
    if _deferring and threading.current_thread() is threading.main_thread():
        for sig in STOP_SIGNALS:
            signal.signal(sig, _record)


def restore(previous: dict[int, object]) -> None:
    """Put back the handlers :func:`defer` replaced (an in-process ``main([...])`` call)."""
    global _deferring
    _deferring = False
    for sig, handler in previous.items():
        signal.signal(sig, handler)  # type: ignore[arg-type]


def take() -> list[int]:
    """The signals recorded so far, oldest first (and forget them)."""
    taken = list(_pending)
    _pending.clear()
    return taken
