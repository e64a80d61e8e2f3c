"""The matchers a round is paired on (see :mod:`.brackets`): a bracket's
graph with its vertices' roles, and the completion check (C.4, A.9)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tcecd.pairing.dutch.matcher import Matcher

if TYPE_CHECKING:
    from tcecd.pairing.dutch.brackets import RoundPairer

#: Vertex roles in the bracket being paired (see :mod:`.criteria`).
FIXED, MDP, RES, NEXT, LOW = range(5)


class Graph:
    """A matcher over some of the round's vertices, with their roles.

    ``players`` are round vertex numbers (A.2 order; the bye vertex last);
    local vertex ``k`` is ``players[k]``. With ``dummies`` every player also
    gets a private dummy vertex standing for "floats on below" (the isolated
    graph of a bracket and its following bracket, for C.7).
    """

    def __init__(self, rp: RoundPairer, players: Sequence[int], *, dummies: bool) -> None:
        self.rp = rp
        self.players = list(players)
        self.real = len(self.players)
        local = {p: k for k, p in enumerate(self.players)}
        self.local = local
        size = self.real * (2 if dummies else 1)
        self.adj: list[set[int]] = [set() for _ in range(size)]
        for k, p in enumerate(self.players):
            self.adj[k] = {local[q] for q in rp.adj[p] if q in local}
            if dummies:
                self.adj[k].add(self.real + k)
                self.adj[self.real + k].add(k)
        self.score = [rp.score[p] for p in self.players] + [-1] * (size - self.real)
        self.role = [LOW] * size
        self.fixed = [False] * size
        self.pairs: list[tuple[int, int]] = []
        self.top = -1
        self.skip: set[int] = set()
        self.matcher = Matcher(0, 1)

    def _new_matcher(self, lower_bits: int) -> Matcher:
        """A matcher whose weights have ``lower_bits`` below the completion
        field. Edges at ``skip`` vertices are left for the bracket to set."""
        matcher = Matcher(len(self.adj), lower_bits + self.rp.count_bits + 1)
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
        """Completion (C.4): every player matched. An edge counts the players
        it covers (a dummy is nobody), so the top field is largest exactly
        when every player has a partner or a dummy."""
        covered = (u < self.real) + (w < self.real)
        return covered << self.top

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
    """Whether the players not yet paired can all be paired (C.4, A.9): a
    maximum-cardinality matching kept up to date as pairs are fixed."""

    def __init__(self, adj: list[set[int]]) -> None:
        self.adj = adj
        self.fixed = [False] * len(adj)
        self.matcher = Matcher(len(adj), 2)
        for u in range(len(adj)):
            for w in adj[u]:
                if u < w:
                    self.matcher.set(u, w, 1)

    def fix(self, u: int, w: int, *, undo: bool = False) -> None:
        for x in (u, w):
            self.fixed[x] = not undo
        for x in (u, w):
            for y in self.adj[x]:
                if y not in (u, w) and not self.fixed[y]:
                    self.matcher.set(x, y, 1 if undo else 0)

    def perfect(self) -> bool:
        mate = self.matcher.compute()
        return all(mate[u] != u for u in range(len(self.adj)) if not self.fixed[u])
