"""Simulate the rest of an event many times: the distribution of final places.

Each simulation completes the round being played (its unfinished games), then
pairs every remaining round with the event's own pairing system
(:func:`tcecd.pairing.registry.get_system`, the event's ``double`` flag and
``RoundContext(total_rounds=...)``), draws each game's result from the fitted
model (:mod:`tcecd.forecast.model`) and ranks the final table with the
event's tiebreaks (:func:`tcecd.pairing.standings.rank_order`, the order of
:func:`~tcecd.pairing.standings.standings`). Counting the
places over the simulations gives ``P(place = i)``, ``P(top k)`` and the
expected final score.

Deterministic for a given seed, whatever the number of worker processes: the
simulations are cut into fixed chunks of :data:`CHUNK` and chunk ``c`` draws
from ``numpy.random.SeedSequence(seed).spawn(...)[c]``; the counts are
integers, summed in any order to the same total.

Each simulation first draws the engines' ratings from the fit's posterior
(the Laplace approximation of :mod:`tcecd.forecast.model`), so the forecast
carries the uncertainty of the strengths as well as the luck of the games.

Speed (bench/forecast.py): a game's outcome needs one uniform number and two
comparisons against cut-offs computed for every player pair at once (numpy)
when the simulation's ratings are drawn; the uniforms of a simulation are
drawn in one numpy call. The finished rounds are read once per chunk into a
pairing session (:mod:`tcecd.pairing.session`), which each simulation copies
and carries on round by round with running totals, and whose totals rank the
final table (tiebreaks computed only for the players level on the criteria
before). A session that pairs in player indices
(:class:`~tcecd.pairing.session.IndexedSession`, TCEC Swiss) is handed the
results as half-points, so the rounds it pairs itself build no game or record
objects. What is left is the pairing itself, once per simulated round: see
:mod:`tcecd.forecast.parallel` for using several cores.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, cast

from tcecd.domain import PlayerId, Result
from tcecd.errors import ConfigError
from tcecd.forecast.model import EloModel
from tcecd.pairing.base import (
    PlayedGame,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
)
from tcecd.pairing.registry import SystemOptions, get_system
from tcecd.pairing.session import IndexedRound, IndexedSession, open_session
from tcecd.pairing.standings import DEFAULT_TIEBREAKS, check_tiebreaks, rank_order

if TYPE_CHECKING:
    import numpy as np

#: Simulations per independently seeded chunk (the unit of parallel work).
CHUNK = 50


@dataclass(frozen=True, slots=True)
class EventSnapshot:
    """An event so far, as the forecast reads it.

    ``rounds``: the finished rounds. ``current``: the pairing of round
    ``len(rounds) + 1`` when it has been paired, and ``current_games``: its
    games finished so far (any order; a game is found by its white and black,
    which tell even a double round's two legs apart). ``total_rounds``: the
    event's number of rounds.
    """

    system: str
    players: tuple[Player, ...]
    double: bool
    rounds: tuple[RoundRecord, ...]
    total_rounds: int
    tiebreaks: tuple[str, ...] = DEFAULT_TIEBREAKS
    current: RoundPairing | None = None
    current_games: tuple[PlayedGame, ...] = ()
    context: RoundContext = field(default_factory=RoundContext)
    time_limit_s: float = 10.0

    def games_so_far(self) -> list[PlayedGame]:
        """Every finished game (the model is fitted to these)."""
        return [g for r in self.rounds for g in r.games] + list(self.current_games)


@dataclass(frozen=True, slots=True)
class Counts:
    """Raw tallies of a batch of simulations (summable)."""

    simulations: int
    #: places[i][j]: simulations in which player i (snapshot order) finished j+1
    places: list[list[int]]
    #: sum of final scores in units of the event's point system (half-points
    #: in the standard one), per player
    score_half: list[int]

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.simulations + other.simulations,
            [[a + b for a, b in zip(x, y, strict=True)]
             for x, y in zip(self.places, other.places, strict=True)],
            [a + b for a, b in zip(self.score_half, other.score_half, strict=True)],
        )


def chunk_sizes(simulations: int) -> list[int]:
    """The fixed chunks ``simulations`` is cut into."""
    full, rest = divmod(simulations, CHUNK)
    return [CHUNK] * full + ([rest] if rest else [])


def chunk_seeds(seed: int, chunks: int) -> list[np.random.SeedSequence]:
    import numpy as np  # here: importing tcecd.events must not cost numpy's import

    return list(np.random.SeedSequence(seed).spawn(chunks))


def check_snapshot(snap: EventSnapshot) -> None:
    if snap.total_rounds < len(snap.rounds):
        raise ConfigError(
            f"the event has {snap.total_rounds} rounds but {len(snap.rounds)} are finished"
        )
    if snap.current is not None and snap.current.round != len(snap.rounds) + 1:
        raise ConfigError(
            f"the current round is {snap.current.round}, expected {len(snap.rounds) + 1}"
        )


def _round_record(pairing: RoundPairing, games: list[PlayedGame]) -> RoundRecord:
    """The record of a simulated round: ``pairing`` with these results."""
    return pairing.record(games)


def simulate_chunk(
    snap: EventSnapshot, model: EloModel, count: int, seed: np.random.SeedSequence
) -> Counts:
    """Play the rest of the event ``count`` times from ``seed`` and count places."""
    import numpy as np

    check_snapshot(snap)
    players = snap.players
    ids = [p.id for p in players]
    n = len(ids)
    index = {pid: i for i, pid in enumerate(ids)}
    mean = np.array([model.ratings[pid] for pid in ids])
    # The ratings of each simulation are drawn from the fit's posterior
    # (Laplace approximation, docs/forecast.md): the forecast carries the
    # uncertainty of the strengths, not only the luck of the games.
    cov = np.array(model.covariance) if model.covariance else np.zeros((n, n))
    if model.ids and list(model.ids) != ids:
        raise ValueError("the model was fitted to another field")
    chol = np.linalg.cholesky(cov + np.eye(n) * 1e-9)
    check_tiebreaks(snap.tiebreaks)
    system = get_system(snap.system, SystemOptions(time_limit_s=snap.time_limit_s))
    # The event's context (first colour, rules: forbidden pairs, points,
    # virtual points) for every round left; no requested byes.
    context = replace(snap.context, total_rounds=snap.total_rounds, requested_byes=())
    rng = np.random.Generator(np.random.PCG64(seed))
    per_round = n if snap.double else n // 2 + 1
    remaining = snap.total_rounds - len(snap.rounds)
    places = [[0] * n for _ in range(n)]
    score_half = [0] * n
    done = {(g.white, g.black): g for g in snap.current_games}

    h, d = model.white_advantage, model.draw_rate

    def cut_tables() -> tuple[list[list[float]], list[list[float]]]:
        """This simulation's cut-offs per (white, black) index pair:
        ``u < win`` is 1-0, ``u < draw`` is 1/2-1/2, else 0-1 (the model's
        outcome probabilities, with ratings drawn from the posterior)."""
        r = mean + chol @ rng.standard_normal(n)
        e = 1.0 / (1.0 + np.power(10.0, -(r[:, None] - r[None, :] + h) / 400.0))
        half_draw = d * np.minimum(e, 1.0 - e)
        return (e - half_draw).tolist(), (e + half_draw).tolist()

    cut_win: list[list[float]] = []
    cut_draw: list[list[float]] = []
    white_wins, draw, black_wins = Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS

    def play(white: PlayerId, black: PlayerId, u: float) -> PlayedGame:
        wi = index[white]
        bi = index[black]
        if u < cut_win[wi][bi]:
            return PlayedGame(white, black, white_wins)
        if u < cut_draw[wi][bi]:
            return PlayedGame(white, black, draw)
        return PlayedGame(white, black, black_wins)

    # The state after the finished rounds, tallied once; each simulation
    # continues a copy of it (tcecd.pairing.session).
    start = open_session(
        system, players, snap.rounds, double=snap.double, points=context.points
    )
    # A session that pairs and records in player indices (TCEC Swiss) plays
    # the rounds it pairs itself without building games and records as
    # objects; its indices are positions in ``players``, as here.
    indexed = start if isinstance(start, IndexedSession) else None
    # The first round left to pair depends on the finished rounds only: the
    # same in every simulation, so it is paired once.
    first: RoundPairing | None = snap.current
    first_indexed: IndexedRound | None = None
    if first is None and count > 0 and start.rounds < snap.total_rounds:
        if indexed is not None:
            first_indexed = indexed.pair_games(context)
        else:
            first = start.pair(context)
    for _ in range(count):
        cut_win[:], cut_draw[:] = cut_tables()
        uniforms = rng.random(max(1, remaining * per_round)).tolist()

        k = 0
        session = start.copy()
        pairing = first
        if pairing is snap.current and pairing is not None:
            # The round being played: its finished games as they are.
            games: list[PlayedGame] = []
            for g in pairing.games:
                finished = done.get((g.white, g.black))
                if finished is not None:
                    games.append(finished)
                else:
                    games.append(play(g.white, g.black, uniforms[k]))
                    k += 1
            session.record(_round_record(pairing, games))
            pairing = None
        if indexed is not None:
            fast = cast(IndexedSession, session)
            paired = first_indexed
            while session.rounds < snap.total_rounds:
                if paired is None:
                    paired = fast.pair_games(context)
                halves: list[int] = []
                for w, b in paired.games:
                    u = uniforms[k]
                    k += 1
                    halves.append(2 if u < cut_win[w][b] else 1 if u < cut_draw[w][b] else 0)
                fast.record_games(paired, halves)
                paired = None
        while session.rounds < snap.total_rounds:
            if pairing is None:
                pairing = session.pair(context)
            games = [play(g.white, g.black, uniforms[k + i]) for i, g in enumerate(pairing.games)]
            k += len(games)
            session.record(_round_record(pairing, games))
            pairing = None
        totals = session.totals
        ranked = rank_order(players, totals, snap.tiebreaks, unit=context.points.unit)
        for place, p in enumerate(ranked):
            i = index[p.id]
            places[i][place] += 1
            score_half[i] += totals[p.id].score
    return Counts(count, places, score_half)


def simulate(
    snap: EventSnapshot, model: EloModel, simulations: int, seed: int
) -> Counts:
    """All ``simulations`` in this process, chunk by chunk (see the module docstring)."""
    sizes = chunk_sizes(simulations)
    total = Counts(0, [[0] * len(snap.players) for _ in snap.players], [0] * len(snap.players))
    for size, ss in zip(sizes, chunk_seeds(seed, len(sizes)), strict=True):
        total = total + simulate_chunk(snap, model, size, ss)
    return total
