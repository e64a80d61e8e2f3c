"""Final ranking: score, BYEs, tiebreaks, seed (values computed by hand)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcecd.domain import Result
from tcecd.errors import ConfigError, PairingError
from tcecd.pairing.base import PlayedGame, RoundRecord
from tcecd.pairing.simulation import simulate_event
from tcecd.pairing.standings import (
    DEFAULT_TIEBREAKS,
    TIEBREAKS,
    rank_order,
    rank_totals,
    standings,
)
from tcecd.pairing.tally import tally
from tests.pairing.helpers import field

W, D, L = Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS

# R1: P2-P1 0-1, P4-P3 =.  R2: P1-P3 =, P2-P4 1-0.
# Points: P1 1.5, P2 1, P3 1, P4 0.5.
# Black games: P1 1, P2 0, P3 2, P4 1.
# Sonneborn-Berger: P1 1x1 (P2) + 0.5x1 (P3) = 1.5; P2 0 + 1x0.5 (P4) = 0.5;
#   P3 0.5x0.5 (P4) + 0.5x1.5 (P1) = 1.0; P4 0.5x1 (P3) + 0 = 0.5.
# Buchholz: P1 1+1 = 2; P2 1.5+0.5 = 2; P3 0.5+1.5 = 2; P4 1+1 = 2.
# Buchholz cut-1: P1 2-1 = 1; P2 2-0.5 = 1.5; P3 2-0.5 = 1.5; P4 2-1 = 1.
# Wins: P1 1, P2 1, P3 0, P4 0.
HISTORY = [
    RoundRecord(1, None, (), (PlayedGame("P2", "P1", L), PlayedGame("P4", "P3", D))),
    RoundRecord(2, None, (), (PlayedGame("P1", "P3", D), PlayedGame("P2", "P4", W))),
]


def test_tiebreak_values() -> None:
    table = standings(field(4), HISTORY, double=False, tiebreaks=tuple(TIEBREAKS))
    values = {s.id: dict(s.tiebreaks) for s in table}
    assert values["P1"] == {
        "black-games": 1, "sonneborn-berger": 1.5, "buchholz": 2, "buchholz-cut1": 1,
        "wins": 1, "direct-encounter": 0,
    }  # fmt: skip
    assert values["P2"]["sonneborn-berger"] == 0.5
    assert values["P3"]["sonneborn-berger"] == 1.0
    assert values["P4"]["sonneborn-berger"] == 0.5
    assert [values[p]["buchholz-cut1"] for p in ("P2", "P3", "P4")] == [1.5, 1.5, 1]
    assert [values[p]["black-games"] for p in ("P2", "P3", "P4")] == [0, 2, 1]
    assert [values[p]["wins"] for p in ("P2", "P3", "P4")] == [1, 0, 0]
    assert {s.id: s.score for s in table} == {"P1": 1.5, "P2": 1.0, "P3": 1.0, "P4": 0.5}
    assert all(s.games == 2 for s in table)


@pytest.mark.parametrize(
    ("tiebreaks", "order"),
    [
        # P2 and P3 are level on 1 point and 0 BYEs:
        (DEFAULT_TIEBREAKS, ["P1", "P3", "P2", "P4"]),  # black games 2 > 0
        (("sonneborn-berger",), ["P1", "P3", "P2", "P4"]),  # 1.0 > 0.5
        (("wins",), ["P1", "P2", "P3", "P4"]),  # 1 > 0
        (("buchholz",), ["P1", "P2", "P3", "P4"]),  # 2 = 2 -> seed
        (("direct-encounter",), ["P1", "P2", "P3", "P4"]),  # never met -> seed
        ((), ["P1", "P2", "P3", "P4"]),  # seed
    ],
)
def test_ranking_order(tiebreaks: tuple[str, ...], order: list[str]) -> None:
    table = standings(field(4), HISTORY, double=False, tiebreaks=tiebreaks)
    assert [s.id for s in table] == order
    assert [s.rank for s in table] == [1, 2, 3, 4]


def test_direct_encounter_among_the_level_players_only() -> None:
    # R1: P1-P2 0-1, P3-P4 =.  R2: P1-P3 1-0, P2-P4 0-1.
    # Points: P4 1.5, P1 1, P2 1, P3 0.5. P2 beat P1, so with direct encounter
    # P2 ranks above P1 despite the worse seed.
    history = [
        RoundRecord(1, None, (), (PlayedGame("P1", "P2", L), PlayedGame("P3", "P4", D))),
        RoundRecord(2, None, (), (PlayedGame("P1", "P3", W), PlayedGame("P2", "P4", L))),
    ]
    table = standings(field(4), history, double=False, tiebreaks=("direct-encounter",))
    assert [s.id for s in table] == ["P4", "P2", "P1", "P3"]
    assert dict(table[1].tiebreaks) == {"direct-encounter": 1.0}
    # Black games first: P1 has 0, P2 has 1, so they are no longer level when
    # direct encounter is computed; it counts nothing and P2 is ahead on black games.
    table = standings(
        field(4), history, double=False, tiebreaks=("black-games", "direct-encounter")
    )
    assert [s.id for s in table] == ["P4", "P2", "P1", "P3"]
    assert dict(table[1].tiebreaks) == {"black-games": 1.0, "direct-encounter": 0.0}


def test_fewer_byes_rank_higher_on_equal_score() -> None:
    # R1: P1 has the BYE (a win: 1 point), P2 beats P3. P1 and P2 have 1 point;
    # P2 received no BYE, so it ranks first although P1 is the better seed.
    history = [RoundRecord(1, "P1", (), (PlayedGame("P2", "P3", W),))]
    table = standings(field(3), history, double=False)
    assert [(s.id, s.score, s.byes) for s in table] == [
        ("P2", 1.0, 0), ("P1", 1.0, 1), ("P3", 0.0, 0),
    ]  # fmt: skip
    assert table[1].games == 0


def test_bye_in_a_double_round_is_two_wins() -> None:
    history = [
        RoundRecord(1, "P3", (), (PlayedGame("P2", "P1", D), PlayedGame("P1", "P2", D))),
    ]
    table = standings(field(3), history, double=True)
    assert {s.id: s.score_half for s in table} == {"P3": 4, "P1": 2, "P2": 2}
    assert table[0].id == "P3"


def test_unplayed_forfeit_scores_but_has_no_colour() -> None:
    history = [RoundRecord(1, None, (), (PlayedGame("P2", "P1", L, played=False),))]
    table = standings(field(2), history, double=False, tiebreaks=("black-games", "wins"))
    assert [(s.id, s.score, dict(s.tiebreaks)) for s in table] == [
        ("P1", 1.0, {"black-games": 0.0, "wins": 1.0}),
        ("P2", 0.0, {"black-games": 0.0, "wins": 0.0}),
    ]


@pytest.mark.parametrize("bad", [("median",), ("wins", "wins")])
def test_bad_tiebreak_list(bad: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError, match=repr(bad[0])):
        standings(field(2), [], double=False, tiebreaks=bad)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 24),
    rounds=st.integers(0, 12),
    double=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    draw_rate=st.sampled_from([0.0, 0.5, 1.0]),
    tiebreaks=st.lists(st.sampled_from(sorted(TIEBREAKS)), unique=True, max_size=6),
)
def test_rank_order_is_the_order_of_the_full_ranking(
    n: int, rounds: int, double: bool, seed: int, draw_rate: float, tiebreaks: list[str]
) -> None:
    # The forecast's ranking (tiebreaks only where players are level) against
    # the full one; draws and few rounds give many ties.
    try:
        ev = simulate_event(n, rounds, double=double, seed=seed, draw_rate=draw_rate)
    except PairingError:
        return  # the colour rule alone blocked a round (tested elsewhere)
    totals = tally(ev.players, ev.rounds, double=double)
    full = rank_totals(ev.players, totals, tiebreaks)
    assert [p.id for p in rank_order(ev.players, totals, tiebreaks)] == [s.id for s in full]


def test_rank_order_by_hand() -> None:
    # HISTORY above: P1 first on points; P2 and P3 level on 1 point (P3 has
    # more black games and more Sonneborn-Berger, P2 more wins, P2 the better
    # seed); P4 last.
    players = field(4)
    totals = tally(players, HISTORY, double=False)
    assert [p.id for p in rank_order(players, totals, ("black-games",))] == [
        "P1", "P3", "P2", "P4"]
    assert [p.id for p in rank_order(players, totals, ("sonneborn-berger",))] == [
        "P1", "P3", "P2", "P4"]
    assert [p.id for p in rank_order(players, totals, ("wins",))] == ["P1", "P2", "P3", "P4"]
    assert [p.id for p in rank_order(players, totals, ())] == ["P1", "P2", "P3", "P4"]
