"""Material balance as TCEC writes it (``mb=+P+N+B+R+Q``) and for the live JSON."""

from __future__ import annotations

import chess

#: The piece order of TCEC's ``mb`` field and of the live JSON ``material`` keys.
_ORDER = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def material_counts(board: chess.Board) -> dict[str, int]:
    """White-minus-Black piece counts keyed ``p n b r q`` (the live JSON's
    ``material`` object): ``{"p": -1, "n": 0, ...}`` when Black is a pawn up."""
    return {
        chess.piece_symbol(piece): chess.popcount(board.pieces_mask(piece, chess.WHITE))
        - chess.popcount(board.pieces_mask(piece, chess.BLACK))
        for piece in _ORDER
    }


def material_balance(board: chess.Board) -> str:
    """The ``mb`` text: signed White-minus-Black counts of pawns, knights,
    bishops, rooks and queens, e.g. ``"-1+0+0+0+0"`` (Black a pawn up)."""
    return "".join(f"{diff:+d}" for diff in material_counts(board).values())
