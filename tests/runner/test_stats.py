"""The match statistics (tcecd.runner.stats): hand-worked cases and published examples.

Published examples: fastchess's own unit tests, which pin its estimates and its
SPRT to fishtest's mathematics (github.com/Disservin/fastchess,
``app/tests/elo_test.cpp`` and ``app/tests/sprt_test.cpp``). fastchess writes
``Stats(wins, losses, draws)`` and ``Stats(LL, LD, WL, DD, WD, WW)``; the
values below are rearranged into this module's order.
"""

from __future__ import annotations

import math

import pytest

from tcecd.runner.stats import (
    Pentanomial,
    Sprt,
    elo_from_score,
    estimate_pentanomial,
    estimate_wdl,
    llr,
    parse_sprt,
)

Z = 1.959963984540054  # the 97.5% normal quantile, from any table


def test_wdl_estimate_by_hand() -> None:
    # 3 wins, 1 draw, 0 losses in 4 games: s = (3 + 0.5)/4 = 0.875.
    # var = (3·0.125² + 1·0.375²)/4 = (0.046875 + 0.140625)/4 = 0.046875.
    # Elo = -400·log10(1/0.875 - 1) = -400·log10(1/7) = 338.04.
    # interval: 0.875 ± Z·sqrt(0.046875/4) = 0.875 ± Z·0.108253 = 0.662829 .. 1.087171,
    # whose top is past 1: the Elo error is infinite.
    e = estimate_wdl(wins=3, draws=1, losses=0)
    assert e is not None
    assert e.score == 0.875
    assert e.elo == pytest.approx(400 * math.log10(7), abs=1e-9)
    assert e.elo == pytest.approx(338.04, abs=0.01)
    assert e.elo_error == math.inf
    # nElo = (s - 0.5)/sigma · 800/ln 10 = 0.375/sqrt(0.046875) · 347.4356 = 601.78.
    assert e.nelo == pytest.approx(0.375 / math.sqrt(0.046875) * 800 / math.log(10))
    assert e.nelo == pytest.approx(601.78, abs=0.01)
    # nElo error: the interval mapped linearly, half-width Z·sqrt(var/n)/sigma · 347.44
    # = Z/sqrt(4) · 347.44 = 340.48.
    assert e.nelo_error == pytest.approx(Z / 2 * 800 / math.log(10))
    # LOS = Φ(0.375/0.108253) = Φ(3.4641) = 0.99973.
    assert e.los == pytest.approx(0.99973, abs=1e-5)
    assert e.draw_ratio == 0.25


def test_the_old_two_two_zero_example() -> None:
    """2 wins, 2 losses: s = 0.5, var = 0.25, interval 0.5 ± Z·0.25 = 0.010009 .. 0.989991,
    Elo error = -400·log10(1/0.989991 - 1) = 798.1 (cutechess-cli prints 786.2
    because it uses Z = 1.9572, an approximation of the normal quantile)."""
    e = estimate_wdl(wins=2, draws=0, losses=2)
    assert e is not None
    hi = 0.5 + Z * 0.25
    assert e.elo_error == pytest.approx(-400 * math.log10(1 / hi - 1))
    assert round(e.elo_error, 1) == 798.1
    assert e.elo == 0.0
    assert e.los == 0.5


def test_pentanomial_estimate_by_hand() -> None:
    # Four pairs: LD, WL, DD, WD: pair scores 0.25, 0.5, 0.5, 0.75; s = 2/4 = 0.5.
    # var per pair = (0.25² + 0 + 0 + 0.25²)/4 = 0.03125; var/N = 0.0078125.
    # interval 0.5 ± Z·0.0883883 = 0.326762 .. 0.673238.
    p = Pentanomial(ld=1, wl=1, dd=1, wd=1)
    assert p.counts() == (0, 1, 2, 1, 0)
    e = estimate_pentanomial(p)
    assert e is not None
    hi = 0.5 + Z * math.sqrt(0.03125 / 4)
    assert hi == pytest.approx(0.673238, abs=1e-6)
    assert e.elo == 0.0
    # Elo error = -400·log10(1/0.673238 - 1) = 125.57
    assert e.elo_error == pytest.approx(125.57, abs=0.01)
    # nElo: sigma per game = sqrt(2·0.03125) = 0.25; error = (hi - 0.5)/0.25 · 347.4356 = 240.76.
    assert e.nelo_error == pytest.approx((hi - 0.5) / 0.25 * 800 / math.log(10))
    assert e.nelo_error == pytest.approx(240.76, abs=0.01)
    # Draw ratio: DD + WL pairs over all pairs (fastchess's pentanomial draw ratio).
    assert e.draw_ratio == 0.5


def test_pair_classification() -> None:
    """Half-points of the two games of a pair -> the pentanomial bucket."""
    p = Pentanomial()
    p = p.add(2, 2).add(2, 1).add(1, 2).add(2, 0).add(0, 2).add(1, 1).add(1, 0).add(0, 0)
    assert p == Pentanomial(ll=1, ld=1, wl=2, dd=1, wd=2, ww=1)
    assert p.pairs == 8


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "nelo", "nelo_err", "elo", "elo_err", "los"),
    [
        # fastchess elo_test.cpp "EloWDL 1" and "EloWDL 2"
        (76, 89, 123, -20.76, 40.13, None, None, 15.53),
        (136, 96, 111, 49.77, 36.77, 40.70, 30.43, 99.60),
    ],
)
def test_wdl_matches_fastchess_examples(
    wins: int, losses: int, draws: int,
    nelo: float, nelo_err: float, elo: float | None, elo_err: float | None, los: float,
) -> None:  # fmt: skip
    e = estimate_wdl(wins=wins, draws=draws, losses=losses)
    assert e is not None
    assert e.nelo == pytest.approx(nelo, abs=0.01)
    assert e.nelo_error == pytest.approx(nelo_err, abs=0.01)
    if elo is not None:
        assert e.elo == pytest.approx(elo, abs=0.01)
        assert e.elo_error == pytest.approx(elo_err, abs=0.01)
    assert f"{e.los * 100:.2f}" == f"{los:.2f}"


@pytest.mark.parametrize(
    ("penta", "nelo", "nelo_err", "elo", "elo_err", "los"),
    [
        # fastchess elo_test.cpp "EloPentanomial 1" and "EloPentanomial 2"
        (Pentanomial(ll=34, ld=54, wl=31, dd=32, wd=64, ww=75), 57.94, 28.28, 55.58, 27.65, 100.0),
        (Pentanomial(ll=332, ld=433, wl=457, dd=41, wd=333, ww=334), -9.17, 10.96, -8.64, 10.33,
         5.05),
        # "EloPentanomial 3" (no LOS given)
        (Pentanomial(ll=7895, ld=8757, wl=5485, dd=200, wd=568, ww=9999), -19.01, 2.65, -21.04,
         2.95, None),
    ],
)  # fmt: skip
def test_pentanomial_matches_fastchess_examples(
    penta: Pentanomial, nelo: float, nelo_err: float, elo: float, elo_err: float,
    los: float | None,
) -> None:  # fmt: skip
    e = estimate_pentanomial(penta)
    assert e is not None
    # doctest's Approx(x).epsilon(0.01) is a 1% relative tolerance
    assert e.nelo == pytest.approx(nelo, rel=0.01)
    assert e.nelo_error == pytest.approx(nelo_err, rel=0.01)
    assert e.elo == pytest.approx(elo, rel=0.01)
    assert e.elo_error == pytest.approx(elo_err, rel=0.01)
    if los is not None:
        assert f"{e.los * 100:.2f}" == f"{los:.2f}"


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "model", "expected"),
    [
        # fastchess sprt_test.cpp; trinomial counts as (L, D, W), pentanomial as
        # (LL, LD, WL+DD, WD, WW).
        ((36027, 68692, 36433), 0, 2, "normalized", 0.92),
        ((10650, 20431, 10871), -1.75, 0.25, "normalized", 2.30),
        ((21184, 40708, 21404), 0.5, 2.5, "logistic", -1.57),
        ((57030, 106593, 57433), 0, 2, "logistic", -2.59),
        ((365, 16618, 36029 + 200, 16974, 390), 0, 2, "normalized", 2.25),
        ((127, 4883, 10311 + 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
        ((223, 9863, 20279 + 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
        ((871, 26175, 55003 + 980, 26678, 821), 0, 2, "logistic", -4.98),
    ],
)
def test_llr_matches_fastchess_examples(
    counts: tuple[int, ...], elo0: float, elo1: float, model: str, expected: float
) -> None:
    assert model in ("normalized", "logistic")
    value = llr(counts, elo0, elo1, "normalized" if model == "normalized" else "logistic")
    assert value == pytest.approx(expected, rel=0.01)


def test_llr_by_hand_for_a_symmetric_sample() -> None:
    """Equal wins and losses and elo0 = -elo1: the two constrained fits are mirror
    images (scores s and 1-s), so the LLR is exactly 0."""
    assert llr((10, 5, 10), -20, 20, "logistic") == pytest.approx(0.0, abs=1e-9)
    assert llr((3, 4, 5, 4, 3), -5, 5, "normalized") == pytest.approx(0.0, abs=1e-9)


def test_sprt_bounds() -> None:
    # Wald: ln(beta/(1-alpha)) = ln(0.05/0.95) = -2.944, ln(0.95/0.05) = +2.944.
    sprt = Sprt(0, 5, 0.05, 0.05)
    assert sprt.lower == pytest.approx(-math.log(19))
    assert sprt.upper == pytest.approx(math.log(19))
    assert sprt.line(1.234) == "LLR: 1.23 (-2.94, 2.94) [0.00, 5.00]"
    assert sprt.decision(2.95) == "H1"
    assert sprt.decision(-2.95) == "H0"
    assert sprt.decision(0.0) is None


def _brownian_llr(counts: tuple[int, ...], s0: float, s1: float) -> float:
    """fishtest's approximation of the same LLR (LLR_alt2, "GSPRT approximation",
    https://www.cantate.be/Fishtest/GSPRT_approximation.pdf):
    N·(s1 - s0)·(2ŝ - s0 - s1)/(2·var̂), from the sample mean and variance only."""
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    n = sum(counts)
    mean = sum(v * c for v, c in zip(values, counts, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for v, c in zip(values, counts, strict=True)) / n
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def test_sprt_stops_at_the_right_game() -> None:
    """A fixed sequence of game pairs, repeating WW, WD, DD, LD (a 62.5% score),
    tested logistic [0, 100] at alpha = beta = 0.05: bounds ±ln(19) = ±2.944.

    The expected stop is checked independently with fishtest's Brownian
    approximation of the LLR: both first pass 2.944 at pair 22 (game 44), with
    every earlier value below 2.75 in both."""
    sprt = Sprt(0, 100, 0.05, 0.05, "logistic")
    s0, s1 = 0.5, 1 / (1 + 10 ** (-100 / 400))  # 0.5 and 0.6401
    block = [(2, 2), (2, 1), (1, 1), (1, 0)]
    penta = Pentanomial()
    values: list[float] = []
    stop = None
    for index in range(1, 101):
        penta = penta.add(*block[(index - 1) % 4])
        values.append(sprt.llr(penta.counts()))
        if index >= 8:  # the approximation needs a spread-out sample
            assert values[-1] == pytest.approx(_brownian_llr(penta.counts(), s0, s1), abs=0.2)
        if sprt.decision(values[-1]) is not None:
            stop = index
            break
    assert stop == 22
    assert sprt.decision(values[-1]) == "H1"
    assert max(values[:-1]) < 2.75
    assert _brownian_llr(penta.counts(), s0, s1) >= sprt.upper
    # One step earlier, the approximation was below the bound as well.
    assert _brownian_llr((0, 5, 5, 5, 6), s0, s1) < sprt.upper


def test_sprt_accepts_h0_on_losses() -> None:
    """Mostly lost pairs drive the LLR down to the lower bound."""
    sprt = Sprt(0, 10, 0.05, 0.05)
    penta = Pentanomial()
    for index in range(1, 200):
        penta = penta.add(*[(0, 1), (1, 1), (0, 0), (1, 2)][index % 4])
        decision = sprt.decision(sprt.llr(penta.counts()))
        if decision is not None:
            break
    assert decision == "H0"
    # With nothing but draws, the normalised LLR of a positive elo1 is negative.
    assert Sprt(0, 10).llr((0, 0, 50, 0, 0)) < 0


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        (["elo0=0"], "elo1= is required"),
        (["elo0=5", "elo1=0"], "elo0 (5) must be below elo1 (0)"),
        (["elo0=0", "elo1=5", "alpha=2"], "alpha must be between 0 and 1, got 2"),
        (["elo0=0", "elo1=5", "model=bayesian"], "model must be normalized or logistic"),
        (["elo0=0", "elo1=x"], "not a number"),
        (["elo=0"], "expected elo0=.. elo1=.."),
    ],
)
def test_parse_sprt_errors(tokens: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_sprt(tokens)


def test_parse_sprt_defaults() -> None:
    assert parse_sprt(["elo0=0", "elo1=5"]) == Sprt(0, 5, 0.05, 0.05, "normalized")
    assert parse_sprt(["elo0=-1", "elo1=3", "alpha=0.1", "beta=0.2", "model=logistic"]) == (
        Sprt(-1, 3, 0.1, 0.2, "logistic")
    )


def test_elo_of_extreme_scores() -> None:
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    assert estimate_wdl(0, 0, 0) is None
    assert estimate_pentanomial(Pentanomial()) is None
