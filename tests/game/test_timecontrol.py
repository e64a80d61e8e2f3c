"""Time-control parsing and the PGN tag, checked against cutechess's tc= syntax."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcecd.game.timecontrol import Stage, TimeControl


def test_repeating_moves_per_time() -> None:
    tc = TimeControl.parse("40/7200")
    assert tc.stages == (Stage(40, 7_200_000, 0),)
    assert tc.has_clock
    assert tc.pgn_tag() == "40/7200"
    assert tc.describe() == "2h for 40 moves, repeating"


def test_fischer_with_fractional_increment() -> None:
    tc = TimeControl.parse("60+0.6")
    assert tc.stages == (Stage(None, 60_000, 600),)
    assert tc.pgn_tag() == "60+0.6"
    assert tc.describe() == "1min + 0.6s/move"


def test_fractional_base_seconds() -> None:
    # 0.1 s is exactly 100 ms, not 99 from floating-point rounding.
    tc = TimeControl.parse("0.1+0.01")
    assert tc.stages == (Stage(None, 100, 10),)
    assert tc.pgn_tag() == "0.1+0.01"


def test_tcec_style_stages() -> None:
    tc = TimeControl.parse("40/7200:3600+30")
    assert tc.stages == (Stage(40, 7_200_000, 0), Stage(None, 3_600_000, 30_000))
    assert tc.pgn_tag() == "40/7200:3600+30"
    assert tc.describe() == "2h for 40 moves, then 1h + 30s/move"


@pytest.mark.parametrize("text", ["inf", "INF", "-"])
def test_no_clock(text: str) -> None:
    tc = TimeControl.parse(text)
    assert tc == TimeControl()
    assert not tc.has_clock
    assert tc.pgn_tag() == "-"
    assert tc.describe() == "no limit"


def test_movetime_nodes_depth_words() -> None:
    assert TimeControl.parse("st=5") == TimeControl(movetime_ms=5000)
    assert TimeControl.parse("movetime=0.25") == TimeControl(movetime_ms=250)
    assert TimeControl.parse("inf nodes=3000") == TimeControl(nodes=3000)
    assert TimeControl.parse("depth=12") == TimeControl(depth=12)
    assert TimeControl.parse("st=5").pgn_tag() == "-"


def test_limits_combine_with_a_clock() -> None:
    tc = TimeControl.parse("60+0.6 nodes=20000")
    assert tc.stages == (Stage(None, 60_000, 600),)
    assert tc.nodes == 20000
    assert tc.describe() == "1min + 0.6s/move; 20000 nodes per move"
    # The config layer may add a limit to a parsed clock.
    assert dataclasses.replace(TimeControl.parse("60+0.6"), nodes=20000) == tc


@pytest.mark.parametrize(
    "text",
    [
        "",
        "abc",
        "40/",
        "/7200",
        "40/7200+",
        "-5+1",
        "0",
        "0/60",
        "60:40/7200",  # a stage without a move count must be the last one
        "st=0",
        "st=x",
        "nodes=-1",
        "nodes=1.5",
        "depth=0",
        "60 60",
        "speed=3",
    ],
)
def test_bad_text_is_a_value_error_quoting_it(text: str) -> None:
    with pytest.raises(ValueError, match="invalid time control") as info:
        TimeControl.parse(text)
    assert repr(text) in str(info.value)


def test_zero_base_with_increment_is_allowed() -> None:
    # Increment-only controls exist ("0+1": one second per move, banked).
    assert TimeControl.parse("0+1").stages == (Stage(None, 0, 1000),)


_times = st.integers(min_value=1, max_value=10_000_000)


@st.composite
def time_controls(draw: st.DrawFn) -> TimeControl:
    count = draw(st.integers(min_value=0, max_value=3))
    stages = []
    for index in range(count):
        last = index == count - 1
        moves = draw(st.none() | st.integers(1, 100)) if last else draw(st.integers(1, 100))
        stages.append(Stage(moves, draw(_times), draw(st.integers(0, 100_000))))
    return TimeControl(
        tuple(stages),
        movetime_ms=draw(st.none() | _times),
        nodes=draw(st.none() | st.integers(1, 10**9)),
        depth=draw(st.none() | st.integers(1, 200)),
    )


@given(time_controls())
def test_text_round_trips(tc: TimeControl) -> None:
    assert TimeControl.parse(tc.text()) == tc


@given(time_controls())
def test_pgn_tag_parses_back_to_the_same_clock(tc: TimeControl) -> None:
    assert TimeControl.parse(tc.pgn_tag()).stages == tc.stages
