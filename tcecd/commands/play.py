"""``tcecd play``: matches and tournaments from the command line, as fastchess or cutechess-cli.

    tcecd play ENGINE [tc=TC|nodes=N|depth=D|movetime=MS|option.NAME=VALUE ...] ENGINE [...]
               [--tournament round-robin|gauntlet|knockout]
               [--rounds N] [--games G] [--tc 40/7200|60+0.6] [--nodes N]
               [--depth D] [--movetime MS] [--each KEY=VALUE ...]
               [--openings FILE] [--plies N] [--book BIN] [--book-depth N]
               [--variant standard|chess960] [--srand N]
               [--concurrency M] [--option NAME=VALUE ...]
               [--draw movenumber=N movecount=M score=CP] [--resign movecount=M score=CP]
               [--maxmoves N] [--tb PATH] [--tbpieces N]
               [--sprt elo0=E0 elo1=E1 [alpha=A] [beta=B] [model=normalized|logistic]]
               [--ratinginterval N] [--pgn FILE] [--state DIR] [--mqtt URL]
               [--scheduler ADDRESS]

ENGINE is a definition name from ``engines/`` (``stockfish``, ``ab-d2``), a path
to a definition YAML, or a path to an engine binary (run as UCI). Each pairing
plays ``--rounds`` rounds of ``--games`` games (one opening per round, colours
alternating). Words ``tc=TC``, ``nodes=N``, ``depth=D`` and ``movetime=MS`` right
after an ENGINE give that engine its own limits instead of the match's
(``tcecd play stockfish nodes=20000 ab-d2 tc=10+0.1 --tc 60+0.6``). Every engine
is started once before the match: an option it does not have (or a bad value)
is one line per engine and exit 2. Progress is printed as games finish; the
statistics are fastchess's (see docs/engines.md, "tcecd play").
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from tcecd import eventloop
from tcecd.config.engines import MANAGED_OPTIONS, EngineConfig, OptionValue
from tcecd.errors import ConfigError
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.record import Opening

HELP = "play a match or tournament between engines (fastchess / cutechess-cli style)"

#: ``--tournament`` spellings (cutechess-cli's and fastchess's) -> the schedule.
TOURNAMENTS = {
    "round-robin": "round-robin",
    "roundrobin": "round-robin",
    "gauntlet": "gauntlet",
    "knockout": "knockout",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The match options (fastchess / cutechess-cli names where they exist)."""
    parser.add_argument(
        "engines",
        nargs="+",
        metavar="ENGINE",
        help="engine definition name, YAML or binary, each optionally followed by its own "
        "limits: tc=TC nodes=N depth=D movetime=MS",
    )
    parser.add_argument(
        "--tournament",
        default="round-robin",
        metavar="TYPE",
        help="round-robin (all against all, the default), gauntlet (the first engine "
        "against each other one) or knockout (a cup: --games per encounter, decided as "
        "cutechess-cli decides it)",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="rounds each pairing plays (default 1)"
    )
    parser.add_argument(
        "--games",
        type=int,
        default=2,
        help="games per round of a pairing, one opening, colours alternating (default 2)",
    )
    parser.add_argument("--tc", help="time control, e.g. 40/7200, 60+0.6, 40/7200:3600+30")
    parser.add_argument("--nodes", type=int, help="node limit per move")
    parser.add_argument("--depth", type=int, help="depth limit per move")
    parser.add_argument("--movetime", type=int, metavar="MS", help="fixed time per move (ms)")
    parser.add_argument(
        "--each",
        nargs="+",
        action="extend",
        default=[],
        metavar="KEY=VALUE",
        help="settings for every engine, as cutechess's -each: tc=, st=, nodes=, depth=/plies=, "
        "timemargin=, restart=on|off, proto=uci|xboard, option.NAME=VALUE",
    )
    parser.add_argument(
        "--openings", type=Path, metavar="FILE", help="EPD or PGN openings (or a Polyglot .bin)"
    )
    parser.add_argument(
        "--variant",
        default="standard",
        metavar="NAME",
        help="standard (the default) or chess960 (fischerandom, as cutechess-cli and "
        "fastchess name it): Chess960 start positions from --openings (EPD or PGN, "
        "Shredder-FEN or X-FEN castling), else the 960 positions in a random order (--srand)",
    )
    parser.add_argument(
        "--srand",
        type=int,
        default=0,
        metavar="N",
        help="seed of the random order of the Chess960 positions without --openings "
        "(default 0: the same order every time)",
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
    parser.add_argument(
        "--draw",
        nargs="+",
        metavar="KEY=VALUE",
        help="draw adjudication: movenumber=N movecount=M score=CP",
    )
    parser.add_argument(
        "--resign",
        nargs="+",
        metavar="KEY=VALUE",
        help="win adjudication (both engines agree): movecount=M score=CP",
    )
    parser.add_argument("--maxmoves", type=int, metavar="N", help="draw after N moves")
    parser.add_argument("--tb", metavar="PATH", help="Syzygy tablebase directories (':'-joined)")
    parser.add_argument(
        "--tbpieces", type=int, default=7, metavar="N", help="tablebase adjudication up to N pieces"
    )
    parser.add_argument(
        "--sprt",
        nargs="+",
        metavar="KEY=VALUE",
        help="SPRT: elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=normalized|logistic]",
    )
    parser.add_argument(
        "--ratinginterval",
        type=int,
        default=10,
        metavar="N",
        help="print the statistics every N games (default 10; 0: only at the end)",
    )
    parser.add_argument("--pgn", type=Path, metavar="FILE", help="PGN output (default: none)")
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
    parser.add_argument(
        "--state",
        type=Path,
        metavar="DIR",
        help="keep the match's state in DIR: the same command run again resumes it after a "
        "stop or a kill, nothing lost or played twice (default: a temporary directory)",
    )
    parser.add_argument(
        "--mqtt", metavar="URL", help="stream the match over MQTT, as tcecd run does"
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="play the games on the Dask cluster of this scheduler (tcp://HOST:PORT)",
    )
    parser.add_argument("--quiet", action="store_true", help="print only the summary")


def parse_option(text: str, flag: str = "--option") -> tuple[str, OptionValue]:
    """``NAME=VALUE`` with VALUE as int, true/false, or text."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ConfigError(f"{flag}: expected NAME=VALUE, got {text!r}")
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


def key_values(flag: str, tokens: Sequence[str], keys: Sequence[str]) -> dict[str, str]:
    """``KEY=VALUE`` tokens of one flag, each KEY one of ``keys``."""
    out: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or key not in keys:
            raise ConfigError(f"{flag}: expected {'=.. '.join(keys)}=.., got {token!r}")
        out[key] = value
    return out


def _int(flag: str, key: str, text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{flag}: {key} must be a whole number, got {text!r}") from None
    if value < minimum:
        raise ConfigError(f"{flag}: {key} must be at least {minimum}, got {value}")
    return value


def adjudication_rules(args: argparse.Namespace) -> AdjudicationRules:
    """``--draw``, ``--resign``, ``--maxmoves`` and ``--tb`` as the event config's
    rules (tcecd.game.adjudication). fastchess's defaults for omitted keys:
    movenumber 0, movecount 1; ``score`` is required."""
    from tcecd.game.adjudication import DrawRule, TablebaseRule, WinRule

    draw = win = tablebase = None
    if args.draw:
        kv = key_values("--draw", args.draw, ("movenumber", "movecount", "score"))
        if "score" not in kv:
            raise ConfigError("--draw: score=CP is required")
        draw = DrawRule(
            from_move=_int("--draw", "movenumber", kv.get("movenumber", "0"), 0),
            score_cp=_int("--draw", "score", kv["score"], 0),
            moves=_int("--draw", "movecount", kv.get("movecount", "1"), 1),
        )
    if args.resign:
        kv = key_values("--resign", args.resign, ("movecount", "score", "twosided"))
        if "score" not in kv:
            raise ConfigError("--resign: score=CP is required")
        if kv.get("twosided", "true") != "true":
            # tcecd's win rule is TCEC's: both engines must agree (two-sided).
            raise ConfigError("--resign: only twosided=true is supported (both engines agree)")
        win = WinRule(
            score_cp=_int("--resign", "score", kv["score"], 1),
            moves=_int("--resign", "movecount", kv.get("movecount", "1"), 1),
        )
    if args.tb is not None:
        if not 3 <= args.tbpieces <= 7:
            raise ConfigError(f"--tbpieces: must be 3..7, got {args.tbpieces!r}")
        tablebase = TablebaseRule(args.tbpieces)
    if args.maxmoves is not None and args.maxmoves < 1:
        raise ConfigError(f"--maxmoves: must be at least 1, got {args.maxmoves!r}")
    if draw is not None and win is not None and win.score_cp <= draw.score_cp:
        raise ConfigError(
            f"--resign: score {win.score_cp} must be above --draw score {draw.score_cp}"
        )
    return AdjudicationRules(draw, win, tablebase, args.maxmoves)


#: ``--each`` keys that stand for a ``tcecd play`` flag (cutechess / fastchess names).
_EACH_FLAGS = {"tc": "tc", "nodes": "nodes", "depth": "depth", "plies": "depth"}


def apply_each(
    args: argparse.Namespace, engines: Sequence[EngineConfig]
) -> tuple[EngineConfig, ...]:
    """Apply ``--each``: limits go where their flags would (giving both is an
    error); ``option.NAME=VALUE``, ``restart`` and ``proto`` change every engine."""
    updates: dict[str, object] = {}
    options: dict[str, OptionValue] = {}
    for token in args.each:
        key, sep, value = token.partition("=")
        if not sep:
            raise ConfigError(f"--each: expected KEY=VALUE, got {token!r}")
        if key.startswith("option."):
            name, parsed = parse_option(key[len("option.") :] + "=" + value, "--each")
            options[name] = parsed
            continue
        flag = _EACH_FLAGS.get(key)
        if key == "st":  # seconds per move (cutechess), as --movetime in ms
            try:
                ms = round(float(value) * 1000)
            except ValueError:
                raise ConfigError(f"--each: st must be seconds, got {value!r}") from None
            _set_flag(args, "movetime", ms, token)
        elif key == "timemargin":
            args.margin_ms = _int("--each", "timemargin", value, 0)
        elif key == "restart":
            if value not in ("on", "off"):
                raise ConfigError(f"--each: restart must be on or off, got {value!r}")
            updates["restart"] = "per-game" if value == "on" else "keep-alive"
        elif key == "proto":
            if value not in ("uci", "xboard"):
                raise ConfigError(f"--each: proto must be uci or xboard, got {value!r}")
            updates["protocol"] = value
        elif flag is not None:
            _set_flag(args, flag, value if flag == "tc" else _int("--each", key, value, 1), token)
        else:
            raise ConfigError(
                f"--each: unknown key {key!r} (tc, st, nodes, depth, plies, timemargin, "
                "restart, proto, option.NAME)"
            )
    out = []
    for engine in engines:
        update = dict(updates)
        if options:
            update["options"] = {**engine.options, **options}
        out.append(engine.model_copy(update=update) if update else engine)
    return tuple(out)


def _set_flag(args: argparse.Namespace, name: str, value: object, token: str) -> None:
    if getattr(args, name) is not None:
        raise ConfigError(f"--each {token}: --{name} is given too")
    setattr(args, name, value)


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
        if key not in ENGINE_LIMITS and not key.startswith("option."):
            expected = ", ".join(f"{k}=" for k in ENGINE_LIMITS) + ", option.NAME="
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
    options = {
        name: value
        for key, text in words.items() if key.startswith("option.")
        for name, value in [parse_option(key[len("option."):] + "=" + text, ref)]
    }  # fmt: skip
    if options:
        # cutechess-cli's per-engine option.NAME=VALUE: over the definition's own.
        engine = engine.model_copy(update={"options": {**engine.options, **options}})
    words = {k: v for k, v in words.items() if not k.startswith("option.")}
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


def _openings(args: argparse.Namespace, variant: str) -> tuple[Opening, ...]:
    """The match's openings: --openings, extended by the --book line if given
    (cutechess's -book/-bookdepth); each pair of games shares one. Chess960:
    --openings read as Chess960 positions, else the 960 start positions in the
    random order of --srand."""
    from tcecd.game.openings import OpeningSet, load_openings
    from tcecd.game.polyglot import read_book

    if variant == "chess960":
        from tcecd.game.chess960 import all_openings

        if args.book is not None:
            raise ConfigError(
                "--book: a Polyglot book holds standard-chess positions; --variant chess960 "
                "takes EPD or PGN --openings"
            )
        if args.openings:
            return load_openings(args.openings, plies=args.plies, chess960=True)
        return all_openings()  # drawn in the seeded random order of --srand (MatchSpec)
    book = read_book(args.book, depth=args.book_depth) if args.book else None
    if args.openings:
        return load_openings(args.openings, plies=args.plies, book=book)
    if book is not None:
        return OpeningSet((Opening(name=None, fen=None),), book)
    return ()


def run(args: argparse.Namespace) -> int:
    """Load the engines and openings, play the match, print the summary."""
    from tcecd.game.chess960 import parse_variant
    from tcecd.game.timecontrol import TimeControl
    from tcecd.runner.check import EngineCheckError, check_engines, failures
    from tcecd.runner.match import MatchSpec, run_match, unique_names
    from tcecd.runner.stats import Sprt, parse_sprt

    try:
        variant = parse_variant(args.variant)
    except ValueError as exc:
        raise ConfigError(f"--variant: {exc}") from None
    specs = engine_words(args.engines)
    if len(specs) < 2:
        raise ConfigError(f"tcecd play: need at least two engines, got {args.engines!r}")
    tournament = TOURNAMENTS.get(args.tournament)
    if tournament is None:
        raise ConfigError(
            f"--tournament: expected round-robin, gauntlet or knockout, got {args.tournament!r}"
        )
    engines = apply_each(
        args, unique_names([_with_limits(ref, words) for ref, words in specs])
    )
    for name in (
        "rounds", "games", "concurrency", "nodes", "depth", "movetime", "plies", "book_depth",
    ):  # fmt: skip
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ConfigError(f"--{name.replace('_', '-')}: must be at least 1, got {value!r}")
    if args.margin_ms < 0:
        raise ConfigError(f"--margin-ms: must be >= 0, got {args.margin_ms!r}")
    if args.ratinginterval < 0:
        raise ConfigError(f"--ratinginterval: must be >= 0, got {args.ratinginterval!r}")
    sprt: Sprt | None = None
    if args.sprt:
        try:
            sprt = parse_sprt(args.sprt)
        except ValueError as exc:
            raise ConfigError(f"--sprt: {exc}") from None
        if len(engines) != 2:
            raise ConfigError(f"--sprt: needs exactly two engines, got {len(engines)}")
        if tournament == "knockout":
            raise ConfigError("--sprt: a knockout decides its encounters itself")
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
    has_limit = bool(tc.stages or tc.movetime_ms or tc.nodes or tc.depth)
    if not has_limit and not all(e.has_own_limits for e in engines):
        raise ConfigError("tcecd play: give a limit: --tc, --nodes, --depth or --movetime")
    rules = adjudication_rules(args)
    resuming = args.state is not None and (args.state / "event.sqlite").exists()
    if args.pgn is not None and not resuming:
        # A new match starts its PGN afresh (a resumed one appends to it).
        try:
            args.pgn.parent.mkdir(parents=True, exist_ok=True)
            args.pgn.write_text("", encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--pgn: cannot write {str(args.pgn)!r}: {exc.strerror}") from None
    openings = _openings(args, variant)
    options = dict(parse_option(text) for text in args.option)
    if args.tb is not None:
        from tcecd.game.tablebase import open_probe

        try:
            _, close = open_probe(args.tb)  # refuses a path without tables, in one line
        except ConfigError as exc:
            raise ConfigError(f"--tb: {exc}") from None
        close()
    # python-chess warns about every line it does not understand (some engines
    # print a lot of chatter); a quick match only wants real errors on stderr.
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    # Every engine once, before any game: a bad option is one line per engine.
    reports = eventloop.run(check_engines(engines, soft_options=options))
    problems = failures(reports, soft_options=options, chess960=variant == "chess960")
    if problems:
        raise EngineCheckError(problems)
    # --option NAME=VALUE goes to every engine that has the option (as
    # cutechess-cli's -each option.NAME=VALUE), unless the engine sets it itself.
    engines = tuple(
        e.model_copy(update={"options": {
            **{n: v for n, v in options.items() if n.lower() in r.declared},
            **e.options,
        }})
        for e, r in zip(engines, reports, strict=True)
    )  # fmt: skip
    spec = MatchSpec(
        engines=engines,
        games=args.games,
        rounds=args.rounds,
        tournament=tournament,  # type: ignore[arg-type]
        time_control=tc,
        pgn_path=args.pgn,
        openings=openings,
        concurrency=args.concurrency,
        margin_ms=args.margin_ms,
        adjudication=rules,
        tablebase_path=args.tb,
        fault_policy=args.fault_policy,
        stall_timeout_ms=args.stall_timeout_ms,
        event=args.event,
        sprt=sprt,
        rating_interval=0 if args.quiet else args.ratinginterval,
        state_dir=args.state,
        mqtt=_mqtt(args),
        execution=_execution(args),
        variant=variant,
        # Chess960 without --openings: the 960 positions in --srand's random order.
        openings_order="random" if variant == "chess960" and not args.openings else "sequential",
        openings_seed=args.srand,
    )
    names = " vs ".join(e.name for e in engines)
    kind = {"gauntlet": "Gauntlet", "knockout": "Knockout"}.get(tournament, "Match")
    print(
        f"{kind}: {names}, "
        + (f"{args.games} games per encounter" if tournament == "knockout"
           else f"{args.rounds} round(s) of {args.games} games per pairing")
        + f", tc {tc.describe()}"
        + (", Chess960" if variant == "chess960" else "")
        + (" (resumed)" if resuming else ""),
        flush=True,
    )  # fmt: skip
    progress = None if args.quiet else (lambda line: print(line, flush=True))
    # Ctrl-C (or SIGTERM) stops the match: the running games are abandoned (a
    # resumed match plays them again) and the statistics of the games played
    # are printed, as fastchess and cutechess-cli do.
    result = eventloop.run(run_match(spec, progress=progress, install_signals=True))
    # The progress lines end with each game's "Score of" line: print it once.
    print(result.summary(score_lines=args.quiet))
    if args.pgn is not None:
        print(f"PGN: {args.pgn}")
    if result.stopped:
        if args.state is not None:
            print(f"State: {args.state} (run the same command again to resume)")
        # As the CLI says of any interrupted command (the statistics are above).
        print("tcecd: interrupted", file=sys.stderr)
        return 130
    return 0


def _mqtt(args: argparse.Namespace) -> object:
    """``--mqtt URL``: the match streams over MQTT (None: not)."""
    if args.mqtt is None:
        return None
    import os

    from tcecd.bus.settings import MqttSettings

    try:
        return MqttSettings.from_url(args.mqtt, password=os.environ.get("TCECD_MQTT_PASSWORD"))
    except ValueError as exc:
        raise ConfigError(f"--mqtt: {exc}") from None


def _execution(args: argparse.Namespace) -> object:
    """``--scheduler ADDRESS``: the games are played on that Dask cluster."""
    if args.scheduler is None:
        return None
    from tcecd.execution import ExecutionSettings

    if not args.scheduler.startswith(("tcp://", "tls://")):
        raise ConfigError(f"--scheduler: expected tcp://HOST:PORT, got {args.scheduler!r}")
    return ExecutionSettings(backend="dask", scheduler=args.scheduler)
