"""Values and the protocol shared by every pairing system.

A pairing system is a pure function of the players, the finished rounds and
the round's context (total rounds, requested byes, first colour): it never
touches I/O or the clock, so pairing the same records always gives the same
round. Systems are found by name in :mod:`tcecd.pairing.registry`.

The records carry what FIDE's systems need (C.04.1 "Basic rules for Swiss
systems"): pairing numbers (``Player.seed``), ratings, titles and names for
the initial ranking; the pairing-allocated byes (``RoundRecord.byes``, each
scoring a win); requested half-, zero- and full-point byes and absences
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
from tcecd.pairing.points import (
    NO_ACCELERATION,
    NO_FORBIDDEN,
    STANDARD,
    Acceleration,
    ForbiddenPairs,
    PointSystem,
)

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


ByeSpec = Collection[PlayerId] | PlayerId | None


def _bye_set(byes: ByeSpec, requested: Iterable[Bye]) -> frozenset[PlayerId]:
    """The round's pairing-allocated byes: ``byes`` (a collection of ids; a
    single id or None as the records had them before several could be
    allocated) and any kind ``U`` among the requested byes (how older
    records kept the further ones)."""
    if byes is None:
        out: set[PlayerId] = set()
    elif isinstance(byes, str):
        out = {byes}
    else:
        out = set(byes)
    out.update(b.player for b in requested if b.kind is ByeKind.PAIRING)
    return frozenset(out)


def _init_round(
    target: object,
    round: int,
    byes: ByeSpec,
    bye: PlayerId | None,
    removed_history_rounds: tuple[int, ...],
    requested_byes: tuple[Bye, ...],
) -> None:
    """The fields a round's record and its pairing share, set on the frozen
    ``target``: kind ``U`` entries of ``requested_byes`` move to ``byes``."""
    object.__setattr__(target, "round", round)
    object.__setattr__(target, "byes", _bye_set(byes, requested_byes) | _bye_set(bye, ()))
    object.__setattr__(target, "removed_history_rounds", tuple(removed_history_rounds))
    object.__setattr__(
        target,
        "requested_byes",
        tuple(b for b in requested_byes if b.kind is not ByeKind.PAIRING),
    )


def _only_bye(round_number: int, byes: frozenset[PlayerId]) -> PlayerId | None:
    if len(byes) > 1:
        listed = ", ".join(repr(b) for b in sorted(byes))
        raise PairingError(
            f"round {round_number} has several pairing-allocated byes ({listed}); read 'byes'"
        )
    return next(iter(byes), None)


@dataclass(frozen=True, slots=True, init=False)
class RoundRecord:
    """A finished round: its pairing-allocated byes (a set: the FIDE systems
    and TCEC Swiss allocate at most one, the integer-program model may leave
    several players unpaired), the history rounds TCEC Swiss removed while
    pairing it (STEP 3, permanent; empty for every other system), its games
    in playing order, and the byes that were not allocated by the pairing
    (requested byes, absences: never kind ``U``)."""

    round: int
    byes: frozenset[PlayerId]
    removed_history_rounds: tuple[int, ...]
    games: tuple[PlayedGame, ...]
    requested_byes: tuple[Bye, ...]

    def __init__(
        self,
        round: int,
        byes: ByeSpec = None,
        removed_history_rounds: tuple[int, ...] = (),
        games: tuple[PlayedGame, ...] = (),
        requested_byes: tuple[Bye, ...] = (),
        *,
        bye: PlayerId | None = None,
    ) -> None:
        """``byes`` may also be given as one id or None, and ``bye=`` is kept
        for callers written when a round had at most one; kind ``U`` entries
        of ``requested_byes`` join ``byes`` (how older records held them)."""
        _init_round(self, round, byes, bye, removed_history_rounds, requested_byes)
        object.__setattr__(self, "games", tuple(games))

    @property
    def bye(self) -> PlayerId | None:
        """The round's only pairing-allocated bye (None: none). A
        :class:`PairingError` when it has several: code that may meet the
        integer program's rounds reads :attr:`byes`."""
        return _only_bye(self.round, self.byes)


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


@dataclass(frozen=True, slots=True, init=False)
class RoundPairing:
    """The outcome of pairing one round.

    ``pairs`` are in the system's own order (TCEC Swiss: pairing order of the
    first-of-pair; FIDE systems: board order, ``first`` = white of the first
    game). ``games`` are in playing order. ``byes`` are the players the
    pairing leaves unpaired (pairing-allocated byes: at most one, except in
    the integer program). ``requested_byes`` echoes the round's
    :attr:`RoundContext.requested_byes`, so the record is whole.
    """

    round: int
    byes: frozenset[PlayerId]
    removed_history_rounds: tuple[int, ...]
    pairs: tuple[Pair, ...]
    games: tuple[ScheduledGame, ...]
    requested_byes: tuple[Bye, ...]

    def __init__(
        self,
        round: int,
        byes: ByeSpec = None,
        removed_history_rounds: tuple[int, ...] = (),
        pairs: tuple[Pair, ...] = (),
        games: tuple[ScheduledGame, ...] = (),
        requested_byes: tuple[Bye, ...] = (),
        *,
        bye: PlayerId | None = None,
    ) -> None:
        """As :class:`RoundRecord`: one id, None or ``bye=`` are accepted too."""
        _init_round(self, round, byes, bye, removed_history_rounds, requested_byes)
        object.__setattr__(self, "pairs", tuple(pairs))
        object.__setattr__(self, "games", tuple(games))

    @property
    def bye(self) -> PlayerId | None:
        """The only pairing-allocated bye (None: none); :class:`PairingError`
        when there are several (read :attr:`byes`)."""
        return _only_bye(self.round, self.byes)

    def record(self, games: Sequence[PlayedGame]) -> RoundRecord:
        """The finished round this pairing becomes with ``games`` (its games
        with their results, in playing order)."""
        return RoundRecord(
            self.round, self.byes, self.removed_history_rounds, tuple(games), self.requested_byes
        )


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

    The event's rules beyond C.04.1 (:mod:`tcecd.pairing.points`; the same in
    every round of an event; TRF ``XXP``, ``XXS``/``BB?``, ``XXA``; config
    ``pairing.forbidden_pairs``, ``pairing.points``, ``pairing.acceleration``):
    ``forbidden_pairs``, pairs of players who must never meet (an absolute
    criterion, like C.1); ``points``, what each outcome scores (scores,
    brackets and standings follow it); ``acceleration``, virtual points per
    player and round, in ``points``' units, added to scores for pairing only.
    A system that cannot honour one of them refuses the round
    (:func:`tcecd.pairing.registry.check_rules`).
    """

    total_rounds: int | None = None
    requested_byes: tuple[Bye, ...] = ()
    first_colour: Color = Color.WHITE
    forbidden_pairs: ForbiddenPairs = NO_FORBIDDEN
    points: PointSystem = STANDARD
    acceleration: Acceleration = NO_ACCELERATION

    def is_forbidden(self, a: PlayerId, b: PlayerId) -> bool:
        """Whether ``a`` and ``b`` must not meet (``forbidden_pairs``)."""
        return frozenset((a, b)) in self.forbidden_pairs


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

@dataclass(frozen=True, slots=True, init=False)
class Standing:
    """One row of the standings: rank 1..P (total order, seed last), score
    (BYEs included) in ``score_units`` of ``1/unit`` point (the event's
    point system: half-points, ``unit`` 2, in the standard one), received
    BYEs, games played and the configured tiebreak values by name, in
    configured order."""

    rank: int
    id: PlayerId
    score_units: int
    byes: int
    games: int
    tiebreaks: tuple[tuple[str, float], ...]
    unit: int

    def __init__(
        self,
        rank: int,
        id: PlayerId,
        score_units: int | None = None,
        byes: int = 0,
        games: int = 0,
        tiebreaks: tuple[tuple[str, float], ...] = (),
        unit: int = 2,
        *,
        score_half: int | None = None,
    ) -> None:
        """``score_half=`` (half-points, ``unit`` 2) is kept for callers
        written when every score was in half-points."""
        if (score_units is None) == (score_half is None):
            raise TypeError("Standing needs one of score_units and score_half")
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "id", id)
        if score_half is not None:
            score_units, unit = score_half, 2
        object.__setattr__(self, "score_units", score_units)
        object.__setattr__(self, "byes", byes)
        object.__setattr__(self, "games", games)
        object.__setattr__(self, "tiebreaks", tuple(tiebreaks))
        object.__setattr__(self, "unit", unit)

    @property
    def score(self) -> float:
        """The score in points."""
        return self.score_units / self.unit

    @property
    def score_half(self) -> int:
        """The score in half-points (the MQTT payload's ``score_half``): exact
        in every point system whose values are multiples of 0.5, the standard
        one included; a finer one's score is rounded down to the half-point."""
        return self.score_units * 2 // self.unit
