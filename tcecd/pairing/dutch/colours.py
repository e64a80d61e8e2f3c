"""Colour preferences (C.04.3 A.6) and the colour allocation rules E.1-E.5.

A preference is a colour and a strength: absolute (colour difference beyond
+-1, or the same colour in the two latest rounds played), strong (difference
+-1), mild (difference 0: alternate the last colour), or none (no game
played; A.6.d: the opponent's preference is granted).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from tcecd.domain import Color
from tcecd.pairing.dutch.state import PlayerState


class Strength(enum.IntEnum):
    NONE = 0
    MILD = 1
    STRONG = 2
    ABSOLUTE = 3


@dataclass(frozen=True, slots=True)
class Preference:
    colour: Color | None
    strength: Strength

    @property
    def absolute(self) -> bool:
        return self.strength is Strength.ABSOLUTE

    @property
    def strong(self) -> bool:
        """Strong or stronger (an absolute preference is also a strong one, C.11)."""
        return self.strength >= Strength.STRONG


NO_PREFERENCE = Preference(None, Strength.NONE)


def preference(state: PlayerState) -> Preference:
    """A.6 a-d."""
    played = state.played
    if not played:
        return NO_PREFERENCE
    cd = state.colour_difference
    if cd < -1:
        return Preference(Color.WHITE, Strength.ABSOLUTE)
    if cd > 1:
        return Preference(Color.BLACK, Strength.ABSOLUTE)
    if len(played) >= 2 and played[-1] is played[-2]:
        return Preference(played[-1].other, Strength.ABSOLUTE)
    if cd == -1:
        return Preference(Color.WHITE, Strength.STRONG)
    if cd == 1:
        return Preference(Color.BLACK, Strength.STRONG)
    return Preference(played[-1].other, Strength.MILD)


def _higher_ranked(a: PlayerState, b: PlayerState) -> bool:
    """A.2: score, then pairing number."""
    return (-a.score, a.seed) < (-b.score, b.seed)


def allocate(
    a: PlayerState,
    pa: Preference,
    b: PlayerState,
    pb: Preference,
    first_colour: Color,
    number: dict[str, int] | None = None,
) -> Color:
    """The colour ``a`` gets against ``b`` by E.1-E.5 (descending priority)."""
    # E.1: grant both preferences (a player without preference takes the other colour).
    if pa.colour is None and pb.colour is not None:
        return pb.colour.other
    if pb.colour is None and pa.colour is not None:
        return pa.colour
    if pa.colour is not None and pa.colour is not pb.colour:
        return pa.colour
    # E.2: grant the stronger preference; both absolute (topscorers): the wider
    # colour difference.
    if pa.colour is not None and pb.colour is not None:
        if pa.strength != pb.strength:
            return pa.colour if pa.strength > pb.strength else pa.colour.other
        if pa.absolute:
            da, db = abs(a.colour_difference), abs(b.colour_difference)
            if da != db:
                return pa.colour if da > db else pa.colour.other
    # E.3: alternate the colours to the most recent time in which one had
    # white and the other black. C.04.2.D.5: rounds without a game played are
    # left out, so the two colour sequences of games played are compared
    # backwards from their latest games.
    for ca, cb in zip(reversed(a.played), reversed(b.played), strict=False):
        if ca is not cb:
            return ca.other
    # E.4: grant the preference of the higher ranked player.
    high, p_high = (a, pa) if _higher_ranked(a, b) else (b, pb)
    if p_high.colour is not None:
        colour = p_high.colour
    else:
        # E.5: odd pairing number: the initial colour; even: the opposite.
        pn = number[high.id] if number is not None else high.seed
        colour = first_colour if pn % 2 == 1 else first_colour.other
    return colour if high is a else colour.other


def colour_after(state: PlayerState, colour: Color) -> tuple[int, bool]:
    """The colour difference after playing ``colour``, and whether it makes
    the same colour three times in a row (C.8, C.9)."""
    played = state.played
    cd = state.colour_difference + (1 if colour is Color.WHITE else -1)
    three = len(played) >= 2 and played[-1] is colour and played[-2] is colour
    return cd, three
