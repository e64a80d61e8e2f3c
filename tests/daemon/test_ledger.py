"""The state directory is a ledger: ``tcecd run`` never overwrites or shortens an
output the store does not account for, and a damaged state is one line, exit 2.

Every case starts from a real event played by ``python -m tcecd run`` with the
bundled deterministic engines (2 rounds of 2 games), damaged the way the case
says, then runs ``tcecd run`` again as a user would. "Unchanged" is checked on
the bytes of the PGN and the JSON files (SQLite itself may tidy its -wal/-shm
files when a database is opened and closed)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.daemon.helpers import pgn_rounds, run_tcecd, write_config

# Real event runs (a few seconds each), played once for the module: one worker
# for it (spread over workers, the module fixture ran once per worker).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ledger")]

ROUNDS = 2


@dataclass(frozen=True)
class Played:
    """A finished event and an event SIGKILLed after game 2.1 (WAL not checkpointed)."""

    finished: Path  # its state directory
    crashed: Path


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    base = tmp_path_factory.mktemp("ledger")
    cfg = write_config(base / "finished", rounds=ROUNDS, concurrency=1)
    proc = run_tcecd(cfg)
    assert proc.returncode == 0, proc.stderr[-3000:]
    crashed = write_config(base / "crashed", rounds=ROUNDS, concurrency=1)
    proc = run_tcecd(crashed, crash_at="after-game:2.1")
    assert proc.returncode == -9, proc.stderr[-3000:]
    return Played(cfg.parent / "state", crashed.parent / "state")


def copy_state(source: Path, tmp_path: Path) -> tuple[Path, Path]:
    """(config, state dir) of a copy of ``source`` in ``tmp_path``."""
    shutil.copytree(source, tmp_path / "state")
    return write_config(tmp_path, rounds=ROUNDS, concurrency=1), tmp_path / "state"


def outputs(state: Path) -> dict[str, bytes]:
    """The bytes of every output file (not the database)."""
    return {
        str(p.relative_to(state)): p.read_bytes()
        for p in sorted(state.rglob("*"))
        if p.is_file() and not p.name.startswith("event.sqlite")
    }


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The run was refused: exit 2 and exactly one line on stderr, no traceback."""
    assert proc.returncode == 2, proc.stderr[-3000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr[-3000:]
    assert lines[0].startswith("tcecd: error: ")
    return lines[0]


def test_the_fixture_events(played: Played) -> None:
    """The finished event has its 4 games in the PGN; the crashed one 3, and its
    -wal file still holds the commits (the case of a lost or torn WAL)."""
    text = (played.finished / "event.pgn").read_text(encoding="utf-8")
    assert pgn_rounds(text) == ["1.1", "1.2", "2.1", "2.2"]
    crashed = (played.crashed / "event.pgn").read_text(encoding="utf-8")
    assert pgn_rounds(crashed) == ["1.1", "1.2", "2.1"]
    assert (played.crashed / "event.sqlite-wal").stat().st_size > 0


@pytest.mark.parametrize("damage", ["missing", "empty", "lost-wal"])
def test_a_lost_store_never_wipes_the_pgn(tmp_path: Path, played: Played, damage: str) -> None:
    """``event.sqlite`` gone, emptied, or its -wal/-shm files lost before a
    checkpoint: the store records no event, so on main the run started a "new
    event" and rewrote event.pgn empty. Now it refuses and says how to go on."""
    source = played.crashed if damage == "lost-wal" else played.finished
    cfg, state = copy_state(source, tmp_path)
    if damage == "missing":
        for p in state.glob("event.sqlite*"):
            p.unlink()
    elif damage == "empty":
        (state / "event.sqlite").write_bytes(b"")
    else:
        (state / "event.sqlite-wal").unlink()
        (state / "event.sqlite-shm").unlink(missing_ok=True)
    before = outputs(state)
    line = one_error_line(run_tcecd(cfg))
    pgn = state / "event.pgn"
    games = 3 if damage == "lost-wal" else 4
    assert f"{pgn}: holds {games} games that no event state records" in line
    assert f"--from-pgn {pgn}" in line
    assert "fresh state directory" in line
    assert outputs(state) == before
    if damage == "missing":
        assert not (state / "event.sqlite").exists()  # nothing created either


def test_two_events_sharing_one_pgn(tmp_path: Path, played: Played) -> None:
    """Event B names event A's PGN as its own: starting B wiped A's games on main."""
    shared = played.finished / "event.pgn"
    copy = tmp_path / "a.pgn"
    shutil.copyfile(shared, copy)
    cfg = write_config(tmp_path / "b", rounds=ROUNDS, concurrency=1)
    cfg.write_text(
        cfg.read_text(encoding="utf-8").replace(
            "outputs: {state_dir: state}", f"outputs: {{state_dir: state, pgn: {copy}}}"
        ),
        encoding="utf-8",
    )
    before = copy.read_bytes()
    line = one_error_line(run_tcecd(cfg))
    assert f"{copy}: holds 4 games that no event state records" in line
    assert copy.read_bytes() == before


@pytest.mark.parametrize("damage", ["row-deleted", "wal-cut"])
def test_a_store_behind_the_pgn_is_refused(tmp_path: Path, played: Played, damage: str) -> None:
    """The store lost games the PGN has (a deleted row; a WAL cut in half, so
    SQLite rolls back to an earlier commit): on main the PGN "repair" ran first
    and dropped those games. Now nothing is removed and the run says the state
    is behind the PGN, offering --from-pgn."""
    if damage == "row-deleted":
        cfg, state = copy_state(played.finished, tmp_path)
        db = sqlite3.connect(state / "event.sqlite")
        db.execute("DELETE FROM games WHERE round = 1 AND number = 2")
        db.commit()
        db.close()
    else:
        cfg, state = copy_state(played.crashed, tmp_path)
        wal = state / "event.sqlite-wal"
        with open(wal, "r+b") as fh:
            fh.truncate(wal.stat().st_size // 2)
    before = outputs(state)
    line = one_error_line(run_tcecd(cfg))
    pgn = state / "event.pgn"
    # Cut in half, the WAL may lose the event's very first commits too; then
    # the store holds no event at all and the new-event refusal speaks.
    assert (
        "the state is behind the PGN" in line
        or "that no event state records" in line
    ), line
    assert f"--from-pgn {pgn}" in line
    assert outputs(state) == before


def test_a_store_behind_the_pgn_says_how_many(tmp_path: Path, played: Played) -> None:
    cfg, state = copy_state(played.finished, tmp_path)
    db = sqlite3.connect(state / "event.sqlite")
    db.execute("DELETE FROM games WHERE round = 2 AND number = 2")
    db.commit()
    db.close()
    line = one_error_line(run_tcecd(cfg))
    assert line == (
        f"tcecd: error: {state / 'event.pgn'}: holds games that the event state does not "
        f"record ({state / 'event.sqlite'} records 3 games, the PGN 4): the state is behind "
        "the PGN or the PGN belongs to another event; refusing to overwrite it: to continue "
        f"from the PGN, rebuild the state from it with --from-pgn {state / 'event.pgn'} and "
        "a fresh --state-dir"
    )


def _corrupt_json(state: Path) -> None:
    db = sqlite3.connect(state / "event.sqlite")
    db.execute("UPDATE games SET record = '{\"game_id\": ' WHERE round = 1 AND number = 2")
    db.commit()
    db.close()


def _drop_games(state: Path) -> None:
    db = sqlite3.connect(state / "event.sqlite")
    db.execute("DROP TABLE games")
    db.commit()
    db.close()


def _corrupt_page(state: Path) -> None:
    """Scribble over the second half of the database (the games' pages)."""
    path = state / "event.sqlite"
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) >= 4 * page
    for at in range(len(data) // 2, len(data), page):
        data[at : at + 64] = b"\xa5" * 64
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (_corrupt_json, "event.sqlite: game 1.2: the stored record is damaged"),
        (_drop_games, "event.sqlite: the event state is damaged: table 'games' is missing"),
        (_corrupt_page, "event.sqlite: "),
    ],
    ids=["corrupt-json", "drop-table", "corrupt-page"],
)
def test_a_damaged_store_is_one_line_and_changes_nothing(
    tmp_path: Path, played: Played, damage: object, message: str
) -> None:
    """On main: a traceback (JSON), or the PGN emptied before the error (DROP TABLE)."""
    cfg, state = copy_state(played.finished, tmp_path)
    assert callable(damage)
    damage(state)
    before = outputs(state)
    db_before = (state / "event.sqlite").read_bytes()
    line = one_error_line(run_tcecd(cfg))
    assert message in line
    assert outputs(state) == before
    assert (state / "event.sqlite").read_bytes() == db_before


def test_paths_of_the_wrong_kind(tmp_path: Path, played: Played) -> None:
    """event.pgn a directory, state_dir a file: one line naming it (a traceback
    on main); a directory named tcecd.lock is no obstacle (the lock is held on
    the state directory itself)."""
    cfg, state = copy_state(played.finished, tmp_path)
    pgn = state / "event.pgn"
    pgn.rename(tmp_path / "saved.pgn")
    pgn.mkdir()
    line = one_error_line(run_tcecd(cfg))
    assert line == f"tcecd: error: {pgn}: is a directory, not the event PGN"
    pgn.rmdir()
    (tmp_path / "saved.pgn").rename(pgn)

    (state / "tcecd.lock").unlink(missing_ok=True)
    (state / "tcecd.lock").mkdir()
    proc = run_tcecd(cfg)
    assert proc.returncode == 0, proc.stderr[-3000:]  # finished already: the table again
    assert "Final standings" in proc.stdout

    other = write_config(tmp_path / "file", rounds=ROUNDS)
    (other.parent / "state").write_text("not a directory\n", encoding="utf-8")
    line = one_error_line(run_tcecd(other))
    # Refused when the config is loaded (tcecd.config.event_file.check_state_dir), before
    # the store would see it: the config key and the path.
    assert line.startswith("tcecd: error: ")
    assert line.endswith(f"outputs.state_dir: {str(other.parent / 'state')!r} is not a directory")


def test_outputs_respect_the_umask(played: Played) -> None:
    """The PGN and the TCEC JSON files are created like any file the daemon's
    user creates (0o666 less the umask), so a web server running as another
    user can read them; on main the JSON files were 0o600 (mkstemp)."""
    umask = os.umask(0)
    os.umask(umask)
    expected = 0o666 & ~umask
    for name in ("event.pgn", "tcec/schedule.json", "tcec/crosstable.json"):
        mode = (played.finished / name).stat().st_mode & 0o777
        assert mode == expected, (name, oct(mode), oct(expected))


def test_the_advice_works_for_a_lost_store(tmp_path: Path, played: Played) -> None:
    """What the refusal says to do, done: --from-pgn with the event's own PGN
    rebuilds the state (the PGN is not rewritten: tcecd renders its own games
    back byte for byte) and the event goes on to its end, the PGN only growing."""
    cfg, state = copy_state(played.crashed, tmp_path)
    for p in state.glob("event.sqlite*"):
        p.unlink()
    pgn = state / "event.pgn"
    before = pgn.read_bytes()
    assert run_tcecd(cfg).returncode == 2
    proc = run_tcecd(cfg, "--from-pgn", str(pgn))
    assert proc.returncode == 0, proc.stderr[-3000:]
    after = pgn.read_bytes()
    assert after.startswith(before)
    assert pgn_rounds(after.decode("utf-8")) == ["1.1", "1.2", "2.1", "2.2"]


def test_a_refused_import_leaves_no_state(tmp_path: Path, played: Played) -> None:
    """A PGN refused half-way through the import (game 3's move comment is
    malformed, which only the full read of its moves finds) leaves the state
    directory without an event: on main it kept the players, both pairings and
    games 1.1-1.2, and the next run failed on that half state. The same
    directory then takes the good PGN."""
    from tcecd.store import EventStore

    text = (played.finished / "event.pgn").read_text(encoding="utf-8")
    third = text.index("[Event ", text.index("[Event ", text.index("[Event ") + 1) + 1)
    at = text.index(" mt=", third) + len(" mt=")
    bad = tmp_path / "bad.pgn"
    bad.write_text(text[:at] + "x" + text[at:], encoding="utf-8")
    cfg = write_config(tmp_path, rounds=ROUNDS, concurrency=1)
    line = one_error_line(run_tcecd(cfg, "--from-pgn", str(bad)))
    assert line.startswith("tcecd: error: bad.pgn: game 3: ply ")
    assert "invalid mt: 'x" in line
    # Not even the directory: the import made it, and nothing is in it (issue 27).
    assert not (tmp_path / "state").exists()
    with EventStore(tmp_path / "state") as store:
        assert not store.initialised
        assert store.pairings() == []
        assert store.games() == []
    good = tmp_path / "good.pgn"
    good.write_text(text, encoding="utf-8")
    proc = run_tcecd(cfg, "--from-pgn", str(good))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "state" / "event.pgn").read_text(encoding="utf-8") == text
    # The import wrote the event's PGN file: nothing for the daemon to repair.
    assert "pgn file repaired" not in proc.stderr
