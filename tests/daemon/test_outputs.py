"""No blocking I/O on the event loop: the JSON file writer, and where the
daemon's store commits, PGN appends and file writes actually run."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import tcecd.daemon.outputs as outputs
from tcecd.daemon import run_event_async
from tcecd.daemon.crash import CrashPoints
from tcecd.daemon.outputs import FileWriter, json_text
from tcecd.daemon.stream import BaseSink, Committed
from tcecd.event.state import EventState
from tcecd.events import RoundPaired
from tcecd.execution.job import GameJob, GameResult
from tcecd.outputs.files import PgnFile
from tcecd.store import EventStore
from tests.daemon.test_runner_logic import ScriptedPlayer, _game, _record, _run, _settings


class RunningFrom(BaseSink):
    """Sets ``flag[0]`` once the first round is paired (the event runs: the
    start-up reads of the store are over)."""

    def __init__(self, flag: list[bool]) -> None:
        self.flag = flag

    def handle(self, committed: Committed, state: EventState) -> None:
        if isinstance(committed.event, RoundPaired):
            self.flag[0] = True


async def test_writer_writes_the_newest_text_of_each_file_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop_thread = threading.get_ident()
    writes: list[tuple[str, str, bool]] = []
    real = outputs.atomic_write_text

    def spy(path: Path, text: str, *, durable: bool = False) -> None:
        writes.append((path.name, text, threading.get_ident() == loop_thread))
        real(path, text, durable=durable)

    monkeypatch.setattr(outputs, "atomic_write_text", spy)
    live, sched = tmp_path / "live.json", tmp_path / "schedule.json"
    async with FileWriter() as writer:
        for ply in range(1, 51):  # fifty moves handed over without a single await
            writer.submit(live, json_text({"ply": ply}))
        writer.submit(sched, json_text(["s"]))
        await writer.flush()
        assert json.loads(live.read_text(encoding="utf-8")) == {"ply": 50}
        assert json.loads(sched.read_text(encoding="utf-8")) == ["s"]
        writer.submit(live, json_text({"final": True}))
    # Leaving the block writes what is still pending.
    assert json.loads(live.read_text(encoding="utf-8")) == {"final": True}
    assert writes, "nothing written"
    assert not any(on_loop for _, _, on_loop in writes)
    # Coalesced, never backwards: each file's writes are in submission order.
    plies = [json.loads(text).get("ply", 99) for name, text, _ in writes if name == "live.json"]
    assert plies == sorted(plies)
    assert len(plies) <= 51


async def test_documents_are_rendered_only_when_written_at_a_bounded_rate(
    tmp_path: Path,
) -> None:
    """Moves faster than the writer's interval: the documents of the moves in
    between are never made, and the file still ends with the newest one."""
    rendered: list[int] = []

    def document(ply: int) -> Any:
        def render() -> str:
            rendered.append(ply)
            return json_text({"ply": ply})

        return render

    live = tmp_path / "live.json"
    async with FileWriter(interval_s=0.05) as writer:
        start = time.monotonic()
        for ply in range(1, 41):
            writer.submit(live, document(ply))
            await asyncio.sleep(0.005)  # a move every 5 ms, ten times the writer's rate
        elapsed = time.monotonic() - start
        await writer.flush()
        assert json.loads(live.read_text(encoding="utf-8")) == {"ply": 40}
    assert rendered == sorted(rendered)
    assert rendered[-1] == 40
    # At most one write per 0.05 s while the moves came (about 0.2 s, more on
    # a loaded machine), and the last one: a handful, not one per move.
    assert len(rendered) <= elapsed / 0.05 + 2, (rendered, elapsed)


async def test_a_failed_render_is_raised_by_the_next_flush(tmp_path: Path) -> None:
    def broken() -> str:
        raise ValueError("no document")

    async with FileWriter() as writer:
        writer.submit(tmp_path / "live.json", broken)
        with pytest.raises(ValueError, match="no document"):
            await writer.flush()
        writer.submit(tmp_path / "live.json", lambda: "{}\n")
        await writer.flush()
    assert (tmp_path / "live.json").read_text(encoding="utf-8") == "{}\n"


async def test_a_failed_write_is_raised_by_the_next_flush(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    async with FileWriter() as writer:
        writer.submit(blocker / "schedule.json", "[]\n")  # its parent is a file
        with pytest.raises(FileExistsError):  # mkdir of the parent
            await writer.flush()
        writer.submit(tmp_path / "ok.json", "[]\n")  # the writer goes on
        await writer.flush()
    assert (tmp_path / "ok.json").read_text(encoding="utf-8") == "[]\n"


async def test_the_daemon_commits_appends_and_writes_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole (scripted) event with a replayed game, a disqualification and
    forfeits: every store write, PGN append and JSON file write runs in a
    worker thread, and the store is not read at all once the event runs."""
    loop_thread = threading.get_ident()
    calls: list[tuple[str, bool]] = []
    running = [False]

    def spy(owner: Any, name: str) -> None:
        real = getattr(owner, name)

        def wrapper(*args: Any, **kw: Any) -> Any:
            if running[0]:
                calls.append((name, threading.get_ident() == loop_thread))
            return real(*args, **kw)

        monkeypatch.setattr(owner, name, wrapper)

    for name in ("commit_game", "save_pairing", "mark_finished", "add_fault", "disqualify",
                 "_query"):  # fmt: skip
        spy(EventStore, name)
    spy(PgnFile, "append")
    spy(outputs, "atomic_write_text")
    settings = _settings(tmp_path, concurrency=2, strikes_max=1)
    # Game 1.1's white crashes (one strike: disqualified); its round-2 game is a forfeit.
    from tcecd.pairing.seeding import seed_players
    from tcecd.pairing.tcec_swiss import TcecSwiss

    players = seed_players([(n, n, None) for n in "abcd"], "explicit")
    white = TcecSwiss().pair(players, [], double=False).games[0].white
    await _run(settings, {"1.1": (0.05, white)}, sinks=[RunningFrom(running)])
    names = {name for name, _ in calls}
    assert {"commit_game", "save_pairing", "mark_finished", "append",
            "atomic_write_text"} <= names  # fmt: skip
    assert "_query" not in names  # reads come from the event state, a fold in memory
    on_loop = [name for name, loop in calls if loop]
    assert on_loop == []
    with EventStore(tmp_path) as store:
        assert set(store.disqualified()) == {white}
        forfeits = [g for g in store.games() if not g.played]
        assert forfeits
        assert all(white in (g.white, g.black) for g in forfeits)


async def test_replay_faults_and_disqualification_are_committed_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ``on_fault: replay`` a fault is committed before the replay (and a
    disqualification with it): from a worker thread, and the mirror follows."""
    loop_thread = threading.get_ident()
    calls: list[tuple[str, bool]] = []
    for name in ("add_fault", "disqualify"):
        real = getattr(EventStore, name)

        def wrapper(*args: Any, _real: Any = real, _name: str = name, **kw: Any) -> Any:
            calls.append((_name, threading.get_ident() == loop_thread))
            return _real(*args, **kw)

        monkeypatch.setattr(EventStore, name, wrapper)

    attempts: dict[str, int] = {}

    async def play(job: GameJob) -> GameResult:
        gid = job.game_id
        attempts[str(gid)] = attempts.get(str(gid), 0) + 1
        if str(gid) == "1.1" and attempts["1.1"] == 1:
            return GameResult(None, ((job.white.name, "crash", "scripted"),), replay=True)
        return GameResult(_record(gid, _game(job)))

    settings = _settings(tmp_path, rounds=1, strikes_max=1, concurrency=1)
    settings = replace(settings, rules=replace(settings.rules, fault_policy="replay"))
    assert await run_event_async(
        settings, out=io.StringIO(), crash=CrashPoints(), install_signals=False,
        player=ScriptedPlayer(play),
    ) is True
    assert calls == [("add_fault", False), ("disqualify", False)]
    assert attempts["1.1"] == 1  # disqualified by its one strike: not replayed, forfeited
    with EventStore(tmp_path) as store:
        [g11] = [g for g in store.games() if str(g.game_id) == "1.1"]
        assert not g11.played
        assert g11.termination.value == "forfeit"
        assert len(store.disqualified()) == 1
