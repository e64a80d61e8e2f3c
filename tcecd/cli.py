"""The ``tcecd`` command line: one entry point, one module per subcommand.

Each subcommand lives in ``tcecd/commands/<name>.py`` and exposes ``HELP`` (one
line), ``add_arguments(parser)`` and ``run(args) -> int``. Only the chosen
subcommand's module is imported, so ``tcecd pair`` does not pay for asyncio,
MQTT or python-chess's engine layer.

Any :class:`~tcecd.errors.TcecdError` becomes one line on stderr and its exit
code (2); there is never a traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn, Protocol, cast

from tcecd import __version__
from tcecd.errors import TcecdError

#: name -> one-line help. The module is ``tcecd.commands.<name>``.
COMMANDS: dict[str, str] = {
    "run": "run (or resume) an event from its YAML config",
    "validate": "check an event config and print what it describes",
    "schema": "print the JSON Schema of the event config",
    "simulate": "simulate a whole event with synthetic players (any pairing system)",
    "pair": "pair the next round of an event (TRF-2016 or JSON), or --check its rounds",
    "play": "play a quick match between engines",
    "replay": "rebuild, verify and re-stream an event from its PGN",
    "watch": "watch a live event over MQTT in the terminal",
    "web": "serve a live web page of an event (and TCEC's viewer's socket.io events)",
    "ctl": "send a command to a running event (the operator's console)",
}


class CommandModule(Protocol):
    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _load(name: str) -> CommandModule:
    return cast(CommandModule, importlib.import_module(f"tcecd.commands.{name}"))


class _Parser(argparse.ArgumentParser):
    """argparse with one line for a bad command line, as for any bad input: the
    problem and where help is, exit 2 (argparse printed its whole usage first)."""

    def error(self, message: str) -> NoReturn:
        if message.endswith("expected one argument"):
            # argparse reads a value that starts with "-" (`--tc -1+0.1`) as an option.
            option = message.removeprefix("argument ").split(":", 1)[0].split("/")[-1]
            message += f" (a value that starts with '-' is given as {option}=VALUE)"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} -h)\n")


def build_parser(selected: str | None) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tcecd",
        description="Run unattended TCEC-style Swiss engine events, live over MQTT.",
    )
    parser.add_argument("--version", action="version", version=f"tcecd {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, help_text in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == selected:
            _load(name).add_arguments(p)
    return parser


def _selected(argv: Sequence[str]) -> str | None:
    for token in argv:
        if not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    selected = _selected(args_list)
    previous = None
    if selected == "run":
        # Before the heavy imports: a stop signal during start-up is deferred to
        # the daemon (exit 0, as documented), never a kill (see tcecd.signals).
        from tcecd import signals

        previous = signals.defer()
    try:
        parser = build_parser(selected)
        args = parser.parse_args(args_list)
        return _load(args.command).run(args)
    except TcecdError as exc:
        # One line per problem (engine checks report one line per engine).
        for line in str(exc).splitlines() or [""]:
            print(f"tcecd: error: {line}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("tcecd: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    finally:
        if previous is not None and argv is not None:
            # An in-process call (tests): give the caller its handlers back. A real
            # process keeps deferring until it exits; its exit code is decided.
            signals.restore(previous)
