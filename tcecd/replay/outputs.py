"""TCEC-format ``schedule.json`` and ``crosstable.json`` for a replayed event.

The builders are the daemon's own (:mod:`tcecd.outputs.tcec_json`), so a
replayed event's files are exactly what the live event wrote. The schedule
needs each game's moves (final position, last evaluations); to keep memory
bounded they are read one game at a time from the PGN, in playing order,
through :class:`StreamedRecords`, a read-only mapping that follows the
builder's walk through the schedule.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import chess.pgn

from tcecd.domain import GameId
from tcecd.errors import PgnError
from tcecd.game.record import GameRecord
from tcecd.outputs.files import atomic_write_json
from tcecd.outputs.tcec_json import CrossGame, crosstable_json, schedule_json
from tcecd.pairing.base import Standing
from tcecd.pgn.reader import ProgressCallback, iter_games
from tcecd.replay.event import ReplayedEvent
from tcecd.replay.moves import game_record
from tcecd.replay.recover import pgn_strikes


class StreamedRecords(Mapping[GameId, GameRecord]):
    """``GameId -> GameRecord`` for the finished games of a PGN, read lazily.

    Looking games up in file order (what :func:`schedule_json` does) reads the
    file once, holding one game at a time; looking one up out of order
    restarts the stream. Games not in the replayed event (an unfinished last
    game) are not in the mapping.
    """

    def __init__(self, replayed: ReplayedEvent, progress: ProgressCallback | None = None) -> None:
        self._path = replayed.path
        self._numbers = {g.game_id: g.number for g in replayed.games}
        self._progress = progress
        self._stream: Iterator[tuple[int, chess.pgn.Game]] | None = None
        self._at = 0  # number of the game last read

    def __len__(self) -> int:
        return len(self._numbers)

    def __iter__(self) -> Iterator[GameId]:
        return iter(self._numbers)

    def __getitem__(self, key: GameId) -> GameRecord:
        number = self._numbers[key]  # KeyError for an unplayed game: Mapping.get -> None
        if self._stream is None or number <= self._at:
            self._stream = iter_games(self._path, progress=self._progress)
            self._at = 0
        for n, game in self._stream:
            self._at = n
            if n == number:
                try:
                    return game_record(game, key)
                except ValueError as exc:
                    raise PgnError(f"{self._path.name}: game {n}: {exc}") from None
        raise PgnError(f"{self._path.name}: game {number} vanished while reading")


def cross_games(replayed: ReplayedEvent) -> list[CrossGame]:
    """The finished games as the crosstable counts them, in playing order."""
    return [
        CrossGame(ordinal, g.white, g.black, g.result, g.played)
        for ordinal, g in enumerate(replayed.games, start=1)
    ]


def build_schedule(
    replayed: ReplayedEvent, progress: ProgressCallback | None = None
) -> list[dict[str, Any]]:
    """``schedule.json`` content: every game played, then (for an unfinished
    last round) the games the rules still have to play."""
    names = {p.id: p.name for p in replayed.players}
    return schedule_json(replayed.pairings(), StreamedRecords(replayed, progress), names=names)


def build_crosstable(replayed: ReplayedEvent, standings: Sequence[Standing]) -> dict[str, Any]:
    """``crosstable.json`` content from the replayed games and standings."""
    return crosstable_json(
        replayed.event,
        replayed.players,
        cross_games(replayed),
        standings,
        strikes=pgn_strikes(replayed.games),
    )


def write_outputs(
    replayed: ReplayedEvent,
    standings: Sequence[Standing],
    directory: Path,
    progress: ProgressCallback | None = None,
) -> list[Path]:
    """Write ``schedule.json`` and ``crosstable.json`` into ``directory``
    (created if needed) atomically; returns the paths written."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PgnError(f"cannot create output directory {str(directory)!r}: {exc}") from None
    schedule = directory / "schedule.json"
    crosstable = directory / "crosstable.json"
    atomic_write_json(schedule, build_schedule(replayed, progress))
    atomic_write_json(crosstable, build_crosstable(replayed, standings))
    return [schedule, crosstable]
