"""``tcecd simulate``: play a whole simulated event.

Synthetic players with ratings, results from a seeded Elo model
(:mod:`tcecd.pairing.simulation`), pairings by any registered system
(``--system``, default TCEC Swiss). The same arguments always print the same
bytes. ``--json`` prints one document in the format
:mod:`tcecd.pairing.state_json` reads back (``tcecd pair``); ``--trf OUT``
also writes the event as a TRF-2016 file (with ``XXR`` and ``XXC``) that
``tcecd pair``, JaVaFo and bbpPairings read.

The event's rules, as an event config gives them: ``--points`` (a point
system, ``pairing.points``' syntax), ``--acceleration baku`` (FIDE's Baku
acceleration) and ``--forbid A,B`` (a forbidden pair, repeatable); the JSON
document's ``context`` and the TRF (``XXS``/``BB?``, ``XXA``, ``XXP``) carry
them.
"""

from __future__ import annotations

import argparse
import sys

from tcecd.outputs.text import standings_table
from tcecd.pairing.base import Player, RoundRecord, Standing
from tcecd.pairing.simulation import SimulatedEvent

HELP = "simulate a whole event with synthetic players (any pairing system)"

_SEEDINGS = ("group", "rating", "random", "explicit")
#: What --forecast read, for messages (tcecd.forecast.sources.Source.kind).
_SOURCE_NAMES = {
    "state": "event state",
    "trf": "TRF (no XXR line)",
    "json": "document (no context.total_rounds)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tcecd.pairing.registry import NAMES

    parser.add_argument(
        "--system",
        choices=NAMES,
        default=None,
        metavar="NAME",
        help=f"pairing system ({', '.join(NAMES)}; default tcec-swiss; with --forecast, the "
        "one the input names, else this, else dutch-2017 for a TRF and tcec-swiss otherwise)",
    )
    parser.add_argument("--players", type=int, metavar="N", help="field size")
    parser.add_argument(
        "--rounds",
        type=int,
        metavar="R",
        help="rounds to play (with --forecast: the event's rounds, when the state has no "
        "context.total_rounds)",
    )
    parser.add_argument(
        "--double", action="store_true", help="double rounds (each pair plays both colours)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="RNG seed for ratings, seeding, results"
    )
    parser.add_argument(
        "--seeding",
        choices=_SEEDINGS,
        default=None,
        help="seeding procedure (default: group for tcec-swiss, rating for the others; "
        "explicit = generation order)",
    )
    parser.add_argument(
        "--groups", type=int, metavar="G", help="number of groups for group seeding (even)"
    )
    parser.add_argument(
        "--draw-rate",
        type=float,
        default=0.5,
        metavar="D",
        help="draw probability between equal players, 0..1 (default 0.5)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--forecast",
        metavar="EVENT",
        help="instead: forecast the final places of an event by simulating its remaining "
        "rounds; EVENT is its state directory, its event.sqlite, a TRF-2016 file (tcecd "
        "replay --trf) or a JSON document (--json, tcecd pair)",
    )
    parser.add_argument(
        "--simulations",
        type=int,
        default=2000,
        metavar="N",
        help="--forecast: simulations of the remaining rounds (default 2000)",
    )
    parser.add_argument(
        "--top", type=int, default=1, metavar="K", help="--forecast: report P(top K) (default 1)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="W",
        help="--forecast: worker processes (default 1; same result for any number)",
    )
    parser.add_argument(
        "--trf",
        metavar="OUT",
        help="also write the event as a TRF-2016 file (single rounds only)",
    )
    parser.add_argument(
        "--points",
        metavar="W-D-L",
        help="the point system (as the config's pairing.points: 3-1-0, ...; default 1-0.5-0)",
    )
    parser.add_argument(
        "--acceleration",
        choices=("baku",),
        help="accelerate the first rounds by FIDE's Baku method (C.04.5.1)",
    )
    parser.add_argument(
        "--forbid",
        action="append",
        default=[],
        metavar="A,B",
        help="two player ids (P01, ...) who must never meet; repeatable",
    )


def run(args: argparse.Namespace) -> int:
    from tcecd.errors import ConfigError
    from tcecd.pairing.points import STANDARD, parse_points
    from tcecd.pairing.simulation import simulate_event
    from tcecd.pairing.state_json import dumps, event_to_json

    if args.forecast:
        return _forecast(args)
    for flag, value in (("--players", args.players), ("--rounds", args.rounds)):
        if value is None:
            raise ConfigError(f"{flag} is required (unless --forecast)")
    if args.players < 2:
        # As an event config's engines: a field of one plays nobody.
        raise ConfigError(f"--players: an event needs at least two players, not {args.players}")
    if args.trf and args.double:
        raise ConfigError("--trf: a TRF-2016 file holds one game per round: drop --double")
    points = STANDARD
    if args.points is not None:
        try:
            points = parse_points(args.points)
        except ValueError as exc:
            raise ConfigError(f"--points {args.points}: {exc}") from None
    forbidden: list[tuple[str, str]] = []
    for text in args.forbid:
        pair = text.split(",")
        if len(pair) != 2 or not all(pair):
            raise ConfigError(f"--forbid: expected two player ids A,B, got {text!r}")
        forbidden.append((pair[0], pair[1]))
    event = simulate_event(
        args.players,
        args.rounds,
        double=args.double,
        seed=args.seed,
        seeding=args.seeding,
        groups=args.groups,
        draw_rate=args.draw_rate,
        system=args.system or "tcec-swiss",
        points=points,
        baku_acceleration=args.acceleration == "baku",
        forbidden=forbidden,
    )
    if args.trf:
        _write_trf(args.trf, event)
    if args.json:
        # TCEC Swiss reads no context: its documents keep their old shape.
        context = None if event.system == "tcec-swiss" else event.context
        doc = event_to_json(
            event.players,
            event.double,
            event.rounds,
            event.standings,
            system=event.system,
            context=context,
        )
        sys.stdout.write(dumps(doc))
    else:
        sys.stdout.write(
            render_text(event.players, event.double, event.rounds, event.standings, event.system)
        )
    return 0


def _forecast(args: argparse.Namespace) -> int:
    """``--forecast EVENT``: the forecast table of the event (a state directory, its
    event.sqlite, a TRF or a JSON document: :mod:`tcecd.forecast.sources`)."""
    import json

    from tcecd.bus.payloads import forecast_fields
    from tcecd.errors import ConfigError
    from tcecd.forecast.forecast import ForecastSettings, forecast
    from tcecd.forecast.montecarlo import simulate
    from tcecd.forecast.sources import read_source
    from tcecd.forecast.text import forecast_lines
    from tcecd.pairing.registry import get_system

    path = args.forecast
    # --system only where the input does not name one (a TRF never does).
    source = read_source(path, system=args.system)
    system = source.system
    total = source.total_rounds
    if total is None:
        total = args.rounds
    if total is None:
        total = get_system(system).rounds_for(len(source.players))
    if total is None:
        raise ConfigError(
            f"--forecast {path}: how many rounds does the event have? The "
            f"{_SOURCE_NAMES[source.kind]} does not say: give --rounds"
        )
    if total < len(source.rounds):
        raise ConfigError(
            f"--rounds {total}: {path} already has {len(source.rounds)} finished round(s)"
        )
    snap = source.snapshot(total)
    settings = ForecastSettings(simulations=args.simulations, top=args.top, seed=args.seed)
    if args.workers > 1:
        from tcecd.forecast.parallel import make_pool, simulate_in

        with make_pool(args.workers) as pool:
            result = forecast(
                snap, settings, lambda s, m, n, seed: simulate_in(pool, s, m, n, seed)
            )
    else:
        result = forecast(snap, settings, simulate)
    doc = forecast_fields(result)
    if args.json:
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        label = "TCEC Swiss" if system == "tcec-swiss" else system
        sys.stdout.write(f"{label}: {len(source.players)} players\n")
        sys.stdout.write("\n".join(forecast_lines(doc)) + "\n")
    return 0


def _write_trf(path: str, event: SimulatedEvent) -> None:
    from tcecd.errors import ConfigError
    from tcecd.trf import TrfEvent, format_trf

    name = f"tcecd simulate: {len(event.players)} players, {event.system}"
    text = format_trf(TrfEvent(name, event.players, event.rounds, event.context))
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise ConfigError(f"--trf {path}: cannot write: {exc.strerror or exc}") from None


def render_text(
    players: tuple[Player, ...],
    double: bool,
    rounds: tuple[RoundRecord, ...],
    table: tuple[Standing, ...],
    system: str = "tcec-swiss",
) -> str:
    """Readable tables: every round in playing order, then the standings."""
    by_id = {p.id: p for p in players}
    width = max(len(p.id) for p in players)
    kind = "double" if double else "single"
    label = "TCEC Swiss" if system == "tcec-swiss" else system
    lines = [f"{label}: {len(players)} players, {len(rounds)} {kind} round(s)", ""]
    for rnd in rounds:
        head = f"Round {rnd.round}"
        if rnd.byes:
            head += f"  BYE: {', '.join(sorted(rnd.byes, key=lambda pid: by_id[pid].seed))}"
        if rnd.removed_history_rounds:
            removed = ", ".join(str(r) for r in rnd.removed_history_rounds)
            head += f"  (history rounds removed: {removed})"
        lines.append(head)
        for number, g in enumerate(rnd.games, start=1):
            lines.append(
                f"  {rnd.round}.{number:<4} {g.white:<{width}} ({by_id[g.white].rating})"
                f"  {g.result.value:^7}  {g.black:<{width}} ({by_id[g.black].rating})"
            )
        lines.append("")
    lines += ["Final standings", standings_table(table, players)]
    return "\n".join(lines) + "\n"
