"""The event loop tcecd's commands run on (tcecd/eventloop.py): uvloop unless
``TCECD_EVENT_LOOP=asyncio``, and the same games on both.

The in-process tests elsewhere run on pytest-asyncio's loop (asyncio's); the
commands run in subprocesses by the other tests run on uvloop. Here a real game of
the bundled engine is played through :func:`tcecd.eventloop.run` on each loop: the
engine's stdout is read by tcecd's own protocol on both (one loop turn a line, not
two), every engine process is gone afterwards, and the two games are the same move
for move, search report included (the engine is deterministic).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import stat
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import chess.engine
import pytest

from tcecd import eventloop
from tcecd.config.engines import EngineConfig
from tcecd.domain import GameId
from tcecd.errors import ConfigError
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.record import MoveRecord, Opening
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.runner.game import GameSetup, play_game
from tcecd.runner.pipes import StdoutProtocol, popen_engine
from tcecd.runner.session import EngineSession
from tests.fixtures.engines import assert_group_gone
from tests.fixtures.requirements import require_program

ROOT = Path(__file__).resolve().parents[2]

ConfigFactory = Callable[..., EngineConfig]


def test_uvloop_unless_asyncio_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvloop

    monkeypatch.delenv(eventloop.ENV, raising=False)
    assert eventloop.name() == f"uvloop {uvloop.__version__}"
    assert eventloop.run(_loop_class()) == "uvloop.Loop"
    monkeypatch.setenv(eventloop.ENV, "asyncio")
    assert eventloop.name() == "asyncio"
    assert eventloop.run(_loop_class()) == "asyncio.unix_events._UnixSelectorEventLoop"
    monkeypatch.setenv(eventloop.ENV, " UVLOOP ")
    assert eventloop.name().startswith("uvloop ")


async def _loop_class() -> str:
    kind = type(asyncio.get_running_loop())
    return f"{kind.__module__}.{kind.__qualname__}"


def test_an_unknown_loop_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(eventloop.ENV, "trio")
    expected = r"^TCECD_EVENT_LOOP='trio': expected 'uvloop' or 'asyncio'$"
    with pytest.raises(ConfigError, match=expected):
        eventloop.run(_loop_class())


def test_the_cli_says_so_with_exit_2() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tcecd", "play", "ab-d1", "ab-d1", "--games", "2", "--depth", "1"],
        env={"TCECD_EVENT_LOOP": "tokio", "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "tcecd: error: TCECD_EVENT_LOOP='tokio': expected 'uvloop' or 'asyncio'"
    ]


def _is_pipe(pid: int, fd: int) -> bool:
    return stat.S_ISFIFO(os.stat(f"/proc/{pid}/fd/{fd}").st_mode)


async def _game(
    white: EngineConfig, black: EngineConfig
) -> tuple[tuple[MoveRecord, ...], list[str], list[int]]:
    """A 30-move game, the protocol classes on the engines' stdout pipes, their
    pids. The engines' stdin and stdout are pipes, not the Unix socket pairs
    uvloop makes (tcecd.runner.pipes.popen_engine: cheaper a line)."""
    setup = GameSetup(
        game_id=GameId(1, 1),
        event="loops",
        site="tests",
        opening=Opening(name="Italian", fen=None, moves=("e2e4", "e7e5", "g1f3", "b8c6", "f1c4")),
        rules=GameRules(
            time_control=TimeControl.parse("60+1"),
            adjudication=AdjudicationRules(max_moves=30),
        ),
    )
    async with asyncio.timeout(120):
        async with EngineSession(white) as w, EngineSession(black) as b:
            readers = []
            for session in (w, b):
                transport = session._transport
                assert transport is not None
                pipe = transport.get_pipe_transport(1)
                assert pipe is not None
                readers.append(type(pipe.get_protocol()).__name__)
                assert session.pid is not None
                assert _is_pipe(session.pid, 0)
                assert _is_pipe(session.pid, 1)
            outcome = await play_game(setup, w, b)
            pids = [p for p in (w.pid, b.pid) if p is not None]
    return outcome.record.moves, readers, pids


def test_the_same_game_on_either_loop(
    engine_config: ConfigFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = {}
    for loop in ("uvloop", "asyncio"):
        monkeypatch.setenv(eventloop.ENV, loop)
        moves, readers, pids = eventloop.run(
            _game(engine_config("ab-d2"), engine_config("ab-d2-wild"))
        )
        assert readers == [StdoutProtocol.__name__] * 2, loop  # tcecd reads the lines
        assert len(pids) == 2
        for pid in pids:
            assert_group_gone(pid)
        assert len(moves) == 60, loop  # 30 moves: the maximum length
        # Wall-clock fields aside, what the record says of every move.
        games[loop] = [(m.uci, m.san, m.fen_after, m.depth, m.nodes, m.score, m.pv_san)
                       for m in moves]  # fmt: skip
    assert games["uvloop"] == games["asyncio"]


class _Recorder(chess.engine.UciProtocol):
    """The lines an engine wrote, and how many had come when its end was told."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.lines_at_end = -1
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def _line_received(self, line: str) -> None:
        self.lines.append(line)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lines_at_end = len(self.lines)
        super().connection_lost(exc)
        self.ended.set_result(None)


async def _last_words(count: int) -> tuple[int, list[str], int]:
    # More than a pipe holds: the process exits while its last lines are in flight.
    script = f"import sys; sys.stdout.write(''.join(f'line {{i}}\\n' for i in range({count})))"
    transport, protocol = await popen_engine(_Recorder, [sys.executable, "-c", script])
    try:
        await asyncio.wait_for(protocol.ended, 60)
    finally:
        transport.close()
    return protocol.lines_at_end, protocol.lines[-1:], protocol.returncode.result()


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_an_engine_s_last_lines_come_before_its_end(
    loop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tcecd reads an engine's stdout on a pipe of its own (not the loop's): the
    engine's end (python-chess's ``connection_lost``: a crash, an exit) is told
    only after every line it wrote, as when the loop owned the pipe."""
    monkeypatch.setenv(eventloop.ENV, loop)
    assert eventloop.run(_last_words(50_000)) == (50_000, ["line 49999"], 0)


def test_the_end_waits_for_the_end_of_stdout() -> None:
    """However the loop orders them, the engine hears of the process's end once,
    after its stdout has ended (the join in ``tcecd.runner.pipes._Process``)."""
    from tcecd.runner.pipes import _Process

    class Engine:
        def __init__(self) -> None:
            self.events: list[object] = []

        def connection_lost(self, exc: Exception | None) -> None:
            self.events.append(("lost", exc))

        def process_exited(self) -> None:
            self.events.append("exited")

    for exit_first in (True, False):
        engine = Engine()
        process = _Process(engine)  # type: ignore[arg-type]
        if not exit_first:
            process.stdout_closed()
        process.process_exited()
        process.connection_lost(None)
        if exit_first:
            assert engine.events == ["exited"]  # not yet: stdout is still open
            process.stdout_closed()
        assert engine.events == ["exited", ("lost", None)]
        process.stdout_closed()
        assert engine.events == ["exited", ("lost", None)]  # once


def _open_pipes() -> set[str]:
    """This process's open pipe ends (the descriptors' targets, e.g. ``pipe:[123]``)."""
    targets = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(FileNotFoundError):  # the listing's own descriptor
            targets.add(os.readlink(f"/proc/self/fd/{fd}"))
    return {target for target in targets if target.startswith("pipe:")}


async def _start_cancelled_at_its_pipes() -> tuple[bool, int, int | None, set[str], set[str]]:
    """Start a long-lived process with popen_engine, the start cancelled while its
    stdout pipe is being connected (after the spawn: the window in which no one
    else owns the process). (cancelled, pid, its exit code, the open pipe ends
    before and after)."""
    loop = asyncio.get_running_loop()
    spawned: list[asyncio.SubprocessTransport] = []
    real_exec, real_connect = loop.subprocess_exec, loop.connect_read_pipe

    async def subprocess_exec(*args: object, **kwargs: object) -> object:
        transport, protocol = await real_exec(*args, **kwargs)  # type: ignore[arg-type]
        spawned.append(transport)
        return transport, protocol

    async def connect_read_pipe(*args: object) -> object:
        if not spawned:  # asyncio's subprocess_exec connects the stderr pipe itself
            return await real_connect(*args)  # type: ignore[arg-type]
        raise asyncio.CancelledError  # popen_engine's stdout: as a cancel arriving here

    pipes_before = _open_pipes()
    loop.subprocess_exec = subprocess_exec  # type: ignore[method-assign,assignment]
    loop.connect_read_pipe = connect_read_pipe  # type: ignore[method-assign,assignment]
    cancelled = False
    # A pipe end left to the garbage collector is closed by it too, with a warning.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        try:
            await popen_engine(_Recorder, [sys.executable, "-c", "import time; time.sleep(60)"])
        except asyncio.CancelledError:
            cancelled = True
        finally:
            del loop.subprocess_exec, loop.connect_read_pipe  # the class's methods again
        gc.collect()
    unclosed = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert not unclosed, unclosed
    (process,) = spawned
    for _ in range(500):  # the loop's child watcher reaps it
        if process.get_returncode() is not None:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0)  # the transports' closing callbacks
    return (
        cancelled,
        process.get_pid(),
        process.get_returncode(),
        pipes_before,
        _open_pipes(),
    )


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_start_cancelled_before_its_pipes_are_connected_leaves_nothing(
    loop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cancellation between the engine's spawn and its pipes' connects (two awaits
    in popen_engine, where nothing owns the new process yet) kills the process, and
    it is reaped; no pipe end is left open."""
    monkeypatch.setenv(eventloop.ENV, loop)
    cancelled, pid, returncode, pipes_before, pipes_after = eventloop.run(
        _start_cancelled_at_its_pipes()
    )
    assert cancelled
    assert returncode == -9  # killed (SIGKILL), not left to sleep its minute
    assert not os.path.exists(f"/proc/{pid}")  # and reaped: no zombie left
    assert pipes_after <= pipes_before  # the four ends of its stdin and stdout closed


_CLOSE_TWICE = """
import asyncio, os, sys
import chess.engine
from tcecd import eventloop
from tcecd.runner.pipes import popen_engine

async def one():
    transport, _ = await popen_engine(
        chess.engine.UciProtocol, [sys.executable, "-c", "import sys; sys.stdin.read()"])
    transport.close()
    for _ in range(20):
        await asyncio.sleep(0.01)

async def main():
    await one()  # (the loop's own descriptors for children, made once)
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        await one()
    print(len(os.listdir("/proc/self/fd")) - before)

eventloop.run(main())
"""


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_an_engine_s_pipe_ends_are_closed_once(loop: str, tmp_path: Path) -> None:
    """Each pipe end of an engine is closed exactly once: uvloop's transports close
    the descriptor through libuv and then the file they were given, and a second
    close(2) of the number closes whatever another thread opened meanwhile (the
    output writer's temp file failed with "Bad file descriptor" in a 992-game event).
    strace lists this process' close calls: none may fail with EBADF, none is left
    open."""
    strace = require_program("strace", "bash deploy/install.sh --dev")
    trace = tmp_path / "close.txt"
    proc = subprocess.run(
        [strace, "-e", "trace=close", "-o", str(trace), sys.executable, "-c", _CLOSE_TWICE],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, eventloop.ENV: loop, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["0"]  # no descriptor left open
    twice = [line for line in trace.read_text().splitlines() if "EBADF" in line]
    assert twice == []
