"""What a format has decided from a finished game's result
(``EventFormat.decided_from``), the rule behind the console's ``restart-game``
of a game an engine's fault ended (docs/running.md, "The console"): a Swiss
round paired from it, a cup encounter's next game or round; never a
round-robin's or a match's schedule. And the events that go on after such a
result is voided: a round-robin re-opens the round (later rounds wait for
it, their standings too), a match's SPRT counts again. Pure: the formats
driven through the state's fold, as the runner drives them.
"""

from __future__ import annotations

import dataclasses

import pytest

from tcecd.domain import GameId, Result, Termination
from tcecd.event.state import EventState, apply
from tcecd.events import GameFinished, GameRestartOrdered, RoundPaired
from tcecd.formats.base import (
    Done,
    EventFormat,
    FormatSettings,
    Play,
    Schedule,
    closed_rounds,
    get_format,
)
from tcecd.pairing.base import Player, ScheduledGame
from tcecd.runner.stats import Sprt
from tests.store.test_store import make_record

FIELD = tuple(Player(p, p.upper(), i, 2800 - 10 * i) for i, p in enumerate("abcd", start=1))


def start(system: str, **extra: object) -> tuple[EventFormat, EventState]:
    rounds = extra.pop("rounds", 3)
    fmt = get_format(FormatSettings(system=system, rounds=rounds, extra=extra))  # type: ignore[arg-type]
    return fmt, EventState(players=FIELD)


def schedule(fmt: EventFormat, state: EventState) -> EventState:
    """Everything the format schedules now (it must schedule something)."""
    plan = fmt.plan(state)
    assert isinstance(plan, Schedule), plan
    while isinstance(plan, Schedule):
        state = apply(state, RoundPaired(plan.pairing))
        plan = fmt.plan(state)
    return state


def finish(state: EventState, gid: GameId, result: Result, *, fault: bool = False) -> EventState:
    game = scheduled(state, gid)
    record = make_record(gid, game.white, game.black, result)
    if fault:
        record = dataclasses.replace(record, termination=Termination.ABANDONED,
                                     termination_detail="White's engine crashed")  # fmt: skip
    return apply(state, GameFinished(record, ""))


def void(state: EventState, gid: GameId) -> EventState:
    return apply(state, GameRestartOrdered(gid, "hardware fault", voided=True))


def scheduled(state: EventState, gid: GameId) -> ScheduledGame:
    return next(g for g in state.schedule[gid.round].games if g.number == gid.number)


def finish_round(state: EventState, r: int, result: Result = Result.DRAW) -> EventState:
    for g in state.schedule[r].games:
        gid = GameId(r, g.number)
        if gid not in state.results:
            state = finish(state, gid, result)
    return state


G11, G12 = GameId(1, 1), GameId(1, 2)


@pytest.mark.parametrize("system", ["dutch-2017", "tcec-swiss", "dubov"])
def test_a_swiss_result_stands_once_the_next_round_is_paired(system: str) -> None:
    fmt, state = start(system)
    state = schedule(fmt, state)
    state = finish(state, G11, Result.BLACK_WINS, fault=True)
    assert fmt.decided_from(state, G11) is None  # the round is being played
    state = finish_round(state, 1)
    assert fmt.round_over(state, 1)
    # Over, but round 2 not paired yet (the event paused): still nothing decided.
    assert fmt.decided_from(state, G11) is None
    state = schedule(fmt, state)
    assert fmt.decided_from(state, G11) == (
        f"round 2 was paired from its result ({system} pairs every round from the results "
        "of the rounds before it)")  # fmt: skip


def test_a_round_robin_reopens_a_round_and_its_later_standings_wait() -> None:
    fmt, state = start("round-robin")
    for r in (1, 2):
        state = schedule(fmt, state)
        state = finish(state, GameId(r, 1), Result.BLACK_WINS, fault=r == 1)
        state = finish_round(state, r)
    state = schedule(fmt, state)
    assert state.rounds == [1, 2, 3]
    assert closed_rounds(fmt, state) == 2
    assert fmt.decided_from(state, G11) is None  # the Berger table read no result

    state = void(state, G11)
    assert G11 not in state.results
    assert closed_rounds(fmt, state) == 0
    assert [str(GameId(r, g.number)) for r, g in state.pending()][:1] == ["1.1"]
    # Round 3 finishes first: the next round still waits for the re-opened one.
    state = finish_round(state, 3)
    assert closed_rounds(fmt, state) == 0
    assert isinstance(fmt.plan(state), Play)
    state = finish(state, G11, Result.WHITE_WINS)
    assert closed_rounds(fmt, state) == 3
    # Standings after round 3 count the game played again, not the voided one.
    white = scheduled(state, G11).white
    row = next(s for s in fmt.standings(state.upto(3)) if s.id == white)
    assert row.score_half == 2 + 1 + 1  # 1.1 won, 2.x and 3.x drawn
    assert isinstance(fmt.plan(state), Done)


def test_a_match_decides_nothing_from_a_result_and_its_sprt_counts_again() -> None:
    state = EventState(players=FIELD[:2])
    fmt = get_format(FormatSettings(system="match-round-robin", rounds=20,
                                    extra={"games": 2, "lookahead": 2,
                                           "sprt": Sprt(0.0, 5.0)}))  # fmt: skip
    state = schedule(fmt, state)
    state = finish(state, G11, Result.WHITE_WINS, fault=True)
    state = finish(state, G12, Result.DRAW)
    assert fmt.sprt_decision(state) is None  # counted: 1.1 as a win
    state = schedule(fmt, state)
    assert fmt.decided_from(state, G11) is None
    state = void(state, G11)
    # Played again before the format is asked again: it must count again.
    state = finish(state, G11, Result.BLACK_WINS)
    assert fmt.sprt_decision(state) is None
    fresh = get_format(FormatSettings(system="match-round-robin", rounds=20,
                                      extra={"games": 2, "lookahead": 2,
                                             "sprt": Sprt(0.0, 5.0)}))  # fmt: skip
    assert fresh.sprt_decision(state) is None
    counted = fmt._tally.counts()  # type: ignore[attr-defined]
    assert counted == fresh._tally.counts()  # type: ignore[attr-defined]
    assert counted == (0, 1, 0, 0, 0)  # one pair: a loss and a draw for its first engine


def encounter(state: EventState, r: int, player: str) -> list[ScheduledGame]:
    """The games of ``player``'s encounter in round ``r``, in playing order."""
    games = state.schedule[r].games
    index = next(g.pair_index for g in games if player in (g.white, g.black))
    return [g for g in games if g.pair_index == index]


def test_a_cup_result_stands_once_its_encounter_or_the_bracket_went_on() -> None:
    fmt, state = start("knockout", games=2)
    state = schedule(fmt, state)
    first, second = (GameId(1, g.number) for g in encounter(state, 1, "a"))
    # a (seed 1) meets d: a wins the first game by d's crash.
    state = finish(state, first, wins(state, first, "a"), fault=True)
    assert fmt.decided_from(state, first) is None  # the encounter's next game not played
    state = finish(state, second, Result.DRAW)
    assert fmt.decided_from(state, first) == (
        f"game {second} of its encounter has finished since")
    # b-c: b wins, then c wins by b's crash: level, so tiebreak games follow.
    b_first, b_second = (GameId(1, g.number) for g in encounter(state, 1, "b"))
    state = finish(state, b_first, wins(state, b_first, "b"))
    state = finish(state, b_second, wins(state, b_second, "c"), fault=True)
    assert fmt.decided_from(state, b_second) is None  # its tiebreak not scheduled yet
    state = schedule(fmt, state)
    assert len(encounter(state, 1, "b")) > 2
    assert fmt.decided_from(state, b_second) == (
        "its encounter's tiebreak games were scheduled from its result")
    # b wins the tiebreak: the final (a-b) is drawn from both encounters.
    while 2 not in state.schedule:
        for g in encounter(state, 1, "b"):
            gid = GameId(1, g.number)
            if gid not in state.results:
                state = finish(state, gid, wins(state, gid, "b"))
        state = schedule(fmt, state)
    assert fmt.decided_from(state, second) == (
        "round 2 of the cup was drawn from its encounter's result")


def wins(state: EventState, gid: GameId, player: str) -> Result:
    return Result.WHITE_WINS if scheduled(state, gid).white == player else Result.BLACK_WINS


def test_a_state_with_a_reopened_round_loads_and_a_gap_without_one_is_refused() -> None:
    """On resume (``state_dir.verify``): a round paired before an earlier one
    finished is a damaged state, unless the games still to play there are
    ones the operator voided."""
    from tcecd.daemon.state_dir import verify
    from tcecd.errors import StateError

    fmt, state = start("round-robin")
    state = finish_round(schedule(fmt, state), 1)
    state = schedule(fmt, state)
    verify(void(state, G11), "event.sqlite")
    # The same rounds stored with 1.1 never finished and no console command.
    _, gap = start("round-robin")
    gap = finish(apply(gap, RoundPaired(state.schedule[1])), G12, Result.DRAW)
    gap = apply(gap, RoundPaired(state.schedule[2]))
    with pytest.raises(StateError, match="round 2 is paired before round 1 finished"):
        verify(gap, "event.sqlite")
