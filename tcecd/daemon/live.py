"""The live game (TCEC viewer formats) for the game being played.

One :class:`LiveGame` per running game accumulates the TCEC move entries and
the PGN movetext, so that rewriting ``live.json`` and ``live.pgn`` after a move
costs two joins and two renames, not a replay of the game: each move entry is
serialised once (:meth:`LiveGame.document_text` keeps the texts), not the whole
document again after every move, which grew with the game.
Once the game is over, ``live.pgn`` is its final PGN (TCEC's viewer shows the
last game until the next one starts).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import chess
import chess.pgn

from tcecd.domain import Color
from tcecd.game.fen import fen
from tcecd.game.record import GameRecord, MoveRecord, Opening
from tcecd.outputs.tcec_json import live_game_json, live_move_json
from tcecd.pgn.writer import LivePgn, position_tags


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
        self._pgn = LivePgn(headers, white_options, black_options, opening)
        self._final_pgn: str | None = None

    def add(self, move: MoveRecord) -> None:
        """Append one ply (book or engine)."""
        if self._last_fen is None:
            # The runner may or may not stream book moves: the ply number says
            # how many plies from the opening's start precede this one. The PGN
            # needs them all, so the missing book plies are written as such.
            for book in _book_plies(self.opening, move.ply - 1):
                self._pgn.add(book)
        self._add_json(move)
        self._pgn.add(move)

    def _add_json(self, move: MoveRecord) -> None:
        """Append one ply to the JSON moves only (a finished game has its PGN)."""
        if self._last_fen is None:
            before = self.opening.start_board(move.ply - 1)
        else:
            before = chess.Board(self._last_fen, chess960=self.opening.chess960)
        self.moves.append(live_move_json(before, move))
        self.records.append(move)
        self._last_fen = move.fen_after

    def pgn(self) -> str:
        """``live.pgn``: the game so far (``*``), or its final PGN once it ended."""
        return self._final_pgn if self._final_pgn is not None else self._pgn.text()

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
            live._add_json(move)  # the PGN is the record's: no live PGN to build
        live._final_pgn = pgn
        return live


def _book_plies(opening: Opening, plies: int) -> list[MoveRecord]:
    """The opening's first ``plies`` book moves as records (for the live PGN)."""
    board = opening.start_board()
    out: list[MoveRecord] = []
    for ply, uci in enumerate(opening.moves[:plies], start=1):
        move = chess.Move.from_uci(uci)
        color = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
        san = board.san(move)
        board.push(move)
        out.append(MoveRecord(ply, color, uci, san, fen(board), book=True))
    return out


def live_headers(
    *,
    event: str,
    site: str,
    game_id: object,
    white: str,
    black: str,
    time_control: str,
    opening: Opening,
    start: str,
) -> dict[str, str]:
    """The PGN tags of a game in progress (``live.pgn``/``live.json``)."""
    h = {
        "Event": event,
        "Site": site,
        "Date": start[:10].replace("-", "."),
        "Round": str(game_id),
        "White": white,
        "Black": black,
        "Result": "*",
        "TimeControl": time_control,
        "GameStartTime": start,
    }
    h.update(position_tags(opening))
    if opening.name:
        h["Opening"] = opening.name
    if opening.eco:
        h["ECO"] = opening.eco
    return h
