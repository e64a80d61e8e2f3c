"""Point systems, virtual points and forbidden pairs as values
(:mod:`tcecd.pairing.points`), and the scores and standings that follow them.

Every expected value is worked by hand from the sources the module cites:
JaVaFo's ``XXS`` codes (as py4swiss reads them), bbpPairings' ``BB?`` lines
(its README) and FIDE C.04.5.1 (Baku acceleration).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, Result
from tcecd.pairing.base import ByeKind, PlayedGame, Player, RoundRecord
from tcecd.pairing.points import (
    STANDARD,
    PointSystem,
    acceleration_from_points,
    baku,
    forbidden_pairs,
    parse_points,
    partners,
    points_from_codes,
)
from tcecd.pairing.simulation import simulate_event
from tcecd.pairing.standings import standings
from tcecd.pairing.tally import pairing_scores, tally

F = Fraction


def test_the_standard_system_counts_in_half_points() -> None:
    assert STANDARD.unit == 2
    assert (STANDARD.win_white, STANDARD.draw_black, STANDARD.loss_white) == (2, 1, 0)
    assert STANDARD.is_standard
    assert STANDARD.describe() == "win 1, draw 0.5, loss 0"


def test_the_unit_makes_every_value_whole() -> None:
    assert parse_points("3-1-0").unit == 1  # whole points
    assert parse_points("3-1-0").values()["half_bye"] == 1  # a draw's worth
    tenths = parse_points({"draw": 0.4})  # 0.4 = 2/5: fifths
    assert tenths.unit == 5
    assert (tenths.win_white, tenths.draw_white, tenths.half_bye) == (5, 2, 2)
    # Virtual points of 0.5 on top need tenths.
    fitted, virtual = acceleration_from_points({"a": [F(1, 2)]}, tenths)
    assert fitted.unit == 10
    assert virtual.virtual("a", 1) == 5
    assert fitted.values() == tenths.values()


def test_w_d_l_and_the_outcomes_that_follow() -> None:
    points = parse_points("3-1-0")
    values = points.values()
    # bbpPairings' defaults: forfeit win, pairing-allocated and full-point byes
    # score a win, a half-point bye a draw, a forfeit loss and a zero-point bye 0.
    assert [values[k] for k in ("forfeit_win", "pairing_bye", "full_bye")] == [3, 3, 3]
    assert values["half_bye"] == 1
    assert (values["forfeit_loss"], values["zero_bye"]) == (0, 0)
    loss_counts = parse_points("3-2-1").values()  # a played loss scores; forfeits do not
    assert (loss_counts["loss_white"], loss_counts["forfeit_loss"]) == (1, 0)
    colours = parse_points({"win_black": 1.5, "pairing_bye": 0.5})
    assert colours.values()["win_white"] == 1
    assert colours.game(Result.BLACK_WINS, Color.BLACK) == colours.units(F(3, 2))
    assert colours.describe() == (
        "win_white 1, win_black 1.5, draw 0.5, loss 0, forfeit_win 1, pairing_bye 0.5, "
        "full_bye 1"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("3-1", "expected 'WIN-DRAW-LOSS' (such as '3-1-0') or a mapping, got '3-1'"),
        ("3-x-0", "draw: expected a number, got 'x'"),
        ({"tie": 1}, "unknown outcome 'tie'"),
        ({"win": -1}, "win: points cannot be negative, got -1"),
        ({"draw": 0.25}, "draw: points are multiples of 0.1, got 0.25"),
        ({"win": 100}, "win: at most 99.9 points, got 100"),
        (3, "expected 'WIN-DRAW-LOSS' or a mapping, got 3"),
    ],
)
def test_bad_point_systems(spec: object, message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        parse_points(spec)


def test_xxs_codes_as_javafo_defines_them() -> None:
    # W sets WW, BW, FW and FPB, not PAB; D sets WD, BD and HPB.
    points = points_from_codes([("W", F(3)), ("D", F(1))], [])
    values = points.values()
    assert [values[k] for k in ("win_white", "win_black", "forfeit_win", "full_bye")] == [3] * 4
    assert values["pairing_bye"] == 1
    assert [values[k] for k in ("draw_white", "draw_black", "half_bye")] == [1] * 3
    # L sets the losses, the forfeit loss and the zero-point bye; codes apply in order.
    later = points_from_codes([("L", F(1, 2)), ("ZPB", F(0))], []).values()
    assert (later["loss_black"], later["forfeit_loss"], later["zero_bye"]) == (F(1, 2),) * 2 + (0,)


def test_bb_lines_as_bbppairings_defines_them() -> None:
    # BBW also scores the pairing-allocated bye unless BBU is given.
    values = points_from_codes([], [("BBW", F(3)), ("BBD", F(1))]).values()
    assert (values["full_bye"], values["pairing_bye"], values["half_bye"]) == (3, 3, 1)
    own = points_from_codes([], [("BBU", F(1)), ("BBW", F(3)), ("BBF", F(1, 2))]).values()
    assert (own["pairing_bye"], own["forfeit_loss"], own["loss_white"]) == (1, F(1, 2), 0)


def test_what_outcomes_score() -> None:
    points = parse_points({"win": 3, "draw": 1, "forfeit_loss": 0.5})
    assert points.unit == 2  # the forfeit loss's half point
    assert points.game(Result.WHITE_WINS, Color.WHITE) == 6
    assert points.game(Result.WHITE_WINS, Color.BLACK, played=False) == 1
    assert points.game(Result.DRAW, Color.BLACK) == 2
    assert points.bye(ByeKind.PAIRING) == 6
    assert points.bye(ByeKind.HALF) == 2
    assert points.text(7) == "3.5"
    assert points.most_per_game == 6


def test_baku_acceleration_as_c_04_5_1_says() -> None:
    # C.04.5.1's own figures: 161 players -> GA is 82 (2 * Q, Q = 161 / 4
    # rounded up); nine rounds -> five accelerated, one virtual point in the
    # first three, half a point in the next two.
    players = [Player(f"p{i}", f"p{i}", i) for i in range(1, 162)]
    points, virtual = baku(players, 9)
    assert points == STANDARD
    table = virtual.by_player()
    assert len(table) == 82
    assert set(table) == {f"p{i}" for i in range(1, 83)}
    assert table["p82"] == (2, 2, 2, 1, 1)  # half-points: 1, 1, 1, 0.5, 0.5
    assert virtual.virtual("p83", 1) == 0
    assert virtual.virtual("p1", 6) == 0
    # The reading: an even number of rounds (8: four accelerated, two with 1).
    assert baku(players[:8], 8)[1].by_player()["p4"] == (2, 2, 1, 1)
    assert len(baku(players[:9], 5)[1].table) == 6  # 9 players: 2 * 3
    with pytest.raises(ValueError, match="standard point system"):
        baku(players, 9, parse_points("3-1-0"))


def test_forbidden_pairs_from_groups() -> None:
    pairs = forbidden_pairs([["a", "b"], ["c", "d", "e"], ["f", "f"]])
    assert pairs == {
        frozenset(p) for p in (("a", "b"), ("c", "d"), ("c", "e"), ("d", "e"))
    }
    assert partners(pairs)["c"] == {"d", "e"}


_SYSTEMS = st.sampled_from(["1-0.5-0", "3-1-0", "2-1-0", "1-0.4-0", "3-2-1"])


@settings(max_examples=15, deadline=None)
@given(spec=_SYSTEMS, seed=st.integers(0, 10_000))
def test_scores_and_standings_follow_the_point_system(spec: str, seed: int) -> None:
    """Every player's score is the sum of what the system gives each of its
    rounds (recomputed here from the records, in exact points), and the
    standings rank by it; the standard system gives the same scores as before
    (half-points)."""
    event = simulate_event(9, 4, seed=seed, system="dutch-2017", draw_rate=0.6)
    points = parse_points(spec)
    win, draw, loss = (F(part) for part in spec.split("-"))
    expected = {p.id: F(0) for p in event.players}
    for record in event.rounds:
        for pid in record.byes:
            expected[pid] += win  # the pairing-allocated bye scores a win
        for game in record.games:
            if game.result is Result.DRAW:
                expected[game.white] += draw
                expected[game.black] += draw
            else:
                winner, loser = (
                    (game.white, game.black)
                    if game.result is Result.WHITE_WINS
                    else (game.black, game.white)
                )
                expected[winner] += win
                expected[loser] += loss
    totals = tally(event.players, event.rounds, double=False, points=points)
    assert {pid: points.fraction(t.score) for pid, t in totals.items()} == expected
    table = standings(event.players, event.rounds, double=False, points=points)
    assert [F(s.score_units, s.unit) for s in table] == sorted(expected.values(), reverse=True)
    assert all(s.unit == points.unit for s in table)
    if points.is_standard:
        old = tally(event.players, event.rounds, double=False)
        assert {pid: t.score for pid, t in totals.items()} == {
            pid: t.score for pid, t in old.items()
        }


def test_standings_rank_by_the_point_system() -> None:
    """a: two draws (1 point standard, 2 under 3-1-0); b: a win and a loss
    (1 point, 3 under 3-1-0); c: a draw and a win (1.5, 4); d: a loss and a
    draw (0.5, 1). a and b are level by default (a, the better seed, first)
    and b is ahead under 3-1-0."""
    event = simulate_event(4, 0, system="dutch-2017")
    a, b, c, d = (p.id for p in sorted(event.players, key=lambda p: p.seed))
    draw, white = Result.DRAW, Result.WHITE_WINS
    rounds = [
        RoundRecord(1, (), (), (PlayedGame(a, c, draw), PlayedGame(b, d, white))),
        RoundRecord(2, (), (), (PlayedGame(d, a, draw), PlayedGame(c, b, white))),
    ]
    plain = standings(event.players, rounds, double=False, tiebreaks=())
    assert [(s.id, s.score) for s in plain] == [(c, 1.5), (a, 1.0), (b, 1.0), (d, 0.5)]
    three = parse_points("3-1-0")
    table = standings(event.players, rounds, double=False, tiebreaks=(), points=three)
    assert [(s.id, s.score, s.score_half) for s in table] == [
        (c, 4.0, 8),
        (b, 3.0, 6),
        (a, 2.0, 4),
        (d, 1.0, 2),
    ]


def test_pairing_scores_carry_each_rounds_virtual_points() -> None:
    event = simulate_event(4, 2, system="dutch-2017", seed=3)
    first = event.players[0].id
    points, virtual = acceleration_from_points({first: [F(1), F(0), F(1, 2)]}, STANDARD)
    scores = pairing_scores(
        event.players, event.rounds, double=False, points=points, acceleration=virtual
    )
    real = pairing_scores(event.players, event.rounds, double=False)
    assert [s - r for s, r in zip(scores[first], real[first], strict=True)] == [2, 0, 1]
    assert scores[event.players[1].id] == real[event.players[1].id]


def test_a_point_system_is_a_value() -> None:
    assert parse_points("1-0.5-0") == STANDARD
    assert PointSystem.from_values({}) == STANDARD
    assert STANDARD.with_unit(10).values() == STANDARD.values()
    assert STANDARD.with_unit(10).is_standard
