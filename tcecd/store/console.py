"""The store's tables of the operator's console: ``control`` and ``attempts``.

Part of :class:`tcecd.store.EventStore` (a mixin, so the store stays one
object with one connection and one lock; see :mod:`tcecd.store.sqlite` for
the layout and the transactions). Every command of the console, accepted or
refused, is one row of ``control``, written in the same transaction as what
it does to a game: a game stopped while played (its moves so far), a
finished game's result voided (its row moves to ``attempts``, keeping its
place in the PGN file), an adjudication's record.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcecd.domain import GameId
from tcecd.errors import StateError
from tcecd.events import ControlEntry
from tcecd.game.record import GameRecord
from tcecd.store import codec

_CONTROL_SCHEMA = """
CREATE TABLE IF NOT EXISTS control (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT UNIQUE,
    received TEXT NOT NULL,
    command TEXT NOT NULL,
    args TEXT NOT NULL,
    ok INTEGER NOT NULL,
    answer TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS attempts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    round INTEGER NOT NULL,
    number INTEGER NOT NULL,
    kind TEXT NOT NULL,
    control TEXT,
    reason TEXT NOT NULL,
    record TEXT NOT NULL,
    pgn TEXT,
    ledger INTEGER
);
"""

#: The place in the PGN file of the next game recorded: after every game and
#: every voided one (whose text stays in the file).
_NEXT_LEDGER = (
    "SELECT COALESCE(MAX(m), 0) + 1 FROM (SELECT MAX(rowid) AS m FROM games "
    "UNION ALL SELECT MAX(ledger) FROM attempts)"
)


#: Kinds of ``attempts`` rows (see the module docstring).
ABORTED, VOIDED, ADJUDICATED = "aborted", "voided", "adjudicated"
_CONTROL_COLUMNS = "seq, id, received, command, args, ok, answer"


@dataclass(frozen=True, slots=True)
class StoredAttempt:
    """A row of ``attempts``: a game stopped while played (``aborted``), a
    voided result (``voided``), or an operator's adjudication (``adjudicated``)."""

    game_id: GameId
    kind: str
    reason: str
    record_json: str
    control: str | None = None


def _reason(entry: ControlEntry) -> str:
    reason = entry.args.get("reason")
    return reason if isinstance(reason, str) else ""


class ConsoleRecords:
    """The console's part of :class:`~tcecd.store.EventStore` (module docstring)."""

    path: Path

    def _tx(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError  # (EventStore's)

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError  # (EventStore's)

    def _json(self, text: str, what: str) -> Any:
        raise NotImplementedError  # (EventStore's)

    def record_command(
        self,
        entry: ControlEntry,
        *,
        attempt: StoredAttempt | None = None,
        void: GameId | None = None,
    ) -> int:
        """Record one console command (accepted or refused) with what it does to
        a game, in one transaction, durable when this returns; returns its
        ``seq``. ``attempt``: a row to add (a game stopped while it was played:
        its moves so far; an adjudication's record). ``void``: the finished game
        whose result the command voids: its row moves to ``attempts`` (kind
        ``voided``, keeping its place in the PGN file) and its outbox row goes
        (the game's next result is a new message). A command id already
        recorded is a :class:`StateError` (a command is applied once)."""
        answer = {"error": entry.error} if not entry.ok else {"effect": entry.effect or {}}
        try:
            with self._tx() as db:
                if void is not None:
                    row = db.execute(
                        "SELECT rowid, record, pgn FROM games WHERE round = ? AND number = ?",
                        (void.round, void.number),
                    ).fetchone()
                    if row is None:
                        raise StateError(f"game {void} is not recorded in {self.path}")
                    db.execute(
                        "INSERT INTO attempts (round, number, kind, control, reason, record, "
                        "pgn, ledger) VALUES (?, ?, 'voided', ?, ?, ?, ?, ?)",
                        (void.round, void.number, entry.id, _reason(entry), row[1], row[2],
                         row[0]),
                    )  # fmt: skip
                    db.execute(
                        "DELETE FROM games WHERE round = ? AND number = ?",
                        (void.round, void.number),
                    )
                    db.execute("DELETE FROM outbox WHERE key = ?", (f"end {void}",))
                if attempt is not None:
                    gid = attempt.game_id
                    db.execute(
                        "INSERT INTO attempts (round, number, kind, control, reason, record) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (gid.round, gid.number, attempt.kind, entry.id, attempt.reason,
                         attempt.record_json),
                    )  # fmt: skip
                cur = db.execute(
                    "INSERT INTO control (id, received, command, args, ok, answer) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (entry.id, entry.received, entry.command,
                     json.dumps(entry.args, sort_keys=True), int(entry.ok),
                     json.dumps(answer, sort_keys=True)),
                )  # fmt: skip
                assert cur.lastrowid is not None
                return int(cur.lastrowid)
        except sqlite3.IntegrityError:
            raise StateError(
                f"command {entry.id!r} is already recorded in {self.path}"
            ) from None

    def command(self, command_id: str) -> ControlEntry | None:
        """The recorded command with this id, if any."""
        rows = self._query(f"SELECT {_CONTROL_COLUMNS} FROM control WHERE id = ?", (command_id,))
        return self._control_entry(rows[0]) if rows else None

    def commands(self, *, last: int | None = None, accepted: bool = False) -> list[ControlEntry]:
        """The recorded commands, oldest first: every one, the ``last`` few, or
        (``accepted``) the ones applied."""
        where = "WHERE ok = 1" if accepted else ""
        if last is None:
            rows = self._query(f"SELECT {_CONTROL_COLUMNS} FROM control {where} ORDER BY seq")
        else:
            rows = self._query(
                f"SELECT {_CONTROL_COLUMNS} FROM control {where} ORDER BY seq DESC LIMIT ?",
                (last,),
            )[::-1]
        return [self._control_entry(r) for r in rows]

    def _control_entry(self, row: tuple[Any, ...]) -> ControlEntry:
        what = f"console command {row[0]}"
        args = self._json(row[4], what)
        answer = self._json(row[6], what)
        if not isinstance(args, dict) or not isinstance(answer, dict):
            raise StateError(f"{self.path}: {what} is damaged")
        return ControlEntry(
            seq=int(row[0]), id=row[1], received=row[2], command=row[3], args=args,
            ok=bool(row[5]), error=answer.get("error"), effect=answer.get("effect"),
        )  # fmt: skip

    def attempts(self, game: GameId | None = None) -> list[StoredAttempt]:
        """What the console took out of games (all, or ``game``'s), oldest first."""
        sql = "SELECT round, number, kind, control, reason, record FROM attempts"
        params: tuple[Any, ...] = ()
        if game is not None:
            sql += " WHERE round = ? AND number = ?"
            params = (game.round, game.number)
        rows = self._query(sql + " ORDER BY seq", params)
        return [StoredAttempt(GameId(r[0], r[1]), r[2], r[4], r[5], r[3]) for r in rows]

    def adjudicated_record(self, game: GameId) -> GameRecord | None:
        """The record the operator's latest adjudication of ``game`` ends it with."""
        found = [a for a in self.attempts(game) if a.kind == ADJUDICATED]
        if not found:
            return None
        try:
            return codec.record_from_dict(self._json(found[-1].record_json, f"game {game}"))
        except (KeyError, TypeError, ValueError) as exc:
            raise StateError(
                f"{self.path}: the adjudicated record of game {game} is damaged: {exc!r}"
            ) from None

    def ledger(self) -> list[str]:
        """The PGN text of every game in the order the PGN file holds them:
        the recorded games and the voided ones, each where it was appended."""
        rows = self._query(
            "SELECT pos, pgn FROM (SELECT rowid AS pos, pgn FROM games UNION ALL "
            "SELECT ledger AS pos, pgn FROM attempts WHERE kind = 'voided') ORDER BY pos"
        )
        return [str(r[1]) for r in rows]
