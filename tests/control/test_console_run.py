"""The operator's console in a running event (issue 26), in-process: the daemon
(``run_event_async``) with a scripted game player, its embedded Mosquitto with
tcecd's ACL, and commands sent as an operator with ``tcecd ctl``'s code.

One event carries every command, in the order an operator would use them, and
checks each one's effect in the state, the PGN, the store, MQTT and ``replay
--verify``; then 200 hostile payloads and anonymous clients change nothing.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from tcecd.bus.inbound import parse
from tcecd.commands.ctl import send
from tcecd.control.console import MANUAL_ADJUDICATION
from tcecd.daemon.recorder import load_state
from tcecd.domain import Result, Termination
from tcecd.pairing.base import ByeKind
from tcecd.replay.event import rebuild_from_pgn
from tcecd.store import EventStore
from tcecd.web.model import PageModel
from tests.control.hostile import hostile_payloads
from tests.control.scripted import Board, Running, gid, running_event, settings

pytestmark = pytest.mark.mosquitto
SLUG = "console"
ROOT = f"tcecd/{SLUG}"


async def ctl(r: Running, name: str, args: dict[str, object] | None = None, *,
              ident: str | None = None) -> dict[str, Any]:
    reply = await send(r.operator(), SLUG, name, args or {}, ident or uuid.uuid4().hex, 10)
    assert reply is not None, f"no answer to {name}"
    return reply


async def listening(r: Running) -> None:
    """Until the console answers (it subscribes once the publisher is up)."""
    async with asyncio.timeout(30):
        while await send(r.operator(), SLUG, "status", {}, uuid.uuid4().hex, 1.0) is None:
            pass


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def record_snapshot(state_dir: Path) -> tuple[Any, ...]:
    """The event's record: games, rounds, attempts and the PGN's bytes."""
    db = state_dir / "event.sqlite"
    return (rows(db, "SELECT round, number, result, pgn FROM games ORDER BY rowid"),
            rows(db, "SELECT * FROM rounds ORDER BY round"),
            rows(db, "SELECT * FROM attempts ORDER BY seq"),
            (state_dir / "e.pgn").read_bytes())  # fmt: skip


async def test_every_command_in_one_event(tmp_path: Path) -> None:
    board = Board()
    board.auto["1.1"] = (Result.BLACK_WINS, True)  # White's engine crashes: a fault
    run = settings(tmp_path)
    async with running_event(run, board) as r:
        await listening(r)
        w = r.watch
        state = await w.until(lambda s: gid("1.1") in s.results and s)
        first = state.game(gid("1.1"))
        assert state.results[gid("1.1")].termination is Termination.ABANDONED
        await board.until(lambda: board.running("1.2"))

        # replace: the crashed engine's next games are played with new options.
        reply = await ctl(r, "replace", {"engine": first.white, "options": {"Hash": 2},
                                         "reason": "fixed build"})  # fmt: skip
        assert reply["ok"] is True, reply
        assert reply["effect"]["definition"]["options"] == {"Hash": 2}

        # restart-game of the game the fault ended: its result is void, it is played again.
        board.auto.pop("1.1")
        reply = await ctl(r, "restart-game", {"game": "1.1", "reason": "hardware fault"})
        assert reply == {**reply, "ok": True, "effect": {
            "game": "1.1", "voided": True, "result": "0-1", "termination": "abandoned"}}
        await w.until(lambda s: gid("1.1") not in s.results)
        # ... once a permit frees: concurrency 2 lets it start beside 1.2.
        assert (await ctl(r, "concurrency", {"concurrency": 2}))["effect"] == {
            "concurrency": 2, "was": 1}
        again = await board.until(lambda: board.running("1.1"))
        assert len(board.attempts["1.1"]) == 2
        assert again.job.white.options == {"Hash": 2}  # the replacement plays it

        # A result for a finished game, a game not started, no such game: refused.
        refused = await ctl(r, "adjudicate", {"game": "1.3", "result": "1-0", "reason": "x"})
        assert refused["ok"] is False
        assert "no such game" in refused["error"]

        # pause: the games playing go on, nothing new starts; adjudicate one of them.
        assert (await ctl(r, "pause", {"reason": "maintenance"}))["ok"] is True
        reply = await ctl(r, "adjudicate", {"game": "1.2", "result": "1-0",
                                            "reason": "engine hung"})  # fmt: skip
        assert reply["ok"] is True
        assert reply["effect"]["plies"] == 4
        # restart-game of a game being played: stopped now, played again (after resume).
        reply = await ctl(r, "restart-game", {"game": "1.1", "reason": "operator's test"})
        assert reply["effect"] == {"game": "1.1", "voided": False, "plies": 4}
        await board.until(lambda: board.attempts["1.1"][1].cancelled)
        await w.until(lambda s: gid("1.2") in s.results)
        refused = await ctl(r, "adjudicate", {"game": "1.2", "result": "0-1", "reason": "x"})
        assert refused["ok"] is False
        assert "already finished" in refused["error"]
        assert w.state.paused
        assert len(board.attempts["1.1"]) == 2

        # The same command id twice: applied once, answered twice, the same way.
        one = await ctl(r, "resume", {"reason": ""}, ident="dup-1")
        two = await ctl(r, "resume", {"reason": ""}, ident="dup-1")
        assert one["ok"] is True
        assert {**one, "ts": 0} == {**two, "ts": 0}
        third = await board.until(lambda: board.running("1.1"))
        third.end(Result.WHITE_WINS)

        # Round 2, both games at once (concurrency 2): withdraw an engine playing.
        await board.until(lambda: board.running("2.1") and board.running("2.2"))
        state = w.state
        gone = state.game(gid("2.1")).black
        reply = await ctl(r, "withdraw", {"engine": gone, "reason": "unsound build"})
        assert reply["ok"] is True
        assert reply["effect"] == {
            "engine": gone, "round": 2, "stopped": ["2.1"]}
        done = await w.until(lambda s: s.results.get(gid("2.1")))
        assert (done.termination, done.termination_detail) == (
            Termination.FORFEIT, f"{gone} withdrew")
        board.running("2.2").end(Result.DRAW)

        # Round 3 (FIDE Dutch): the withdrawn engine is not paired (an absence).
        pairing = (await w.until(lambda s: s.schedule.get(3)))
        assert [(b.player, b.kind) for b in pairing.requested_byes] == [(gone, ByeKind.ZERO)]
        assert all(gone not in (g.white, g.black) for g in pairing.games)
        await board.until(lambda: board.running("3.1"))

        # Nothing changes the record now but the console: 200 hostile payloads,
        # then anonymous clients, are all refused.
        before = record_snapshot(run.state_dir)
        facts_before = (w.state.paused, dict(w.state.withdrawn), dict(w.state.replaced),
                        w.state.concurrency)  # fmt: skip
        await hostile(r)
        await anonymous(r)
        assert record_snapshot(run.state_dir) == before
        assert (w.state.paused, dict(w.state.withdrawn), dict(w.state.replaced),
                w.state.concurrency) == facts_before  # fmt: skip
        status = await ctl(r, "status")
        assert status["effect"]["running"] == ["3.1"]
        assert not status["effect"]["paused"]
        assert status["effect"]["withdrawn"] == {gone: {"round": 2, "reason": "unsound build"}}

        # MQTT: the replayed game's result replaced the voided one; the audit log
        # and the console's state are retained for every viewer.
        end = json.loads(await first_retained(r, "game/1.1/end"))
        assert end["result"] == "1-0"
        assert '[Restarted "operator\'s test"]' in end["pgn"]
        raw = await first_retained(r, "audit")
        assert parse(["audit"], raw) == json.loads(raw)  # as docs/events.md says
        assert parse(["console"], await first_retained(r, "console")) is not None
        page = PageModel(event=SLUG)
        page.apply(f"{ROOT}/audit", raw)
        page.apply(f"{ROOT}/console", await first_retained(r, "console"))
        shown = page.snapshot()["sections"]["console"]
        assert shown["withdrawn"] == [{"engine": gone, "round": 2, "reason": "unsound build"}]
        assert len(shown["audit"]) == 20
        assert shown["audit"][0]["command"] == "status"
        audit = json.loads(raw)
        assert audit["type"] == "audit"
        assert len(audit["entries"]) == 50
        assert audit["entries"][-1]["command"] == "status"
        console = json.loads(await first_retained(r, "console"))
        assert console["withdrawn"] == {gone: {"round": 2, "reason": "unsound build"}}
        assert (console["paused"], console["concurrency"]) == (False, 2)
        assert console["replaced"][first.white]["options"] == {"Hash": 2}

        board.running("3.1").end(Result.DRAW)
        async with asyncio.timeout(30):
            assert await r.task is True
    check_record(tmp_path, run.state_dir, first.white, gone)


async def hostile(r: Running) -> None:
    """200 malformed or hostile payloads: each answered once with an error, the
    daemon unharmed."""
    payloads = hostile_payloads()
    op = r.operator()
    answers: list[dict[str, Any]] = []
    async with aiomqtt.Client(op.host, op.port, username=op.username,
                              password=op.password) as c:  # fmt: skip
        await c.subscribe(f"{ROOT}/control/reply/+", qos=1)
        await c.subscribe(f"{ROOT}/control/error", qos=1)
        for _ident, payload in payloads:
            await c.publish(f"{ROOT}/control", payload, qos=1)
        async with asyncio.timeout(60):
            async for m in c.messages:
                answers.append(json.loads(m.payload))  # type: ignore[arg-type]
                if len(answers) == len(payloads):
                    break
    assert all(a["ok"] is False and a["error"] for a in answers), [
        a for a in answers if a["ok"] is not False]
    by_id = [a["id"] for a in answers if a["id"] is not None]
    assert sorted(by_id) == sorted(i for i, _ in payloads if i is not None)


async def anonymous(r: Running, *, paused: bool = False, as_operator: bool = False) -> None:
    """An anonymous client may read, never publish: a forged retained standings
    reaches no subscriber, a control message is never obeyed (``as_operator``:
    an operator's account, which may publish commands only, forges the stream)."""
    host, port = "127.0.0.1", int(r.url.rsplit(":", 1)[1])
    forged = b'{"schema":1,"type":"standings","after_round":9,"final":true,"rows":[]}'
    op = r.operator()
    who: dict[str, Any] = ({"username": op.username, "password": op.password}
                           if as_operator else {})  # fmt: skip
    async with aiomqtt.Client(host, port) as watcher, aiomqtt.Client(host, port, **who) as evil:
        await watcher.subscribe(f"{ROOT}/standings", qos=1)
        await watcher.subscribe(f"{ROOT}/control/reply/evil-1", qos=1)
        first = await anext(aiter(watcher.messages))  # the daemon's retained standings
        assert first.payload != forged
        await evil.publish(f"{ROOT}/standings", forged, qos=1, retain=True)
        if not as_operator:
            await evil.publish(f"{ROOT}/control", json.dumps(
                {"id": "evil-1", "command": "resume" if paused else "pause"}).encode(), qos=1)
        # A barrier the watcher may not publish either: wait for the daemon's own
        # next message instead (the answer to an operator's status).
        await ctl(r, "status")
        delivered = await next_message(watcher, 1.0)
        assert delivered is None, delivered
    assert (await first_retained(r, "standings")) != forged
    assert r.watch.state.paused is paused
    assert rows(r.settings.state_dir / "event.sqlite",
                "SELECT id FROM control WHERE id = 'evil-1'") == []


async def next_message(client: aiomqtt.Client, wait_s: float) -> tuple[str, Any] | None:
    """The next message ``client`` receives within ``wait_s`` (None: none)."""
    try:
        async with asyncio.timeout(wait_s):
            m = await anext(aiter(client.messages))
    except TimeoutError:
        return None
    return str(m.topic), m.payload


async def first_retained(r: Running, topic: str) -> bytes:
    """The retained message of ``<root>/<topic>`` a new anonymous subscriber gets."""
    async with aiomqtt.Client("127.0.0.1", int(r.url.rsplit(":", 1)[1])) as c:
        await c.subscribe(f"{ROOT}/{topic}", qos=1)
        async with asyncio.timeout(10):
            m = await anext(aiter(c.messages))
    assert m.retain
    assert isinstance(m.payload, bytes)
    return m.payload


def check_record(tmp_path: Path, state_dir: Path, replaced: str, gone: str) -> None:
    """What the console did is in the PGN, the store (and its fold) and is
    accepted by ``replay --verify``."""
    pgn = (state_dir / "e.pgn").read_text(encoding="utf-8")
    games = pgn.split("\n\n[Event ")
    rounds = [line for line in pgn.splitlines() if line.startswith("[Round ")]
    # 1.1's voided attempt stays in the file; its replay follows, tagged.
    assert rounds == ['[Round "1.1"]', '[Round "1.2"]', '[Round "1.1"]', '[Round "2.1"]',
                      '[Round "2.2"]', '[Round "3.1"]']
    replay = games[2]
    assert '[Restarted "operator\'s test"]' in replay
    assert '[Result "1-0"]' in replay
    assert "Engine \"/bin/true; Hash=2\"]" in replay
    adjudicated = games[1]
    assert '[TerminationDetails "Manual adjudication"]' in adjudicated
    assert '[ManualAdjudication "engine hung"]' in adjudicated
    assert '[Termination "adjudication"]' in adjudicated
    assert f'[Withdrawn "{gone}"]' in games[5]

    with EventStore(state_dir) as store:
        state = load_state(store)
        attempts = [(str(a.game_id), a.kind) for a in store.attempts()]
        control = store.commands()
        assert store.command("dup-1") is not None
        assert sum(1 for c in control if c.id == "dup-1") == 1
    assert attempts == [("1.1", "voided"), ("1.2", "adjudicated"), ("1.1", "aborted")]
    assert state.withdrawn == {gone: (2, "unsound build")}
    assert set(state.replaced) == {replaced}
    assert state.concurrency == 2
    assert state.paused is False
    assert state.adjudicated == {gid("1.2"): (Result.WHITE_WINS, "engine hung")}
    assert state.restarted == {gid("1.1"): "operator's test"}
    assert state.results[gid("1.2")].termination_detail == MANUAL_ADJUDICATION
    assert len([c for c in control if not c.ok]) >= 200

    replayed = rebuild_from_pgn(state_dir / "e.pgn", players=state.players,
                                system="dutch-2017", total_rounds=3)  # fmt: skip
    assert replayed.deviations == ()
    notes = "\n".join(replayed.operator_notes)
    assert "game 1.2: 1-0 by manual adjudication (the operator: engine hung)" in notes
    assert "game 1.1: restarted by the operator (operator's test); its earlier result 0-1" \
        in notes
    assert f"round 3: {gone} withdrawn by the operator, not paired" in notes
    assert f"game 2.1: forfeit, {gone} withdrew" in notes
    assert "played by /bin/true; Hash=2" in notes


async def test_a_paused_event_without_a_console_is_refused(tmp_path: Path) -> None:
    """Paused from the console, then run with a config that has no operators:
    nothing could ever resume it, so the run is refused in one line."""
    import dataclasses
    import io

    from tcecd.daemon import run_event_async
    from tcecd.daemon.state_dir import seed
    from tcecd.errors import StateError
    from tcecd.events import ControlEntry

    run = dataclasses.replace(settings(tmp_path), mqtt=None)
    with EventStore(run.state_dir) as store:
        players, rng_seed = seed(run)
        store.initialise(fingerprint=run.fingerprint, players=players, rng_seed=rng_seed,
                         double=False)  # fmt: skip
        store.record_command(ControlEntry(0, "p", "2026-11-22T05:00:00.000Z", "pause", {},
                                          True, None, {"paused": True}))  # fmt: skip
    with pytest.raises(StateError, match="paused from its console"):
        await run_event_async(run, out=io.StringIO(), install_signals=False, player=Board())
