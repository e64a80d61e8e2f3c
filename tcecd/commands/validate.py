"""``tcecd validate``: not implemented yet."""

from __future__ import annotations

import argparse

from tcecd.errors import TcecdError

HELP = "not implemented yet"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments yet."""


def run(args: argparse.Namespace) -> int:
    raise TcecdError("'tcecd validate' is not implemented yet")
