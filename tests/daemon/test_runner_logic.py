"""The daemon's sequencing, in-process with a scripted game player (a
:class:`~tcecd.execution.GamePlayer`) instead of engines, driven through the
daemon's entry point (``run_event_async(player=..., sinks=...)``): results are
committed and published in schedule order whatever order games end in, and
disqualification forfeits exactly the later games. The stream is watched by a
sink added here, without touching the runner."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from tcecd.config.engines import EngineConfig
from tcecd.daemon import run_event_async
from tcecd.daemon.crash import CrashPoints
from tcecd.daemon.settings import RunSettings
from tcecd.daemon.stream import BaseSink, Committed, Sink
from tcecd.domain import GameId, Result, Termination
from tcecd.errors import EngineError
from tcecd.event.state import EventState
from tcecd.events import EngineDisqualified, GameFinished
from tcecd.execution.gate import StartGate, StoppedBeforeStart
from tcecd.execution.job import GameJob, GameResult, GameUpdate
from tcecd.formats.base import FormatSettings
from tcecd.game.record import GameRecord, Opening
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.pairing.base import ScheduledGame
from tcecd.pairing.seeding import seed_players
from tcecd.pairing.tcec_swiss import TcecSwiss
from tcecd.store import EventStore


def _settings(tmp_path: Path, **kw: Any) -> RunSettings:
    engines = tuple(EngineConfig(name=n, command=("true",)) for n in ("a", "b", "c", "d"))
    rounds, double = kw.pop("rounds", 2), kw.pop("double", False)
    base: dict[str, Any] = dict(
        event="logic", site="here", engines=engines,
        format=FormatSettings(rounds=rounds, double=double),
        rules=GameRules(TimeControl.parse("60+1")), state_dir=tmp_path,
        pgn_path=tmp_path / "e.pgn", json_dir=tmp_path / "tcec",
    )  # fmt: skip
    base.update(kw)
    return RunSettings(**base)


class Seen(BaseSink):
    """A sink that remembers every event it was given."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def handle(self, committed: Committed, state: EventState) -> None:
        self.events.append(committed.event)


def _record(gid: GameId, game: ScheduledGame) -> GameRecord:
    return GameRecord(
        game_id=gid, event="logic", site="here", white=game.white, black=game.black,
        result=Result.WHITE_WINS, termination=Termination.ADJUDICATION,
        termination_detail="scripted", start_time="2026-11-22T00:00:00.000Z",
        end_time="2026-11-22T00:00:01.000Z", duration_ms=1000, time_control="60+1",
        opening=Opening(name=None, fen=None), moves=(),
    )  # fmt: skip


def _game(job: GameJob) -> ScheduledGame:
    """The scheduled game a job plays (the names are all a scripted record needs)."""
    return ScheduledGame(job.game_id.number, job.white.name, job.black.name, 0)


PlayFn = Callable[[GameJob], Awaitable[GameResult]]


class ScriptedPlayer:
    """A game player that plays nothing: ``play_fn(job)`` says how each game ends."""

    name = "scripted"

    def __init__(self, play_fn: PlayFn) -> None:
        self.play_fn = play_fn

    def use_engine_groups(self, groups: Any) -> None:
        pass

    async def play(
        self, job: GameJob, updates: asyncio.Queue[GameUpdate], gate: StartGate
    ) -> GameResult:
        try:
            if not await gate.may_start():
                raise StoppedBeforeStart(str(job.game_id))
        finally:
            gate.decided()
        return await self.play_fn(job)

    async def aclose(self) -> None:
        pass


Script = dict[str, tuple[float, str | None]]


async def _run(
    settings: RunSettings, script: Script, *, sinks: Sequence[Sink] = ()
) -> tuple[Seen, list[str]]:
    """Run the event; ``script[r.g] = (seconds, faulty engine or None)``."""
    played: list[str] = []

    async def fake_play(job: GameJob) -> GameResult:
        gid = job.game_id
        played.append(str(gid))
        delay, faulty = script.get(str(gid), (0.0, None))
        await asyncio.sleep(delay)
        faults = () if faulty is None else ((faulty, "crash", "scripted crash"),)
        return GameResult(_record(gid, _game(job)), faults)

    seen = Seen()
    out = io.StringIO()
    rc = await run_event_async(settings, out=out, crash=CrashPoints(), install_signals=False,
                               player=ScriptedPlayer(fake_play), sinks=[seen, *sinks])  # fmt: skip
    assert rc is True  # complete
    return seen, played


async def test_results_are_committed_in_schedule_order(tmp_path: Path) -> None:
    settings = _settings(tmp_path, concurrency=2)
    # The first game of each round takes longest: the second one ends first.
    rec, played = await _run(settings, {"1.1": (0.2, None), "2.1": (0.2, None)})
    finished = [str(e.game_id) for e in rec.events if isinstance(e, GameFinished)]
    assert finished == ["1.1", "1.2", "2.1", "2.2"]
    assert sorted(played) == finished
    pgn = (tmp_path / "e.pgn").read_text(encoding="utf-8")
    assert [line for line in pgn.splitlines() if line.startswith("[Round")] == [
        '[Round "1.1"]', '[Round "1.2"]', '[Round "2.1"]', '[Round "2.2"]',
    ]  # fmt: skip


async def test_game_running_when_its_engine_is_disqualified_is_forfeited(tmp_path: Path) -> None:
    """Double round, all four games at once: game 1.1's crash disqualifies its
    white (max 1 strike) while the reverse game 1.3 of the same pair is still
    running; 1.3 is recorded as a forfeit, as a one-game-at-a-time run would."""
    settings = _settings(tmp_path, double=True, rounds=1, concurrency=4, strikes_max=1)
    # Which engine has white in game 1.1 is the pairing core's business: ask it.
    players = seed_players([(n, n, None) for n in "abcd"], "explicit")
    white = TcecSwiss().pair(players, [], double=True).games[0].white
    rec, _ = await _run(settings, {"1.1": (0.3, white)})
    dq = [e for e in rec.events if isinstance(e, EngineDisqualified)]
    assert [e.engine for e in dq] == [white]
    ends = {str(e.game_id): e.record for e in rec.events if isinstance(e, GameFinished)}
    assert ends["1.1"].termination is Termination.ADJUDICATION  # played, counts
    assert ends["1.3"].termination is Termination.FORFEIT
    assert ends["1.3"].moves == ()
    assert ends["1.3"].result.winner is not None
    assert {ends["1.3"].white, ends["1.3"].black} == {ends["1.1"].white, ends["1.1"].black}
    loser_is_white = ends["1.3"].white == white
    assert ends["1.3"].result is (Result.BLACK_WINS if loser_is_white else Result.WHITE_WINS)
    with EventStore(tmp_path) as store:
        assert set(store.disqualified()) == {white}
        assert store.strikes() == {white: 1}  # the forfeited game's own faults do not count
        [g13] = [g for g in store.games() if str(g.game_id) == "1.3"]
        assert not g13.played


async def test_a_user_error_in_a_game_surfaces_as_that_error(tmp_path: Path) -> None:
    """Not as an exception group: the CLI prints TcecdErrors as one line."""

    async def failing(job: GameJob) -> GameResult:
        raise EngineError(f"game {job.game_id}: cannot run")

    with pytest.raises(EngineError, match=r"game 1\.1: cannot run"):
        await run_event_async(
            _settings(tmp_path), out=io.StringIO(), crash=CrashPoints(), install_signals=False,
            player=ScriptedPlayer(failing),
        )  # fmt: skip
    # The state is intact and unlocked: nothing was recorded for the game.
    with EventStore(tmp_path) as store:
        assert store.games() == []
        assert store.pairing(1) is not None


async def test_a_finished_game_waiting_for_an_earlier_one_frees_its_playing_permit(
    tmp_path: Path,
) -> None:
    """concurrency 2, game 1.1 long, the others short: the games after 1.2
    start while 1.1 still plays (a game waiting to be recorded does not hold
    a permit), until 2 x concurrency games are started and unrecorded; all
    are still recorded in playing order."""
    engines = tuple(EngineConfig(name=f"e{n:02d}", command=("true",)) for n in range(12))
    settings = _settings(tmp_path, engines=engines, rounds=1, concurrency=2)
    loop = asyncio.get_running_loop()
    started: dict[str, float] = {}
    ended: dict[str, float] = {}

    async def play(job: GameJob) -> GameResult:
        gid = str(job.game_id)
        started[gid] = loop.time()
        await asyncio.sleep(0.5 if gid == "1.1" else 0.02)
        ended[gid] = loop.time()
        return GameResult(_record(job.game_id, _game(job)), ())

    recorder = Seen()
    rc = await run_event_async(settings, out=io.StringIO(), crash=CrashPoints(),
                               install_signals=False, player=ScriptedPlayer(play),
                               sinks=[recorder])  # fmt: skip
    assert rc is True  # complete
    # 1.3 and 1.4 ran while 1.1 played (each in the permit of a finished game) ...
    assert started["1.3"] < ended["1.1"]
    assert started["1.4"] < ended["1.1"]
    # ... and 1.5 waited: 1.1 to 1.4 filled the window of 2 x 2 unrecorded games.
    assert started["1.5"] >= ended["1.1"]
    finished = [str(e.game_id) for e in recorder.events if isinstance(e, GameFinished)]
    assert finished == ["1.1", "1.2", "1.3", "1.4", "1.5", "1.6"]


def test_a_sink_gets_only_the_events_it_wants_in_the_order_sinks_were_added() -> None:
    from tcecd.daemon.stream import EventStream
    from tcecd.domain import Color
    from tcecd.events import EventFinished, MovePlayed
    from tcecd.game.record import MoveRecord

    class Finishes(Seen):
        wants = frozenset({GameFinished, EventFinished})

    everything, finishes = Seen(), Finishes()
    stream = EventStream([finishes])
    move = MovePlayed(GameId(1, 1), MoveRecord(1, Color.WHITE, "e2e4", "e4", "fen"), None, None)
    finished = GameFinished(_record(GameId(1, 1), ScheduledGame(1, "a", "b", 0)), "")
    stream.emit(Committed(move), EventState())
    stream.add(everything)  # after the stream routed a move: a sink added later is routed too
    for event in (move, finished, EventFinished(())):
        stream.emit(Committed(event), EventState())
    assert finishes.events == [finished, EventFinished(())]
    assert everything.events == [move, finished, EventFinished(())]
