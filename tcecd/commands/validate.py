"""``tcecd validate EVENT.yaml``: check an event config and print what it describes.

Exit 0 with a short summary (event, pairing, engines and their commands, time
control, adjudication, outputs, MQTT) when the config is good; a bad config is
one ``tcecd: error: FILE: key.path: ...`` line on stderr and exit 2 (the CLI
turns the :class:`~tcecd.errors.ConfigError` into that line).

Beyond what loading checks, ``validate`` also reads the openings file and the
Polyglot book (a bad line, or a missing or bad ``openings.book.file``, is an
error here rather than when the event starts) and notes when the
tablebase folders hold fewer pieces than ``max_pieces`` asks for.

``--engines`` also starts every engine once (:mod:`tcecd.runner.check`): each
configured option must exist and its value fit the option's type and range;
the engine's own name, protocol and start-up time are printed. A problem is
one line per engine, exit 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tcecd.config.event import EventConfig
    from tcecd.game.polyglot import PolyglotBook
    from tcecd.runner.check import EngineReport

HELP = "check an event config and print what it describes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``config``: the event YAML file; ``--quiet``: no summary, just the exit code."""
    parser.add_argument("config", type=Path, metavar="EVENT.yaml", help="the event config file")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing when the config is good"
    )
    parser.add_argument(
        "--engines",
        action="store_true",
        help="also start every engine once and check its options (name, type, range)",
    )


def _describe_book(book: PolyglotBook) -> str:
    """``Polyglot book book.bin: 6 entries, depth 8, weighted`` (``, seed S`` when
    the book has its own seed; ``while in book`` when the depth is unlimited)."""
    entries = len(book.data) // 16  # a Polyglot entry is 16 bytes
    depth = "while in book" if book.depth is None else f"depth {book.depth}"
    seed = f", seed {book.seed}" if book.seed is not None and book.selection == "weighted" else ""
    return (
        f"Polyglot book {book.name}: {entries} entr{'ies' if entries != 1 else 'y'}, "
        f"{depth}, {book.selection}{seed}"
    )


def _check_openings(config: EventConfig) -> str | None:
    """Read the openings and the book; returns a summary line, raises
    ConfigError (naming the key) on a bad or missing file."""
    if config.openings is None:
        return None
    from tcecd.errors import ConfigError, OpeningsError
    from tcecd.game.openings import load_openings
    from tcecd.game.polyglot import read_book

    o = config.openings
    if o.file is None:  # Chess960 positions by number: checked when the config loaded
        return None
    polyglot = None
    if o.book is not None:
        key = f"{config.source}: openings.book.file"
        if not o.book.file.is_file():
            raise ConfigError(f"{key}: {str(o.book.file)!r} does not exist or is not a file")
        try:
            polyglot = read_book(
                o.book.file, depth=o.book.depth, selection=o.book.selection, seed=o.book.seed
            )
        except OpeningsError as exc:
            raise ConfigError(f"{key}: {exc}") from None
    try:
        openings = load_openings(
            o.file,
            fmt=o.format,
            plies=o.plies,
            book=polyglot,
            chess960=config.variant == "chess960",
        )
    except OpeningsError as exc:
        raise ConfigError(f"{config.source}: openings.file: {exc}") from None
    if openings.book is not None and o.format == "polyglot":
        return _describe_book(openings.book)
    count = f"{len(openings)} opening{'s' if len(openings) != 1 else ''} in the book"
    if polyglot is not None:
        return f"{count}, extended by {_describe_book(polyglot)}"
    return count


def _tablebase_pieces(directories: tuple[Path, ...]) -> int:
    """The most pieces any Syzygy WDL table in ``directories`` covers
    (``KQvKR.rtbw`` covers 4: one letter per piece)."""
    most = 0
    for directory in directories:
        for table in directory.glob("*.rtbw"):
            most = max(most, sum(ch.isalpha() for ch in table.stem.replace("v", "")))
    return most


def run(args: argparse.Namespace) -> int:
    """Load the config (raising ConfigError on any problem) and summarise it."""
    from tcecd.config.event_file import load_event
    from tcecd.config.summary import advice, describe_event, limits_note

    config = load_event(args.config)
    book = _check_openings(config)
    checked = check_event_engines(config) if args.engines else ()
    notes = advice(config)
    own_limits = limits_note(config)
    if own_limits is not None:
        notes.append(own_limits)
    mqtt = config.mqtt_settings()
    warning = mqtt.plain_password_warning() if mqtt is not None else None
    if warning is not None:
        notes.append(f"mqtt: {warning}")
    tables = config.adjudication.tablebases
    if tables is not None:
        pieces = _tablebase_pieces(tables.path)
        if pieces < tables.max_pieces:
            notes.append(
                f"adjudication.tablebases: max_pieces is {tables.max_pieces} but the tables "
                f"cover at most {pieces} pieces; larger endings are not adjudicated"
            )
    if not args.quiet:
        print(f"{config.source}: ok")
        for line in describe_event(config):
            print(f"  {line}")
        if book is not None:
            print(f"  book:         {book}")
        for report in checked:
            print(f"  engine check: {report.describe()}")
        for note in notes:
            print(f"  note: {note}")
    return 0


def check_event_engines(config: EventConfig) -> tuple[EngineReport, ...]:
    """Start every engine of the event once (``validate --engines``, ``run``);
    raises :class:`~tcecd.runner.check.EngineCheckError` (one line per engine
    that failed, naming its place in the config) when any did."""
    from tcecd import eventloop
    from tcecd.logging import engine_chatter_off
    from tcecd.runner.check import EngineCheckError, check_engines, failures

    # What python-chess logs about an engine's manners (an xboard feature rejected, a
    # line it did not expect) is no problem of the config: the check reports those.
    with engine_chatter_off():
        reports = eventloop.run(check_engines(config.engines))
    where = [f"{config.source}: engines[{i}]: " for i in range(len(config.engines))]
    lines = failures(reports, where=where, chess960=config.variant == "chess960")
    if lines:
        raise EngineCheckError(lines)
    return reports
