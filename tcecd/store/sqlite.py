"""The crash-safe event state: one SQLite database in the state directory.

Why SQLite: every change of the event state (a round paired, a game finished
with its PGN text, a strike, a disqualification) is one transaction, and SQLite
in WAL mode with ``synchronous=FULL`` makes a committed transaction durable
(the WAL is fsync'd at every commit) and an interrupted one invisible, whatever
moment the process is killed at. So the state after a SIGKILL is always the
state after some whole step, and resuming is just reading it back.

Layout (``SCHEMA_VERSION`` 1, see docs/state.md):

* ``meta(key, value)``: schema version, config fingerprint (JSON), seeded players
  (JSON), the seeding RNG seed, and ``finished`` once the event is over;
* ``rounds(round, pairing)``: each round's :class:`RoundPairing` as JSON, stored
  before its first game starts;
* ``games(round, number, ..., record, pgn)``: finished games (played or forfeited)
  with the full record (JSON) and the exact PGN text written to the PGN file;
* ``faults``: every engine fault (one strike each);
* ``disqualified(engine, round, reason)``;
* ``outbox(id, key, topic, payload, qos, retained, acked)``: the MQTT messages
  that must reach subscribers (:mod:`tcecd.bus.outbox`), written with what they
  announce, ``acked`` once the broker acknowledged them (added within version 1:
  created when an older state is opened).
* ``control(seq, id, received, command, args, ok, answer)``: every command of the
  operator's console (:mod:`tcecd.control`), accepted or refused, written before
  it is answered: the audit log, and the facts it decided (a pause, a
  withdrawal, a replaced engine, the concurrency) that the event state folds in
  on resume; ``id`` is unique (the same command sent twice is applied once);
* ``attempts(seq, round, number, kind, control, reason, record, pgn, ledger)``:
  what the console took out of a game's course: a game stopped while it was
  played (``aborted``: its moves so far), a finished game whose result the
  operator voided (``voided``: its record and the PGN text that stays in the
  PGN file, at ``ledger``, its place there), and the record an operator's
  adjudication ends a game with (``adjudicated``, committed in its turn).
  Both tables were added within version 1, created when an older state is opened;
  their methods are in :mod:`tcecd.store.console`.

The PGN file holds the games in the order they were recorded, voided ones
included: :meth:`EventStore.ledger` gives that text back (a game is stored
with a ``rowid`` above every earlier one, a voided game keeps its place).

The PGN file, ``schedule.json`` and ``crosstable.json`` are outputs derived from
this store, never read back.

Opening a store never writes to it: a missing or empty database is a *blank*
store (every read returns nothing) until its first write creates the tables,
so a refused start (see :mod:`tcecd.daemon.ledger`) leaves the directory as
it was. A damaged database (a corrupt page, a missing table, a row that is not
valid JSON) is a :class:`StateError` naming the file.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import urllib.parse
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcecd.bus.outbox import OutboxEntry, OutboxRow
from tcecd.domain import GameId, PlayerId, Result, Termination
from tcecd.errors import StateError
from tcecd.game.record import GameRecord
from tcecd.pairing.base import PlayedGame, Player, RoundPairing, RoundRecord
from tcecd.store import codec
from tcecd.store.console import (
    _CONTROL_SCHEMA,
    _NEXT_LEDGER,
    ConsoleRecords,
)
from tcecd.store.lock import lock_directory
from tcecd.store.outbox import OUTBOX_SCHEMA, OutboxRecords, insert_outbox

SCHEMA_VERSION = 1
DB_NAME = "event.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (round INTEGER PRIMARY KEY, pairing TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    round INTEGER NOT NULL,
    number INTEGER NOT NULL,
    white TEXT NOT NULL,
    black TEXT NOT NULL,
    result TEXT NOT NULL,
    termination TEXT NOT NULL,
    played INTEGER NOT NULL,
    record TEXT NOT NULL,
    pgn TEXT NOT NULL,
    PRIMARY KEY (round, number)
);
CREATE TABLE IF NOT EXISTS faults (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    engine TEXT NOT NULL,
    round INTEGER,
    number INTEGER,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS disqualified (
    engine TEXT PRIMARY KEY,
    round INTEGER NOT NULL,
    reason TEXT NOT NULL
);

""" + OUTBOX_SCHEMA + _CONTROL_SCHEMA


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A finished game as the store keeps it."""

    game_id: GameId
    white: PlayerId
    black: PlayerId
    result: Result
    termination: Termination
    played: bool
    pgn: str
    record_json: str
    #: The database it was read from (for error messages only).
    source: str = field(default="", compare=False)

    @property
    def record(self) -> GameRecord:
        """The full game record (parsed on demand: it holds every move)."""
        where = f"{self.source}: " if self.source else ""
        try:
            return codec.record_from_dict(json.loads(self.record_json))
        except (ValueError, StateError) as exc:
            raise StateError(
                f"{where}game {self.game_id}: the stored record is damaged: {exc}"
            ) from None

    def played_game(self) -> PlayedGame:
        return PlayedGame(self.white, self.black, self.result, self.played)


class EventStore(ConsoleRecords, OutboxRecords):
    """The state of one event in ``<state_dir>/event.sqlite``.

    Holds an exclusive lock on the state directory for its lifetime so that
    two daemons never run the same event. Thread-safe (one lock around the
    connection) so that the daemon can commit from a worker thread and keep
    fsyncs off the event loop.
    """

    def __init__(
        self, state_dir: Path, *, readonly: bool = False, durable: bool = True
    ) -> None:
        """``readonly``: a reader beside a daemon that may be running the event
        (``tcecd simulate --forecast STATE_DIR``): no lock, no write, and an existing
        database only; SQLite's own locking keeps each read consistent.
        ``durable`` False: commits are not fsync'd (a scratch state that is
        thrown away at the end: ``tcecd play`` without ``--state``)."""
        self.state_dir = state_dir
        self.path = state_dir / DB_NAME
        self.readonly = readonly
        if readonly and not self.path.is_file():
            raise StateError(f"{self.path}: no event state here (not a regular file)")
        # Made by the lock below when missing: removed again on close if it is still
        # empty (a refused start, `run --from-pgn` with a bad PGN, leaves no trace).
        self._made_dir = not readonly and not state_dir.exists()
        self._lock_fd = -1 if readonly else lock_directory(state_dir)
        # Re-entrant: a batch (:meth:`batch`) holds it around nested writes.
        self._mutex = threading.RLock()
        self._depth = 0  # nesting of open write transactions
        self._blank = True
        try:
            if self.path.exists() and not self.path.is_file():
                raise StateError(f"{self.path}: is not a regular file (the event state database)")
            # Made by the connection below when missing: removed again on close
            # if nothing was written (a refused start leaves no trace).
            self._made = not self.path.exists()
            if readonly:
                uri = f"file:{urllib.parse.quote(str(self.path.resolve()))}?mode=ro"
                self._db = sqlite3.connect(
                    uri, uri=True, isolation_level=None, check_same_thread=False
                )
            else:
                self._db = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False
                )
                self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'OFF'}")
            self._check()
        except sqlite3.DatabaseError as exc:
            self._release()
            raise StateError(f"{self.path}: unreadable event state: {exc}") from None
        except StateError:
            self._release()
            raise

    def _check(self) -> None:
        """Read-only checks of an existing database (a blank one passes)."""
        tables = {r[0] for r in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}  # fmt: skip
        if not tables:
            return  # blank: created by the first write
        self._blank = False
        missing = [t for t in _TABLES if t not in tables]
        if missing:
            raise StateError(
                f"{self.path}: the event state is damaged: table {missing[0]!r} is missing"
            )
        version = self._get("schema_version")
        if version != str(SCHEMA_VERSION):
            raise StateError(
                f"{self.path}: state schema version {version!r} is not supported "
                f"(this tcecd writes version {SCHEMA_VERSION})"
            )
        problems = [str(r[0]) for r in self._db.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            raise StateError(f"{self.path}: the event state is damaged: {problems[0]}")
        if "outbox" not in tables and not self.readonly:
            # Added within schema version 1: created when an older (sound) state
            # is opened, the one write opening makes.
            self._db.execute(OUTBOX_SCHEMA)
        if "control" not in tables or "attempts" not in tables:
            # The console's tables, added the same way.
            self._db.executescript(_CONTROL_SCHEMA)

    # -- plumbing ----------------------------------------------------------

    def _release(self) -> None:
        if self._lock_fd >= 0:
            os.close(self._lock_fd)  # closing drops the flock
            self._lock_fd = -1

    def close(self) -> None:
        with self._mutex:
            self._db.close()
            if self._made and self._blank:
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                self._remove_made_directory()
        self._release()

    def _remove_made_directory(self) -> None:
        """The state directory, if this store made it and nothing else is in it."""
        if self._made_dir:
            with contextlib.suppress(OSError):  # not empty (or gone): keep it
                self.state_dir.rmdir()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it is durable, or none of it. Nested in
        a :meth:`batch`, it is part of the batch's transaction."""
        with self._mutex:
            if self._depth:
                self._depth += 1
                try:
                    yield self._db
                finally:
                    self._depth -= 1
                return
            if self._blank:
                # Persistent in the file; cannot be changed inside a transaction.
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("BEGIN IMMEDIATE")
            self._depth = 1
            was_blank = self._blank
            try:
                if was_blank:
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            self._db.execute(statement)
                    self._db.execute(
                        "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                        (str(SCHEMA_VERSION),),
                    )
                    self._blank = False  # reads inside the transaction see its tables
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                self._blank = was_blank
                raise
            else:
                self._db.execute("COMMIT")
            finally:
                self._depth = 0

    def batch(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """Group the writes made inside the ``with`` block into one transaction
        (``run --from-pgn`` imports a whole event this way: all of it or nothing)."""
        return self._tx()

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._mutex:
            if self._blank:
                return []
            try:
                return list(self._db.execute(sql, params).fetchall())
            except sqlite3.DatabaseError as exc:
                raise StateError(f"{self.path}: unreadable event state: {_one_line(exc)}") from None

    def _json(self, text: str, what: str) -> Any:
        """``text`` parsed, or a :class:`StateError` naming the file and the row."""
        try:
            return json.loads(text)
        except ValueError as exc:
            raise StateError(f"{self.path}: {what} is damaged (not JSON: {exc})") from None

    def _get(self, key: str) -> str | None:
        rows = self._query("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    # -- event identity ----------------------------------------------------

    @property
    def initialised(self) -> bool:
        return self._get("players") is not None

    def initialise(
        self,
        *,
        fingerprint: dict[str, object],
        players: tuple[Player, ...],
        rng_seed: int | None,
        double: bool,
    ) -> None:
        """Record a new event's identity in one transaction (before any pairing)."""
        with self._tx() as db:
            rows = [
                ("fingerprint", json.dumps(fingerprint, sort_keys=True, default=str)),
                ("players", json.dumps([codec.player_to_dict(p) for p in players])),
                ("rng_seed", json.dumps(rng_seed)),
                ("double", json.dumps(double)),
            ]
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", rows)

    def set_fingerprint(self, fingerprint: dict[str, object]) -> None:
        """Replace the stored fingerprint (after a harmless config change was accepted)."""
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)",
                (json.dumps(fingerprint, sort_keys=True, default=str),),
            )

    def fingerprint(self) -> dict[str, object] | None:
        text = self._get("fingerprint")
        return None if text is None else dict(self._json(text, "the stored fingerprint"))

    def players(self) -> tuple[Player, ...]:
        text = self._get("players")
        if text is None:
            raise StateError(f"{self.path}: the event state has no players yet")
        try:
            return tuple(
                codec.player_from_dict(d) for d in self._json(text, "the stored players")
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise StateError(f"{self.path}: the stored players are damaged: {exc!r}") from None

    def rng_seed(self) -> int | None:
        text = self._get("rng_seed")
        return None if text is None else self._json(text, "the stored RNG seed")

    def run_id(self) -> str:
        """This event instance's identity on the live stream (the ``run_id`` of
        the MQTT ``event`` document): made when first asked and kept, so a
        resumed run publishes the id of the run it continues, and viewers keep
        their state, while a fresh event gets a new one."""
        text = self._get("run_id")
        if text is None:
            with self._tx() as db:
                db.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('run_id', ?)", (uuid.uuid4().hex,)
                )
            text = self._get("run_id")
            assert text is not None
        return text

    @property
    def finished(self) -> bool:
        return self._get("finished") == "1"

    def mark_finished(self, *, outbox: Sequence[OutboxEntry] = ()) -> list[OutboxRow]:
        """Mark the event over, with the messages announcing it (one transaction)."""
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('finished', '1')")
            return insert_outbox(db, outbox)

    # -- rounds --------------------------------------------------------------

    def save_pairing(
        self,
        pairing: RoundPairing,
        *,
        outbox: Sequence[OutboxEntry] = (),
        replace: bool = False,
    ) -> list[OutboxRow]:
        """Record a round's pairing (its schedule), with the messages announcing
        it (one transaction). ``replace``: the round is stored already and this
        schedule extends it (a knockout round's next games): the stored games
        must be its first ones, unchanged, or it is a :class:`StateError`."""
        text = json.dumps(codec.pairing_to_dict(pairing))
        with self._tx() as db:
            if replace:
                row = db.execute(
                    "SELECT pairing FROM rounds WHERE round = ?", (pairing.round,)
                ).fetchone()
                if row is None:
                    raise StateError(f"{self.path}: round {pairing.round} is not stored")
                old = codec.pairing_from_dict(json.loads(row[0]))
                if pairing.games[: len(old.games)] != old.games:
                    raise StateError(
                        f"{self.path}: round {pairing.round}: a new schedule must keep the "
                        "stored games as they are"
                    )
                db.execute("UPDATE rounds SET pairing = ? WHERE round = ?", (text, pairing.round))
            else:
                db.execute("INSERT INTO rounds VALUES (?, ?)", (pairing.round, text))
            return insert_outbox(db, outbox)

    def pairing(self, round_no: int) -> RoundPairing | None:
        rows = self._query("SELECT round, pairing FROM rounds WHERE round = ?", (round_no,))
        return self._pairing(rows[0]) if rows else None

    def pairings(self) -> list[RoundPairing]:
        rows = self._query("SELECT round, pairing FROM rounds ORDER BY round")
        return [self._pairing(r) for r in rows]

    def _pairing(self, row: tuple[Any, ...]) -> RoundPairing:
        what = f"the stored pairing of round {row[0]}"
        try:
            return codec.pairing_from_dict(self._json(row[1], what))
        except (KeyError, TypeError, ValueError) as exc:
            raise StateError(f"{self.path}: {what} is damaged: {exc!r}") from None

    # -- games ---------------------------------------------------------------

    def commit_game(
        self,
        record: GameRecord,
        pgn: str,
        *,
        played: bool,
        faults: Sequence[tuple[PlayerId, str, str]] = (),
        disqualify: Sequence[tuple[PlayerId, int, str]] = (),
        outbox: Sequence[OutboxEntry] = (),
    ) -> list[OutboxRow]:
        """Record a finished game with the faults (engine, kind, detail) it caused,
        the disqualifications they led to (engine, round, reason) and the
        messages announcing it (``outbox``), in one transaction; durable when
        this returns. Returns the outbox rows written. Committing the same game
        twice is a :class:`StateError` (a finished game is never replayed)."""
        gid = record.game_id
        try:
            with self._tx() as db:
                db.executemany(
                    "INSERT INTO faults (engine, round, number, kind, detail) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [(e, gid.round, gid.number, k, d) for e, k, d in faults],
                )
                db.executemany(
                    "INSERT OR IGNORE INTO disqualified VALUES (?, ?, ?)", list(disqualify)
                )
                db.execute(
                    "INSERT INTO games (rowid, round, number, white, black, result, "
                    "termination, played, record, pgn) VALUES "
                    f"(({_NEXT_LEDGER}), ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        gid.round,
                        gid.number,
                        record.white,
                        record.black,
                        record.result.value,
                        record.termination.value,
                        int(played),
                        json.dumps(codec.record_to_dict(record)),
                        pgn,
                    ),
                )
                return insert_outbox(db, outbox)
        except sqlite3.IntegrityError:
            raise StateError(f"game {gid} is already recorded in {self.path}") from None

    def iter_games(self, batch: int = 64) -> Iterator[StoredGame]:
        """Every finished game in schedule order, read ``batch`` at a time (a
        long event's games are never all in memory at once)."""
        after = (0, 0)
        while True:
            rows = self._query(
                "SELECT round, number, white, black, result, termination, played, pgn, record "
                "FROM games WHERE (round, number) > (?, ?) ORDER BY round, number LIMIT ?",
                (*after, batch),
            )
            yield from self._stored_games(rows)
            if len(rows) < batch:
                return
            after = (rows[-1][0], rows[-1][1])

    def games(self) -> list[StoredGame]:
        """Every finished game in schedule order (round, then number)."""
        rows = self._query(
            "SELECT round, number, white, black, result, termination, played, pgn, record "
            "FROM games ORDER BY round, number"
        )
        return self._stored_games(rows)

    def _stored_games(self, rows: list[tuple[Any, ...]]) -> list[StoredGame]:
        return [
            StoredGame(
                game_id=GameId(r[0], r[1]),
                white=r[2],
                black=r[3],
                result=Result.from_pgn(r[4]),
                termination=Termination(r[5]),
                played=bool(r[6]),
                pgn=r[7],
                record_json=r[8],
                source=str(self.path),
            )
            for r in rows
        ]

    def round_records(self) -> list[RoundRecord]:
        """The finished rounds as the pairing core reads them (complete rounds only)."""
        by_round: dict[int, dict[int, StoredGame]] = {}
        for g in self.games():
            by_round.setdefault(g.game_id.round, {})[g.game_id.number] = g
        records: list[RoundRecord] = []
        for pairing in self.pairings():
            done = by_round.get(pairing.round, {})
            if len(done) < len(pairing.games):
                break
            records.append(round_record(pairing, done))
        return records

    # -- faults and disqualification -------------------------------------------

    def add_fault(self, engine: PlayerId, game_id: GameId | None, kind: str, detail: str) -> int:
        """Record one fault (a strike); returns the engine's strikes so far."""
        with self._tx() as db:
            db.execute(
                "INSERT INTO faults (engine, round, number, kind, detail) VALUES (?, ?, ?, ?, ?)",
                (
                    engine,
                    None if game_id is None else game_id.round,
                    None if game_id is None else game_id.number,
                    kind,
                    detail,
                ),
            )
            row = db.execute("SELECT COUNT(*) FROM faults WHERE engine = ?", (engine,)).fetchone()
        return int(row[0])

    def strikes(self) -> dict[PlayerId, int]:
        rows = self._query("SELECT engine, COUNT(*) FROM faults GROUP BY engine")
        return {r[0]: int(r[1]) for r in rows}

    def faults(self) -> list[tuple[PlayerId, GameId | None, str, str]]:
        rows = self._query("SELECT engine, round, number, kind, detail FROM faults ORDER BY id")
        return [
            (r[0], None if r[1] is None else GameId(r[1], r[2]), r[3], r[4]) for r in rows
        ]

    def disqualify(self, engine: PlayerId, round_no: int, reason: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR IGNORE INTO disqualified VALUES (?, ?, ?)", (engine, round_no, reason)
            )

    def disqualified(self) -> dict[PlayerId, tuple[int, str]]:
        rows = self._query("SELECT engine, round, reason FROM disqualified")
        return {r[0]: (int(r[1]), r[2]) for r in rows}


_TABLES = ("meta", "rounds", "games", "faults", "disqualified")


def _one_line(exc: BaseException) -> str:
    """An SQLite error as one short line (a damaged page's error quotes the
    text it could not decode, new lines and all)."""
    lines = str(exc).splitlines() or [""]
    text = lines[0]
    return text if len(text) <= 120 else text[:117] + "..."


def round_record(pairing: RoundPairing, games: dict[int, StoredGame]) -> RoundRecord:
    """The :class:`RoundRecord` of a round from its pairing and (some of) its
    finished games, in playing order; unfinished games are left out."""
    return pairing.record(
        [games[g.number].played_game() for g in pairing.games if g.number in games]
    )
