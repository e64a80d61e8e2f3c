"""The wall clock, in the one format every record and payload uses.

The pure core never reads the clock: the I/O shell stamps values with
:func:`utc_now` and passes them in (a game's start and end, a forfeit's
time, an MQTT payload's ``ts``). One function, so that every timestamp tcecd
writes has the same shape: UTC, ISO 8601, milliseconds, ``Z``
(``2026-11-22T03:59:43.149Z``; TCEC's viewer and python-chess read it).
"""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> str:
    """The current UTC time as ``2026-11-22T03:59:43.149Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
