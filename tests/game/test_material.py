"""Material balance as TCEC writes it (mb=+P+N+B+R+Q, White minus Black)."""

from __future__ import annotations

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.game.material import fen_material_counts, material_balance, material_counts


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


def fen_letter_counts(board: chess.Board) -> dict[str, int]:
    """The balance counted from the FEN's piece letters (upper case White)."""
    placement = board.board_fen()
    return {p: placement.count(p.upper()) - placement.count(p) for p in "pnbrq"}


@st.composite
def boards(draw: st.DrawFn) -> chess.Board:
    """Positions of games (random legal moves from the start, promotions and
    captures included) and arbitrary placements (extra queens, no pawns...)."""
    if draw(st.booleans()):
        board = chess.Board()
        for _ in range(draw(st.integers(0, 200))):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(draw(st.sampled_from(moves)))
        return board
    board = chess.Board(None)
    squares = draw(st.lists(st.sampled_from(chess.SQUARES), unique=True, max_size=40))
    for square in squares:
        piece_type = draw(st.sampled_from(chess.PIECE_TYPES))
        board.set_piece_at(square, chess.Piece(piece_type, draw(st.booleans())))
    return board


@given(boards())
@settings(max_examples=300, deadline=None)
def test_balance_matches_the_piece_letters_of_the_fen(board: chess.Board) -> None:
    expected = fen_letter_counts(board)
    assert material_counts(board) == expected
    assert fen_material_counts(board.fen()) == expected
    assert material_balance(board) == "".join(f"{expected[p]:+d}" for p in "pnbrq")
