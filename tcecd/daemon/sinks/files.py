"""The files TCEC's viewer reads, as two sinks of the event stream.

* :class:`TcecTablesSink`: ``schedule.json``, ``crosstable.json``,
  ``crash.json``, and the format's own (``tournament.json``, a cup's
  ``Eventcrosstable.json``: :meth:`~tcecd.formats.base.EventFormat.viewer_files`),
  rewritten when the schedule, a game's state or the standings change;
* :class:`LiveFilesSink`: ``live.json`` and ``live.pgn``, the game the
  viewer follows (the first game started while none was followed), after
  every move, and its final PGN once it ended;
* :class:`KibitzerFilesSink`: ``data.json``/``liveeval.json`` (the first
  kibitzer) and ``data1.json``/``liveeval1.json`` (the second), after every
  kibitzer report (:mod:`tcecd.outputs.tcec_kibitzer`).

Each renders its documents from the event state and its own small read
model (the games running and their start times; the live game), and hands
them to its :class:`~tcecd.daemon.outputs.FileWriter`, which writes them
atomically off the event loop, coalescing fast changes. See
../shared/specs/tcec-formats.md for what the viewer reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tcecd.daemon.live import LiveGame
from tcecd.daemon.outputs import FileWriter, json_text
from tcecd.daemon.stream import BaseSink, Committed
from tcecd.domain import GameId
from tcecd.event.state import EventState
from tcecd.events import (
    EngineDisqualified,
    EngineWithdrawn,
    EventFinished,
    GameFinished,
    GameRestartOrdered,
    GameStarted,
    KibitzerReport,
    MovePlayed,
    RoundPaired,
    StandingsUpdated,
)
from tcecd.formats.base import EventFormat
from tcecd.outputs import tcec_json
from tcecd.outputs.tcec_kibitzer import FILES as KIBITZER_FILES
from tcecd.outputs.tcec_kibitzer import KibitzerDocuments


def event_crosstable(
    event: str, state: EventState, fmt: EventFormat, *, kind: str = "Swiss"
) -> dict[str, Any]:
    """``crosstable.json`` of the event as it stands (live standings)."""
    ordinal = 0
    games: list[tcec_json.CrossGame] = []
    for r in state.rounds:
        for g in state.schedule[r].games:
            ordinal += 1
            done = state.results.get(GameId(r, g.number))
            if done is not None:
                games.append(
                    tcec_json.CrossGame(ordinal, done.white, done.black, done.result, done.played)
                )
    return tcec_json.crosstable_json(
        event, state.players, games, fmt.standings(state), strikes=dict(state.strikes), kind=kind
    )


class TcecTablesSink(BaseSink):
    """The viewer's tables (see the module docstring)."""

    def __init__(
        self, json_dir: Path, event: str, slug: str, fmt: EventFormat, *, interval_s: float
    ) -> None:
        self.dir = json_dir
        self.event = event
        self.slug = slug
        self.fmt = fmt
        self.files = FileWriter(interval_s=interval_s)
        #: The games being played and their start (schedule.json's running rows).
        self.running: dict[GameId, str] = {}

    def start(self, state: EventState) -> None:
        self.files.start()
        self._write(state)

    def handle(self, committed: Committed, state: EventState) -> None:
        event = committed.event
        if isinstance(event, GameStarted):
            self.running[event.game_id] = event.start_time
        elif isinstance(event, GameFinished):
            self.running.pop(event.game_id, None)
        elif isinstance(event, GameRestartOrdered):
            # The console restarted it: not running any more (a new start follows),
            # or its voided result is gone from the schedule.
            self.running.pop(event.game_id, None)
        elif not isinstance(
            event, RoundPaired | EngineDisqualified | StandingsUpdated | EventFinished
            | EngineWithdrawn
        ):
            return
        self._write(state)

    def _write(self, state: EventState) -> None:
        names = {p.id: p.name for p in state.players}
        pairings = [state.schedule[r] for r in state.rounds]
        running = {gid: t for gid, t in self.running.items() if gid not in state.results}
        files: dict[str, Any] = {
            "schedule.json": tcec_json.schedule_json(
                pairings, state.results, names=names, running=running
            ),
            "crosstable.json": event_crosstable(self.event, state, self.fmt),
            "crash.json": tcec_json.crash_json(pairings, state.results, names=names),
            **self.fmt.viewer_files(state, self.event, self.slug),
        }
        for name, doc in files.items():
            self.files.submit(self.dir / name, json_text(doc))

    async def flush(self) -> None:
        await self.files.flush()

    async def aclose(self) -> None:
        await self.files.stop()


class LiveFilesSink(BaseSink):
    """``live.json`` and ``live.pgn`` (see the module docstring)."""

    def __init__(self, json_dir: Path, *, interval_s: float) -> None:
        self.dir = json_dir
        self.files = FileWriter(interval_s=interval_s)
        self.owner: GameId | None = None
        self.live: dict[GameId, LiveGame] = {}

    def start(self, state: EventState) -> None:
        self.files.start()

    def handle(self, committed: Committed, state: EventState) -> None:
        event = committed.event
        if isinstance(event, GameStarted):
            live: LiveGame | None = LiveGame(
                dict(event.headers), event.opening, event.white_options, event.black_options
            )
            assert live is not None
            self.live[event.game_id] = live
            if self.owner is None or self.owner not in self.live or self.owner == event.game_id:
                self.owner = event.game_id
            if self.owner == event.game_id:
                self._write(live)
        elif isinstance(event, MovePlayed):
            live = self.live.get(event.game_id)
            if live is not None:
                live.add(event.move)
                if self.owner == event.game_id:
                    self._write(live)
        elif isinstance(event, GameFinished):
            gid = event.game_id
            known = self.live.pop(gid, None)
            if self.owner == gid:
                self._write(LiveGame.finished(event.record, event.pgn, known=known))
                self.owner = None

    def _write(self, live: LiveGame) -> None:
        # Rendered when written (at most every FileWriter.interval_s).
        self.files.submit(self.dir / "live.json", live.document_text)
        # TCEC's viewer fetches live.pgn first. As on TCEC's site it holds the
        # live game JSON: from PGN text (no FEN per move) the viewer cannot
        # place the board of a game whose first move is Black's (issue 27).
        self.files.submit(self.dir / "live.pgn", live.document_text)

    async def flush(self) -> None:
        await self.files.flush()

    async def aclose(self) -> None:
        await self.files.stop()


class KibitzerFilesSink(BaseSink):
    """TCEC's files of the first two kibitzers (see the module docstring)."""

    def __init__(self, json_dir: Path, *, interval_s: float) -> None:
        self.dir = json_dir
        self.files = FileWriter(interval_s=interval_s)
        self.docs = [KibitzerDocuments() for _ in KIBITZER_FILES]

    def start(self, state: EventState) -> None:
        self.files.start()

    def handle(self, committed: Committed, state: EventState) -> None:
        event = committed.event
        if not isinstance(event, KibitzerReport) or event.kibitzer >= len(self.docs):
            return
        docs = self.docs[event.kibitzer]
        if docs.add(event):
            current, history = KIBITZER_FILES[event.kibitzer]
            self.files.submit(self.dir / current, json_text(docs.data()))
            # Rendered when written: the history grows by a ply at a time.
            self.files.submit(self.dir / history, lambda: json_text(docs.history()))

    async def flush(self) -> None:
        await self.files.flush()

    async def aclose(self) -> None:
        await self.files.stop()
