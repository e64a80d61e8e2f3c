"""``tcecd play``: a quick match from the command line, as with cutechess-cli or fastchess.

    tcecd play ENGINE [tc=TC|nodes=N|depth=D|movetime=MS ...] ENGINE [...]
               [--games N] [--tc 40/7200|60+0.6] [--nodes N] [--depth D]
               [--movetime MS] [--openings FILE] [--plies N]
               [--book BIN] [--book-depth N] [--concurrency M]
               [--option NAME=VALUE ...] --pgn FILE

ENGINE is a definition name from ``engines/`` (``stockfish``, ``ab-d2``), a path
to a definition YAML, or a path to an engine binary (run as UCI). Words
``tc=TC``, ``nodes=N``, ``depth=D`` and ``movetime=MS`` right after an ENGINE give
that engine its own limits instead of the match's (``tcecd play stockfish
nodes=20000 ab-d2 tc=10+0.1 --tc 60+0.6``). With more
than two engines every pair plays ``--games`` games. Every engine is started
once before the match: an option it does not have (or a bad value) is one line
per engine and exit 2. Progress is printed as
games finish; the summary gives the score, the Elo difference with its 95%
error bar and the terminations.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
from pathlib import Path

from tcecd.config.engines import EngineConfig, OptionValue
from tcecd.errors import ConfigError
from tcecd.game.record import Opening

HELP = "play a quick match between engines (cutechess-cli style)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The match options (cutechess-cli / fastchess names where they exist)."""
    parser.add_argument(
        "engines",
        nargs="+",
        metavar="ENGINE",
        help="engine definition name, YAML or binary, each optionally followed by its own "
        "limits: tc=TC nodes=N depth=D movetime=MS",
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
    parsed: OptionValue = value
    if value.lower() in ("true", "false"):
        parsed = value.lower() == "true"
    else:
        try:
            parsed = int(value)
        except ValueError:
            parsed = value
    return name.strip(), parsed


#: Per-engine words after an ENGINE and the EngineConfig field each sets.
ENGINE_LIMITS = {"tc": "tc", "nodes": "nodes", "depth": "depth", "movetime": "movetime_ms"}


def engine_words(words: list[str]) -> list[tuple[str, dict[str, str]]]:
    """Split the positional words into (ENGINE, its own limits): a ``KEY=VALUE``
    word (no ``/`` in KEY, so a path is never taken for one) belongs to the
    ENGINE before it."""
    specs: list[tuple[str, dict[str, str]]] = []
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or "/" in key:
            specs.append((word, {}))
            continue
        if key not in ENGINE_LIMITS:
            expected = ", ".join(f"{k}=" for k in ENGINE_LIMITS)
            raise ConfigError(f"{word!r}: unknown engine setting {key!r} (expected {expected})")
        if not specs:
            raise ConfigError(f"{word!r}: an engine setting must follow its ENGINE")
        specs[-1][1][key] = value
    return specs


def _with_limits(ref: str, words: dict[str, str]) -> EngineConfig:
    """The engine ``ref`` with its own limits from ``words`` (strings as typed)."""
    from tcecd.config.engines import time_control_of
    from tcecd.config.load import load_engine

    engine = load_engine(ref)
    if not words:
        return engine
    numbers: dict[str, int] = {}
    for key, text in words.items():
        if key == "tc":
            continue
        number = int(text) if text.isdigit() else 0
        if number < 1:
            raise ConfigError(f"{ref} {key}={text}: expected a whole number of at least 1")
        numbers[ENGINE_LIMITS[key]] = number
    limits: dict[str, object] = {
        "tc": words.get("tc"),
        "nodes": numbers.get("nodes"),
        "depth": numbers.get("depth"),
        "movetime_ms": numbers.get("movetime_ms"),
    }
    try:
        time_control_of(
            words.get("tc"), numbers.get("nodes"), numbers.get("depth"), numbers.get("movetime_ms")
        )
    except ValueError as exc:
        typed = " ".join(f"{k}={v}" for k, v in words.items())
        raise ConfigError(f"{ref} {typed}: {exc}") from None
    return engine.model_copy(update=limits)


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
    from tcecd.game.timecontrol import TimeControl
    from tcecd.runner.check import EngineCheckError, check_engines, failures
    from tcecd.runner.match import MatchSpec, run_match, unique_names

    specs = engine_words(args.engines)
    if len(specs) < 2:
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
    engines = unique_names([_with_limits(ref, words) for ref, words in specs])
    has_limit = bool(tc.stages or tc.movetime_ms or tc.nodes or tc.depth)
    if not has_limit and not all(e.has_own_limits for e in engines):
        raise ConfigError("tcecd play: give a limit: --tc, --nodes, --depth or --movetime")
    try:
        args.pgn.parent.mkdir(parents=True, exist_ok=True)
        args.pgn.write_text("", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--pgn: cannot write {str(args.pgn)!r}: {exc.strerror}") from None
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
    # Every engine once, before any game: a bad option is one line per engine.
    reports = asyncio.run(check_engines(engines, soft_options=options))
    problems = failures(reports, soft_options=options)
    if problems:
        raise EngineCheckError(problems)
    names = " vs ".join(e.name for e in engines)
    print(f"Match: {names}, {args.games} games per pair, tc {tc.describe()}", flush=True)
    progress = None if args.quiet else (lambda line: print(line, flush=True))
    result = asyncio.run(run_match(spec, progress=progress))
    print(result.summary())
    print(f"PGN: {args.pgn}")
    return 0
