"""C.4 to C.9 for one score bracket under one requirement state.

:class:`BracketSearch` holds a bracket's pair criteria (B.1 to B.6, cached
per pair) and searches its pairings under given requirements: C.4/C.5
subgroups, C.6 trial, C.7 transpositions (D.1), C.8 exchanges (D.2
homogeneous, D.3 heterogeneous), C.9 back from a failed remainder to the
next transposition of the heterogeneous part. :class:`bracket.BracketProcedure`
drives it through C.3, C.10 and C.14.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import replace

from tcecd.domain import PlayerId
from tcecd.pairing.dutch2012 import criteria, measure
from tcecd.pairing.dutch2012.state import PlayerState
from tcecd.pairing.dutch2012.transpose import (
    Budget,
    LeftoverLimit,
    Limit,
    Weight,
    exchanges,
    mover_sets,
    transpositions,
)
from tcecd.pairing.dutch2012.values import (
    UNLIMITED,
    Bracket,
    Outcome,
    Progress,
    Requirements,
    Target,
    b3_cost,
    bye_cost,
    scores_of,
)
from tcecd.pairing.matching import PairingGraph, ViabilityMatcher


class BracketSearch:
    """A bracket's pair criteria and its pairings under one requirement state."""

    def __init__(self, bracket: Bracket) -> None:
        self.b = bracket
        self.index = {p.id: i for i, p in enumerate(bracket.players)}
        self._costs: dict[tuple[PlayerId, PlayerId], int | None] = {}
        self._floats: dict[PlayerId, tuple[bool, bool]] = {}

    # -- the criteria -------------------------------------------------------

    def cost(self, a: PlayerState, b: PlayerState) -> int | None:
        """:func:`criteria.pair_breaks` for this bracket (cached)."""
        key = (a.id, b.id)
        try:
            return self._costs[key]
        except KeyError:
            pass
        breaks = self._costs[key] = self._costs[b.id, a.id] = criteria.pair_breaks(
            a,
            b,
            self.b.prefs,
            movers=self.b.movers,
            even_round=self.b.even_round,
            top_scorer_above=self.b.top_scorer_above,
        )
        return breaks

    def float_breaks(self, p: PlayerState) -> tuple[bool, bool]:
        """B.5 and B.6 for ``p`` moved down from this bracket. A player moved
        down into it is a downfloater of this round already: moving him on gives
        him no second downfloat (JaVaFo 1.4 reads it so too)."""
        known = self._floats.get(p.id)
        if known is None:
            moved = p.id in self.b.movers
            known = self._floats[p.id] = (False, False) if moved else criteria.float_breaks(p)
        return known

    def never_floats(self, p: PlayerState) -> bool:
        """B.1b: no second point without playing, so no bye (lowest bracket)."""
        return self.b.lowest and p.unplayed_point

    # -- C.4 to C.9: one requirement state --------------------------------

    def _search(
        self,
        s1: Sequence[PlayerState],
        s2: Sequence[PlayerState],
        req: Requirements,
        must: Sequence[int],
        leftover: Sequence[LeftoverLimit],
        budget: Budget,
        bound: set[str],
        differences: frozenset[int] | None = None,
        cost: int | None = None,
        *,
        remainder: bool = False,
        matrix: list[list[int | None]] | None = None,
    ) -> Iterator[tuple[int, ...]]:
        """:func:`transpositions` of S2 against S1 under ``req`` (``differences``:
        the score differences a pair may have; ``cost``: the most
        :func:`b3_cost` the pairs and the S2 players left over may add up to;
        ``remainder``: those go on to a remainder instead, and add nothing here;
        ``matrix``: :meth:`_matrix` of S1 and S2 with ``differences``, if the
        caller has it)."""
        if matrix is None:
            matrix = self._matrix(s1, s2, differences)
        weight = None
        if cost is not None:
            weight = Weight(
                [[b3_cost(a, b) for b in s2] for a in s1],
                [None if self.never_floats(b) else bye_cost(b, self.b.floor) for b in s2]
                if len(s2) > len(s1) and not remainder
                else [None] * len(s2),
                cost,
            )
        return transpositions(
            len(s1), len(s2), matrix, req.limits(), leftover, must, budget, bound, weight
        )

    def _matrix(
        self,
        s1: Sequence[PlayerState],
        s2: Sequence[PlayerState],
        differences: frozenset[int] | None = None,
        *,
        diagonal: bool = True,
    ) -> list[list[int | None]]:
        """The pairs' criteria (:meth:`cost`), S1 by S2; None where B.3's
        ``differences`` exclude the pair (and, without ``diagonal``, where S1
        and S2 are the same group, a player against himself). Read from the
        cache inline: the search asks for one at every requirement state."""
        known = self._costs
        matrix: list[list[int | None]] = []
        for a in s1:
            row: list[int | None] = []
            for b in s2:
                if (not diagonal and a is b) or (
                    differences is not None and abs(a.score - b.score) not in differences
                ):
                    row.append(None)
                elif (key := (a.id, b.id)) in known:
                    row.append(known[key])
                else:
                    row.append(self.cost(a, b))
            matrix.append(row)
        return matrix

    def _leftover(
        self, s2_pos: Sequence[int], left_b5: set[int], left_b6: set[int], req: Requirements
    ) -> tuple[LeftoverLimit, LeftoverLimit]:
        """B.5 and B.6 for downfloaters over the S2 players (by position in S2;
        ``s2_pos``: their positions in the group, ``left_b*``: the group's
        positions that break B.5/B.6 when left over)."""
        b5 = frozenset(k for k, i in enumerate(s2_pos) if i in left_b5)
        b6 = frozenset(k for k, i in enumerate(s2_pos) if i in left_b6)
        return LeftoverLimit("B5down", req.b5_down, b5), LeftoverLimit("B6down", req.b6_down, b6)

    def _gate(
        self,
        group: Sequence[PlayerState],
        pairs: int,
        req: Requirements,
        must: set[int],
        bound: set[str],
        cost: int | None = None,
    ) -> bool:
        """Can ``group`` give ``pairs`` pairs at all under ``req``, leaving only
        players who may be left over, with each limited criterion broken no
        more often than allowed by the matching bound (and, with ``cost``, of
        that B.3 cost: :meth:`_cost_bound`)? No exchange or transposition
        could help otherwise.

        The leftovers are modelled as ``len(group) - 2 * pairs`` extra vertices,
        each joined to every player who may be left unpaired: a perfect
        matching of that graph is such a pairing.
        """
        n = len(group)
        spare = n - 2 * pairs
        limits = req.limits()
        zero = 0
        for k, limit in enumerate(limits):
            if limit.left <= 0:
                zero |= 1 << k
        forbidden: list[set[int]] = [set() for _ in range(n + spare)]
        breaking: dict[int, list[set[int]]] = {}
        for i in range(n):
            for j in range(i + 1, n):
                c = self.cost(group[i], group[j])
                if c is None or c & zero:
                    forbidden[i].add(j)
                    forbidden[j].add(i)
                    if c is not None:  # conservatively: these criteria rejected a pair
                        bound.update(lim.name for k, lim in enumerate(limits) if c & zero & 1 << k)
                    continue
                for k in range(len(limits)):
                    if c & (1 << k):
                        sets = breaking.setdefault(k, [set() for _ in range(n + spare)])
                        sets[i].add(j)
                        sets[j].add(i)
        for v in range(n, n + spare):
            forbidden[v].update(range(n, n + spare))
            forbidden[v].update(must)
            for i in must:
                forbidden[i].add(v)
        if _matching_size(forbidden) < (n + spare) // 2:
            return False
        for k, sets in breaking.items():
            if limits[k].left >= pairs:
                continue
            good = _matching_size([f | c for f, c in zip(forbidden, sets, strict=True)])
            if pairs - (good - spare) > limits[k].left:
                bound.add(limits[k].name)
                return False
        return cost is None or self._cost_bound(group, pairs, limits, zero, must, bound, cost)

    def _cost_bound(
        self,
        group: Sequence[PlayerState],
        pairs: int,
        limits: Sequence[Limit],
        zero: int,
        must: set[int],
        bound: set[str],
        cost: int,
    ) -> bool:
        """Can ``group`` give ``pairs`` pairs of B.3's target ``cost`` (the
        exact cost the search looks for) under ``limits`` (``zero``: the
        criteria no pair may break), leaving over only players who may be
        left over? Two matching bounds (:mod:`measure`), with the pairs
        ``zero`` forbids left out: the least cost of a pairing must not be
        above ``cost``; and where it is ``cost``, every relative criterion
        ``limits`` limits must have a pairing of that cost breaking it no
        more often than allowed. Otherwise the
        search would only fail, spending its budget on the transpositions and
        exchanges (the random round s2704r11: a remainder of 13 players whose
        bye must be its highest player, and whose pairings of that cost all
        have four colour failures, searched through under X = 3 in every
        state until the bracket's budget ran out). A bound leaves the
        outcomes as they were; ``bound`` gets every criterion a pair of the
        group breaks, as many as the search itself could have named."""
        seen = 0

        def pairable(a: PlayerState, b: PlayerState) -> bool:
            nonlocal seen
            c = self.cost(a, b)
            if c is None:
                return False
            seen |= c
            return not c & zero

        ids = {group[i].id for i in must}

        def may_leave(p: PlayerState) -> bool:
            return p.id not in ids

        spare = len(group) - 2 * pairs
        least = measure.least_cost(group, self.b.floor, pairable, may_leave, spare=spare)
        fine = least is not None and least <= cost
        if fine and least == cost:
            for k, limit in enumerate(limits):
                bit = 1 << k
                if not 0 < limit.left < pairs or not seen & bit:
                    continue

                def breaks(a: PlayerState, b: PlayerState, bit: int = bit) -> bool:
                    return bool((self.cost(a, b) or 0) & bit)

                fewest = measure.fewest_breaking(
                    group, self.b.floor, pairable, may_leave, spare, breaks
                )
                if fewest is None or fewest > limit.left:
                    fine = False
                    break
        if not fine:
            # Only criteria allowed fewer breaks than there are pairs: one that
            # every pair may break (B.5/B.6 for upfloaters in a remainder, A.7.d
            # in odd rounds) rejected nothing, and relaxing it further would make
            # C.10 repeat the same search (seed 871 round 10: 45 such states).
            bound.update(
                lim.name for k, lim in enumerate(limits) if seen & 1 << k and lim.left < pairs
            )
        return fine

    def _homogeneous(
        self,
        group: Sequence[PlayerState],
        pairs: int,
        req: Requirements,
        budget: Budget,
        bound: set[str],
        target: Target,
    ) -> Iterator[Outcome]:
        """C.4-C.8a for a homogeneous bracket or a remainder: S1 = the ``pairs``
        highest, S2 the rest (C.4, C.5); transpositions (C.7, D.1), then
        exchanges (C.8a, D.2), each followed by the transpositions again.
        ``target``: B.3's scores of the players left unpaired and the
        pairing's cost."""
        cost = target.cost
        n = len(group)
        if 2 * pairs > n or pairs < 0:
            return
        if self.b.lowest and n - 2 * pairs > 1:
            return  # the lowest bracket can move nobody down
        must = {i for i, p in enumerate(group) if self.never_floats(p)} if n > 2 * pairs else set()
        highest = target.highest()
        if highest is not None:
            # B.3: players scoring more than every player to leave unpaired must pair.
            must |= {i for i, p in enumerate(group) if p.score > highest}
        left_b5 = {i for i, p in enumerate(group) if self.float_breaks(p)[0]}
        left_b6 = {i for i, p in enumerate(group) if self.float_breaks(p)[1]}
        if n > 2 * pairs:
            # Only players who could be left unpaired otherwise make B.5/B.6 reject
            # anything (B.1b and B.3 fix the others, whatever the requirements).
            free = {
                i
                for i, p in enumerate(group)
                if i not in must and target.may_float(p.score)
            }
            if req.b5_down <= 0 and left_b5:
                if left_b5 & free:
                    bound.add("B5down")
                must |= left_b5
            if req.b6_down <= 0 and left_b6:
                if left_b6 & free:
                    bound.add("B6down")
                must |= left_b6
        if pairs == 0:
            fine = (
                not must
                and len(left_b5) <= req.b5_down
                and len(left_b6) <= req.b6_down
                and target.allows(scores_of(group))
                and (cost is None or cost == sum(bye_cost(p, self.b.floor) for p in group))
            )
            if fine:
                yield Outcome((), tuple(group))
            elif len(left_b5) > req.b5_down or len(left_b6) > req.b6_down:
                bound.update(("B5down", "B6down"))
            return
        if not self._gate(group, pairs, req, must, bound, cost):
            return
        # B.3's target cost: a pair costing more cannot be part of it.
        allowed = target.differences
        if cost is not None and allowed is None:
            allowed = frozenset(
                d
                for a, b in itertools.combinations(group, 2)
                if (d := abs(a.score - b.score)) ** 2 <= cost
            )
        # Every exchange's S1-by-S2 matrix is read from the group's (the diagonal unused).
        full = self._matrix(group, group, allowed, diagonal=False)
        splits = itertools.chain([((), ())], exchanges(pairs, n - pairs))
        for out_s1, in_s2 in splits:
            s1_pos = sorted((set(range(pairs)) - set(out_s1)) | set(in_s2))
            s2_pos = sorted((set(range(pairs, n)) - set(in_s2)) | set(out_s1))
            s1 = [group[i] for i in s1_pos]
            s2 = [group[i] for i in s2_pos]
            must_s2 = [k for k, i in enumerate(s2_pos) if i in must]
            leftover = self._leftover(s2_pos, left_b5, left_b6, req) if n > 2 * pairs else ()
            matrix = [[row[j] for j in s2_pos] for row in (full[i] for i in s1_pos)]
            for chosen in self._search(
                s1, s2, req, must_s2, leftover, budget, bound, allowed, cost, matrix=matrix
            ):
                taken = set(chosen)
                floaters = tuple(p for k, p in enumerate(s2) if k not in taken)
                if not target.allows(scores_of(floaters)):
                    continue
                if cost is not None and cost != sum(
                    b3_cost(s1[i], s2[j]) for i, j in enumerate(chosen)
                ) + sum(bye_cost(p, self.b.floor) for p in floaters):
                    continue
                yield Outcome(
                    tuple(
                        (s1[i], s2[j])
                        if self.index[s1[i].id] < self.index[s2[j].id]
                        else (s2[j], s1[i])
                        for i, j in enumerate(chosen)
                    ),
                    floaters,
                )
            if budget.left < 0:
                return

    def _heterogeneous(
        self,
        m1: int,
        p1: int,
        req: Requirements,
        budget: Budget,
        bound: set[str],
        progress: Progress,
        target: Target,
    ) -> Iterator[Outcome]:
        """C.4-C.9 for a heterogeneous bracket: S1 = M1 moved-down players
        (D.3 chooses which when M1 < M0), S2 = everybody else; each
        transposition pairing all of S1 (C.6, C.7, D.1.2) is followed by the
        homogeneous remainder with P = P1 - M1 (C.6); a remainder that fails
        sends the search back to the next transposition (C.9)."""
        players = self.b.players
        movers = [p for p in players if p.id in self.b.movers]
        sets: Iterator[tuple[PlayerState, ...]] = mover_sets(movers, m1)  # C.8b, D.3
        lowest = self.b.lowest
        rest_targets: dict[int, Target] = {}  # by the cost the pairs spent
        for s1 in sets:
            s1_ids = {p.id for p in s1}
            s2 = [p for p in players if p.id not in s1_ids]
            s2_ids = [p.id for p in s2]
            all_s2 = frozenset(s2_ids)
            # Most transpositions of a big bracket end in a remainder already
            # known to fail (the same S2 players left, under the same
            # requirements): the key is built first, from the pairs' criteria
            # (one matrix per S1) and the remainder's ids, and the rest only
            # for a remainder still to try. The remainder's requirements
            # depend on those criteria alone: kept per S1.
            costs_of = self._matrix(s1, s2)
            # A.3: in the lowest bracket with an S2 of unequal scores (a bracket
            # joined by C.13, or moved-down players left in S2) the remainder
            # is treated as homogeneous and its bye left by B.3/A.11: B.5/B.6
            # for downfloaters do not bar it (seed 1032, round 11; the fresh
            # round 62d17f7382e0, where the remainder is the bye alone). With
            # equal scores they do (seeds 132 round 4, 1011 round 5, ...).
            free_bye = lowest and len({p.score for p in s2}) > 1
            if target.cost is not None:
                b3_of = [[b3_cost(a, b) for b in s2] for a in s1]
            rest_reqs: dict[tuple[int, ...], Requirements] = {}
            for chosen in self._search(
                s1, s2, req, (), (), budget, bound, cost=target.cost, remainder=True
            ):
                progress.reached_remainder = True  # C.6
                rest_target = target
                if target.cost is not None:
                    # B.3 in a merged bracket: the remainder has the cost left.
                    spent = sum([b3_of[i][j] for i, j in enumerate(chosen)])
                    if spent > target.cost:
                        continue
                    try:
                        rest_target = rest_targets[spent]
                    except KeyError:
                        rest_target = rest_targets[spent] = replace(
                            target, cost=target.cost - spent
                        )
                rest_ids = all_s2.difference([s2_ids[j] for j in chosen])
                taken = set(chosen)
                # Sorted: the requirements left depend on how many pairs break
                # each criterion, not on which.
                costs = tuple(sorted([costs_of[i][j] or 0 for i, j in enumerate(chosen)]))
                try:
                    rest_req = rest_reqs[costs]
                except KeyError:
                    rest_req = req.minus(costs).for_remainder()
                    if free_bye:
                        rest_req = replace(rest_req, b5_down=UNLIMITED, b6_down=UNLIMITED)
                    rest_reqs[costs] = rest_req
                key = (rest_req, p1 - m1, rest_ids, rest_target)
                if key in progress.failed_remainders:
                    bound.update(progress.failed_remainders[key])
                    continue
                pairs = tuple((s1[i], s2[j]) for i, j in enumerate(chosen))
                remainder = [p for k, p in enumerate(s2) if k not in taken]
                found = False
                rest_bound: set[str] = set()
                for rest in self._homogeneous(
                    remainder, p1 - m1, rest_req, budget, rest_bound, rest_target
                ):
                    found = True
                    yield Outcome(pairs + rest.pairs, rest.floaters)
                bound |= rest_bound
                if not found and budget.left >= 0:
                    progress.failed_remainders[key] = frozenset(rest_bound)
                if budget.left < 0:
                    return


def _matching_size(forbidden: list[set[int]]) -> int:
    """Size of a maximum matching of the complement of ``forbidden`` (general graph)."""
    n = len(forbidden)
    matcher = ViabilityMatcher(PairingGraph(forbidden, [0] * n, 0), range(n))
    return (n - len(matcher.maximize())) // 2
