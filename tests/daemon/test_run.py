"""``tcecd run`` end to end (real subprocesses, real engines): strikes and
disqualification, signals, and the live stream through a real Mosquitto."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from tests.daemon.helpers import (
    ROOT,
    normalise_pgn,
    pgn_rounds,
    run_env,
    run_tcecd,
    schedule_summary,
    tcecd_argv,
    write_config,
)
from tests.fixtures.mosquitto import free_port

pytestmark = pytest.mark.slow

def _engines_with_broken() -> tuple[str, ...]:
    return (
        "ab-d1",
        "ab-d1-noisy",
        "{ref: ab-d1, name: ab-d1-n50, options: {Noise: 50, Seed: 3}}",
        "broken-crash",
    )


def _pgn_games(pgn: str) -> list[dict[str, str]]:
    """Each game's tags, in file order."""
    games: list[dict[str, str]] = []
    for block in re.split(r"\n\n(?=\[Event )", pgn.strip()):
        games.append(dict(re.findall(r'^\[(\w+) "([^"]*)"\]', block, re.M)))
    return games


@pytest.mark.mosquitto
async def test_strikes_disqualify_and_forfeit_the_remaining_games(
    tmp_path: Path, mosquitto: Any
) -> None:
    """A disqualified engine's remaining games are forfeited, and this is said
    in the state (SQLite), the PGN, the TCEC JSON, the log and the live stream."""
    cfg = write_config(
        tmp_path, engines=_engines_with_broken(), strikes="{max: 1, on_fault: lose}",
        concurrency=1,
    )  # fmt: skip
    root = "tcecd/kill-test"
    out, stderr = await _run_collecting(cfg, mosquitto, root)
    state = tmp_path / "state"
    games = _pgn_games((state / "event.pgn").read_text(encoding="utf-8"))
    assert [g["Round"] for g in games] == ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"]
    broken = [g for g in games if "broken-crash" in (g["White"], g["Black"])]
    assert len(broken) == 3  # one game a round
    first, *rest = broken
    # The crash loses the game it happened in ...
    assert first["Termination"] == "abandoned"
    loser_white = first["White"] == "broken-crash"
    assert first["Result"] == ("0-1" if loser_white else "1-0")
    # ... and with max 1 strike, every later game is forfeited, unplayed.
    for g in rest:
        assert g["Termination"] == "forfeit"
        assert g["TerminationDetails"] == "broken-crash disqualified"
        assert g["PlyCount"] == "0"
        assert g["Result"] == ("0-1" if g["White"] == "broken-crash" else "1-0")
    forfeited = [g["Round"] for g in rest]
    # The state says so.
    db = sqlite3.connect(state / "event.sqlite")
    assert db.execute("SELECT engine FROM disqualified").fetchall() == [("broken-crash",)]
    assert db.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 1
    rows = db.execute(
        "SELECT round || '.' || number, termination, played FROM games "
        "WHERE white = 'broken-crash' OR black = 'broken-crash' ORDER BY round, number"
    ).fetchall()
    db.close()
    assert rows[1:] == [(r, "forfeit", 0) for r in forfeited]
    assert rows[0][1:] == ("abandoned", 1)
    # schedule.json marks the forfeits the TCEC way.
    sched = schedule_summary(state)
    canceled = [s for s in sched if s[4] == "Canceled"]
    assert [s[0] for s in canceled] == forfeited
    # crash.json (the viewer's Crash tab): the crash, then the canceled games.
    crash_rows = json.loads((state / "tcec" / "crash.json").read_text(encoding="utf-8"))
    assert len(crash_rows) == 3
    assert crash_rows[0]["Reason"] == first["TerminationDetails"]
    assert crash_rows[0]["action"] == "loses the game, one strike"
    assert [r["decision"] for r in crash_rows[1:]] == ["Canceled", "Canceled"]
    # The live stream: the disqualification, then each forfeit's end message.
    topics = [t for t, _ in out["msgs"]]
    assert f"{root}/engine/broken-crash/disqualified" in topics
    ends = {doc["game"]: doc for t, doc in out["msgs"] if t.endswith("/end") and doc}
    assert list(ends) == ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"]
    for gid in forfeited:
        end = ends[gid]
        assert (end["termination"], end["termination_detail"], end["plies"]) == (
            "forfeit", "broken-crash disqualified", 0,
        )  # fmt: skip
        assert end["result"] == ("0-1" if end["white"] == "broken-crash" else "1-0")
        assert '[Termination "forfeit"]' in end["pgn"]
    # Logs: every stderr line is a JSON object naming the event; the lines about
    # one game name it and its round, the round lines name their round.
    lines = [line for line in stderr.splitlines() if line.strip()]
    logs = [json.loads(line) for line in lines]
    assert all(e.get("event_name") == "kill test" for e in logs)
    assert any(e["event"] == "engine disqualified" and e["engine"] == "broken-crash" for e in logs)
    per_game = {"game started", "game finished", "engine fault", "engine disqualified"}
    game_lines = [e for e in logs if e["event"] in per_game]
    assert len(game_lines) >= 6 + 6 + 1 + 1 - 2  # forfeits have no "game started"
    for e in game_lines:
        assert e["game"].startswith(f"{e['round']}."), e
    round_lines = [e for e in logs if e["event"] in ("round paired", "round finished")]
    assert sorted(e["round"] for e in round_lines) == [1, 1, 2, 2, 3, 3]


def test_replay_policy_replays_then_disqualifies(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path, engines=_engines_with_broken(), strikes="{max: 2, on_fault: replay}",
        rounds=2, concurrency=1, mqtt="{delivery_timeout_s: 0.5}",
    )  # fmt: skip
    # No broker listens there: the event runs all the same, with one warning, and
    # at its end one more, with what is kept for the next start: 2 pairings, 4
    # results, 2 round standings, the final standings and `finished`.
    proc = run_tcecd(cfg, "--mqtt", f"mqtt://127.0.0.1:{free_port()}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    mqtt_warnings = [
        json.loads(line) for line in proc.stderr.splitlines()
        if '"warning"' in line and "mqtt" in line
    ]  # fmt: skip
    assert len(mqtt_warnings) == 2, mqtt_warnings
    assert mqtt_warnings[0]["event"].startswith("mqtt broker unreachable")
    assert "not delivered" in mqtt_warnings[1]["event"]
    assert mqtt_warnings[1]["undelivered"] == 10
    assert "Final standings" in proc.stdout  # ... and the event finished
    # The final table marks the disqualified engine and says when and why (it did not).
    table = proc.stdout[proc.stdout.index("Final standings"):].splitlines()
    assert sum("broken-crash DQ" in line for line in table) == 1
    assert any(line.startswith("DQ broken-crash: disqualified in round 1 (2 strikes (last: ")
               and line.endswith("); its later games were forfeited") for line in table), table
    state = tmp_path / "state"
    games = _pgn_games((state / "event.pgn").read_text(encoding="utf-8"))
    broken = [g for g in games if "broken-crash" in (g["White"], g["Black"])]
    # Its first game crashed twice (two strikes, replayed once), so even that game
    # is forfeited: the crashed attempts are not in the PGN.
    assert [g["Termination"] for g in broken] == ["forfeit", "forfeit"]
    db = sqlite3.connect(state / "event.sqlite")
    assert db.execute("SELECT COUNT(*) FROM faults WHERE engine='broken-crash'").fetchone()[0] == 2
    db.close()


# -- signals ------------------------------------------------------------------------------


#: The tests that compare with :func:`reference_pgn` share one xdist worker, so that
#: the reference event is played once, not once per worker.
_SHARES_REFERENCE = pytest.mark.xdist_group("daemon-signals-reference")


@pytest.fixture(scope="module")
def reference_pgn(tmp_path_factory: pytest.TempPathFactory) -> str:
    cfg = write_config(tmp_path_factory.mktemp("sigref"))
    proc = run_tcecd(cfg)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return (cfg.parent / "state" / "event.pgn").read_text(encoding="utf-8")


def _start_and_wait_for_game(cfg: Path) -> tuple[subprocess.Popen[str], list[str]]:
    proc = subprocess.Popen(
        tcecd_argv(cfg), cwd=ROOT, env=run_env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    lines: list[str] = []
    for line in proc.stderr:
        lines.append(line)
        if '"game started"' in line:
            break
    return proc, lines


@pytest.mark.parametrize(
    ("mode", "sig"),
    [("finish-game", signal.SIGTERM), ("abort", signal.SIGTERM), ("finish-game", signal.SIGINT)],
)
@_SHARES_REFERENCE
def test_sigterm_stops_cleanly_and_resume_completes(
    tmp_path: Path, reference_pgn: str, mode: str, sig: signal.Signals
) -> None:
    cfg = write_config(tmp_path, on_signal=mode)
    proc, _ = _start_and_wait_for_game(cfg)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-2000:]
    assert "signal received" in err
    assert "Traceback" not in err
    pgn = (tmp_path / "state" / "event.pgn").read_text(encoding="utf-8")
    played = pgn_rounds(pgn)
    if mode == "finish-game":
        assert played  # the running game(s) were finished and recorded
    assert len(played) < 6
    assert normalise_pgn(reference_pgn).startswith(normalise_pgn(pgn))
    done = run_tcecd(cfg)
    assert done.returncode == 0, done.stderr[-2000:]
    final = (tmp_path / "state" / "event.pgn").read_text(encoding="utf-8")
    assert normalise_pgn(final) == normalise_pgn(reference_pgn)


@pytest.mark.parametrize(
    ("first", "second"), [(signal.SIGTERM, signal.SIGTERM), (signal.SIGINT, signal.SIGINT)]
)
@_SHARES_REFERENCE
def test_second_signal_aborts_at_once(
    tmp_path: Path, reference_pgn: str, first: signal.Signals, second: signal.Signals
) -> None:
    cfg = write_config(tmp_path, max_moves=60)  # long games: the first signal would wait
    proc, _ = _start_and_wait_for_game(cfg)
    proc.send_signal(first)
    assert proc.stderr is not None
    for line in proc.stderr:  # signals do not queue: wait until the first is handled
        if "signal received" in line:
            assert json.loads(line)["signal"] == first.name
            break
    proc.send_signal(second)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-2000:]
    assert "second signal" in err
    assert "Traceback" not in err
    assert "KeyboardInterrupt" not in err
    assert pgn_rounds((tmp_path / "state" / "event.pgn").read_text(encoding="utf-8")) == []


# -- the live stream ----------------------------------------------------------------------


async def _collect(url_host: str, port: int, topic: str, out: dict[str, Any]) -> None:
    async with aiomqtt.Client(url_host, port) as client:
        await client.subscribe(topic, qos=1)
        out["ready"].set()
        async for msg in client.messages:
            if "/_" in str(msg.topic):
                continue  # the publisher's own markers (e.g. its retained-state sweep)
            payload = msg.payload.decode() if isinstance(msg.payload, bytes) else ""
            out["msgs"].append((str(msg.topic), json.loads(payload) if payload else None))
            if str(msg.topic).endswith("/finished"):
                return  # the last message of an event


async def _run_collecting(cfg: Path, mosquitto: Any, root: str) -> tuple[dict[str, Any], str]:
    """Run the event against the test broker with a subscriber on ``root/#``
    from before the start to the ``finished`` message; the daemon must exit 0.
    Returns what the subscriber got (``out["msgs"]``) and the daemon's stderr."""
    out: dict[str, Any] = {"msgs": [], "ready": asyncio.Event()}
    collector = asyncio.create_task(_collect(mosquitto.host, mosquitto.port, f"{root}/#", out))
    await asyncio.wait_for(out["ready"].wait(), 15)
    proc = await asyncio.create_subprocess_exec(
        *tcecd_argv(cfg, "--mqtt", mosquitto.url), cwd=ROOT, env=run_env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err_bytes = await asyncio.wait_for(proc.communicate(), 120)
    stderr = err_bytes.decode()
    assert proc.returncode == 0, stderr[-3000:]
    await asyncio.wait_for(collector, 20)
    return out, stderr


@pytest.mark.mosquitto
async def test_live_stream_through_real_mosquitto(tmp_path: Path, mosquitto: Any) -> None:
    cfg = write_config(tmp_path)
    root = "tcecd/kill-test"
    out, _ = await _run_collecting(cfg, mosquitto, root)
    topics = [t for t, _ in out["msgs"]]
    for r in (1, 2, 3):
        assert f"{root}/round/{r}/pairing" in topics
    ends = [doc["game"] for t, doc in out["msgs"] if t.endswith("/end") and doc]
    assert ends == ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"]
    # A late subscriber gets the final standings, retained.
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as late:
        await late.subscribe(f"{root}/standings", qos=1)
        async with asyncio.timeout(10):
            async for msg in late.messages:
                assert isinstance(msg.payload, bytes)
                doc = json.loads(msg.payload)
                assert doc["final"] is True
                assert len(doc["rows"]) == 4
                break



async def _collect_reconnecting(
    host: str, port: int, topic: str, out: dict[str, Any]
) -> None:
    """A subscriber that, like a real viewer, reconnects when the broker goes
    away and keeps everything it ever received (retained re-deliveries too)."""
    while True:
        try:
            async with aiomqtt.Client(host, port) as client:
                await client.subscribe(topic, qos=1)
                out["connections"] += 1
                async for msg in client.messages:
                    if "/_" in str(msg.topic):
                        continue  # the publisher's own markers (retained-state sweep)
                    payload = msg.payload.decode() if isinstance(msg.payload, bytes) else ""
                    doc = json.loads(payload) if payload else None
                    out["msgs"].append((str(msg.topic), doc))
                    if str(msg.topic).endswith("/end") and doc:
                        out["first_end"].set()
                    if str(msg.topic).endswith("/finished"):
                        return
        except aiomqtt.MqttError:
            await asyncio.sleep(0.2)


@pytest.mark.mosquitto
async def test_broker_restart_mid_event_loses_no_result(tmp_path: Path, mosquitto: Any) -> None:
    """The broker dies (abruptly, losing its retained state) after the first
    game of a real event and comes back on the same port: the event goes on
    untouched, and a reconnecting subscriber ends with every game's result and
    the final retained standings, which agree with the event's own PGN."""
    cfg = write_config(tmp_path, rounds=3, max_moves=60, concurrency=1)
    root = "tcecd/kill-test"
    out: dict[str, Any] = {"msgs": [], "first_end": asyncio.Event(), "connections": 0}
    collector = asyncio.create_task(
        _collect_reconnecting(mosquitto.host, mosquitto.port, f"{root}/#", out)
    )
    proc = await asyncio.create_subprocess_exec(
        *tcecd_argv(cfg, "--mqtt", mosquitto.url), cwd=ROOT, env=run_env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    communicate = asyncio.create_task(proc.communicate())
    await asyncio.wait_for(out["first_end"].wait(), 60)
    mosquitto.kill()
    await asyncio.sleep(1.5)  # games go on while the broker is away
    mosquitto.start()
    _, err = await asyncio.wait_for(communicate, 120)
    assert proc.returncode == 0, err.decode()[-2000:]
    await asyncio.wait_for(collector, 30)
    assert out["connections"] >= 2  # the subscriber really lost the broker

    pgn = (tmp_path / "state" / "event.pgn").read_text(encoding="utf-8")
    pgn_results = dict(
        zip(
            re.findall(r'^\[Round "([^"]+)"\]', pgn, re.M),
            re.findall(r'^\[Result "([^"]+)"\]', pgn, re.M),
            strict=True,
        )
    )
    assert len(pgn_results) == 6
    seen = {doc["game"]: doc["result"] for t, doc in out["msgs"] if t.endswith("/end") and doc}
    assert seen == pgn_results

    # Final standings, retained on the restarted broker, as a late viewer sees them.
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as late:
        await late.subscribe(f"{root}/standings", qos=1)
        async with asyncio.timeout(10):
            async for msg in late.messages:
                assert isinstance(msg.payload, bytes)
                doc = json.loads(msg.payload)
                break
    assert doc["final"] is True
    points: dict[str, float] = {}
    for rnd, res in pgn_results.items():
        block = pgn.split(f'[Round "{rnd}"]')[1]
        white = re.search(r'^\[White "([^"]+)"\]', block, re.M)
        black = re.search(r'^\[Black "([^"]+)"\]', block, re.M)
        assert white
        assert black
        w = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[res]
        points[white[1]] = points.get(white[1], 0) + w
        points[black[1]] = points.get(black[1], 0) + 1 - w
    assert {row["id"]: row["score"] for row in doc["rows"]} == points


def test_the_stall_limit_is_the_configs(tmp_path: Path) -> None:
    """``time_control.stall_timeout_ms`` reaches the game (one value, GameRules,
    from the config to the game): without a clock (depth only) an engine that
    stops answering is a stall after 1.5 s, not after the old fixed 60 s."""
    cfg = write_config(
        tmp_path, engines=("ab-d1", "broken-hang"), rounds=1, concurrency=1,
        extra="", strikes="{max: 3, on_fault: lose}",
    )  # fmt: skip
    text = cfg.read_text(encoding="utf-8").replace(
        'time_control: {tc: "60+1"}', "time_control: {depth: 1, stall_timeout_ms: 1500}"
    )
    cfg.write_text(text, encoding="utf-8")
    proc = run_tcecd(cfg)
    assert proc.returncode == 0, proc.stderr[-2000:]
    pgn = (tmp_path / "state" / "event.pgn").read_text(encoding="utf-8")
    assert '[Termination "stalled connection"]' in pgn
    faults = [json.loads(line) for line in proc.stderr.splitlines()
              if '"engine fault"' in line]  # fmt: skip
    assert [f["detail"] for f in faults] == ["no move after 1500 ms"]
