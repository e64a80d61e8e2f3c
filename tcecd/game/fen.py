"""A position's FEN, as python-chess writes it, in a third of the time.

Every ply tcecd records the FEN after the move (``MoveRecord.fen_after``), and the
live game file (``live.json``) carries the FEN after every move of each PV: several
FENs per engine move. python-chess's ``Board.fen()`` asks each of the 64 squares for
its piece (``piece_at`` builds a ``Piece`` per occupied square), about 45 µs a
position, a measurable share of tcecd's CPU per move (``bench/match.py``). Here the
piece placement is read from the twelve piece bitboards (one pass over the occupied
squares) and the runs of empty squares are folded with string replaces, about 9 µs;
the side to move, castling, en passant and the counters are python-chess's own values,
written with python-chess's conventions (castling as X-FEN, an en passant square only
when a legal capture exists). ``tests/game/test_fen.py`` checks that the text is
python-chess's ``Board.fen()`` over random games, promotions, castling and en passant
included.
"""

from __future__ import annotations

import chess

#: Runs of empty squares (written ``1`` per square first), longest first.
_RUNS = tuple(("1" * n, str(n)) for n in range(8, 1, -1))
#: (castling right's rook square, X-FEN letter), in FEN order.
_CASTLING = ((chess.BB_H1, "K"), (chess.BB_A1, "Q"), (chess.BB_H8, "k"), (chess.BB_A8, "q"))


def board_fen(board: chess.BaseBoard) -> str:
    """The piece placement field, as ``board.board_fen()`` (no promoted marks)."""
    cells = ["1"] * 64
    white = board.occupied_co[chess.WHITE]
    for mask, upper, lower in (
        (board.pawns, "P", "p"),
        (board.knights, "N", "n"),
        (board.bishops, "B", "b"),
        (board.rooks, "R", "r"),
        (board.queens, "Q", "q"),
        (board.kings, "K", "k"),
    ):
        while mask:
            bit = mask & -mask
            # FEN lists rank 8 first: square ``s`` (rank * 8 + file) is cell ``s ^ 56``.
            cells[(bit.bit_length() - 1) ^ 56] = upper if bit & white else lower
            mask ^= bit
    flat = "".join(cells)
    text = "/".join([flat[i : i + 8] for i in range(0, 64, 8)])
    for run, digit in _RUNS:
        if run in text:
            text = text.replace(run, digit)
    return text


def _castling(board: chess.Board) -> str:
    """The castling field as python-chess's ``castling_xfen()``."""
    if board.chess960:
        return board.castling_xfen()
    rights = board.clean_castling_rights()
    # In standard chess clean rights are rook squares a1/h1/a8/h8 with the king on
    # its own square, which X-FEN writes as plain KQkq.
    text = "".join(letter for square, letter in _CASTLING if rights & square)
    return text or "-"


def fen(board: chess.Board) -> str:
    """``board.fen()`` (python-chess's defaults: X-FEN castling, the en passant
    square only when a legal en passant capture exists). A variant board (a
    subclass of python-chess's, with fields of its own) gets python-chess's text."""
    if type(board) is not chess.Board:
        return board.fen()
    ep = board.ep_square
    ep_text = chess.SQUARE_NAMES[ep] if ep is not None and board.has_legal_en_passant() else "-"
    turn = "w" if board.turn else "b"
    return (
        f"{board_fen(board)} {turn} {_castling(board)} {ep_text} "
        f"{board.halfmove_clock} {board.fullmove_number}"
    )
