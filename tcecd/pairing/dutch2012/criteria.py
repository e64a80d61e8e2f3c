"""The pairing criteria of section B, as tests on two players or one floater.

One place for each rule, called by the round (C.1, the feasibility test) and
by every bracket:

* :func:`may_meet` -- B.1a, whatever the colours: the hook for every other
  "these two may never meet" rule (forbidden pairs);
* :func:`compatible` -- the absolute criteria B.1a and B.2, with B.2's note
  for top scorers (A.10) as C.1 applies it;
* :func:`pair_breaks` -- which relative criteria a pair breaks (A.7.d, B.4
  through X and Z, B.5/B.6 for upfloaters), and B.2 for top scorers;
* :func:`float_breaks` -- B.5/B.6 for a player left unpaired.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from tcecd.domain import PlayerId
from tcecd.pairing.dutch2012.colours import Preference, Strength, same_colour, x_fail, z_fail
from tcecd.pairing.dutch2012.state import Float, PlayerState

#: Bits of :func:`pair_breaks`, in the order of the search's limits.
X = 1 << 0  # A.8/A.11: both colour preferences cannot be granted
Z = 1 << 1  # A.8.b: both strong (or absolute) preferences cannot be granted (even rounds)
A7D = 1 << 2  # A.7.d: two strong preferences for one colour (odd rounds)
B2 = 1 << 3  # B.2 between a top scorer and another player (its note)
B5_UP = 1 << 4  # B.5: the upfloater upfloated in the previous round
B6_UP = 1 << 5  # B.6: the upfloater upfloated two rounds before
PAIR_NAMES = ("X", "Z", "A7d", "B2", "B5up", "B6up")


def may_meet(a: PlayerState, b: PlayerState) -> bool:
    """B.1a: two players shall not meet more than once (a game never played is
    no meeting, F.2). Every further rule on who may never meet whom belongs here."""
    return b.id not in a.opponents


def is_top_scorer(p: PlayerState, top_scorer_above: int | None) -> bool:
    """A.10: over 50% of the maximum possible score, in the last round only
    (``top_scorer_above`` is None in every other round)."""
    return top_scorer_above is not None and p.score > top_scorer_above


def compatible(
    a: PlayerState,
    b: PlayerState,
    prefs: Mapping[PlayerId, Preference],
    top_scorer_above: int | None,
) -> bool:
    """B.1a and B.2; B.2 may be ignored when pairing a top scorer (its note)."""
    if not may_meet(a, b):
        return False
    if same_colour(prefs[a.id], prefs[b.id], Strength.ABSOLUTE):
        return is_top_scorer(a, top_scorer_above) or is_top_scorer(b, top_scorer_above)
    return True


def pair_breaks(
    a: PlayerState,
    b: PlayerState,
    prefs: Mapping[PlayerId, Preference],
    *,
    movers: Collection[PlayerId],
    even_round: bool,
    top_scorer_above: int | None,
) -> int | None:
    """None when ``a`` and ``b`` may never meet (B.1a, B.2), else the bits of
    the relative criteria the pair breaks.

    An upfloater (A.4) is the lower scored player of a pair with unequal
    scores who was not moved down into the bracket (players moved down are
    downfloaters of this round whatever their partner).
    """
    if not may_meet(a, b):
        return None
    pa, pb = prefs[a.id], prefs[b.id]
    bits = 0
    if same_colour(pa, pb, Strength.ABSOLUTE):
        if not (is_top_scorer(a, top_scorer_above) or is_top_scorer(b, top_scorer_above)):
            return None
        bits |= B2
    elif not even_round and same_colour(pa, pb, Strength.STRONG):
        bits |= A7D  # A.7.d: strong preferences count as absolute
    if x_fail(pa, pb):
        bits |= X
    if even_round and z_fail(pa, pb):
        bits |= Z
    if a.score != b.score:
        low = a if a.score < b.score else b
        if low.id not in movers:
            if low.float_back(1) is Float.UP:
                bits |= B5_UP
            if low.float_back(2) is Float.UP:
                bits |= B6_UP
    return bits


def float_breaks(p: PlayerState) -> tuple[bool, bool]:
    """(B.5, B.6) for ``p`` left unpaired: a downfloat in the previous round,
    a downfloat two rounds before (A.4; a point without playing counts, B.1b)."""
    return p.float_back(1) is Float.DOWN, p.float_back(2) is Float.DOWN
