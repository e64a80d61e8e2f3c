"""The state directory is a ledger: outputs the store does not account for stay untouched.

The store (:mod:`tcecd.store`) is the truth, and the PGN and the TCEC JSON files
are derived from it. That makes rewriting an output from the store safe only
when the store accounts for everything in it. A missing, emptied or rolled-back
``event.sqlite`` (a lost ``-wal`` file, a torn WAL, a deleted row), or two
events whose ``outputs.pgn`` name the same file, would otherwise turn "repair
the PGN from the store" into "delete the games the store forgot".

So, before anything is written:

* a **new** event (the store records no event) refuses to start when its PGN
  holds a game or one of its TCEC JSON files exists;
* a **resumed** event refuses when its PGN is not a beginning of the stored
  games' PGN text (what a crash between a commit and the append leaves, which
  is then completed by appending, never by rewriting).

The refusal is one line naming the file and the ways on: ``--from-pgn`` to
rebuild a state from the PGN, or a fresh state directory. See docs/state.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tcecd.errors import StateError
from tcecd.outputs.files import PgnFile, count_games

#: The TCEC JSON files the daemon writes into ``outputs.tcec_json_dir``.
JSON_FILES = (
    "schedule.json", "crosstable.json", "live.json", "live.pgn", "crash.json", "tournament.json",
)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def check_new_event(pgn: PgnFile, json_dir: Path | None, db: Path) -> None:
    """A new event: refuse when an output already holds something (it can only
    be another event's, or this event's after its store was lost)."""
    data = pgn.read()
    if data and data.strip():
        games = count_games(data)
        raise StateError(
            f"{pgn.path}: holds {_plural(games, 'game')} that no event state records "
            f"({db} holds no event); refusing to overwrite it: run with --from-pgn "
            f"{pgn.path} to rebuild the state from it, or use a fresh state directory"
        )
    if json_dir is None:
        return
    if json_dir.exists() and not json_dir.is_dir():
        raise StateError(f"{json_dir}: is not a directory (outputs.tcec_json_dir)")
    for name in JSON_FILES:
        path = json_dir / name
        if path.exists() or path.is_symlink():
            raise StateError(
                f"{path}: exists but no event state records its event ({db} holds no "
                "event); refusing to overwrite it: move it away, or use a fresh state directory"
            )


def check_resumed_event(pgn: PgnFile, stored: Sequence[str], db: Path) -> None:
    """A resumed event: the PGN must be a beginning of the stored games' text."""
    if pgn.missing_tail(stored) is not None:
        return
    data = pgn.read() or b""
    raise StateError(
        f"{pgn.path}: holds games that the event state does not record ({db} records "
        f"{_plural(len(stored), 'game')}, the PGN {count_games(data)}): the state is behind "
        f"the PGN or the PGN belongs to another event; refusing to overwrite it: to continue "
        f"from the PGN, rebuild the state from it with --from-pgn {pgn.path} and a fresh "
        "--state-dir"
    )
