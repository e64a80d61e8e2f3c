"""Games of a round start in playing order: the one thing a running game asks the daemon.

A game whose engines are ready waits for its turn (the game before it has
started, or will not start) and then for permission: once a stop was
requested, a game that has not started does not start
(:class:`StoppedBeforeStart`; it is played on resume). So a stop signal never
leaves a later game running while an earlier one was never started, and results
still commit in order (docs/running.md, Signals).

The daemon hands each game's player a :class:`StartGate`; the player awaits
:meth:`StartGate.may_start` right before the game starts and calls
:meth:`StartGate.decided` once it has started or will not start.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


class StoppedBeforeStart(Exception):
    """A stop was requested before the game started (its engines were still
    starting): the game is not played now and not recorded; it is played on resume."""


class StartTurn:
    """One game's place in the round's start order (see the module docstring)."""

    def __init__(self, before: StartTurn | None) -> None:
        self._before = before
        self._decided = asyncio.Event()

    async def wait(self) -> None:
        """Until the game before this one has started or will not start."""
        if self._before is not None:
            await self._before._decided.wait()
            # Let go of the earlier turn: a long event's turns would otherwise
            # stay chained, each holding the one before it, to the first game.
            self._before = None

    def decided(self) -> None:
        """This game started, or will not start (idempotent)."""
        self._decided.set()
        self._before = None


class StartGate:
    """What a game player asks before starting a game: its turn, then (while
    the event is paused: the console's ``pause``) for the event to resume,
    then whether the daemon is stopping."""

    def __init__(
        self,
        turn: StartTurn | None,
        stopping: Callable[[], bool],
        unpaused: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._turn = turn
        self._stopping = stopping
        self._unpaused = unpaused

    async def may_start(self) -> bool:
        """Wait for the game's turn (and the end of a pause); False when it
        must not start (stopping)."""
        if self._turn is not None:
            await self._turn.wait()
        if self._unpaused is not None:
            await self._unpaused()
        return not self._stopping()

    def decided(self) -> None:
        if self._turn is not None:
            self._turn.decided()


#: A gate that never waits (games played outside a round, tests).
def open_gate() -> StartGate:
    return StartGate(None, lambda: False)
