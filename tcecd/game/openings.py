"""Openings: load EPD or PGN files or a Polyglot book and pick the opening for a game.

:func:`load_openings` is the (small) I/O part: it reads and validates every
line or game up front, so a bad file fails when the event starts, naming the
file and the line or game, never quoting its text: a config is hostile input
(issue 28), and ``openings.file: /etc/shadow`` must not print the file's lines.
:func:`select_opening` is pure and deterministic, so a resumed event picks
exactly the same openings again; the runner passes the same index for both
games of a double-round pair so they share an opening.

A Polyglot book (``tcecd.game.polyglot``) either is the openings file itself
(``fmt="polyglot"``: every game starts from the standard position and follows
the book for ``plies`` plies) or extends the EPD/PGN openings
(``book=``): the book line is appended to the chosen opening's moves. Either
way :func:`select_opening` returns an :class:`Opening` whose ``moves`` hold the
whole line, so the game records it and both games of a pair share it.
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Literal

import chess
import chess.pgn

from tcecd.errors import OpeningsError
from tcecd.game.chess960 import position_name
from tcecd.game.polyglot import PolyglotBook, book_line, is_finished, read_book
from tcecd.game.record import Opening

#: EPD opcodes that can name an opening, in order of preference.
_NAME_OPCODES = ("id", "c0", "opening")


class OpeningSet(tuple[Opening, ...]):
    """The openings of a file (a plain tuple of :class:`Opening`), plus the
    Polyglot book that extends each of them, if any. :func:`select_opening`
    applies the book, so code that stores and passes the loaded openings
    around needs nothing else."""

    book: PolyglotBook | None

    def __new__(cls, openings: Iterable[Opening], book: PolyglotBook | None = None) -> OpeningSet:
        self = super().__new__(cls, openings)
        self.book = book
        return self


#: File suffixes and the format they imply.
_SUFFIXES = {"epd": "epd", "pgn": "pgn", "bin": "polyglot"}


def load_openings(
    path: Path,
    *,
    fmt: Literal["epd", "pgn", "polyglot"] | None = None,
    plies: int | None = None,
    book: PolyglotBook | None = None,
    chess960: bool = False,
) -> OpeningSet:
    """Read every opening of an EPD or PGN file, or a Polyglot book.

    ``fmt`` None: from the suffix (``.epd``, ``.pgn``, ``.bin``). ``plies``
    keeps at most that many book plies of each PGN game (EPD openings have
    none); for a Polyglot file it is the book depth (cutechess's
    ``-bookdepth``), and the result is the standard start position with the
    book attached. ``book``: a Polyglot book (:func:`read_book`) that extends
    every EPD/PGN opening. ``Opening.index`` is the opening's 0-based position
    in the file. Raises :class:`OpeningsError` naming ``file:line`` (EPD) or
    ``file: game N`` (PGN) and what is wrong, without quoting the file's text.

    ``chess960``: the openings of a Chess960 event: each position is read
    with Chess960 castling rights (Shredder-FEN ``HAha`` or X-FEN ``KQkq``,
    as TCEC's FRC books and fastchess write them), PGN book moves (castling
    included) as Chess960 moves, and each opening is marked
    :attr:`~tcecd.game.record.Opening.chess960`. An EPD position with no name
    opcode that is a Chess960 start position is named after its number
    (``Chess960 #518``). A Polyglot book holds standard-chess positions only.
    """
    if plies is not None and plies < 0:
        raise OpeningsError(f"{path}: invalid opening ply limit {plies!r}")
    if fmt is None:
        suffix = path.suffix.lower().lstrip(".")
        if suffix not in _SUFFIXES:
            raise OpeningsError(
                f"{path}: cannot tell the openings format from the suffix {path.suffix!r}"
                " (use .epd, .pgn or .bin, or set the format)"
            )
        fmt = "epd" if suffix == "epd" else "pgn" if suffix == "pgn" else "polyglot"
    if chess960 and (fmt == "polyglot" or book is not None):
        raise OpeningsError(
            f"{path}: a Polyglot book holds standard-chess positions; a Chess960 event "
            "takes EPD or PGN openings"
        )
    if fmt == "polyglot":
        if book is not None:
            raise OpeningsError(f"{path}: a Polyglot openings file cannot take another book")
        polyglot = read_book(path, depth=plies)
        return OpeningSet((Opening(name=None, fen=None),), polyglot)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise OpeningsError(f"{path}: cannot read openings file ({exc.strerror})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise OpeningsError(f"{path}:{line}: not UTF-8 text") from None
    if fmt == "epd":
        openings = _parse_epd(path, text, chess960)
    else:
        openings = _parse_pgn(path, text, plies, chess960)
    if not openings:
        raise OpeningsError(f"{path}: no openings in file")
    return OpeningSet(openings, book)


def split_fen_counters(line: str) -> tuple[str, tuple[int, int] | None]:
    """Split the FEN move counters off an EPD line that carries them.

    Strict EPD has four position fields and then opcodes, but many published
    books and TCEC's own files write full FENs (``... b KQkq - 0 1``),
    optionally followed by opcodes; cutechess-cli and fastchess read both. The
    two counters are the halfmove clock and the fullmove number: returned
    separately (they are not opcodes) with the line rebuilt as strict EPD.
    """
    parts = line.split(None, 6)
    if len(parts) >= 6 and parts[4].isdigit() and parts[5].isdigit():
        rest = f" {parts[6]}" if len(parts) > 6 else ""
        return " ".join(parts[:4]) + rest, (int(parts[4]), max(1, int(parts[5])))
    return line, None


def _parse_epd(path: Path, text: str, chess960: bool) -> tuple[Opening, ...]:
    openings: list[Opening] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";", "%")):
            continue
        epd, counters = split_fen_counters(line)
        try:
            board, ops = chess.Board.from_epd(epd, chess960=chess960)
        except ValueError:
            # python-chess's message quotes the line's fields: not repeated here.
            raise OpeningsError(
                f"{path}:{lineno}: not an EPD position (expected piece placement, side to move, "
                "castling rights, en passant square, then opcodes)"
            ) from None
        if counters is not None:
            board.halfmove_clock, board.fullmove_number = counters
        if not board.is_valid():
            raise OpeningsError(f"{path}:{lineno}: illegal position ({_status(board)})")
        if is_finished(board):
            raise OpeningsError(f"{path}:{lineno}: the game is already over in this position")
        name: str | None = None
        for opcode in _NAME_OPCODES:
            value = ops.get(opcode)
            if isinstance(value, str) and value:
                name = value
                break
        if name is None and chess960:
            name = position_name(board)
        eco = ops.get("eco")
        openings.append(
            Opening(
                name=name,
                fen=board.fen(),
                moves=(),
                eco=eco if isinstance(eco, str) and eco else None,
                index=len(openings),
                chess960=chess960,
            )
        )
    return tuple(openings)


def _parse_pgn(
    path: Path, text: str, plies: int | None, chess960: bool
) -> tuple[Opening, ...]:
    openings: list[Opening] = []
    handle = io.StringIO(text)
    number = 0
    builder = _Chess960Builder if chess960 else chess.pgn.GameBuilder
    while True:
        try:
            game = chess.pgn.read_game(handle, Visitor=builder)
        except ValueError as exc:  # pragma: no cover - read_game collects errors instead
            raise OpeningsError(f"{path}: game {number + 1}: {exc}") from None
        if game is None:
            break
        number += 1
        headers = game.headers
        try:
            board = game.board()
        except ValueError:
            raise OpeningsError(f"{path}: game {number}: invalid FEN tag") from None
        if not board.is_valid():
            raise OpeningsError(
                f"{path}: game {number}: illegal start position ({_status(board)})"
            )
        if board.chess960 and not chess960:
            raise OpeningsError(
                f"{path}: game {number}: a Chess960 game (its Variant tag or castling rights) "
                "in a standard-chess event; set variant: chess960"
            )
        if game.errors:
            raise OpeningsError(f"{path}: game {number}: {_pgn_error(game)}")
        moves: list[str] = []
        for move in game.mainline_moves():
            if plies is not None and len(moves) >= plies:
                break
            moves.append(move.uci())
            board.push(move)
        if is_finished(board):
            raise OpeningsError(
                f"{path}: game {number}: the game is already over after the opening's "
                f"{len(moves)} plies"
            )
        name_parts = [headers.get(tag, "") for tag in ("Opening", "Variation")]
        name = ", ".join(part for part in name_parts if part and part != "?") or None
        eco = headers.get("ECO")
        openings.append(
            Opening(
                name=name,
                fen=game.board().fen() if "FEN" in headers else None,
                moves=tuple(moves),
                eco=eco if eco and eco != "?" else None,
                index=len(openings),
                chess960=chess960,
            )
        )
    return tuple(openings)


class _Chess960Builder(chess.pgn.GameBuilder[chess.pgn.Game]):
    """python-chess's game builder for the openings of a Chess960 event: a
    game without a ``Variant`` tag (or one naming standard chess) is read as
    Chess960, its castling rights and ``O-O`` moves by Chess960's rules
    (python-chess's reader makes the board from the tags once they are read)."""

    def end_headers(self) -> None:
        headers = self.game.headers
        variant = headers.get("Variant", "").strip().lower()
        if variant in ("", "standard", "chess", "normal"):
            headers["Variant"] = "Chess960"


def _status(board: chess.Board) -> str:
    """What makes ``board`` illegal, in python-chess's words (``TOO_MANY_KINGS``...)."""
    status = board.status()
    return ", ".join(flag.name or "" for flag in chess.Status if flag and flag in status)


def _pgn_error(game: chess.pgn.Game) -> str:
    """The first error python-chess met in ``game``, said without the game's
    text (its message quotes the move and the position): what kind, and where
    in the main line (the line stops at the error)."""
    error = game.errors[0]
    kinds: dict[type[Exception], str] = {
        chess.IllegalMoveError: "illegal move",
        chess.AmbiguousMoveError: "ambiguous move",
        chess.InvalidMoveError: "unreadable move",
    }
    kind = kinds.get(type(error), "unreadable text")
    board = game.end().board()
    side = "White" if board.turn == chess.WHITE else "Black"
    return f"{kind} ({side}'s move {board.fullmove_number})"


def select_opening(
    openings: Sequence[Opening],
    index: int,
    *,
    order: Literal["sequential", "random"],
    seed: int = 0,
) -> Opening:
    """The opening for the ``index``-th opening slot (0-based) of an event.

    ``sequential``: the file's order. ``random``: a permutation of the file
    seeded with ``seed`` (the same seed always gives the same sequence). Both
    cycle from the beginning when the openings are exhausted.

    When ``openings`` carries a Polyglot book (an :class:`OpeningSet`), the
    book line from the opening's end position is appended to its moves; the
    book's weighted choice is seeded by the book's seed (else ``seed``) and
    ``index``, so each slot gets its own line and the same slot the same one.
    """
    if not openings:
        raise OpeningsError("no openings to choose from")
    if index < 0:
        raise ValueError(f"invalid opening index: {index!r}")
    position = index % len(openings)
    if order == "sequential":
        opening = openings[position]
    elif order == "random":
        permutation = list(range(len(openings)))
        random.Random(seed).shuffle(permutation)
        opening = openings[permutation[position]]
    else:
        raise ValueError(f"invalid opening order: {order!r}")
    book = getattr(openings, "book", None)
    if not isinstance(book, PolyglotBook):
        return opening
    return extend_with_book(opening, book, seed=seed, slot=index)


def extend_with_book(opening: Opening, book: PolyglotBook, *, seed: int, slot: int) -> Opening:
    """``opening`` with the Polyglot book line from its end position appended
    to its moves (see :func:`tcecd.game.polyglot.book_line`)."""
    board = opening.start_board(len(opening.moves))
    line = book_line(book, board, seed=seed, slot=slot)
    if not line:
        return opening
    return replace(opening, moves=opening.moves + line)
