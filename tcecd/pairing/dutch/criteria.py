"""The absolute criteria C.1-C.3 and the edge weights that encode C.4-C.19
and the D rules for one bracket ("Pairing Guidelines for Programmers": a
maximum-weight matching whose weights compare criteria lexicographically).

Every edge weight is a concatenation of bit fields, highest priority first.
Each field holds a quantity to *maximize*, small enough that the sum over a
whole matching never carries into the field above. A criterion to minimize
is turned around by counting the elements that do *not* violate it: the
number of elements it is about (pairs of the bracket, downfloaters) is fixed
by the fields above it (C.4 completion fixes the number of matched edges,
C.5 the number of pairs, C.6 the number of paired MDPs), so maximizing the
complement minimizes the violations.

Vertex roles in a bracket: ``M`` moved-down player, ``R`` resident, ``N``
resident of the following bracket (C.7), ``L`` any lower player, ``B`` the
pairing-allocated-bye vertex (lower than everybody; only C.2-eligible players
have an edge to it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tcecd.domain import Color
from tcecd.pairing.dutch.colours import Preference, allocate, colour_after
from tcecd.pairing.dutch.state import Float, PlayerState


def compatible(a: PlayerState, pa: Preference, b: PlayerState, pb: Preference) -> bool:
    """C.1 (not met before) and C.3 (non-topscorers with the same absolute
    colour preference shall not meet)."""
    if b.id in a.opponents:
        return False
    return not (
        pa.absolute
        and pb.absolute
        and pa.colour is pb.colour
        and not a.topscorer
        and not b.topscorer
    )


@dataclass(frozen=True, slots=True)
class PairFacts:
    """The colour criteria C.8-C.11 for one possible pair, with the colours
    E.1-E.5 would give it: each value counts players (0, 1 or 2)."""

    first_white: bool  # the first player of the pair gets white
    c8: int  # topscorer pairs: players whose colour difference goes beyond +-2
    c9: int  # topscorer pairs: players with the same colour three times in a row
    c10: int  # players who do not get their colour preference
    c11: int  # players who do not get their strong colour preference


def pair_facts(
    a: PlayerState,
    pa: Preference,
    b: PlayerState,
    pb: Preference,
    first_colour: Color,
    number: dict[str, int] | None = None,
) -> PairFacts:
    colour_a = allocate(a, pa, b, pb, first_colour, number)
    c8 = c9 = c10 = c11 = 0
    top = a.topscorer or b.topscorer
    for s, pref, colour in ((a, pa, colour_a), (b, pb, colour_a.other)):
        if pref.colour is not None and pref.colour is not colour:
            c10 += 1
            if pref.strong:
                c11 += 1
        if top:
            cd, three = colour_after(s, colour)
            c8 += abs(cd) > 2
            c9 += three
    return PairFacts(colour_a is Color.WHITE, c8, c9, c10, c11)


@dataclass(slots=True)
class Layout:
    """Field offsets and widths of one bracket's edge weights."""

    count_bits: int
    widths: dict[str, int] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    offsets: dict[str, int] = field(default_factory=dict)
    total: int = 0

    def add(self, name: str, width: int) -> None:
        self.order.append(name)
        self.widths[name] = width

    def finish(self) -> int:
        """Assign offsets (the first field added is the highest); return the width."""
        offset = 0
        for name in reversed(self.order):
            self.offsets[name] = offset
            offset += self.widths[name]
        self.total = offset
        return offset


def repeated(state: PlayerState, kind: Float, rounds_back: int) -> bool:
    """Whether the player received ``kind`` ``rounds_back`` rounds ago (C.12-C.19)."""
    return state.float_back(rounds_back) is kind
