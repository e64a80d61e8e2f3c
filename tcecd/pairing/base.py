"""Values and the protocol shared by every pairing system.

A pairing system is a pure function of the players, the finished rounds and
the round's context (total rounds, requested byes, first colour): it never
touches I/O or the clock, so pairing the same records always gives the same
round. Systems are found by name in :mod:`tcecd.pairing.registry`.

The records carry what FIDE's systems need (C.04.1 "Basic rules for Swiss
systems"): pairing numbers (``Player.seed``), ratings, titles and names for
the initial ranking; the pairing-allocated bye (``RoundRecord.bye``, scoring a
win); requested half-, zero- and full-point byes and absences
(``RoundRecord.requested_byes``); forfeits never played (``PlayedGame.played``
False: no colour, and for FIDE systems no encounter). Float history is derived
from the scores and games, as the FIDE texts define it. One TCEC-only fact
stays in the record because TCEC Swiss must re-read it: the encounter-history
rounds it removed (``removed_history_rounds``, STEP 3); other systems leave it
empty.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from tcecd.domain import Color, PlayerId, Result
from tcecd.errors import PairingError

if TYPE_CHECKING:
    from tcecd.pairing.registry import SystemOptions


@dataclass(frozen=True, slots=True)
class Player:
    """A participant: unique id, display name, seed 1..P (1 = top seed).

    ``seed`` is the pairing number of the FIDE texts (the initial ranking:
    TRF-2016's start number); ``rating`` and ``title`` are what some systems
    order by (Dutch 2012 A.2: score, rating, title, name; Dubov: rating).
    """

    id: PlayerId
    name: str
    seed: int
    rating: int | None = None
    title: str | None = None


class ByeKind(enum.Enum):
    """A round without a game for one player (C.04.1 b, c; TRF-2016 result codes).

    The value is the TRF-2016 letter. ``PAIRING`` is the pairing-allocated bye
    (TCEC's BYE), which the system chooses; the others are requested or imposed
    before the round is paired and are inputs to it.
    """

    PAIRING = "U"  # pairing-allocated bye: scores a win
    FULL = "F"  # requested full-point bye
    HALF = "H"  # requested half-point bye
    ZERO = "Z"  # zero-point bye, or simply absent

    def half_points(self, games: int) -> int:
        """Half-points the bye scores in a round of ``games`` games per player."""
        per_game = {ByeKind.PAIRING: 2, ByeKind.FULL: 2, ByeKind.HALF: 1, ByeKind.ZERO: 0}
        return per_game[self] * games


@dataclass(frozen=True, slots=True)
class Bye:
    """A player who does not play in a round, and what the round scores them."""

    player: PlayerId
    kind: ByeKind


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
    """A finished round: its pairing-allocated bye, the history rounds TCEC
    Swiss removed while pairing it (STEP 3, permanent; empty for every other
    system), its games in playing order, and the byes that were not allocated
    by the pairing (requested byes, absences)."""

    round: int
    bye: PlayerId | None
    removed_history_rounds: tuple[int, ...]
    games: tuple[PlayedGame, ...]
    requested_byes: tuple[Bye, ...] = ()


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
    """The outcome of pairing one round.

    ``pairs`` are in the system's own order (TCEC Swiss: pairing order of the
    first-of-pair; FIDE systems: board order, ``first`` = white of the first
    game). ``games`` are in playing order. ``requested_byes`` echoes the
    round's :attr:`RoundContext.requested_byes`, so the record is whole.
    """

    round: int
    bye: PlayerId | None
    removed_history_rounds: tuple[int, ...]
    pairs: tuple[Pair, ...]
    games: tuple[ScheduledGame, ...]
    requested_byes: tuple[Bye, ...] = ()


def board_order_games(pairs: Sequence[Pair], *, double: bool) -> tuple[ScheduledGame, ...]:
    """The schedule of a round paired in board order (the FIDE systems and the
    round-robin): one game per board, ``first`` White; in a double round the
    reversed games follow, in the same board order (leg 2)."""
    games = [
        ScheduledGame(number=i + 1, white=p.first, black=p.second, pair_index=i, leg=1)
        for i, p in enumerate(pairs)
    ]
    if double:
        games += [
            ScheduledGame(
                number=len(pairs) + i + 1, white=p.second, black=p.first, pair_index=i, leg=2
            )
            for i, p in enumerate(pairs)
        ]
    return tuple(games)



def absent_players(
    round_number: int, byes: Iterable[Bye], known: Collection[PlayerId]
) -> set[PlayerId]:
    """The players a round's requested byes take out of its pairing.

    Raises :class:`~tcecd.errors.PairingError` for a bye of a player not in
    ``known`` or a second bye of one player: either would silently change
    who is paired."""
    absent: set[PlayerId] = set()
    for bye in byes:
        if bye.player not in known:
            raise PairingError(f"round {round_number}: unknown bye player {bye.player!r}")
        if bye.player in absent:
            raise PairingError(f"round {round_number}: {bye.player!r} has two byes")
        absent.add(bye.player)
    return absent

@dataclass(frozen=True, slots=True)
class RoundContext:
    """What a system may need beyond the players and the history.

    ``total_rounds``: the event's number of rounds (the Dutch rules relax
    criteria for top scorers in the last round; TRF ``XXR``), None if unknown.
    ``requested_byes``: players who do not play the round being paired
    (requested H/F/Z byes, absences; TRF ``0000 - H`` or JaVaFo's ``XXZ``).
    ``first_colour``: the colour of the top pairing number in round 1 (drawn
    by lot in FIDE events; TRF ``XXC white1``/``black1``).
    """

    total_rounds: int | None = None
    requested_byes: tuple[Bye, ...] = ()
    first_colour: Color = Color.WHITE


#: The context of a round with nothing beyond players and history (a default argument).
NO_CONTEXT = RoundContext()


class PairingSystem(Protocol):
    """What the daemon, ``tcecd pair``, ``tcecd simulate`` and ``tcecd replay
    --verify`` call; the registry (:mod:`tcecd.pairing.registry`) builds them."""

    name: str

    def pair(
        self,
        players: Sequence[Player],
        history: Sequence[RoundRecord],
        *,
        double: bool,
        context: RoundContext = ...,
    ) -> RoundPairing:
        """Pair round ``len(history) + 1``; raise PairingError when impossible."""
        ...

    def rounds_for(self, players: int) -> int | None:
        """The number of rounds the field fixes (a round-robin's cycle), or None
        when the event chooses it."""
        ...



class EventLengthSystem:
    """What the systems share whose event chooses its number of rounds (every
    Swiss system; not the round-robin, whose field fixes it): no options
    unless a system overrides ``__init__``, and ``rounds_for`` is None."""

    name: str

    def __init__(self, options: SystemOptions | None = None) -> None:
        """The registry passes its options to every system; most take none."""

    def rounds_for(self, players: int) -> int | None:
        """The event chooses its number of rounds."""
        return None

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
