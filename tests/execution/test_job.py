"""The game job, result and updates survive their JSON encoding (what crosses the
network to a Dask worker), an encoding of another version is refused in one
line, and a game asks for the engine slots its engines' Threads say."""

from __future__ import annotations

import json

import pytest

from tcecd.config.engines import EngineConfig
from tcecd.domain import Color, GameId, Result, Termination
from tcecd.execution.job import (
    ExecutionError,
    GameBegan,
    GameJob,
    GameRestarted,
    GameResult,
    MoveMade,
    game_slots,
    job_from_dict,
    job_to_dict,
    result_from_dict,
    result_to_dict,
    update_from_dict,
    update_to_dict,
)
from tcecd.game.adjudication import AdjudicationRules, DrawRule, TablebaseRule, WinRule
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl

WHITE = EngineConfig(name="sf", command=("stockfish",), options={"Threads": 4, "Hash": 256},
                     rating=3600, env={"X": "1"}, restart="keep-alive")  # fmt: skip
BLACK = EngineConfig(name="lc0", command=("lc0", "--backend=eigen"), options={"threads": 2})
OPENING = Opening(name="Sicilian", fen=None, moves=("e2e4", "c7c5"), eco="B20", index=3)
JOB = GameJob(
    game_id=GameId(2, 5),
    event="TCEC",
    site="cloud",
    white=WHITE,
    black=BLACK,
    opening=OPENING,
    slots=4,
    rules=GameRules(
        time_control=TimeControl.parse("40/7200:3600+30"),
        margin_ms=200,
        adjudication=AdjudicationRules(
            draw=DrawRule(from_move=34, score_cp=8, moves=5), win=WinRule(score_cp=1000, moves=5),
            tablebase=TablebaseRule(max_pieces=6), max_moves=200,
        ),
        fault_policy="replay",
        tablebase_path="/tb/345:/tb/6",
    ),
)
MOVE = MoveRecord(ply=3, color=Color.WHITE, uci="g1f3", san="Nf3", fen_after="x", depth=20,
                  score=Score(cp=31), pv_san=("Nf3", "d6"), move_time_ms=1234, r50=49)  # fmt: skip


def _wire(d: dict[str, object]) -> dict[str, object]:
    """Through JSON text and back (tuples become lists, as over msgpack)."""
    out: dict[str, object] = json.loads(json.dumps(d))
    return out


def test_job_round_trips() -> None:
    assert job_from_dict(_wire(job_to_dict(JOB))) == JOB


def test_result_and_updates_round_trip() -> None:
    record = GameRecord(
        game_id=GameId(2, 5), event="TCEC", site="cloud", white="sf", black="lc0",
        result=Result.DRAW, termination=Termination.ADJUDICATION,
        termination_detail="TCEC draw rule", start_time="2026-11-22T00:00:00.000Z",
        end_time="2026-11-22T01:00:00.000Z", duration_ms=3_600_000, time_control="40/7200",
        opening=OPENING, moves=(MOVE,), white_options=(("Threads", "4"),), white_elo=3600,
    )  # fmt: skip
    for result in (
        GameResult(record, (("lc0", "stall", "no move after 9000 ms"),), where="tcp://w:1"),
        GameResult(None, (("sf", "crash", "process died"),), replay=True, where="local"),
    ):
        assert result_from_dict(_wire(result_to_dict(result))) == result
    for update in (
        GameBegan(GameId(2, 5), "2026-11-22T00:00:00.000Z", (("Threads", "4"),), (), 7_200_200,
                  7_200_200, where="tcp://w:1"),
        MoveMade(GameId(2, 5), MOVE, 7_100_000, None),
        GameRestarted(GameId(2, 5), "worker lost"),
    ):
        assert update_from_dict(_wire(update_to_dict(update))) == update


def test_a_chess960_job_round_trips() -> None:
    """The variant and the opening's Chess960 castling cross the network: a worker
    that lost them would play the game as standard chess."""
    import dataclasses

    from tcecd.game.chess960 import numbered_opening

    job = dataclasses.replace(
        JOB, opening=numbered_opening(74), rules=dataclasses.replace(JOB.rules, variant="chess960")
    )
    d = _wire(job_to_dict(job))
    assert d["rules"]["variant"] == "chess960"  # type: ignore[index]
    assert d["opening"]["chess960"] is True  # type: ignore[index]
    assert job_from_dict(d) == job


def test_another_encoding_version_is_one_clear_error() -> None:
    d = job_to_dict(JOB)
    d["v"] = 2  # the encoding before a job carried the variant (Chess960)
    with pytest.raises(ExecutionError, match=r"game job encoded as version 2; this tcecd reads "
                       r"version 3 \(run the same tcecd version"):  # fmt: skip
        job_from_dict(d)


def test_slots_from_threads_or_the_event_setting() -> None:
    # Only the side to move thinks: the larger of the two Threads (4 and 2), not 6.
    assert game_slots(WHITE, BLACK, None) == 4
    # Neither engine sets Threads: one slot.
    plain = EngineConfig(name="a", command=("a",))
    assert game_slots(plain, plain, None) == 1
    # The event's execution.slots wins.
    assert game_slots(WHITE, BLACK, 8) == 8
