"""``tcecd pair``: pair the next round of an event, or check its rounds, for an arbiter.

    tcecd pair [--system NAME] [--check] [--explain] [--time-limit S] [-p FILE]
               EVENT.trf|STATE.json

The input is a FIDE Tournament Report File (TRF-2016, as JaVaFo and
bbpPairings read it; :mod:`tcecd.trf`) or an event document in the
``tcecd simulate --json`` format (:mod:`tcecd.pairing.state_json`). A name
ending in ``.json`` is JSON, one ending in ``.trf`` is TRF; any other name, and
``-`` (stdin), is TRF when a line starts with ``001`` (a TRF player line), else
JSON (as before TRF input existed). The system (``--system``, any
registered name) defaults to ``dutch-2017`` for a TRF and to the document's
``"system"`` (else ``tcec-swiss``) for JSON.

Output: for a TRF, the next round exactly as JaVaFo's ``-p`` prints it (the
number of lines that follow, then ``white black`` pairing numbers per board,
the pairing-allocated bye as ``N 0``); for JSON, one JSON round object
(``{"round", "bye", "removed_history_rounds", "games", "pairs"}``). ``-p FILE``
writes it to FILE instead of stdout.

``--check`` re-pairs every finished round from the rounds before it and lists
each round the rules pair differently (JaVaFo's and bbpPairings' checker);
exit code 1 when any differs, 0 when all agree. Bad input is one error line
naming the file and the line or JSON path, exit code 2.

The event's rules come with the input (TRF ``XXP``, ``XXA``, ``XXS``/``BB?``;
JSON ``context.forbidden_pairs``, ``context.acceleration``,
``context.points``): forbidden pairs are never paired, virtual points count
for pairing, scores follow the point system. A system that cannot honour
them (TCEC Swiss; the round-robin, but for a point system) is an error
naming the file.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from tcecd.errors import PairingError
from tcecd.pairing.base import Player, RoundContext, RoundRecord

HELP = "pair the next round of an event (TRF-2016 or JSON), or --check its rounds"

#: The system for a TRF when --system is not given (TRF is FIDE's format).
TRF_DEFAULT_SYSTEM = "dutch-2017"
#: The system for a JSON document that names none.
JSON_DEFAULT_SYSTEM = "tcec-swiss"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tcecd.pairing.registry import NAMES

    parser.add_argument(
        "event",
        metavar="EVENT.trf|STATE.json",
        help="the event so far: a TRF-2016 file or a tcecd simulate --json document (- = stdin)",
    )
    parser.add_argument(
        "--system",
        choices=NAMES,
        metavar="NAME",
        help=f"pairing system ({', '.join(NAMES)}); default: {TRF_DEFAULT_SYSTEM} for a TRF, "
        f"the document's system (else {JSON_DEFAULT_SYSTEM}) for JSON",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="re-pair every finished round and list those the rules pair differently; "
        "exit 1 if any",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="integer-program only: after the pairing, print the solver's status and the "
        "objective's terms, board by board",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=10.0,
        metavar="S",
        help="integer-program only: the solver's limit for the round in seconds (default 10); "
        "a round not proven optimal within it is an error",
    )
    parser.add_argument(
        "-p",
        "-o",
        "--output",
        dest="output",
        metavar="FILE",
        help="write the pairing to FILE instead of stdout (as JaVaFo's -p FILE)",
    )


@dataclass(frozen=True, slots=True)
class _Event:
    is_trf: bool
    system: str
    players: tuple[Player, ...]
    double: bool
    rounds: tuple[RoundRecord, ...]
    context: RoundContext


def _read_text(path: str) -> tuple[str, bool]:
    """The input's text, and whether it is a TRF (module docstring)."""
    if path == "-":
        text = sys.stdin.read()
        return text, any(line.startswith("001") for line in text.splitlines())
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise PairingError(f"{path}: cannot read: {exc.strerror or exc}") from None
    suffix = Path(path).suffix.lower()
    if suffix in (".json", ".trf"):
        is_trf = suffix == ".trf"
    else:
        is_trf = any(line.startswith(b"001") for line in data.splitlines())
    try:
        return data.decode("utf-8"), is_trf
    except UnicodeDecodeError:
        if not is_trf:
            raise PairingError(f"{path}: not UTF-8 text") from None
        # TRF files from older tournament managers are often Latin-1.
        return data.decode("latin-1"), is_trf


def _load(path: str, system: str | None) -> _Event:
    text, is_trf = _read_text(path)
    if not is_trf:
        from tcecd.pairing.state_json import load_event_state

        state = load_event_state(text, path)
        return _Event(
            False,
            system or state.system or JSON_DEFAULT_SYSTEM,
            state.players,
            state.double,
            state.rounds,
            state.context,
        )
    from tcecd.trf import parse_trf

    event = parse_trf(text, path)
    return _Event(
        True, system or TRF_DEFAULT_SYSTEM, event.players, False, event.rounds, event.context
    )


def run(args: argparse.Namespace) -> int:
    from tcecd.pairing.registry import SystemOptions, canonical_name, check_rules, get_system

    event = _load(args.event, args.system)
    if args.time_limit <= 0:
        raise PairingError(f"--time-limit: must be > 0, got {args.time_limit!r}")
    options = SystemOptions(time_limit_s=args.time_limit)
    if args.explain and canonical_name(event.system) != "integer-program":
        raise PairingError(
            f"--explain: only the integer-program system explains its pairing, "
            f"not {canonical_name(event.system)!r}"
        )
    system = get_system(event.system, options)
    try:
        check_rules(event.system, event.context)
    except PairingError as exc:
        raise PairingError(f"{args.event}: {exc}") from None
    if args.check:
        from tcecd.pairing.checker import check_rounds

        found = check_rounds(
            system, event.players, event.rounds, double=event.double, context=event.context
        )
        for discrepancy in found:
            print(discrepancy)
        name = canonical_name(event.system)
        rounds = len(event.rounds)
        if found:
            print(f"FAILED: {len(found)} of {rounds} round(s) differ from the {name} pairing")
            return 1
        print(f"OK: all {rounds} round(s) agree with the {name} pairing")
        return 0
    total = event.context.total_rounds
    if total is not None and len(event.rounds) >= total:
        raise PairingError(
            f"{args.event}: the event is finished: {len(event.rounds)} of {total} rounds played"
        )
    pairing = system.pair(event.players, event.rounds, double=event.double, context=event.context)
    if event.is_trf:
        from tcecd.trf import format_pairing

        text = format_pairing(pairing, event.players)
    else:
        from tcecd.pairing.state_json import dumps, round_to_json

        text = dumps(round_to_json(pairing))
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise PairingError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    if args.explain:
        from tcecd.pairing.integer_program.explain import explain

        sys.stdout.write(
            ("\n" if not args.output else "")
            + explain(
                event.players, event.rounds, event.context, double=event.double, options=options
            )
        )
    return 0
