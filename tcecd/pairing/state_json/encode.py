"""Writing the event document (:mod:`tcecd.pairing.state_json`): players,
rounds, the next round's context and standings as JSON values, and the
canonical text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from tcecd.pairing.base import (
    Bye,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
    Standing,
)
from tcecd.pairing.points import (
    Acceleration,
    ForbiddenPairs,
    PointSystem,
)

#: The system a document that names none is paired with.
SYSTEM = "tcec-swiss"


def player_to_json(player: Player) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": player.id,
        "name": player.name,
        "seed": player.seed,
        "rating": player.rating,
    }
    if player.title is not None:
        doc["title"] = player.title
    return doc


def byes_to_json(byes: Sequence[Bye]) -> list[dict[str, Any]]:
    return [{"player": b.player, "kind": b.kind.value} for b in byes]


def number(value: Fraction) -> int | float:
    """A point value for JSON: an int when whole (multiples of 0.1 otherwise)."""
    return value.numerator if value.denominator == 1 else float(value)


def points_to_json(points: PointSystem) -> dict[str, int | float]:
    """Points by outcome (every outcome, in :data:`OUTCOMES` order)."""
    return {name: number(value) for name, value in points.values().items()}


def acceleration_to_json(
    acceleration: Acceleration, points: PointSystem
) -> dict[str, list[int | float]]:
    """Virtual points (in points) per player, rounds 1, 2, ..."""
    return {
        pid: [number(points.fraction(v)) for v in values]
        for pid, values in acceleration.table
    }


def forbidden_to_json(pairs: ForbiddenPairs) -> list[list[str]]:
    return sorted(sorted(pair) for pair in pairs)


def context_to_json(context: RoundContext) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "total_rounds": context.total_rounds,
        "first_colour": context.first_colour.value,
        "requested_byes": byes_to_json(context.requested_byes),
    }
    if context.forbidden_pairs:
        doc["forbidden_pairs"] = forbidden_to_json(context.forbidden_pairs)
    if not context.points.is_standard:
        doc["points"] = points_to_json(context.points)
    if context.acceleration:
        doc["acceleration"] = acceleration_to_json(context.acceleration, context.points)
    return doc


def round_to_json(rnd: RoundRecord | RoundPairing) -> dict[str, Any]:
    """A finished round (games with results) or a freshly paired one (games
    without results, plus ``"pairs"``: first-of-pair / second-of-pair in
    STEP 4 order). Games are in playing order."""
    doc: dict[str, Any] = {"round": rnd.round}
    if len(rnd.byes) > 1:
        doc["byes"] = sorted(rnd.byes)
    else:
        doc["bye"] = next(iter(rnd.byes), None)
    doc["removed_history_rounds"] = list(rnd.removed_history_rounds)
    if isinstance(rnd, RoundRecord):
        games: list[dict[str, Any]] = []
        for g in rnd.games:
            game: dict[str, Any] = {"white": g.white, "black": g.black, "result": g.result.value}
            if not g.played:
                game["played"] = False
            games.append(game)
        doc["games"] = games
    else:
        doc["games"] = [{"white": g.white, "black": g.black} for g in rnd.games]
        doc["pairs"] = [{"first": p.first, "second": p.second} for p in rnd.pairs]
    if rnd.requested_byes:
        doc["requested_byes"] = byes_to_json(rnd.requested_byes)
    return doc


def standing_to_json(standing: Standing) -> dict[str, Any]:
    return {
        "rank": standing.rank,
        "id": standing.id,
        "score": standing.score,
        "byes": standing.byes,
        "tiebreaks": dict(standing.tiebreaks),
    }


def event_to_json(
    players: Sequence[Player],
    double: bool,
    rounds: Sequence[RoundRecord],
    standings: Sequence[Standing] | None = None,
    *,
    system: str = SYSTEM,
    context: RoundContext | None = None,
) -> dict[str, Any]:
    """The whole document; ``"standings"`` only when given, ``"context"``
    only when given and not the default :class:`RoundContext`."""
    doc: dict[str, Any] = {
        "system": system,
        "double": double,
        "players": [player_to_json(p) for p in players],
        "rounds": [round_to_json(r) for r in rounds],
    }
    if context is not None and context != RoundContext():
        doc["context"] = context_to_json(context)
    if standings is not None:
        doc["standings"] = [standing_to_json(s) for s in standings]
    return doc


def dumps(doc: dict[str, Any]) -> str:
    """Canonical text: two-space indent, keys in insertion order, final newline."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
