"""The matchers a round is paired on (see :mod:`.brackets`): a bracket's
graph with its vertices' roles, and the completion check (C.4, A.9)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tcecd.pairing.dutch.matcher import Matcher
from tcecd.pairing.matching import PairingGraph, ViabilityMatcher, mask_of

if TYPE_CHECKING:
    from tcecd.pairing.dutch.brackets import RoundPairer

#: Vertex roles in the bracket being paired (see :mod:`.criteria`).
FIXED, MDP, RES, NEXT, LOW = range(5)


class Graph:
    """A matcher over some of the round's vertices, with their roles.

    ``players`` are round vertex numbers (A.2 order; the bye vertex last);
    local vertex ``k`` is ``players[k]``. With ``floats`` (the isolated
    graph of a bracket and its following bracket, for C.7) a player may also
    stay unmatched, which stands for "floats on below"; the bracket gives
    that outcome its value through the edge weights (see
    ``_Bracket.weight``). Without, the matching must cover everybody (C.4).
    """

    def __init__(self, rp: RoundPairer, players: Sequence[int], *, floats: bool) -> None:
        self.rp = rp
        self.players = list(players)
        self.real = size = len(self.players)
        #: bits of a field counting players or pairs over a whole matching
        self.count_bits = (2 * size + 2).bit_length() + 1
        self.floats = floats
        local = {p: k for k, p in enumerate(self.players)}
        self.local = local
        members = local.keys()
        self.adj: list[set[int]] = [{local[q] for q in rp.adj[p] & members} for p in self.players]
        self.score = [rp.score[p] for p in self.players]
        self.role = [LOW] * size
        self.fixed = [False] * size
        self.pairs: list[tuple[int, int]] = []
        self.top = -1
        self.skip: set[int] = set()
        self.matcher = Matcher(0, 1)

    def _new_matcher(self, lower_bits: int) -> Matcher:
        """A matcher whose weights have ``lower_bits`` below the completion
        field. Edges at ``skip`` vertices are left for the bracket to set."""
        matcher = Matcher(len(self.adj), lower_bits + self.count_bits + 1)
        self.top = lower_bits
        self.matcher = matcher
        skip = self.skip
        for u in range(len(self.adj)):
            if u in skip or self.fixed[u]:
                continue
            for w in self.adj[u]:
                if u < w and w not in skip and not self.fixed[w]:
                    matcher.set(u, w, self.base(u, w))
        for u, w in self.pairs:
            matcher.set(u, w, self.base(u, w))
        return matcher

    def base(self, u: int, w: int) -> int:
        """Completion (C.4): every player matched. An edge counts the two
        players it covers, so the top field is largest exactly when every
        player has a partner (with ``floats``, a player's float value
        counts one: see ``_Bracket.weight``)."""
        return 2 << self.top

    def ensure(self, bits: int, skip: set[int]) -> bool:
        """Make the weights at least ``bits`` wide below the completion field
        (a new matcher, needed first and when D.2 c/d widen a bracket's
        weights). True when the matcher was replaced: every edge at a
        ``skip`` vertex must then be set by the caller."""
        if bits <= self.top:
            return False
        self.skip = skip
        self.matcher = self._new_matcher(bits + (0 if self.top < 0 else 64))
        return True

    def fix(self, u: int, w: int) -> None:
        """Make u-w a pair of the round: no other edge at u or w."""
        for x in (u, w):
            for y in self.adj[x]:
                if y not in (u, w) and not self.fixed[y]:
                    self.matcher.set(x, y, 0)
            self.fixed[x] = True
            self.role[x] = FIXED
        self.pairs.append((u, w) if u < w else (w, u))


class Completion:
    """Whether the players not yet paired can all be paired (C.4, A.9).

    A maximum-cardinality question, answered on the round's compatibility
    graph as adjacency bitsets by the greedy start and Edmonds searches of
    :class:`tcecd.pairing.matching.ViabilityMatcher` (a few milliseconds for
    1000 players, where the weighted matcher took seconds)."""

    def __init__(self, adj: list[set[int]]) -> None:
        n = len(adj)
        #: the round's compatibility graph as bitsets (C.1-C.3, C.2 at the bye vertex)
        self.masks = [mask_of(a) for a in adj]
        self.graph = PairingGraph.from_masks([~m for m in self.masks], [0] * n, 0)
        self.fixed = [False] * n

    def fix(self, u: int, w: int, *, undo: bool = False) -> None:
        self.fixed[u] = self.fixed[w] = not undo

    def perfect(self) -> bool:
        order = [u for u, fixed in enumerate(self.fixed) if not fixed]
        return not ViabilityMatcher(self.graph, order).maximize()
