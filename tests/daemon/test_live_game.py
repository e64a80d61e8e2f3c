"""The live game documents (``live.json``): the text made from the move
entries serialised once is the document's own JSON, and the material of a
move entry, counted from its FEN, is the board's."""

from __future__ import annotations

import random

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.daemon.live import LiveGame
from tcecd.daemon.outputs import json_text
from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.material import material_counts
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.outputs.tcec_json import live_move_json
from tcecd.pgn.writer import game_pgn


def _random_game(seed: int, plies: int) -> tuple[chess.Board, list[MoveRecord]]:
    """A random legal game as the runner records it, PVs and all."""
    rng = random.Random(seed)
    board = chess.Board()
    records: list[MoveRecord] = []
    for ply in range(1, plies + 1):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        pv_san: list[str] = []
        scratch = board.copy(stack=False)
        line = move
        for _ in range(rng.randrange(1, 7)):
            pv_san.append(scratch.san_and_push(line))
            replies = list(scratch.legal_moves)
            if not replies:
                break
            line = rng.choice(replies)
        color = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
        san = board.san(move)
        board.push(move)
        records.append(
            MoveRecord(
                ply, color, move.uci(), san, board.fen(), depth=rng.randrange(1, 40),
                nodes=rng.randrange(10**6), score=Score(cp=rng.randrange(-300, 300)),
                pv_san=tuple(pv_san),
                clock_left_ms=rng.randrange(10**6), r50=50, rd=-1, rr=-1000,
            )
        )  # fmt: skip
    return board, records


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 60))
def test_document_text_is_the_documents_json(seed: int, plies: int) -> None:
    _, records = _random_game(seed, plies)
    live = LiveGame({"White": "A ü", "Black": "B", "Round": "1.1"}, Opening(name=None, fen=None),
                    (("Threads", "1"),), (("Hash", "16"),))  # fmt: skip
    for i, record in enumerate(records):
        live.add(record)
        if i % 7 == 0:  # texts are made in several steps, as the writer asks for them
            assert live.document_text() == json_text(live.document(), indent=None)
    assert live.document_text() == json_text(live.document(), indent=None)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), plies=st.integers(1, 200))
def test_material_from_the_fen_is_the_boards(seed: int, plies: int) -> None:
    board, records = _random_game(seed, plies)
    before = chess.Board(records[-2].fen_after) if len(records) > 1 else chess.Board()
    entry = live_move_json(before, records[-1])
    assert entry["material"] == material_counts(board)


def test_material_counts_promoted_pieces() -> None:
    board = chess.Board("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    move = chess.Move.from_uci("b7b8q")
    board_before = board.copy()
    board.push(move)
    record = MoveRecord(1, Color.WHITE, "b7b8q", "b8=Q+", board.fen())
    assert live_move_json(board_before, record)["material"] == {
        "p": 0, "n": 0, "b": 0, "r": 0, "q": 1,
    }  # fmt: skip


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 40))
def test_the_final_document_reuses_the_live_one_and_equals_one_made_afresh(
    seed: int, plies: int
) -> None:
    _, records = _random_game(seed, plies)
    record = GameRecord(
        game_id=GameId(1, 1), event="e", site="s", white="A", black="B",
        result=Result.DRAW, termination=Termination.ADJUDICATION, termination_detail="x",
        start_time="2026-11-23T00:00:00.000Z", end_time="2026-11-23T00:00:01.000Z",
        duration_ms=1000, time_control="60+1", opening=Opening(name=None, fen=None),
        moves=tuple(records),
    )  # fmt: skip
    pgn = game_pgn(record)
    live = LiveGame({"White": "A", "Black": "B"}, record.opening)
    for move in records:
        live.add(move)
    reused = LiveGame.finished(record, pgn, known=live)
    afresh = LiveGame.finished(record, pgn)
    assert reused.document() == afresh.document()
    # Every ply was taken from the live game, none made again.
    assert len(reused.moves) == len(live.moves)
    assert all(a is b for a, b in zip(reused.moves, live.moves, strict=True))
    assert reused.document_text() == afresh.document_text()

