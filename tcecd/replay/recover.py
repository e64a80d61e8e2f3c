"""Recovering an event whose state directory was lost, from its PGN alone.

``tcecd run EVENT.yaml --from-pgn EVENT.pgn`` calls :func:`recover_from_pgn`:
the PGN is rebuilt with the config's players, seeds and round format, every
round is re-paired and must follow the rules (a PGN that deviates cannot be
continued: the next pairing would rest on a history the rules never gave),
and the result is what a fresh state needs: the rounds' pairings, the
finished games' records (streamed from the PGN by
:func:`iter_game_records`) and the unfinished round, if any.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tcecd.errors import PgnError
from tcecd.game.record import GameRecord
from tcecd.pgn.reader import ProgressCallback, iter_games
from tcecd.replay.event import ReplayedEvent, rebuild_from_pgn
from tcecd.replay.moves import game_record

if TYPE_CHECKING:
    from tcecd.config.event import EventConfig


def recover_from_pgn(
    config: EventConfig,
    pgn: str | os.PathLike[str],
    *,
    progress: ProgressCallback | None = None,
) -> ReplayedEvent:
    """Rebuild and verify ``pgn`` as the event ``config`` describes.

    Raises :class:`PgnError` (one line) when the PGN is malformed, names an
    engine the config does not have, has more rounds than the config plans,
    uses the other round format, or deviates from the TCEC Swiss rules (the
    first deviation is quoted). On success every round of the returned event
    follows the rules, so ``event.pairings()`` are the rules' pairings of the
    rounds in the PGN (the last one possibly unfinished: ``event.partial``).
    """
    from tcecd.replay.session import players_from_config

    path = Path(pgn)
    players = players_from_config(config) or None
    event = rebuild_from_pgn(
        path, players=players, double=config.pairing.double, progress=progress, verify=True
    )
    engines = {e.name for e in config.engines}
    unknown = sorted(p.id for p in event.players if p.id not in engines)
    if unknown:
        raise PgnError(f"{path.name}: player {unknown[0]!r} is not an engine of the config")
    missing = sorted(engines - {p.id for p in event.players})
    if missing:
        raise PgnError(
            f"{path.name}: engine {missing[0]!r} of the config never plays in the PGN's round 1"
        )
    planned = config.pairing.rounds
    played = len(event.rounds) + (1 if event.partial is not None else 0)
    if played > planned:
        raise PgnError(f"{path.name}: the PGN has {played} rounds; the config plans {planned}")
    event.check()
    return event


def iter_game_records(
    event: ReplayedEvent, *, progress: ProgressCallback | None = None
) -> Iterator[GameRecord]:
    """The finished games of ``event`` as :class:`GameRecord` s, in playing
    order, read from its PGN one game at a time (an unfinished last game,
    ``Result "*"``, is not included)."""
    wanted = {g.number: g.game_id for g in event.games}
    for number, game in iter_games(event.path, progress=progress):
        gid = wanted.get(number)
        if gid is None:
            continue
        try:
            yield game_record(game, gid)
        except ValueError as exc:
            raise PgnError(f"{event.path.name}: game {number}: {exc}") from None
