"""The crash-safe store: what is committed survives, what is not is invisible,
a game is never recorded twice, and the codec round-trips every field."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from tcecd.domain import Color, GameId, Result, Termination
from tcecd.errors import StateError
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.pairing.base import Pair, PlayedGame, Player, RoundPairing, ScheduledGame
from tcecd.store import EventStore
from tcecd.store.codec import (
    pairing_from_dict,
    pairing_to_dict,
    record_from_dict,
    record_to_dict,
)

PLAYERS = (Player("a", "Alpha", 1, 3000), Player("b", "Beta", 2, None), Player("c", "Gamma", 3))


def make_record(gid: GameId, white: str, black: str, result: Result) -> GameRecord:
    board = chess.Board()
    moves = []
    for ply, uci in enumerate(["e2e4", "e7e5", "g1f3"], start=1):
        move = chess.Move.from_uci(uci)
        san = board.san(move)
        color = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
        board.push(move)
        moves.append(
            MoveRecord(
                ply=ply, color=color, uci=uci, san=san, fen_after=board.fen(),
                book=ply == 1, move_time_ms=None if ply == 1 else 12, clock_left_ms=59_000,
                depth=None if ply == 1 else 7, nodes=1234, nps=100_000,
                score=None if ply == 1 else Score(cp=-15 if ply == 2 else None,
                                                  mate=None if ply == 2 else 3),
                pv_san=("Nf3", "Nc6") if ply == 3 else (), ponder_san="Nc6", r50=49, rd=-1000,
                rr=-3,
            )
        )  # fmt: skip
    return GameRecord(
        game_id=gid, event="E", site="S", white=white, black=black, result=result,
        termination=Termination.ADJUDICATION, termination_detail="TCEC draw rule",
        start_time="2026-11-22T03:59:43.149Z", end_time="2026-11-22T04:00:43.149Z",
        duration_ms=60_000, time_control="60+1",
        opening=Opening(name="Open", fen=None, moves=("e2e4",), eco="C20", index=4),
        moves=tuple(moves), white_options=(("Hash", "16"),), black_options=(("Threads", "1"),),
        white_elo=3000, black_elo=None, extra_tags=(("Annotator", "x"),),
    )  # fmt: skip


PAIRING = RoundPairing(
    round=1,
    bye="a",
    removed_history_rounds=(),
    pairs=(Pair("b", "c"),),
    games=(ScheduledGame(1, "c", "b", 0, 1),),
)


def test_codec_round_trips_a_full_record() -> None:
    rec = make_record(GameId(2, 3), "a", "b", Result.DRAW)
    assert record_from_dict(json.loads(json.dumps(record_to_dict(rec)))) == rec


def test_codec_round_trips_a_pairing() -> None:
    assert pairing_from_dict(json.loads(json.dumps(pairing_to_dict(PAIRING)))) == PAIRING


def test_identity_persists_across_reopen(tmp_path: Path) -> None:
    with EventStore(tmp_path) as store:
        assert not store.initialised
        store.initialise(fingerprint={"k": [1, 2]}, players=PLAYERS, rng_seed=42, double=False)
    with EventStore(tmp_path) as store:
        assert store.initialised
        assert store.players() == PLAYERS
        assert store.fingerprint() == {"k": [1, 2]}
        assert store.rng_seed() == 42


def test_second_daemon_on_same_state_dir_is_refused(tmp_path: Path) -> None:
    with EventStore(tmp_path), pytest.raises(StateError, match="another tcecd process"):
        EventStore(tmp_path)
    EventStore(tmp_path).close()  # released on close


def test_game_committed_once_and_round_records(tmp_path: Path) -> None:
    with EventStore(tmp_path) as store:
        store.initialise(fingerprint={}, players=PLAYERS, rng_seed=None, double=False)
        store.save_pairing(PAIRING)
        assert store.round_records() == []  # round 1 not finished yet
        rec = make_record(GameId(1, 1), "c", "b", Result.WHITE_WINS)
        store.commit_game(rec, "PGN TEXT\n\n", played=True)
        with pytest.raises(StateError, match=r"game 1\.1 is already recorded"):
            store.commit_game(rec, "PGN TEXT\n\n", played=True)
        [record] = store.round_records()
        assert record.round == 1
        assert record.bye == "a"
        assert record.games == (PlayedGame("c", "b", Result.WHITE_WINS, True),)
        [game] = store.games()
        assert game.pgn == "PGN TEXT\n\n"
        assert game.record == rec


def test_faults_and_disqualification_commit_with_the_game(tmp_path: Path) -> None:
    with EventStore(tmp_path) as store:
        store.initialise(fingerprint={}, players=PLAYERS, rng_seed=None, double=False)
        store.save_pairing(PAIRING)
        store.add_fault("b", GameId(1, 1), "crash", "exit code 1")
        rec = make_record(GameId(1, 1), "c", "b", Result.WHITE_WINS)
        store.commit_game(
            rec, "x", played=True, faults=[("b", "stall", "no bestmove")],
            disqualify=[("b", 1, "2 strikes")],
        )  # fmt: skip
    with EventStore(tmp_path) as store:
        assert store.strikes() == {"b": 2}
        assert store.disqualified() == {"b": (1, "2 strikes")}
        assert [f[2] for f in store.faults()] == ["crash", "stall"]


def test_failed_transaction_leaves_nothing(tmp_path: Path) -> None:
    with EventStore(tmp_path) as store:
        store.initialise(fingerprint={}, players=PLAYERS, rng_seed=None, double=False)
        rec = make_record(GameId(1, 1), "c", "b", Result.WHITE_WINS)
        store.commit_game(rec, "x", played=True)
        # Same game again plus a fault: the duplicate aborts the whole transaction.
        with pytest.raises(StateError):
            store.commit_game(rec, "x", played=True, faults=[("b", "crash", "boom")])
        assert store.strikes() == {}


def test_commit_survives_sigkill_right_after(tmp_path: Path) -> None:
    """A commit that returned is on disk even if the process dies at once."""
    script = f"""
import os, signal, sys
sys.path.insert(0, {str(Path(__file__).parents[2])!r})
from pathlib import Path
from tcecd.store import EventStore
from tcecd.pairing.base import Player
s = EventStore(Path({str(tmp_path)!r}))
s.initialise(fingerprint={{"x": 1}}, players=(Player("a", "A", 1), Player("b", "B", 2)),
             rng_seed=7, double=True)
os.kill(os.getpid(), signal.SIGKILL)
"""
    proc = subprocess.run([sys.executable, "-c", script], check=False)
    assert proc.returncode == -9
    with EventStore(tmp_path) as store:
        assert [p.id for p in store.players()] == ["a", "b"]
        assert store.rng_seed() == 7


def test_foreign_schema_version_is_refused(tmp_path: Path) -> None:
    with EventStore(tmp_path) as store:
        store.initialise(fingerprint={}, players=PLAYERS, rng_seed=None, double=False)
    db = sqlite3.connect(tmp_path / "event.sqlite")
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    with pytest.raises(StateError, match="schema version '99'"):
        EventStore(tmp_path)


def test_wal_mode_and_full_sync(tmp_path: Path) -> None:
    with EventStore(tmp_path) as store:
        # Opening writes nothing: the first write creates the database in WAL mode.
        store.initialise(fingerprint={}, players=PLAYERS, rng_seed=None, double=False)
        db = sqlite3.connect(store.path)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # persistent
        db.close()
        # synchronous is per connection: FULL (2) on the store's own.
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2
