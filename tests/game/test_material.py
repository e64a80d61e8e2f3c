"""Material balance as TCEC writes it (mb=+P+N+B+R+Q, White minus Black)."""

from __future__ import annotations

import chess

from tcecd.game.material import material_balance, material_counts


def test_start_position_is_balanced() -> None:
    assert material_balance(chess.Board()) == "+0+0+0+0+0"
    assert material_counts(chess.Board()) == {"p": 0, "n": 0, "b": 0, "r": 0, "q": 0}


def test_black_a_pawn_up() -> None:
    # The white d-pawn is gone: as in the sample's "mb=-1+0+0+0+0".
    board = chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1")
    assert material_balance(board) == "-1+0+0+0+0"
    assert material_counts(board)["p"] == -1


def test_mixed_imbalance() -> None:
    # White: 6 pawns, 2 knights, 2 bishops, 1 rook, 1 queen.
    # Black: 8 pawns, 1 knight, 2 bishops, 2 rooks, no queen.
    board = chess.Board("r1b1kb1r/pppppppp/5n2/8/8/8/PPPPPP2/RNBQKBN1 w Qkq - 0 1")
    assert material_counts(board) == {"p": -2, "n": 1, "b": 0, "r": -1, "q": 1}
    assert material_balance(board) == "-2+1+0-1+1"
