"""``tcecd play``'s matches and tournaments, run by the event runner.

A :class:`MatchSpec` is what ``tcecd play`` asked for. :func:`run_match`
turns it into an event (settings, a format from :mod:`tcecd.formats`: a
round-robin or gauntlet schedule with SPRT stopping, or a knockout cup) and
runs it with the daemon's runner (:func:`tcecd.daemon.run_event_async`):
the same scheduler, recorder, crash-safe store and game players as ``tcecd
run``. So a match can be resumed after a kill (``--state DIR``: nothing lost
or doubled), stream over MQTT and play on a Dask cluster. What ``tcecd play``
prints comes from one more sink of the event stream (:class:`PlaySink`):
one line per finished game, fastchess's statistics every
``rating_interval`` games, and the summary (:class:`MatchResult`, printed
also when the match is stopped by a signal).

Statistics (:mod:`tcecd.runner.stats`) follow fastchess: W/D/L, and with an
even ``games`` the pentanomial counts over each round's colour-reversed pairs
(games 1+2, 3+4, ...), from which Elo, normalised Elo, LOS and the SPRT are
computed. An SPRT stops the match when its LLR crosses a bound: no new game
starts; games already running finish and are counted and written.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections import Counter
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tcecd.config.engines import EngineConfig
from tcecd.daemon.stream import BaseSink, Committed
from tcecd.event.state import EventState
from tcecd.events import DomainEvent, EngineFault, EventFinished, GameFinished, GameReplayed
from tcecd.execution.local import LocalPlayer
from tcecd.formats.base import EventFormat, FormatSettings
from tcecd.formats.match import (
    Tally,
    count_game,
    match_pairings,
    ordinal,
    tallies_for,
)
from tcecd.game.adjudication import AdjudicationRules
from tcecd.game.chess960 import Variant
from tcecd.game.record import GameRecord, GameSummary, Opening
from tcecd.game.rules import FaultPolicy, GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.outputs.text import cup_table
from tcecd.pairing.base import Standing
from tcecd.runner.stats import Sprt

#: How often one game is played again under the "replay" fault policy; the
#: last attempt is played under "lose", so a match always ends.
MAX_REPLAYS = 2

Tournament = Literal["round-robin", "gauntlet", "knockout"]


@dataclass(frozen=True)
class MatchSpec:
    """What ``tcecd play`` asked for."""

    engines: tuple[EngineConfig, ...]
    games: int  # games per round of a pairing (one opening, colours alternating)
    time_control: TimeControl
    pgn_path: Path | None = None  # None: no PGN is kept
    openings: tuple[Opening, ...] = ()
    rounds: int = 1
    tournament: Tournament = "round-robin"
    concurrency: int = 1
    margin_ms: int = 200  # as the event config: see docs/engines.md, "Margin"
    adjudication: AdjudicationRules = field(default_factory=AdjudicationRules)
    #: Syzygy directories joined by ``os.pathsep`` (None: no tablebases).
    tablebase_path: str | None = None
    fault_policy: FaultPolicy = "lose"
    stall_timeout_ms: int = 60_000
    event: str = "tcecd play"
    site: str = "tcecd"
    sprt: Sprt | None = None  # only with two engines
    rating_interval: int = 0  # print the statistics every N games (0: only at the end)
    #: The match's state directory (None: a temporary one, gone afterwards):
    #: a match run again with the same directory resumes.
    state_dir: Path | None = None
    #: Stream the match over MQTT (None: no broker).
    mqtt: Any = None
    #: Where the games are played (tcecd.execution.ExecutionSettings; None: here).
    execution: Any = None
    #: Keep every finished game's record in :attr:`MatchResult.records` (``bench/``).
    keep_records: bool = False
    #: Standard chess or Chess960 (the openings are then Chess960 positions).
    variant: Variant = "standard"
    #: The openings in their order, or in a random order seeded by ``openings_seed``
    #: (``tcecd.game.openings.select_opening``).
    openings_order: Literal["sequential", "random"] = "sequential"
    openings_seed: int = 0

    @property
    def total(self) -> int:
        """Games in the whole match (a cup's depend on its results: 0)."""
        if self.tournament == "knockout":
            return 0
        names = [e.name for e in self.engines]
        return len(match_pairings(names, self.tournament)) * self.rounds * self.games


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


@dataclass(frozen=True, slots=True)
class MatchGame:
    """A finished game of the match as the summary counts it."""

    summary: GameSummary
    faults: tuple[tuple[str, str, str], ...] = ()


@dataclass
class MatchResult:
    """Everything the match produced, for the summary and for ``bench/``."""

    outcomes: list[MatchGame] = field(default_factory=list)
    tallies: dict[tuple[str, str], Tally] = field(default_factory=dict)
    terminations: Counter[str] = field(default_factory=Counter)
    faults: Counter[tuple[str, str]] = field(default_factory=Counter)
    replays: int = 0
    header: str = ""
    sprt: Sprt | None = None
    #: "H0"/"H1" once the SPRT has decided, with the number of games then
    sprt_decision: tuple[str, int] | None = None
    games_per_round: int = 2
    #: The finished games' records (only with ``MatchSpec.keep_records``).
    records: list[GameRecord] = field(default_factory=list)
    #: Timing figures of the games played (``bench/``): think times and
    #: bestmove -> next ``go`` latencies, in ns.
    think_ns: list[int] = field(default_factory=list)
    latencies_ns: list[int] = field(default_factory=list)
    #: The match ended before its last game (a signal).
    stopped: bool = False
    #: A cup's final standings (winner first), once it is over.
    final: tuple[Standing, ...] = ()

    def add(self, game: GameSummary, faults: tuple[tuple[str, str, str], ...] = ()) -> Tally | None:
        """Count a finished game; returns its pairing's tally."""
        self.outcomes.append(MatchGame(game, faults))
        self.terminations[f"{game.termination.value}: {game.termination_detail}"] += 1
        return count_game(self.tallies, game, self.games_per_round)

    def report(self) -> list[str]:
        """The statistics block of every pairing, and the SPRT line."""
        lines: list[str] = []
        for tally in self.tallies.values():
            lines.extend(tally.report(self.header))
        if self.sprt is not None and self.tallies:
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
        if self.stopped:
            lines.append("Match stopped before its end: the statistics of the games played.")
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
        if self.final:
            lines.extend(cup_table(self.final).splitlines())
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


class PlaySink(BaseSink):
    """What ``tcecd play`` prints, as a sink of the event stream: a line per
    finished (or replayed) game with its faults and its pairing's score,
    fastchess's statistics block every ``rating_interval`` games, and the
    tallies of :class:`MatchResult` for the summary."""

    wants: frozenset[type[DomainEvent]] | None = frozenset(
        {EngineFault, GameReplayed, GameFinished, EventFinished}
    )

    def __init__(
        self,
        spec: MatchSpec,
        fmt: EventFormat,
        result: MatchResult,
        progress: Callable[[str], None],
    ) -> None:
        self.spec = spec
        self.fmt = fmt
        self.result = result
        self.progress = progress
        self.total = spec.total
        self._faults: dict[str, list[tuple[str, str, str]]] = {}

    def start(self, state: EventState) -> None:
        """A resumed match: its games so far count (without their lines)."""
        for game in state.results.values():
            self.result.add(game)
        self._check_sprt(state)

    def handle(self, committed: Committed, state: EventState) -> None:
        event = committed.event
        if isinstance(event, EngineFault):
            gid = str(event.game_id)
            self._faults.setdefault(gid, []).append((event.engine, event.kind, event.detail))
            self.result.faults[(event.engine, event.kind)] += 1
        elif isinstance(event, GameReplayed):
            self.result.replays += 1
            number = self._number(event.game_id)
            self.progress(f"Replaying game {number} of {self._total()} ({event.white} vs "
                          f"{event.black}): * {{{event.detail}}}")  # fmt: skip
            for engine, kind, detail in self._faults.pop(str(event.game_id), []):
                self.progress(f"  fault: {engine} ({kind}): {detail}")
        elif isinstance(event, GameFinished):
            self._finished(event, state)
        elif isinstance(event, EventFinished) and self.spec.tournament == "knockout":
            self.result.final = event.standings

    def _total(self) -> str:
        return str(self.total) if self.total else "?"

    def _number(self, gid: Any) -> int:
        if self.spec.tournament == "knockout":
            return len(self.result.outcomes) + 1
        return ordinal(gid, self.spec.games * len(self.result.tallies))

    def _finished(self, event: GameFinished, state: EventState) -> None:
        game = event.summary
        faults = tuple(self._faults.pop(str(game.game_id), []))
        number = self._number(game.game_id)
        tally = self.result.add(game, faults)
        if self.spec.keep_records:
            self.result.records.append(event.record)
        done = len(self.result.outcomes)
        self.progress(
            f"Finished game {number} of {self._total()} ({game.white} vs {game.black}): "
            f"{game.result.value} {{{game.termination_detail}}} [{done}/{self._total()} done]"
        )
        for engine, kind, detail in faults:
            self.progress(f"  fault: {engine} ({kind}): {detail}")
        if tally is not None:
            self.progress(tally.score_line())
        stopped = self._check_sprt(state)
        interval = self.spec.rating_interval
        if interval and done % interval == 0 and done < self.total and not stopped:
            self.progress("-" * 50)
            for line in self.result.report():
                self.progress(line)
            self.progress("-" * 50)

    def _check_sprt(self, state: EventState) -> bool:
        """Note the SPRT's decision once it is made (True: it is)."""
        decide = getattr(self.fmt, "sprt_decision", None)
        if decide is None or self.spec.sprt is None:
            return False
        decision = decide(state)
        if decision is not None and self.result.sprt_decision is None:
            self.result.sprt_decision = (decision, len(self.result.outcomes))
        return decision is not None


class _TimingPlayer:
    """The local game player, keeping each game's timing figures (``bench/``)."""

    def __init__(self, result: MatchResult) -> None:
        self.inner = LocalPlayer()
        self.name = self.inner.name
        self.result = result

    def use_engine_groups(self, groups: Any) -> None:
        self.inner.use_engine_groups(groups)

    async def play(self, job: Any, updates: Any, gate: Any) -> Any:
        out = await self.inner.play(job, updates, gate)
        self.result.think_ns.extend(out.think_ns)
        self.result.latencies_ns.extend(out.latencies_ns)
        return out

    async def aclose(self) -> None:
        await self.inner.aclose()


def match_settings(spec: MatchSpec, state_dir: Path, pgn_path: Path) -> Any:
    """The event settings of a match (:class:`~tcecd.daemon.settings.RunSettings`)."""
    from tcecd.daemon.settings import RunSettings
    from tcecd.execution import ExecutionSettings

    extra: dict[str, Any]
    if spec.tournament == "knockout":
        system, extra = "knockout", {"games": spec.games}
    else:
        system = f"match-{spec.tournament}"
        extra = {
            "games": spec.games,
            "rounds": spec.rounds,
            "sprt": spec.sprt,
            # Rounds scheduled ahead of play: enough to keep every slot busy.
            "lookahead": 2 * max(1, spec.concurrency) + spec.games,
        }
    rules = GameRules(
        time_control=spec.time_control,
        margin_ms=spec.margin_ms,
        adjudication=spec.adjudication,
        fault_policy=spec.fault_policy,
        tablebase_path=spec.tablebase_path,
        stall_timeout_ms=spec.stall_timeout_ms,
        variant=spec.variant,
    )
    return RunSettings(
        event=spec.event,
        site=spec.site,
        engines=spec.engines,
        format=FormatSettings(system=system, rounds=spec.rounds, extra=extra),
        rules=rules,
        state_dir=state_dir,
        pgn_path=pgn_path,
        json_dir=None,
        openings_order=spec.openings_order,
        openings_seed=spec.openings_seed,
        concurrency=spec.concurrency,
        # A match disqualifies no one (as fastchess and cutechess-cli): a fault
        # loses the game, or replays it at most MAX_REPLAYS times.
        strikes_max=1_000_000,
        max_replays=MAX_REPLAYS,
        mqtt=spec.mqtt,
        on_signal="abort",
        fingerprint=match_fingerprint(spec),
        # A match without --state is thrown away at its end: nothing to fsync.
        durable=spec.state_dir is not None,
        execution=spec.execution or ExecutionSettings(),
        log_level="warning",
    )


def match_fingerprint(spec: MatchSpec) -> dict[str, object]:
    """What a resumed match must not change (it would rewrite its history)."""
    fingerprint: dict[str, object] = {
        "engines": [
            {"name": e.name, "command": list(e.command), "protocol": e.protocol,
             "options": dict(sorted(e.options.items())),
             "limits": [e.tc, e.nodes, e.depth, e.movetime_ms]}
            for e in spec.engines
        ],
        "tournament": spec.tournament,
        "games": spec.games,
        "rounds": spec.rounds,
        "time_control": spec.time_control.text(),
        "openings": [o.fen or o.name or "" for o in spec.openings[:64]],
        "sprt": None if spec.sprt is None else [spec.sprt.elo0, spec.sprt.elo1,
                                                spec.sprt.alpha, spec.sprt.beta],
    }  # fmt: skip
    if spec.variant != "standard":
        # Only when not standard, so a match stored before Chess960 still resumes.
        fingerprint["variant"] = spec.variant
    if spec.openings_order != "sequential":
        fingerprint["openings_order"] = [spec.openings_order, spec.openings_seed]
    return fingerprint


async def run_match(
    spec: MatchSpec,
    *,
    progress: Callable[[str], None] | None = None,
    install_signals: bool = False,
    player: Any = None,
) -> MatchResult:
    """Play the match described by ``spec`` (see the module docstring);
    ``player``: who plays the games (default: here, or the Dask cluster
    ``spec.execution`` names)."""
    from tcecd.daemon import run_event_async
    from tcecd.formats.base import get_format

    if len(spec.engines) < 2:
        raise ValueError("a match needs at least two engines")
    if spec.sprt is not None and len(spec.engines) != 2:
        raise ValueError("an SPRT needs exactly two engines")
    result = MatchResult(header=spec.time_control.describe(), sprt=spec.sprt,
                         games_per_round=spec.games)  # fmt: skip
    if spec.tournament != "knockout":
        names = [e.name for e in spec.engines]
        result.tallies = tallies_for(match_pairings(names, spec.tournament), spec.games)
    with contextlib.ExitStack() as stack:
        state_dir = spec.state_dir
        if state_dir is None:
            state_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tcecd-play-")))
        pgn_path = spec.pgn_path or state_dir / "match.pgn"
        settings = match_settings(spec, state_dir, pgn_path)
        fmt = get_format(settings.format)
        sink = PlaySink(spec, fmt, result, progress or (lambda line: None))
        complete = await run_event_async(
            settings, out=io.StringIO(), install_signals=install_signals,
            player=player or (_TimingPlayer(result) if spec.execution is None else None),
            sinks=[sink], openings=spec.openings, fmt=fmt, quiet=True, log=_quiet_log(),
        )  # fmt: skip
        result.stopped = not complete
    return result


#: Log lines a match prints as its own lines instead.
_PRINTED = frozenset({
    "engine fault", "engine disqualified", "game will be replayed after a fault",
    "signal received: stopping now", "event stopped; run the same command again to resume",
})  # fmt: skip


def _quiet_log() -> Any:
    """A match's log: warnings and errors, one line each on stderr, but for
    what the match's own lines already say (every game and its faults)."""
    import logging
    import sys

    import structlog

    def own_lines(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        if event.get("event") in _PRINTED:
            raise structlog.DropEvent
        return event

    return structlog.wrap_logger(
        structlog.PrintLogger(sys.stderr),
        processors=[
            own_lines,
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
    )
