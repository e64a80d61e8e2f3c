"""Parsing TCEC move comments and rebuilding move/game records from PGN."""

from __future__ import annotations

import io

import chess.pgn
import pytest

from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.record import Score
from tcecd.replay.moves import (
    MoveComment,
    game_record,
    move_records,
    parse_engine_options,
    parse_move_comment,
    parse_score,
    parse_time_control_ms,
)
from tests.fixtures.replay_pgn import SimGame, sample_moves, tcecd_pgn

# The example of tcec-formats.md, field by field.
SPEC_EXAMPLE = (
    "d=32, sd=51, mt=62093, tl=3391049, s=77158000, n=4790982640, pv=Nf3 d5 Bg2, "
    "tb=null, h=84.3, ph=0.0, wv=0.27, R50=48, Rd=-11, Rr=-1000, mb=+0+0+0+0+0,"
)


def test_spec_example_comment() -> None:
    c = parse_move_comment(SPEC_EXAMPLE)
    assert c == MoveComment(
        book=False,
        depth=32,
        seldepth=51,
        pondered_san=None,
        move_time_ms=62093,
        clock_left_ms=3391049,
        nps=77158000,
        nodes=4790982640,
        pv_san=("Nf3", "d5", "Bg2"),
        tbhits=None,  # tb=null
        hashfull=843,  # 84.3 % = 843 permille
        score=Score(cp=27),
        r50=48,
        rd=-11,
        rr=-1000,
    )


def test_cutechess_comment_with_ponder_and_result_text() -> None:
    # The last move of a game in the TCEC sample: the result text rides along.
    c = parse_move_comment(
        "d=4, sd=4, pd=Qh4, mt=0, tl=-16, s=513000, n=1026, pv=Rd7 Bxh7, tb=0, h=0.0, "
        "ph=15.7, wv=7.78, R50=48, Rd=-13, Rr=0, mb=+1+1+1+0+0, "
        "White wins by adjudication: TCEC resign rule"
    )
    assert c.pondered_san == "Qh4"
    assert c.move_time_ms == 0
    assert c.clock_left_ms == -16
    assert c.tbhits == 0
    assert c.hashfull == 0
    assert c.score == Score(cp=778)
    assert (c.r50, c.rd, c.rr) == (48, -13, 0)


def test_book_comment() -> None:
    c = parse_move_comment("book, mb=+0+0+0+0+0,")
    assert c.book is True
    assert c.depth is None
    assert c.move_time_ms is None
    assert c.score is None


def test_clock_and_eval_commands_are_ignored() -> None:
    c = parse_move_comment("d=5, mt=100, wv=-1.50, [%eval -1.5] [%clk 0:00:59]")
    assert c.depth == 5
    assert c.move_time_ms == 100
    assert c.score == Score(cp=-150)


@pytest.mark.parametrize(
    ("text", "score"),
    [
        ("0.27", Score(cp=27)),
        ("-0.05", Score(cp=-5)),
        ("M7", Score(mate=7)),
        ("-M3", Score(mate=-3)),
        ("#4", Score(mate=4)),
        ("-#2", Score(mate=-2)),
    ],
)
def test_scores(text: str, score: Score) -> None:
    assert parse_score(text) == score


def test_empty_and_free_text_comments() -> None:
    assert parse_move_comment("") == MoveComment()
    assert parse_move_comment("a nice move") == MoveComment()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("d=deep,", "invalid d: 'deep'"),
        ("mt=1.5,", "invalid mt: '1.5'"),
        ("wv=big,", "invalid evaluation: 'big'"),
        ("h=full,", "invalid h: 'full'"),
    ],
)
def test_malformed_fields_name_the_key(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_move_comment(text)


def test_engine_options_comment() -> None:
    white, black = parse_engine_options(
        "WhiteEngineOptions: Protocol=uci; Skill Level=19; Threads=1; Hash=16;, "
        "BlackEngineOptions: Protocol=uci; Skill Level=8; Threads=1; Hash=16;"
    )
    assert white == (("Protocol", "uci"), ("Skill Level", "19"), ("Threads", "1"), ("Hash", "16"))
    assert black == (("Protocol", "uci"), ("Skill Level", "8"), ("Threads", "1"), ("Hash", "16"))


def test_time_control_start_clock() -> None:
    assert parse_time_control_ms("40/7200:3600+30") == 7_200_000
    assert parse_time_control_ms("60+1") == 60_000
    assert parse_time_control_ms("inf") is None
    assert parse_time_control_ms("?") is None


def test_tcecd_pgn_round_trips_move_records() -> None:
    """What tcecd's PGN writer writes, replay reads back as the same records."""
    text = tcecd_pgn([SimGame(GameId(2, 3), "A", "B", Result.BLACK_WINS)])
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    assert not game.errors
    assert move_records(game) == sample_moves()
    record = game_record(game, GameId(2, 3))
    assert record.game_id == GameId(2, 3)
    assert (record.white, record.black, record.result) == ("A", "B", Result.BLACK_WINS)
    assert record.termination is Termination.ADJUDICATION
    assert record.termination_detail == "TCEC win rule"
    assert record.start_time == "2026-11-22T03:59:43.149Z"
    assert record.duration_ms == 2000
    assert record.opening.moves == ("e2e4",)
    assert record.opening.eco == "C20"
    assert record.white_options == (("Threads", "1"),)
    assert record.black_options == (("Hash", "16"),)


def test_cutechess_game_from_a_position(tmp_path: object) -> None:
    """The first game of the TCEC sample starts from a FEN with Black to move."""
    text = (
        '[Round "1.1"]\n[White "W"]\n[Black "B"]\n[Result "*"]\n'
        '[FEN "rnbqkbnr/pppppp1p/6p1/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 1"]\n[SetUp "1"]\n\n'
        "1... d6 {d=6, sd=6, mt=4, tl=-4, s=500200, n=2501, pv=d6 Nc3, tb=0, h=0.0, ph=0.0, "
        "wv=1.21, R50=50, Rd=-13, Rr=3, mb=+0+0+0+0+0,}\n"
        "2. Nf3 {d=6, sd=6, mt=2, tl=-2, s=500000, n=1500, pv=h4 c6, tb=0, h=0.0, ph=0.0, "
        "wv=0.77, R50=49, Rd=-13, Rr=3, mb=+0+0+0+0+0,}\n"
        "Nc6 {d=6, sd=6, pd=Nc3, mt=4, tl=-8, s=500200, n=2501, pv=Bg4 Nc3, tb=0, h=0.0, "
        "ph=0.0, wv=0.43, R50=49, Rd=-13, Rr=3, mb=+0+0+0+0+0,} *\n"
    )
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    moves = move_records(game)
    assert [(m.ply, m.color, m.san) for m in moves] == [
        (1, Color.BLACK, "d6"),
        (2, Color.WHITE, "Nf3"),
        (3, Color.BLACK, "Nc6"),
    ]
    # Black's 1...d6 expected Nc3 in reply: its next move's pd says so.
    assert moves[0].ponder_san == "Nc3"
    # White moved only once here: its expectation is its PV's second move.
    assert moves[1].ponder_san == "c6"
    assert moves[0].score == Score(cp=121)
    assert moves[2].fen_after.startswith("r1bqkbnr/ppp1pp1p/2np2p1/8/3PP3/5N2/")
