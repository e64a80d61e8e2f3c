"""What the console records (tcecd.store, tcecd.event.state, tcecd.control.facts):
commands in the store's ``control`` table, games it takes out of their course in
``attempts``, the PGN's order kept, an older state still loading, and the fold
rebuilding the same facts on resume. Pure or on a temp database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tcecd.config.engines import EngineConfig
from tcecd.config.fingerprint import accept_replacements, diff_fingerprints, engine_fingerprint
from tcecd.control.facts import facts_of
from tcecd.daemon.recorder import load_state
from tcecd.domain import GameId, Result
from tcecd.errors import StateError
from tcecd.event.state import AUDIT_TAIL, EventState, fold
from tcecd.event.strikes import forfeit_winner
from tcecd.events import (
    CommandAnswered,
    ConcurrencyChanged,
    ControlEntry,
    EngineReplaced,
    EngineWithdrawn,
    EventPaused,
    GameAdjudicationOrdered,
    GameFinished,
    GameRestartOrdered,
)
from tcecd.store import EventStore
from tcecd.store.console import ADJUDICATED, StoredAttempt
from tests.store.test_store import PAIRING, PLAYERS, make_record

T = "2026-11-22T05:00:00.000Z"


def entry(ident: str | None, command: str, args: dict[str, object], *, ok: bool = True,
          effect: dict[str, object] | None = None, error: str | None = None) -> ControlEntry:
    return ControlEntry(0, ident, T, command, args, ok, error, effect if ok else None)


def fresh(tmp_path: Path) -> EventStore:
    store = EventStore(tmp_path)
    store.initialise(fingerprint={}, players=PLAYERS, rng_seed=None, double=False)
    store.save_pairing(PAIRING)
    return store


def test_commands_are_kept_in_order_and_an_id_is_recorded_once(tmp_path: Path) -> None:
    with fresh(tmp_path) as store:
        a = store.record_command(entry("c1", "pause", {"reason": "x"}, effect={"paused": True}))
        b = store.record_command(entry(None, "?", {}, ok=False, error="not JSON"))
        c = store.record_command(entry(None, "?", {}, ok=False, error="not JSON"))
        assert a < b < c  # (payloads without an id are all kept)
        with pytest.raises(StateError, match="command 'c1' is already recorded"):
            store.record_command(entry("c1", "resume", {}, effect={"paused": False}))
        assert [e.command for e in store.commands()] == ["pause", "?", "?"]
        assert [e.command for e in store.commands(accepted=True)] == ["pause"]
        assert [e.seq for e in store.commands(last=2)] == [b, c]
        got = store.command("c1")
        assert got is not None
        assert (got.ok, got.effect, got.args) == (True, {"paused": True}, {"reason": "x"})


def test_a_voided_game_keeps_its_place_in_the_pgn_file(tmp_path: Path) -> None:
    """Game 1.1 is recorded, voided by the console, another game recorded, then
    1.1 again: the ledger (the PGN file's games) has all three texts in the
    order they were appended; the store's games only the two that count."""
    g11 = make_record(GameId(1, 1), "c", "b", Result.BLACK_WINS)
    with fresh(tmp_path) as store:
        store.commit_game(g11, "PGN 1.1 first\n\n", played=True)
        store.add_outbox([])
        store.record_command(entry("r", "restart-game", {"game": "1.1", "reason": "hw"},
                                   effect={"voided": True}), void=GameId(1, 1))
        assert [g.game_id for g in store.games()] == []
        store.commit_game(make_record(GameId(1, 1), "c", "b", Result.DRAW), "PGN 1.1 again\n\n",
                          played=True)  # fmt: skip
        assert store.ledger() == ["PGN 1.1 first\n\n", "PGN 1.1 again\n\n"]
        assert [a.kind for a in store.attempts()] == ["voided"]
        assert store.attempts(GameId(1, 1))[0].reason == "hw"
        with pytest.raises(StateError, match=r"game 2\.1 is not recorded"):
            store.record_command(entry("v", "restart-game", {}, effect={}), void=GameId(2, 1))
        assert store.command("v") is None  # the whole transaction went


def test_an_adjudication_is_kept_to_be_recorded_in_its_turn(tmp_path: Path) -> None:
    rec = make_record(GameId(1, 1), "c", "b", Result.WHITE_WINS)
    from tcecd.store import codec

    with fresh(tmp_path) as store:
        assert store.adjudicated_record(GameId(1, 1)) is None
        store.record_command(
            entry("a", "adjudicate", {"game": "1.1", "result": "1-0", "reason": "r"},
                  effect={"game": "1.1"}),
            attempt=StoredAttempt(GameId(1, 1), ADJUDICATED, "r",
                                  json.dumps(codec.record_to_dict(rec))),
        )  # fmt: skip
        assert store.adjudicated_record(GameId(1, 1)) == rec


def test_a_state_from_before_the_console_opens_and_gets_its_tables(tmp_path: Path) -> None:
    with fresh(tmp_path) as store:
        store.commit_game(make_record(GameId(1, 1), "c", "b", Result.DRAW), "P\n\n", played=True)
    db = sqlite3.connect(tmp_path / "event.sqlite")
    db.execute("DROP TABLE control")
    db.execute("DROP TABLE attempts")
    db.commit()
    db.close()
    with EventStore(tmp_path) as store:
        state = load_state(store)
        assert list(state.results) == [GameId(1, 1)]
        assert store.commands() == []
        assert store.ledger() == ["P\n\n"]
        store.record_command(entry("p", "pause", {}, effect={"paused": True}))
        assert load_state(store).paused is True


def test_the_fold_rebuilds_what_the_console_decided(tmp_path: Path) -> None:
    """The same facts, folded live (the recorder) and from the store (resume)."""
    definition = EngineConfig(name="b", command=("/bin/b2",)).model_dump(mode="json")
    commands = [
        entry("1", "pause", {"reason": "m"}, effect={"paused": True}),
        entry("2", "withdraw", {"engine": "a", "reason": "gone"}, effect={"round": 1}),
        entry("3", "replace", {"engine": "b", "reason": "fix"}, effect={"definition": definition}),
        entry("4", "concurrency", {"concurrency": 3}, effect={"concurrency": 3, "was": 1}),
        entry("5", "adjudicate", {"game": "1.1", "result": "1/2-1/2", "reason": "r"},
              effect={"game": "1.1"}),
        entry("6", "nope", {}, ok=False, error="unknown command"),
        entry("7", "resume", {"reason": ""}, effect={"paused": False}),
        entry("8", "status", {}, effect={}),
    ]
    live = EventState(players=PLAYERS)
    with fresh(tmp_path) as store:
        for e in commands:
            seq = store.record_command(e)
            recorded = ControlEntry(seq, e.id, e.received, e.command, e.args, e.ok, e.error,
                                    e.effect)  # fmt: skip
            live = fold([CommandAnswered(recorded), *facts_of(recorded)], live)
        resumed = load_state(store)
    for state in (live, resumed):
        assert state.paused is False
        assert state.withdrawn == {"a": (1, "gone")}
        assert state.replaced == {"b": definition}
        assert state.concurrency == 3
        assert state.adjudicated == {GameId(1, 1): (Result.DRAW, "r")}
        assert [e.id for e in state.audit] == [str(i) for i in range(1, 9)]
    assert [e.seq for e in resumed.audit] == [e.seq for e in live.audit]


def test_facts_fold_as_the_console_means_them() -> None:
    g = GameId(1, 1)
    done = GameFinished(make_record(g, "c", "b", Result.DRAW), "")
    state = fold([done, GameAdjudicationOrdered(GameId(1, 2), Result.WHITE_WINS, "x")],
                 EventState(schedule={1: PAIRING}, first_open=1))  # fmt: skip
    assert state.first_open is None  # the round's only game is finished
    voided = fold([GameRestartOrdered(g, "hw", voided=True)], state)
    assert g not in voided.results
    assert voided.first_open == 1  # its round is open again
    assert voided.restarted == {g: "hw"}
    assert fold([GameRestartOrdered(GameId(1, 2), "again")], state).adjudicated == {}
    # The first withdrawal stands; an audit log keeps its tail; a repeat is no entry.
    state = fold([EngineWithdrawn("a", "x", 1), EngineWithdrawn("a", "y", 2),
                  EventPaused(True), ConcurrencyChanged(2), EngineReplaced("b", {"k": 1})])
    assert (state.withdrawn, state.paused, state.concurrency) == ({"a": (1, "x")}, True, 2)
    answers = [CommandAnswered(entry(str(i), "status", {}, effect={}))
               for i in range(AUDIT_TAIL + 5)]  # fmt: skip
    tail = fold([*answers, CommandAnswered(answers[0].entry, repeated=True)])
    assert [e.id for e in tail.audit] == [str(i) for i in range(5, AUDIT_TAIL + 5)]


def test_a_forfeit_says_who_withdrew() -> None:
    assert forfeit_winner("a", "b", {"a"}, {"a"}) == (Result.BLACK_WINS, "a withdrew")
    assert forfeit_winner("a", "b", {"b"}) == (Result.WHITE_WINS, "b disqualified")
    assert forfeit_winner("a", "b", {"a", "b"}, {"b"}) == (
        Result.DRAW, "a disqualified; b withdrew")


def test_a_resume_accepts_the_definition_the_console_replaced_an_engine_with() -> None:
    old = EngineConfig(name="b", command=("/bin/b1",), options={"Hash": 16})
    new = old.model_copy(update={"command": ("/bin/b2",)})
    other = old.model_copy(update={"options": {"Hash": 32}})
    stored = {"engines": [engine_fingerprint(old)], "pairing": {"rounds": 3}}
    for config in (old, new):  # the first definition, or the replacement
        now = {"engines": [engine_fingerprint(config)], "pairing": {"rounds": 3}}
        assert diff_fingerprints(stored, accept_replacements(stored, now, {"b": new})) == []
    now = {"engines": [engine_fingerprint(other)], "pairing": {"rounds": 3}}
    assert diff_fingerprints(stored, accept_replacements(stored, now, {"b": new})) == [
        "engines[0].options.Hash: 16 -> 32"]
    replaced = {"engines": [engine_fingerprint(new)], "pairing": {"rounds": 3}}
    assert diff_fingerprints(stored, accept_replacements(stored, replaced, {})) != []


def test_a_replaced_engines_env_values_stay_off_the_stream() -> None:
    from tcecd.control.console import audit_document, public_entry

    definition = EngineConfig(name="b", command=("/bin/b",), env={"LICENSE": "s3cret"})
    e = entry("r", "replace", {"engine": "b"},
              effect={"definition": definition.model_dump(mode="json")})
    shown = public_entry(e)
    assert shown.effect is not None
    assert shown.effect["definition"]["env"] == {"LICENSE": "***"}  # type: ignore[index]
    assert "s3cret" not in json.dumps(audit_document((e,)))
    assert "s3cret" not in json.dumps(shown.reply())
    assert e.effect["definition"]["env"] == {"LICENSE": "s3cret"}  # type: ignore[index]
