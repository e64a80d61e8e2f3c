"""``tcecd pair STATE.json``: print the next round of an event, for an arbiter.

Reads an event so far in the ``tcecd simulate --json`` format (players and the
finished rounds with results; see :mod:`tcecd.pairing.state_json`), pairs the
next round with the TCEC Swiss rules and prints it as one JSON round object:
``{"round", "bye", "removed_history_rounds", "games": [{"white", "black"}...],
"pairs": [{"first", "second"}...]}``, games in playing order. Bad input is one
error line naming the JSON path, exit code 2.
"""

from __future__ import annotations

import argparse
import sys

from tcecd.errors import PairingError

HELP = "print the next round's pairing for an event state (JSON)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "state", metavar="STATE.json", help="event so far (tcecd simulate --json format; - = stdin)"
    )


def run(args: argparse.Namespace) -> int:
    from tcecd.pairing.state_json import dumps, load_event_json, round_to_json
    from tcecd.pairing.tcec_swiss import TcecSwiss

    path: str = args.state
    if path == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as exc:
            raise PairingError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise PairingError(f"{path}: not UTF-8 text") from None
    players, double, rounds = load_event_json(text, path)
    pairing = TcecSwiss().pair(players, rounds, double=double)
    sys.stdout.write(dumps(round_to_json(pairing)))
    return 0
