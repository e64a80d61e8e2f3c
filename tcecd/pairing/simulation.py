"""A whole simulated TCEC Swiss event: synthetic players, Elo-model results.

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
from dataclasses import dataclass

from tcecd.domain import Result
from tcecd.errors import ConfigError
from tcecd.pairing.base import PlayedGame, Player, RoundRecord, Standing
from tcecd.pairing.seeding import Entry, seed_players
from tcecd.pairing.standings import DEFAULT_TIEBREAKS, standings
from tcecd.pairing.tcec_swiss import TcecSwiss

#: Elo points white's first move is worth in the model.
WHITE_ADVANTAGE = 35.0
RATING_MEAN = 3300.0
RATING_SPREAD = 200.0


@dataclass(frozen=True, slots=True)
class SimulatedEvent:
    players: tuple[Player, ...]
    double: bool
    rounds: tuple[RoundRecord, ...]
    standings: tuple[Standing, ...]


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
    seeding: str = "group",
    groups: int | None = None,
    draw_rate: float = 0.5,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
) -> SimulatedEvent:
    """Seed ``players`` synthetic players and play ``rounds`` rounds.

    Raises :class:`ConfigError` for bad arguments and
    :class:`~tcecd.errors.PairingError` if a round cannot be paired.
    """
    if players < 1:
        raise ConfigError(f"--players must be at least 1, not {players}")
    if rounds < 0:
        raise ConfigError(f"--rounds must be at least 0, not {rounds}")
    if not 0.0 <= draw_rate <= 1.0:
        raise ConfigError(f"--draw-rate must be between 0 and 1, not {draw_rate}")
    rng = random.Random(seed)
    entries = synthetic_entries(players, rng)
    field = seed_players(
        entries,
        seeding,
        groups=groups,
        rng_seed=rng.randrange(2**32) if seeding == "random" else None,
    )
    rating = {p.id: float(p.rating or RATING_MEAN) for p in field}
    system = TcecSwiss()
    history: list[RoundRecord] = []
    for _ in range(rounds):
        pairing = system.pair(field, history, double=double)
        games = tuple(
            PlayedGame(
                g.white, g.black, draw_result(rating[g.white], rating[g.black], rng, draw_rate)
            )
            for g in pairing.games
        )
        history.append(
            RoundRecord(
                round=pairing.round,
                bye=pairing.bye,
                removed_history_rounds=pairing.removed_history_rounds,
                games=games,
            )
        )
    table = standings(field, history, double=double, tiebreaks=tiebreaks)
    return SimulatedEvent(field, double, tuple(history), table)
