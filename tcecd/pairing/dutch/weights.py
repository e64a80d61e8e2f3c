"""The edge weights of one bracket (C.5-C.19 and the D rules, after the
"Pairing Guidelines for Programmers": a maximum-weight matching whose weights
compare criteria lexicographically; the fields are laid out by
:class:`.criteria.Layout`, highest priority first).

An edge weighs its pair of the bracket, a player floating down to a lower
one, or, on a graph where players may stay unmatched (``Graph.floats``), its
value less the two ends' float values (:meth:`BracketWeights.weight`). The
phases of :class:`.brackets._Bracket` (D.3, D.1, D.2) switch fields on and
add to the weights.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from tcecd.pairing.dutch.criteria import Layout
from tcecd.pairing.dutch.following import PAIRED, PAIRED_MORE, Following
from tcecd.pairing.dutch.graph import LOW, MDP, NEXT, RES
from tcecd.pairing.dutch.state import Float, PlayerState

if TYPE_CHECKING:
    from tcecd.pairing.dutch.graph import Graph

#: Bits given to one D.1 lexicographic field at a time (several S1 players'
#: partner choices are settled by one matching while they fit).
D1_BITS = 64


class BracketWeights:
    """One bracket on a :class:`Graph` (local vertex numbers): its MDPs and
    residents, the following bracket's residents (C.7) or their summary
    (:mod:`.following`), and the edge weights of the current phase (the
    phases themselves are :class:`.brackets._Bracket`'s)."""

    def __init__(
        self,
        graph: Graph,
        mdps: list[int],
        residents: list[int],
        following: list[int],
        *,
        last: bool,
        summary: Following | None = None,
    ) -> None:
        self.g = graph
        self.rp = graph.rp
        self.mdps = mdps
        self.residents = residents
        self.following = following
        self.members = mdps + residents  # BSN order (A.2)
        self.bsn = {u: k + 1 for k, u in enumerate(self.members)}
        self.last = last  # the last bracket (CLB): its downfloater gets the bye
        # C.7: with no downfloater in any best pairing (an empty summary) it
        # has nothing to choose, and its fields are left out.
        self.c7 = bool(following) or (summary is not None and bool(summary.cases))
        sc = graph.score
        self.s_low = min(sc[u] for u in residents)
        self.s_next = sc[following[0]] if following else 0
        #: C.7 summed up (.following): the case of a bracket player as the
        #: one downfloater, when the following bracket is not in the graph
        self.alone: dict[int, int] | None = None
        #: with a summary: how many players a best pairing leaves unpaired
        self.leftover: int | None = None
        if summary is not None:
            self.leftover = 1 if summary.cases else 0
            self.s_next = summary.score
            self.alone = {graph.local[u]: case for u, case in summary.cases.items()}
        mdp_set = set(mdps)
        for u in self.members:
            graph.role[u] = MDP if u in mdp_set else RES
        for u in following:
            graph.role[u] = NEXT
        self.mdp_pos = {u: k for k, u in enumerate(mdps)}
        self.res_pos = {u: k for k, u in enumerate(residents)}
        self.new_pairs: list[tuple[int, int]] = []
        # Phase state (D rules).
        self.slot_bits = (len(self.members) + 1).bit_length()
        self.chunk = max(1, D1_BITS // self.slot_bits)
        self.mdp_slots = min(len(mdps), self.chunk)
        self.s1_mdps: set[int] = set()
        self.limbo: set[int] = set()
        self.s1r: dict[int, int] = {}  # remainder S1R player -> position
        self.s2r: dict[int, int] = {}
        self.exchange = False
        self.exchange_wide = False
        self.float_cache: dict[tuple[int, int, int], int] = {}
        self.pair_cache: dict[tuple[int, int], int] = {}
        # A downfloat edge's weight depends on the bracket player only (and
        # on whether the other end is in the following bracket).
        self.down_cache: dict[tuple[int, bool, int], int] = {}
        self.layout = self._layout()

    # -- weights ---------------------------------------------------------------------

    def _sd_values(self) -> tuple[list[int], list[int]]:
        """The score differences (half-points) an element of this bracket's
        PSD (C.6) and of the following bracket's PSD (C.7) can have (A.8)."""
        sc = self.g.score
        scores = {sc[u] for u in self.members}
        own = {abs(a - b) for a in scores for b in scores}  # pairs (the CLB mixes scores)
        own |= {s - self.s_low + self.rp.one_point for s in scores}  # downfloaters
        nxt: set[int] = set()
        if self.c7:
            nxt = {0, self.rp.one_point} | {s - self.s_next for s in scores}
            nxt |= {s - self.s_next + self.rp.one_point for s in scores}
        return sorted(own, reverse=True), sorted(nxt, reverse=True)

    def _layout(self) -> Layout:
        cb = self.g.count_bits
        own, nxt = self._sd_values()
        self.sd_max = max(own) + 1
        lay = Layout(cb)
        lay.add("C5", cb)
        for sd in own[:-1]:
            lay.add(f"C6:{sd}", cb)
        self.next_fields = nxt[:-1]
        if self.c7:
            lay.add("C7", cb)
            for sd in nxt[:-1]:
                lay.add(f"C7:{sd}", cb)
        for name in ("C8", "C9", "C10", "C11", "C12", "C13", "C14", "C15"):
            lay.add(name, cb)
        size = len(self.g.adj)  # a matching's sums count at most every vertex once
        wide = (size * (self.sd_max + 1)).bit_length() + 1
        for name in ("C16", "C17", "C18", "C19"):
            lay.add(name, wide)
        lay.add("D3", len(self.mdps) + 1)
        # D.1 twice: for the MDP-pairing above D.2 (its transposition comes
        # first and knows nothing of the remainder's exchange), and for the
        # remainder below D.2, whose fields then hold the chosen exchange
        # while S1's partners are chosen, with no edge to remove.
        if self.mdp_slots:
            lay.add("D1m", self.mdp_slots * self.slot_bits)
        lay.add("D2a", cb)
        lay.add("D2b", (size * 2 * (len(self.members) + 1)).bit_length() + 1)
        if self.exchange_wide:
            lay.add("D2c", len(self.s1r) + 1)
            lay.add("D2d", len(self.s2r) + 1)
        lay.add("D1", self.chunk * self.slot_bits)
        # Lowest: a hint, not a rule. Among pairings equal on everything
        # above, prefer the ones close to the first D.1 candidate (S1[i] with
        # S2[i]), so the D.1 step usually finds its answer already in place.
        lay.add("hint", (size * (len(self.members) + 1)).bit_length() + 1)
        lay.finish()
        off = lay.offsets
        self.psd_own = {
            sd: sum(1 << off[f"C6:{v}"] for v in own[:-1] if v != sd) for sd in own
        }
        self.psd_next = (
            {sd: sum(1 << off[f"C7:{v}"] for v in nxt[:-1] if v != sd) for sd in nxt}
            if self.c7
            else {}
        )
        self.off = off
        self.float_cache = {}
        self.pair_cache = {}
        return lay

    def _state(self, u: int) -> PlayerState:
        return self.rp.order[self.g.players[u]]

    def _floats(self, u: int, direction: int, sd: int) -> int:
        """C.12-C.19 for bracket player ``u`` (every player is counted once,
        in the one edge that matches it). ``direction`` < 0: ``u`` receives a
        downfloat (a lower opponent, or it floats down out of the bracket);
        > 0: an upfloat; 0: no float. ``sd``: the score difference of its
        element (A.8). Each count field counts the players with the float in
        question one (C.12, C.13) or two (C.14, C.15) rounds ago who do *not*
        get it again; C.16-C.19 the score differences of those who do."""
        key = (u, direction, sd)
        cached = self.float_cache.get(key)
        if cached is not None:
            return cached
        off = self.off
        got = Float.DOWN if direction < 0 else Float.UP if direction > 0 else None
        mx = self.sd_max
        state = self._state(u)
        value = 0
        for back, count_down, count_up, sd_down, sd_up in (
            (1, "C12", "C13", "C16", "C17"),
            (2, "C14", "C15", "C18", "C19"),
        ):
            before = state.float_back(back)
            repeat = before is not None and before is got
            if before is Float.DOWN and not repeat:
                value += 1 << off[count_down]
            if before is Float.UP and not repeat:
                value += 1 << off[count_up]
            value += (mx - (sd if repeat and got is Float.DOWN else 0)) << off[sd_down]
            value += (mx - (sd if repeat and got is Float.UP else 0)) << off[sd_up]
        self.float_cache[key] = value
        return value

    def weight(self, u: int, w: int) -> int:
        """The edge weight of u-w for the current phase (0: no edge).

        On a graph where players may float on (``Graph.floats``, the isolated
        graph of C.7), a player left unmatched is worth its float value
        (:meth:`_stay`: what an edge to a private "floats below" vertex would
        weigh). Instead of such a vertex per player, which doubles the
        matcher's size, every edge weighs its value less its two ends' float
        values: a matching's total is then the total with those vertices
        less a constant (the sum of all float values), so the same matchings
        are best. The difference stays positive: every edge of the bracket
        or to the following bracket carries a field (C.5 or C.7) above all
        the float values' fields.
        """
        value = self._edge(u, w)
        if value and self.g.floats:
            value -= self._stay(u) + self._stay(w)
            if value <= 0:  # pragma: no cover - never better than both floating
                return 0
        return value

    def _stay(self, u: int) -> int:
        """The value of leaving ``u`` unmatched on a floating graph (see :meth:`weight`)."""
        value = 1 << self.g.top  # completion: the player counts as covered
        role = self.g.role[u]
        if role <= RES:
            key = (u, False, value)
            cached = self.down_cache.get(key)
            if cached is None:
                cached = self.down_cache[key] = self._down_weight(u, LOW, value)
            return cached
        if role == NEXT and self.c7:
            return value + self.psd_next[self.rp.one_point]  # C.7: a following downfloater
        return value

    def _edge(self, u: int, w: int) -> int:
        role = self.g.role
        ru, rw = role[u], role[w]
        if ru > rw:
            u, w, ru, rw = w, u, rw, ru
        value = self.g.base(u, w)
        if rw <= RES:  # both in the bracket: a pair of the bracket
            return self._pair_weight(u, w, ru, rw, value)
        if ru <= RES:  # u floats down out of the bracket
            key = (u, rw == NEXT, value)
            cached = self.down_cache.get(key)
            if cached is None:
                cached = self.down_cache[key] = self._down_weight(u, rw, value)
            return cached
        if ru == NEXT and self.c7:
            if rw == NEXT:  # C.7: a pair of the following bracket
                return value + (1 << self.off["C7"]) + self.psd_next[0]
            return value + self.psd_next[self.rp.one_point]  # C.7: a following downfloater
        return value

    def _pair_weight(self, u: int, w: int, ru: int, rw: int, value: int) -> int:
        if ru == MDP and rw == MDP and not self.last:
            return 0  # B.2/B.3: MDPs (S1) are paired with residents (S2)
        limbo = self.limbo
        if limbo and (u in limbo or w in limbo):
            return 0  # D.3: the Limbo floats on
        key = (u, w) if u < w else (w, u)
        fixed = self.pair_cache.get(key)
        if fixed is None:
            fixed = self.pair_cache[key] = self._pair_fields(u, w, ru, rw)
        value += fixed
        if self.exchange:
            value += self._exchange_pair(u, w)
        return value

    def _pair_fields(self, u: int, w: int, ru: int, rw: int) -> int:
        """The fields of a pair of the bracket that no phase changes: C.5-C.19,
        D.3 and the hint (cached per layout by :meth:`_pair_weight`)."""
        off = self.off
        sc = self.g.score
        sd = abs(sc[u] - sc[w])
        value = (1 << off["C5"]) + self.psd_own[sd]
        players = self.g.players
        fact = self.rp.fact(players[u], players[w])
        value += (
            ((2 - fact.c8) << off["C8"])
            + ((2 - fact.c9) << off["C9"])
            + ((2 - fact.c10) << off["C10"])
            + ((2 - fact.c11) << off["C11"])
        )
        # A.4.b: the higher score receives a downfloat, the lower an upfloat.
        value += self._floats(u, sc[w] - sc[u], sd) + self._floats(w, sc[u] - sc[w], sd)
        n_res = len(self.residents)
        if ru == MDP and rw == RES:
            # D.3.b: the lowest BSNs among the MDPs in S1.
            value += (1 << (len(self.mdps) - 1 - self.mdp_pos[u])) << off["D3"]
            gap = abs(self.res_pos[w] - self.mdp_pos[u])
            value += max(0, n_res - gap) << off["hint"]
        elif ru == RES and rw == RES:
            lo, hi = sorted((self.res_pos[u], self.res_pos[w]))
            gap = abs(hi - lo - (n_res - len(self.mdps)) // 2)
            value += max(0, n_res - gap) << off["hint"]
        return value

    def _down_weight(self, u: int, rw: int, value: int) -> int:
        off = self.off
        if u in self.s1_mdps:
            return 0
        sc = self.g.score
        sd = sc[u] - self.s_low + self.rp.one_point  # A.8: one point below the bracket's lowest
        value += self.psd_own[sd] + self._floats(u, -1, sd)
        if self.c7:
            if rw == NEXT:
                value += (1 << off["C7"]) + self.psd_next[sc[u] - self.s_next]
            elif self.alone is not None:
                value += self._c7_alone(u)
            else:
                value += self.psd_next[sc[u] - self.s_next + self.rp.one_point]
        if self.exchange:
            n = len(self.members) + 1
            if u in self.s1r:
                value += (n + self.bsn[u]) << off["D2b"]
                if self.exchange_wide:
                    value += (1 << self.s1r[u]) << off["D2c"]
            elif u in self.s2r:
                value += n << off["D2b"]
        return value

    def _c7_alone(self, u: int) -> int:
        """C.7 when ``u`` is the bracket's one downfloater and the following
        bracket F is summed up (:mod:`.following`; m: the pairs of a maximum
        pairing of F, s: u's score difference). C.7's pair field gets the one
        pair more or not; the PSD's elements are counted above a baseline
        common to every ``u`` (m - 1 elements 0 for F's pairs, |F| - 2m - 1
        elements one point for F's floaters: A.8):

        - PAIRED_MORE: m + 1 pairs: F's m (one 0 more) and u's (s);
        - PAIRED: m pairs, u's among them (s), and |F| - 2m + 1 floaters;
        - FLOATING: F's m pairs, u floating on (s + one point), |F| - 2m floaters.

        As everywhere, a PSD field counts the elements *not* of its value
        (compared from the highest value down), here 3 less the count: no
        count exceeds 3, so the fields stay small and never carry."""
        case = self.alone.get(u) if self.alone is not None else None
        if case is None:
            return 0  # no downfloater in a best pairing: C.7 chooses nothing
        s = self.g.score[u] - self.s_next  # u's score difference (A.8)
        one = self.rp.one_point  # A.8's one point, in score units
        counts = Counter({s: 1})
        if case == PAIRED_MORE:
            counts[0] += 1
        elif case == PAIRED:
            counts[one] += 2
        else:  # FLOATING: u floats on (s + one), one more pair of F (0)
            counts = Counter({0: 1, s + one: 1, one: 1})  # and one floater fewer
        off = self.off
        value = (1 << off["C7"]) if case == PAIRED_MORE else 0
        for v in self.next_fields:
            value += (3 - counts[v]) << off[f"C7:{v}"]
        return value

    def _exchange_pair(self, u: int, w: int) -> int:
        """D.2 a-d for a pair of the remainder (S1R/S2R: the original subgroups).

        a: fewest BSNs exchanged (pairs inside S2R); b: smallest difference
        of the sums moved (maximize the sum leaving S1R minus the sum entering
        it); c: the highest BSNs leaving S1R; d: the lowest entering it.
        """
        off = self.off
        s1r, s2r = self.s1r, self.s2r
        if (u not in s1r and u not in s2r) or (w not in s1r and w not in s2r):
            return 0
        n = len(self.members) + 1
        lo, hi = (u, w) if self.bsn[u] < self.bsn[w] else (w, u)
        value = 0
        if lo in s1r and hi in s1r:  # hi moves from S1R to S2R
            value += (1 << off["D2a"]) + ((n + self.bsn[hi]) << off["D2b"])
            if self.exchange_wide:
                value += (1 << s1r[hi]) << off["D2c"]
        elif lo in s2r and hi in s2r:  # lo moves from S2R to S1R
            value += (n - self.bsn[lo]) << off["D2b"]
            if self.exchange_wide:
                value += (1 << (len(s2r) - 1 - s2r[lo])) << off["D2d"]
        else:
            value += (1 << off["D2a"]) + (n << off["D2b"])
        return value
