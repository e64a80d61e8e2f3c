"""The final standings as a plain-text table (printed at the end of ``tcecd run``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tcecd.daemon.settings import RunSettings
from tcecd.domain import PlayerId
from tcecd.outputs.text import standings_table as _table
from tcecd.pairing.base import Player, RoundRecord, Standing


def standings_table(
    standings: Sequence[Standing],
    settings: RunSettings | None = None,
    players: Sequence[Player] = (),
    records: Sequence[RoundRecord] | None = None,
    disqualified: Mapping[PlayerId, tuple[int, str]] | None = None,
) -> str:
    """The shared standings table (with wins, draws, losses and performance when
    ``records`` are given), under a title naming the event. A ``disqualified``
    engine (round, reason) is marked ``DQ`` in its row and named below the table
    with when and why: its later games were forfeits, which its score alone
    does not tell."""
    double = settings.double if settings is not None else False
    out = dict(disqualified or {})
    marks = {pid: "DQ" for pid in out}
    table = _table(standings, players, records=records, double=double, marks=marks)
    for pid in sorted(out, key=lambda p: (out[p][0], p)):
        round_no, reason = out[pid]
        table += f"\nDQ {pid}: disqualified in round {round_no} ({reason}); its later games " \
                 "were forfeited"
    if settings is None:
        return table
    rounds = f"{settings.rounds} round{'s' if settings.rounds != 1 else ''}"
    return f"Final standings: {settings.event} ({rounds})\n{table}"
