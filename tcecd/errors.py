"""The error hierarchy.

Every error a user can cause (bad config, bad PGN, bad state, a misbehaving
engine) is a :class:`TcecdError`. The CLI turns one into a single line on
stderr and exit code 2, with no traceback. Messages name the file, key or game
and quote the bad value, in the style of python-chess (``f"invalid uci: {uci!r}"``).
"""

from __future__ import annotations

from collections.abc import Callable


class TcecdError(Exception):
    """Root of every error tcecd reports to a user."""

    #: Process exit code when this error reaches the CLI.
    exit_code: int = 2


class ConfigError(TcecdError):
    """An event config, engine definition or command-line option is invalid."""


class PairingError(TcecdError):
    """No pairing is possible under the rules (named round and reason)."""


class EngineError(TcecdError):
    """An engine could not be started or broke its protocol."""


class OpeningsError(TcecdError):
    """An openings file is unreadable or holds an illegal position or move."""


class PgnError(TcecdError):
    """A PGN file is malformed or does not describe a valid event."""


class StateError(TcecdError):
    """The event state on disk is corrupt or contradicts the config."""


class TrfError(TcecdError):
    """A FIDE Tournament Report File (TRF-2016) is malformed or inconsistent
    (the message names the file, the line and the field), or an event cannot
    be written as one."""


class BusError(TcecdError):
    """The MQTT configuration is invalid (a broker being down is not an error)."""


def first_leaf(
    group: BaseExceptionGroup[BaseException],
    wanted: Callable[[BaseException], bool] = lambda e: isinstance(e, TcecdError),
) -> BaseException | None:
    """The first exception in ``group`` (depth first, nested groups opened)
    that ``wanted`` accepts; by default the first :class:`TcecdError`.

    A task group wraps what its tasks raise; a user-facing error in one of
    them (an engine that cannot be run at all, an option it lacks) should reach
    the CLI as that one line, not as a group with a traceback. The one place
    that unwraps them."""
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            found = first_leaf(exc, wanted)
            if found is not None:
                return found
        elif wanted(exc):
            return exc
    return None
