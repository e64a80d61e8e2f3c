#!/usr/bin/env python3
"""abengine: a small, deterministic alpha-beta UCI chess engine for demos and tests.

Why it exists: tcecd's tests and demo need real engine processes that start in
a blink, play legal chess at a few distinct strengths, and play *the same game
every time* from the same opening, so a test can assert on a whole game. Only
python-chess is needed (it runs under the project's virtualenv interpreter).

Search: iterative deepening negamax with alpha-beta, a capture-only quiescence
search (bounded in depth), MVV-LVA move ordering plus the previous iteration's
best move first. Evaluation: material plus piece-square tables, and an optional
deterministic "noise" term (a hash of the position and ``--seed``) that makes
weaker personalities without any randomness tied to time.

Nothing in the search depends on the wall clock: ``go wtime/btime/movetime``
all search to the configured depth (only ``go depth N`` and ``go nodes N``
change the amount of work), so the same input always gives the same move. One
safety valve: when the engine's own clock is under 100 ms it searches depth 1.

Usage: ``abengine.py [--depth N] [--noise CP] [--seed S] [--name NAME] [--pace-ms MS]``.
``--pace-ms`` (UCI option ``Pace``): answer each ``go`` no sooner than MS
milliseconds after it arrived, by sleeping after the search (the move is the
same): a steady, realistic pace of moves for benchmarks (bench/web.py), and
games that last without loading the machine for tests that act while a game
is running (kill a daemon, a worker, a scheduler). ``--delay-ms`` is another
name for ``--pace-ms``.
UCI options ``Depth``, ``Noise``, ``Seed`` and ``Pace`` override the command line;
``Hash`` and ``Threads`` are accepted and ignored (so configs written for real
engines work unchanged), as is the combo ``Style`` (so that option checks have
a combo to check). The string option ``Log File`` makes the engine append every
line it receives to that file (tests read what tcecd sent, e.g. each ``go``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import chess


def _search_module() -> ModuleType:
    """engines/absearch.py, imported on the first ``position``, ``ucinewgame`` or
    ``go`` (it imports python-chess): an engine tcecd only checks (``uci``,
    options, ``isready``, ``quit``) never needs it."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import absearch

    return absearch


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--noise", type=int, default=0, help="eval noise amplitude, centipawns")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default=None)
    ap.add_argument(
        "--pace-ms", "--delay-ms", dest="pace_ms", type=int, default=0,
        help="answer go no sooner than this (ms)",
    )
    args = ap.parse_args()
    pace_ms = args.pace_ms
    depth_setting, noise, seed = args.depth, args.noise, args.seed
    name = args.name or f"abengine d{args.depth}"
    core: ModuleType | None = None
    search: Any = None  # absearch.Search, made on the first go
    board: chess.Board | None = None  # None: the start position

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    log = None
    for raw in sys.stdin:
        if log is not None:
            log.write(raw)
            log.flush()
        tokens = raw.split()
        if not tokens:
            continue
        cmd = tokens[0]
        if cmd == "uci":
            say(f"id name {name}")
            say("id author tcecd")
            say(f"option name Depth type spin default {args.depth} min 1 max 8")
            say(f"option name Noise type spin default {args.noise} min 0 max 1000")
            say(f"option name Seed type spin default {args.seed} min 0 max 1000000")
            say(f"option name Pace type spin default {args.pace_ms} min 0 max 60000")
            say("option name Hash type spin default 1 min 1 max 65536")
            say("option name Threads type spin default 1 min 1 max 1")
            say("option name Style type combo default Normal var Solid var Normal var Risky")
            say("option name Log File type string default <empty>")
            say("uciok")
        elif cmd == "isready":
            say("readyok")
        elif cmd == "setoption" and "name" in tokens and "value" in tokens:
            opt = " ".join(tokens[tokens.index("name") + 1:tokens.index("value")]).lower()
            value = " ".join(tokens[tokens.index("value") + 1:])
            if opt == "depth":
                depth_setting = max(1, int(value))
            elif opt == "noise":
                noise = max(0, int(value))
            elif opt == "seed":
                seed = int(value)
            elif opt == "pace":
                pace_ms = max(0, int(value))
            elif opt == "log file" and value not in ("", "<empty>"):
                log = open(value, "a", encoding="utf-8")  # noqa: SIM115 - open until exit
            if search is not None:
                search.depth, search.noise, search.seed = depth_setting, noise, seed
        elif cmd == "ucinewgame":
            board = None
        elif cmd == "position":
            core = core or _search_module()
            board = core.parse_position(tokens[1:])
        elif cmd == "go":
            arrived = time.monotonic()
            core = core or _search_module()
            if board is None:
                board = core.chess.Board()
            if search is None:
                search = core.Search(depth_setting, noise, seed)
            opts = dict(zip(tokens[1::2], tokens[2::2], strict=False))
            depth = search.depth
            if "depth" in opts:
                depth = max(1, int(opts["depth"]))
            search.node_limit = int(opts["nodes"]) if "nodes" in opts else None
            own = opts.get("wtime" if board.turn else "btime")  # turn: True for White
            if own is not None and int(own) < 100:
                depth = 1
            if not any(board.legal_moves):
                say("bestmove (none)")
                continue
            lines: list[str] = []
            move = search.go(board, depth, lines)
            rest = pace_ms / 1000 - (time.monotonic() - arrived)
            if rest > 0:
                time.sleep(rest)
            say("\n".join(lines))
            say(f"bestmove {move.uci()}")
        elif cmd == "quit":
            return


if __name__ == "__main__":
    main()
