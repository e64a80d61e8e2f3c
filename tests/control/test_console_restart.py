"""``restart-game`` of a game an engine's fault ended, after its round is over
(issue 26), in a running daemon with its embedded Mosquitto: allowed while
nothing was decided from the result (docs/running.md, "The console").

* Round-robin: the Berger table reads no result, so a game of round 1 is
  played again while round 3 is played; round 4 (here: the end) waits for it,
  and the standings published next are those after the latest round over.
* FIDE Dutch: a round over but not yet paired on (the event paused) may be
  re-opened; once the next round is paired from it, the result stands.

Both are accepted by ``replay --verify``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from tcecd.domain import Result
from tcecd.events import EventFinished, StandingsUpdated
from tcecd.replay.event import rebuild_from_pgn
from tests.control.scripted import Board, Running, gid, running_event, settings
from tests.control.test_console_run import SLUG, ctl, listening

pytestmark = pytest.mark.mosquitto


async def play_until(r: Running, target: str, result: Result = Result.DRAW) -> None:
    """End every game the board plays (``result``) until ``target`` is being played."""
    board = r.board
    while not board.running(target):
        await board.until(lambda: any(board.running(g) for g in board.attempts))
        for g in list(board.attempts):
            attempt = board.running(g)
            if attempt is not None and g != target:
                attempt.end(result)
        await board.until(lambda: board.running(target) or not any(
            board.running(g) for g in board.attempts), limit_s=20)


async def standings_where(r: Running, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first ``standings`` document a new anonymous subscriber gets that
    ``pred`` accepts (within 10 s)."""
    async with aiomqtt.Client("127.0.0.1", int(r.url.rsplit(":", 1)[1])) as c:
        await c.subscribe(f"tcecd/{SLUG}/standings", qos=1)
        async with asyncio.timeout(10):
            async for m in c.messages:
                doc: dict[str, Any] = json.loads(m.payload)  # type: ignore[arg-type]
                if pred(doc):
                    return doc
    raise AssertionError("unreachable")


def standings_after(r: Running) -> list[StandingsUpdated]:
    return [e for e in r.watch.events if isinstance(e, StandingsUpdated)]


async def test_a_round_robin_plays_a_faulted_game_again_rounds_later(tmp_path: Path) -> None:
    board = Board()
    board.auto["1.1"] = (Result.BLACK_WINS, True)  # White's engine crashes
    run = settings(tmp_path, system="round-robin", rounds=3)
    async with running_event(run, board) as r:
        await listening(r)
        await play_until(r, "3.1")
        state = r.watch.state
        assert [s.after_round for s in standings_after(r)][-1] == 2
        white = state.game(gid("1.1")).white

        board.auto.pop("1.1")
        reply = await ctl(r, "restart-game", {"game": "1.1", "reason": "hardware fault"})
        assert reply["ok"] is True, reply
        assert reply["effect"] == {"game": "1.1", "voided": True, "result": "0-1",
                                   "termination": "abandoned"}  # fmt: skip
        published = len(standings_after(r))
        # Round 3's first game ends; the replay of 1.1 comes next (rounds in order).
        board.running("3.1").end(Result.DRAW)
        again = await board.until(lambda: board.running("1.1"))
        assert len(standings_after(r)) == published  # round 1 is open: nothing complete
        assert 4 not in r.watch.state.schedule
        again.end(Result.WHITE_WINS)
        # Rounds 1 and 2 over again: the standings after round 2, with 1.1 won.
        latest = await r.watch.until(lambda s: len(standings_after(r)) > published
                                     and standings_after(r)[-1])  # fmt: skip
        assert latest.after_round == 2
        row = next(s for s in latest.standings if s.id == white)
        assert row.score_half == 2 + 1  # 1.1 won, round 2 drawn (the crash counted 0)
        # ... and so are the standings a viewer gets (the retained ones, then
        # the update, which the publisher's own task may not have sent yet).
        shown = await standings_where(r, lambda doc: next(
            x for x in doc["rows"] if x["id"] == white)["score"] == 1.5)  # fmt: skip
        assert shown["after_round"] == 2
        (await board.until(lambda: board.running("3.2"))).end(Result.DRAW)
        assert await r.task is True
        final = next(e for e in r.watch.events if isinstance(e, EventFinished))
        assert next(s for s in final.standings if s.id == white).score_half == 2 + 1 + 1

    replayed = rebuild_from_pgn(run.state_dir / "e.pgn", players=r.watch.state.players,
                                system="round-robin", total_rounds=3)  # fmt: skip
    assert replayed.deviations == ()
    notes = "\n".join(replayed.operator_notes)
    assert "game 1.1: restarted by the operator (hardware fault); its earlier result 0-1" in notes


async def test_a_swiss_round_over_reopens_until_the_next_is_paired(tmp_path: Path) -> None:
    board = Board()
    board.auto["1.1"] = (Result.BLACK_WINS, True)  # a fault that stays
    run = settings(tmp_path, system="dutch-2017", rounds=3, concurrency=2)
    async with running_event(run, board) as r:
        await listening(r)
        last = await board.until(lambda: board.running("1.2"))
        await r.watch.until(lambda s: gid("1.1") in s.results)
        # The operator pauses before the round ends: its next round is not paired.
        assert (await ctl(r, "pause", {"reason": "check the hardware"}))["ok"] is True
        last.end(fault=True)
        await r.watch.until(lambda s: standings_after(r))
        assert 2 not in r.watch.state.schedule

        reply = await ctl(r, "restart-game", {"game": "1.2", "reason": "bad RAM"})
        assert reply["ok"] is True, reply
        assert reply["effect"]["voided"] is True
        assert (await ctl(r, "resume", {"reason": ""}))["ok"] is True
        again = await board.until(lambda: board.running("1.2"))
        again.end(Result.DRAW)
        paired = await r.watch.until(lambda s: s.schedule.get(2))
        assert [e.after_round for e in standings_after(r)] == [1, 1]

        # Round 2 was paired from round 1's results: 1.1's fault stands now.
        refused = await ctl(r, "restart-game", {"game": "1.1", "reason": "late"})
        assert refused["ok"] is False
        assert refused["error"] == (
            "game 1.1 cannot be played again: round 2 was paired from its result "
            "(dutch-2017 pairs every round from the results of the rounds before it)")
        assert len(paired.games) == 2
        async with asyncio.timeout(30):
            while not r.task.done():
                for g in list(board.attempts):
                    if (attempt := board.running(g)) is not None:
                        attempt.end(Result.DRAW)
                await asyncio.sleep(0.02)
        assert await r.task is True
        assert len(board.attempts["1.2"]) == 2

    replayed = rebuild_from_pgn(run.state_dir / "e.pgn", players=r.watch.state.players,
                                system="dutch-2017", total_rounds=3)  # fmt: skip
    assert replayed.deviations == ()
    assert "game 1.2: restarted by the operator (bad RAM); its earlier result 0-1" in "\n".join(
        replayed.operator_notes)


async def test_a_reopened_round_survives_a_restart_of_the_daemon(tmp_path: Path) -> None:
    """The daemon stops right after the acknowledged restart-game (round 3
    being played): run again, it plays the re-opened game first, then the
    rest of round 3, and the event is whole."""
    board = Board()
    board.auto["1.1"] = (Result.BLACK_WINS, True)
    run = settings(tmp_path, system="round-robin", rounds=3)
    async with running_event(run, board) as r:
        await listening(r)
        await play_until(r, "3.1")
        # What viewers have before the restart: the standings after round 2.
        before = await standings_where(r, lambda doc: doc["after_round"] == 2)
        assert sum(x["games"] for x in before["rows"]) == 2 * 4
        reply = await ctl(r, "restart-game", {"game": "1.1", "reason": "hardware fault"})
        assert reply["ok"] is True, reply
        r.task.cancel()  # (the Mosquitto it embeds goes with it)
    again = Board()
    async with running_event(run, again) as r:
        first = await again.until(lambda: again.running("1.1") or again.running("3.1"))
        assert first.job.game_id == gid("1.1")
        assert r.watch.state.restarted == {gid("1.1"): "hardware fault"}
        # Viewers get the standings after round 2, 1.1 left out (to be played).
        # The broker keeps its retained messages across the restart: a viewer
        # may first get the standings the first run left there (``before``),
        # if it was stopped before its publisher sent the corrected ones (seen
        # under load in CI); the daemon sends its whole state again as it starts.
        seen: list[dict[str, Any]] = []

        def corrected(doc: dict[str, Any]) -> bool:
            seen.append(doc)
            return sum(x["games"] for x in doc["rows"]) == 2 * 3

        shown = await standings_where(r, corrected)
        assert shown["after_round"] == 2
        assert all(stale == before for stale in seen[:-1]), seen  # nothing else first
        first.end(Result.WHITE_WINS)
        for g in ("3.1", "3.2"):
            (await again.until(lambda g=g: again.running(g))).end(Result.DRAW)  # type: ignore[misc]
        assert await r.task is True
        white = r.watch.state.game(gid("1.1")).white
        final = next(e for e in r.watch.events if isinstance(e, EventFinished))
        assert next(s for s in final.standings if s.id == white).score_half == 2 + 1 + 1
    replayed = rebuild_from_pgn(run.state_dir / "e.pgn", players=r.watch.state.players,
                                system="round-robin", total_rounds=3)  # fmt: skip
    assert replayed.deviations == ()
    rounds = [line for line in (run.state_dir / "e.pgn").read_text().splitlines()
              if line.startswith("[Round ")]  # fmt: skip
    assert rounds == ['[Round "1.1"]', '[Round "1.2"]', '[Round "2.1"]', '[Round "2.2"]',
                      '[Round "1.1"]', '[Round "3.1"]', '[Round "3.2"]']
