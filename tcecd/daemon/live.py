"""The live game JSON (TCEC viewer format) for the game being played.

One :class:`LiveGame` per running game accumulates the TCEC move entries, so
that rewriting ``live.json`` after a move costs one ``json.dumps`` and one
rename, not a replay of the game.
"""

from __future__ import annotations

import io
from typing import Any

import chess
import chess.pgn

from tcecd.game.record import GameRecord, MoveRecord, Opening
from tcecd.outputs.tcec_json import live_game_json, live_move_json


def start_board(opening: Opening, book_plies: int = 0) -> chess.Board:
    """The opening's start position, with its first ``book_plies`` book moves played."""
    board = chess.Board(opening.fen) if opening.fen else chess.Board()
    for uci in opening.moves[:book_plies]:
        board.push_uci(uci)
    return board


class LiveGame:
    """Headers, engine options and moves of one game, in TCEC live JSON form."""

    def __init__(
        self,
        headers: dict[str, str],
        opening: Opening,
        white_options: tuple[tuple[str, str], ...] = (),
        black_options: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.headers = headers
        self.opening = opening
        self.white_options = white_options
        self.black_options = black_options
        self.moves: list[dict[str, Any]] = []
        self._last_fen: str | None = None

    def add(self, move: MoveRecord) -> None:
        """Append one ply (book or engine)."""
        if self._last_fen is None:
            # The runner may or may not stream book moves: the ply number says
            # how many plies from the opening's start precede this one.
            before = start_board(self.opening, move.ply - 1)
        else:
            before = chess.Board(self._last_fen)
        self.moves.append(live_move_json(before, move))
        self._last_fen = move.fen_after

    def document(self) -> dict[str, Any]:
        return live_game_json(self.headers, self.white_options, self.black_options, self.moves)

    @classmethod
    def finished(cls, record: GameRecord, pgn: str) -> LiveGame:
        """The final document of a finished game: headers as in its PGN."""
        parsed = chess.pgn.read_headers(io.StringIO(pgn))
        headers = dict(parsed) if parsed is not None else {}
        live = cls(headers, record.opening, record.white_options, record.black_options)
        for move in record.moves:
            live.add(move)
        return live
