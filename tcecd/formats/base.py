"""Event formats: what to play next, how players rank, what is published.

An event format is pure: from the event's state (:class:`~tcecd.event.state.EventState`,
the fold of its committed events) it says what the event schedules next
(:meth:`EventFormat.plan`): a round's games to record (a pairing, or the next
games of a knockout round), nothing new (play what is scheduled), or the end.
It also ranks the players, chooses each game's opening and rules (a cup's
tiebreak games have their own time control), and describes a bracket when it
has one. The runner (:mod:`tcecd.daemon.runner`) records what the format
schedules before anything of it is played, plays the scheduled games, and
asks again after every finished game; stored schedules stay authoritative on
resume (a resumed event plays what it stored and never asks the format to
schedule it again).

Formats are found by name in one registry (:func:`get_format`), the name an
event config gives as ``pairing.system``: the round-based pairing systems
(TCEC Swiss, the FIDE Dutch and Dubov systems, the integer program, the
round-robin: :mod:`tcecd.formats.rounds`) are one family, the knockout cup
(:mod:`tcecd.formats.knockout`) another, and ``tcecd play``'s matches and
gauntlets (:mod:`tcecd.formats.match`) a third.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from tcecd.domain import GameId
from tcecd.errors import PairingError
from tcecd.event.state import EventState
from tcecd.game.record import GameRecord
from tcecd.game.rules import GameRules
from tcecd.pairing.base import RoundPairing, Standing


@dataclass(frozen=True, slots=True)
class Schedule:
    """Record this round's schedule (a new round, or a round with more games:
    it replaces the stored one, whose games it must keep as they are)."""

    pairing: RoundPairing


@dataclass(frozen=True, slots=True)
class Play:
    """Nothing new to schedule: play (or wait for) the games scheduled."""


@dataclass(frozen=True, slots=True)
class Done:
    """The event is over: every game it needs is played."""


Plan = Schedule | Play | Done


@dataclass(frozen=True)
class FormatSettings:
    """What a format is built with (from the event config, or ``tcecd play``)."""

    #: The name in the registry (``pairing.system``).
    system: str = "tcec-swiss"
    #: Rounds of a round-based event (a round-robin's field may fix it).
    rounds: int | None = None
    double: bool = False
    tiebreaks: tuple[str, ...] = ("black-games", "sonneborn-berger", "wins")
    #: The integer-program solver's limit per round.
    time_limit_s: float = 10.0
    #: Format-specific settings (a cup's ``games``, ``tiebreak``; a match's
    #: schedule), as plain values.
    extra: Mapping[str, Any] = field(default_factory=dict)


class EventFormat(Protocol):
    """An event format (see the module docstring). Every method is pure and
    may run in a worker thread (pairing a round can take seconds)."""

    name: str

    def plan(self, state: EventState) -> Plan:
        """What the event schedules next, given everything committed so far
        (the games scheduled and not finished count as being played)."""
        ...

    def standings(self, state: EventState) -> tuple[Standing, ...]:
        """The players in rank order as the event stands (final once it is over)."""
        ...

    def round_over(self, state: EventState, round_no: int) -> bool:
        """Round ``round_no`` is over: its standings can be published."""
        ...

    def decided_from(self, state: EventState, gid: GameId) -> str | None:
        """What the event has already decided from finished game ``gid``'s
        result, in words (None: nothing, so its result may be voided and the
        game played again: the console's ``restart-game``). A round paired
        from the results, a cup encounter's next game: these stand once made,
        so a result they were made from must stand too."""
        ...

    def total_rounds(self, state: EventState) -> int | None:
        """How many rounds the event has (None while the format cannot tell:
        a cup's rounds depend on its field only, a Swiss' are fixed)."""
        ...

    def opening_index(self, state: EventState, gid: GameId) -> int:
        """The position, in the openings book, of game ``gid``'s opening."""
        ...

    def game_rules(self, state: EventState, gid: GameId, rules: GameRules) -> GameRules:
        """The rules of game ``gid`` given the event's (``rules``)."""
        ...

    def bracket(self, state: EventState) -> dict[str, Any] | None:
        """The bracket as the ``bracket`` topic carries it (None: no bracket)."""
        ...

    def record_tags(self, state: EventState, record: GameRecord) -> tuple[tuple[str, str], ...]:
        """PGN tags the format adds to a finished game before it is recorded
        (``state``: the event without it): a cup's deciding game says who
        advanced and why."""
        ...

    def viewer_files(self, state: EventState, event: str, slug: str) -> dict[str, Any]:
        """The files of TCEC's viewer this format writes besides the schedule,
        crosstable and crash tables, by name: ``tournament.json`` (a cup's has
        a non-zero ``cup``) and a cup's ``Eventcrosstable.json``."""
        ...


def closed_rounds(fmt: EventFormat, state: EventState) -> int:
    """The rounds over, counted from the first up to the first that is not:
    the round whose standings are the latest complete ones. (Rounds close in
    order, except a round re-opened by a voided result: a round-robin's later
    rounds go on meanwhile, and their standings wait for it.)"""
    closed = 0
    for r in state.rounds:
        if not fmt.round_over(state, r):
            break
        closed = r
    return closed


def get_format(settings: FormatSettings) -> EventFormat:
    """The format ``settings.system`` names: ``knockout``, a match schedule of
    ``tcecd play`` (``match-round-robin``, ``match-gauntlet``), or a pairing
    system of :mod:`tcecd.pairing.registry` (:class:`PairingError` for an
    unknown name)."""
    if settings.system == "knockout":
        from tcecd.formats.knockout.format import KnockoutFormat

        return KnockoutFormat(settings)
    if settings.system.startswith("match-"):
        from tcecd.formats.match import MatchFormat

        return MatchFormat(settings)
    from tcecd.formats.rounds import RoundsFormat

    return RoundsFormat(settings)


def format_names() -> tuple[str, ...]:
    """Every name an event config's ``pairing.system`` accepts."""
    from tcecd.pairing.registry import NAMES

    return (*NAMES, "knockout")


def check_format_name(name: str) -> str:
    """The canonical name of the format ``name`` (an alias maps to its
    system); :class:`PairingError` for an unknown one."""
    if name == "knockout":
        return name
    from tcecd.pairing.registry import NAMES, canonical_name

    if name not in NAMES:
        known = ", ".join((*NAMES, "knockout"))
        raise PairingError(f"unknown pairing system: {name!r} (known: {known})")
    return canonical_name(name)
