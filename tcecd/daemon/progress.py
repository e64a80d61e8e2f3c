"""Live progress of ``tcecd run`` on a terminal: one more sink of the event stream.

:class:`ProgressModel` is pure: it is fed the daemon's domain events (the ones
the MQTT publisher gets) with the monotonic time they happened, and says what
the screen shows: round r of R, game g of G, the running games (last move,
clocks, evaluation), the latest results, the standings and an estimate of the
time left. :func:`progress_view` turns a :class:`Snapshot` into a rich renderable.

:class:`ProgressDisplay` is the thin shell: a :class:`rich.live.Live` display on
the terminal. The event loop only updates the model and swaps in a new frozen
snapshot (no I/O); rich's own refresh thread draws it four times a second, so
a slow terminal never holds up a game. Log lines go through the same console
(:attr:`ProgressDisplay.log_stream`) and scroll above the display.

It is used only when stderr or stdout is a terminal (:meth:`ProgressDisplay.for_terminal`);
off a terminal (services, pipes, tests) nothing changes: the JSON log lines are
the whole output.
"""

from __future__ import annotations

import io
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import IO, TextIO, cast

from rich.ansi import AnsiDecoder
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text

from tcecd.bus.outbox import OutboxEntry
from tcecd.domain import Color, GameId, Result
from tcecd.events import (
    DomainEvent,
    EventFinished,
    EventStarted,
    GameFinished,
    GameStarted,
    MovePlayed,
    RoundPaired,
    StandingsUpdated,
)
from tcecd.game.record import GameSummary, MoveRecord
from tcecd.pairing.base import Standing
from tcecd.watch.render import clock, move_number

#: Finished games listed under "Results".
RECENT = 5
#: Standings rows shown.
TOP = 10


@dataclass(frozen=True, slots=True)
class Running:
    """A game being played, as last reported."""

    game: GameId
    white: str
    black: str
    plies: int = 0
    last_san: str | None = None
    eval_text: str | None = None
    white_ms: int | None = None
    black_ms: int | None = None
    white_to_move: bool = True
    at: float = 0.0  # when the clocks were last reported (monotonic seconds)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the progress display shows at one moment (immutable: read by the
    refresh thread while the event loop builds the next one)."""

    event: str
    rounds: int
    round: int | None
    games_total: int | None
    games_started: int
    games_finished: int
    running: tuple[Running, ...]
    recent: tuple[str, ...]
    standings_title: str
    standings: tuple[tuple[int, str, float, int], ...]  # rank, name, score, games
    eta_s: float | None
    finished: bool = False


@dataclass
class ProgressModel:
    """The progress of one run; see the module docstring. Pure."""

    event: str
    rounds: int
    games_per_round: dict[int, int] = field(default_factory=dict)
    finished: int = 0
    running: dict[GameId, Running] = field(default_factory=dict)
    recent: list[str] = field(default_factory=list)
    standings: tuple[Standing, ...] = ()
    standings_after: int | None = None
    names: dict[str, str] = field(default_factory=dict)
    over: bool = False
    #: This run's pace: when its first game started, and the games it finished.
    run_start: float | None = None
    run_finished: int = 0

    def name(self, pid: str) -> str:
        return self.names.get(pid, pid)

    def resume(
        self,
        games_per_round: dict[int, int],
        finished: int,
        *,
        names: dict[str, str] | None = None,
        recent: Sequence[GameSummary] = (),
    ) -> None:
        """What a resumed event already has (the stream does not repeat it):
        the rounds' sizes, the games finished, the players' names and the
        latest results (the panel lists them as it does this run's)."""
        self.games_per_round.update(games_per_round)
        self.finished = finished
        self.names.update(names or {})
        self.recent = [self._result_line(g) for g in recent][-RECENT:]

    def apply(self, event: DomainEvent, now: float) -> None:
        match event:
            case EventStarted():
                self.rounds = event.rounds
                self.names.update((p.id, p.name) for p in event.players)
            case RoundPaired(pairing=pairing):
                self.games_per_round[pairing.round] = len(pairing.games)
            case GameStarted(opening=opening):
                if self.run_start is None:
                    self.run_start = now
                fen = (opening.fen or "").split()
                self.running[event.game_id] = Running(
                    event.game_id, event.white, event.black, white_ms=event.white_clock_ms,
                    black_ms=event.black_clock_ms, white_to_move=fen[1:2] != ["b"], at=now)
            case MovePlayed(game_id=gid, move=move):
                g = self.running.get(gid)
                if g is not None:
                    self.running[gid] = replace(
                        g, plies=move.ply, last_san=move_number(move.fen_after, move.san),
                        eval_text=_eval_text(move) or g.eval_text,
                        white_ms=event.white_clock_ms, black_ms=event.black_clock_ms,
                        white_to_move=move.color == Color.BLACK, at=now)
            case GameFinished(record=rec):
                self.running.pop(rec.game_id, None)
                self.finished += 1
                self.run_finished += 1
                self.recent = [*self.recent, self._result_line(event.summary)][-RECENT:]
            case StandingsUpdated():
                self.standings, self.standings_after = event.standings, event.after_round
            case EventFinished():
                self.standings, self.over = event.standings, True
            case _:
                pass

    def _result_line(self, rec: GameSummary) -> str:
        why = rec.termination_detail or rec.termination.value
        return (f"{rec.game_id}  {self.name(rec.white)} {rec.result.value} "
                f"{self.name(rec.black)}  ({why})")

    @property
    def games_total(self) -> int | None:
        """Games in the whole event: the rounds paired so far, and as many per
        round for the rounds still to pair (a Swiss pairs the same number)."""
        if not self.games_per_round:
            return None
        per = self.games_per_round[max(self.games_per_round)]
        unpaired = max(0, self.rounds - len(self.games_per_round))
        return sum(self.games_per_round.values()) + unpaired * per

    def eta_s(self, now: float) -> float | None:
        """Seconds left at this run's pace so far (None before its first result)."""
        total = self.games_total
        if self.over:
            return 0.0
        if total is None or self.run_start is None or not self.run_finished:
            return None
        per_game = (now - self.run_start) / self.run_finished
        return max(0.0, (total - self.finished) * per_game)

    def snapshot(self, now: float) -> Snapshot:
        rnd = max(self.games_per_round) if self.games_per_round else None
        if self.standings_after is None:
            title = "Final standings" if self.over else "Standings"
        elif self.over:
            title = "Final standings"
        elif self.standings_after == 0:
            title = "Standings before round 1"
        else:
            title = f"Standings after round {self.standings_after}"
        rows = tuple((s.rank, self.name(s.id), s.score, s.games) for s in self.standings[:TOP])
        return Snapshot(
            event=self.event, rounds=self.rounds, round=rnd, games_total=self.games_total,
            games_started=self.finished + len(self.running), games_finished=self.finished,
            running=tuple(self.running[k] for k in sorted(self.running, key=_order)),
            recent=tuple(self.recent), standings_title=title, standings=rows,
            eta_s=self.eta_s(now), finished=self.over)


def _eval_text(move: MoveRecord) -> str | None:
    """``+0.24``, ``-1.10``, ``M3``, ``book`` (White's point of view)."""
    if move.book:
        return "book"
    if move.score is None:
        return None
    text = move.score.pgn()
    return "+" + text if move.score.mate is None and (move.score.cp or 0) >= 0 else text


def _order(gid: GameId) -> tuple[int, int]:
    return gid.round, gid.number


def duration(seconds: float | None) -> str:
    """``3725`` -> ``"1h 02m"``, ``200`` -> ``"3m 20s"``, None -> ``"estimating"``."""
    if seconds is None:
        return "estimating"
    s = int(seconds + 0.5)
    if s >= 3600:
        return f"{s // 3600}h {s // 60 % 60:02d}m"
    if s >= 60:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s}s"


def ticking(g: Running, now: float) -> tuple[int | None, int | None]:
    """The clocks as they stand now: the side to move's counts down from its last
    reported value (the other one stands still)."""
    spent = max(0, int((now - g.at) * 1000))
    white, black = g.white_ms, g.black_ms
    if g.white_to_move and white is not None:
        white -= spent
    elif not g.white_to_move and black is not None:
        black -= spent
    return white, black


def progress_view(snap: Snapshot, now: float, names: dict[str, str] | None = None
                  ) -> RenderableType:
    """The display for ``snap`` at monotonic time ``now``."""
    names = names or {}
    head = Text()
    head.append(snap.event, style="bold")
    if snap.round is not None:
        head.append(f"  round {snap.round} of {snap.rounds}")
    if snap.games_total is not None:
        head.append(f"  game {max(snap.games_started, 1)} of {snap.games_total}")
    head.append(f"  {snap.games_finished} finished")
    head.append("  done" if snap.finished else f"  time left {duration(snap.eta_s)}",
                style="green" if snap.finished else "cyan")
    parts: list[RenderableType] = [head]
    if snap.running:
        table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
        for col in ("game", "white", "", "black", "", "move", "eval"):
            table.add_column(col, justify="right" if col in ("", "eval") else "left")
        for g in snap.running:
            white_ms, black_ms = ticking(g, now)
            table.add_row(
                str(g.game), names.get(g.white, g.white),
                Text(clock(white_ms), style="bold" if g.white_to_move else "dim"),
                names.get(g.black, g.black),
                Text(clock(black_ms), style="dim" if g.white_to_move else "bold"),
                g.last_san or "-", g.eval_text or "-")
        parts.append(table)
    if snap.recent:
        parts.append(Text("Results", style="bold"))
        parts.extend(Text(f"  {line}", style=_result_style(line)) for line in snap.recent)
    if snap.standings:
        parts.append(Text(snap.standings_title, style="bold"))
        table = Table(box=None, pad_edge=False, show_header=False)
        table.add_column(justify="right")
        table.add_column()
        table.add_column(justify="right")
        table.add_column(justify="right", style="dim")
        for rank, name, score, games in snap.standings:
            table.add_row(f"{rank}.", name, f"{score:g}", f"/ {games}")
        parts.append(table)
    return Group(*parts)


def _result_style(line: str) -> str:
    return "yellow" if f" {Result.DRAW.value} " in line else ""


class ProgressDisplay:
    """The terminal display of a run (see the module docstring); an
    :class:`~tcecd.daemon.outputs.EventSink`-shaped listener: only ``publish``
    matters, the rest is the primary sink's business."""

    def __init__(self, event: str, rounds: int, file: IO[str]) -> None:
        self.model = ProgressModel(event, rounds)
        self.console = Console(file=file)
        self._snap = self.model.snapshot(time.monotonic())
        self._live = Live(console=self.console, get_renderable=self._render, auto_refresh=True,
                          refresh_per_second=4, redirect_stdout=False, redirect_stderr=False,
                          transient=False)
        self._on_stderr = file is sys.stderr

    @classmethod
    def for_terminal(cls, event: str, rounds: int) -> ProgressDisplay | None:
        """A display on stderr, else stdout, whichever is a terminal; None if neither."""
        for stream in (sys.stderr, sys.stdout):
            if stream.isatty():
                return cls(event, rounds, stream)
        return None

    @property
    def log_stream(self) -> TextIO | None:
        """Where the log should write so that its lines scroll above the display
        (None: the display is on stdout, the log keeps its own stderr)."""
        if not self._on_stderr:
            return None
        # (a text stream in all but typeshed's name: TextIO is not a protocol)
        return cast(TextIO, _LogStream(self.console))

    def _render(self) -> RenderableType:
        return progress_view(self._snap, time.monotonic(), self.model.names)

    def resume(
        self,
        games_per_round: dict[int, int],
        finished: int,
        *,
        names: dict[str, str] | None = None,
        recent: Sequence[GameSummary] = (),
    ) -> None:
        self.model.resume(games_per_round, finished, names=names, recent=recent)
        self._snap = self.model.snapshot(time.monotonic())

    # -- the sink side (called on the event loop: no I/O) ---------------------------------

    def publish(self, event: DomainEvent, stored: Sequence[tuple[int, OutboxEntry]] = ()) -> None:
        del stored
        now = time.monotonic()
        self.model.apply(event, now)
        self._snap = self.model.snapshot(now)

    def __enter__(self) -> ProgressDisplay:
        self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._live.stop()


class _LogStream(io.TextIOBase):
    """A text stream whose lines the console prints above the live display, as
    they are (colours kept, never wrapped: a JSON log line stays one line)."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._buffer = ""
        self._decoder = AnsiDecoder()

    def write(self, text: str) -> int:
        self._buffer += text
        *lines, self._buffer = self._buffer.split("\n")
        for line in lines:
            self._console.print(self._decoder.decode_line(line), soft_wrap=True)
        return len(text)

    def isatty(self) -> bool:
        return self._console.file.isatty()
