"""The rating and draw-rate fit (tcecd.forecast.model; docs/forecast.md "Model"),
checked against the optimality conditions worked out by hand."""

from __future__ import annotations

import math

import pytest

from tcecd.domain import Result
from tcecd.forecast.model import ModelSettings, fit_model, prior_ratings
from tcecd.pairing.base import PlayedGame, Player
from tests.forecast.helpers import players

C = math.log(10) / 400


def test_no_games_gives_the_prior() -> None:
    field = players(3)
    model = fit_model(field, [])
    assert dict(model.ratings) == {"P1": 3300.0, "P2": 3300.0, "P3": 3300.0}
    assert model.draw_rate == 0.5
    assert model.games == 0


def test_unrated_engines_get_the_mean_of_the_rated_ones() -> None:
    field = (Player("A", "A", 1, 3400), Player("B", "B", 2, 3200), Player("C", "C", 3, None))
    assert prior_ratings(field) == {"A": 3400.0, "B": 3200.0, "C": 3300.0}


def test_winner_moves_up_by_the_map_condition() -> None:
    # A beats B four times (two with each colour), equal priors, sigma 100.
    # At the MAP the log-posterior's gradient vanishes:
    #   (r_A - p_A) / sigma^2 = c * sum_g (s_g - E_g)   (s from A's side)
    # and by symmetry r_B - p_B = -(r_A - p_A).
    field = (Player("A", "A", 1, 3300), Player("B", "B", 2, 3300))
    games = [PlayedGame("A", "B", Result.WHITE_WINS), PlayedGame("B", "A", Result.BLACK_WINS)] * 2
    settings = ModelSettings(prior_sd=100.0)
    model = fit_model(field, games, settings)
    ra, rb = model.ratings["A"], model.ratings["B"]
    assert ra > 3300 > rb
    assert ra - 3300 == pytest.approx(3300 - rb, abs=1e-6)
    h = settings.white_advantage
    e_white_a = 1 / (1 + 10 ** (-(ra - rb + h) / 400))  # A with white
    e_black_a = 1 - 1 / (1 + 10 ** (-(rb - ra + h) / 400))  # A with black
    rhs = C * 2 * ((1 - e_white_a) + (1 - e_black_a))
    assert (ra - 3300) / 100.0**2 == pytest.approx(rhs, rel=1e-6)


def test_a_tighter_prior_moves_ratings_less() -> None:
    field = (Player("A", "A", 1, 3300), Player("B", "B", 2, 3300))
    games = [PlayedGame("A", "B", Result.WHITE_WINS)] * 5
    loose = fit_model(field, games, ModelSettings(prior_sd=200.0)).ratings["A"]
    tight = fit_model(field, games, ModelSettings(prior_sd=20.0)).ratings["A"]
    assert loose > tight > 3300


def test_draw_rate_between_equals_is_the_beta_posterior_mode() -> None:
    # Ten draws between equals with no white advantage: E = 1/2 in every game,
    # the likelihood is (2 d m)^10, and with the Beta(1 + 5, 1 + 5) prior the
    # log-posterior (10 + 5) log d + 5 log(1 - d) peaks at d = 15 / 20.
    field = players(2)
    games = [PlayedGame("P1", "P2", Result.DRAW)] * 10
    model = fit_model(field, games, ModelSettings(white_advantage=0.0))
    assert model.draw_rate == pytest.approx(0.75, abs=1e-9)


def test_decisive_games_lower_the_draw_rate() -> None:
    field = players(2)
    games = [PlayedGame("P1", "P2", Result.WHITE_WINS), PlayedGame("P2", "P1", Result.WHITE_WINS)]
    model = fit_model(field, games * 5, ModelSettings(white_advantage=0.0))
    assert model.draw_rate < 0.5


def test_forfeits_never_played_are_not_evidence() -> None:
    field = players(2)
    forfeit = PlayedGame("P1", "P2", Result.WHITE_WINS, played=False)
    model = fit_model(field, [forfeit] * 3)
    assert model.games == 0
    assert model.ratings["P1"] == model.ratings["P2"] == 3300.0


def test_outcome_probabilities_are_the_simulation_model() -> None:
    # E = 1 / (1 + 10^(-35/400)) = 0.55030..., m = 1 - E, draw = 0.5 * 2 * m.
    model = fit_model(players(2), [])
    w, d, b = model.outcome_probabilities("P2", "P1")
    e = 1 / (1 + 10 ** (-35 / 400))
    assert (w, d, b) == pytest.approx((e - (1 - e) / 2, 1 - e, (1 - e) / 2))
    assert w + d + b == pytest.approx(1.0)
