"""Per-engine limits in a real event (``tcecd run``, real abengine processes):
one engine searches a fixed number of nodes, the other plays on a clock of its
own; each is sent its own ``go`` and the PGN says who played under what."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

from tests.fixtures.event_config import write_event

pytestmark = pytest.mark.slow


def _go_lines(log: Path) -> list[str]:
    return [line for line in log.read_text(encoding="utf-8").splitlines() if line.startswith("go")]


def log(path: Path) -> dict[str, str]:
    """abengine's ``Log File`` option: it appends every line it reads there."""
    return {"Log File": str(path)}


def test_one_engine_on_nodes_one_on_its_own_clock(tmp_path: Path) -> None:
    counted, clocked = tmp_path / "n.log", tmp_path / "c.log"
    write_event(
        tmp_path,
        pairing={"system": "tcec-swiss", "rounds": 1},
        engines=[
            {"ref": "ab-d1", "name": "counted", "nodes": 300, "options": log(counted)},
            {"ref": "ab-d1", "name": "clocked", "tc": "30+0.5", "options": log(clocked)},
        ],
        adjudication={"max_moves": 12},
    )
    validate = subprocess.run(
        [sys.executable, "-m", "tcecd", "validate", "event.yaml"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert validate.returncode == 0, validate.stderr
    # One informational line: fairness is the operator's call.
    assert (
        "  note: engines with their own limits: counted (inf nodes=300), clocked (30+0.5)"
        in validate.stdout.splitlines()
    )
    proc = subprocess.run(
        [sys.executable, "-m", "tcecd", "run", "event.yaml"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with (tmp_path / "state" / "event.pgn").open(encoding="utf-8") as handle:
        game = chess.pgn.read_game(handle)
    assert game is not None
    tags = game.headers
    # The event's time control stays the TimeControl tag; each side gets its own.
    assert tags["TimeControl"] == "10+0.1"
    own = {"counted": "inf nodes=300", "clocked": "30+0.5"}
    assert tags["WhiteTimeControl"] == own[tags["White"]]
    assert tags["BlackTimeControl"] == own[tags["Black"]]

    # What each engine was told (abengine's "Log File" keeps every line it read).
    assert _go_lines(counted), "counted never moved"
    assert set(_go_lines(counted)) == {"go nodes 300"}
    # The clocked engine is told its own clock and increment, never a node limit
    # (its opponent has no clock, so only one side's time is sent).
    side = "wtime" if tags["White"] == "clocked" else "btime"
    inc = "winc" if side == "wtime" else "binc"
    clock_lines = _go_lines(clocked)
    assert clock_lines
    pattern = re.compile(rf"go {side} (\d+) {inc} 500")
    times = [int(m.group(1)) for m in map(pattern.fullmatch, clock_lines) if m is not None]
    assert len(times) == len(clock_lines), clock_lines
    assert times[0] == 30_000  # the first move: its full 30 s, not the event's 10 s
    # Each move costs its think time and gains 0.5 s: never more than +500 ms a move.
    assert all(later <= earlier + 500 for earlier, later in itertools.pairwise(times))


def _play(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcecd", "play", *args],
        cwd=cwd, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_play_per_engine_limits(tmp_path: Path) -> None:
    # No match-wide limit: each engine brings its own.
    proc = _play("ab-d1", "nodes=200", "ab-d2", "depth=1", "--games", "2", "--pgn", "m.pgn",
                 cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with (tmp_path / "m.pgn").open(encoding="utf-8") as handle:
        games = [chess.pgn.read_game(handle) for _ in range(2)]
    own = {"ab-d1": "inf nodes=200", "ab-d2": "inf depth=1"}
    for game in games:
        assert game is not None
        assert game.headers["WhiteTimeControl"] == own[game.headers["White"]]
        assert game.headers["BlackTimeControl"] == own[game.headers["Black"]]


def test_play_per_engine_limit_errors(tmp_path: Path) -> None:
    cases = {
        ("nodes=5", "ab-d1", "ab-d2"): "'nodes=5': an engine setting must follow its ENGINE",
        ("ab-d1", "hash=5", "ab-d2"): "'hash=5': unknown engine setting 'hash' "
        "(expected tc=, nodes=, depth=, movetime=, option.NAME=)",
        ("ab-d1", "nodes=0", "ab-d2"): "ab-d1 nodes=0: expected a whole number of at least 1",
        ("ab-d1", "tc=60++1", "ab-d2"): "ab-d1 tc=60++1: tc: invalid time control: '60++1' "
        "(bad stage '60++1', expected [moves/]seconds[+increment])",
        ("ab-d1", "nodes=100", "ab-d2"): "tcecd play: give a limit: --tc, --nodes, --depth or "
        "--movetime",
    }
    for words, message in cases.items():
        proc = _play(*words, "--pgn", "x.pgn", cwd=tmp_path)
        assert proc.returncode == 2, words
        assert proc.stderr.splitlines() == [f"tcecd: error: {message}"], words
