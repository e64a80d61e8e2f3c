"""``tcecd simulate``: play a whole simulated TCEC Swiss event.

Synthetic players with ratings, results from a seeded Elo model
(:mod:`tcecd.pairing.simulation`), pairings by the real TCEC Swiss system. The
same arguments always print the same bytes. ``--json`` prints one document in
the format :mod:`tcecd.pairing.state_json` reads back (``tcecd pair``).
"""

from __future__ import annotations

import argparse
import sys

from tcecd.outputs.text import standings_table
from tcecd.pairing.base import Player, RoundRecord, Standing

HELP = "simulate a whole TCEC Swiss event with synthetic players"

_SEEDINGS = ("group", "rating", "random", "explicit")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, required=True, metavar="N", help="field size")
    parser.add_argument("--rounds", type=int, required=True, metavar="R", help="rounds to play")
    parser.add_argument(
        "--double", action="store_true", help="double rounds (each pair plays both colours)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="RNG seed for ratings, seeding, results"
    )
    parser.add_argument(
        "--seeding",
        choices=_SEEDINGS,
        default="group",
        help="seeding procedure (default: group; explicit = generation order)",
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


def run(args: argparse.Namespace) -> int:
    from tcecd.pairing.simulation import simulate_event
    from tcecd.pairing.state_json import dumps, event_to_json

    event = simulate_event(
        args.players,
        args.rounds,
        double=args.double,
        seed=args.seed,
        seeding=args.seeding,
        groups=args.groups,
        draw_rate=args.draw_rate,
    )
    if args.json:
        doc = event_to_json(event.players, event.double, event.rounds, event.standings)
        sys.stdout.write(dumps(doc))
    else:
        sys.stdout.write(render_text(event.players, event.double, event.rounds, event.standings))
    return 0


def render_text(
    players: tuple[Player, ...],
    double: bool,
    rounds: tuple[RoundRecord, ...],
    table: tuple[Standing, ...],
) -> str:
    """Readable tables: every round in playing order, then the standings."""
    by_id = {p.id: p for p in players}
    width = max(len(p.id) for p in players)
    kind = "double" if double else "single"
    lines = [f"TCEC Swiss: {len(players)} players, {len(rounds)} {kind} round(s)", ""]
    for rnd in rounds:
        head = f"Round {rnd.round}"
        if rnd.bye is not None:
            head += f"  BYE: {rnd.bye}"
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
