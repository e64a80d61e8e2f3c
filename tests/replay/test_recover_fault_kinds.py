"""Strikes rebuilt from a PGN count every fault a PGN shows, not only crashes
(tcecd.replay.recover.strike_of; issue 27: dropping stalls, time forfeits or illegal
moves from the count passed every test).

A 6-player, 2-round TCEC Swiss event written as the daemon writes it, with one
decisive game ended by the fault under test: the loser of that game, and no one
else, has one strike in the restored state (and, with ``strikes.max`` 1, is
disqualified from that round), and ``replay``'s count (:func:`pgn_strikes`) agrees.
Each kind is its own case, so that leaving any one out of the count fails a test.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.record import GameRecord, Opening
from tcecd.pgn.writer import game_pgn
from tcecd.replay.event import rebuild_from_pgn
from tcecd.replay.recover import pgn_strikes, restore_state
from tcecd.store.sqlite import EventStore
from tests.fixtures.replay_pgn import sample_moves, simulate_event

#: (termination, the fault kind the daemon records, its detail in the PGN)
KINDS = [
    (Termination.TIME_FORFEIT, "time-forfeit", "{loser} loses on time"),
    (Termination.ILLEGAL_MOVE, "illegal-move", "{loser} makes an illegal move: e2e5"),
    (Termination.STALLED, "stall", "{loser}'s connection stalls"),
    (Termination.ABANDONED, "crash", "{loser} disconnects"),
]


def _pgn(faulty: GameId, termination: Termination, detail: str) -> tuple[str, str]:
    """The event's PGN with game ``faulty`` ended by ``termination``; and its loser."""
    _players, games, _history = simulate_event(6, 2)
    loser = ""
    out = []
    for g in games:
        record = GameRecord(
            game_id=g.game_id, event="faults", site="test", white=g.white, black=g.black,
            result=g.result, termination=Termination.ADJUDICATION,
            termination_detail="TCEC win rule", start_time="2026-11-22T03:59:43.149Z",
            end_time="2026-11-22T03:59:45.149Z", duration_ms=2000, time_control="60+1",
            opening=Opening(name=None, fen=None, moves=("e2e4",)), moves=sample_moves(),
        )  # fmt: skip
        if g.game_id == faulty:
            assert g.result.winner is not None, "the fault must decide the game"
            loser = g.black if g.result.winner is Color.WHITE else g.white
            record = dataclasses.replace(
                record, termination=termination, termination_detail=detail.format(loser=loser)
            )
        out.append(game_pgn(record))
    return "".join(out), loser


@pytest.mark.parametrize(("termination", "kind", "detail"), KINDS, ids=[k[1] for k in KINDS])
@pytest.mark.parametrize("faulty", [GameId(1, 1), GameId(2, 2)], ids=str)
def test_a_game_lost_by_a_fault_is_a_strike(
    tmp_path: Path, termination: Termination, kind: str, detail: str, faulty: GameId
) -> None:
    text, loser = _pgn(faulty, termination, detail)
    pgn = tmp_path / "event.pgn"
    pgn.write_text(text, encoding="utf-8")
    event = rebuild_from_pgn(pgn)
    assert event.ok, event.deviations  # a valid event: the strike is the only point
    assert pgn_strikes(event.games) == {loser: 1}
    with EventStore(tmp_path / "state") as store:
        restore_state(store, event, fingerprint={}, max_strikes=1)
        assert store.strikes() == {loser: 1}
        ((engine, game, fault_kind, fault_detail),) = store.faults()
        assert (engine, game, fault_kind) == (loser, faulty, kind)
        assert fault_detail == detail.format(loser=loser)
        # strikes.max 1: disqualified from the round of that game on.
        assert {e: r for e, (r, _why) in store.disqualified().items()} == {loser: faulty.round}


def test_a_draw_or_an_ordinary_loss_is_no_strike(tmp_path: Path) -> None:
    """The same event with no fault: no strike, whatever the results."""
    text, _ = _pgn(GameId(9, 9), Termination.ADJUDICATION, "")
    pgn = tmp_path / "event.pgn"
    pgn.write_text(text, encoding="utf-8")
    event = rebuild_from_pgn(pgn)
    assert pgn_strikes(event.games) == {}
    assert any(g.result is Result.DRAW for g in event.games)
