"""``tcecd validate EVENT.yaml``: check an event config and print what it describes.

Exit 0 with a short summary (event, pairing, engines and their commands, time
control, adjudication, outputs, MQTT) when the config is good; a bad config is
one ``tcecd: error: FILE: key.path: ...`` line on stderr and exit 2 (the CLI
turns the :class:`~tcecd.errors.ConfigError` into that line).
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "check an event config and print what it describes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``config``: the event YAML file; ``--quiet``: no summary, just the exit code."""
    parser.add_argument("config", type=Path, metavar="EVENT.yaml", help="the event config file")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing when the config is good"
    )


def run(args: argparse.Namespace) -> int:
    """Load the config (raising ConfigError on any problem) and summarise it."""
    from tcecd.config.load import load_event
    from tcecd.config.summary import advice, describe_event

    config = load_event(args.config)
    if not args.quiet:
        print(f"{config.source}: ok")
        for line in describe_event(config):
            print(f"  {line}")
        for note in advice(config):
            print(f"  note: {note}")
    return 0
