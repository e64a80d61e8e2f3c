"""A quick match scheduler (``tcecd play``): N games per pair, M at a time.

Like cutechess-cli and fastchess: every pair of engines plays ``games`` games;
games 2k and 2k+1 of a pair use the same opening with colours reversed, so an
opening's bias cancels out. ``concurrency`` workers (one TaskGroup) take games
in order; each game gets fresh engine processes unless the engine's
definition says ``restart: keep-alive``. Finished games are appended to the
PGN file in the order they finish, and a line of progress is printed for each.

The summary gives each pair's score, the Elo difference with its 95% error
bar (the usual normal approximation on the per-game score, as cutechess-cli
computes it) and the count of every termination and fault.
"""

from __future__ import annotations

import asyncio
import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tcecd.config.engines import EngineConfig, OptionValue
from tcecd.domain import Color, GameId, Result
from tcecd.errors import TcecdError
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.openings import select_opening
from tcecd.game.record import Opening
from tcecd.game.timecontrol import TimeControl
from tcecd.pgn.writer import game_pgn
from tcecd.runner.game import (
    Fault,
    FaultPolicy,
    GameOutcome,
    GameSetup,
    play_game,
    startup_outcome,
)
from tcecd.runner.session import EngineFault, EngineSession, SessionPool

#: 97.5% quantile of the standard normal distribution (two-sided 95% interval).
Z95 = 1.959963984540054
#: How often one game is played again under the "replay" fault policy.
MAX_REPLAYS = 2


def elo_diff(score: float) -> float:
    """Elo difference for an expected score in (0, 1): ``-400 log10(1/p - 1)``."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_estimate(wins: int, losses: int, draws: int) -> tuple[float, float]:
    """(Elo difference, 95% error margin) from a score, as cutechess-cli does.

    The per-game score has mean ``p`` and variance ``sum(n_i (s_i - p)^2) / N``;
    the interval ``p ± 1.96 sqrt(var / N)`` is mapped to Elo and the margin is
    half its width. Infinite when every game was won or lost, NaN with no game.
    """
    n = wins + losses + draws
    if n == 0:
        return math.nan, math.nan
    p = (wins + draws / 2) / n
    if p <= 0.0 or p >= 1.0:
        return (math.inf if p >= 1.0 else -math.inf), math.inf
    var = (wins * (1 - p) ** 2 + draws * (0.5 - p) ** 2 + losses * p**2) / n
    spread = Z95 * math.sqrt(var / n)
    lo, hi = p - spread, p + spread
    if lo <= 0.0 or hi >= 1.0:
        return elo_diff(p), math.inf
    return elo_diff(p), (elo_diff(hi) - elo_diff(lo)) / 2


def format_elo(wins: int, losses: int, draws: int) -> str:
    """``"147.2 +/- 268.7"`` (infinite values as ``inf``)."""
    diff, margin = elo_estimate(wins, losses, draws)
    if math.isnan(diff):
        return "n/a"
    diff = diff or 0.0  # no "-0.0"
    return f"{diff:.1f} +/- {margin:.1f}"


@dataclass(frozen=True)
class MatchSpec:
    """What ``tcecd play`` asked for."""

    engines: tuple[EngineConfig, ...]
    games: int
    time_control: TimeControl
    pgn_path: Path
    openings: tuple[Opening, ...] = ()
    concurrency: int = 1
    margin_ms: int = 200  # as the event config: see docs/engines.md, "Margin"
    soft_options: Mapping[str, OptionValue] = field(default_factory=dict)
    adjudication: AdjudicationRules = field(default_factory=AdjudicationRules)
    fault_policy: FaultPolicy = "lose"
    stall_timeout_ms: int = 60_000
    event: str = "tcecd play"
    site: str = "tcecd"


@dataclass(frozen=True)
class Job:
    """One scheduled game."""

    number: int
    white: EngineConfig
    black: EngineConfig
    opening: Opening


@dataclass
class Tally:
    """Wins/losses/draws of ``first`` against ``second``."""

    first: str
    second: str
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def line(self) -> str:
        points = self.wins + self.draws / 2
        ratio = points / self.games if self.games else 0.0
        return (
            f"Score of {self.first} vs {self.second}: {self.wins} - {self.losses} - "
            f"{self.draws}  [{ratio:.3f}] {self.games}"
        )


@dataclass
class MatchResult:
    """Everything the match produced, for the summary and for ``bench/``."""

    outcomes: list[GameOutcome] = field(default_factory=list)
    tallies: dict[tuple[str, str], Tally] = field(default_factory=dict)
    terminations: Counter[str] = field(default_factory=Counter)
    faults: Counter[tuple[str, str]] = field(default_factory=Counter)
    replays: int = 0

    def add(self, outcome: GameOutcome) -> Tally | None:
        """Count a finished game; returns its pair's tally (None for a replay)."""
        for fault in outcome.faults:
            self.faults[(fault.engine, str(fault.kind))] += 1
        if outcome.replay:
            self.replays += 1
            return None
        self.outcomes.append(outcome)
        record = outcome.record
        self.terminations[f"{record.termination.value}: {record.termination_detail}"] += 1
        for (a, b), tally in self.tallies.items():
            if {a, b} == {record.white, record.black}:
                first = Color.WHITE if record.white == a else Color.BLACK
                half = (
                    record.result.half_points(first)
                    if record.result is not Result.UNFINISHED
                    else None
                )
                if half == 2:
                    tally.wins += 1
                elif half == 0:
                    tally.losses += 1
                elif half == 1:
                    tally.draws += 1
                return tally
        return None

    def summary(self) -> str:
        """The final report: scores, Elo with error bars, terminations, faults."""
        lines: list[str] = []
        for tally in self.tallies.values():
            lines.append(tally.line())
            lines.append(
                f"Elo difference: {format_elo(tally.wins, tally.losses, tally.draws)} (95%)"
            )
        lines.append(
            f"Games: {len(self.outcomes)}"
            + (f" (+{self.replays} replayed)" if self.replays else "")
        )
        lines.append("Terminations:")
        for text, count in sorted(self.terminations.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {count:5d}  {text}")
        if self.faults:
            lines.append("Faults:")
            for (engine, kind), count in sorted(self.faults.items()):
                lines.append(f"  {count:5d}  {engine}: {kind}")
        return "\n".join(lines)


def schedule(spec: MatchSpec) -> Iterator[Job]:
    """Every pair plays ``spec.games`` games; games 2k and 2k+1 of a pair share
    opening k with colours reversed. Numbered from 1 in playing order."""
    number = 0
    for a, b in itertools.combinations(spec.engines, 2):
        for k in range(spec.games):
            opening = (
                select_opening(spec.openings, k // 2, order="sequential")
                if spec.openings
                else Opening(name=None, fen=None)
            )
            number += 1
            white, black = (a, b) if k % 2 == 0 else (b, a)
            yield Job(number, white, black, opening)


def unique_names(configs: list[EngineConfig]) -> tuple[EngineConfig, ...]:
    """Rename repeated engines ``name``, ``name-2``, ... (a self-play match)."""
    seen: Counter[str] = Counter()
    out: list[EngineConfig] = []
    for config in configs:
        seen[config.name] += 1
        if seen[config.name] > 1:
            config = config.model_copy(update={"name": f"{config.name}-{seen[config.name]}"})
        out.append(config)
    return tuple(out)


class Match:
    """Runs a :class:`MatchSpec`; ``progress`` receives one line per event."""

    def __init__(self, spec: MatchSpec, *, progress: Callable[[str], None] | None = None) -> None:
        if len(spec.engines) < 2:
            raise ValueError("a match needs at least two engines")
        self.spec = spec
        self.progress = progress or (lambda line: None)
        self.result = MatchResult()
        for a, b in itertools.combinations(spec.engines, 2):
            self.result.tallies[(a.name, b.name)] = Tally(a.name, b.name)
        self.total = len(self.result.tallies) * spec.games
        self.pool = SessionPool()

    async def run(self) -> MatchResult:
        """Play every game; returns when all are done (engines closed)."""
        jobs = schedule(self.spec)
        self.spec.pgn_path.parent.mkdir(parents=True, exist_ok=True)
        self.spec.pgn_path.write_text("", encoding="utf-8")
        try:
            async with asyncio.TaskGroup() as tg:
                for i in range(max(1, self.spec.concurrency)):
                    tg.create_task(self._worker(jobs), name=f"match-worker-{i + 1}")
        except ExceptionGroup as group:
            # A user error (e.g. a limit an engine cannot take) stops the match:
            # surface it alone, so the CLI prints one line instead of a group.
            user_error = _first_user_error(group)
            if user_error is None:
                raise
            raise user_error from None
        finally:
            await self.pool.aclose()
        return self.result

    async def _worker(self, jobs: Iterator[Job]) -> None:
        for job in jobs:  # a shared iterator: each job is taken by one worker
            for attempt in range(MAX_REPLAYS + 1):
                # The last allowed replay is played under "lose": a game always ends.
                final = attempt == MAX_REPLAYS
                outcome = await self.play(job, fault_policy="lose" if final else None)
                tally = self.result.add(outcome)
                self._report(job, outcome, tally)
                if not outcome.replay:
                    with self.spec.pgn_path.open("a", encoding="utf-8") as pgn:
                        pgn.write(game_pgn(outcome.record))
                    break

    def setup(self, job: Job, fault_policy: FaultPolicy | None = None) -> GameSetup:
        spec = self.spec
        return GameSetup(
            game_id=GameId(1, job.number),
            event=spec.event,
            site=spec.site,
            time_control=spec.time_control,
            margin_ms=spec.margin_ms,
            adjudication=spec.adjudication,
            opening=job.opening,
            fault_policy=fault_policy or spec.fault_policy,
            stall_timeout_ms=spec.stall_timeout_ms,
        )

    async def play(self, job: Job, fault_policy: FaultPolicy | None = None) -> GameOutcome:
        """One game with engines from the pool; a start-up fault decides it."""
        setup = self.setup(job, fault_policy)
        sessions: list[EngineSession] = []
        try:
            for color, config in ((Color.WHITE, job.white), (Color.BLACK, job.black)):
                try:
                    sessions.append(
                        await self.pool.acquire(config, soft_options=self.spec.soft_options)
                    )
                except EngineFault as exc:
                    fault = Fault(config.name, color, exc.kind, exc.detail)
                    return startup_outcome(
                        setup,
                        job.white.name,
                        job.black.name,
                        fault,
                        white_rating=job.white.rating,
                        black_rating=job.black.rating,
                    )
            return await play_game(setup, sessions[0], sessions[1])
        finally:
            for session in sessions:
                await self.pool.release(session)

    def _report(self, job: Job, outcome: GameOutcome, tally: Tally | None) -> None:
        record = outcome.record
        done = len(self.result.outcomes)
        verb = "Replaying" if outcome.replay else "Finished"
        self.progress(
            f"{verb} game {job.number} of {self.total} ({record.white} vs {record.black}): "
            f"{record.result.value} {{{record.termination_detail}}}"
            + (f" [{done}/{self.total} done]" if not outcome.replay else "")
        )
        for fault in outcome.faults:
            self.progress(f"  fault: {fault.engine} ({fault.kind}): {fault.detail}")
        if tally is not None:
            self.progress(tally.line())


def _first_user_error(group: BaseExceptionGroup[BaseException]) -> TcecdError | None:
    for exc in group.exceptions:
        if isinstance(exc, TcecdError):
            return exc
        if isinstance(exc, BaseExceptionGroup):
            found = _first_user_error(exc)
            if found is not None:
                return found
    return None


async def run_match(
    spec: MatchSpec, *, progress: Callable[[str], None] | None = None
) -> MatchResult:
    """Play the match described by ``spec`` (see :class:`Match`)."""
    return await Match(spec, progress=progress).run()
