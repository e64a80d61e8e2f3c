"""The result model of the forecast: Elo with a draw model, fitted to the games so far.

The model of one game is the one :func:`tcecd.pairing.simulation.draw_result`
plays (so ``tcecd simulate`` and the forecast speak of the same world): with
``E = 1 / (1 + 10 ** ((Rb - Rw - h) / 400))`` white's expected score (``h`` the
white advantage, :data:`~tcecd.pairing.simulation.WHITE_ADVANTAGE`), a draw has
probability ``d * 2 * min(E, 1 - E)``, a white win ``E - d * min(E, 1 - E)``,
a black win the rest.

Fitting (docs/forecast.md states it with the formulas):

* **Ratings**: the maximum a posteriori estimate of every engine's rating
  under the fractional-score logistic likelihood ``prod_g E_g^s_g (1 - E_g)^(1 - s_g)``
  (``s_g`` white's score: 1, 1/2 or 0; it is exactly the draw model's
  expected score, so the fit does not depend on ``d``) and an independent
  Gaussian prior ``N(prior_i, prior_sd^2)`` per engine, ``prior_i`` the
  engine's configured rating (the mean of the rated engines for an unrated
  one). The posterior is log-concave: Newton's method converges in a few steps.
  With no games the fit is the prior; with many it follows the results.
* **Draw rate** ``d``: the maximum a posteriori estimate of the draw model's
  likelihood of the games' three outcomes, with the fitted ratings, under a
  ``Beta(1 + draw_prior_games * draw_prior_rate, 1 + draw_prior_games * (1 - draw_prior_rate))``
  prior (``draw_prior_games`` pseudo-games at ``draw_prior_rate``); the
  likelihood is concave in ``d``, solved by bisection on its derivative.

Forfeits never played (``PlayedGame.played`` False) say nothing of strength
and are left out. Pure: numpy arithmetic, no randomness.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tcecd.domain import PlayerId, Result
from tcecd.pairing.base import PlayedGame, Player
from tcecd.pairing.simulation import RATING_MEAN, WHITE_ADVANTAGE

#: Elo scale: ratings differ by 400 for 10:1 odds.
_C = math.log(10.0) / 400.0


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """The prior of the fit (docs/forecast.md)."""

    #: standard deviation, in Elo, of an engine's true rating around its configured one
    prior_sd: float = 100.0
    #: the draw rate between equals assumed before any game ...
    draw_prior_rate: float = 0.5
    #: ... worth this many games
    draw_prior_games: float = 10.0
    white_advantage: float = WHITE_ADVANTAGE


@dataclass(frozen=True, slots=True)
class EloModel:
    """Fitted ratings (by player id), the prior they were shrunk to, the draw
    rate between equals and the white advantage, in Elo."""

    ratings: Mapping[PlayerId, float]
    priors: Mapping[PlayerId, float]
    draw_rate: float
    white_advantage: float
    games: int
    #: the players' ids in the order of :attr:`covariance`'s rows
    ids: tuple[PlayerId, ...] = ()
    #: the Laplace approximation of the ratings' posterior covariance (Elo^2):
    #: the inverse of the negative log-posterior's Hessian at the fit
    covariance: tuple[tuple[float, ...], ...] = ()

    def white_expectation(self, white: PlayerId, black: PlayerId) -> float:
        """White's expected score ``E``."""
        diff = self.ratings[white] - self.ratings[black] + self.white_advantage
        return 1.0 / (1.0 + math.pow(10.0, -diff / 400.0))

    def outcome_probabilities(self, white: PlayerId, black: PlayerId) -> tuple[float, float, float]:
        """(white wins, draw, black wins)."""
        e = self.white_expectation(white, black)
        m = min(e, 1.0 - e)
        p_draw = self.draw_rate * 2.0 * m
        return e - p_draw / 2.0, p_draw, 1.0 - e - p_draw / 2.0


def prior_ratings(players: Sequence[Player]) -> dict[PlayerId, float]:
    """Each engine's configured rating; unrated engines get the rated ones' mean
    (:data:`~tcecd.pairing.simulation.RATING_MEAN` when nobody is rated)."""
    rated = [float(p.rating) for p in players if p.rating is not None]
    mean = sum(rated) / len(rated) if rated else RATING_MEAN
    return {p.id: float(p.rating) if p.rating is not None else mean for p in players}


def fit_model(
    players: Sequence[Player],
    games: Sequence[PlayedGame],
    settings: ModelSettings = ModelSettings(),
) -> EloModel:
    """Fit ratings and the draw rate to ``games`` (module docstring)."""
    import numpy as np  # here: a daemon without a forecast never pays for numpy

    priors = prior_ratings(players)
    ids = [p.id for p in players]
    index = {pid: i for i, pid in enumerate(ids)}
    played = [g for g in games if g.played and g.result is not Result.UNFINISHED]
    n = len(ids)
    prior = np.array([priors[pid] for pid in ids])
    rating = prior.copy()
    inv_var = 1.0 / settings.prior_sd**2
    hess = np.eye(n) * inv_var
    if played:
        w = np.array([index[g.white] for g in played])
        b = np.array([index[g.black] for g in played])
        s = np.array([_white_score(g.result) for g in played])
        h = settings.white_advantage
        for _ in range(50):
            e = 1.0 / (1.0 + np.exp(-_C * (rating[w] - rating[b] + h)))
            resid = _C * (s - e)
            grad = -(rating - prior) * inv_var
            np.add.at(grad, w, resid)
            np.subtract.at(grad, b, resid)
            k = _C * _C * e * (1.0 - e)
            hess = np.zeros((n, n))
            np.add.at(hess, (w, w), k)
            np.add.at(hess, (b, b), k)
            np.subtract.at(hess, (w, b), k)
            np.subtract.at(hess, (b, w), k)
            hess += np.eye(n) * inv_var
            step = np.linalg.solve(hess, grad)  # Newton on the concave log-posterior
            rating = rating + step
            if float(np.max(np.abs(step))) < 1e-7:
                break
    # ``hess`` is the last Newton step's: at (within 1e-7 Elo of) the fit.
    covariance = np.linalg.inv(hess)
    ratings = {pid: float(rating[i]) for i, pid in enumerate(ids)}
    model = EloModel(ratings, priors, settings.draw_prior_rate, settings.white_advantage,
                     len(played))
    draw = _fit_draw_rate(model, played, settings)
    return EloModel(ratings, priors, draw, settings.white_advantage, len(played), tuple(ids),
                    tuple(tuple(float(x) for x in row) for row in covariance))


def _white_score(result: Result) -> float:
    return {Result.WHITE_WINS: 1.0, Result.DRAW: 0.5, Result.BLACK_WINS: 0.0}[result]


def _fit_draw_rate(model: EloModel, games: Sequence[PlayedGame], settings: ModelSettings) -> float:
    """MAP draw rate: bisection on the derivative of the concave log-posterior."""
    a = settings.draw_prior_games * settings.draw_prior_rate  # Beta(1 + a, 1 + b)
    b = settings.draw_prior_games * (1.0 - settings.draw_prior_rate)
    draws = 0
    white_wins: list[tuple[float, float]] = []  # (E, m)
    black_wins: list[tuple[float, float]] = []  # (1 - E, m)
    for g in games:
        e = model.white_expectation(g.white, g.black)
        m = min(e, 1.0 - e)
        if g.result is Result.DRAW:
            draws += 1
        elif g.result is Result.WHITE_WINS:
            white_wins.append((e, m))
        else:
            black_wins.append((1.0 - e, m))
    if not games:
        return settings.draw_prior_rate
    if draws + a == 0 and not white_wins and not black_wins:  # pragma: no cover
        return settings.draw_prior_rate

    def slope(d: float) -> float:
        # d/dd of: (draws + a) log d + b log(1 - d) + sum log(E - d m) over the decisive games
        total = (draws + a) / d - b / (1.0 - d)
        for e, m in (*white_wins, *black_wins):
            total -= m / max(e - d * m, 1e-300)
        return total

    lo, hi = 1e-9, 1.0 - 1e-9
    if slope(lo) <= 0.0:
        return 0.0
    if slope(hi) >= 0.0:
        return 1.0
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if slope(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0
