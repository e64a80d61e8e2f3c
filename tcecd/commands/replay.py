"""``tcecd replay``: rebuild, verify and re-stream a Swiss event from its PGN.

    tcecd replay EVENT.pgn [--config EVENT.yaml] [--double|--single]
                 [--system NAME] [--verify] [--crosstable] [--schedule] [--out DIR]
                 [--publish [--mqtt URL] [--speed X]]
                 [--trf OUT.trf]

Reads the event's PGN (ours, or TCEC cutechess ``swiss-tcec`` output),
rebuilds players, seeds, rounds, BYEs and results, prints the standings (and
on request the crosstable and schedule), writes TCEC ``crosstable.json`` /
``schedule.json`` with ``--out``, and re-publishes the event over MQTT with
``--publish``. ``--verify`` lists every deviation from the pairing system's rules
(``--system``, else the config's, else TCEC Swiss)
and exits 1 when there is one. See docs/replay.md.

``--trf`` exports the finished rounds as a FIDE TRF-2016 file (pairing
numbers = seeds) for an arbiter to check with JaVaFo or bbpPairings.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tcecd import eventloop
from tcecd.commands.mqtt_password import (
    add_password_file_option,
    command_line_password,
    with_password,
)
from tcecd.errors import ConfigError
from tcecd.pairing.base import RoundContext
from tcecd.pairing.registry import NAMES

HELP = "rebuild, verify and re-stream an event from its PGN"

DEFAULT_MQTT_URL = "mqtt://127.0.0.1:1883"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The replay options (see the module docstring)."""
    parser.add_argument("pgn", metavar="EVENT.pgn", help="the event's PGN file")
    parser.add_argument(
        "--config",
        metavar="EVENT.yaml",
        help="the event config: players and seeds come from it instead of round 1",
    )
    rounds = parser.add_mutually_exclusive_group()
    rounds.add_argument(
        "--double", dest="double", action="store_const", const=True, default=None,
        help="the event has double rounds (default: inferred from the games)",
    )  # fmt: skip
    rounds.add_argument(
        "--single", dest="double", action="store_const", const=False,
        help="the event has single rounds (default: inferred from the games)",
    )  # fmt: skip
    parser.add_argument(
        "--system",
        choices=(*NAMES, "knockout"),
        metavar="NAME",
        help="the pairing system (default: the config's, else the one the PGN's games name in "
        f"their PairingSystem tag, else tcec-swiss); one of {', '.join((*NAMES, 'knockout'))}",
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="re-pair every round by the rules and list each deviation; exit 1 if any",
    )
    parser.add_argument("--crosstable", action="store_true", help="print the crosstable too")
    parser.add_argument("--schedule", action="store_true", help="print every game too")
    parser.add_argument(
        "--out", metavar="DIR", help="write TCEC-format crosstable.json and schedule.json here"
    )
    parser.add_argument(
        "--trf",
        metavar="OUT.trf",
        help="write the finished rounds as a TRF-2016 file (single rounds; pairing numbers = "
        "seeds) to check with JaVaFo or bbpPairings",
    )
    parser.add_argument(
        "--publish", action="store_true", help="re-stream the event over MQTT (live schema)"
    )
    parser.add_argument(
        "--mqtt",
        metavar="URL",
        help=f"broker for --publish (default: the config's, else {DEFAULT_MQTT_URL})",
    )
    add_password_file_option(parser)
    parser.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="X",
        help="--publish pace: recorded move times divided by X; 0 = as fast as possible",
    )
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="print only deviations and errors"
    )


def run(args: argparse.Namespace) -> int:
    """Rebuild the event; 1 when ``--verify`` finds a deviation, else 0."""
    from tcecd.replay.event import rebuild_from_pgn
    from tcecd.replay.progress import ProgressBar
    from tcecd.replay.session import ReplayContext

    if args.speed < 0:
        raise ConfigError(f"invalid --speed: {args.speed!r} (must be >= 0; 0 = no pacing)")
    pgn = Path(args.pgn)
    context = ReplayContext.from_config(Path(args.config) if args.config else None)
    bar = ProgressBar(f"reading {pgn.name}")
    rounds_bar = ProgressBar("verifying", unit="rounds")

    def reading_done_then_rounds(done: int, total: int) -> None:
        bar.close()
        rounds_bar(done, total)

    from tcecd.pairing.registry import SystemOptions

    system = args.system or context.system
    if system == "knockout":
        bar.close()
        return _replay_cup(args, context, pgn)
    try:
        replayed = rebuild_from_pgn(
            pgn,
            system=system,
            options=SystemOptions(time_limit_s=context.time_limit_s),
            total_rounds=context.rounds,
            rules=context.rules,
            players=context.players,
            double=args.double if args.double is not None else context.double,
            progress=bar,
            verify=args.verify,
            round_progress=reading_done_then_rounds,
        )
    finally:
        bar.close()
        rounds_bar.close()

    out = sys.stdout
    if not args.quiet:
        print(context.describe(replayed), file=out)
    if args.verify:
        # What the operator's console did is part of the record, not a deviation.
        for note in replayed.operator_notes:
            print(f"accepted as recorded: {note}", file=out)
        for deviation in replayed.deviations:
            print(deviation, file=out)
    standings = context.standings(replayed, replayed.rounds)
    if not args.quiet:
        from tcecd.replay.tables import crosstable_table, schedule_table, standings_table

        print(file=out)
        print(standings_table(replayed.players, standings), file=out)
        if args.crosstable:
            print(file=out)
            print(crosstable_table(replayed.players, replayed.rounds, standings), file=out)
        if args.schedule:
            print(file=out)
            names = {p.id: p.name for p in replayed.players}
            print(schedule_table(replayed.games, names), file=out)
    if args.out:
        from tcecd.replay.outputs import write_outputs

        bar = ProgressBar("writing schedule.json")
        try:
            written = write_outputs(replayed, standings, Path(args.out), progress=bar)
        finally:
            bar.close()
        if not args.quiet:
            print(f"\nwrote {', '.join(str(p) for p in written)}", file=out)
    if args.trf:
        rounds = context.rounds or replayed.total_rounds
        _write_trf(Path(args.trf), replayed, replace(context.rules, total_rounds=rounds))
        if not args.quiet:
            print(f"\nwrote {args.trf}", file=out)
    if args.publish:
        _publish(args, context, replayed)
    if args.verify:
        verdict = _verdict(replayed.deviations, len(replayed.games), replayed.system,
                           replayed.system_from)  # fmt: skip
        print(verdict + _accepted(replayed.operator_notes), file=out)
        return 1 if replayed.deviations else 0
    return 0


def _replay_cup(args: argparse.Namespace, context: object, pgn: Path) -> int:
    """``replay`` of a knockout cup: its standings and, with ``--verify``, every
    deviation from the cup's rules (docs/pairing.md, "The knockout cup")."""
    from tcecd.formats.base import FormatSettings
    from tcecd.formats.knockout.format import knockout_settings
    from tcecd.replay.cup import cup_report, replay_cup
    from tcecd.replay.session import ReplayContext

    assert isinstance(context, ReplayContext)
    if context.players is None or context.knockout is None:
        raise ConfigError(
            f"{pgn.name}: replaying a knockout cup needs its config (--config EVENT.yaml: "
            "the seeds and the encounters' rules)"
        )
    for flag in ("out", "trf", "publish"):
        if getattr(args, flag):
            raise ConfigError(f"--{flag}: not available for a knockout cup")
    settings = knockout_settings(FormatSettings(system="knockout", extra=context.knockout))
    replayed = replay_cup(pgn, context.players, settings, time_control=context.time_control)
    out = sys.stdout
    if not args.quiet:
        print(cup_report(replayed, context.players), file=out)
    if args.verify:
        for note in replayed.operator_notes:
            print(f"accepted as recorded: {note}", file=out)
        for deviation in replayed.deviations:
            print(deviation, file=out)
        verdict = _verdict(replayed.deviations, len(replayed.games), "knockout", "given")
        print(verdict + _accepted(replayed.operator_notes), file=out)
        return 1 if replayed.deviations else 0
    return 0


#: Where the system a replay verified against came from (ReplayedEvent.system_from).
_SYSTEM_FROM = {
    "given": "",
    "pgn": " (the system the games name in their PairingSystem tag; --system NAME for another)",
    "default": " (assumed: the PGN does not name its pairing system; give --system NAME or "
    "--config EVENT.yaml for another)",
}


def _accepted(notes: Sequence[str]) -> str:
    n = len(notes)
    return f" ({n} operator decision{'s' if n != 1 else ''} accepted as recorded)" if n else ""


def _verdict(deviations: Sequence[object], games: int, system: str, source: str) -> str:
    from tcecd.replay.event import system_title

    rules = f"the {system_title(system)} rules"
    if not deviations:
        return f"OK: all {games} games follow {rules}"
    n = len(deviations)
    return f"FAILED: {n} deviation{'s' if n != 1 else ''} from {rules}{_SYSTEM_FROM[source]}"


def _publish(args: argparse.Namespace, context: object, replayed: object) -> None:
    from tcecd.bus.settings import MqttSettings
    from tcecd.logging import configure
    from tcecd.replay.event import ReplayedEvent
    from tcecd.replay.publish import publish_replay
    from tcecd.replay.session import ReplayContext

    assert isinstance(context, ReplayContext)
    assert isinstance(replayed, ReplayedEvent)
    # The publisher logs to stderr: its warnings (broker unreachable), not
    # its reconnection chatter.
    configure("warning", "console")
    settings = (
        MqttSettings.from_url(args.mqtt)
        if args.mqtt
        else context.mqtt or MqttSettings.from_url(DEFAULT_MQTT_URL)
    )
    settings = with_password(settings, command_line_password(args, os.environ))
    count = eventloop.run(
        publish_replay(
            replayed,
            settings,
            lambda rounds: context.standings(replayed, rounds),
            speed=args.speed,
            rounds_total=context.rounds,
        )
    )
    if not args.quiet:
        print(f"\npublished {count} events to {settings.redacted_url()}", file=sys.stdout)


def _write_trf(path: Path, replayed: object, rules: RoundContext) -> None:
    """The finished rounds as TRF-2016 (with the event's rules: ``XXR``,
    ``XXP``, ``XXS``/``BB?``, ``XXA``); an unfinished last round is left out."""
    from tcecd.errors import TrfError
    from tcecd.replay.event import ReplayedEvent
    from tcecd.trf import TrfEvent, format_trf

    assert isinstance(replayed, ReplayedEvent)
    if replayed.double:
        raise TrfError(
            f"--trf {path}: a TRF-2016 file holds one game per round; {replayed.path.name} "
            "has double rounds"
        )
    event = TrfEvent(
        name=replayed.event or None,
        players=replayed.players,
        rounds=replayed.rounds,
        context=rules,
    )
    try:
        path.write_text(format_trf(event), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--trf {path}: cannot write: {exc.strerror or exc}") from None
