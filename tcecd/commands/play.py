"""``tcecd play``: a quick match from the command line, as with cutechess-cli or fastchess.

    tcecd play ENGINE ENGINE [...] [--games N] [--tc 40/7200|60+0.6] [--nodes N]
               [--depth D] [--movetime MS] [--openings FILE] [--plies N]
               [--book BIN] [--book-depth N] [--concurrency M]
               [--option NAME=VALUE ...] --pgn FILE

ENGINE is a definition name from ``engines/`` (``stockfish``, ``ab-d2``), a path
to a definition YAML, or a path to an engine binary (run as UCI). With more
than two engines every pair plays ``--games`` games. Progress is printed as
games finish; the summary gives the score, the Elo difference with its 95%
error bar and the terminations.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
from pathlib import Path

from tcecd.config.engines import MANAGED_OPTIONS, OptionValue
from tcecd.errors import ConfigError
from tcecd.game.record import Opening

HELP = "play a quick match between engines (cutechess-cli style)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The match options (cutechess-cli / fastchess names where they exist)."""
    parser.add_argument(
        "engines", nargs="+", metavar="ENGINE", help="engine definition name, YAML or binary"
    )
    parser.add_argument("--games", type=int, default=2, help="games per pair (default 2)")
    parser.add_argument("--tc", help="time control, e.g. 40/7200, 60+0.6, 40/7200:3600+30")
    parser.add_argument("--nodes", type=int, help="node limit per move")
    parser.add_argument("--depth", type=int, help="depth limit per move")
    parser.add_argument("--movetime", type=int, metavar="MS", help="fixed time per move (ms)")
    parser.add_argument(
        "--openings", type=Path, metavar="FILE", help="EPD or PGN openings (or a Polyglot .bin)"
    )
    parser.add_argument("--plies", type=int, help="book plies to take from PGN openings")
    parser.add_argument(
        "--book",
        type=Path,
        metavar="BIN",
        help="Polyglot book followed from the start position or the --openings position",
    )
    parser.add_argument(
        "--book-depth", type=int, metavar="N", help="at most N Polyglot book plies (default: all)"
    )
    parser.add_argument("--concurrency", type=int, default=1, help="games at a time (default 1)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="engine option for every engine that has it (repeatable)",
    )
    parser.add_argument("--pgn", type=Path, required=True, metavar="FILE", help="PGN output")
    parser.add_argument(
        "--margin-ms", type=int, default=200, help="time margin before a flag falls (default 200)"
    )
    parser.add_argument(
        "--fault-policy",
        choices=["lose", "replay"],
        default="lose",
        help="an engine fault loses the game (default) or the game is replayed",
    )
    parser.add_argument(
        "--stall-timeout-ms",
        type=int,
        default=60_000,
        help="per-move wait without a clock (nodes/depth) before an engine counts as stalled",
    )
    parser.add_argument("--event", default="tcecd play", help="PGN Event tag")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")


def parse_option(text: str) -> tuple[str, OptionValue]:
    """``NAME=VALUE`` with VALUE as int, true/false, or text."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ConfigError(f"--option: expected NAME=VALUE, got {text!r}")
    value = value.strip()
    if name.strip().lower() in (m.lower() for m in MANAGED_OPTIONS):
        # python-chess would refuse every engine that declares it: no game could start.
        raise ConfigError(
            f"--option: {name.strip()!r} is set by tcecd's engine layer (python-chess) for "
            "every search and cannot be configured; remove it"
        )
    parsed: OptionValue = value
    if value.lower() in ("true", "false"):
        parsed = value.lower() == "true"
    else:
        try:
            parsed = int(value)
        except ValueError:
            parsed = value
    return name.strip(), parsed


def _openings(args: argparse.Namespace) -> tuple[Opening, ...]:
    """The match's openings: --openings, extended by the --book line if given
    (cutechess's -book/-bookdepth); each pair of games shares one."""
    from tcecd.game.openings import OpeningSet, load_openings
    from tcecd.game.polyglot import read_book

    book = read_book(args.book, depth=args.book_depth) if args.book else None
    if args.openings:
        return load_openings(args.openings, plies=args.plies, book=book)
    if book is not None:
        return OpeningSet((Opening(name=None, fen=None),), book)
    return ()


def run(args: argparse.Namespace) -> int:
    """Load the engines and openings, play the match, print the summary."""
    from tcecd.config.load import load_engine
    from tcecd.game.timecontrol import TimeControl
    from tcecd.runner.match import MatchSpec, run_match, unique_names

    if len(args.engines) < 2:
        raise ConfigError(f"tcecd play: need at least two engines, got {args.engines!r}")
    for name in ("games", "concurrency", "nodes", "depth", "movetime", "plies", "book_depth"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ConfigError(f"--{name.replace('_', '-')}: must be at least 1, got {value!r}")
    if args.margin_ms < 0:
        raise ConfigError(f"--margin-ms: must be >= 0, got {args.margin_ms!r}")
    try:
        tc = TimeControl.parse(args.tc) if args.tc else TimeControl()
        tc = dataclasses.replace(
            tc,
            nodes=args.nodes or tc.nodes,
            depth=args.depth or tc.depth,
            movetime_ms=args.movetime or tc.movetime_ms,
        )
    except ValueError as exc:
        raise ConfigError(f"--tc: {exc}") from None
    if not (tc.stages or tc.movetime_ms or tc.nodes or tc.depth):
        raise ConfigError("tcecd play: give a limit: --tc, --nodes, --depth or --movetime")
    try:
        args.pgn.parent.mkdir(parents=True, exist_ok=True)
        args.pgn.write_text("", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--pgn: cannot write {str(args.pgn)!r}: {exc.strerror}") from None
    engines = unique_names([load_engine(ref) for ref in args.engines])
    openings = _openings(args)
    options = dict(parse_option(text) for text in args.option)
    spec = MatchSpec(
        engines=engines,
        games=args.games,
        time_control=tc,
        pgn_path=args.pgn,
        openings=openings,
        concurrency=args.concurrency,
        margin_ms=args.margin_ms,
        soft_options=options,
        fault_policy=args.fault_policy,
        stall_timeout_ms=args.stall_timeout_ms,
        event=args.event,
    )
    # python-chess warns about every line it does not understand (some engines
    # print a lot of chatter); a quick match only wants real errors on stderr.
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    names = " vs ".join(e.name for e in engines)
    print(f"Match: {names}, {args.games} games per pair, tc {tc.describe()}", flush=True)
    progress = None if args.quiet else (lambda line: print(line, flush=True))
    result = asyncio.run(run_match(spec, progress=progress))
    print(result.summary())
    print(f"PGN: {args.pgn}")
    return 0
