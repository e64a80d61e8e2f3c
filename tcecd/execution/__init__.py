"""Game execution: where and how a game the daemon scheduled is played.

The daemon (:mod:`tcecd.daemon.core`) hands a :class:`~tcecd.execution.job.GameJob`
to a :class:`GamePlayer` and reads back a stream of
:class:`~tcecd.execution.job.GameUpdate` values (the live moves) and one
:class:`~tcecd.execution.job.GameResult`. It stays the only writer of the store,
the PGN and the live stream whatever the backend:

- ``local`` (:mod:`tcecd.execution.local`): in this process;
- ``dask`` (:mod:`tcecd.execution.dask`): on the workers of a Dask
  ``distributed`` cluster (docs/operations.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from tcecd.execution.gate import StartGate
from tcecd.execution.job import GameJob, GameResult, GameUpdate

if TYPE_CHECKING:
    from tcecd.runner.reaper import EngineGroups


class Updates(Protocol):
    """Where a game player puts a game's updates as they happen: an
    ``asyncio.Queue``, or the daemon's handler called at once (no task switch
    a move: :meth:`tcecd.daemon.runner.EventRunner._play`)."""

    def put_nowait(self, item: GameUpdate, /) -> None: ...


class GamePlayer(Protocol):
    """Plays games. ``play`` puts the game's updates on ``updates`` as they
    happen and returns the result; cancelling it stops the game and its engines.
    The only thing it asks the daemon is ``gate``: whether the game may start
    now (:mod:`tcecd.execution.gate`)."""

    name: str

    def use_engine_groups(self, groups: EngineGroups | None) -> None:
        """The event's record of engine process groups (local engines only)."""

    async def play(self, job: GameJob, updates: Updates, gate: StartGate) -> GameResult: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class ExecutionSettings:
    """The ``execution:`` config section (docs/config.md)."""

    backend: Literal["local", "dask"] = "local"
    #: The Dask scheduler's address (``tcp://HOST:PORT`` or ``tls://HOST:PORT``).
    scheduler: str | None = None
    #: ``engine_slots`` each game asks for (None: from the engines' ``Threads``).
    slots: int | None = None
    connect_timeout_s: float = 10.0
    #: TLS files for ``tls://`` (CA, this client's certificate and key).
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None


async def open_player(settings: ExecutionSettings) -> GamePlayer:
    """The configured backend, ready to play (a Dask client is connected:
    an unreachable scheduler is an :class:`~tcecd.execution.job.ExecutionError`)."""
    if settings.backend == "dask":
        from tcecd.execution.dask import DaskPlayer

        return await DaskPlayer.connect(settings)
    from tcecd.execution.local import LocalPlayer

    return LocalPlayer()


__all__ = ["ExecutionSettings", "GamePlayer", "Updates", "open_player"]
