"""The Dask backend's live stream: every update of a game reaches the daemon,
in order, before the game's result, however the worker groups them into
events (tcecd.execution.dask: at most one event per BATCH_S a game)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import tcecd.execution.dask as dask_backend
from tcecd.config.load import load_engine
from tcecd.domain import GameId
from tcecd.execution import ExecutionSettings, open_player
from tcecd.execution.gate import open_gate
from tcecd.execution.job import GameBegan, GameJob, GameUpdate, MoveMade
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.record import Opening
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl

pytestmark = pytest.mark.slow  # a real (in-process) Dask cluster

ENGINES = Path(__file__).resolve().parents[2] / "engines"


def _job() -> GameJob:
    return GameJob(
        game_id=GameId(1, 1),
        event="stream",
        site="tests",
        white=load_engine("ab-d1", search_dirs=(ENGINES,)),
        black=load_engine("ab-d1-noisy", search_dirs=(ENGINES,)),
        opening=Opening(name="e4", fen=None, moves=("e2e4", "e7e5")),
        rules=GameRules(
            time_control=TimeControl.parse("60+1"),
            margin_ms=200,
            adjudication=AdjudicationRules(max_moves=15),
        ),
    )


@pytest.mark.parametrize("batch_s", [0.0, 0.05, 10.0])
async def test_every_update_arrives_in_order_before_the_result(
    batch_s: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """0: an event per update; 0.05: the default; 10 s: every move after the
    first waits for the game's end, and still arrives before the result."""
    from distributed import LocalCluster, Worker

    monkeypatch.setattr(dask_backend, "BATCH_S", batch_s)  # the worker shares this process
    sent: list[str] = []  # the kinds of the game's events, as the worker logs them
    real_log = Worker.log_event

    def log_event(self: Worker, topic: Any, msg: Any) -> None:
        if isinstance(topic, str) and topic.startswith("tcecd-"):
            sent.append(msg["kind"])
        real_log(self, topic, msg)

    monkeypatch.setattr(Worker, "log_event", log_event)
    async with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, resources={"engine_slots": 1},
        protocol="tcp", host="127.0.0.1", dashboard_address=None, asynchronous=True,
        # No dashboard, but the scheduler's HTTP server (health, metrics) would take
        # 8787, which the suite's other cluster may hold: a free port.
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
    ) as cluster:  # fmt: skip
        player = await open_player(
            ExecutionSettings(backend="dask", scheduler=cluster.scheduler_address)
        )
        try:
            updates: asyncio.Queue[GameUpdate] = asyncio.Queue()
            result = await player.play(_job(), updates, open_gate())
        finally:
            await player.aclose()
    got: list[GameUpdate] = []
    while not updates.empty():
        got.append(updates.get_nowait())
    assert result.record is not None
    assert isinstance(got[0], GameBegan)
    moves = [u.move for u in got if isinstance(u, MoveMade)]
    assert moves == list(result.record.moves)  # book plies too, none lost or doubled
    assert len(moves) >= 20
    assert sent[-1] == "done"
    assert set(sent[:-1]) == {"batch"}
    if batch_s == 0.0:
        assert len(sent) == len(got) + 1  # one event per update
    elif batch_s == 10.0:
        assert len(sent) == 3  # the first update at once, the rest at the end, done
    else:
        # depth-1 engines move every few milliseconds: moves share events.
        assert len(sent) < len(got)
