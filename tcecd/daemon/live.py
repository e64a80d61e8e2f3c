"""The live game (TCEC viewer formats) for the game being played.

One :class:`LiveGame` per running game accumulates the TCEC move entries, so
that rewriting ``live.json`` and ``live.pgn`` after a move costs a join and a
rename each, not a replay of the game: each move entry is serialised once
(:meth:`LiveGame.document_text` keeps the texts), not the whole document again
after every move, which grew with the game. The daemon writes that JSON
document to both files, as TCEC's site does: its viewer places the board from
the moves' FENs, which PGN text lacks (a game whose first move is Black's
stayed at its start position). The game's PGN text is ``event.pgn``'s.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import chess
import chess.pgn

from tcecd.game.record import GameRecord, MoveRecord, Opening
from tcecd.outputs.tcec_json import live_game_json, live_move_json


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
        self.records: list[MoveRecord] = []  # the plies of self.moves, as given to add()
        self._move_texts: list[str] = []  # json.dumps of self.moves[i], made when first needed
        self._last_fen: str | None = None

    def add(self, move: MoveRecord) -> None:
        """Append one ply (book or engine). The runner may or may not stream
        book moves: the ply number says how many plies from the opening's start
        precede the first one added."""
        if self._last_fen is None:
            before = self.opening.start_board(move.ply - 1)
        else:
            before = chess.Board(self._last_fen, chess960=self.opening.chess960)
        self.moves.append(live_move_json(before, move))
        self.records.append(move)
        self._last_fen = move.fen_after

    def document(self) -> dict[str, Any]:
        return live_game_json(self.headers, self.white_options, self.black_options, self.moves)

    def document_text(self) -> str:
        """``live.json``: :meth:`document` as ``json_text(..., indent=None)``
        writes it, with each move entry serialised only once."""
        texts = self._move_texts  # self.moves only grows: its texts stay valid
        texts.extend(
            json.dumps(entry, ensure_ascii=False) for entry in self.moves[len(texts):]
        )
        head = json.dumps(
            live_game_json(self.headers, self.white_options, self.black_options, ()),
            ensure_ascii=False,
        )
        # head ends with '"Moves": []}': the entries go between the brackets.
        return f"{head[:-2]}{', '.join(texts)}]}}\n"

    @classmethod
    def finished(cls, record: GameRecord, pgn: str, *, known: LiveGame | None = None,
                 known_moves: Sequence[MoveRecord] | None = None) -> LiveGame:
        """The final document of a finished game: headers as in its PGN.

        ``known``: the same game's live document, built from ``known_moves``
        (by default the plies it was given: the daemon's own live game; ``tcecd
        web`` builds it from the stream); the plies the record has identically
        are taken from it instead of made again (board work per ply, the PV's
        positions)."""
        parsed = chess.pgn.read_headers(io.StringIO(pgn))
        headers = dict(parsed) if parsed is not None else {}
        live = cls(headers, record.opening, record.white_options, record.black_options)
        moves = list(record.moves)
        same = 0
        if known is not None and known_moves is None:
            known_moves = known.records
        if known is not None and known_moves is not None and len(known.moves) == len(known_moves):
            while (same < min(len(moves), len(known_moves))
                   and moves[same] == known_moves[same]):
                same += 1
        if same:
            # Only the JSON plies are reused: the final PGN is the record's own.
            live.moves = known.moves[:same]  # type: ignore[union-attr]
            live.records = list(moves[:same])
            live._move_texts = known._move_texts[:same]  # type: ignore[union-attr]
            live._last_fen = moves[same - 1].fen_after
        for move in moves[same:]:
            live.add(move)
        return live

