"""Material balance as TCEC writes it (``mb=+P+N+B+R+Q``) and for the live JSON."""

from __future__ import annotations

import chess


def _differences(board: chess.Board) -> tuple[int, int, int, int, int]:
    """White-minus-Black counts of pawns, knights, bishops, rooks and queens,
    read straight from the board's bitboards (the PGN writer asks once per ply)."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    pawns, knights, bishops = board.pawns, board.knights, board.bishops
    rooks, queens = board.rooks, board.queens
    return (
        (pawns & white).bit_count() - (pawns & black).bit_count(),
        (knights & white).bit_count() - (knights & black).bit_count(),
        (bishops & white).bit_count() - (bishops & black).bit_count(),
        (rooks & white).bit_count() - (rooks & black).bit_count(),
        (queens & white).bit_count() - (queens & black).bit_count(),
    )


def material_counts(board: chess.Board) -> dict[str, int]:
    """White-minus-Black piece counts keyed ``p n b r q`` (the live JSON's
    ``material`` object): ``{"p": -1, "n": 0, ...}`` when Black is a pawn up."""
    return dict(zip("pnbrq", _differences(board), strict=True))


def material_balance(board: chess.Board) -> str:
    """The ``mb`` text: signed White-minus-Black counts of pawns, knights,
    bishops, rooks and queens, e.g. ``"-1+0+0+0+0"`` (Black a pawn up)."""
    p, n, b, r, q = _differences(board)
    return f"{p:+d}{n:+d}{b:+d}{r:+d}{q:+d}"


def fen_material_counts(fen: str) -> dict[str, int]:
    """:func:`material_counts` of a FEN's position, counted from the letters of
    its piece placement (the live JSON has the FEN of each move at hand, and
    counting letters is far cheaper than setting up a board)."""
    placement = fen.split(" ", 1)[0]
    return {p: placement.count(p.upper()) - placement.count(p) for p in "pnbrq"}
