#!/usr/bin/env python3
"""broken: a UCI engine that misbehaves on purpose, one way per ``--mode``.

Why it exists: every fault the game runner must survive needs a real process
that commits it, so the tests exercise the same code paths a crashing or
hanging engine would in a 100-hour event. Until it misbehaves the engine plays
legal depth-1 moves with abengine's search (deterministic).

Modes (``--after N``: misbehave on the N-th ``go`` of the game, default 3;
``--ready-file PATH``: create ``PATH.<pid>`` when answering the first ``isready``, so
that a test can wait for the engine to be ready instead of sleeping; one file per
process, as an event starts each engine once for its check and again for its games):

- ``crash``     exit(3) instead of answering ``go``
- ``hang``      never send ``bestmove`` (ignores ``stop``); with ``--spawn-child`` it
                first starts a sleeping child process in its process group, to check
                that the runner kills the whole group
- ``illegal``   answer with a well-formed but illegal move (e.g. ``e2e5``)
- ``null``      answer ``bestmove 0000`` (UCI's null move: never legal in a game)
- ``garbage``   print garbage lines and a malformed ``bestmove`` token
- ``slowstart`` sleep ``--delay-ms`` before answering ``uci`` (startup timeout)
- ``slowready`` sleep ``--delay-ms`` before each ``readyok`` after the first (a new
                game's ``ucinewgame``/``isready`` round trip)
- ``nouciok``   exit without ever answering ``uci`` (fails to start)
- ``slow``      sleep ``--delay-ms`` before answering ``go`` (loses on time)
- ``flood``     print ``--lines`` junk and ``info`` lines before every move, then play on
- ``flood-line`` write one line without end (``--bytes`` of it, 0: for ever; then its
                newline and the move), to check that a reader caps a line
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent))
import absearch


def illegal_move(board: chess.Board) -> str:
    """A syntactically valid UCI move that is illegal here (own piece, impossible target)."""
    legal = set(board.legal_moves)
    for frm in chess.SquareSet(board.occupied_co[board.turn]):
        for to in range(64):
            move = chess.Move(frm, to)
            if frm != to and move not in legal and board.piece_at(to) is None:
                return move.uci()
    return "a1a1"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", required=True,
                    choices=["crash", "hang", "illegal", "null", "garbage", "slowstart", "nouciok",
                             "slow", "flood", "flood-line", "slowready"])
    ap.add_argument("--after", type=int, default=3, help="misbehave on this go of the game")
    ap.add_argument("--delay-ms", type=int, default=30_000)
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--spawn-child", action="store_true")
    ap.add_argument("--bytes", type=int, default=0, help="flood-line: its length (0: endless)")
    ap.add_argument("--ready-file", type=Path, help="PATH.<pid> is created at the first readyok")
    args = ap.parse_args()
    search = absearch.Search(1, 0, 0)
    board = chess.Board()
    gos = 0
    readies = 0

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    for raw in sys.stdin:
        tokens = raw.split()
        if not tokens:
            continue
        cmd = tokens[0]
        if cmd == "uci":
            if args.mode == "nouciok":
                say("I am not a chess engine")
                sys.exit(1)
            if args.mode == "slowstart":
                time.sleep(args.delay_ms / 1000)
            say(f"id name broken-{args.mode}")
            say("option name Hash type spin default 1 min 1 max 65536")
            say("option name Threads type spin default 1 min 1 max 1")
            say("uciok")
        elif cmd == "isready":
            readies += 1
            if args.mode == "slowready" and readies > 1:  # every isready after start-up
                time.sleep(args.delay_ms / 1000)
            say("readyok")
            if args.ready_file is not None:
                args.ready_file.with_name(f"{args.ready_file.name}.{os.getpid()}").touch()
        elif cmd == "ucinewgame":
            board, gos = chess.Board(), 0
        elif cmd == "position":
            board = absearch.parse_position(tokens[1:])
        elif cmd == "go":
            gos += 1
            due = gos == args.after
            if due and args.mode == "crash":
                os._exit(3)
            if due and args.mode == "hang":
                if args.spawn_child:
                    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
                    say("info string spawned a child")
                while True:  # never answers, ignores stop
                    time.sleep(3600)
            if due and args.mode == "illegal":
                say(f"bestmove {illegal_move(board)}")
                continue
            if due and args.mode == "null":
                say("bestmove 0000")
                continue
            if due and args.mode == "garbage":
                say("\x00\x7f@@@ this is not UCI @@@")
                say("info depth banana score cp")
                say("bestmove !!garbage!!")
                continue
            if due and args.mode == "flood-line":
                chunk, written = b"x" * 65536, 0
                while not args.bytes or written < args.bytes:
                    sys.stdout.buffer.write(chunk)
                    written += len(chunk)
                sys.stdout.buffer.write(b"\n")
                sys.stdout.flush()
            if due and args.mode == "slow":
                time.sleep(args.delay_ms / 1000)
            if args.mode == "flood":
                junk = "flood " * 20
                sys.stdout.write("".join(
                    f"{junk}{i}\n" if i % 2 else f"info nodes {i} string {junk}\n"
                    for i in range(args.lines)))
            lines: list[str] = []
            move = search.go(board, 1, lines)
            say("\n".join(lines))
            say(f"bestmove {move.uci()}")
        elif cmd == "quit":
            return


if __name__ == "__main__":
    main()
