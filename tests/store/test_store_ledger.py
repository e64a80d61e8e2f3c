"""The store as a ledger: opening writes nothing, a batch is all or nothing, the
lock cannot be removed from under a running daemon, damage is a StateError."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tcecd.domain import GameId, Result
from tcecd.errors import StateError
from tcecd.store import EventStore
from tests.store.test_store import PAIRING, PLAYERS, make_record


def test_deleting_the_lock_file_does_not_let_a_second_daemon_in(tmp_path: Path) -> None:
    """On main the lock was a flock on ``tcecd.lock``: deleted while a daemon
    ran, the next daemon created and locked a new file and played the same
    event. The lock is now held on the state directory itself."""
    with EventStore(tmp_path):
        (tmp_path / "tcecd.lock").unlink(missing_ok=True)
        with pytest.raises(StateError, match="another tcecd process is running"):
            EventStore(tmp_path)
    EventStore(tmp_path).close()  # released on close


def test_opening_writes_nothing(tmp_path: Path) -> None:
    """A missing database is not created by opening and closing it, and an
    empty one stays empty (a refused start leaves the directory as it was)."""
    with EventStore(tmp_path) as store:
        assert not store.initialised
        assert store.games() == []
        assert store.pairings() == []
    assert not (tmp_path / "event.sqlite").exists()
    (tmp_path / "event.sqlite").write_bytes(b"")
    EventStore(tmp_path).close()
    assert (tmp_path / "event.sqlite").read_bytes() == b""


def test_a_failed_batch_leaves_a_blank_store(tmp_path: Path) -> None:
    """What ``run --from-pgn`` relies on: a refusal in the middle of an import
    takes back the identity, the pairings and the games written before it."""
    record = make_record(GameId(1, 1), "c", "b", Result.WHITE_WINS)
    seen_inside: list[GameId] = []

    def import_twice(store: EventStore) -> None:
        with store.batch():
            store.initialise(fingerprint={}, players=PLAYERS, rng_seed=None, double=False)
            store.save_pairing(PAIRING)
            store.commit_game(record, "PGN\n\n", played=True)
            seen_inside.extend(g.game_id for g in store.games())
            store.commit_game(record, "PGN\n\n", played=True)  # refused: rolls all back

    with EventStore(tmp_path) as store:
        with pytest.raises(StateError, match=r"game 1\.1 is already recorded"):
            import_twice(store)
        assert seen_inside == [GameId(1, 1)]
        assert not store.initialised
        assert store.games() == []
    with EventStore(tmp_path) as store:
        assert not store.initialised
        store.initialise(fingerprint={}, players=PLAYERS, rng_seed=None, double=False)
        assert store.players() == PLAYERS


def test_damaged_rows_name_the_file_and_the_row(tmp_path: Path) -> None:
    with EventStore(tmp_path) as store:
        store.initialise(fingerprint={}, players=PLAYERS, rng_seed=None, double=False)
        store.save_pairing(PAIRING)
    db = sqlite3.connect(tmp_path / "event.sqlite")
    db.execute("UPDATE rounds SET pairing = '{\"round\": 1' WHERE round = 1")
    db.execute("UPDATE meta SET value = '[{\"id\": \"a\"}]' WHERE key = 'players'")
    db.commit()
    db.close()
    with EventStore(tmp_path) as store:
        path = tmp_path / "event.sqlite"
        with pytest.raises(StateError, match=f"^{path}: the stored pairing of round 1 is "
                                             r"damaged \(not JSON: "):  # fmt: skip
            store.pairings()
        with pytest.raises(StateError, match=f"^{path}: the stored players are damaged: "
                                             "KeyError"):  # fmt: skip
            store.players()
