"""The floor under ``bench/match.py``'s CPU per move: the same games, the same engine
output, taken in by a Python driver that does nothing else.

:func:`replay` starts the engines as tcecd does (the same program and options,
the same event loop, tcecd's pipes and stdout reader: ``tcecd.runner.pipes``) and
plays tcecd's games again: for every engine move of the records, ``position`` +
``go`` in one write to the mover's engine and a wait for its ``bestmove``; then
the record's move is appended. Nothing is parsed (tcecd's reader splits the
lines, and a line is looked at only to find ``bestmove``, ``uciok`` or
``readyok``), no rule is applied, nothing is recorded or written. Its CPU per
move is what reading the engines' lines and waking them costs on this host, with
Python and this event loop: what is left of tcecd's figure above it is tcecd's
own work (the laws, the clock, the PV's SAN, the records, the PGN).

With fixed nodes and one thread, a search is a function of the position, the
history sent and the hash (cleared by ``ucinewgame`` before each game, as tcecd
does): the engines repeat tcecd's searches, and the number of ``bestmove`` answers
that equal tcecd's moves, printed beside the figure, shows it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import chess.engine

from tcecd.domain import Color
from tcecd.game.record import GameRecord
from tcecd.runner.pipes import StdoutProtocol, popen_engine


class _Reads(StdoutProtocol):
    """tcecd's stdout reader, counting its reads."""

    reads = 0

    def data_received(self, data: bytes) -> None:
        self.reads += 1
        super().data_received(data)


class _Engine(chess.engine.UciProtocol):
    """One engine, started as tcecd starts one (its pipes, its stdout reader):
    wakes the waiter on the first line that starts with the awaited word, and
    does nothing else with the lines."""

    def __init__(self) -> None:
        super().__init__()
        self.word = ""
        self.waiter: asyncio.Future[str] | None = None

    def _line_received(self, line: str) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done() and line.startswith(self.word):
            waiter.set_result(line)

    async def ask(self, text: str, word: str) -> str:
        """Send ``text`` (lines, the last without its line end) in one write; the
        line that starts with ``word``."""
        self.word = word
        self.waiter = asyncio.get_running_loop().create_future()
        self.send_line(text)
        return await self.waiter


@dataclass(frozen=True)
class Floor:
    """What :func:`replay` measured."""

    cpu_s: float
    moves: int
    reads: int
    agreed: int  # bestmoves equal to the records' moves


async def replay(
    program: str, options: dict[str, int], records: Sequence[GameRecord], nodes: int
) -> Floor:
    """Replay ``records`` (games whose engines are named by their ``White`` and
    ``Black`` tags, one process each, kept alive between games) at ``nodes`` a
    move with engines run as ``program`` with UCI ``options``; the CPU time
    counted from before the engines start to after they have exited."""
    names = sorted({name for record in records for name in (record.white, record.black)})
    setup = "".join(f"setoption name {k} value {v}\n" for k, v in options.items())
    cpu = time.process_time()
    engines: dict[str, _Engine] = {}
    readers: list[_Reads] = []
    for name in names:
        transport, engine = await popen_engine(_Engine, [program], start_new_session=True)
        # uvloop's pipe transports are asyncio's without subclassing them.
        stdout = cast(asyncio.ReadTransport, transport.get_pipe_transport(1))
        reader = stdout.get_protocol()
        assert isinstance(reader, StdoutProtocol)
        readers.append(_Reads(reader.on_end, engine, None))
        stdout.set_protocol(readers[-1])
        await engine.ask("uci", "uciok")
        await engine.ask(setup + "isready", "readyok")
        engines[name] = engine
    moves = agreed = 0
    for record in records:
        for engine in engines.values():
            await engine.ask("ucinewgame\nisready", "readyok")
        root = "startpos" if record.opening.fen is None else f"fen {record.opening.fen}"
        played: list[str] = []
        for move in record.moves:
            if not move.book:
                engine = engines[record.white if move.color is Color.WHITE else record.black]
                position = f"position {root}" + (" moves " + " ".join(played) if played else "")
                answer = await engine.ask(f"{position}\ngo nodes {nodes}", "bestmove")
                agreed += answer.split()[1] == move.uci
                moves += 1
            played.append(move.uci)
    reads = sum(reader.reads for reader in readers)
    for engine in engines.values():
        engine.send_line("quit")
        await engine.returncode
        assert engine.transport is not None
        engine.transport.close()
    return Floor(time.process_time() - cpu, moves, reads, agreed)
