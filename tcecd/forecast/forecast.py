"""The forecast as a value: fit the model, simulate, summarise (pure).

:func:`forecast` is what ``tcecd simulate --forecast``, the daemon and the
calibration bench call. It returns a :class:`Forecast`: per player the current
score, the fitted and prior ratings, the expected final score, ``P(place = i)``
for every place and ``P(top k)``, plus what produced it (simulations, seed,
model parameters). Its JSON form is the MQTT ``forecast`` payload
(:mod:`tcecd.bus.payloads`, docs/events.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tcecd.domain import Color, PlayerId
from tcecd.errors import ConfigError
from tcecd.forecast.model import EloModel, ModelSettings, fit_model
from tcecd.forecast.montecarlo import Counts, EventSnapshot, check_snapshot, simulate
from tcecd.pairing.tally import tally


@dataclass(frozen=True, slots=True)
class ForecastSettings:
    """How many simulations, which top ``k`` to report, the seed, the model prior."""

    simulations: int = 1000
    top: int = 1
    seed: int = 0
    model: ModelSettings = field(default_factory=ModelSettings)


@dataclass(frozen=True, slots=True)
class PlayerForecast:
    """One player's forecast. ``places[i]`` is P(final place = i + 1)."""

    id: PlayerId
    name: str
    score: float
    prior_rating: float
    rating: float
    expected_score: float
    places: tuple[float, ...]
    top: float

    @property
    def expected_place(self) -> float:
        return sum((i + 1) * p for i, p in enumerate(self.places))


@dataclass(frozen=True, slots=True)
class Forecast:
    """The forecast after ``after_round`` finished rounds and ``after_game``
    finished games of the next one. ``players`` are ordered by expected place
    (best first; ties by expected score, then the snapshot's seed order)."""

    after_round: int
    after_game: int
    total_rounds: int
    simulations: int
    seed: int
    top: int
    model: EloModel
    prior_sd: float
    players: tuple[PlayerForecast, ...]


#: Runs the simulations: ``(snapshot, model, simulations, seed) -> Counts``
#: (:func:`tcecd.forecast.montecarlo.simulate` in process, or a process pool).
Runner = Callable[[EventSnapshot, EloModel, int, int], Counts]


def check_settings(settings: ForecastSettings, players: int) -> None:
    if settings.simulations < 1:
        raise ConfigError(f"forecast: simulations must be at least 1, not {settings.simulations}")
    if not 1 <= settings.top <= players:
        raise ConfigError(f"forecast: top must be in 1..{players}, not {settings.top}")


def forecast(
    snap: EventSnapshot, settings: ForecastSettings = ForecastSettings(), runner: Runner = simulate
) -> Forecast:
    """Fit the model to the games so far and simulate the rest of the event."""
    check_snapshot(snap)
    check_settings(settings, len(snap.players))
    model = fit_model(snap.players, snap.games_so_far(), settings.model)
    # Nothing left to play: every simulation would give the same table.
    certain = snap.total_rounds == len(snap.rounds)
    counts = runner(snap, model, 1 if certain else settings.simulations, settings.seed)
    return summarise(snap, settings, model, counts)


def summarise(
    snap: EventSnapshot, settings: ForecastSettings, model: EloModel, counts: Counts
) -> Forecast:
    sims = counts.simulations
    records = list(snap.rounds)
    points = snap.context.points
    totals = tally(snap.players, records, double=snap.double, points=points)
    current = {p.id: 0 for p in snap.players}
    for g in snap.current_games:
        current[g.white] += points.game(g.result, Color.WHITE, g.played)
        current[g.black] += points.game(g.result, Color.BLACK, g.played)
    rows: list[tuple[float, float, int, PlayerForecast]] = []
    for i, p in enumerate(snap.players):
        places = tuple(c / sims for c in counts.places[i])
        expected_place = sum((j + 1) * c for j, c in enumerate(counts.places[i])) / sims
        expected = counts.score_half[i] / points.unit / sims
        row = PlayerForecast(
            id=p.id,
            name=p.name,
            score=(totals[p.id].score + current[p.id]) / points.unit,
            prior_rating=model.priors[p.id],
            rating=model.ratings[p.id],
            expected_score=expected,
            places=places,
            top=sum(counts.places[i][: settings.top]) / sims,
        )
        rows.append((expected_place, -expected, i, row))
    rows.sort(key=lambda r: r[:3])
    return Forecast(
        after_round=len(snap.rounds),
        after_game=len(snap.current_games),
        total_rounds=snap.total_rounds,
        simulations=sims,
        seed=settings.seed,
        top=settings.top,
        model=model,
        prior_sd=settings.model.prior_sd,
        players=tuple(r[3] for r in rows),
    )

