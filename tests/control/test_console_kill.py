"""An acknowledged console command holds across a SIGKILL (issue 26): a real
``tcecd run`` with its embedded Mosquitto and bundled engines, commands sent
as an operator (``tcecd ctl``'s code, and the command itself once).

The operator pauses the event and adjudicates the game being played; the
daemon is killed right after the answer. On restart the event is still
paused and nothing starts; the adjudication sent again is answered as before
and not applied again; the operator replaces an engine and resumes: game 1.1
is recorded with the operator's result, never played again; ``replay
--verify`` accepts the adjudication; and a config updated to the replaced
engine still resumes.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tcecd.bus.settings import MqttSettings
from tcecd.commands.ctl import send
from tests.daemon.helpers import ROOT, pgn_rounds, run_env, tcecd_argv, write_config

pytestmark = [pytest.mark.mosquitto, pytest.mark.slow]

SLUG = "kill-test"
#: Seed 4 plays White in game 1.1 (TCEC Swiss round 1: the worst pair first) and
#: thinks 150 ms a move: the game lasts long enough to be adjudicated.
ENGINES = (
    "ab-d1", "ab-d1-noisy",
    "{ref: ab-d1, name: ab-d1-n50, options: {Noise: 50, Seed: 3}}",
    "{ref: ab-d1, name: slow, options: {Pace: 150}}",
)


def _config(tmp_path: Path) -> Path:
    secret = tmp_path / "alice.pw"
    secret.write_text("alice-secret\n")
    secret.chmod(0o600)
    return write_config(
        tmp_path, engines=ENGINES, rounds=2, max_moves=40, concurrency=1,
        mqtt=f"{{embedded: true, operators: [{{username: alice, password_file: {secret}}}]}}",
    )  # fmt: skip


async def _start(cfg: Path) -> asyncio.subprocess.Process:
    """``tcecd run`` until its console listens."""
    proc = await asyncio.create_subprocess_exec(
        *tcecd_argv(cfg), cwd=ROOT, env=run_env(), stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE)  # fmt: skip
    assert proc.stderr is not None
    seen = []
    async with asyncio.timeout(60):
        while True:
            line = (await proc.stderr.readline()).decode()
            assert line, "".join(seen)
            seen.append(line)
            if json.loads(line).get("event") == "console listening":
                break
    # The rest of the log is drained so the daemon never blocks on a full pipe.
    asyncio.get_running_loop().create_task(_drain(proc.stderr))
    return proc


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


def _operator(state: Path) -> MqttSettings:
    url = (state / "mqtt" / "url").read_text().strip()
    return MqttSettings.from_url(url, username="alice", password="alice-secret")


async def _ctl(state: Path, name: str, args: dict[str, object] | None = None) -> dict[str, Any]:
    reply = await send(_operator(state), SLUG, name, args or {}, uuid.uuid4().hex, 15)
    assert reply is not None, name
    return reply


async def test_an_acknowledged_command_holds_across_sigkill(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    state = tmp_path / "state"
    proc = await _start(cfg)
    try:
        for _ in range(300):
            if (await _ctl(state, "status"))["effect"]["running"] == ["1.1"]:
                break
            await asyncio.sleep(0.2)
        assert (await _ctl(state, "pause", {"reason": "before the kill"}))["ok"] is True
        adjudicated = uuid.uuid4().hex
        reply = await send(_operator(state), SLUG, "adjudicate", {
            "game": "1.1", "result": "1/2-1/2", "reason": "power cut"}, adjudicated, 15)
        proc.kill()  # right after the answer
        await proc.wait()
        assert reply is not None
        assert reply["ok"] is True
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

    proc = await _start(cfg)
    try:
        status = (await _ctl(state, "status"))["effect"]
        assert status["paused"] is True  # paused stays paused until resume
        assert status["running"] == []
        await asyncio.sleep(1.0)
        again = (await _ctl(state, "status"))["effect"]
        assert again["paused"] is True
        assert again["running"] == []
        assert again["games_finished"] == status["games_finished"]
        # The adjudication's id sent again: answered as before, not applied again.
        repeat = await send(_operator(state), SLUG, "adjudicate", {
            "game": "1.1", "result": "1/2-1/2", "reason": "power cut"}, adjudicated, 15)
        assert repeat is not None
        assert {**repeat, "ts": 0} == {**reply, "ts": 0}

        assert (await _ctl(state, "replace", {"engine": "slow", "options": {"Pace": 0},
                                              "reason": "faster"}))["ok"] is True  # fmt: skip
        assert (await _ctl(state, "resume", {"reason": "go on"}))["ok"] is True
        async with asyncio.timeout(120):
            assert await proc.wait() == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

    await asyncio.to_thread(_after, cfg, state)


def _after(cfg: Path, state: Path) -> None:
    """The record of the finished event, ``replay --verify``, and a resume with
    the config updated to the replaced engine."""
    pgn = (state / "event.pgn").read_text(encoding="utf-8")
    assert pgn_rounds(pgn) == ["1.1", "1.2", "2.1", "2.2"]  # 1.1 never played again
    first = pgn.split("\n\n[Event ")[0]
    assert '[Result "1/2-1/2"]' in first
    assert '[TerminationDetails "Manual adjudication"]' in first
    assert '[ManualAdjudication "power cut"]' in first
    assert "slow" in pgn.split("\n\n[Event ")[2] + pgn.split("\n\n[Event ")[3]
    assert 'Engine "' in pgn  # the replaced engine's later game names what played it
    verify = subprocess.run(
        [sys.executable, "-m", "tcecd", "replay", str(state / "event.pgn"), "--verify",
         "--config", str(cfg)], cwd=ROOT, env=run_env(), capture_output=True, text=True,
        timeout=120, check=False)  # fmt: skip
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "accepted as recorded: game 1.1: 1/2-1/2 by manual adjudication (the operator: " \
        "power cut)" in verify.stdout

    # The config updated to what the console replaced the engine with still resumes.
    text = cfg.read_text().replace("name: slow, options: {Pace: 150}",
                                   "name: slow, options: {Pace: 0}")
    cfg.write_text(text)
    done = subprocess.run(tcecd_argv(cfg), cwd=ROOT, env=run_env(), capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Final standings" in done.stdout
    assert os.stat(state / "mqtt" / "passwd").st_mode & 0o077 == 0
