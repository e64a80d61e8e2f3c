"""Streaming PGN reading: one game at a time, never the whole file.

A TCEC event PGN can hold tens of thousands of games. The functions here read
it game by game with python-chess: :func:`iter_headers` skips the movetext
entirely, :func:`iter_checked_headers` plays each game's main line on a board
without building it (what verification and standings need: the tags of games
whose movetext is sound), :func:`iter_games` builds one game at a time (what
re-streaming and ``schedule.json`` need). Either way the memory used is that
of one game, whatever the file size.

The last two refuse a game whose movetext is unsound: an invalid FEN, an
illegal move, or an end the movetext does not reach (cut short, a result or
``PlyCount`` the moves do not support: :mod:`tcecd.pgn.check`).

Every problem is a :class:`~tcecd.errors.PgnError` whose message names the
file and the 1-based game number (and the ply where there is one), e.g.
``EVENT.pgn: game 17: ply 40: illegal san: ...``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, TypeVar

import chess.pgn

from tcecd.errors import PgnError
from tcecd.pgn.check import CheckedGame, MovetextChecker, end_problem

#: Called with (bytes read so far, total bytes) after each game.
ProgressCallback = Callable[[int, int], None]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HeaderEntry:
    """The tags of one game and its 1-based position in the file."""

    number: int
    headers: chess.pgn.Headers
    #: What is wrong with the movetext (:func:`iter_checked_headers` only; None: sound).
    problem: str | None = None


class _PgnFile:
    """An open PGN file in text mode that also knows how far it has read.

    The byte position comes from the binary buffer under the text wrapper (it
    runs ahead by the read-ahead chunk): precise enough for a progress bar,
    and free, unlike ``TextIOWrapper.tell()``.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._raw = open(path, "rb")  # noqa: SIM115 - closed in close()
        except OSError as exc:
            raise PgnError(f"{path}: cannot read: {exc.strerror or exc}") from None
        self.size = os.fstat(self._raw.fileno()).st_size
        # utf-8-sig: cutechess on Windows may write a BOM.
        self.text: TextIO = io.TextIOWrapper(self._raw, encoding="utf-8-sig", newline=None)

    @property
    def position(self) -> int:
        return min(self._raw.tell(), self.size)

    def close(self) -> None:
        self.text.close()


def _where(path: Path, number: int) -> str:
    return f"{path.name}: game {number}"


def _each(
    path: str | os.PathLike[str],
    read: Callable[[TextIO], T | None],
    progress: ProgressCallback | None,
) -> Iterator[tuple[int, T, _PgnFile]]:
    """The one reading loop: ``read`` one game after another from ``path``
    and yield ``(number, item, file)`` for each (1-based), reporting progress
    after each game.

    Raises :class:`PgnError` when the file cannot be read or decoded (naming
    the game being read), or when it holds no game at all.
    """
    pgn = _PgnFile(Path(path))
    number = 0
    try:
        while True:
            try:
                item = read(pgn.text)
            except UnicodeDecodeError:
                raise PgnError(
                    f"{_where(pgn.path, number + 1)}: not UTF-8 text (is this a PGN file?)"
                ) from None
            if item is None:
                break
            number += 1
            if progress is not None:
                progress(pgn.position, pgn.size)
            yield number, item, pgn
    finally:
        pgn.close()
    if number == 0:
        raise PgnError(f"{pgn.path.name}: no PGN game found")


def iter_headers(
    path: str | os.PathLike[str], *, progress: ProgressCallback | None = None
) -> Iterator[HeaderEntry]:
    """Yield the tags of every game in ``path``, skipping all movetext.

    Raises :class:`PgnError` when the file cannot be read or decoded, or when
    it holds no game at all.
    """
    for number, headers, _ in _each(path, chess.pgn.read_headers, progress):
        yield HeaderEntry(number, headers)


def _read_checked(text: TextIO) -> CheckedGame | None:
    return chess.pgn.read_game(text, Visitor=MovetextChecker)


def iter_checked_headers(
    path: str | os.PathLike[str], *, progress: ProgressCallback | None = None
) -> Iterator[HeaderEntry]:
    """Like :func:`iter_headers`, but each game's main line is played on a
    board first (nothing else is kept); a game whose movetext is unsound comes
    with its ``problem`` worded (``"ply 14: illegal san: ..."``), for the
    caller to raise once it has checked the tags."""
    for number, checked, _ in _each(path, _read_checked, progress):
        yield HeaderEntry(number, checked.headers, checked.problem)


class _StrictGameBuilder(chess.pgn.GameBuilder[chess.pgn.Game]):
    """A game builder that collects errors instead of logging them (the
    python-chess default logs and carries on; we report the game instead),
    worded with the ply, and adds the end the movetext does not reach
    (:func:`tcecd.pgn.check.end_problem`) as an error too."""

    def begin_game(self) -> None:
        super().begin_game()
        self._token: str | None = None
        self._started = False

    def visit_board(self, board: chess.Board) -> None:
        self._started = True

    def visit_result(self, result: str) -> None:
        super().visit_result(result)
        self._token = result

    def handle_error(self, error: Exception) -> None:
        if not self._started:
            self.game.errors.append(ValueError(f"start position: {error}"))
            return
        ply = self.variation_stack[-1].ply() - self.game.ply() + 1
        self.game.errors.append(ValueError(f"ply {ply}: {error}"))

    def result(self) -> chess.pgn.Game:
        game = self.game
        if not game.errors and self._started:
            end = game.end()
            problem = end_problem(game.headers, end.board(), end.ply() - game.ply(), self._token)
            if problem is not None:
                game.errors.append(ValueError(problem))
        return game


def _read_strict(text: TextIO) -> chess.pgn.Game | None:
    return chess.pgn.read_game(text, Visitor=_StrictGameBuilder)


def iter_games(
    path: str | os.PathLike[str], *, progress: ProgressCallback | None = None
) -> Iterator[tuple[int, chess.pgn.Game]]:
    """Yield ``(number, game)`` for every game in ``path``, one at a time.

    A game whose movetext python-chess cannot follow (an illegal or ambiguous
    move, a bad FEN) raises :class:`PgnError` naming the game and the problem.
    """
    for number, game, pgn in _each(path, _read_strict, progress):
        if game.errors:
            raise PgnError(f"{_where(pgn.path, number)}: {game.errors[0]}")
        yield number, game
