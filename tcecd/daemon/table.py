"""The final standings as a plain-text table (printed at the end of ``tcecd run``)."""

from __future__ import annotations

from collections.abc import Sequence

from tcecd.daemon.settings import RunSettings
from tcecd.outputs.text import standings_table as _table
from tcecd.pairing.base import Player, Standing


def standings_table(
    standings: Sequence[Standing],
    settings: RunSettings | None = None,
    players: Sequence[Player] = (),
) -> str:
    """The shared standings table, under a title naming the event."""
    table = _table(standings, players)
    if settings is None:
        return table
    return f"Final standings: {settings.event} ({settings.rounds} rounds)\n{table}"
