"""The event rules a pairing system takes beyond C.04.1's standard scoring:
point systems, accelerated rounds (virtual points) and forbidden pairs.

Scores stay integers inside. A :class:`PointSystem` counts in *units* of
``1/unit`` point, where ``unit`` is the smallest number that makes every value
it holds (and every virtual point of the event) an integer: the standard
system (win 1, draw 1/2) counts in half-points (``unit`` 2), exactly as tcecd
always has; 3-1-0 counts in whole points (``unit`` 1); a system with a draw
worth 0.4 counts in tenths. Values are multiples of 0.1 and never negative
(the precision of a TRF's ``pp.p`` columns, of JaVaFo's ``XXS`` and of
bbpPairings' ``BBW``-``BBU`` lines). Floats appear only at the edges (JSON,
tables), through :meth:`PointSystem.fraction`.

Sources of the definitions:

* JaVaFo's ``XXS`` codes (JaVaFo Advanced User Manual, as py4swiss reads them):
  ``WW BW WD BD WL BL`` (win, draw, loss with white / black), ``FW FL``
  (forfeit win / loss), ``PAB`` (pairing-allocated bye), ``FPB HPB ZPB``
  (full-, half-, zero-point bye); ``W`` sets ``WW BW FW FPB``, ``D`` sets
  ``WD BD HPB``, ``L`` sets ``WL BL FL ZPB``. ``PAB`` is only set by itself.
* bbpPairings' lines (its README, "TRF(bx)"): ``BBW`` a win (over the board,
  by forfeit, or a full-point bye), ``BBD`` a draw or a half-point bye, ``BBL``
  a loss over the board, ``BBZ`` a zero-point bye or absence, ``BBF`` a
  forfeit loss, ``BBU`` the pairing-allocated bye (default: ``BBW``'s value).
* Baku acceleration: FIDE C.04.5.1 (:func:`baku`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import TYPE_CHECKING

from tcecd.domain import Color, PlayerId, Result

if TYPE_CHECKING:
    from tcecd.pairing.base import ByeKind, Player, RoundContext

#: The outcomes a point system scores, in the order docs and JSON list them.
OUTCOMES: tuple[str, ...] = (
    "win_white",
    "win_black",
    "draw_white",
    "draw_black",
    "loss_white",
    "loss_black",
    "forfeit_win",
    "forfeit_loss",
    "pairing_bye",
    "full_bye",
    "half_bye",
    "zero_bye",
)

#: The standard system (C.04.1: win 1, draw 1/2; byes as their names say).
STANDARD_VALUES: dict[str, Fraction] = {
    "win_white": Fraction(1),
    "win_black": Fraction(1),
    "draw_white": Fraction(1, 2),
    "draw_black": Fraction(1, 2),
    "loss_white": Fraction(0),
    "loss_black": Fraction(0),
    "forfeit_win": Fraction(1),
    "forfeit_loss": Fraction(0),
    "pairing_bye": Fraction(1),
    "full_bye": Fraction(1),
    "half_bye": Fraction(1, 2),
    "zero_bye": Fraction(0),
}

#: The config's short names (``pairing.points``), each setting several outcomes.
GROUPS: dict[str, tuple[str, ...]] = {
    "win": ("win_white", "win_black"),
    "draw": ("draw_white", "draw_black"),
    "loss": ("loss_white", "loss_black"),
}

#: JaVaFo's ``XXS`` codes and the outcomes each sets.
XXS_CODES: dict[str, tuple[str, ...]] = {
    "WW": ("win_white",),
    "BW": ("win_black",),
    "WD": ("draw_white",),
    "BD": ("draw_black",),
    "WL": ("loss_white",),
    "BL": ("loss_black",),
    "FW": ("forfeit_win",),
    "FL": ("forfeit_loss",),
    "PAB": ("pairing_bye",),
    "FPB": ("full_bye",),
    "HPB": ("half_bye",),
    "ZPB": ("zero_bye",),
    "W": ("win_white", "win_black", "forfeit_win", "full_bye"),
    "D": ("draw_white", "draw_black", "half_bye"),
    "L": ("loss_white", "loss_black", "forfeit_loss", "zero_bye"),
}

#: bbpPairings' point lines and the outcomes each sets (``BBU`` defaults to ``BBW``).
BB_CODES: dict[str, tuple[str, ...]] = {
    "BBW": ("win_white", "win_black", "forfeit_win", "full_bye"),
    "BBD": ("draw_white", "draw_black", "half_bye"),
    "BBL": ("loss_white", "loss_black"),
    "BBZ": ("zero_bye",),
    "BBF": ("forfeit_loss",),
    "BBU": ("pairing_bye",),
}

#: Values are multiples of this (a TRF's ``pp.p``).
PRECISION = Fraction(1, 10)
#: The largest value accepted (a TRF's 4-column score field holds 99.9).
MAX_VALUE = Fraction(999, 10)


def exact(value: object) -> Fraction:
    """A point value as an exact fraction: an int, a float or a decimal text,
    a multiple of 0.1 between 0 and 99.9. ``ValueError`` (with a message to
    quote) otherwise. A float is read through its shortest text (``0.1`` is
    one tenth, not the binary value nearest to it)."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {value!r}")
    if isinstance(value, int):
        number = Fraction(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"expected a number, got {value!r}")
        number = Fraction(Decimal(repr(value)))
    elif isinstance(value, str):
        try:
            decimal = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError(f"expected a number, got {value!r}") from None
        if not decimal.is_finite():
            raise ValueError(f"expected a number, got {value!r}")
        number = Fraction(decimal)
    else:
        raise ValueError(f"expected a number, got {value!r}")
    if number < 0:
        raise ValueError(f"points cannot be negative, got {value!r}")
    if number > MAX_VALUE:
        raise ValueError(f"at most {float(MAX_VALUE)} points, got {value!r}")
    if (number / PRECISION).denominator != 1:
        raise ValueError(f"points are multiples of 0.1, got {value!r}")
    return number


def _lcm_unit(values: Iterable[Fraction]) -> int:
    unit = 1
    for v in values:
        unit = math.lcm(unit, v.denominator)
    return unit


@dataclass(frozen=True, slots=True)
class PointSystem:
    """What each outcome scores, in units of ``1/unit`` point (module docstring).

    Build one with :meth:`from_values` (or :func:`parse_points` from the
    config); the ``int`` fields are units, never points."""

    unit: int
    win_white: int
    win_black: int
    draw_white: int
    draw_black: int
    loss_white: int
    loss_black: int
    forfeit_win: int
    forfeit_loss: int
    pairing_bye: int
    full_bye: int
    half_bye: int
    zero_bye: int

    @classmethod
    def from_values(
        cls, values: Mapping[str, Fraction], extra: Iterable[Fraction] = ()
    ) -> PointSystem:
        """The system scoring ``values`` (points by outcome name; outcomes not
        given keep the standard value), in the smallest unit that also makes
        ``extra`` (virtual points) integers."""
        full = {**STANDARD_VALUES, **values}
        unknown = set(full) - set(OUTCOMES)
        if unknown:
            raise ValueError(f"unknown outcome {sorted(unknown)[0]!r}")
        unit = _lcm_unit([*full.values(), *extra])
        return cls(unit, *(int(full[name] * unit) for name in OUTCOMES))

    def values(self) -> dict[str, Fraction]:
        """Points by outcome name (exact)."""
        return {name: Fraction(getattr(self, name), self.unit) for name in OUTCOMES}

    def fitting(self, extra: Iterable[Fraction]) -> PointSystem:
        """The same system in the smallest unit that also makes ``extra`` integers."""
        extra = list(extra)
        unit = math.lcm(self.unit, _lcm_unit(extra))
        if unit == self.unit:
            return self
        return PointSystem.from_values(self.values(), extra)

    @property
    def is_standard(self) -> bool:
        """Whether this is the standard system (in any unit)."""
        return self.values() == STANDARD_VALUES

    def units(self, points: Fraction) -> int:
        """``points`` in this system's units; ``ValueError`` if not a whole number of them."""
        scaled = points * self.unit
        if scaled.denominator != 1:
            raise ValueError(f"{points} points is not a multiple of 1/{self.unit}")
        return int(scaled)

    def fraction(self, units: int) -> Fraction:
        """``units`` as points (exact)."""
        return Fraction(units, self.unit)

    def text(self, units: int) -> str:
        """``units`` as points for people: ``3``, ``2.5``, ``0.4``."""
        return format_points(self.fraction(units))

    def game(self, result: Result, colour: Color, played: bool = True) -> int:
        """What a finished game scores for the player of ``colour``; a game
        never played is a forfeit (its winner gets ``forfeit_win``)."""
        if result is Result.UNFINISHED:
            raise ValueError("an unfinished game scores no points")
        white = colour is Color.WHITE
        if result is Result.DRAW:
            # A forfeit is never a draw (the TRF writer refuses one); scored as a draw if given.
            return self.draw_white if white else self.draw_black
        won = result.winner is colour
        if not played:
            return self.forfeit_win if won else self.forfeit_loss
        if won:
            return self.win_white if white else self.win_black
        return self.loss_white if white else self.loss_black

    def bye(self, kind: ByeKind) -> int:
        """What a round without a game scores (TRF letters ``U F H Z``)."""
        return {
            "U": self.pairing_bye,
            "F": self.full_bye,
            "H": self.half_bye,
            "Z": self.zero_bye,
        }[kind.value]

    @property
    def most_per_game(self) -> int:
        """The most one game can score over the board (the "maximum possible
        score" of the Dutch topscorer rules, A.7; bbpPairings: the larger of a
        win and a draw)."""
        return max(self.win_white, self.win_black, self.draw_white, self.draw_black)

    @property
    def one_point(self) -> int:
        """One point in units (Dutch A.8 scores a downfloater against "one
        point less" than the bracket's lowest score: one point, not a win)."""
        return self.unit

    def describe(self) -> str:
        """The system for messages and docs: ``win 3, draw 1, loss 0``, then
        every outcome that differs from what ``pairing.points``' ``W-D-L``
        form gives it (:func:`parse_points`), such as ``pairing_bye 1``."""
        values = self.values()
        parts: list[str] = []
        for group, (white, black) in GROUPS.items():
            if values[white] == values[black]:
                parts.append(f"{group} {format_points(values[white])}")
            else:
                parts.append(f"{white} {format_points(values[white])}")
                parts.append(f"{black} {format_points(values[black])}")
        win = values["win_white"] if values["win_white"] == values["win_black"] else None
        draw = values["draw_white"] if values["draw_white"] == values["draw_black"] else None
        follows = {
            "forfeit_win": win,
            "forfeit_loss": Fraction(0),
            "pairing_bye": win,
            "full_bye": win,
            "half_bye": draw,
            "zero_bye": Fraction(0),
        }
        for name, default in follows.items():
            if values[name] != default:
                parts.append(f"{name} {format_points(values[name])}")
        return ", ".join(parts)

    def with_unit(self, unit: int) -> PointSystem:
        """The same values in ``unit`` (a multiple of this system's unit)."""
        if unit % self.unit:
            raise ValueError(f"unit {unit} is not a multiple of {self.unit}")
        factor = unit // self.unit
        changed = {f.name: getattr(self, f.name) * factor for f in fields(self)}
        changed["unit"] = unit
        return replace(self, **changed)


#: The standard system (C.04.1): units are half-points.
STANDARD = PointSystem.from_values({})


def format_points(points: Fraction) -> str:
    """``3``, ``2.5``, ``0.4``: exact, without trailing zeros."""
    if points.denominator == 1:
        return str(points.numerator)
    return format(Decimal(points.numerator) / Decimal(points.denominator), "f")


def parse_points(spec: object) -> PointSystem:
    """The config's ``pairing.points``: ``"W-D-L"`` (``"3-1-0"``: win, draw and
    loss; the byes and forfeits follow them) or a mapping of outcome names
    (:data:`OUTCOMES`, and ``win``/``draw``/``loss`` for both colours) to
    points. Outcomes not given: a win's value for ``forfeit_win``,
    ``pairing_bye`` and ``full_bye``, a draw's for ``half_bye``, 0 for
    ``forfeit_loss`` and ``zero_bye`` (bbpPairings' defaults), and C.04.1's
    standard value for ``win``/``draw``/``loss``. ``ValueError`` (one line)
    for anything else."""
    given: dict[str, Fraction] = {}
    if isinstance(spec, str):
        parts = spec.split("-")
        if len(parts) != 3:
            raise ValueError(
                f"expected 'WIN-DRAW-LOSS' (such as '3-1-0') or a mapping, got {spec!r}"
            )
        for name, part in zip(("win", "draw", "loss"), parts, strict=True):
            try:
                given[name] = exact(part)
            except ValueError as exc:
                raise ValueError(f"{name}: {exc}") from None
    elif isinstance(spec, Mapping):
        for key, value in spec.items():
            if key not in GROUPS and key not in OUTCOMES:
                known = ", ".join([*GROUPS, *OUTCOMES])
                raise ValueError(f"unknown outcome {key!r} (known: {known})")
            try:
                given[key] = exact(value)
            except ValueError as exc:
                raise ValueError(f"{key}: {exc}") from None
    else:
        raise ValueError(f"expected 'WIN-DRAW-LOSS' or a mapping, got {spec!r}")
    values: dict[str, Fraction] = {}
    for group, names in GROUPS.items():
        for name in names:
            values[name] = given.get(name, given.get(group, STANDARD_VALUES[name]))
    win = given.get("win", STANDARD_VALUES["win_white"])
    draw = given.get("draw", STANDARD_VALUES["draw_white"])
    defaults = {
        "forfeit_win": win,
        "pairing_bye": win,
        "full_bye": win,
        "half_bye": draw,
        "forfeit_loss": Fraction(0),
        "zero_bye": Fraction(0),
    }
    for name, default in defaults.items():
        values[name] = given.get(name, default)
    return PointSystem.from_values(values)


def points_from_codes(
    xxs: Sequence[tuple[str, Fraction]], bb: Sequence[tuple[str, Fraction]]
) -> PointSystem:
    """The system a TRF's ``XXS`` tokens and ``BB?`` lines define (module
    docstring), applied in file order from the standard system; without
    ``BBU``, a ``BBW`` value also scores the pairing-allocated bye."""
    values = dict(STANDARD_VALUES)
    for code, value in xxs:
        for name in XXS_CODES[code]:
            values[name] = value
    bb_codes = {code for code, _ in bb}
    for code, value in bb:
        for name in BB_CODES[code]:
            values[name] = value
        if code == "BBW" and "BBU" not in bb_codes:
            values["pairing_bye"] = value
    return PointSystem.from_values(values)


# -- accelerated rounds -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Acceleration:
    """Virtual points added to players' scores for pairing only (TRF ``XXA``;
    FIDE C.04.5): ``table`` holds, per player, the virtual points of rounds
    1, 2, ... in units of the round's point system; rounds beyond a player's
    entry, and players without one, have none. They count for score groups,
    brackets and floats, never in results or standings."""

    table: tuple[tuple[PlayerId, tuple[int, ...]], ...] = ()

    def __bool__(self) -> bool:
        return any(any(values) for _, values in self.table)

    def by_player(self) -> dict[PlayerId, tuple[int, ...]]:
        """The table as a dict (build it once per round paired)."""
        return dict(self.table)

    def virtual(self, player: PlayerId, round_number: int) -> int:
        """``player``'s virtual points in ``round_number`` (units)."""
        for pid, values in self.table:
            if pid == player:
                return values[round_number - 1] if round_number <= len(values) else 0
        return 0

    def rounds(self) -> int:
        """The last round with an entry (0: none)."""
        return max((len(values) for _, values in self.table), default=0)

    def with_unit(self, old: int, new: int) -> Acceleration:
        """The table in units of ``1/new`` point instead of ``1/old``."""
        if new % old:
            raise ValueError(f"unit {new} is not a multiple of {old}")
        factor = new // old
        return Acceleration(
            tuple((pid, tuple(v * factor for v in values)) for pid, values in self.table)
        )


NO_ACCELERATION = Acceleration()


def acceleration_from_points(
    values: Mapping[PlayerId, Sequence[Fraction]], points: PointSystem
) -> tuple[PointSystem, Acceleration]:
    """The virtual points ``values`` (per player, rounds 1, 2, ...) as an
    :class:`Acceleration`, with ``points`` in a unit that counts them exactly."""
    points = points.fitting(v for row in values.values() for v in row)
    table = tuple(
        (pid, tuple(points.units(v) for v in row)) for pid, row in sorted(values.items()) if row
    )
    return points, Acceleration(table)


def baku(
    players: Sequence[Player], total_rounds: int, points: PointSystem = STANDARD
) -> tuple[PointSystem, Acceleration]:
    """FIDE's Baku Acceleration (C.04.5.1) for ``players`` over ``total_rounds``.

    C.04.5.1 "Initial Groups Division": group GA is the first half of the
    players in initial order (pairing numbers), rounded up to the nearest even
    number (2 * Q, Q = players / 4 rounded up); the others are GB.
    "Virtual points": the accelerated rounds are the first half (rounded up)
    of the tournament; GA players get 1 virtual point before the first half
    (rounded up) of the accelerated rounds and 0.5 before the rest; GB players
    never, and nobody after the last accelerated round. "The Baku Acceleration
    Method is applicable in any tournament where the standard scoring point
    system ... is used": any other system is a ``ValueError``. Late entries
    (C.04.5.1 "Late entries") do not occur in a tcecd event: its field is fixed
    before round 1.
    """
    if not points.is_standard:
        raise ValueError(
            "Baku acceleration (FIDE C.04.5.1) applies only to the standard point system "
            f"(win 1, draw 0.5), not {points.describe()}"
        )
    ga = 2 * math.ceil(len(players) / 4)
    accelerated = math.ceil(total_rounds / 2)
    full = math.ceil(accelerated / 2)
    row = [Fraction(1)] * full + [Fraction(1, 2)] * (accelerated - full)
    ranked = sorted(players, key=lambda p: p.seed)
    return acceleration_from_points({p.id: row for p in ranked[:ga]}, points)


# -- forbidden pairs --------------------------------------------------------------

#: Pairs of players who must not meet (team-mates, relatives): an absolute criterion.
ForbiddenPairs = frozenset[frozenset[PlayerId]]

NO_FORBIDDEN: ForbiddenPairs = frozenset()


def forbidden_pairs(groups: Iterable[Sequence[PlayerId]]) -> ForbiddenPairs:
    """Every two players of each group (a TRF ``XXP`` line or a config entry;
    a group of two is one pair, bbpPairings reads longer lines so)."""
    pairs: set[frozenset[PlayerId]] = set()
    for group in groups:
        members = list(dict.fromkeys(group))
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                pairs.add(frozenset((a, b)))
    return frozenset(pairs)


def partners(pairs: ForbiddenPairs) -> dict[PlayerId, frozenset[PlayerId]]:
    """Each player's forbidden opponents."""
    out: dict[PlayerId, set[PlayerId]] = {}
    for pair in pairs:
        a, b = sorted(pair)
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {pid: frozenset(others) for pid, others in out.items()}


def event_point_system(points: object, acceleration: object) -> PointSystem:
    """An event's point system from its config values (``pairing.points``,
    ``pairing.acceleration``: see docs/config.md): the standard one when
    ``points`` is None, in a unit that also counts explicit virtual points
    exactly."""
    system = STANDARD if points is None else parse_points(points)
    if isinstance(acceleration, dict):
        system = system.fitting(exact(v) for row in acceleration.values() for v in row)
    return system


def event_context(
    players: Sequence[Player],
    rounds: int,
    forbidden: Iterable[Sequence[PlayerId]],
    points: object,
    acceleration: object,
) -> RoundContext:
    """The :class:`~tcecd.pairing.base.RoundContext` every round of an event is
    paired with, from its config values (its requested byes aside): the
    event's rounds, the forbidden pairs, the point system and the virtual
    points (``"baku"``: FIDE's Baku Acceleration over ``players``, the seeded
    field; a mapping: each engine's virtual points per round). The one
    implementation for the event config (``tcecd pair``, ``replay``) and the
    daemon's round-based format."""
    from tcecd.pairing.base import RoundContext

    system = event_point_system(points, acceleration)
    virtual = NO_ACCELERATION
    if acceleration == "baku":
        system, virtual = baku(players, rounds, system)
    elif isinstance(acceleration, dict):
        system, virtual = acceleration_from_points(
            {name: [exact(v) for v in row] for name, row in acceleration.items()}, system
        )
    return RoundContext(
        total_rounds=rounds,
        forbidden_pairs=forbidden_pairs(forbidden),
        points=system,
        acceleration=virtual,
    )
