"""``tcecd validate EVENT.yaml``: check an event config and print what it describes.

Exit 0 with a short summary (event, pairing, engines and their commands, time
control, adjudication, outputs, MQTT) when the config is good; a bad config is
one ``tcecd: error: FILE: key.path: ...`` line on stderr and exit 2 (the CLI
turns the :class:`~tcecd.errors.ConfigError` into that line).

Beyond what loading checks, ``validate`` also reads the openings book (a bad
line is an error here rather than when the event starts) and notes when the
tablebase folders hold fewer pieces than ``max_pieces`` asks for.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tcecd.config.event import EventConfig

HELP = "check an event config and print what it describes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``config``: the event YAML file; ``--quiet``: no summary, just the exit code."""
    parser.add_argument("config", type=Path, metavar="EVENT.yaml", help="the event config file")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing when the config is good"
    )


def _check_openings(config: EventConfig) -> str | None:
    """Read the book; returns a summary line, raises ConfigError on a bad book."""
    if config.openings is None:
        return None
    from tcecd.errors import ConfigError, OpeningsError
    from tcecd.game.openings import load_openings

    o = config.openings
    try:
        book = load_openings(o.file, fmt=o.format, plies=o.plies)
    except OpeningsError as exc:
        raise ConfigError(f"{config.source}: openings.file: {exc}") from None
    return f"{len(book)} opening{'s' if len(book) != 1 else ''} in the book"


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
    from tcecd.config.load import load_event
    from tcecd.config.summary import advice, describe_event

    config = load_event(args.config)
    book = _check_openings(config)
    notes = advice(config)
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
        for note in notes:
            print(f"  note: {note}")
    return 0
