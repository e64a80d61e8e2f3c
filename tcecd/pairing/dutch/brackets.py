"""Pairing a round bracket by bracket (C.04.3 A.3, A.9, B, C, D).

Vertices are the players to pair in A.2 order (score, then pairing number),
plus one bye vertex when their number is odd (A.5: one player gets the
pairing-allocated bye; only C.2-eligible players have an edge to it). The
brackets are paired in descending score order, each on its own matcher
(:mod:`.graph`) with the weights of :mod:`.weights`: the bracket and, for
C.7, the following bracket, whose players may stay unmatched (float on);
or the bracket alone when at most one of its players floats down, C.7 then
summed up per player (:mod:`.following`); or every player not yet paired,
all of whom must be matched (C.4: the bracket before the last one, whose
downfloater gets the bye; the PPB; the last bracket). Whether the players
below can still all be paired is a cardinality question answered on bitsets
(:class:`.graph.Completion`). A maximum-weight matching then gives a
bracket pairing that is best by C.5-C.19, in that order. Among equally good
ones the D rules pick the first candidate the sequential procedure of
B.6/B.7 would generate:

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
A bracket whose downfloaters would leave the rest unpairable (the PPB) is
paired again so that the round completes (C.4), and C.7 (the following
bracket) is applied only while there is a following bracket (A.9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tcecd.domain import Color
from tcecd.errors import PairingError
from tcecd.pairing.dutch.colours import Preference, preference
from tcecd.pairing.dutch.criteria import PairFacts, compatible, pair_facts
from tcecd.pairing.dutch.following import Following, following_bracket
from tcecd.pairing.dutch.graph import Completion, Graph
from tcecd.pairing.dutch.state import PlayerState
from tcecd.pairing.dutch.weights import BracketWeights


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
        self,
        states: Sequence[PlayerState],
        first_colour: Color,
        number: dict[str, int],
        *,
        one_point: int = 2,
    ) -> None:
        self.order = sorted(states, key=lambda s: (-s.score, s.seed))  # A.2
        self.first_colour = first_colour
        self.number = number  # E.5's pairing numbers
        #: One point in score units (A.8's "one point less"; 2 half-points
        #: in the standard point system).
        self.one_point = one_point
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


class _Bracket(BracketWeights):
    """Pairs one bracket, phase by phase (D.3, D.1, D.2), on its weights."""

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
