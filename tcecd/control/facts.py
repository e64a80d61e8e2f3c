"""What an accepted console command decided, as domain events. Pure.

The store keeps every command with its effect (:meth:`tcecd.store.EventStore.record_command`);
:func:`facts_of` turns an accepted one back into the events the event state
folds (:mod:`tcecd.event.state`), both when the command is applied and when
a resumed daemon rebuilds the state from the store, so the two cannot differ.
``status`` and ``stop`` decide nothing that lasts: a stop ends this run only.
"""

from __future__ import annotations

from tcecd.domain import GameId, Result
from tcecd.events import (
    ConcurrencyChanged,
    ControlEntry,
    DomainEvent,
    EngineReplaced,
    EngineWithdrawn,
    EventPaused,
    GameAdjudicationOrdered,
    GameRestartOrdered,
)


def facts_of(entry: ControlEntry) -> list[DomainEvent]:
    """The events an accepted command's effect records (none for a refused one)."""
    if not entry.ok:
        return []
    effect = entry.effect or {}
    args = entry.args
    reason = str(args.get("reason") or "")
    match entry.command:
        case "pause":
            return [EventPaused(True, reason)]
        case "resume":
            return [EventPaused(False, reason)]
        case "withdraw":
            return [EngineWithdrawn(str(args["engine"]), reason, int(str(effect["round"])))]
        case "replace":
            definition = effect["definition"]
            assert isinstance(definition, dict)
            return [EngineReplaced(str(args["engine"]), definition, reason)]
        case "concurrency":
            return [ConcurrencyChanged(int(str(effect["concurrency"])))]
        case "restart-game":
            gid = GameId.parse(str(args["game"]))
            return [GameRestartOrdered(gid, reason, voided=bool(effect.get("voided")))]
        case "adjudicate":
            gid = GameId.parse(str(args["game"]))
            return [GameAdjudicationOrdered(gid, Result.from_pgn(str(args["result"])), reason)]
    return []
