"""Pairing a round bracket by bracket (C.04.3 A.3, A.9, B, C, D).

Vertices are the players to pair in A.2 order (score, then pairing number),
plus one bye vertex when their number is odd (A.5: one player gets the
pairing-allocated bye; only C.2-eligible players have an edge to it). One
matcher holds the whole round: for each bracket, in descending score order,
the edges touching the bracket and the following bracket get the weights of
:mod:`.criteria`; every other edge only asks for completion (C.4: whatever
the bracket does, the players below must still be pairable). A maximum-weight
matching then gives a bracket pairing that is best by C.5-C.19, in that
order. Among equally good ones the D rules pick the first candidate the
sequential procedure of B.6/B.7 would generate:

1. D.3: the moved-down players (MDPs) paired in S1 -- by score (C.6), then
   the lowest BSNs; the others are the Limbo (they float on).
2. D.1 on the MDP-pairing: each S1 MDP, in BSN order, takes the lowest
   resident BSN that still allows a best pairing.
3. D.2 on the remainder: the exchange between S1R and S2R with the fewest
   BSNs, then the smallest sum difference, then the highest BSNs moved from
   S1R, then the lowest moved from S2R.
4. D.1 on the remainder: each S1 player, in BSN order, takes the lowest BSN
   of S2 that still allows a best pairing.

Players left unpaired in the bracket are its downfloaters: the MDPs of the
next bracket, or in the last bracket the receiver of the pairing-allocated bye.
Because completion is required in every bracket, the round can never get
stuck in a lower bracket, which is what the PPB/CLB of A.9 guarantee: a
bracket whose downfloaters would leave the rest unpairable (the PPB) chooses
them so that the round completes (C.4), and C.7 (the following bracket) is
applied only while there is a following bracket.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tcecd.domain import Color
from tcecd.errors import PairingError
from tcecd.pairing.dutch.colours import Preference, preference
from tcecd.pairing.dutch.criteria import Layout, PairFacts, compatible, pair_facts
from tcecd.pairing.dutch.following import PAIRED, PAIRED_MORE, Following, following_bracket
from tcecd.pairing.dutch.graph import LOW, MDP, NEXT, RES, Completion, Graph
from tcecd.pairing.dutch.state import Float, PlayerState

#: Bits given to one D.1 lexicographic field at a time (several S1 players'
#: partner choices are settled by one matching while they fit).
D1_BITS = 64


@dataclass(frozen=True, slots=True)
class BracketPairing:
    """The round: pairs as (white, black) states in the order brackets made
    them, and the receiver of the pairing-allocated bye."""

    pairs: tuple[tuple[PlayerState, PlayerState], ...]
    bye: PlayerState | None


class RoundPairer:
    """Pairs one round; build it and call :meth:`run` once.

    A.9, the round-pairing outlook: the brackets are paired in descending
    score order. Each is first paired as the rules pair a bracket that is
    not the PPB: by C.5-C.19, C.7 looking at the following bracket *on its
    own* (its best number of pairs and PSD given these downfloaters, whatever
    happens below it; when the following bracket is the last one, its
    downfloater is the pairing-allocated bye, so C.2 and completion count).
    If its downfloaters and the remaining players then allow a complete
    round-pairing, the bracket is done. Otherwise it is the
    Penultimate Pairing Bracket: it is paired again with C.4 (the
    downfloaters are chosen so that the round completes) and without C.7,
    and its downfloaters together with every lower player form the
    Collapsed Last Bracket, paired last (with the pairing-allocated bye).
    """

    def __init__(
        self, states: Sequence[PlayerState], first_colour: Color, number: dict[str, int]
    ) -> None:
        self.order = sorted(states, key=lambda s: (-s.score, s.seed))  # A.2
        self.first_colour = first_colour
        self.number = number  # E.5's pairing numbers
        self.n = n = len(self.order)
        self.bye: int | None = n if n % 2 else None
        self.v = n + (1 if self.bye is not None else 0)
        self.score = [s.score for s in self.order] + ([-1] if self.bye is not None else [])
        self.prefs: list[Preference] = [preference(s) for s in self.order]
        self.adj: list[set[int]] = [set() for _ in range(self.v)]
        for i in range(n):
            a, pa = self.order[i], self.prefs[i]
            for j in range(i + 1, n):
                if compatible(a, pa, self.order[j], self.prefs[j]):
                    self.adj[i].add(j)
                    self.adj[j].add(i)
            if self.bye is not None and a.pab_allowed:  # C.2
                self.adj[i].add(self.bye)
                self.adj[self.bye].add(i)
        self.facts: dict[tuple[int, int], PairFacts] = {}
        self.pairs: list[tuple[int, int]] = []
        self.paired = [False] * self.v

    def fact(self, u: int, w: int) -> PairFacts:
        """C.8-C.11 and E.1-E.5 for round vertices u < w (cached)."""
        key = (u, w) if u < w else (w, u)
        fact = self.facts.get(key)
        if fact is None:
            a, b = key
            fact = pair_facts(
                self.order[a],
                self.prefs[a],
                self.order[b],
                self.prefs[b],
                self.first_colour,
                self.number,
            )
            self.facts[key] = fact
        return fact

    def _unpaired(self) -> list[int]:
        return [u for u in range(self.v) if not self.paired[u]]

    def _bracket(
        self,
        graph: Graph,
        mdps: list[int],
        residents: list[int],
        following: list[int],
        last: bool,
        summary: Following | None = None,
    ) -> tuple[list[tuple[int, int]], list[int]]:
        """Pair one bracket on ``graph``: its pairs and downfloaters (round
        vertices). With ``summary`` the following bracket is not in the
        graph: C.7 comes from the summary."""
        loc = graph.local
        bracket = _Bracket(
            graph,
            [loc[u] for u in mdps],
            [loc[u] for u in residents],
            [] if summary is not None else [loc[u] for u in following],
            last=last,
            summary=summary,
        )
        down = bracket.pair()
        players = graph.players
        pairs = [(players[a], players[b]) for a, b in bracket.new_pairs]
        return pairs, [players[u] for u in down]

    def run(self) -> BracketPairing:
        groups: list[list[int]] = []
        for i in range(self.n):
            if groups and self.score[groups[-1][0]] == self.score[i]:
                groups[-1].append(i)
            else:
                groups.append([i])
        completion = Completion(self.adj)
        if not completion.perfect():
            raise PairingError(
                "no pairing satisfies the absolute criteria C.1-C.3 (C.04.3 A.9: "
                "the arbiter decides)"
            )
        mdps: list[int] = []
        for g, residents in enumerate(groups):
            following = groups[g + 1] if g + 1 < len(groups) else []
            if following:
                summary: Following | None = None
                if g + 2 < len(groups):
                    # C.7 with at most one downfloater: the following bracket
                    # summed up per player instead of in the matcher (.following).
                    summary = following_bracket(
                        completion.masks, mdps, residents, following, self.score[following[0]]
                    )
                    window = mdps + residents + (following if summary is None else [])
                    iso = Graph(self, window, floats=True)
                else:
                    # The following bracket is the last one: its downfloater is
                    # the bye, so C.7 looks at it with C.2 and completion.
                    iso = Graph(self, self._unpaired(), floats=False)
                pairs, down = self._bracket(
                    iso, mdps, residents, following, last=False, summary=summary
                )
                for u, w in pairs:
                    completion.fix(u, w)
                if completion.perfect():
                    self._accept(pairs)
                    mdps = down
                    continue
                for u, w in pairs:
                    completion.fix(u, w, undo=True)
                # The PPB: paired again with C.4 and without C.7; then the CLB.
                graph = Graph(self, self._unpaired(), floats=False)
                pairs, mdps = self._bracket(graph, mdps, residents, [], last=False)
                self._accept(pairs)
                residents = [u for grp in groups[g + 1 :] for u in grp]
            else:
                graph = Graph(self, self._unpaired(), floats=False)
            pairs, mdps = self._bracket(graph, mdps, residents, [], last=True)
            self._accept(pairs)
            break
        bye: PlayerState | None = None
        if mdps:
            if len(mdps) != 1 or self.bye is None:  # pragma: no cover - C.4 guarantees
                raise PairingError("the last bracket left players unpaired")
            bye = self.order[mdps[0]]
        out = []
        for a, b in self.pairs:
            if self.fact(a, b).first_white:
                out.append((self.order[a], self.order[b]))
            else:
                out.append((self.order[b], self.order[a]))
        return BracketPairing(tuple(out), bye)

    def _accept(self, pairs: list[tuple[int, int]]) -> None:
        for u, w in pairs:
            self.pairs.append((u, w) if u < w else (w, u))
            self.paired[u] = self.paired[w] = True


class _Bracket:
    """One bracket on a :class:`Graph` (local vertex numbers): its MDPs and
    residents, and the following bracket's residents (C.7)."""

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
        own |= {s - self.s_low + 2 for s in scores}  # downfloaters
        nxt: set[int] = set()
        if self.c7:
            nxt = {0, 2} | {s - self.s_next for s in scores}
            nxt |= {s - self.s_next + 2 for s in scores}
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
            return value + self.psd_next[2]  # C.7: a downfloater of the following bracket
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
            return value + self.psd_next[2]  # C.7: a downfloater of the following bracket
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
        sd = sc[u] - self.s_low + 2  # A.8: against one point below the bracket's lowest
        value += self.psd_own[sd] + self._floats(u, -1, sd)
        if self.c7:
            if rw == NEXT:
                value += (1 << off["C7"]) + self.psd_next[sc[u] - self.s_next]
            elif self.alone is not None:
                value += self._c7_alone(u)
            else:
                value += self.psd_next[sc[u] - self.s_next + 2]
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
        bracket is summed up (:mod:`.following`): its pairs (one more or
        not) and its PSD, each value's count less a constant common to
        every ``u`` (so the fields stay small and never carry)."""
        case = self.alone.get(u) if self.alone is not None else None
        if case is None:
            return 0  # no downfloater in a best pairing: C.7 chooses nothing
        s = self.g.score[u] - self.s_next  # u's score difference (A.8)
        counts = Counter({s: 1})
        if case == PAIRED_MORE:
            counts[0] += 1
        elif case == PAIRED:
            counts[2] += 2
        else:  # FLOATING: u floats on (s + 2), one more pair of F (0) and
            counts = Counter({0: 1, s + 2: 1, 2: 1})  # one floater fewer (2)
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

    # -- phases ------------------------------------------------------------------------

    def _update(self, vertices: Sequence[int]) -> None:
        """Set the current phase's weight of every edge at ``vertices``."""
        g = self.g
        self.down_cache = {}
        fixed, adj, weight, put = g.fixed, g.adj, self.weight, g.matcher.set
        done: set[int] = set()
        for u in vertices:
            if fixed[u]:
                continue
            for w in adj[u]:
                if not fixed[w] and w not in done:
                    put(u, w, weight(u, w))
            done.add(u)

    def _relayout(self) -> None:
        self.layout = self._layout()
        self.g.ensure(self.layout.total, set(self.members) | set(self.following))
        self._update(self.members + self.following)

    def _fix(self, u: int, w: int) -> None:
        self.g.fix(u, w)
        self.new_pairs.append((u, w))

    def _transpose(self, s1: Sequence[int], s2: Sequence[int], field: str, slots: int) -> None:
        """D.1: the S1 players, in BSN order, take the lowest S2 BSNs that
        still allow a best pairing (the lexicographically first transposition
        among the best candidates). Up to ``slots`` S1 players are settled by
        one matching, their choices weighted lexicographically in ``field``;
        a chunk whose current partners are already the lowest allowed BSNs
        costs nothing."""
        g = self.g
        if not s1:
            return
        for start in range(0, len(s1), slots):
            chunk = list(s1[start : start + slots])
            mate = g.matcher.mate
            taken: set[int] = set()
            settled = True
            for x in chunk:
                first = next(
                    (w for w in s2 if not g.fixed[w] and w not in taken and w in g.adj[x]), None
                )
                if first is None or mate[x] != first:
                    settled = False
                    break
                taken.add(first)
            if not settled:
                # D.1: the lexicographically smallest S2 sequence for the
                # chunk: each player's edges into S2 gain its slot's field
                # (its first slot highest), the more the lower the BSN.
                # Nothing else changes: added to the weights in place.
                add, fixed, d1 = g.matcher.add, g.fixed, self.off[field]
                n2 = len(s2)
                for slot, x in enumerate(chunk):
                    shift = d1 + (slots - 1 - slot) * self.slot_bits
                    for pos, w in enumerate(s2):
                        if not fixed[w]:
                            add(x, w, (n2 - pos) << shift)
                mate = g.matcher.compute()
            for x in chunk:
                partner = mate[x]
                if partner == x or partner not in self.bsn:  # pragma: no cover - defensive
                    raise PairingError("internal error: an S1 player lost its partner")
                self._fix(x, partner)

    def _split(self, remainder: list[int], p_rem: int) -> bool:
        """B.2 for the remainder: S1R its first ``p_rem`` players, S2R the
        rest; True when that changed the split."""
        s1r = {u: k for k, u in enumerate(remainder[:p_rem])}
        s2r = {u: k for k, u in enumerate(remainder[p_rem:])}
        changed = s1r != self.s1r or s2r != self.s2r
        self.s1r, self.s2r = s1r, s2r
        return changed

    def pair(self) -> list[int]:
        """Pair the bracket; return its downfloaters."""
        g = self.g
        if self.leftover is not None:
            # With C.7 summed up, the bracket's pairs are known before any
            # matching (C.5: all but the deficiency). Guess the remainder
            # (every MDP paired, with the first residents, as D.1 usually
            # finds) and let the D.2 weights join the first matching: they
            # lie below C.5-C.19, D.3 and D.1, so they change none of the
            # choices made before the remainder's, and when the guess holds
            # the remainder needs no matching of its own.
            m = len(self.mdps)
            pairs = (len(self.members) - self.leftover) // 2
            if pairs > m:
                self._split(self.residents[m:], pairs - m)
                self.exchange = True
        self._relayout()
        mate = g.matcher.compute()
        if not g.floats and any(mate[u] == u for u in range(g.real) if not g.fixed[u]):
            raise PairingError("no complete round-pairing (C.4)")  # pragma: no cover
        # Unmatched (mate[u] == u): floats down, on a floating graph.
        inside = {u for u in self.members if mate[u] != u and mate[u] in self.bsn}
        pairs_here = len(inside) // 2
        # D.3: the MDPs paired in this bracket form S1; the others are the Limbo.
        self.s1_mdps = {m for m in self.mdps if m in inside}
        self.limbo = {m for m in self.mdps if m not in inside}
        if self.mdps:
            # The edges these constraints remove are not in the current
            # matching, so it stays a best one: no new matching needed.
            self._update(self.mdps)
        self._transpose(
            [m for m in self.mdps if m in self.s1_mdps], self.residents, "D1m", self.mdp_slots
        )
        # The remainder: residents not paired with MDPs, split by B.2 into
        # S1R (the first MaxPairs) and S2R.
        remainder = [r for r in self.residents if not g.fixed[r]]
        p_rem = pairs_here - len(self.s1_mdps)
        if p_rem > 0:
            guessed = self._split(remainder, p_rem) is False and self.exchange
            mate = g.matcher.mate
            if not guessed and (
                self.exchange or any(mate[u] != u and mate[u] in self.s2r for u in self.s2r)
            ):
                # D.2 a: some optimal pairings exchange; find the first one.
                self.exchange = True
                self._update(remainder)
                mate = g.matcher.compute()
            if any(mate[u] != u and mate[u] in self.s2r for u in self.s2r):
                # An exchange is needed; D.2 c/d may have to break a tie.
                self.exchange_wide = True
                self._relayout()
                mate = g.matcher.compute()
            x_set: set[int] = set()
            for u in remainder:
                w = mate[u]
                if (w in self.s1r or w in self.s2r) and self.bsn[u] < self.bsn[w]:
                    # S1R-S2R: the S1R player stays in S1; S1R-S1R: the higher
                    # BSN moves to S2; S2R-S2R: the lower BSN moves to S1.
                    x_set.add(u)
            if not self.exchange:
                # No exchange, and no D.2 weights to hold that: S1 (x_set) is
                # paired with S2 only, the edges inside S1 or inside S2 go
                # (none is in the current matching). With D.2's weights (and
                # D.2 c/d when there is an exchange) this exchange is the
                # only best one, above D.1's field: no edge needs to go.
                put, adj, fixed = g.matcher.set, g.adj, g.fixed
                rest = set(remainder)
                for u in remainder:
                    side = u in x_set
                    for w in adj[u]:
                        if u < w and w in rest and (w in x_set) == side and not fixed[w]:
                            put(u, w, 0)
            s2 = [u for u in remainder if u not in x_set]
            self._transpose(sorted(x_set, key=self.bsn.__getitem__), s2, "D1", self.chunk)
        return [u for u in self.members if not g.fixed[u]]
