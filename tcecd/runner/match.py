"""A quick match or tournament scheduler (``tcecd play``), as fastchess and cutechess-cli.

Engines meet in pairings: ``round-robin`` (all against all) or ``gauntlet``
(the first engine against each other one). Each pairing plays ``rounds``
rounds of ``games`` games; the games of a round share one opening (round r
uses opening r of the book, the same for every pairing) and alternate colours,
so with ``games=2`` each opening is played once with each colour and its bias
cancels out. Playing order: round by round, pairing by pairing.

``concurrency`` workers (one TaskGroup) take games in order; each game gets
fresh engine processes unless the engine's definition says ``restart:
keep-alive``. Finished games are appended to the PGN file (if any) in the order
they finish, and a line of progress is printed for each.

Statistics (:mod:`tcecd.runner.stats`) follow fastchess: W/D/L, and with an
even ``games`` the pentanomial counts over each round's colour-reversed pairs
(games 1+2, 3+4, ...), from which Elo, normalised Elo, LOS and the SPRT are
computed. An SPRT stops the match when its LLR crosses a bound: no new game
starts; games already running finish and are counted and written.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import chess

from tcecd.config.engines import EngineConfig, OptionValue
from tcecd.domain import Color, GameId, Result
from tcecd.errors import TcecdError
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.openings import select_opening
from tcecd.game.record import Opening
from tcecd.game.rules import FaultPolicy, GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.pgn.writer import game_pgn
from tcecd.runner.game import (
    Fault,
    GameOutcome,
    GameSetup,
    play_game,
    startup_outcome,
)
from tcecd.runner.session import EngineFault, EngineSession, SessionPool
from tcecd.runner.stats import (
    Estimate,
    Pentanomial,
    Sprt,
    estimate_pentanomial,
    estimate_wdl,
)

#: How often one game is played again under the "replay" fault policy.
MAX_REPLAYS = 2

Tournament = Literal["round-robin", "gauntlet"]


@dataclass(frozen=True)
class MatchSpec:
    """What ``tcecd play`` asked for."""

    engines: tuple[EngineConfig, ...]
    games: int  # games per round of a pairing (one opening, colours alternating)
    time_control: TimeControl
    pgn_path: Path | None = None  # None: no PGN is written
    openings: tuple[Opening, ...] = ()
    rounds: int = 1
    tournament: Tournament = "round-robin"
    concurrency: int = 1
    margin_ms: int = 200  # as the event config: see docs/engines.md, "Margin"
    soft_options: Mapping[str, OptionValue] = field(default_factory=dict)
    adjudication: AdjudicationRules = field(default_factory=AdjudicationRules)
    probe: Callable[[chess.Board], int | None] | None = None  # Syzygy WDL probe
    fault_policy: FaultPolicy = "lose"
    stall_timeout_ms: int = 60_000
    event: str = "tcecd play"
    site: str = "tcecd"
    sprt: Sprt | None = None  # only with two engines
    rating_interval: int = 0  # print the statistics every N games (0: only at the end)


@dataclass(frozen=True)
class Job:
    """One scheduled game: ``round`` (1-based) and ``slot`` (0-based position in
    the round) of pairing ``pairing`` (index into :func:`pairings`)."""

    number: int
    white: EngineConfig
    black: EngineConfig
    opening: Opening
    pairing: int = 0
    round: int = 1
    slot: int = 0


def pairings(spec: MatchSpec) -> list[tuple[EngineConfig, EngineConfig]]:
    """Who meets whom: all pairs (round-robin, in the engines' order) or the
    first engine against each other one (gauntlet)."""
    if spec.tournament == "gauntlet":
        return [(spec.engines[0], other) for other in spec.engines[1:]]
    return list(itertools.combinations(spec.engines, 2))


def schedule(spec: MatchSpec) -> Iterator[Job]:
    """The games in playing order, numbered from 1.

    In a round, game k of a pairing (a, b) has ``a`` as White when k is even.
    With an odd number of games per round the first colour also alternates
    from round to round, so colours even out over the rounds."""
    number = 0
    for r in range(spec.rounds):
        opening = (
            select_opening(spec.openings, r, order="sequential")
            if spec.openings
            else Opening(name=None, fen=None)
        )
        for index, (a, b) in enumerate(pairings(spec)):
            for k in range(spec.games):
                flip = r % 2 if spec.games % 2 else 0
                white, black = (a, b) if (k + flip) % 2 == 0 else (b, a)
                number += 1
                yield Job(number, white, black, opening, index, r + 1, k)


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


def _fmt(value: float) -> str:
    return f"{value or 0.0:.2f}"  # no "-0.00"


@dataclass
class Tally:
    """Results of ``first`` against ``second``: W/D/L and the pentanomial counts
    (pairs of games of one round with the same opening and colours reversed)."""

    first: str
    second: str
    paired: bool = True  # games per round even: the pentanomial is the statistic
    wins: int = 0
    losses: int = 0
    draws: int = 0
    penta: Pentanomial = field(default_factory=Pentanomial)
    #: first half-points of pairs whose partner game is not finished yet
    pending: dict[tuple[int, int], int] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def add(self, half_points: int, round_: int, slot: int, pair_complete: bool) -> None:
        """Count a game that gave ``first`` 0, 1 or 2 half-points."""
        if half_points == 2:
            self.wins += 1
        elif half_points == 0:
            self.losses += 1
        else:
            self.draws += 1
        if not pair_complete:
            return
        key = (round_, slot // 2)
        if key in self.pending:
            partner = self.pending.pop(key)
            # Order within the pair only matters for DD against WL: both one point.
            self.penta = self.penta.add(partner, half_points)
        else:
            self.pending[key] = half_points

    def estimate(self) -> Estimate | None:
        if self.paired:
            return estimate_pentanomial(self.penta)
        return estimate_wdl(self.wins, self.draws, self.losses)

    def counts(self) -> tuple[int, ...]:
        """What the SPRT counts: pentanomial pairs, or (L, D, W) games."""
        return self.penta.counts() if self.paired else (self.losses, self.draws, self.wins)

    def score_line(self) -> str:
        """cutechess-cli's ``Score of A vs B: W - L - D  [ratio] N``."""
        points = self.wins + self.draws / 2
        ratio = points / self.games if self.games else 0.0
        return (
            f"Score of {self.first} vs {self.second}: {self.wins} - {self.losses} - "
            f"{self.draws}  [{ratio:.3f}] {self.games}"
        )

    def report(self, header: str) -> list[str]:
        """fastchess's statistics block (without its SPRT line)."""
        lines = [f"Results of {self.first} vs {self.second} ({header}):"]
        estimate = self.estimate()
        if estimate is None:
            lines.append("Elo: n/a (no complete game pair yet)")
        else:
            lines.append(
                f"Elo: {_fmt(estimate.elo)} +/- {_fmt(estimate.elo_error)}, "
                f"nElo: {_fmt(estimate.nelo)} +/- {_fmt(estimate.nelo_error)}"
            )
            los_line = (
                f"LOS: {estimate.los * 100:.2f} %, "
                f"DrawRatio: {estimate.draw_ratio * 100:.2f} %"
            )
            if self.paired:
                p = self.penta
                los_line += f", PairsRatio: {_ratio(p.ww + p.wd, p.ld + p.ll)}"
            lines.append(los_line)
        points = self.wins + self.draws / 2
        percent = points / self.games * 100 if self.games else 0.0
        lines.append(
            f"Games: {self.games}, Wins: {self.wins}, Losses: {self.losses}, "
            f"Draws: {self.draws}, Points: {points:.1f} ({percent:.2f} %)"
        )
        if self.paired:
            p = self.penta
            counts = ", ".join(str(c) for c in p.counts())
            lines.append(f"Ptnml(0-2): [{counts}], WL/DD Ratio: {_ratio(p.wl, p.dd)}")
        return lines


def _ratio(a: int, b: int) -> str:
    """``a/b`` with two decimals; ``inf`` or ``nan`` when ``b`` is 0 (as fastchess)."""
    if b == 0:
        return "nan" if a == 0 else "inf"
    return f"{a / b:.2f}"


@dataclass
class MatchResult:
    """Everything the match produced, for the summary and for ``bench/``."""

    outcomes: list[GameOutcome] = field(default_factory=list)
    tallies: dict[tuple[str, str], Tally] = field(default_factory=dict)
    terminations: Counter[str] = field(default_factory=Counter)
    faults: Counter[tuple[str, str]] = field(default_factory=Counter)
    replays: int = 0
    header: str = ""
    sprt: Sprt | None = None
    #: "H0"/"H1" once the SPRT has decided, with the number of games then
    sprt_decision: tuple[str, int] | None = None
    games_per_round: int = 2

    def add(self, outcome: GameOutcome, job: Job | None = None) -> Tally | None:
        """Count a finished game; returns its pairing's tally (None for a replay)."""
        for fault in outcome.faults:
            self.faults[(fault.engine, str(fault.kind))] += 1
        if outcome.replay:
            self.replays += 1
            return None
        self.outcomes.append(outcome)
        record = outcome.record
        self.terminations[f"{record.termination.value}: {record.termination_detail}"] += 1
        if record.result is Result.UNFINISHED:
            return None
        for (a, b), tally in self.tallies.items():
            if {a, b} == {record.white, record.black}:
                first = Color.WHITE if record.white == a else Color.BLACK
                round_, slot = (job.round, job.slot) if job else (1, len(self.outcomes) - 1)
                # The last game of a round with an odd number of games has no partner.
                complete = slot // 2 * 2 + 1 < self.games_per_round
                tally.add(record.result.half_points(first), round_, slot, complete)
                return tally
        return None

    def report(self) -> list[str]:
        """The statistics block of every pairing, and the SPRT line."""
        lines: list[str] = []
        for tally in self.tallies.values():
            lines.extend(tally.report(self.header))
        if self.sprt is not None:
            [tally] = self.tallies.values()
            lines.append(self.sprt.line(self.sprt.llr(tally.counts())))
        return lines

    def standings(self) -> list[str]:
        """Points per engine over all its games (tournaments of three or more)."""
        points: Counter[str] = Counter()
        games: Counter[str] = Counter()
        for tally in self.tallies.values():
            for name, pts in (
                (tally.first, tally.wins * 2 + tally.draws),
                (tally.second, tally.losses * 2 + tally.draws),
            ):
                points[name] += pts
                games[name] += tally.games
        rows = sorted(games, key=lambda n: (-points[n], n))
        width = max((len(n) for n in rows), default=4)
        lines = [f"Rank {'Name':<{width}}  Points  Games  Score"]
        for rank, name in enumerate(rows, 1):
            score = points[name] / 2 / games[name] * 100 if games[name] else 0.0
            lines.append(
                f"{rank:>4} {name:<{width}}  {points[name] / 2:6.1f}  {games[name]:5d}"
                f"  {score:5.1f}%"
            )
        return lines

    def summary(self, *, score_lines: bool = True) -> str:
        """The final report: (scores), statistics, SPRT verdict, terminations, faults.

        ``score_lines``: include each pairing's ``Score of`` line (the CLI leaves
        it out when the progress lines already ended with it)."""
        lines: list[str] = []
        if score_lines:
            lines.extend(tally.score_line() for tally in self.tallies.values())
        lines.extend(self.report())
        if self.sprt_decision is not None:
            hypothesis, games = self.sprt_decision
            lines.append(
                f"SPRT ([{self.sprt.elo0 if self.sprt else 0:.2f}, "
                f"{self.sprt.elo1 if self.sprt else 0:.2f}]) completed - "
                f"{hypothesis} was accepted after {games} games"
            )
        if len(self.tallies) > 1:
            lines.extend(self.standings())
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


def _start_pgn(path: Path) -> None:
    """An empty PGN file at ``path`` (its folder made if needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")


def _append_text(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as pgn:
        pgn.write(text)


class Match:
    """Runs a :class:`MatchSpec`; ``progress`` receives one line per event."""

    def __init__(self, spec: MatchSpec, *, progress: Callable[[str], None] | None = None) -> None:
        if len(spec.engines) < 2:
            raise ValueError("a match needs at least two engines")
        if spec.sprt is not None and len(spec.engines) != 2:
            raise ValueError("an SPRT needs exactly two engines")
        self.spec = spec
        self.progress = progress or (lambda line: None)
        self.result = MatchResult(
            header=spec.time_control.describe(),
            sprt=spec.sprt,
            games_per_round=spec.games,
        )
        paired = spec.games % 2 == 0
        for a, b in pairings(spec):
            self.result.tallies[(a.name, b.name)] = Tally(a.name, b.name, paired=paired)
        self.total = len(self.result.tallies) * spec.rounds * spec.games
        self.pool = SessionPool()
        self.stopped = False  # the SPRT has decided: start no new game
        self._pgn_lock = asyncio.Lock()

    async def run(self) -> MatchResult:
        """Play every game (or until the SPRT decides); returns when all are
        done (engines closed)."""
        jobs = schedule(self.spec)
        if self.spec.pgn_path is not None:
            await asyncio.to_thread(_start_pgn, self.spec.pgn_path)
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
            if self.stopped:
                return
            for attempt in range(MAX_REPLAYS + 1):
                # The last allowed replay is played under "lose": a game always ends.
                final = attempt == MAX_REPLAYS
                outcome = await self.play(job, fault_policy="lose" if final else None)
                tally = self.result.add(outcome, job)
                self._report(job, outcome, tally)
                if not outcome.replay:
                    # Before the first await: the count of finished games it reads
                    # (SPRT stop, rating interval) is this game's own.
                    self._after_game(tally)
                    if self.spec.pgn_path is not None:
                        await self._append_pgn(self.spec.pgn_path, game_pgn(outcome.record))
                    break

    async def _append_pgn(self, path: Path, text: str) -> None:
        """Append a finished game's PGN off the event loop, one game at a time
        (the lock keeps games whole and in the order they finished)."""
        async with self._pgn_lock:
            await asyncio.to_thread(_append_text, path, text)

    def _after_game(self, tally: Tally | None) -> None:
        """The SPRT check and the periodic statistics (fastchess's rating interval)."""
        done = len(self.result.outcomes)
        sprt = self.spec.sprt
        if sprt is not None and tally is not None and self.result.sprt_decision is None:
            decision = sprt.decision(sprt.llr(tally.counts()))
            if decision is not None:
                self.result.sprt_decision = (decision, done)
                self.stopped = True
        interval = self.spec.rating_interval
        if interval and done % interval == 0 and done < self.total and not self.stopped:
            self.progress("-" * 50)
            for line in self.result.report():
                self.progress(line)
            self.progress("-" * 50)

    def setup(self, job: Job, fault_policy: FaultPolicy | None = None) -> GameSetup:
        spec = self.spec
        rules = GameRules(
            time_control=spec.time_control,
            margin_ms=spec.margin_ms,
            adjudication=spec.adjudication,
            fault_policy=fault_policy or spec.fault_policy,
            stall_timeout_ms=spec.stall_timeout_ms,
        )
        return GameSetup(
            game_id=GameId(job.round, job.number),
            event=spec.event,
            site=spec.site,
            rules=rules,
            probe=spec.probe,
            opening=job.opening,
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
                    return startup_outcome(setup, job.white, job.black, fault)
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
            self.progress(tally.score_line())


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
