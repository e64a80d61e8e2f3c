"""Section E of the Dubov system: which player of a pair has white.

Applied to each pair with descending priority: E.0 (neither has played:
the drawn initial colour by the parity of the higher-ranked player's pairing
number), E.1 (grant both preferences), E.2 (grant the stronger), E.3
(alternate from the most recent round in which they had different colours),
E.4 (grant the higher-ranked player's preference). "Higher ranked" (E.0) is
more points, then a better place in the initial ranking list.
"""

from __future__ import annotations

from tcecd.domain import Color
from tcecd.pairing.dubov.facts import Facts


def higher_ranked(a: Facts, b: Facts) -> Facts:
    """E.0: the player with more points or, at equal points, ranked higher."""
    return a if (-a.score, a.rank) < (-b.score, b.rank) else b


def white_of(a: Facts, b: Facts, initial_colour: Color) -> Facts:
    """The player of the pair who has white (in the first game of a double round)."""
    top = higher_ranked(a, b)

    def give(player: Facts, colour: Color) -> Facts:
        return player if colour is Color.WHITE else (b if player is a else a)

    # E.0: both yet to play a game.
    if not a.games_played and not b.games_played:
        colour = initial_colour if top.rank % 2 == 1 else initial_colour.other
        return give(top, colour)
    pa, pb = a.preference, b.preference
    # E.1: different wishes are both granted.
    if pa.colour is not pb.colour:
        return give(a, pa.colour)
    # E.2: the stronger wish wins.
    if pa.strength is not pb.strength:
        return give(a, pa.colour) if pa.strength > pb.strength else give(b, pb.colour)
    # E.3: alternate from the most recent time one had white and the other
    # black; C.04.2 D.5: rounds without a game played are left out of each
    # player's colour sequence, so the sequences are compared from their ends.
    for ca, cb in zip(reversed(a.colours), reversed(b.colours), strict=False):
        if ca is not cb:
            return give(a, ca.other)
    # E.4: the higher-ranked player's wish.
    return give(top, top.preference.colour)
