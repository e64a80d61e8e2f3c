"""The clock tcecd keeps: stages, increments, movetime, margins and flags."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcecd.domain import Color
from tcecd.game.clock import Clock, GoLimits
from tcecd.game.timecontrol import TimeControl

W, B = Color.WHITE, Color.BLACK


def test_repeating_40_moves_in_7200_seconds() -> None:
    clock = Clock.start(TimeControl.parse("40/7200"))
    assert clock.remaining_ms(W) == 7_200_000
    assert clock.moves_to_go(W) == 40
    for _ in range(39):
        clock = clock.after_move(W, 100_000)
    # 39 moves of 100 s: 7200 - 3900 = 3300 s left, one move to go.
    assert clock.remaining_ms(W) == 3_300_000
    assert clock.moves_to_go(W) == 1
    clock = clock.after_move(W, 100_000)
    # Move 40 done: 3200 s left, then 7200 s more for the next 40 moves.
    assert clock.remaining_ms(W) == 3_200_000 + 7_200_000
    assert clock.moves_to_go(W) == 40
    # Black's clock did not move.
    assert clock.remaining_ms(B) == 7_200_000


def test_fischer_increment_is_added_after_each_move() -> None:
    clock = Clock.start(TimeControl.parse("60+0.6"))
    clock = clock.after_move(W, 2_000)
    assert clock.remaining_ms(W) == 60_000 - 2_000 + 600
    clock = clock.after_move(B, 100)
    assert clock.remaining_ms(B) == 60_000 - 100 + 600
    assert clock.moves_to_go(W) is None
    assert clock.limits(W) == GoLimits(
        wtime_ms=58_600, btime_ms=60_500, winc_ms=600, binc_ms=600, movestogo=None
    )


def test_tcec_two_stages() -> None:
    clock = Clock.start(TimeControl.parse("2/10:5+1"))
    clock = clock.after_move(W, 1_000)
    assert (clock.remaining_ms(W), clock.moves_to_go(W)) == (9_000, 1)
    assert clock.limits(W).winc_ms == 0
    clock = clock.after_move(W, 1_000)
    # Second stage reached: 8 s + 5 s, increment 1 s from now on, no more controls.
    assert (clock.remaining_ms(W), clock.moves_to_go(W)) == (13_000, None)
    assert clock.limits(W).winc_ms == 1_000
    clock = clock.after_move(W, 3_000)
    assert clock.remaining_ms(W) == 13_000 - 3_000 + 1_000


def test_increment_of_the_stage_the_move_was_played_in() -> None:
    # Stage 1 has +2 s, stage 2 has +0: the 1st move still gets the +2 s.
    clock = Clock.start(TimeControl.parse("1/10+2:60"))
    clock = clock.after_move(W, 4_000)
    assert clock.remaining_ms(W) == 10_000 - 4_000 + 2_000 + 60_000


def test_limits_tell_movestogo_of_the_side_to_move() -> None:
    clock = Clock.start(TimeControl.parse("40/7200"))
    clock = clock.after_move(W, 1_000).after_move(B, 1_000).after_move(W, 1_000)
    limits = clock.limits(B)
    assert limits.movestogo == 39
    assert limits.wtime_ms == 7_198_000
    assert limits.btime_ms == 7_199_000


def test_flag_falls_only_beyond_time_left_plus_margin() -> None:
    clock = Clock.start(TimeControl.parse("10"), margin_ms=200)
    assert clock.deadline_ms(W) == 10_200
    assert not clock.flag_fell(W, 10_000)
    assert not clock.flag_fell(W, 10_200)
    assert clock.flag_fell(W, 10_201)


def test_a_move_within_the_margin_leaves_zero_not_negative() -> None:
    clock = Clock.start(TimeControl.parse("10+1"), margin_ms=500)
    assert not clock.flag_fell(W, 10_300)
    clock = clock.after_move(W, 10_300)
    assert clock.remaining_ms(W) == 1_000  # 0 + the increment


def test_movetime_flags_beyond_movetime_plus_margin() -> None:
    clock = Clock.start(TimeControl.parse("st=2"), margin_ms=100)
    assert clock.remaining_ms(W) is None
    assert clock.deadline_ms(B) == 2_100
    assert not clock.flag_fell(B, 2_100)
    assert clock.flag_fell(B, 2_101)
    assert clock.limits(W) == GoLimits(movetime_ms=2_000)
    # No clock to run down: the state does not change.
    assert clock.after_move(W, 1_900) == clock


def test_clock_and_movetime_together_take_the_tighter_deadline() -> None:
    clock = Clock.start(TimeControl.parse("3 st=5"))
    assert clock.deadline_ms(W) == 3_000
    clock = Clock.start(TimeControl.parse("60 st=5"))
    assert clock.deadline_ms(W) == 5_000


def test_nodes_or_depth_only_has_no_deadline() -> None:
    clock = Clock.start(TimeControl.parse("inf nodes=3000"), margin_ms=1000)
    assert clock.deadline_ms(W) is None
    assert not clock.flag_fell(W, 10**9)
    assert clock.limits(W) == GoLimits(nodes=3000)
    assert Clock.start(TimeControl.parse("depth=7")).limits(B) == GoLimits(depth=7)


def test_nodes_with_a_clock_sends_both() -> None:
    clock = Clock.start(TimeControl.parse("60+0.6 nodes=20000"))
    limits = clock.limits(W)
    assert (limits.wtime_ms, limits.winc_ms, limits.nodes) == (60_000, 600, 20000)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="margin"):
        Clock.start(TimeControl.parse("60"), margin_ms=-1)
    with pytest.raises(ValueError, match="think time"):
        Clock.start(TimeControl.parse("60")).after_move(W, -5)


@given(
    tc_text=st.sampled_from(["40/7200", "60+0.6", "40/60:30+0.5", "10", "2/5:3/4", "0+1"]),
    margin=st.integers(0, 1_000),
    used=st.lists(st.integers(0, 20_000), min_size=1, max_size=120),
)
def test_a_player_who_has_not_flagged_never_has_negative_time(
    tc_text: str, margin: int, used: list[int]
) -> None:
    clock = Clock.start(TimeControl.parse(tc_text), margin_ms=margin)
    color = W
    for think in used:
        if clock.flag_fell(color, think):
            deadline = clock.deadline_ms(color)
            assert deadline is not None
            assert think > deadline
            break
        clock = clock.after_move(color, think)
        left = clock.remaining_ms(color)
        assert left is not None
        assert left >= 0
        togo = clock.moves_to_go(color)
        assert togo is None or togo >= 1
        color = color.other


@given(used=st.lists(st.integers(0, 1_000), min_size=40, max_size=40))
def test_40_7200_after_40_moves_gets_7200_again(used: list[int]) -> None:
    clock = Clock.start(TimeControl.parse("40/7200"))
    for think in used:
        clock = clock.after_move(B, think)
    assert clock.remaining_ms(B) == 2 * 7_200_000 - sum(used)


def test_each_side_runs_its_own_time_control() -> None:
    # White plays 60+0.6, Black 10+0.1 (an engine entry's own `tc`).
    clock = Clock.start(TimeControl.parse("60+0.6"), black_tc=TimeControl.parse("10+0.1"))
    assert (clock.remaining_ms(W), clock.remaining_ms(B)) == (60_000, 10_000)
    clock = clock.after_move(W, 2_000)  # 60 - 2 + 0.6 s
    clock = clock.after_move(B, 1_000)  # 10 - 1 + 0.1 s
    assert (clock.remaining_ms(W), clock.remaining_ms(B)) == (58_600, 9_100)
    # Each side is told both clocks and both increments, as UCI wants.
    expected = GoLimits(wtime_ms=58_600, btime_ms=9_100, winc_ms=600, binc_ms=100)
    assert clock.limits(W) == expected
    assert clock.limits(B) == expected
    # Black's flag falls at its own time (9.1 s + margin 0), not White's.
    assert clock.deadline_ms(B) == 9_100
    assert clock.flag_fell(B, 9_101)


def test_a_side_with_a_node_limit_and_a_side_with_a_clock() -> None:
    clock = Clock.start(
        TimeControl.parse("inf nodes=5000"), 200, black_tc=TimeControl.parse("40/120")
    )
    # White has no clock: it is told only its node limit, and has no deadline.
    assert clock.limits(W) == GoLimits(nodes=5000)
    assert clock.deadline_ms(W) is None
    assert clock.after_move(W, 99_999).remaining_ms(W) is None
    # Black has 120 s for 40 moves and is told its own clock only (White has none).
    assert clock.limits(B) == GoLimits(btime_ms=120_000, binc_ms=0, movestogo=40)
    assert clock.deadline_ms(B) == 120_200
    assert clock.time_control(W) == TimeControl.parse("inf nodes=5000")


def test_same_time_control_for_both_is_one() -> None:
    tc = TimeControl.parse("60+0.6")
    assert Clock.start(tc, black_tc=TimeControl.parse("60+0.6")) == Clock.start(tc)
