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

from collections.abc import Sequence
from dataclasses import dataclass

from tcecd.domain import Color
from tcecd.errors import PairingError
from tcecd.pairing.dutch.colours import Preference, preference
from tcecd.pairing.dutch.criteria import Layout, PairFacts, compatible, pair_facts
from tcecd.pairing.dutch.matcher import Matcher
from tcecd.pairing.dutch.state import Float, PlayerState

#: Vertex roles in the bracket being paired (see :mod:`.criteria`).
FIXED, MDP, RES, NEXT, LOW = range(5)


@dataclass(frozen=True, slots=True)
class BracketPairing:
    """The round: pairs as (white, black) states in the order brackets made
    them, and the receiver of the pairing-allocated bye."""

    pairs: tuple[tuple[PlayerState, PlayerState], ...]
    bye: PlayerState | None


class Graph:
    """A matcher with its vertices' roles and allowed edges.

    The round graph holds every player to pair (and the bye vertex); a
    bracket's *isolated* graph (C.7, see :class:`RoundPairer`) holds only the
    bracket and the following bracket, each player with a private dummy
    vertex standing for "floats on below". Player vertices keep their index
    in A.2 order; dummies come after them.
    """

    def __init__(self, adj: list[set[int]], real: int, count_bits: int, lower_bits: int) -> None:
        self.adj = adj
        self.real = real  # vertices below this index are players or the bye
        self.count_bits = count_bits
        self.role = [LOW] * len(adj)
        self.fixed = [False] * len(adj)
        self.pairs: list[tuple[int, int]] = []
        self.matcher = self._new_matcher(lower_bits)

    def _new_matcher(self, lower_bits: int) -> Matcher:
        matcher = Matcher(len(self.adj), lower_bits + self.count_bits + 1)
        self.top = lower_bits
        self.matcher = matcher
        for u in range(len(self.adj)):
            for w in self.adj[u]:
                if u < w and not self.fixed[u] and not self.fixed[w]:
                    matcher.set(u, w, self.base(u, w))
        for u, w in self.pairs:
            matcher.set(u, w, self.base(u, w))
        return matcher

    def base(self, u: int, w: int) -> int:
        """Completion (C.4): every player matched. An edge counts the players
        it covers (a dummy is nobody), so the top field is largest exactly
        when every player has a partner or a dummy."""
        covered = (u < self.real) + (w < self.real)
        return covered << self.top

    def ensure(self, bits: int) -> None:
        """Grow the weights when a bracket needs more bits (rare: very wide
        D.2 exchange fields); every edge is set again."""
        if bits > self.top:
            self.matcher = self._new_matcher(bits + 64)

    def fix(self, u: int, w: int) -> None:
        """Make u-w a pair of the round: no other edge at u or w."""
        for x in (u, w):
            for y in self.adj[x]:
                if y not in (u, w) and not self.fixed[y]:
                    self.matcher.set(x, y, 0)
            self.fixed[x] = True
            self.role[x] = FIXED
        self.pairs.append((u, w) if u < w else (w, u))

    def unfix(self, u: int, w: int) -> None:
        """Undo :meth:`fix` (every edge back to completion only)."""
        self.pairs.remove((u, w) if u < w else (w, u))
        for x in (u, w):
            self.fixed[x] = False
            self.role[x] = LOW
        for x in (u, w):
            for y in self.adj[x]:
                if not self.fixed[y]:
                    self.matcher.set(x, y, self.base(x, y))

    def perfect(self) -> bool:
        mate = self.matcher.compute()
        return all(mate[u] != u for u in range(self.real) if not self.fixed[u])


class RoundPairer:
    """Pairs one round; build it and call :meth:`run` once.

    A.9, the round-pairing outlook: the brackets are paired in descending
    score order. Each is first paired as the rules pair a bracket that is
    not the PPB: by C.5-C.19, C.7 looking at the following bracket *on its
    own* (its best number of pairs and PSD given these downfloaters, whatever
    happens below it). If its downfloaters and the remaining players then
    allow a complete round-pairing, the bracket is done. Otherwise it is the
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
        self.topscorers = any(s.topscorer for s in self.order)
        self.count_bits = (2 * self.v + 2).bit_length() + 1
        self.facts: dict[tuple[int, int], PairFacts] = {}
        self.graph = Graph(self.adj, self.v, self.count_bits, self.count_bits * 24)

    def _fact(self, u: int, w: int) -> PairFacts:
        key = (u, w) if u < w else (w, u)
        fact = self.facts.get(key)
        if fact is None:
            a, b = key
            fact = pair_facts(
                self.order[a], self.prefs[a], self.order[b], self.prefs[b], self.first_colour,
                self.number,
            )
            self.facts[key] = fact
        return fact

    def isolated(self, members: Sequence[int]) -> Graph:
        """The graph of a bracket and its following bracket, each player with
        a dummy ("floats on below"): C.7 without the players further down."""
        inside = set(members)
        k = len(self.adj)
        adj: list[set[int]] = [set() for _ in range(k + len(members))]
        for u in members:
            adj[u] = {w for w in self.adj[u] if w in inside}
        for j, u in enumerate(members):
            adj[u].add(k + j)
            adj[k + j].add(u)
        return Graph(adj, k, self.count_bits, self.count_bits * 24)

    def run(self) -> BracketPairing:
        groups: list[list[int]] = []
        for i in range(self.n):
            if groups and self.score[groups[-1][0]] == self.score[i]:
                groups[-1].append(i)
            else:
                groups.append([i])
        graph = self.graph
        if not graph.perfect():
            raise PairingError(
                "no pairing satisfies the absolute criteria C.1-C.3 (C.04.3 A.9: "
                "the arbiter decides)"
            )
        mdps: list[int] = []
        for g, residents in enumerate(groups):
            following = groups[g + 1] if g + 1 < len(groups) else []
            if not following:
                mdps = _Bracket(self, graph, mdps, residents, [], last=True).pair()
                break
            iso = self.isolated(mdps + residents + following)
            down = _Bracket(self, iso, mdps, residents, following, last=False).pair()
            for u, w in iso.pairs:
                graph.fix(u, w)
            if graph.perfect():
                mdps = down
                continue
            for u, w in list(iso.pairs):
                graph.unfix(u, w)
            # The PPB: paired again with C.4 and without C.7; then the CLB.
            mdps = _Bracket(self, graph, mdps, residents, [], last=False).pair()
            rest = [u for grp in groups[g + 1 :] for u in grp]
            mdps = _Bracket(self, graph, mdps, rest, [], last=True).pair()
            break
        bye: PlayerState | None = None
        if mdps:
            if len(mdps) != 1 or self.bye is None:  # pragma: no cover - C.4 guarantees
                raise PairingError("the last bracket left players unpaired")
            bye = self.order[mdps[0]]
        out = []
        for a, b in graph.pairs:
            if self._fact(a, b).first_white:
                out.append((self.order[a], self.order[b]))
            else:
                out.append((self.order[b], self.order[a]))
        return BracketPairing(tuple(out), bye)


class _Bracket:
    """One bracket: MDPs and residents, the following bracket's residents."""

    def __init__(
        self,
        rp: RoundPairer,
        graph: Graph,
        mdps: list[int],
        residents: list[int],
        following: list[int],
        *,
        last: bool,
    ) -> None:
        self.rp = rp
        self.g = graph
        self.mdps = mdps
        self.residents = residents
        self.following = following
        self.members = mdps + residents  # BSN order (A.2)
        self.bsn = {u: k + 1 for k, u in enumerate(self.members)}
        self.last = last  # the last bracket (CLB): it gives the bye
        self.c7 = bool(following)
        self.s_low = min(rp.score[u] for u in residents)
        self.s_next = rp.score[following[0]] if following else 0
        mdp_set = set(mdps)
        for u in self.members:
            self.g.role[u] = MDP if u in mdp_set else RES
        for u in following:
            self.g.role[u] = NEXT
        self.mdp_pos = {u: k for k, u in enumerate(mdps)}
        # Phase state (D rules).
        self.target: int | None = None  # the S1 player choosing its S2 partner (D.1)
        self.s1_mdps: set[int] = set()
        self.limbo: set[int] = set()
        self.s1r: dict[int, int] = {}  # remainder S1R player -> position
        self.s2r: dict[int, int] = {}
        self.exchange = False
        self.exchange_wide = False
        self.x_set: set[int] | None = None  # S1 of the chosen exchange
        self.layout = self._layout()

    # -- weights ---------------------------------------------------------------------

    def _sd_values(self) -> tuple[list[int], list[int]]:
        """The score differences (half-points) an element of this bracket's
        PSD (C.6) and of the following bracket's PSD (C.7) can have (A.8)."""
        sc = self.rp.score
        scores = {sc[u] for u in self.members}
        own = {abs(a - b) for a in scores for b in scores}  # pairs (the CLB mixes scores)
        own |= {sc[u] - self.s_low + 2 for u in self.members}  # downfloaters
        nxt: set[int] = set()
        if self.c7:
            nxt = {0, 2} | {sc[u] - self.s_next for u in self.members}
            nxt |= {sc[u] - self.s_next + 2 for u in self.members}
        return sorted(own, reverse=True), sorted(nxt, reverse=True)

    def _layout(self) -> Layout:
        rp = self.rp
        cb = rp.count_bits
        own, nxt = self._sd_values()
        self.sd_max = max(own) + 1
        lay = Layout(cb)
        lay.add("C5", cb)
        for sd in own[:-1]:
            lay.add(f"C6:{sd}", cb)
        if self.c7:
            lay.add("C7", cb)
            for sd in nxt[:-1]:
                lay.add(f"C7:{sd}", cb)
        for name in ("C8", "C9", "C10", "C11", "C12", "C13", "C14", "C15"):
            lay.add(name, cb)
        wide = (rp.v * (self.sd_max + 1)).bit_length() + 1
        for name in ("C16", "C17", "C18", "C19"):
            lay.add(name, wide)
        lay.add("D3", len(self.mdps) + 1)
        lay.add("D1", cb)
        lay.add("D2a", cb)
        lay.add("D2b", (rp.v * 2 * (len(self.members) + 1)).bit_length() + 1)
        if self.exchange_wide:
            lay.add("D2c", len(self.s1r) + 1)
            lay.add("D2d", len(self.s2r) + 1)
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
        return lay

    def _floats(self, u: int, opponent_lower: int, sd: int) -> int:
        """C.12-C.19 for bracket player ``u`` (every player is counted once,
        in the one edge that matches it). ``opponent_lower`` < 0: ``u``
        receives a downfloat (a lower opponent, or it floats down out of the
        bracket); > 0: an upfloat; 0: no float. ``sd``: the score difference
        of its element (A.8). Each field counts the players with the float in
        question one or two rounds ago who do *not* get it again, and the
        score differences of those who do."""
        off = self.off
        got = Float.DOWN if opponent_lower < 0 else Float.UP if opponent_lower > 0 else None
        mx = self.sd_max
        state = self.rp.order[u]
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
        return value

    def _down(self, u: int, back: int) -> bool:
        return self.rp.order[u].float_back(back) is Float.DOWN

    def _up(self, u: int, back: int) -> bool:
        return self.rp.order[u].float_back(back) is Float.UP

    def weight(self, u: int, w: int) -> int:
        """The edge weight of u-w for the current phase (0: no edge)."""
        rp, off = self.rp, self.off
        ru, rw = self.g.role[u], self.g.role[w]
        if ru > rw:
            u, w, ru, rw = w, u, rw, ru
        value = self.g.base(u, w)
        if rw <= RES:  # both in the bracket: a pair of the bracket
            return self._pair_weight(u, w, ru, rw, value)
        if ru <= RES:  # u floats down out of the bracket
            return self._down_weight(u, w, rw, value)
        if ru == NEXT:
            if rw == NEXT:  # C.7: a pair of the following bracket
                return value + (1 << off["C7"]) + self.psd_next[0]
            return value + self.psd_next[2]  # C.7: a downfloater of the following bracket
        return value

    def _pair_weight(self, u: int, w: int, ru: int, rw: int, value: int) -> int:
        rp, off = self.rp, self.off
        if ru == MDP and rw == MDP and not self.last:
            return 0  # B.2/B.3: MDPs (S1) are paired with residents (S2)
        if u in self.limbo or w in self.limbo:
            return 0
        x_set = self.x_set
        if x_set is not None and u not in self.s1_mdps and w not in self.s1_mdps:
            if (u in x_set) == (w in x_set):
                return 0  # D.2: after the exchange, S1 is paired with S2
        sc = rp.score
        sd = abs(sc[u] - sc[w])
        value += (1 << off["C5"]) + self.psd_own[sd]
        fact = rp._fact(u, w)
        value += (2 - fact.c8) << off["C8"]
        value += (2 - fact.c9) << off["C9"]
        value += (2 - fact.c10) << off["C10"]
        value += (2 - fact.c11) << off["C11"]
        value += self._floats(u, sc[w] - sc[u], sd) + self._floats(w, sc[u] - sc[w], sd)
        if ru == MDP and rw == RES:
            # D.3.b: the lowest BSNs among the MDPs in S1.
            value += (1 << (len(self.mdps) - 1 - self.mdp_pos[u])) << off["D3"]
        if self.target is not None and self.target in (u, w):
            other = w if self.target == u else u
            value += (len(self.members) + 1 - self.bsn[other]) << off["D1"]
        if self.exchange and u in self.bsn and w in self.bsn:
            value += self._exchange_pair(u, w)
        return value

    def _down_weight(self, u: int, w: int, rw: int, value: int) -> int:
        rp, off = self.rp, self.off
        if u in self.s1_mdps:
            return 0
        if self.x_set is not None and u in self.x_set:
            return 0
        sc = rp.score
        sd = sc[u] - self.s_low + 2  # A.8: against one point below the bracket's lowest
        value += self.psd_own[sd]
        value += self._floats(u, -1, sd)
        if self.c7:
            if rw == NEXT:
                value += (1 << off["C7"]) + self.psd_next[sc[u] - self.s_next]
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

    def _exchange_pair(self, u: int, w: int) -> int:
        """D.2 a-d for a pair of the remainder (S1R/S2R: the original subgroups)."""
        off = self.off
        if u not in self.s1r and u not in self.s2r:
            return 0
        if w not in self.s1r and w not in self.s2r:
            return 0
        n = len(self.members) + 1
        lo, hi = (u, w) if self.bsn[u] < self.bsn[w] else (w, u)
        value = 0
        if lo in self.s1r and hi in self.s1r:  # hi moves from S1R to S2R
            value += (1 << off["D2a"]) + ((n + self.bsn[hi]) << off["D2b"])
            if self.exchange_wide:
                value += (1 << self.s1r[hi]) << off["D2c"]
        elif lo in self.s2r and hi in self.s2r:  # lo moves from S2R to S1R
            value += (n - self.bsn[lo]) << off["D2b"]
            if self.exchange_wide:
                value += (1 << (len(self.s2r) - 1 - self.s2r[lo])) << off["D2d"]
        else:
            value += (1 << off["D2a"]) + (n << off["D2b"])
        return value

    # -- phases ------------------------------------------------------------------------

    def _update(self, vertices: Sequence[int]) -> None:
        rp = self.rp
        done: set[int] = set()
        for u in vertices:
            if self.g.fixed[u]:
                continue
            for w in self.g.adj[u]:
                if self.g.fixed[w] or w in done:
                    continue
                self.g.matcher.set(u, w, self.weight(u, w))
            done.add(u)

    def _relayout(self) -> None:
        self.layout = self._layout()
        self.g.ensure(self.layout.total)
        self._update(self.members + self.following)

    def _choose_partner(self, s1: int, s2: Sequence[int]) -> None:
        """D.1 for one S1 player: the lowest BSN in ``s2`` that keeps a best
        pairing; the current matching answers at once when its partner is the
        lowest BSN left that the absolute criteria allow."""
        rp = self.rp
        mate = self.g.matcher.mate
        open_ = [w for w in s2 if not self.g.fixed[w] and w in self.g.adj[s1]]
        if not open_ or mate[s1] != open_[0]:
            self.target = s1
            self._update([s1])
            mate = self.g.matcher.compute()
            self.target = None
        partner = mate[s1]
        if partner == s1 or partner not in self.bsn:  # pragma: no cover - defensive
            raise PairingError("internal error: an S1 player lost its partner")
        self.g.fix(s1, partner)

    def pair(self) -> list[int]:
        rp = self.rp
        self._relayout()
        mate = self.g.matcher.compute()
        inside = {u for u in self.members if mate[u] in self.bsn}
        pairs_here = len(inside) // 2
        # D.3: the MDPs paired in this bracket form S1; the others are the Limbo.
        self.s1_mdps = {m for m in self.mdps if m in inside}
        self.limbo = {m for m in self.mdps if m not in inside}
        if self.mdps:
            self._update(self.mdps)
            self.g.matcher.compute()
        for m in self.mdps:
            if m in self.s1_mdps:
                self._choose_partner(m, self.residents)
        # The remainder: residents not paired with MDPs, split by B.2 into
        # S1R (the first MaxPairs) and S2R.
        remainder = [r for r in self.residents if not self.g.fixed[r]]
        p_rem = pairs_here - len(self.s1_mdps)
        if p_rem > 0:
            self.s1r = {u: k for k, u in enumerate(remainder[:p_rem])}
            self.s2r = {u: k for k, u in enumerate(remainder[p_rem:])}
            self.exchange = True
            self._update(remainder)
            mate = self.g.matcher.compute()
            if any(mate[u] in self.s2r for u in self.s2r):
                # An exchange is needed (D.2 a/b could tie): add D.2 c/d.
                self.exchange_wide = True
                self._relayout()
                mate = self.g.matcher.compute()
            x_set: set[int] = set()
            for u in remainder:
                w = mate[u]
                if w in self.s1r or w in self.s2r:
                    if self.bsn[u] > self.bsn[w]:
                        continue
                    lo, hi = u, w
                    if lo in self.s1r and hi in self.s2r:
                        x_set.add(lo)
                    elif lo in self.s1r:
                        x_set.add(lo)  # hi moves to S2
                    else:
                        x_set.add(lo)  # both from S2R: lo moves to S1
            self.x_set = x_set
            self._update(remainder)
            self.g.matcher.compute()
            s2 = [u for u in remainder if u not in x_set]
            for x in sorted(x_set, key=self.bsn.__getitem__):
                self._choose_partner(x, s2)
        return [u for u in self.members if not self.g.fixed[u]]
