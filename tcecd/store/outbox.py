"""The store's ``outbox`` table: the MQTT messages that must reach subscribers
(:mod:`tcecd.bus.outbox`), written in the transaction of what they announce,
``acked`` once the broker acknowledged them (docs/state.md). Its methods are
:class:`OutboxRecords`, a part of :class:`~tcecd.store.EventStore`."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from typing import Any

from tcecd.bus.outbox import OutboxEntry, OutboxRow

OUTBOX_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL UNIQUE,
    topic TEXT NOT NULL,
    payload BLOB NOT NULL,
    qos INTEGER NOT NULL,
    retained INTEGER NOT NULL,
    acked INTEGER NOT NULL DEFAULT 0
);
"""


def insert_outbox(db: sqlite3.Connection, entries: Sequence[OutboxEntry]) -> list[OutboxRow]:
    """Insert ``entries`` in the current transaction, skipping keys already there."""
    rows: list[OutboxRow] = []
    for e in entries:
        cur = db.execute(
            "INSERT OR IGNORE INTO outbox (key, topic, payload, qos, retained) "
            "VALUES (?, ?, ?, ?, ?)",
            (e.key, e.topic, e.payload, e.qos, int(e.retain)),
        )
        if cur.rowcount == 1 and cur.lastrowid is not None:
            rows.append((int(cur.lastrowid), e))
    return rows


class OutboxRecords:
    """The outbox's part of :class:`~tcecd.store.EventStore`."""

    def _tx(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError  # (EventStore's)

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError  # (EventStore's)

    def add_outbox(self, entries: Sequence[OutboxEntry]) -> list[OutboxRow]:
        """Add must-deliver messages on their own (one transaction); an entry
        whose key is already there is left alone. Returns the rows written."""
        with self._tx() as db:
            return insert_outbox(db, entries)

    def outbox_keys(self) -> set[str]:
        """The keys of every outbox row, acknowledged or not."""
        return {str(r[0]) for r in self._query("SELECT key FROM outbox")}

    def outbox_pending(self) -> list[OutboxRow]:
        """The rows the broker has not acknowledged yet, oldest first."""
        rows = self._query(
            "SELECT id, key, topic, payload, qos, retained FROM outbox WHERE acked = 0 "
            "ORDER BY id"
        )
        return [
            (int(r[0]), OutboxEntry(r[1], r[2], bytes(r[3]), int(r[4]), bool(r[5])))
            for r in rows
        ]

    def ack_outbox(self, ids: Sequence[int]) -> None:
        """Mark rows acknowledged by the broker (losing this write only means
        sending them again: at least once)."""
        with self._tx() as db:
            db.executemany("UPDATE outbox SET acked = 1 WHERE id = ?", [(i,) for i in ids])
