#!/usr/bin/env python3
"""Record a real engine's transcript for the contract test (tests/runner/test_contract.py).

Plays ``--moves`` moves from ``--fen`` (``--chess960``) with a real engine through
python-chess's own ``play`` and writes what the engine said: its answer to ``uci`` /
``protover 2`` and, for every move, the lines from ``go`` to its move (the engine's
``readyok``/``pong`` answers are left out: the replaying engine makes its own). The
error cases of the contract are edits of such recordings (a move made illegal, a
crash, a search that never ends). Usage::

    .venv/bin/python tests/runner/contract/record.py stockfish uci OUT.json \\
        [--fen FEN] [--chess960] [--moves 4] [--nodes 3000] [--option Hash=16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import chess
import chess.engine


def _recording(base: type[Any]) -> type[Any]:
    class Recording(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.heard: list[str] = []

        def _line_received(self, line: str) -> None:
            self.heard.append(line)
            super()._line_received(line)

    return Recording


async def record(args: argparse.Namespace) -> dict[str, Any]:
    uci = args.protocol == "uci"
    base = chess.engine.UciProtocol if uci else chess.engine.XBoardProtocol
    _transport, engine = await _recording(base).popen([args.engine])
    await engine.initialize()
    handshake = [line for line in engine.heard if not line.startswith(("readyok", "pong"))]
    if args.option:
        await engine.configure(dict(o.split("=", 1) for o in args.option))
    board = chess.Board(args.fen or chess.STARTING_FEN, chess960=args.chess960)
    game = object()
    limit = chess.engine.Limit(nodes=args.nodes) if uci else chess.engine.Limit(depth=args.depth)
    moves = []
    for _ in range(args.moves):
        engine.heard.clear()
        played = await engine.play(board, limit, game=game, info=chess.engine.INFO_ALL)
        lines = [ln for ln in engine.heard if not ln.startswith(("readyok", "pong"))]
        moves.append({"lines": lines})
        assert played.move is not None
        board.push(played.move)
    await engine.quit()
    return {
        "protocol": args.protocol,
        "engine": args.engine,
        "fen": args.fen,
        "chess960": args.chess960,
        "handshake": handshake,
        "moves": moves,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine")
    ap.add_argument("protocol", choices=["uci", "xboard"])
    ap.add_argument("out", type=Path)
    ap.add_argument("--fen")
    ap.add_argument("--chess960", action="store_true")
    ap.add_argument("--moves", type=int, default=4)
    ap.add_argument("--nodes", type=int, default=3000)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--option", action="append", default=[])
    args = ap.parse_args()
    doc = asyncio.run(record(args))
    args.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(doc['moves'])} moves", file=sys.stderr)


if __name__ == "__main__":
    main()
