"""Playing one scheduled game for the daemon: engines, runner, live hooks.

Engines come from a :class:`~tcecd.runner.session.SessionPool` (``per-game``
engines are started fresh for every game, ``keep-alive`` ones are reused while
healthy). An engine that cannot even start is a ``startup`` fault: under the
``lose`` policy it loses the game (termination ``abandoned``, no moves), under
``replay`` the game is played again (each attempt is a strike, so a dead
engine is disqualified after ``strikes.max`` attempts and the game forfeited).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import TYPE_CHECKING

from tcecd.daemon.live import LiveGame
from tcecd.domain import Color, GameId, PlayerId, Result, Termination
from tcecd.events import GameStarted
from tcecd.game.clock import Clock
from tcecd.game.record import GameRecord, MoveRecord, Opening
from tcecd.pairing.base import ScheduledGame

if TYPE_CHECKING:
    from tcecd.daemon.book import FaultTuple
    from tcecd.daemon.core import EventRunner
    from tcecd.runner.session import EngineSession


class StoppedBeforeStart(Exception):
    """A stop was requested before the game started (its engines were still
    starting): the game is not played now and not recorded; it is played on resume."""


class StartTurn:
    """Games of a round start in playing order, also when several run at once: a
    game whose engines are ready waits until the game before it has started (or
    will not start), then decides; so a stop signal never leaves a later game
    running while an earlier one was never started (results commit in order)."""

    def __init__(self, before: StartTurn | None) -> None:
        self._before = before
        self._decided = asyncio.Event()

    async def wait(self) -> None:
        """Until the game before this one has started or will not start."""
        if self._before is not None:
            await self._before._decided.wait()

    def decided(self) -> None:
        """This game started, or will not start (idempotent)."""
        self._decided.set()


def _headers(runner: EventRunner, gid: GameId, game: ScheduledGame, opening: Opening,
             start: str) -> dict[str, str]:  # fmt: skip
    h = {
        "Event": runner.s.event,
        "Site": runner.s.site,
        "Date": start[:10].replace("-", "."),
        "Round": str(gid),
        "White": game.white,
        "Black": game.black,
        "Result": "*",
        "TimeControl": runner.s.time_control.pgn_tag(),
        "GameStartTime": start,
    }
    if opening.fen:
        h["FEN"] = opening.fen
        h["SetUp"] = "1"
    if opening.name:
        h["Opening"] = opening.name
    if opening.eco:
        h["ECO"] = opening.eco
    return h


def _abandoned(runner: EventRunner, gid: GameId, game: ScheduledGame, opening: Opening,
               loser: Color, detail: str, start: str) -> GameRecord:  # fmt: skip
    from tcecd.daemon.book import utc_now

    return GameRecord(
        game_id=gid,
        event=runner.s.event,
        site=runner.s.site,
        white=game.white,
        black=game.black,
        result=Result.win_for(loser.other),
        termination=Termination.ABANDONED,
        termination_detail=detail,
        start_time=start,
        end_time=utc_now(),
        duration_ms=0,
        time_control=runner.s.time_control.pgn_tag(),
        opening=opening,
        moves=(),
        white_elo=runner.engines[game.white].rating,
        black_elo=runner.engines[game.black].rating,
    )


async def play_one(
    runner: EventRunner, gid: GameId, game: ScheduledGame, opening: Opening
) -> tuple[GameRecord | None, tuple[FaultTuple, ...], bool]:
    """Play ``game`` once. Returns (record, faults, replay): ``replay`` True
    means the game must be played again (record None then). The game starts
    only after the one before it (``runner.start_turn(gid)``, :class:`StartTurn`)."""
    from tcecd.daemon.book import utc_now
    from tcecd.runner.game import GameSetup, play_game, side_time_control_tags
    from tcecd.runner.session import EngineFault, SessionPool

    s = runner.s
    pool: SessionPool = runner.pool
    turn = runner.start_turn(gid)
    start = utc_now()
    sessions: dict[Color, EngineSession] = {}
    try:
        for color, name in ((Color.WHITE, game.white), (Color.BLACK, game.black)):
            try:
                sessions[color] = await pool.acquire(runner.engines[name])
            except EngineFault as fault:
                faults: tuple[FaultTuple, ...] = ((name, str(fault.kind), fault.detail),)
                if s.on_fault == "replay":
                    return None, faults, True
                side = "White" if color is Color.WHITE else "Black"
                record = _abandoned(runner, gid, game, opening, color,
                                    f"{side} fails to start: {fault.detail}", start)  # fmt: skip
                return record, faults, False
        if turn is not None:
            await turn.wait()
        if runner.stop_requested():
            # A signal came while the engines were starting: the game has not
            # started (no GameStarted yet), so none starts (docs/running.md, Signals).
            raise StoppedBeforeStart(str(gid))
        white, black = sessions[Color.WHITE], sessions[Color.BLACK]
        # Each side under its engine's own limits, if any (as play_game's clock).
        clock = Clock.start(
            white.config.time_control(s.time_control),
            s.margin_ms,
            black_tc=black.config.time_control(s.time_control),
        )
        headers = _headers(runner, gid, game, opening, start)
        headers.update(side_time_control_tags(clock, s.time_control))
        live = LiveGame(headers, opening, white.options, black.options)
        runner.game_started(
            GameStarted(
                game_id=gid,
                white=game.white,
                black=game.black,
                opening=opening,
                time_control=s.time_control.pgn_tag(),
                start_time=start,
                white_clock_ms=clock.remaining_ms(Color.WHITE),
                black_clock_ms=clock.remaining_ms(Color.BLACK),
            ),
            live,
        )
        if turn is not None:
            turn.decided()

        def on_move(move: MoveRecord, white_ms: int | None, black_ms: int | None) -> None:
            runner.move_played(gid, move, white_ms, black_ms)

        setup = GameSetup(
            game_id=gid,
            event=s.event,
            site=s.site,
            time_control=s.time_control,
            margin_ms=s.margin_ms,
            adjudication=s.adjudication,
            probe=runner.probe,
            opening=opening,
            fault_policy=s.on_fault,
        )
        outcome = await play_game(setup, white, black, on_move=on_move)
        faults = tuple(_fault_tuple(f) for f in outcome.faults)
        if outcome.replay:
            return None, faults, True
        record = outcome.record
        if record.white_elo is None and record.black_elo is None:
            record = dataclasses.replace(
                record,
                white_elo=runner.engines[game.white].rating,
                black_elo=runner.engines[game.black].rating,
            )
        return record, faults, False
    except BaseException:
        # Cancelled (shutdown) or a bug: never keep these engines, kill them.
        for session in sessions.values():
            with contextlib.suppress(Exception):
                await session.close(graceful=False)
        sessions.clear()
        raise
    finally:
        if turn is not None:
            turn.decided()  # a start-up fault, a stop, an error: the next game may decide
        for session in sessions.values():
            with contextlib.suppress(Exception):
                await pool.release(session)


def _fault_tuple(fault: object) -> FaultTuple:
    """(engine, kind, detail) from the runner's fault value (a tuple or an object)."""
    if isinstance(fault, tuple):
        engine, kind, detail = fault
        return (PlayerId(engine), str(kind), str(detail))
    return (
        PlayerId(getattr(fault, "engine", getattr(fault, "name", "?"))),
        str(getattr(fault, "kind", "fault")),
        str(getattr(fault, "detail", "")),
    )

