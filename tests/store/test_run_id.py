"""The live stream's event identity kept in the state."""

from __future__ import annotations

from pathlib import Path

from tcecd.store import EventStore


def test_run_id_is_made_once_and_kept(tmp_path: Path) -> None:
    """The run_id survives a reopen (a resume publishes the same one); another
    state directory (a fresh event) gets another."""
    with EventStore(tmp_path / "a") as store:
        first = store.run_id()
        assert first == store.run_id()
    with EventStore(tmp_path / "a") as store:
        assert store.run_id() == first
    with EventStore(tmp_path / "b") as store:
        assert store.run_id() != first
