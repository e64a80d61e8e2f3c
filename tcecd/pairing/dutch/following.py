"""C.7 without the following bracket in the matcher, when a bracket's
downfloaters are known to be at most one (see :mod:`.brackets`).

C.7 asks a bracket to choose its downfloaters so that the following bracket
gets the most pairs and then the smallest PSD. The weighted matching
answers it by holding the following bracket's players too, which makes the
matcher two to three times larger, and its work (cubic in the vertices)
up to twenty times larger. C.5, the first criterion of the bracket, fixes
*how many* players float down: as many as a maximum pairing of the bracket
leaves over (its deficiency, counted with the B.2 rule that moved-down
players are not paired with each other). When that is

* none: C.7 has nothing to choose, and the following bracket is left out;
* one: C.7's value depends on that one player ``f`` alone, and a
  maximum-cardinality look at the following bracket ``F`` gives it
  (Gallai-Edmonds: ``D`` are the players of ``F`` that some maximum pairing
  of ``F`` leaves over, ``m`` the pairs of one):

  - ``f`` has a neighbour in ``D``: ``m + 1`` pairs, ``f`` paired;
  - else ``f`` has a neighbour in ``F``: ``m`` pairs, ``f`` paired and one
    more player of ``F`` floating (``f`` takes the place of one of them);
  - else: ``m`` pairs, ``f`` floating on.

  The PSD of the following bracket is then a multiset that each case fixes
  (pairs of ``F``: 0, ``f``'s pair: its score difference ``s``, a floater
  of ``F``: one point, ``f`` floating on: ``s`` plus one point, A.8), and
  :meth:`.brackets._Bracket._down_weight` gives ``f``'s float value those
  C.7 fields instead of the edges into ``F``;
* more: the matcher holds the following bracket as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tcecd.pairing.matching import PairingGraph, ViabilityMatcher, mask_of

#: C.7 case of the one downfloater (see the module docstring).
PAIRED_MORE, PAIRED, FLOATING = range(3)


@dataclass(frozen=True, slots=True)
class Following:
    """The following bracket as C.7 sees one downfloater of the bracket:
    its score and, per player of the bracket (round vertex), the case."""

    score: int
    cases: dict[int, int]


def _maximum(masks: Sequence[int], players: Sequence[int], apart: int) -> ViabilityMatcher:
    """A maximum matching of ``players`` (round vertices) on their edges in
    ``masks``, no two players of ``apart`` (a bitset) paired together."""
    within = mask_of(players)
    forbidden = [0] * len(masks)
    for x in players:
        allowed = within & ~apart if apart >> x & 1 else within
        forbidden[x] = ~(masks[x] & allowed)
    graph = PairingGraph.from_masks(forbidden, [0] * len(masks), 0, players)
    matcher = ViabilityMatcher(graph, players)
    matcher.maximize()
    return matcher


def following_bracket(
    masks: Sequence[int],
    mdps: Sequence[int],
    residents: Sequence[int],
    following: Sequence[int],
    score: int,
) -> Following | None:
    """The C.7 summary of ``following`` (of score ``score``) for the bracket
    ``mdps + residents`` (round vertices; ``masks``: the round's
    compatibility bitsets), or None when the bracket's best pairings leave
    more than one player unpaired. B.2: moved-down players are not paired
    with each other (the bracket is not the last one)."""
    members = [*mdps, *residents]
    left = len(_maximum(masks, members, mask_of(mdps)).exposed())
    if left > 1:
        return None
    if left == 0:
        return Following(score, {})
    within = mask_of(following)
    inner = _maximum(masks, following, 0)
    spare = inner.deficient() if inner.exposed() else 0
    cases = {}
    for x in members:
        near = masks[x] & within
        cases[x] = PAIRED_MORE if near & spare else PAIRED if near else FLOATING
    return Following(score, cases)
