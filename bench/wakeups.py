#!/usr/bin/env python3
"""What taking in an engine's output costs a Python process on this machine, with
no chess work at all: the floor under ``bench/match.py``'s CPU per move.

Stockfish (Threads=1, Hash=16) plays games against itself at ``nodes=20000`` a move
(the move it chose is appended to the next ``position``; a new game after 150 plies
or when it has no move); the bench reads its lines and sends the next ``go`` as soon as
``bestmove`` arrives, and prints its own CPU time per move. Two ways to read:

- ``loop``: an asyncio read pipe (the event loop wakes for every line the engine
  flushes, as in tcecd);
- ``thread``: a thread blocked in ``os.read`` that wakes the loop only for
  ``bestmove``.

Stockfish flushes 12-16 lines a move at this node count, and each is a
wake-up of this process after the engine ran. Usage: ``.venv/bin/python
bench/wakeups.py [--moves 500] [--mode loop|thread|both]``. Figures only (see
docs/engines.md).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tcecd.config.load import find_executable

#: Plies before a new game starts.
GAME_PLIES = 150


async def run(stockfish: str, moves: int, mode: str) -> tuple[float, float]:
    """(CPU ms per move, lines per move) for ``moves`` searches read the ``mode`` way."""
    loop = asyncio.get_running_loop()
    # Started before the loop reads it (a blocking spawn, as a bench may).
    engine = subprocess.Popen(  # noqa: ASYNC220
        [stockfish], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
    )
    assert engine.stdin is not None
    assert engine.stdout is not None
    fd = engine.stdout.fileno()
    engine.stdin.write(b"uci\nsetoption name Hash value 16\nisready\n")
    seen = b""
    while b"readyok" not in seen:
        seen += os.read(fd, 65536)
    lines = 0
    played: list[str] = []  # the game so far, in UCI
    bestmove: asyncio.Future[None] = loop.create_future()

    def on_lines(chunk: bytes) -> None:
        """Whole lines (a ``bestmove`` line among them ends the search)."""
        nonlocal lines
        lines += chunk.count(b"\n")
        if b"bestmove" in chunk and not bestmove.done():
            played.append(chunk[chunk.index(b"bestmove") :].split()[1].decode())
            bestmove.set_result(None)

    class Reader(asyncio.Protocol):
        held = b""

        def data_received(self, data: bytes) -> None:
            whole, _, self.held = (self.held + data).rpartition(b"\n")
            if whole:
                on_lines(whole + b"\n")

    def read_in_thread() -> None:
        held = b""
        while data := os.read(fd, 65536):
            held += data
            if (b"bestmove" in held and held.endswith(b"\n")) or len(held) > 1 << 16:
                whole, _, held = held.rpartition(b"\n")
                loop.call_soon_threadsafe(on_lines, whole + b"\n")

    cpu = time.process_time()
    if mode == "loop":
        transport, _ = await loop.connect_read_pipe(Reader, engine.stdout)
        # asyncio reads 256 KiB at a time; in a small process glibc serves that with
        # an mmap and a munmap per read, which tcecd's larger heap does not (strace):
        # read 64 KiB, from the heap, as tcecd effectively does.
        transport.max_size = 65536  # type: ignore[attr-defined]
    else:
        threading.Thread(target=read_in_thread, daemon=True).start()
    for _ in range(moves):
        if len(played) >= GAME_PLIES or (played and played[-1] == "(none)"):
            played.clear()
            engine.stdin.write(b"ucinewgame\n")
        bestmove = loop.create_future()
        engine.stdin.write(f"position startpos moves {' '.join(played)}\ngo nodes 20000\n".encode())
        await bestmove
    cpu = time.process_time() - cpu
    engine.kill()
    engine.wait()
    return cpu / moves * 1000, lines / moves


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=500)
    parser.add_argument("--mode", choices=("loop", "thread", "both"), default="both")
    args = parser.parse_args()
    stockfish = find_executable("stockfish")
    if stockfish is None:
        print("bench/wakeups.py: stockfish not found (bash deploy/install.sh)", file=sys.stderr)
        return 2
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average: {load} on {os.cpu_count()} CPUs")
    for mode in ("loop", "thread") if args.mode == "both" else (args.mode,):
        per_move, lines = asyncio.run(run(str(stockfish), args.moves, mode))
        print(f"{mode:6s}: {per_move:.3f} ms of CPU per move ({lines:.1f} lines a move)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
