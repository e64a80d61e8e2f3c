"""Colour preferences (A.7), the colour figures X1 and Z1 (A.8) and the
colour allocation rules (E.1 to E.5) of the 2012 Dutch text."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from tcecd.domain import Color
from tcecd.pairing.dutch2012.state import PlayerState


class Strength(enum.IntEnum):
    """A.7: how strongly a player wants a colour (higher is stronger)."""

    NONE = 0  # A.7.f: no game played yet
    MILD = 1  # A.7.c: colour difference 0
    STRONG = 2  # A.7.b: colour difference +1 or -1
    ABSOLUTE = 3  # A.7.a: difference beyond +-1, or the same colour twice in a row


@dataclass(frozen=True, slots=True)
class Preference:
    """A player's colour preference: the colour wanted (None: none) and how strongly."""

    colour: Color | None
    strength: Strength


NO_PREFERENCE = Preference(None, Strength.NONE)


def preference(colours: Sequence[Color]) -> Preference:
    """A.7 a-c, from the colours of the games actually played (F.2, F.3).

    When the colour difference and the last two games point to different
    colours (e.g. WWWWBB: difference +2, last two black), the difference decides:
    it is the one that B.2's note ("no colour difference beyond +-2") protects.
    """
    if not colours:
        return NO_PREFERENCE  # A.7.f
    diff = sum(1 if c is Color.WHITE else -1 for c in colours)
    if diff > 1:
        return Preference(Color.BLACK, Strength.ABSOLUTE)
    if diff < -1:
        return Preference(Color.WHITE, Strength.ABSOLUTE)
    if len(colours) >= 2 and colours[-1] is colours[-2]:
        return Preference(colours[-1].other, Strength.ABSOLUTE)
    if diff == 1:
        return Preference(Color.BLACK, Strength.STRONG)
    if diff == -1:
        return Preference(Color.WHITE, Strength.STRONG)
    return Preference(colours[-1].other, Strength.MILD)


def same_colour(a: Preference, b: Preference, at_least: Strength) -> bool:
    """Both players want the same colour, each at least ``at_least`` strongly."""
    return (
        a.colour is not None
        and a.colour is b.colour
        and a.strength >= at_least
        and b.strength >= at_least
    )


def x_fail(a: Preference, b: Preference) -> bool:
    """A.8.a / A.11: the pair cannot fulfil both colour preferences (X counts these)."""
    return same_colour(a, b, Strength.MILD)


def z_fail(a: Preference, b: Preference) -> bool:
    """A.8.b: the pair cannot fulfil both strong (or absolute) preferences (Z counts these)."""
    return same_colour(a, b, Strength.STRONG)


def x1_z1(prefs: Sequence[Preference], pairs: int, *, even_round: bool) -> tuple[int, int]:
    """A.8: X1 and (even rounds) Z1 for a bracket that must make ``pairs`` pairs.

    In even rounds ``w``/``b`` count the players with a mild preference (they
    have played an even number of games, so had an odd number of unplayed
    rounds: A.7.e), ``W``/``B`` the players with a stronger one; in odd rounds
    ``w = b = 0`` and ``W``/``B`` count every preference. ``a``: players with
    no game yet. Odd rounds have no Z; Z1 is returned as X1 there.
    """
    mild_w = mild_b = big_w = big_b = none = 0
    for p in prefs:
        if p.colour is None:
            none += 1
        elif even_round and p.strength is Strength.MILD:
            if p.colour is Color.WHITE:
                mild_w += 1
            else:
                mild_b += 1
        elif p.colour is Color.WHITE:
            big_w += 1
        else:
            big_b += 1
    if big_b + mild_b > big_w + mild_w:
        x1 = pairs - big_w - mild_w - none
    else:
        x1 = pairs - big_b - mild_b - none
    x1 = max(0, x1)
    if not even_round:
        return x1, x1
    if big_b > big_w:
        z1 = pairs - big_w - mild_b - mild_w - none
    else:
        z1 = pairs - big_b - mild_b - mild_w - none
    return x1, min(max(0, z1), x1)


def _e3_alternate(a: PlayerState, b: PlayerState) -> Color | None:
    """E.3: ``a``'s colour, alternating to the most recent round in which the
    two played different colours (histories aligned from their latest game, F.3)."""
    for back in range(1, min(len(a.colours), len(b.colours)) + 1):
        ca, cb = a.colours[-back], b.colours[-back]
        if ca is not cb:
            return ca.other
    return None


def allocate(
    higher: PlayerState,
    lower: PlayerState,
    prefs: dict[str, Preference],
    *,
    no_preference_colour: Color,
) -> Color:
    """E: the colour of ``higher`` (the higher ranked by A.2) in this pair.

    ``no_preference_colour`` is what the higher player gets when neither has a
    preference (E.5 in round 1: the top board's first colour drawn by lot, then
    alternating by board among such pairs).
    """
    pa, pb = prefs[higher.id], prefs[lower.id]
    if pa.colour is None and pb.colour is None:
        return no_preference_colour  # E.5 (A.7.c: drawn by lot)
    if pa.colour is None:
        assert pb.colour is not None
        return pb.colour.other  # A.7.f: the opponent's preference is granted
    if pb.colour is None or pa.colour is not pb.colour:
        return pa.colour  # E.1: grant both preferences
    if pa.strength != pb.strength:  # E.2: grant the stronger preference
        return pa.colour if pa.strength > pb.strength else pa.colour.other
    alternated = _e3_alternate(higher, lower)  # E.3
    if alternated is not None:
        return alternated
    return pa.colour  # E.4: the higher ranked player's preference
