"""``tcecd run EVENT.yaml [--state-dir DIR] [--mqtt URL]``: run or resume an event.

Loads and validates the config, applies the command-line overrides, sets up
logging and hands over to :mod:`tcecd.daemon`. Running the same command again
after a crash or a signal resumes the event from its state directory.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "run (or resume) an event from its YAML config"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path, metavar="EVENT.yaml", help="the event config")
    parser.add_argument(
        "--state-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="state directory (overrides outputs.state_dir; outputs go under it)",
    )
    parser.add_argument(
        "--mqtt",
        default=None,
        metavar="URL",
        help="MQTT broker URL, e.g. mqtt://host:1883 (overrides the config's mqtt)",
    )


def run(args: argparse.Namespace) -> int:
    from tcecd.config.event import apply_overrides
    from tcecd.config.load import load_event
    from tcecd.daemon import run_event
    from tcecd.daemon.settings import from_config
    from tcecd.logging import configure

    config = load_event(args.config)
    config = apply_overrides(config, state_dir=args.state_dir, mqtt_url=args.mqtt)
    settings = from_config(config)
    configure(settings.log_level, settings.log_format)
    return run_event(settings)
