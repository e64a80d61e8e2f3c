"""Pairing round after round without re-reading the history: pairing sessions.

A session starts from the players and the finished rounds, pairs the next
round (:meth:`PairingSession.pair`) and takes the finished round back
(:meth:`PairingSession.record`), keeping its running totals (scores, BYEs,
colours, and whatever else its system needs) up to date. The forecast plays
thousands of simulated event endings this way (:mod:`tcecd.forecast.montecarlo`):
re-tallying the whole history every round cost more than the pairing itself.

A system offers its own session through a ``session(players, history,
double=...)`` method (TCEC Swiss: :class:`tcecd.pairing.tcec_swiss.TcecSwissSession`,
which is also what its ``pair`` runs). Any other system gets
:class:`HistorySession`, which keeps the history and calls the system's
``pair``. Either way the records are validated as :func:`tcecd.pairing.tally.tally`
validates them, one round at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tcecd.domain import PlayerId
from tcecd.errors import PairingError
from tcecd.pairing.base import (
    NO_CONTEXT,
    PairingSystem,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
)
from tcecd.pairing.points import STANDARD, PointSystem
from tcecd.pairing.tally import RunningTally, Tally, check_players


class PairingSession(Protocol):
    """A pairing system's state after some finished rounds."""

    @property
    def rounds(self) -> int:
        """Finished rounds recorded so far (the next round is ``rounds + 1``)."""
        ...

    @property
    def totals(self) -> dict[PlayerId, Tally]:
        """Every player's totals over the recorded rounds (do not modify)."""
        ...

    def pair(self, context: RoundContext = ...) -> RoundPairing:
        """Pair round ``rounds + 1``, exactly as the system's ``pair`` would
        from the recorded history; :class:`~tcecd.errors.PairingError` when
        impossible. Changes nothing: the round counts once recorded."""
        ...

    def record(self, record: RoundRecord) -> None:
        """Add finished round ``rounds + 1`` (usually the round just paired,
        with its results); :class:`~tcecd.errors.PairingError` for a bad
        record, which leaves the session unchanged."""
        ...

    def copy(self) -> PairingSession:
        """An independent session in the same state (one per simulation)."""
        ...


@dataclass(frozen=True, slots=True)
class IndexedRound:
    """A round as an :class:`IndexedSession` pairs it, in player indices
    (positions in the session's players): the pairing-allocated BYE (-1 if
    none), the history rounds removed (TCEC Swiss STEP 3) and the games
    ``(white, black)`` in playing order."""

    round: int
    bye: int
    removed_history_rounds: tuple[int, ...]
    games: tuple[tuple[int, int], ...]


@runtime_checkable
class IndexedSession(Protocol):
    """A session that can also pair and record rounds in player indices,
    without building pairs, games and records as objects (the forecast pairs
    and records millions of rounds): ``pair_games`` is ``pair`` and
    ``record_games`` is ``record`` of the same round with the given results,
    every game played."""

    def pair_games(self, context: RoundContext = ...) -> IndexedRound:
        """:meth:`PairingSession.pair` in player indices."""
        ...

    def record_games(self, paired: IndexedRound, white_halves: Sequence[int]) -> None:
        """Record ``paired`` (this session's ``pair_games``) with white's
        half-points (0, 1 or 2) of each of its games, in order."""
        ...


@runtime_checkable
class IncrementalSystem(Protocol):
    """A pairing system with its own session."""

    def session(
        self, players: Sequence[Player], history: Sequence[RoundRecord], *, double: bool
    ) -> PairingSession: ...


class HistorySession:
    """The session of a system without one of its own: keeps the history and
    calls the system's ``pair``; the totals are kept as records arrive."""

    __slots__ = ("_tally", "double", "history", "players", "system")

    def __init__(
        self,
        system: PairingSystem,
        players: Sequence[Player],
        history: Sequence[RoundRecord],
        *,
        double: bool,
        points: PointSystem = STANDARD,
    ) -> None:
        check_players(players)
        self.system = system
        self.players = tuple(players)
        self.double = double
        self.history: list[RoundRecord] = []
        self._tally = RunningTally(players, double=double, points=points)
        for record in history:
            self.record(record)

    @property
    def rounds(self) -> int:
        return self._tally.rounds

    @property
    def totals(self) -> dict[PlayerId, Tally]:
        return self._tally.totals

    def pair(self, context: RoundContext = NO_CONTEXT) -> RoundPairing:
        return self.system.pair(self.players, self.history, double=self.double, context=context)

    def record(self, record: RoundRecord) -> None:
        self._tally.add(record)
        self.history.append(record)

    def copy(self) -> HistorySession:
        other = HistorySession.__new__(HistorySession)
        other.system = self.system
        other.players = self.players
        other.double = self.double
        other.history = list(self.history)
        other._tally = self._tally.copy()
        return other


def open_session(
    system: PairingSystem,
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    *,
    double: bool,
    points: PointSystem = STANDARD,
) -> PairingSession:
    """A session of ``system`` after ``history``: the system's own if it has
    one, else a :class:`HistorySession`; its totals count by ``points``
    (a system with its own session takes only the standard ones)."""
    if isinstance(system, IncrementalSystem):
        if points != STANDARD:
            raise PairingError(f"the {system.name} session counts only standard points")
        return system.session(players, history, double=double)
    return HistorySession(system, players, history, double=double, points=points)
