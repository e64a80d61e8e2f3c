"""Every result reaches subscribers: ``tcecd run`` (real subprocesses, bundled
engines) against a real Mosquitto that is down at the end, goes away near the
end, or outlives SIGKILLs of the daemon. The event (``write_config``): 4
players, 3 single rounds of 2 games, so its must-deliver messages are, counted
by hand, 3 pairings + 6 results + 3 round standings + the final standings +
``finished`` = 14 (docs/events.md, "Delivery")."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.bus.helpers import Collector, retained
from tests.daemon.helpers import (
    ROOT,
    pgn_rounds,
    run_env,
    tcecd_argv,
    write_config,
)
from tests.fixtures.mosquitto import MosquittoBroker

pytestmark = [pytest.mark.slow, pytest.mark.mosquitto]

TOPICS = "tcecd/kill-test"
GAMES = ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"]
MUST_DELIVER = {
    *(f"pairing {r}" for r in (1, 2, 3)),
    *(f"end {g}" for g in GAMES),
    *(f"standings {r}" for r in (1, 2, 3)),
    "standings final",
    "finished",
}


def _config(directory: Path, broker: MosquittoBroker, timeout_s: float | None = None,
            **kw: Any) -> Path:
    extra = "" if timeout_s is None else f", delivery_timeout_s: {timeout_s}"
    return write_config(directory, mqtt=f'{{url: "{broker.url}"{extra}}}', **kw)


async def _run(cfg: Path, crash_at: str | None = None) -> tuple[int, str, str]:
    """``tcecd run`` as a subprocess without blocking the loop (the subscribers
    keep receiving): (exit code, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        *tcecd_argv(cfg), cwd=ROOT, env=run_env(crash_at),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def _logs(stderr: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def _undelivered_warnings(stderr: str) -> list[dict[str, Any]]:
    return [e for e in _logs(stderr) if "not delivered" in e["event"]]


def _outbox(state: Path) -> dict[str, bool]:
    """The state's outbox: key -> acknowledged by the broker."""
    db = sqlite3.connect(state / "event.sqlite")
    try:
        return {k: bool(a) for k, a in db.execute("SELECT key, acked FROM outbox")}
    finally:
        db.close()


def _pgn_results(state: Path) -> dict[str, str]:
    pgn = (state / "event.pgn").read_text(encoding="utf-8")
    import re

    return dict(zip(re.findall(r'^\[Round "([^"]+)"\]', pgn, re.M),
                    re.findall(r'^\[Result "([^"]+)"\]', pgn, re.M), strict=True))  # fmt: skip


async def _assert_retained_event(broker: MosquittoBroker, state: Path) -> None:
    """A viewer joining now sees every result (as in the PGN) and the final standings."""
    got = await retained(broker.host, broker.port, f"{TOPICS}/#")
    ends = {json.loads(p)["game"]: json.loads(p)["result"]
            for t, p in got.items() if t.endswith("/end") and p}  # fmt: skip
    assert ends == _pgn_results(state)
    assert json.loads(got[f"{TOPICS}/standings"])["final"] is True
    assert f"{TOPICS}/finished" in got


def _persistent(broker: MosquittoBroker, name: str) -> Collector:
    """A subscriber with a persistent session (clean_session False, QoS 1), as
    docs/events.md asks of a subscriber that must not miss a result."""
    return Collector(broker.host, broker.port, f"{TOPICS}/#", identifier=f"sub-{name}",
                     clean_session=False)  # fmt: skip


def _delivered(c: Collector) -> set[str]:
    """The must-deliver messages ``c`` received, by outbox key."""
    keys: set[str] = set()
    for t, p, _ in c.got:
        if not p or "/_" in t:
            continue  # a cleared topic, or the publisher's own marker (retained-state sweep)
        doc = json.loads(p)
        if t.endswith("/end"):
            keys.add(f"end {doc['game']}")
        elif t.endswith("/pairing"):
            keys.add(f"pairing {doc['round']}")
        elif t.endswith("/standings"):
            keys.add("standings final" if doc["final"] else f"standings {doc['after_round']}")
        elif t.endswith("/finished"):
            keys.add("finished")
    return keys


async def test_broker_down_at_the_end_waits_warns_then_the_next_start_delivers(
    tmp_path: Path, mosquitto_factory: Any
) -> None:
    """No broker for the whole event: the daemon finishes the event, waits the
    configured 2 s, says in one warning line that 14 messages were not
    delivered and exits 0. They are kept: the next start (the event is over, it
    only reports) delivers all of them, per-game results included."""
    broker = mosquitto_factory(start=False)
    cfg = _config(tmp_path, broker, timeout_s=2)
    state = tmp_path / "state"
    rc, out, err = await _run(cfg)
    assert rc == 0, err[-3000:]
    assert "Final standings" in out
    [warning] = _undelivered_warnings(err)
    assert warning["level"] == "warning"
    assert (warning["undelivered"], warning["timeout_s"]) == (14, 2.0)
    assert _outbox(state) == dict.fromkeys(MUST_DELIVER, False)

    broker.start()
    rc, out, err = await _run(cfg)
    assert rc == 0, err[-3000:]
    assert _undelivered_warnings(err) == []
    assert _outbox(state) == dict.fromkeys(MUST_DELIVER, True)
    await _assert_retained_event(broker, state)


async def test_broker_back_within_the_timeout_gets_everything(
    tmp_path: Path, mosquitto_factory: Any
) -> None:
    """The broker is down when the event ends and comes back during the wait:
    the daemon reconnects (within a second, not after its back-off), delivers
    everything, and exits 0 without a warning."""
    broker = mosquitto_factory(start=False)
    cfg = _config(tmp_path, broker, timeout_s=60)
    proc = await asyncio.create_subprocess_exec(
        *tcecd_argv(cfg), cwd=ROOT, env=run_env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stderr is not None
    lines: list[str] = []
    async with asyncio.timeout(120):
        while True:
            line = (await proc.stderr.readline()).decode()
            assert line, "".join(lines)[-3000:]
            lines.append(line)
            if '"round finished"' in line and json.loads(line)["round"] == 3:
                break  # the event is over; the daemon is waiting for the broker
    await asyncio.sleep(1.0)
    broker.start()
    _, rest = await asyncio.wait_for(proc.communicate(), 60)
    err = "".join(lines) + rest.decode()
    assert proc.returncode == 0, err[-3000:]
    assert _undelivered_warnings(err) == []
    state = tmp_path / "state"
    assert _outbox(state) == dict.fromkeys(MUST_DELIVER, True)
    await _assert_retained_event(broker, state)


async def test_broker_outage_near_the_end_loses_no_result(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """The broker dies (SIGKILL, losing its state) once round 3 is paired and
    comes back 3 s later, after the event is over: a reconnecting persistent
    subscriber ends with every game's result (as in the PGN) and the final
    standings."""
    cfg = _config(tmp_path, mosquitto)
    async with _persistent(mosquitto, "outage") as sub:
        await sub.wait_until(lambda c: c.subscriptions >= 1)
        run = asyncio.create_task(_run(cfg))
        await sub.wait_until(lambda c: "pairing 3" in _delivered(c), 60)
        mosquitto.kill()
        await asyncio.sleep(3.0)
        mosquitto.start()
        rc, _, err = await run
        assert rc == 0, err[-3000:]
        assert _undelivered_warnings(err) == []
        await sub.wait_until(lambda c: {f"end {g}" for g in GAMES} | {"standings final"}
                             <= _delivered(c), 30)  # fmt: skip
        ends = {d["game"]: d["result"] for d in sub.docs("/end")}
    assert ends == _pgn_results(tmp_path / "state")
    assert _outbox(tmp_path / "state") == dict.fromkeys(MUST_DELIVER, True)


async def test_sigkill_right_after_a_commit_the_restart_delivers_the_result(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """Killed right after game 2.1 is committed (before it was published), then
    right after game 2.2 was fully recorded and its result queued (not sent):
    the restarted runs send both results; the subscriber, connected all along,
    has every result."""
    cfg = _config(tmp_path, mosquitto)
    async with _persistent(mosquitto, "sigkill") as sub:
        await sub.wait_until(lambda c: c.subscriptions >= 1)
        rc, _, err = await _run(cfg, crash_at="after-store:2.1")
        assert rc == -signal.SIGKILL, err[-3000:]
        await sub.wait_until(lambda c: {"end 1.1", "end 1.2"} <= _delivered(c))
        assert "end 2.1" not in _delivered(sub)
        rc, _, err = await _run(cfg, crash_at="after-game:2.2")
        assert rc == -signal.SIGKILL, err[-3000:]
        await sub.wait_until(lambda c: "end 2.1" in _delivered(c))
        rc, _, err = await _run(cfg)
        assert rc == 0, err[-3000:]
        await sub.wait_until(lambda c: _delivered(c) >= MUST_DELIVER)
    assert _outbox(tmp_path / "state") == dict.fromkeys(MUST_DELIVER, True)


def _kill_points(rng: random.Random, count: int) -> list[str]:
    """``count`` crash points in event order, each in a different step: a
    round's pairing, or a game (killed during it, or at one of the points after
    its commit; once committed a game is never played again, so a second point
    after its commit would never be met). Each run arms one point, and a kill
    leaves every later step undone (games are committed in schedule order,
    also with concurrency 2), so each run meets its point."""
    steps: list[list[str]] = []
    for r in (1, 2, 3):
        steps.append([f"after-pairing:{r}"])
        for g in (1, 2):
            gid = f"{r}.{g}"
            steps.append([f"mid-game:{gid}:ply=2", f"after-store:{gid}",
                          f"mid-pgn-write:{gid}", f"after-game:{gid}"])  # fmt: skip
    return [rng.choice(steps[i]) for i in sorted(rng.sample(range(len(steps)), count))]


async def test_random_kill_points_lose_and_double_nothing(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """Property over kill points: SIGKILL the daemon at 4 crash points drawn at
    random (seed printed), restarting after each, then run to the end. Nothing
    is lost or doubled (each game once in the store and in the PGN, which is
    the stored games' texts in order; each message once in the outbox, all
    acknowledged) and a persistent subscriber, connected all along, got every
    result (as in the PGN), pairing and standings at least once. (That the
    games are those of an uninterrupted run is test_kill_resume.py's.)"""
    seed = random.randrange(1_000_000)
    print(f"kill point seed: {seed}")
    chosen = _kill_points(random.Random(seed), 4)
    print(f"kill points: {chosen}")
    cfg = _config(tmp_path, mosquitto)
    state = tmp_path / "state"
    async with _persistent(mosquitto, "random") as sub:
        await sub.wait_until(lambda c: c.subscriptions >= 1)
        for point in chosen:
            rc, _, err = await _run(cfg, crash_at=point)
            assert rc == -signal.SIGKILL, (point, err[-3000:])
        rc, _, err = await _run(cfg)
        assert rc == 0, err[-3000:]
        await sub.wait_until(lambda c: _delivered(c) >= MUST_DELIVER, 30)
        ends = {d["game"]: d["result"] for d in sub.docs("/end")}
    pgn = (state / "event.pgn").read_text(encoding="utf-8")
    assert pgn_rounds(pgn) == GAMES
    assert ends == _pgn_results(state)
    db = sqlite3.connect(state / "event.sqlite")
    try:
        texts = [t for (t,) in db.execute("SELECT pgn FROM games ORDER BY round, number")]
        assert db.execute("SELECT COUNT(*) FROM outbox").fetchone() == (len(MUST_DELIVER),)
    finally:
        db.close()
    assert "".join(texts) == pgn
    assert _outbox(state) == dict.fromkeys(MUST_DELIVER, True)
