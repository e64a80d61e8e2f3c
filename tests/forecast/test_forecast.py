"""The Monte Carlo forecast: hand-worked events, determinism, a partly played round."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import pytest

from tcecd.domain import Result
from tcecd.errors import ConfigError
from tcecd.forecast.forecast import ForecastSettings, forecast
from tcecd.forecast.model import ModelSettings
from tcecd.forecast.montecarlo import EventSnapshot, simulate
from tcecd.forecast.parallel import simulate_in
from tcecd.pairing.base import PlayedGame
from tcecd.pairing.registry import get_system
from tcecd.pairing.simulation import simulate_event
from tests.forecast.helpers import players, single_round


def by_id(f):  # type: ignore[no-untyped-def]
    return {p.id: p for p in f.players}


def test_one_game_left_matches_the_model_by_hand() -> None:
    # Two engines rated 3300, one round. TCEC Swiss round 1 (STEP 5: equal WGD,
    # equal score, round 1 of the 2112 pattern): P1 (first-of-pair) has black.
    # Model: E(white P2) = 1/(1+10^(-35/400)) = 0.55030, m = 0.44970,
    # P(draw) = 0.5*2*m = 0.44970, P(P2 wins) = E - P(draw)/2 = 0.32545.
    # A draw leaves 1/2 - 1/2 and the first tiebreak (games with black) puts
    # P1 first, so P(P1 first) = 1 - 0.32545 = 0.67455; P1 expects 1 - E.
    # prior_sd 0.001: the ratings are known (no posterior spread to average over).
    snap = EventSnapshot("tcec-swiss", players(2), False, (), 1)
    known = ModelSettings(prior_sd=0.001)
    f = forecast(snap, ForecastSettings(simulations=4000, seed=3, model=known))
    e = 1 / (1 + 10 ** (-35 / 400))
    p2_wins = e - (1 - e) / 2
    sd = math.sqrt(p2_wins * (1 - p2_wins) / 4000)
    p = by_id(f)
    assert p["P1"].places[0] == pytest.approx(1 - p2_wins, abs=4 * sd)
    assert p["P2"].places[0] == pytest.approx(p2_wins, abs=4 * sd)
    assert p["P1"].places[0] + p["P2"].places[0] == pytest.approx(1.0)
    assert p["P1"].expected_score == pytest.approx(1 - e, abs=0.03)
    assert f.players[0].id == "P1"  # ordered by expected place


def test_rating_uncertainty_is_carried_into_the_forecast() -> None:
    # The same one-game event with uncertain ratings (prior sd 200): each
    # simulation draws the two ratings from N(3300, 200^2). The draw
    # probability d * 2 * min(E, 1 - E) is largest between equals, so averaged
    # over rating differences draws are rarer than the 0.4497 of known equal
    # ratings, and P2's only way to first place (winning) is more likely than
    # its 0.3254 there.
    snap = EventSnapshot("tcec-swiss", players(2), False, (), 1)
    known = forecast(snap, ForecastSettings(simulations=4000, seed=3,
                                            model=ModelSettings(prior_sd=0.001)))
    vague = forecast(snap, ForecastSettings(simulations=4000, seed=3,
                                            model=ModelSettings(prior_sd=200.0)))
    assert by_id(vague)["P2"].places[0] > by_id(known)["P2"].places[0]


def test_a_finished_event_is_certain() -> None:
    ev = simulate_event(6, 3, seed=4)
    snap = EventSnapshot("tcec-swiss", ev.players, False, ev.rounds, 3)
    f = forecast(snap, ForecastSettings(simulations=50, top=2))
    assert f.simulations == 1  # nothing left to play: one simulation says it all
    p = by_id(f)
    for row in ev.standings:
        assert p[row.id].places[row.rank - 1] == 1.0
        assert p[row.id].expected_score == row.score
        assert p[row.id].top == (1.0 if row.rank <= 2 else 0.0)


def test_finished_games_of_the_current_round_are_kept() -> None:
    # Four engines, one round, paired; game 1 finished with white winning. Its
    # white is then top 2 in every simulation (1 point beats everyone but the
    # other game's winner) and its black never is (0 points; the other game
    # gives at least one player 1/2).
    field = players(4)
    pairing = get_system("tcec-swiss").pair(field, [], double=False)
    g = pairing.games[0]
    snap = EventSnapshot(
        "tcec-swiss", field, False, (), 1, current=pairing,
        current_games=(PlayedGame(g.white, g.black, Result.WHITE_WINS),),
    )
    f = forecast(snap, ForecastSettings(simulations=200, top=2, seed=1))
    p = by_id(f)
    assert f.after_round == 0
    assert f.after_game == 1
    assert p[g.white].top == 1.0
    assert p[g.black].top == 0.0
    assert p[g.white].score == 1.0


def test_deterministic_for_a_seed_and_any_number_of_workers() -> None:
    ev = simulate_event(8, 2, seed=9)
    snap = EventSnapshot("tcec-swiss", ev.players, False, ev.rounds, 5)
    settings = ForecastSettings(simulations=120, top=3, seed=11)
    one = forecast(snap, settings, simulate)
    with ThreadPoolExecutor(3) as pool:
        many = forecast(snap, settings, lambda s, m, n, seed: simulate_in(pool, s, m, n, seed))
    assert one == many
    other = forecast(snap, ForecastSettings(simulations=120, top=3, seed=12))
    assert other != one
    for p in one.players:
        assert sum(p.places) == pytest.approx(1.0)
        assert p.top == pytest.approx(sum(p.places[:3]))


@pytest.mark.parametrize("system", ["dubov", "round-robin"])
def test_other_systems_and_double_rounds(system: str) -> None:
    double = system == "round-robin"
    rounds, n = 3, (4 if double else 6)
    ev = simulate_event(n, rounds, seed=2, system=system, double=double)
    snap = EventSnapshot(ev.system, ev.players, double, ev.rounds[:1], rounds)
    f = forecast(snap, ForecastSettings(simulations=40, seed=1))
    # Every simulated game is a point shared: the expected scores add up to the
    # points of the whole event (n/2 pairs a round, two games each in double rounds).
    per_round = n // 2 * (2 if double else 1)
    assert sum(p.expected_score for p in f.players) == pytest.approx(per_round * rounds)


def test_bad_settings_are_one_line_errors() -> None:
    snap = EventSnapshot("tcec-swiss", players(4), False, (), 3)
    with pytest.raises(ConfigError, match=r"top must be in 1\.\.4, not 5"):
        forecast(snap, ForecastSettings(top=5))
    with pytest.raises(ConfigError, match="the event has 0 rounds but 1 are finished"):
        forecast(EventSnapshot("tcec-swiss", players(2), False,
                               (single_round(1, ("P2", "P1", Result.DRAW)),), 0))
