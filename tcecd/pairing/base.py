"""Values and the protocol shared by every pairing system.

A pairing system is a pure function of the players and the finished rounds: it
never touches I/O or the clock. The whole state of an event's pairing is the
list of :class:`RoundRecord` (removed history rounds included), so pairing the
same records always gives the same round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from tcecd.domain import PlayerId, Result


@dataclass(frozen=True, slots=True)
class Player:
    """A participant: unique id, display name, seed 1..P (1 = top seed)."""

    id: PlayerId
    name: str
    seed: int
    rating: int | None = None


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A finished game of a round, as it counts for pairing and standings.

    ``played`` is False for a game that never started (forfeited because an
    engine was disqualified): it scores, but it gives neither player a colour
    (tcec-swiss.md, "Players, seeds, scores").
    """

    white: PlayerId
    black: PlayerId
    result: Result
    played: bool = True


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A finished round: its BYE, the history rounds removed while pairing it
    (STEP 3, permanent), and its games in playing order."""

    round: int
    bye: PlayerId | None
    removed_history_rounds: tuple[int, ...]
    games: tuple[PlayedGame, ...]


@dataclass(frozen=True, slots=True)
class Pair:
    """A pair as STEP 4 forms it: ``first`` is the first-of-pair."""

    first: PlayerId
    second: PlayerId


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of a round's schedule.

    ``number`` is the 1-based position in the playing order (the ``g`` of the
    PGN Round tag ``"r.g"``); ``pair_index`` indexes :attr:`RoundPairing.pairs`;
    ``leg`` is 1, or 2 for the reversed game of a double round.
    """

    number: int
    white: PlayerId
    black: PlayerId
    pair_index: int
    leg: int = 1


@dataclass(frozen=True, slots=True)
class RoundPairing:
    """The outcome of pairing one round."""

    round: int
    bye: PlayerId | None
    removed_history_rounds: tuple[int, ...]
    pairs: tuple[Pair, ...]
    games: tuple[ScheduledGame, ...]


class PairingSystem(Protocol):
    """What the daemon, ``tcecd pair`` and ``tcecd replay --verify`` call."""

    name: str

    def pair(
        self,
        players: Sequence[Player],
        history: Sequence[RoundRecord],
        *,
        double: bool,
    ) -> RoundPairing:
        """Pair round ``len(history) + 1``; raise PairingError when impossible."""
        ...


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of the standings: rank 1..P (total order, seed last),
    score in half-points (BYEs included), received BYEs, games played and
    the configured tiebreak values by name, in configured order."""

    rank: int
    id: PlayerId
    score_half: int
    byes: int
    games: int
    tiebreaks: tuple[tuple[str, float], ...]

    @property
    def score(self) -> float:
        return self.score_half / 2
