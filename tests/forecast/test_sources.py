"""``tcecd simulate --forecast`` reads an event's state directory, its event.sqlite, a
TRF or a JSON document; anything else is one line and exit 2 (issue 27: the state's
event.sqlite printed a UnicodeDecodeError traceback and exited 1)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tcecd.cli import main
from tcecd.domain import Result
from tcecd.forecast.sources import snapshot_from_store
from tcecd.pairing.base import (
    Pair,
    PlayedGame,
    Player,
    RoundPairing,
    RoundRecord,
    ScheduledGame,
)
from tcecd.pairing.state_json import dumps, event_to_json
from tcecd.store.sqlite import EventStore
from tests.daemon.helpers import run_tcecd, write_config

# One tiny event with engines, shared by the module: on one xdist worker, so that
# it is played once, not once per worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("forecast-sources")]


@pytest.fixture(scope="module")
def finished_event(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 4-engine, 3-round TCEC Swiss event (depth-1 engines, 10 moves)."""
    directory = tmp_path_factory.mktemp("event")
    cfg = write_config(directory, rounds=3, max_moves=10)
    done = run_tcecd(cfg, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return directory / "state"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["simulate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _forecast(capsys: pytest.CaptureFixture[str], source: Path, *argv: str) -> dict[str, Any]:
    code, out, err = _run(capsys, "--forecast", str(source), "--simulations", "20", "--json",
                          *argv)  # fmt: skip
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def test_a_finished_events_state_forecasts_its_final_table(
    finished_event: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing left to play: every engine finishes where the event's own final table
    (crosstable.json) put it, with probability 1, from the directory and from its
    event.sqlite alike; the rounds and system are the stored config's."""
    table = json.loads((finished_event / "tcec" / "crosstable.json").read_text())["Table"]
    # As beside a running daemon: its store holds the state directory's lock.
    with EventStore(finished_event):
        by_dir = _forecast(capsys, finished_event)
        by_db = _forecast(capsys, finished_event / "event.sqlite")
    assert by_dir == by_db
    assert (by_dir["after_round"], by_dir["total_rounds"]) == (3, 3)
    for row in by_dir["players"]:
        rank = table[row["id"]]["Rank"]
        assert row["places"][rank - 1] == 1.0, (row, rank)
        assert row["score"] == table[row["id"]]["Score"]
    code, out, err = _run(capsys, "--forecast", str(finished_event), "--simulations", "1")
    assert code == 0, err
    assert out.startswith("TCEC Swiss: 4 players\n")
    assert "1 simulation, seed 0" in out  # not "1 simulations"


def test_a_trf_of_the_event_forecasts_the_same(
    finished_event: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``replay --trf``'s file of the same event: the same certain places (the TRF has
    the event's rounds in XXR; its system is named on the command line)."""
    trf = tmp_path / "event.trf"
    assert main(["replay", str(finished_event / "event.pgn"), "--trf", str(trf)]) == 0
    capsys.readouterr()
    by_trf = _forecast(capsys, trf, "--system", "tcec-swiss")
    by_dir = _forecast(capsys, finished_event)
    # The TRF names players by pairing number: compare by name.
    def places(doc: dict[str, Any]) -> dict[str, list[float]]:
        return {row["name"]: row["places"] for row in doc["players"]}

    assert places(by_trf) == places(by_dir)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "event.pgn", "not an event (expected an event's state directory"),
        (lambda d: d.parent, "a directory without event.sqlite: not an event's state directory"),
        (lambda d: d / "tcec", "a directory without event.sqlite"),
        (lambda d: d / "nothing-here", "cannot read"),
    ],
)
def test_anything_else_is_one_line_and_exit_2(
    finished_event: Path, capsys: pytest.CaptureFixture[str], make: Any, message: str
) -> None:
    code, _out, err = _run(capsys, "--forecast", str(make(finished_event)))
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_a_damaged_or_foreign_database_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    damaged = tmp_path / "state" / "event.sqlite"
    damaged.parent.mkdir()
    damaged.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    for path, message in (
        (binary, "not UTF-8 text"),
        (other, "an SQLite database not named event.sqlite"),
        (damaged, "event.sqlite"),
    ):
        code, _out, err = _run(capsys, "--forecast", str(path))
        assert code == 2, err
        assert message in err
        assert len(err.strip().splitlines()) == 1, err
    # The damaged state is read, never written: still the bytes it was.
    assert damaged.read_bytes().startswith(b"SQLite format 3\x00\xff\xff")


def test_a_round_being_played_counts_its_finished_games() -> None:
    """A state in the middle of round 2 (one of its two games finished): round 1 is
    finished history, round 2 the current round with that one game, the rounds and
    system those of the stored config."""
    players = tuple(Player(f"E{i}", f"E{i}", seed=i, rating=3000 - i) for i in range(1, 5))

    def pairing(r: int, pairs: list[tuple[str, str]]) -> RoundPairing:
        games = tuple(ScheduledGame(i + 1, w, b, i) for i, (w, b) in enumerate(pairs))
        return RoundPairing(r, None, (), tuple(Pair(w, b) for w, b in pairs), games)

    p1 = pairing(1, [("E1", "E3"), ("E2", "E4")])
    p2 = pairing(2, [("E4", "E1"), ("E3", "E2")])
    g = PlayedGame
    r1 = RoundRecord(1, None, (), (g("E1", "E3", Result.WHITE_WINS), g("E2", "E4", Result.DRAW)))
    r2 = RoundRecord(2, None, (), (g("E4", "E1", Result.BLACK_WINS),))
    fingerprint = {"pairing": {"system": "dutch-2017", "rounds": 5, "double": False,
                               "tiebreaks": ["wins"]}}  # fmt: skip
    source = snapshot_from_store(players, [p1, p2], [r1, r2], fingerprint)
    assert source.rounds == (r1,)
    assert source.current == p2
    assert source.current_games == r2.games
    assert (source.system, source.total_rounds, source.double) == ("dutch-2017", 5, False)
    assert source.tiebreaks == ("wins",)
    snap = source.snapshot(5)
    assert snap.context.total_rounds == 5
    assert len(snap.games_so_far()) == 3
    # A flat fingerprint (settings built in code) and no system: the one given.
    flat = snapshot_from_store(players, [p1], [r1], {"pairing.rounds": 3, "pairing.double": True},
                               system="round-robin")  # fmt: skip
    assert (flat.system, flat.total_rounds, flat.double, flat.current) == (
        "round-robin", 3, True, None)


def test_json_documents_still_work(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tcecd.pairing.simulation import simulate_event

    ev = simulate_event(6, 2, seed=1)
    doc = tmp_path / "event.json"
    doc.write_text(dumps(event_to_json(ev.players, False, ev.rounds)), encoding="utf-8")
    assert _forecast(capsys, doc, "--rounds", "4")["total_rounds"] == 4
    # Without the suffix: text starting with "{" is a document.
    plain = tmp_path / "event"
    plain.write_text(doc.read_text(encoding="utf-8"), encoding="utf-8")
    assert _forecast(capsys, plain, "--rounds", "4")["total_rounds"] == 4
