"""An engine's output line is capped at 1 MiB (tcecd.runner.pipes.MAX_LINE; issue 28).

python-chess keeps the text after a chunk's last newline and searches all of it again
on every read: one endless line grew the daemon's memory without bound, at a CPU cost
growing with the square of its length. ``broken-flood-line`` writes 32 MiB without a
newline on its third move; the reader stops at the limit, the engine is killed and the
fault is ``garbage``. Bounded memory is asserted in bytes (what python-chess ever holds
of a line, what the reader took from the pipe), CPU as process time, never wall time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import chess.engine
import pytest

from tcecd.config.engines import EngineConfig
from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.runner import pipes
from tcecd.runner.game import GameSetup, play_game
from tcecd.runner.pipes import MAX_LINE, LineCap
from tcecd.runner.session import EngineSession, FaultKind

FLOOD = 32 << 20


def test_a_line_may_be_max_line_long_not_one_byte_more() -> None:
    cap = LineCap()
    assert cap.fits(b"x" * MAX_LINE)
    assert cap.fits(b"\nshort\n")
    assert cap.partial == 0
    # Across chunks, the newline in the chunk that ends it.
    cap = LineCap()
    assert cap.fits(b"y" * (MAX_LINE - 10))
    assert cap.fits(b"z" * 10 + b"\nnext")
    assert cap.partial == 4
    assert not LineCap().fits(b"x" * (MAX_LINE + 1))
    cap = LineCap()
    assert cap.fits(b"a" * MAX_LINE)
    assert not cap.fits(b"a\n")
    # A whole long line inside one big chunk, between two short ones.
    assert not LineCap().fits(b"a\n" + b"b" * (MAX_LINE + 1) + b"\nc\n")


def test_stderr_keeps_max_line_of_a_line_and_its_newline() -> None:
    cap = LineCap()
    out = cap.cut(b"e" * (MAX_LINE - 1)) + cap.cut(b"e" * 5 + b"\nnext\n")
    assert out == b"e" * MAX_LINE + b"\nnext\n"
    assert cap.partial == 0


async def test_an_endless_line_is_a_garbage_fault_in_bounded_memory(
    engine_config: Callable[..., EngineConfig], monkeypatch: pytest.MonkeyPatch
) -> None:
    flooder = engine_config("broken-flood-line")
    flooder = flooder.model_copy(update={"command": (*flooder.command, "--bytes", str(FLOOD))})
    held = [0]  # the most python-chess ever held of an unfinished stdout line
    taken = [0]  # bytes the stdout reader took from the pipe after the limit was reached
    feed = chess.engine.Protocol.pipe_data_received

    def watched(self: chess.engine.Protocol, fd: int, data: bytes | str) -> None:
        feed(self, fd, data)
        if fd == 1:
            held[0] = max(held[0], len(self.buffer[1]))

    received = pipes.StdoutProtocol.data_received

    def counted(self: pipes.StdoutProtocol, data: bytes) -> None:
        if self.overflowed:
            taken[0] += len(data)
        received(self, data)

    monkeypatch.setattr(chess.engine.Protocol, "pipe_data_received", watched)
    monkeypatch.setattr(pipes.StdoutProtocol, "data_received", counted)
    setup = GameSetup(game_id=GameId(1, 1), event="cap", site="test",
                      rules=GameRules(time_control=TimeControl.parse("60+1")))  # fmt: skip
    cpu = time.process_time()
    async with asyncio.timeout(120):
        async with EngineSession(engine_config("ab-d1")) as white, EngineSession(flooder) as black:
            outcome = await play_game(setup, white, black)
            pid = black.pid
    cpu = time.process_time() - cpu
    (fault,) = outcome.faults
    assert (fault.engine, fault.color, fault.kind) == (
        "broken-flood-line", Color.BLACK, FaultKind.GARBAGE)
    assert fault.detail == f"an output line longer than {MAX_LINE} bytes"
    record = outcome.record
    assert (record.result, record.termination) == (Result.WHITE_WINS, Termination.ILLEGAL_MOVE)
    assert len(record.moves) == 5  # --after 3: on Black's third move
    # Memory: python-chess never held more than the limit of the line; after the
    # limit the reader took at most what was already in flight (the loop reads 256 KiB
    # at a time), not the 32 MiB the engine had to write.
    assert held[0] <= MAX_LINE
    assert taken[0] <= 1 << 20
    # CPU: the whole game, engines started and stopped, in well under a second of this
    # process's time (reading 32 MiB through python-chess's buffer cost more than that).
    assert cpu < 1.0, cpu
    assert pid is not None


async def test_a_reader_past_the_limit_hands_nothing_on() -> None:
    """Once past the limit (the hook, set by popen_engine, kills the engine) nothing
    more reaches python-chess, not even a newline and a move."""
    reader = pipes.StdoutProtocol(lambda: None, chess.engine.UciProtocol())
    reader.data_received(b"x" * (MAX_LINE + 1))
    assert reader.overflowed
    reader.data_received(b"\nbestmove e2e4\n")  # nothing more reaches python-chess
    assert reader.protocol.buffer[1] == bytearray()
