"""The final standings as a plain-text table (printed at the end of ``tcecd run``)."""

from __future__ import annotations

from collections.abc import Sequence

from tcecd.daemon.settings import RunSettings
from tcecd.outputs.text import standings_table as _table
from tcecd.pairing.base import Player, RoundRecord, Standing


def standings_table(
    standings: Sequence[Standing],
    settings: RunSettings | None = None,
    players: Sequence[Player] = (),
    records: Sequence[RoundRecord] | None = None,
) -> str:
    """The shared standings table (with wins, draws, losses and performance when
    ``records`` are given), under a title naming the event."""
    double = settings.format.double if settings is not None else False
    table = _table(standings, players, records=records, double=double)
    if settings is None:
        return table
    n = settings.format.rounds
    if n is None:
        n = len(records) if records is not None else 0
    rounds = f"{n} round{'s' if n != 1 else ''}"
    return f"Final standings: {settings.event} ({rounds})\n{table}"
