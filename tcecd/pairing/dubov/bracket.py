"""Pairing one bracket: sections B.1-B.6, C.4-C.10 and D of the Dubov system.

A bracket is the remaining resident players of a scoregroup plus the
upfloaters chosen for them from lower scoregroups (A.3; there are no
downfloaters). :func:`choose_upfloaters` picks the upfloaters (B.1, B.2,
D.1); :func:`pair_bracket` splits the bracket into the colour groups G1 and
G2 (B.3), shifts players between them (B.4, D.2), sorts G1 into S1 (B.5) and
takes the first legal transposition T2 of G2 (B.6, D.3).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tcecd.domain import Color, PlayerId
from tcecd.errors import PairingError
from tcecd.pairing.dubov.facts import Facts
from tcecd.pairing.dubov.graph import LegalGraph


@dataclass(frozen=True, slots=True)
class FloatRules:
    """What C.8-C.10 need to know about the round."""

    #: A.7 MaxT, or None when the event's length is unknown
    max_upfloats: int | None
    #: C.8-C.10 apply "unless it is the last round"
    last_round: bool


def colour_violations(graph: LegalGraph, bracket: Sequence[Facts]) -> int:
    """C.7: the fewest players of the bracket who cannot get their colour
    preference, over its legal pairings (the bracket must have one).

    Only a pair of players wanting the same colour leaves one of them
    without it (E.1 grants both of two different wishes), so with ``w``
    players wanting white and ``b`` black, the best is ``|w - b| / 2`` plus
    two for every pair that must join two players of the smaller group.
    """
    white = [p for p in bracket if p.preference.colour is Color.WHITE]
    black = [p for p in bracket if p.preference.colour is Color.BLACK]
    smaller = white if len(white) <= len(black) else black
    inside = graph.min_inside_pairs(bracket, smaller) if smaller else 0
    return abs(len(white) - len(black)) // 2 + 2 * inside


# -- B.1, B.2, D.1: the upfloaters ----------------------------------------------


def _levels(pool: Sequence[Facts]) -> list[list[Facts]]:
    """The pool (in D.1.a order: score descending, then initial ranking) cut
    into one list per score."""
    levels: list[list[Facts]] = []
    for p in pool:
        if levels and levels[-1][0].score == p.score:
            levels[-1].append(p)
        else:
            levels.append([p])
    return levels


def _containers(levels: Sequence[Sequence[Facts]], k: int) -> list[tuple[int, ...]]:
    """D.1.b: the containers of ``k``-sets, in C.6 order.

    A container fixes how many upfloaters come from each score (one count per
    level); C.6 prefers the container whose lowest score is highest, then
    the second lowest, and so on.
    """

    def counts(i: int, left: int) -> Iterator[tuple[int, ...]]:
        if i == len(levels):
            if left == 0:
                yield ()
            return
        for c in range(min(left, len(levels[i])), -1, -1):
            for rest in counts(i + 1, left - c):
                yield (c, *rest)

    def key(cnt: tuple[int, ...]) -> tuple[int, ...]:
        return container_key(
            [lvl[0].score for lvl, c in zip(levels, cnt, strict=True) for _ in range(c)]
        )

    return sorted(counts(0, k), key=key)


def container_key(scores: Sequence[int]) -> tuple[int, ...]:
    """C.6 as a sort key (smaller first): the lowest score of the upfloaters
    as high as possible, then the second lowest, and so on.

    D.1.b's example lists its five containers as it meets them
    ({3,3} {3,2.5} {3,1.5} {2.5,2.5} {2.5,1.5}); the text then sorts them
    "along the lines described by criterion C.6", which puts {2.5,2.5}
    (lowest 2.5) before {3,1.5} (lowest 1.5).
    """
    return tuple(-s for s in sorted(scores))


def _sets_in_container(
    levels: Sequence[Sequence[Facts]], counts: tuple[int, ...]
) -> Iterator[tuple[Facts, ...]]:
    """D.1.b: a container's sets in lexicographic order of the D.1.a sequence
    numbers (higher scores have the lower numbers, so the first level varies
    slowest)."""
    combos = [itertools.combinations(lvl, c) for lvl, c in zip(levels, counts, strict=True)]
    for prod in itertools.product(*combos):
        yield tuple(p for part in prod for p in part)


def _float_key(upfloaters: Sequence[Facts], rules: FloatRules) -> tuple[int, int, int]:
    """C.8, C.9, C.10 for a set of upfloaters (all zero in the last round)."""
    if rules.last_round:
        return (0, 0, 0)
    maxt = rules.max_upfloats
    maximum = [p for p in upfloaters if maxt is not None and p.upfloats >= maxt]
    return (
        len(maximum),  # C.8: maximum upfloaters among them
        sum(p.upfloats for p in maximum),  # C.9: times those were upfloated
        sum(1 for p in upfloaters if p.upfloated_last_round),  # C.10
    )


def choose_upfloaters(
    graph: LegalGraph,
    residents: Sequence[Facts],
    pool: Sequence[Facts],
    rules: FloatRules,
) -> tuple[Facts, ...]:
    """B.1 and B.2: the upfloaters that join ``residents`` in their bracket.

    ``pool`` holds every unpaired player of a lower score, in D.1.a order
    (score descending, then initial ranking). A set is legal when the bracket
    can be paired (C.1, C.3) and the players left below can still all be
    paired (C.4). B.1: the fewest upfloaters that allow a legal set (C.5);
    B.2: among those, the best by C.6 (container order), C.7 (the bracket's
    colour violations), C.8, C.9, C.10, and the first in D.1 order at a tie.
    """

    def legal(upfloaters: tuple[Facts, ...]) -> bool:
        chosen = {p.id for p in upfloaters}
        return graph.can_pair_all([*residents, *upfloaters]) and graph.can_pair_all(
            [p for p in pool if p.id not in chosen]
        )

    levels = _levels(pool)
    first_k = len(residents) % 2
    tried: set[int] = set()
    for attempt in range(2):
        # When the usual zero or one upfloater does not do, the matching tells
        # the fewest (a pairing of everyone left with the fewest pairs across
        # the scoregroup's edge): only sets of that size are tried, not every size.
        k = first_k if attempt == 0 else graph.fewest_across([*residents, *pool], residents)
        if k in tried or k > len(pool):
            continue
        tried.add(k)
        for counts in _containers(levels, k):
            best: tuple[tuple[int, int, int, int], tuple[Facts, ...]] | None = None
            for upfloaters in _sets_in_container(levels, counts):
                if not legal(upfloaters):
                    continue
                key = (
                    colour_violations(graph, [*residents, *upfloaters]),  # C.7
                    *_float_key(upfloaters, rules),
                )
                if best is None or key < best[0]:
                    best = (key, upfloaters)
            if best is not None:  # the first container with a legal set (C.6)
                return best[1]
    names = ", ".join(repr(p.id) for p in residents)
    raise PairingError(f"Dubov B.1: no legal set of upfloaters pairs the residents {names}")


# -- B.3-B.6, D.2, D.3: pairing the bracket -------------------------------------


def shifter_order(players: Sequence[Facts]) -> list[Facts]:
    """D.2: the possible shifters in sequence-number order.

    D.2.a sorts white seekers by ascending ARO, then initial ranking, and
    black seekers by initial ranking; D.2.b then numbers them from the
    (remaining) middle of that list outwards, the higher of two middle
    players first (A..G gives D, C, E, B, F, A, G).
    """

    def key(p: Facts) -> tuple[int, int]:
        if p.preference.colour is Color.WHITE:
            return (p.aro, p.rank)
        return (0, p.rank)

    remaining = sorted(players, key=key)
    out: list[Facts] = []
    while remaining:
        out.append(remaining.pop((len(remaining) - 1) // 2))
    return out


def equalising_pool(large: Sequence[Facts], moved_in: Sequence[Facts]) -> list[Facts]:
    """B.4's second shift, in D.2 order: the players that may leave the
    larger subgroup to equalise the sizes.

    They are the larger subgroup's own colour seekers (D.2: "possible White
    (resp. Black) shifters" are the players with that colour preference), so
    the players just shifted into it by the first step (``moved_in``, who
    seek the other colour) are not among them.
    """
    return shifter_order([p for p in large if p not in moved_in])


def pair_bracket(graph: LegalGraph, bracket: Sequence[Facts]) -> list[tuple[Facts, Facts]]:
    """B.3-B.6: pair a bracket that has a legal pairing; pairs as (S1, T2)."""
    players = sorted(bracket, key=lambda p: p.rank)
    half = len(players) // 2
    target = colour_violations(graph, players)  # C.7 at its best (B.2)

    # B.3: G1 seeks white, G2 the rest; before anyone of the bracket has
    # played, G1 is the first half by initial ranking.
    colour_groups = any(p.games_played for p in players)
    if colour_groups:
        g1 = [p for p in players if p.preference.colour is Color.WHITE]
        g2 = [p for p in players if p.preference.colour is not Color.WHITE]
    else:
        g1, g2 = players[:half], players[half:]

    # B.4: from the smaller subgroup (G1 at equal sizes) shift one player per
    # pair it must unavoidably form inside itself, then equalise the sizes
    # from the larger one; each time the *best* set, the first in D.2 order
    # that can yield a legal pairing at the best C.7.
    smaller_is_g1 = len(g1) <= len(g2)
    small, large = (g1, g2) if smaller_is_g1 else (g2, g1)
    unavoidable = graph.min_inside_pairs(players, small) if small else 0
    equalise = (len(large) - len(small)) // 2 + unavoidable
    # Only shifting both ways can leave pairs whose players share a wish by
    # more than the unavoidable minimum; otherwise every legal G1 x G2
    # pairing has exactly ``target`` of them.
    costed = colour_groups and unavoidable > 0
    shifted: tuple[list[Facts], list[Facts]] | None = None
    for out_of_small in itertools.combinations(shifter_order(small), unavoidable):
        kept_small = [p for p in small if p not in out_of_small]
        grown_large = [*large, *out_of_small]
        pool = equalising_pool(grown_large, out_of_small)
        for out_of_large in itertools.combinations(pool, equalise):
            new_small = kept_small + list(out_of_large)
            new_large = [p for p in grown_large if p not in out_of_large]
            found = graph.min_cost_across(new_small, new_large, costed=costed)
            if found is not None and (not costed or found[0] <= target):
                shifted = (new_small, new_large)
                break
        if shifted is not None:
            break
    if shifted is None:  # pragma: no cover - a legal pairing always gives one
        raise PairingError("Dubov B.4: no shift of colour seekers gives a legal pairing")
    g1, g2 = shifted if smaller_is_g1 else (shifted[1], shifted[0])

    # B.5: S1 is G1 by ascending ARO, then initial ranking.
    s1 = sorted(g1, key=lambda p: (p.aro, p.rank))
    # B.6 and D.3: T2 is the first transposition of G2 (players numbered by
    # initial ranking, transpositions in lexicographic order) giving a legal
    # pairing S1[i] - T2[i]; found position by position, each time keeping a
    # legal (and, B.2, C.7-best) pairing of the rest possible.
    rest = sorted(g2, key=lambda p: p.rank)
    budget = target if costed else 0
    found = graph.min_cost_across(s1, rest, costed=costed)
    if found is None:  # pragma: no cover - B.4 left a legal pairing
        raise PairingError("Dubov B.6: no legal transposition")
    mates = found[1]  # a pairing of the rest, kept to spare most searches
    pairs: list[tuple[Facts, Facts]] = []
    for i, first in enumerate(s1):
        for candidate in rest:
            if not graph.legal(first, candidate):
                continue
            same = int(first.preference.colour is candidate.preference.colour)
            others = [p for p in rest if p is not candidate]
            swap = _swap(graph, mates, first, candidate, s1[i + 1 :]) if not costed else None
            if swap is not None:
                ok = True  # the kept pairing, at most two partners swapped, pairs the rest
                mates = swap
            else:
                found = graph.min_cost_across(s1[i + 1 :], others, costed=costed)
                ok = found is not None and (not costed or found[0] + same <= budget)
                if found is not None and ok:
                    mates = found[1]
            if ok:
                pairs.append((first, candidate))
                rest = others
                budget -= same if costed else 0
                break
        else:  # pragma: no cover - B.4 left a legal pairing
            raise PairingError(f"Dubov B.6: no legal opponent for {first.id!r}")
    return pairs


def _swap(
    graph: LegalGraph,
    mates: dict[PlayerId, PlayerId],
    first: Facts,
    candidate: Facts,
    later: Sequence[Facts],
) -> dict[PlayerId, PlayerId] | None:
    """The kept pairing of S1 with the rest of G2 after pairing ``first`` with
    ``candidate``: as it is if it already pairs them, or with the two players
    left over (``first``'s partner, and ``candidate``'s S1 partner) paired
    with each other if they may meet; None when that does not do."""
    partner = mates[first.id]
    if partner == candidate.id:
        return {k: v for k, v in mates.items() if k != first.id}
    other = next((p for p in later if mates[p.id] == candidate.id), None)
    if other is None or not graph.legal(other, graph.players[graph.index[partner]]):
        return None
    swapped = {k: v for k, v in mates.items() if k != first.id}
    swapped[other.id] = partner
    return swapped
