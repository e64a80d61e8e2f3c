"""The terminal progress of ``tcecd run`` (tcecd.daemon.progress): the pure model
fed the sample event stream with hand-worked figures, the rendered text, and a
real run on a pseudo-terminal."""

from __future__ import annotations

import io
import os
import pty
import re
import select
import subprocess
import time
from pathlib import Path

import pytest
from rich.console import Console

from tcecd.daemon.progress import (
    ProgressDisplay,
    ProgressModel,
    Running,
    duration,
    progress_view,
    ticking,
)
from tcecd.domain import GameId, Result
from tcecd.events import RoundPaired
from tests.bus.sample import game_events, pairing, start_events
from tests.daemon.helpers import ROOT, run_env, tcecd_argv, write_config


def text_of(model: ProgressModel, now: float) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(progress_view(model.snapshot(now), now, model.names))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(out, str)
    return out


def test_model_follows_the_sample_event() -> None:
    """Sample event: 2 rounds of 2 games. Game 1.1 starts at t=0 and ends at t=60,
    game 1.2 starts at t=60: one result in 60 s, 3 games to go -> 180 s left."""
    m = ProgressModel("Bus Test", 0)
    for e in [*start_events(), RoundPaired(pairing(1))]:
        m.apply(e, 0.0)
    snap = m.snapshot(0.0)
    assert (snap.rounds, snap.round, snap.games_total) == (2, 1, 4)  # round 2 not paired yet
    assert snap.standings_title == "Standings before round 1"
    assert snap.eta_s is None  # no result yet: no pace
    first = game_events(1, 1, "A", "B", Result.WHITE_WINS)
    m.apply(first[0], 0.0)  # GameStarted
    for e in first[1:-1]:  # the moves
        m.apply(e, 30.0)
    g = m.snapshot(30.0).running[0]
    # After 2... Nc6: White to move, clocks as last reported (sample.py).
    assert (g.game, g.last_san, g.white_to_move) == (GameId(1, 1), "2... Nc6", True)
    assert (g.white_ms, g.black_ms) == (59000, 56000)
    m.apply(first[-1], 60.0)
    for e in game_events(1, 2, "C", "D", Result.DRAW)[:1]:
        m.apply(e, 60.0)
    snap = m.snapshot(60.0)
    assert (snap.games_started, snap.games_finished) == (2, 1)
    assert snap.eta_s == pytest.approx(180.0)
    assert snap.recent == ("1.1  Alpha 1-0 Beta  (test)",)
    text = text_of(m, 60.0)
    assert "Bus Test  round 1 of 2  game 2 of 4  1 finished  time left 3m 00s" in text
    assert "1.1  Alpha 1-0 Beta  (test)" in text
    assert "Standings before round 1" in text


def test_the_side_to_move_clock_counts_down() -> None:
    """White to move, reported 59000 ms at t=10: at t=22.5, 12.5 s later, White
    has 46500 ms and Black still 56000."""
    g = Running(GameId(1, 1), "A", "B", white_ms=59000, black_ms=56000, white_to_move=True,
                at=10.0)
    assert ticking(g, 22.5) == (46500, 56000)
    black = Running(GameId(1, 1), "A", "B", white_ms=59000, black_ms=56000,
                    white_to_move=False, at=10.0)
    assert ticking(black, 11.0) == (59000, 55000)
    assert (duration(None), duration(59.6), duration(200), duration(3725)) == (
        "estimating", "1m 00s", "3m 20s", "1h 02m")


def test_no_display_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", io.StringIO())
    monkeypatch.setattr("sys.stdout", io.StringIO())
    assert ProgressDisplay.for_terminal("x", 3) is None


@pytest.mark.slow
def test_run_on_a_terminal_shows_progress_and_finishes(tmp_path: Path) -> None:
    """A real ``tcecd run`` with stdout and stderr on a pseudo-terminal: the progress
    display and the log share the screen, and the run ends with the final table."""
    cfg = write_config(tmp_path, rounds=2)
    master, slave = pty.openpty()
    env = run_env()
    env.update(COLUMNS="120", LINES="40", TERM="xterm")
    proc = subprocess.Popen(tcecd_argv(cfg), cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave)
    os.close(slave)
    seen = bytearray()
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                seen.extend(chunk)
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode(errors="replace"))
    assert code == 0, text[-3000:]
    assert "kill test  round 1 of 2" in text
    assert "time left" in text
    assert "Final standings: kill test" in text  # the table after the display
    # Log lines on the same terminal, whole (JSON lines are not wrapped by the display).
    lines = [ln for ln in text.splitlines() if ln.startswith('{"')]
    assert any('"event": "new event"' in ln for ln in lines)
    for ln in lines:
        assert ln.rstrip().endswith("}"), ln
