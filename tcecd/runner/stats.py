"""Match statistics as fastchess prints them, with fishtest's mathematics.

Pure functions over counts; no I/O. Two ways of counting a match between A and B:

- trinomial (W/D/L): each game scores 0, 1/2 or 1 for A;
- pentanomial: games are taken in pairs that share an opening with colours
  reversed; a pair scores 0, 1/4, 1/2, 3/4 or 1 (``LL``, ``LD``, ``DD``/``WL``,
  ``WD``, ``WW``, scaled to one game). Pairs cancel most of an opening's bias,
  so the pentanomial variance is the honest one for paired play.

The estimates (:func:`estimate_wdl`, :func:`estimate_pentanomial`) follow
fastchess (``elo_wdl.cpp``, ``elo_pentanomial.cpp``): the mean score ``s`` and
its variance per game or per pair; the 95% interval ``s ± z·sqrt(var/N)``
(``z`` the 97.5% normal quantile) mapped to logistic Elo
``-400·log10(1/s - 1)`` and to normalised Elo ``(s - 1/2)/σ · 800/ln 10``
(σ the per-game standard deviation, ``sqrt(2·var)`` for a pair); the error is
half the mapped interval's width; LOS is ``Φ((s - 1/2)/sqrt(var/N))``.

The SPRT (:class:`Sprt`) is fishtest's generalized SPRT: the log-likelihood
ratio of the two hypotheses, each evaluated at the maximum-likelihood
distribution over the observed outcome values subject to the hypothesis'
constraint (M. Van den Bergh, "Comments on Normalized Elo", sections 1 and
4.1: https://www.cantate.be/Fishtest/normalized_elo_practical.pdf):

- ``logistic``: the expected score equals ``1/(1 + 10^(-elo/400))``;
- ``normalized``: the t-value ``(mu - 1/2)/sigma`` equals ``nelo/(800/ln 10)``
  (times ``sqrt 2`` for pairs, whose sigma is per pair).

A zero count is replaced by 1e-3 first (fishtest's regularisation), so the
LLR exists from the first game on. Bounds: ``ln(beta/(1-alpha))`` and
``ln((1-beta)/alpha)`` (Wald).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

#: 97.5% quantile of the standard normal distribution (two-sided 95% interval).
Z95 = NormalDist().inv_cdf(0.975)
#: Normalised Elo per unit of t-value: 800 / ln 10.
NELO_PER_T = 800.0 / math.log(10.0)
#: What a zero count becomes before the LLR is computed (as fishtest does).
REGULARIZE = 1e-3

SprtModel = Literal["normalized", "logistic"]


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score: ``-400 log10(1/s - 1)``
    (``±inf`` at 1 and 0)."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score for a logistic Elo difference: ``1/(1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclass(frozen=True)
class Pentanomial:
    """Game pairs (same opening, colours reversed) by A's points in the pair."""

    ll: int = 0
    ld: int = 0
    wl: int = 0  # one win, one loss: 1 point, like DD, but a "decisive" pair
    dd: int = 0
    wd: int = 0
    ww: int = 0

    @property
    def pairs(self) -> int:
        return self.ll + self.ld + self.wl + self.dd + self.wd + self.ww

    def counts(self) -> tuple[int, int, int, int, int]:
        """Pairs scoring 0, 1/4, 1/2, 3/4 and 1 (``Ptnml(0-2)``)."""
        return (self.ll, self.ld, self.wl + self.dd, self.wd, self.ww)

    def add(self, first: int, second: int) -> Pentanomial:
        """This tally plus one pair whose games gave A ``first`` and ``second``
        half-points (0, 1 or 2 each)."""
        total = first + second
        fields = {0: "ll", 1: "ld", 3: "wd", 4: "ww"}
        name = fields.get(total) or ("dd" if first == 1 else "wl")
        return _replace_count(self, name)


def _replace_count(tally: Pentanomial, name: str) -> Pentanomial:
    values = {k: getattr(tally, k) for k in ("ll", "ld", "wl", "dd", "wd", "ww")}
    values[name] += 1
    return Pentanomial(**values)


@dataclass(frozen=True)
class Estimate:
    """Elo and normalised Elo with their 95% errors, LOS and the draw ratio."""

    score: float
    elo: float
    elo_error: float
    nelo: float
    nelo_error: float
    los: float  # probability of superiority, 0..1
    draw_ratio: float  # 0..1: drawn games (trinomial) or DD+WL pairs (pentanomial)


def _estimate(
    values: Sequence[float], counts: Sequence[int], sigma_factor: float, draws: int
) -> Estimate | None:
    """The estimate from outcome ``values`` and their ``counts`` (games or pairs);
    ``sigma_factor`` turns the per-unit standard deviation into a per-game one
    (1 for games, ``sqrt 2`` for pairs, whose score is the mean of two games)."""
    n = sum(counts)
    if n == 0:
        return None
    score = sum(v * c for v, c in zip(values, counts, strict=True)) / n
    variance = sum(c * (v - score) ** 2 for v, c in zip(values, counts, strict=True)) / n
    spread = Z95 * math.sqrt(variance / n)
    lo, hi = score - spread, score + spread
    sigma = sigma_factor * math.sqrt(variance)

    def nelo(s: float) -> float:
        if sigma == 0.0:
            return 0.0 if s == 0.5 else math.copysign(math.inf, s - 0.5)
        return (s - 0.5) / sigma * NELO_PER_T

    if variance == 0.0:
        los = 0.5 if score == 0.5 else (1.0 if score > 0.5 else 0.0)
    else:
        los = NormalDist().cdf((score - 0.5) / math.sqrt(variance / n))
    return Estimate(
        score=score,
        elo=elo_from_score(score),
        elo_error=(elo_from_score(hi) - elo_from_score(lo)) / 2.0,
        nelo=nelo(score),
        nelo_error=(nelo(hi) - nelo(lo)) / 2.0,
        los=los,
        draw_ratio=draws / n,
    )


def estimate_wdl(wins: int, draws: int, losses: int) -> Estimate | None:
    """Estimate from single games (None without a game)."""
    return _estimate((1.0, 0.5, 0.0), (wins, draws, losses), 1.0, draws)


def estimate_pentanomial(penta: Pentanomial) -> Estimate | None:
    """Estimate from game pairs (None without a pair)."""
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    return _estimate(values, penta.counts(), math.sqrt(2.0), penta.wl + penta.dd)


# --- the generalized SPRT -----------------------------------------------------


def _solve_secular(a: Sequence[float], p: Sequence[float]) -> float:
    """The root x of ``sum p_i a_i / (1 + x a_i) = 0`` with every ``1 + x a_i > 0``.

    The ``a_i`` take both signs, so x lies in ``(-1/max a, -1/min a)``; the
    function is strictly decreasing there (its derivative is
    ``-sum p_i a_i^2/(1 + x a_i)^2``) and runs from +inf to -inf, so bisection
    finds the root to the last bit. (fishtest uses scipy's brentq for the same
    root; a bisection over a monotone function needs no 40 MB dependency.)
    """
    lo, hi = -1.0 / max(a), -1.0 / min(a)

    def f(x: float) -> float:
        return sum(pi * ai / (1.0 + x * ai) for ai, pi in zip(a, p, strict=True))

    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def _mean_var(values: Sequence[float], p: Sequence[float]) -> tuple[float, float]:
    mu = sum(v * q for v, q in zip(values, p, strict=True))
    return mu, sum(q * (v - mu) ** 2 for v, q in zip(values, p, strict=True))


def mle_expected(values: Sequence[float], phat: Sequence[float], s: float) -> list[float]:
    """The distribution over ``values`` closest (max. likelihood) to the empirical
    ``phat`` whose mean is ``s`` (Van den Bergh, proposition 1.1)."""
    shifted = [v - s for v in values]
    x = _solve_secular(shifted, phat)
    return [q / (1.0 + x * d) for q, d in zip(phat, shifted, strict=True)]


def mle_t_value(
    values: Sequence[float], phat: Sequence[float], ref: float, t: float
) -> list[float]:
    """The max.-likelihood distribution over ``values`` with t-value
    ``(mu - ref)/sigma = t`` (Van den Bergh, section 4.1: a fixed-point
    iteration from the uniform distribution)."""
    p = [1.0 / len(values)] * len(values)
    for _ in range(100):
        mu, var = _mean_var(values, p)
        sigma = math.sqrt(var)
        phi = [v - ref - t * sigma * (1.0 + ((mu - v) / sigma) ** 2) / 2.0 for v in values]
        x = _solve_secular(phi, phat)
        new = [q / (1.0 + x * f) for q, f in zip(phat, phi, strict=True)]
        done = max(abs(a - b) for a, b in zip(new, p, strict=True)) < 1e-12
        p = new
        if done:
            break
    return p


def llr(counts: Sequence[float], elo0: float, elo1: float, model: SprtModel) -> float:
    """The generalized log-likelihood ratio of ``elo1`` against ``elo0``.

    ``counts``: 3 numbers (losses, draws, wins) or 5 (pairs scoring 0, 1/4,
    1/2, 3/4, 1). Elo is logistic or normalised (``model``)."""
    if len(counts) not in (3, 5):
        raise ValueError(f"expected 3 or 5 counts, got {len(counts)}")
    regular = [c if c > 0 else REGULARIZE for c in counts]
    n = sum(regular)
    phat = [c / n for c in regular]
    k = len(counts)
    values = [i / (k - 1) for i in range(k)]
    mle: Callable[[float], list[float]]
    if model == "logistic":
        s0, s1 = score_from_elo(elo0), score_from_elo(elo1)

        def mle(target: float) -> list[float]:
            return mle_expected(values, phat, target)

        targets = (s0, s1)
    else:
        # A pair's sigma is that of a mean of two games: sqrt 2 smaller, so its
        # t-value is sqrt 2 larger for the same per-game normalised Elo.
        scale = math.sqrt(2.0) if k == 5 else 1.0
        targets = (elo0 / NELO_PER_T * scale, elo1 / NELO_PER_T * scale)

        def mle(target: float) -> list[float]:
            return mle_t_value(values, phat, 0.5, target)

    p0, p1 = mle(targets[0]), mle(targets[1])
    return n * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(phat, p0, p1, strict=True))


@dataclass(frozen=True)
class Sprt:
    """An SPRT of ``elo0`` (H0) against ``elo1`` (H1) with error rates alpha, beta."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: SprtModel = "normalized"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value:g}")
        if self.alpha + self.beta >= 1.0:
            raise ValueError("alpha + beta must be below 1")
        if self.model not in ("normalized", "logistic"):
            raise ValueError(f"model must be normalized or logistic, got {self.model!r}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``ln(beta/(1-alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``ln((1-beta)/alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[float]) -> float:
        return llr(counts, self.elo0, self.elo1, self.model)

    def decision(self, value: float) -> Literal["H0", "H1"] | None:
        """Which hypothesis an LLR accepts (None: keep playing)."""
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None

    def line(self, value: float) -> str:
        """fastchess's ``LLR: 2.25 (-2.94, 2.94) [0.00, 5.00]``."""
        return (
            f"LLR: {value:.2f} ({self.lower:.2f}, {self.upper:.2f}) "
            f"[{self.elo0:.2f}, {self.elo1:.2f}]"
        )


def parse_sprt(tokens: Sequence[str]) -> Sprt:
    """``elo0=0 elo1=5 alpha=0.05 beta=0.05 [model=normalized|logistic]``
    (fastchess's ``-sprt`` spelling; alpha and beta default to 0.05, the model
    to normalized). Raises ValueError with a one-line reason."""
    values: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or key not in ("elo0", "elo1", "alpha", "beta", "model"):
            raise ValueError(
                f"expected elo0=.. elo1=.. alpha=.. beta=.. [model=..], got {token!r}"
            )
        values[key] = value
    for key in ("elo0", "elo1"):
        if key not in values:
            raise ValueError(f"{key}= is required")
    try:
        numbers = {
            k: float(values.get(k, default))
            for k, default in (("elo0", ""), ("elo1", ""), ("alpha", "0.05"), ("beta", "0.05"))
        }
    except ValueError as exc:
        raise ValueError(f"not a number: {str(exc).split(': ', 1)[-1]}") from None
    model = values.get("model", "normalized")
    if model not in ("normalized", "logistic"):
        raise ValueError(f"model must be normalized or logistic, got {model!r}")
    return Sprt(
        numbers["elo0"],
        numbers["elo1"],
        numbers["alpha"],
        numbers["beta"],
        "normalized" if model == "normalized" else "logistic",
    )
