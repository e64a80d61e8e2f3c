"""``tcecd run EVENT.yaml [--state-dir DIR] [--mqtt URL] [--from-pgn PGN]``: run or resume.

``--mqtt-password-file FILE`` or ``$TCECD_MQTT_PASSWORD`` give the broker
password without putting it in the process list.

Loads and validates the config, applies the command-line overrides, sets up
logging, starts every engine once to check it and its options (a problem is one
line per engine and exit 2, before the state is opened: nothing is recorded)
and hands over to :mod:`tcecd.daemon`. Running the same command again
after a crash or a signal resumes the event from its state directory.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tcecd.commands.mqtt_password import add_password_file_option

if TYPE_CHECKING:
    from tcecd.config.event import EventConfig

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
    add_password_file_option(parser)
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="play the games on the Dask cluster of this scheduler, e.g. tcp://host:8786 "
        "(overrides the config's execution)",
    )
    parser.add_argument(
        "--from-pgn",
        type=Path,
        default=None,
        metavar="EVENT.pgn",
        help="start the state from this event PGN (verified against the rules) when the "
        "state directory was lost, then continue the event",
    )


def run(args: argparse.Namespace) -> int:
    import os
    import sys

    from tcecd.commands.mqtt_password import command_line_password
    from tcecd.config.event_file import load_event
    from tcecd.config.overrides import apply_overrides
    from tcecd.daemon import run_event
    from tcecd.daemon.settings import from_config
    from tcecd.logging import configure

    config = load_event(args.config, scheduler=args.scheduler)
    config = apply_overrides(
        config,
        state_dir=args.state_dir,
        mqtt_url=args.mqtt,
        mqtt_password=command_line_password(args, os.environ),
    )
    if args.state_dir is not None:
        from tcecd.config.event_file import check_state_dir

        check_state_dir(config.state_dir, "--state-dir")
    settings = from_config(config)
    # Live progress on a terminal only; off one (services, pipes, tests) the log is
    # all, and rich and the viewer's model, a tenth of a second of imports, stay out.
    progress = None
    if sys.stderr.isatty() or sys.stdout.isatty():
        from tcecd.daemon.progress import ProgressDisplay

        progress = ProgressDisplay.for_terminal(settings.event, config.rounds)
    configure(
        settings.log_level,
        settings.log_format,
        stream=progress.log_stream if progress is not None else None,
    )
    if config.execution.backend == "local":
        # On a Dask cluster the engines exist on the workers, not here (docs/config.md).
        _check_engines(config)
    if args.from_pgn is not None:
        import structlog

        from tcecd.daemon.recover import import_pgn

        games = import_pgn(settings, config, args.from_pgn)
        structlog.get_logger("tcecd").info(
            "state rebuilt from pgn", pgn=str(args.from_pgn), games=games
        )
    return run_event(settings, progress=progress)


def _check_engines(config: EventConfig) -> None:
    """Start every engine once before anything is recorded: a bad option or an
    engine that cannot start is one line per engine and exit 2, not a strike
    in each of its games (docs/engines.md, "Checking engines")."""
    import structlog

    from tcecd.commands.validate import check_event_engines

    log = structlog.get_logger("tcecd").bind(event_name=config.event.name)
    # Debug level: a run refused later (a state the config does not match) stays
    # one line; `tcecd validate --engines` prints the same reports for people.
    for report in check_event_engines(config):
        log.debug(
            "engine checked",
            engine=report.name,
            id=report.id_name,
            protocol=report.protocol,
            startup_ms=report.startup_ms,
        )
