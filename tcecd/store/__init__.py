"""Crash-safe event state (SQLite, WAL, synchronous commits) and its JSON codec."""

from tcecd.bus.outbox import OutboxRow
from tcecd.store.sqlite import DB_NAME, EventStore, StoredGame, round_record

__all__ = ["DB_NAME", "EventStore", "OutboxRow", "StoredGame", "round_record"]
