"""A whole simulated event: synthetic players, Elo-model results, pairings
by any registered system (:mod:`tcecd.pairing.registry`; TCEC Swiss by default).

Pure and deterministic: everything random comes from one
:class:`random.Random` seeded by the caller, so the same arguments always give
the same event (``tcecd simulate`` promises byte-identical output).

The result model: white's expected score is the Elo expectation with a small
white advantage, ``E = 1 / (1 + 10 ** ((Rb - Rw - WHITE_ADVANTAGE) / 400))``;
a draw has probability ``draw_rate * 2 * min(E, 1 - E)`` (``draw_rate`` between
equals, fewer draws in lopsided games); the rest of the expectation is wins,
so the model's expected score is exactly ``E``. Ratings are drawn around 3300
with a spread of 200, so scores spread like a real event.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tcecd.domain import Result
from tcecd.errors import ConfigError, PairingError
from tcecd.pairing.base import PlayedGame, Player, RoundContext, RoundRecord, Standing
from tcecd.pairing.points import STANDARD, PointSystem, baku, forbidden_pairs
from tcecd.pairing.registry import SystemOptions, canonical_name, check_rules, get_system
from tcecd.pairing.seeding import Entry, seed_players
from tcecd.pairing.standings import DEFAULT_TIEBREAKS, standings

#: Elo points white's first move is worth in the model.
WHITE_ADVANTAGE = 35.0
RATING_MEAN = 3300.0
RATING_SPREAD = 200.0


#: The system ``simulate_event`` uses when none is named.
DEFAULT_SYSTEM = "tcec-swiss"


@dataclass(frozen=True, slots=True)
class SimulatedEvent:
    """The simulated event; ``context`` is what every round was paired with
    (the total rounds, the first colour and the event's rules; no requested
    byes)."""

    players: tuple[Player, ...]
    double: bool
    rounds: tuple[RoundRecord, ...]
    standings: tuple[Standing, ...]
    system: str
    context: RoundContext


def synthetic_entries(count: int, rng: random.Random) -> list[Entry]:
    """``count`` players ``P001``, ``P002``, ... with ratings from ``rng``."""
    width = max(2, len(str(count)))
    return [
        (
            f"P{i:0{width}d}",
            f"Engine {i:0{width}d}",
            round(rng.gauss(RATING_MEAN, RATING_SPREAD)),
        )
        for i in range(1, count + 1)
    ]


def draw_result(
    white_rating: float, black_rating: float, rng: random.Random, draw_rate: float
) -> Result:
    """One game's result from the Elo model (module docstring)."""
    expected = 1.0 / (1.0 + 10.0 ** ((black_rating - white_rating - WHITE_ADVANTAGE) / 400.0))
    p_draw = draw_rate * 2.0 * min(expected, 1.0 - expected)
    u = rng.random()
    if u < expected - p_draw / 2:
        return Result.WHITE_WINS
    if u < expected + p_draw / 2:
        return Result.DRAW
    return Result.BLACK_WINS


def simulate_event(
    players: int,
    rounds: int,
    *,
    double: bool = False,
    seed: int = 0,
    seeding: str | None = None,
    groups: int | None = None,
    draw_rate: float = 0.5,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    system: str = DEFAULT_SYSTEM,
    options: SystemOptions | None = None,
    points: PointSystem = STANDARD,
    baku_acceleration: bool = False,
    forbidden: Sequence[tuple[str, str]] = (),
) -> SimulatedEvent:
    """Seed ``players`` synthetic players and play ``rounds`` rounds paired by
    ``system``, under the event rules given: ``points`` (scores and
    standings), FIDE's Baku acceleration (C.04.5.1) and ``forbidden`` pairs
    (player ids).

    ``seeding`` defaults to TCEC's group seeding for TCEC Swiss and to rating
    order for every other system (FIDE's pairing numbers: C.04.2 "initial
    ranking list" by rating). Every round is paired with ``total_rounds =
    rounds`` and white for the top seed in round 1.

    Raises :class:`ConfigError` for bad arguments and
    :class:`~tcecd.errors.PairingError` for an unknown system or a round that
    cannot be paired.
    """
    if players < 1:
        raise ConfigError(f"--players must be at least 1, not {players}")
    if rounds < 0:
        raise ConfigError(f"--rounds must be at least 0, not {rounds}")
    if not 0.0 <= draw_rate <= 1.0:
        raise ConfigError(f"--draw-rate must be between 0 and 1, not {draw_rate}")
    name = canonical_name(system)
    if seeding is None:
        seeding = "group" if name == DEFAULT_SYSTEM else "rating"
    pairing_system = get_system(name, options)
    rng = random.Random(seed)
    entries = synthetic_entries(players, rng)
    field = seed_players(
        entries,
        seeding,
        groups=groups,
        rng_seed=rng.randrange(2**32) if seeding == "random" else None,
    )
    ids = {p.id for p in field}
    for pair in forbidden:
        for pid in pair:
            if pid not in ids:
                raise ConfigError(f"--forbid: unknown player {pid!r} (players: P01..)")
    context = RoundContext(
        total_rounds=rounds, forbidden_pairs=forbidden_pairs(forbidden), points=points
    )
    if baku_acceleration:
        try:
            scaled, virtual = baku(field, rounds, points)
        except ValueError as exc:
            raise ConfigError(f"--acceleration baku: {exc}") from None
        context = replace(context, points=scaled, acceleration=virtual)
    try:
        check_rules(name, context)
    except PairingError as exc:
        raise ConfigError(f"--system {name}: {exc}") from None
    rating = {p.id: float(p.rating or RATING_MEAN) for p in field}
    history: list[RoundRecord] = []
    for _ in range(rounds):
        pairing = pairing_system.pair(field, history, double=double, context=context)
        games = tuple(
            PlayedGame(
                g.white, g.black, draw_result(rating[g.white], rating[g.black], rng, draw_rate)
            )
            for g in pairing.games
        )
        history.append(pairing.record(games))
    table = standings(
        field, history, double=double, tiebreaks=tiebreaks, points=context.points
    )
    return SimulatedEvent(field, double, tuple(history), table, name, context)
