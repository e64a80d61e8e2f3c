"""Does a game's movetext reach its own end? (pure: a position and tags in, a problem out)

A PGN cut short in the middle of a game still parses: python-chess stops at
the end of the file and the game keeps its tags, so a game that was cut after
13 of its 129 plies would be taken as finished (``1-0``, ``TCEC resign rule``).
A game is only taken as it stands when its movetext gets to the end the tags
describe (PGN standard 8.2.6: the movetext ends with the game termination
marker, which must equal the ``Result`` tag):

* the movetext ends with a result token, equal to the ``Result`` tag;
* ``PlyCount``, when present, is the number of plies in the movetext;
* the final position does not contradict the result or the termination:
  checkmate is a win for the mating side, stalemate a draw (FIDE Laws 5.1.1,
  5.2.1); ``"White mates"``/``"Black mates"``/``"Stalemate"`` name that
  position; a ``normal`` draw is a draw the rules give on the board
  (stalemate, insufficient material, 50 moves, threefold repetition).

Adjudications, time forfeits, resignations and forfeits cannot be checked
against the board and are taken as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import chess
import chess.pgn

_SIDE = {chess.WHITE: "White", chess.BLACK: "Black"}
_WIN = {chess.WHITE: "1-0", chess.BLACK: "0-1"}


def end_problem(
    headers: Mapping[str, str], board: chess.Board | None, plies: int, token: str | None
) -> str | None:
    """Why the game's movetext does not reach the end its tags describe, or None.

    ``board`` is the final position with the main line on its move stack (None
    when the start position could not be set up), ``plies`` the number of
    plies of the main line, ``token`` the result token that ends the movetext
    (None: the movetext just stops).
    """
    result = headers.get("Result", "*").strip()
    if token is None:
        if result == "*":
            return None  # an unfinished game claims nothing
        return f"the movetext stops after ply {plies} without a result (the game is cut short)"
    if token != result:
        return f"the movetext ends with {token!r} but the Result tag is {result!r}"
    if result == "*":
        return None
    count = headers.get("PlyCount", "").strip()
    if count.isdigit() and int(count) != plies:
        return f"PlyCount is {count} but the movetext has {plies} plies"
    if board is None:
        return None
    if board.is_checkmate():
        winner = not board.turn
        if result != _WIN[winner]:
            return f"the final position is checkmate by {_SIDE[winner]} but the result is {result}"
    elif board.is_stalemate() and result != "1/2-1/2":
        return f"the final position is stalemate but the result is {result}"
    detail = headers.get("TerminationDetails", "").strip()
    for color in (chess.WHITE, chess.BLACK):
        if detail == f"{_SIDE[color]} mates" and not (
            board.is_checkmate() and board.turn != color
        ):
            return f"TerminationDetails is {detail!r} but the final position is not that mate"
    if detail == "Stalemate" and not board.is_stalemate():
        return "TerminationDetails is 'Stalemate' but the final position is not stalemate"
    termination = headers.get("Termination", "").strip().lower()
    if termination == "normal" and result == "1/2-1/2" and not _drawn_on_board(board):
        return (
            "a 'normal' draw, but the final position is not stalemate, insufficient "
            "material, 50 moves or a threefold repetition"
        )
    return None


def _drawn_on_board(board: chess.Board) -> bool:
    return (
        board.is_stalemate()
        or board.is_insufficient_material()
        or board.halfmove_clock >= 100
        or board.is_repetition(3)
    )


@dataclass(frozen=True, slots=True)
class CheckedGame:
    """One game as :class:`MovetextChecker` saw it: its tags and the first problem."""

    headers: chess.pgn.Headers
    plies: int
    problem: str | None  # already worded: "ply 14: illegal san: ..." or an end problem


class MovetextChecker(chess.pgn.BaseVisitor[CheckedGame]):
    """A python-chess visitor that plays the main line on a board (no game
    tree: memory is one position) and reports the first problem: an invalid
    FEN, an illegal or unreadable move (with its ply), or an end the movetext
    does not reach (:func:`end_problem`). Variations are skipped."""

    def begin_game(self) -> None:
        self.headers = chess.pgn.Headers({})
        self.board: chess.Board | None = None
        self.plies = 0
        self.token: str | None = None
        self.error: str | None = None

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def visit_board(self, board: chess.Board) -> None:
        self.board = board  # the main line's board (variations are skipped)

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        self.plies += 1

    def visit_result(self, result: str) -> None:
        self.token = result

    def handle_error(self, error: Exception) -> None:
        if self.error is None:
            where = "start position" if self.board is None else f"ply {self.plies + 1}"
            self.error = f"{where}: {error}"

    def result(self) -> CheckedGame:
        problem = self.error
        if problem is None:
            problem = end_problem(self.headers, self.board, self.plies, self.token)
        return CheckedGame(self.headers, self.plies, problem)
