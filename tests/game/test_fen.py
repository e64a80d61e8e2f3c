"""tcecd's FEN writer gives python-chess's ``Board.fen()`` text, position by position."""

from __future__ import annotations

import random

import chess
import chess.variant
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.game.fen import board_fen, fen


def _random_game(seed: int, chess960: bool, plies: int) -> list[chess.Board]:
    """Every position of a random game (random legal moves; a Chess960 start when
    asked), each a copy, with the moves that lead to it."""
    rng = random.Random(seed)
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    seen = [board.copy()]
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        # Prefer pawn moves, captures and castling now and then: they change the
        # fields (en passant, counters, castling rights) that a FEN has to get right.
        special = [m for m in moves if board.is_castling(m) or board.is_en_passant(m)]
        board.push(rng.choice(special if special and rng.random() < 0.5 else moves))
        seen.append(board.copy())
    return seen


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chess960=st.booleans(), plies=st.integers(0, 250))
def test_every_position_of_a_random_game(seed: int, chess960: bool, plies: int) -> None:
    for board in _random_game(seed, chess960, plies):
        assert fen(board) == board.fen()
        assert board_fen(board) == board.board_fen()


def test_en_passant_only_when_a_capture_is_legal() -> None:
    # After e2e4 no black pawn can take en passant: python-chess writes "-".
    board = chess.Board()
    board.push_san("e4")
    assert fen(board) == board.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    # A black pawn on d4 can take on e3: the square is written.
    board = chess.Board("rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 3")
    board.push_san("e4")
    assert fen(board) == board.fen()
    assert fen(board).split()[3] == "e3"


def test_castling_rights_that_the_position_contradicts_are_dropped() -> None:
    # The FEN claims all four rights, but the white king and the black h-rook have
    # left their squares: python-chess writes only what can still be used.
    board = chess.Board("rnbqkbn1/pppppppr/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1")
    board.push_san("Nf3")  # any move: the text comes from the cleaned rights
    assert fen(board) == board.fen()
    assert fen(board).split()[2] == "q"


def test_promotions_and_empty_runs() -> None:
    board = chess.Board("8/1P6/8/8/8/8/6k1/K7 w - - 0 60")
    board.push_san("b8=N")
    assert fen(board) == board.fen() == "1N6/8/8/8/8/8/6k1/K7 b - - 0 60"


def test_a_variant_board_gets_python_chess_own_text() -> None:
    board = chess.variant.CrazyhouseBoard()
    board.push_san("e4")
    assert fen(board) == board.fen()
