"""Properties of the PGN writer over random games: python-chess reads back the
same game, and pgn-extract accepts a file of many of them."""

from __future__ import annotations

import io
import random
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.material import material_balance
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.pgn.writer import game_pgn
from tests.pgn.helpers import pgn_extract_accepts

STARTS = [
    None,
    "rnbqkbnr/pppppp1p/6p1/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "8/5k2/8/3K4/8/8/4P3/8 w - - 0 60",
]


def random_record(rng: random.Random) -> GameRecord:
    """A random legal game with random (sometimes missing) engine data."""
    fen = rng.choice(STARTS)
    board = chess.Board(fen) if fen else chess.Board()
    book = rng.randint(0, 4)
    moves: list[MoveRecord] = []
    for index in range(rng.randint(0, 70)):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        color = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
        san = board.san(move)
        board.push(move)

        def maybe(value: int) -> int | None:
            return value if rng.random() < 0.8 else None

        score = rng.choice(
            [None, Score(cp=rng.randint(-3000, 3000)), Score(mate=rng.choice([-9, -1, 1, 12]))]
        )
        moves.append(
            MoveRecord(
                ply=index + 1,
                color=color,
                uci=move.uci(),
                san=san,
                fen_after=board.fen(),
                book=index < book,
                move_time_ms=maybe(rng.randint(0, 100_000)),
                clock_left_ms=maybe(rng.randint(0, 30_000_000)),
                depth=maybe(rng.randint(1, 60)),
                seldepth=maybe(rng.randint(1, 90)),
                nodes=maybe(rng.randint(0, 10**12)),
                nps=maybe(rng.randint(0, 10**8)),
                score=score,
                pv_san=(san,),
                ponder_san=rng.choice([None, "e4", "Nf3"]),
                tbhits=maybe(rng.randint(0, 10**6)),
                hashfull=maybe(rng.randint(0, 1000)),
                r50=(100 - board.halfmove_clock) // 2,
                rd=rng.randint(-11, 10),
                rr=rng.choice([-1000, -7, 3]),
            )
        )
    result = rng.choice(list(Result))
    return GameRecord(
        game_id=GameId(rng.randint(1, 30), rng.randint(1, 20)),
        event="Random",
        site="?",
        white="A",
        black="B",
        result=result,
        termination=rng.choice(list(Termination)),
        termination_detail=rng.choice(["", "White mates", "TCEC draw rule", "x, y: z"]),
        start_time="2026-11-22T03:59:43.149Z",
        end_time="2026-11-22T04:59:43.149Z",
        duration_ms=rng.randint(0, 10**8),
        time_control=rng.choice(["40/7200", "60+0.6", "-"]),
        opening=Opening(name=None, fen=fen, moves=tuple(m.uci for m in moves[:book])),
        moves=tuple(moves),
        white_options=(("Hash", str(rng.randint(1, 64))),),
    )


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_python_chess_reads_back_the_same_game(seed: int) -> None:
    record = random_record(random.Random(seed))
    game = chess.pgn.read_game(io.StringIO(game_pgn(record)))
    assert game is not None
    assert game.errors == []
    assert game.headers["Result"] == record.result.value
    assert game.headers["PlyCount"] == str(len(record.moves))
    assert game.headers["Round"] == str(record.game_id)
    start = record.opening.fen or chess.STARTING_FEN
    assert game.board().fen() == start
    nodes = list(game.mainline())
    assert [n.move.uci() for n in nodes] == [m.uci for m in record.moves]
    for node, move in zip(nodes, record.moves, strict=True):
        fields = dict(
            item.split("=", 1)
            for item in node.comment.split(", ")
            if "=" in item and "[" not in item
        )
        assert fields["mb"].rstrip(",").split(" ")[0] == material_balance(node.board())
        if move.book:
            assert node.comment.startswith("book, mb=")
            assert node.eval() is None
            continue
        for key, value in (("d", move.depth), ("n", move.nodes), ("tl", move.clock_left_ms)):
            assert fields.get(key) == (None if value is None else str(value))
        if move.clock_left_ms is None:
            assert node.clock() is None
        else:
            # [%clk] keeps the clock floored to the tenth of a second.
            assert node.clock() == pytest.approx(max(0, move.clock_left_ms) // 100 / 10)
        if move.score is None:
            assert node.eval() is None
        elif move.score.mate is not None:
            assert node.eval() == chess.engine.PovScore(
                chess.engine.Mate(move.score.mate), chess.WHITE
            )
        else:
            assert move.score.cp is not None
            assert node.eval() == chess.engine.PovScore(chess.engine.Cp(move.score.cp), chess.WHITE)


def test_pgn_extract_accepts_many_random_games(tmp_path: Path) -> None:
    rng = random.Random(20261122)
    count = 60
    text = "".join(game_pgn(random_record(rng)) for _ in range(count))
    pgn_extract_accepts(tmp_path, text, games=count)
