"""Signals at awkward moments (docs/running.md, "Signals"): the first SIGINT/SIGTERM
starts no new game and exits 0, whenever it comes; ``shutdown.grace_s`` bounds how long
a finish-game drain waits. Real ``tcecd run`` subprocesses, JSON log lines on stderr."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.daemon.helpers import ROOT, pgn_rounds, run_env, run_tcecd, tcecd_argv, write_config


def _popen(cfg: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        tcecd_argv(cfg), cwd=ROOT, env=run_env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _messages(err: str) -> list[str]:
    out = []
    for line in err.splitlines():
        if line.startswith("{"):
            out.append(json.loads(line)["event"])
    return out


def _games(state: Path) -> list[str]:
    pgn = state / "event.pgn"
    return pgn_rounds(pgn.read_text(encoding="utf-8")) if pgn.exists() else []


@pytest.mark.slow
def test_sigterm_just_after_round_paired_starts_no_game(tmp_path: Path) -> None:
    """The round is paired, its games' engines are starting: none of them starts."""
    cfg = write_config(tmp_path, concurrency=2)
    proc = _popen(cfg)
    assert proc.stderr is not None
    before: list[str] = []
    for line in proc.stderr:
        before.append(line)
        if '"round paired"' in line:
            proc.send_signal(signal.SIGTERM)
            break
    _, rest = proc.communicate(timeout=60)
    err = "".join(before) + rest
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err
    messages = _messages(err)
    assert "signal received: stopping after the current game" in messages
    assert "game started" not in messages
    assert "game finished" not in messages
    assert _games(tmp_path / "state") == []
    # Nothing was lost: the next run plays the whole event (4 players, 3 rounds).
    done = run_tcecd(cfg)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(_games(tmp_path / "state")) == 6


@pytest.mark.slow
@pytest.mark.solo  # the 5 s start of 1.1's engine must outlast 1.2's start (checked below)
def test_games_start_in_playing_order_so_a_stop_leaves_no_later_game_running(
    tmp_path: Path,
) -> None:
    """Game 1.1's engine takes 5 s to start, game 1.2's are ready at once (concurrency 2).
    A SIGTERM once 1.2's engines are ready (each creates a file at its first readyok:
    waited for, not slept) finds 1.1 not started: 1.2 must not start either (it could
    never be recorded: results commit in playing order). Before, 1.2 started and was
    played to its end, then thrown away."""
    from tcecd.pairing.base import Player
    from tcecd.pairing.tcec_swiss import TcecSwiss

    names = ["e1", "e2", "e3", "e4"]
    first = TcecSwiss().pair([Player(n, n, i) for i, n in enumerate(names, 1)], [], double=False)
    late = {first.games[0].white}  # one engine of game 1.1 (its seed order is the config's)
    ready = {n: tmp_path / f"ready-{n}" for n in names}

    def engine(n: str) -> str:
        mode = ["slowstart", "--delay-ms", "5000"] if n in late else ["crash", "--after", "999"]
        argv = ", ".join(f"'{a}'" for a in [*mode, "--ready-file", str(ready[n])])
        broken = f"'{{python}}', '{ROOT}/engines/broken.py'"
        return f"{{name: {n}, command: [{broken}, '--mode', {argv}]}}"

    second = {first.games[1].white, first.games[1].black}
    cfg = write_config(tmp_path, engines=tuple(engine(n) for n in names), concurrency=2)
    proc = _popen(cfg)
    assert proc.stderr is not None
    before: list[str] = []
    for line in proc.stderr:
        before.append(line)
        if '"round paired"' in line:
            # Each engine was started once already, for the check before round 1: its
            # game's process makes a second file.
            def started(n: str) -> int:
                return len(list(tmp_path.glob(f"{ready[n].name}.*")))

            deadline = time.monotonic() + 60
            while min(started(n) for n in second) < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert all(started(n) == 2 for n in second), "1.2's engines never got ready"
            # The premise: 1.1's slow engine is not ready yet (else the test proves nothing).
            assert all(started(n) == 1 for n in late)
            proc.send_signal(signal.SIGTERM)
            break
    _, rest = proc.communicate(timeout=60)
    err = "".join(before) + rest
    assert proc.returncode == 0, err[-2000:]
    messages = _messages(err)
    assert "game started" not in messages, err[-3000:]
    assert _games(tmp_path / "state") == []


def _catches(pid: int, sig: signal.Signals) -> bool:
    """True when ``pid`` has a handler for ``sig`` (``SigCgt`` in /proc/PID/status)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = int(next(ln for ln in status.splitlines() if ln.startswith("SigCgt:")).split()[1], 16)
    return bool(mask & (1 << (sig - 1)))


@pytest.mark.solo  # "nothing logged yet" needs this test's polling to keep up with start-up
def test_signal_during_start_up_exits_0(tmp_path: Path) -> None:
    """A SIGTERM while tcecd is still starting up (importing, loading the config, before
    the daemon's own handlers exist) stops the event before its first game: exit 0, as
    documented, not -15. The signal is sent the moment the process catches SIGTERM at
    all, and the test checks that this is during start-up: nothing logged yet. (Before,
    SIGTERM was caught only once the event loop ran, after "new event" was logged, and a
    signal in the first ~0.4 s killed the process.)"""
    cfg = write_config(tmp_path)
    proc = _popen(cfg)
    assert proc.stderr is not None
    deadline = time.monotonic() + 30
    while not _catches(proc.pid, signal.SIGTERM) and time.monotonic() < deadline:
        assert proc.poll() is None
        time.sleep(0.001)
    logged, _, _ = select.select([proc.stderr], [], [], 0)
    assert not logged, "SIGTERM was only caught once the event was running"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err
    messages = _messages(err)
    assert "signal received: stopping after the current game" in messages
    assert "game started" not in messages


@pytest.mark.slow
def test_grace_period_bounds_a_finish_game_drain(tmp_path: Path) -> None:
    """broken-slow sleeps 30 s before its third move; with ``grace_s: 1`` the first
    SIGTERM waits one second for the game, then aborts it as a second signal would."""
    cfg = write_config(
        tmp_path,
        engines=(
            "ab-d1",
            "{ref: broken-slow, name: slow}",
            "ab-d1-noisy",
            "{ref: ab-d1, name: ab-d1-n50, options: {Noise: 50, Seed: 3}}",
        ),
        concurrency=1,
    )
    cfg.write_text(
        cfg.read_text(encoding="utf-8").replace(
            "shutdown: {on_signal: finish-game}", "shutdown: {on_signal: finish-game, grace_s: 1}"
        ),
        encoding="utf-8",
    )
    slow = tmp_path / "engines" / "broken-slow.yaml"
    slow.parent.mkdir()
    slow.write_text(
        (ROOT / "engines" / "broken-slow.yaml")
        .read_text(encoding="utf-8")
        .replace("{here}", str(ROOT / "engines"))
        .replace('"3000"', '"30000"'),
        encoding="utf-8",
    )
    proc = _popen(cfg)
    assert proc.stderr is not None
    before: list[str] = []
    for line in proc.stderr:
        before.append(line)
        if '"game started"' in line and "slow" in line:
            break
    proc.send_signal(signal.SIGTERM)
    _, rest = proc.communicate(timeout=60)
    err = "".join(before) + rest
    assert proc.returncode == 0, err[-2000:]
    messages = _messages(err)
    assert "shutdown grace period over: aborting" in messages
    assert "Traceback" not in err
    # The slow engine's game was aborted, not recorded: it is replayed on resume. (Had
    # the drain waited, the 30 s move would have come, within its 60 s clock, and the
    # game would have finished.)
    assert all("slow" not in line or '"game finished"' not in line for line in err.splitlines())
