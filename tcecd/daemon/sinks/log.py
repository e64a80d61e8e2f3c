"""The event's log lines, as a sink: one line per game started and finished,
round paired, fault and disqualification (structlog; the game's task binds
which game a line is about)."""

from __future__ import annotations

from typing import Any

from tcecd.daemon.stream import BaseSink, Committed
from tcecd.event.state import EventState
from tcecd.events import (
    DomainEvent,
    EngineDisqualified,
    EngineFault,
    GameFinished,
    GameStarted,
    RoundPaired,
    StandingsUpdated,
)


class LogSink(BaseSink):
    """Writes the event's log lines to ``log`` (a structlog logger)."""

    wants: frozenset[type[DomainEvent]] | None = frozenset(
        {GameStarted, GameFinished, RoundPaired, EngineFault, EngineDisqualified, StandingsUpdated}
    )

    def __init__(self, log: Any) -> None:
        self.log = log

    def handle(self, committed: Committed, state: EventState) -> None:
        event, log = committed.event, self.log
        if isinstance(event, GameStarted):
            log.info("game started", game=str(event.game_id), white=event.white,
                     black=event.black, opening=event.opening.name)  # fmt: skip
        elif isinstance(event, GameFinished):
            rec = event.record
            log.info("game finished", game=str(rec.game_id), white=rec.white, black=rec.black,
                     result=rec.result.value, termination=rec.termination.value,
                     detail=rec.termination_detail, plies=len(rec.moves))  # fmt: skip
        elif isinstance(event, RoundPaired):
            p = event.pairing
            log.info("round paired", round=p.round, byes=sorted(p.byes),
                     removed_history_rounds=list(p.removed_history_rounds),
                     games=[f"{g.white}-{g.black}" for g in p.games])  # fmt: skip
        elif isinstance(event, EngineFault):
            log.warning("engine fault", engine=event.engine, kind=event.kind,
                        detail=event.detail, strikes=event.strikes)  # fmt: skip
        elif isinstance(event, EngineDisqualified):
            log.error("engine disqualified", engine=event.engine, reason=event.reason)
        elif isinstance(event, StandingsUpdated) and event.after_round > 0:
            top = event.standings[0] if event.standings else None
            log.info("round finished", round=event.after_round,
                     leader=top.id if top else None, score=top.score if top else None)  # fmt: skip
