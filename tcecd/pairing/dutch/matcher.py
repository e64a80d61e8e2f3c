"""Maximum-weight matching over very wide integer weights.

The criteria C.4-C.19 and the D rules are encoded lexicographically in one
integer per edge (:mod:`.criteria`), hundreds of bits wide. The matcher is
the compiled, incremental weighted-matching routine shipped by py4swiss
(``py4swiss.matching_computer``, arbitrary-width ``DynamicUint`` weights; only
the vertices whose edges changed are re-examined on the next computation),
which keeps a 1000-player round within seconds. Python ints are converted to
``DynamicUint`` in 64-bit parts; equal weights share one converted object.
"""

from __future__ import annotations

from py4swiss.dynamicuint import DynamicUint
from py4swiss.matching_computer import ComputerDutchOptimality

_PART = 64  # DynamicUint's parts are 64-bit (std::uintmax_t)
_MASK = (1 << _PART) - 1


class Matcher:
    """An undirected graph on vertices 0..n-1 with integer edge weights below
    ``2**bits``; a weight of 0 means no edge."""

    def __init__(self, n: int, bits: int) -> None:
        self.n = n
        self.bits = bits
        zero = DynamicUint(1)
        # Two extra bits: the matching routine's own margin (py4swiss docs).
        zero.shift_grow(bits + 2)
        zero >>= 1
        zero -= zero
        self._zero = zero
        self._parts = (bits + 2) // _PART + 1
        top = self._convert((1 << bits) - 1)
        self._computer = ComputerDutchOptimality(n, top)
        for _ in range(n):
            self._computer.add_vertex()
        self._cache: dict[int, DynamicUint] = {}
        self.weights: dict[int, int] = {}  # u * n + v (u < v) -> weight
        self._mate: list[int] = list(range(n))
        self._limit = 1 << bits

    def _convert(self, value: int) -> DynamicUint:
        out = DynamicUint(self._zero)
        shift = (self._parts - 1) * _PART
        out |= value >> shift
        while shift:
            shift -= _PART
            out <<= _PART
            out |= (value >> shift) & _MASK
        return out

    def set(self, u: int, v: int, weight: int) -> None:
        """Set the weight of edge u-v (0 removes it). ``u`` is the vertex whose
        edges are changing: only it is marked for the next computation."""
        key = u * self.n + v if u < v else v * self.n + u
        weights = self.weights
        if weights.get(key, 0) == weight:
            return
        if weight >= self._limit:
            raise ValueError("edge weight wider than the matcher")
        if weight:
            weights[key] = weight
        else:
            del weights[key]
        dyn = self._cache.get(weight)
        if dyn is None:
            if len(self._cache) > 50_000:
                self._cache.clear()
            dyn = self._cache[weight] = self._convert(weight)
        self._computer.set_edge_weight(u, v, dyn)

    def add(self, u: int, v: int, delta: int) -> None:
        """Add ``delta`` (> 0) to the weight of edge u-v if it is an edge
        (``u`` marked as in :meth:`set`). The converted weight is the sum of
        the converted old weight and delta when both are at hand: one
        addition instead of a conversion part by part."""
        key = u * self.n + v if u < v else v * self.n + u
        weights = self.weights
        old = weights.get(key, 0)
        if not old:
            return
        weight = old + delta
        if weight >= self._limit:
            raise ValueError("edge weight wider than the matcher")
        weights[key] = weight
        cache = self._cache
        dyn = cache.get(weight)
        if dyn is None:
            if len(cache) > 50_000:
                cache.clear()
            base = cache.get(old)
            step = cache.get(delta)
            if step is None:
                step = cache[delta] = self._convert(delta)
            dyn = cache[weight] = base + step if base is not None else self._convert(weight)
        self._computer.set_edge_weight(u, v, dyn)

    def get(self, u: int, v: int) -> int:
        return self.weights.get(u * self.n + v if u < v else v * self.n + u, 0)

    def compute(self) -> list[int]:
        """A maximum-weight matching: ``mate[u]`` (``u`` itself when unmatched)."""
        self._computer.compute_matching()
        self._mate = list(self._computer.get_matching())
        return self._mate

    @property
    def mate(self) -> list[int]:
        return self._mate

    def total(self) -> int:
        """The weight of the current matching."""
        return sum(self.get(u, v) for u, v in enumerate(self._mate) if u < v)
