"""Engines started once before anything is played (real subprocesses):
``tcecd validate --engines``, ``tcecd run`` and ``tcecd play`` refuse a bad
option with one line per engine and exit 2, before anything is recorded."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tcecd.config.load import find_executable
from tests.fixtures.event_config import write_event

pytestmark = pytest.mark.slow


def tcecd(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcecd", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


#: Three engines, each with one bad option (abengine declares Seed, Depth
#: "min 1 max 8" and Style "var Solid var Normal var Risky"), and one good one.
BAD_ENGINES = [
    {"ref": "ab-d1", "name": "typo", "options": {"Seeed": 3}},
    {"ref": "ab-d1", "name": "deep", "options": {"Depth": 9}},
    {"ref": "ab-d1", "name": "styled", "options": {"Style": "Agressive"}},
    {"ref": "ab-d2", "options": {"depth": 3, "Style": "Solid"}},
]
BAD_LINES = [
    "tcecd: error: event.yaml: engines[0]: engine 'typo': option 'Seeed': no such option "
    "(did you mean 'Seed'?)",
    "tcecd: error: event.yaml: engines[1]: engine 'deep': option 'Depth': 9 is above the "
    "maximum 8 (spin 1..8)",
    "tcecd: error: event.yaml: engines[2]: engine 'styled': option 'Style': 'Agressive' is "
    "not one of: Solid, Normal, Risky",
]


def test_validate_engines_reports_each_engine(tmp_path: Path) -> None:
    write_event(tmp_path, engines=["ab-d1", {"ref": "ab-d2", "options": {"Style": "Risky"}}])
    proc = tcecd("validate", "event.yaml", "--engines", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    checks = [line for line in proc.stdout.splitlines() if "engine check:" in line]
    # abengine says "id name <its --name>"; the time is what it took to be ready.
    assert len(checks) == 2
    assert re.fullmatch(r"  engine check: ab-d1: ab-d1 \(uci\), ready in \d+ ms", checks[0])
    assert re.fullmatch(r"  engine check: ab-d2: ab-d2 \(uci\), ready in \d+ ms", checks[1])


def test_validate_engines_one_line_per_bad_engine(tmp_path: Path) -> None:
    write_event(tmp_path, engines=BAD_ENGINES)
    # Without --engines the options cannot be known: the config itself is good.
    assert tcecd("validate", "event.yaml", cwd=tmp_path).returncode == 0
    proc = tcecd("validate", "event.yaml", "--engines", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == BAD_LINES
    assert proc.stdout == ""


def test_run_records_nothing_when_an_engine_fails_its_check(tmp_path: Path) -> None:
    write_event(tmp_path, engines=BAD_ENGINES)
    proc = tcecd("run", "event.yaml", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert [line for line in proc.stderr.splitlines() if "tcecd: error" in line] == BAD_LINES
    state = tmp_path / "state"
    database = state / "event.sqlite"
    if database.exists():  # nothing may be recorded; an empty store would do
        with sqlite3.connect(database) as db:
            assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    assert not (state / "event.pgn").exists()


def test_play_refuses_an_option_no_engine_has(tmp_path: Path) -> None:
    proc = tcecd(
        "play", "ab-d1", "ab-d2", "--depth", "1", "--option", "Hsh=16", "--option", "Hash=8",
        "--pgn", "x.pgn", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "tcecd: error: engine 'ab-d1': option 'Hsh' (--option): no such option",
        "tcecd: error: engine 'ab-d2': option 'Hsh' (--option): no such option",
    ]
    assert not (tmp_path / "x.pgn").read_text()


def test_play_refuses_a_bad_value_for_an_engine_that_has_the_option(tmp_path: Path) -> None:
    proc = tcecd(
        "play", "ab-d1", "ab-d2", "--depth", "1", "--option", "Threads=2", "--pgn", "x.pgn",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2
    # abengine declares Threads "min 1 max 1".
    assert proc.stderr.splitlines() == [
        f"tcecd: error: engine {name!r}: option 'Threads' (--option): 2 is above the maximum 1 "
        "(spin 1..1)"
        for name in ("ab-d1", "ab-d2")
    ]


def test_stockfish_typo_and_range(tmp_path: Path) -> None:
    if find_executable("stockfish") is None:
        pytest.skip("stockfish is not installed")
    write_event(
        tmp_path,
        engines=[
            {"ref": "stockfish", "name": "sf-typo", "options": {"Skil Level": 10}},
            {"ref": "stockfish", "name": "sf-big", "options": {"Skill Level": 21}},
            {"ref": "stockfish", "name": "sf-ok", "options": {"skill level": 20}},
        ],
    )
    proc = tcecd("validate", "event.yaml", "--engines", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "tcecd: error: event.yaml: engines[0]: engine 'sf-typo': option 'Skil Level': "
        "no such option (did you mean 'Skill Level'?)",
        "tcecd: error: event.yaml: engines[1]: engine 'sf-big': option 'Skill Level': "
        "21 is above the maximum 20 (spin 0..20)",
    ]
