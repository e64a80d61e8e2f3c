"""Streaming PGN reading: one game at a time, never the whole file.

A TCEC event PGN can hold tens of thousands of games. The functions here read
it game by game with python-chess: :func:`iter_headers` skips the movetext
entirely (what verification and standings need), :func:`iter_games` builds one
game at a time (what re-streaming and ``schedule.json`` need). Either way the
memory used is that of one game, whatever the file size.

Every problem is a :class:`~tcecd.errors.PgnError` whose message names the
file and the 1-based game number, e.g. ``EVENT.pgn: game 17: ...``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import chess.pgn

from tcecd.errors import PgnError

#: Called with (bytes read so far, total bytes) after each game.
ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class HeaderEntry:
    """The tags of one game and its 1-based position in the file."""

    number: int
    headers: chess.pgn.Headers


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


def iter_headers(
    path: str | os.PathLike[str], *, progress: ProgressCallback | None = None
) -> Iterator[HeaderEntry]:
    """Yield the tags of every game in ``path``, skipping all movetext.

    Raises :class:`PgnError` when the file cannot be read or decoded, or when
    it holds no game at all.
    """
    pgn = _PgnFile(Path(path))
    number = 0
    try:
        while True:
            try:
                headers = chess.pgn.read_headers(pgn.text)
            except UnicodeDecodeError:
                raise PgnError(
                    f"{_where(pgn.path, number + 1)}: not UTF-8 text (is this a PGN file?)"
                ) from None
            if headers is None:
                break
            number += 1
            if progress is not None:
                progress(pgn.position, pgn.size)
            yield HeaderEntry(number, headers)
    finally:
        pgn.close()
    if number == 0:
        raise PgnError(f"{pgn.path.name}: no PGN game found")


class _StrictGameBuilder(chess.pgn.GameBuilder[chess.pgn.Game]):
    """A game builder that collects errors instead of logging them (the
    python-chess default logs and carries on; we report the game instead)."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def iter_games(
    path: str | os.PathLike[str], *, progress: ProgressCallback | None = None
) -> Iterator[tuple[int, chess.pgn.Game]]:
    """Yield ``(number, game)`` for every game in ``path``, one at a time.

    A game whose movetext python-chess cannot follow (an illegal or ambiguous
    move, a bad FEN) raises :class:`PgnError` naming the game and the problem.
    """
    pgn = _PgnFile(Path(path))
    number = 0
    try:
        while True:
            try:
                game = chess.pgn.read_game(pgn.text, Visitor=_StrictGameBuilder)
            except UnicodeDecodeError:
                raise PgnError(
                    f"{_where(pgn.path, number + 1)}: not UTF-8 text (is this a PGN file?)"
                ) from None
            if game is None:
                break
            number += 1
            if game.errors:
                raise PgnError(f"{_where(pgn.path, number)}: {game.errors[0]}")
            if progress is not None:
                progress(pgn.position, pgn.size)
            yield number, game
    finally:
        pgn.close()
    if number == 0:
        raise PgnError(f"{pgn.path.name}: no PGN game found")
