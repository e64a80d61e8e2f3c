"""The final standings as a plain-text table (printed at the end of ``tcecd run``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tcecd.daemon.settings import RunSettings
from tcecd.domain import PlayerId
from tcecd.outputs.text import cup_table
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
    double = settings.format.double if settings is not None else False
    out = dict(disqualified or {})
    marks = {pid: "DQ" for pid in out}
    if settings is not None and settings.format.system == "knockout":
        # A cup ranks by the round each engine went out in; its encounters are
        # several games between the same two engines, not a Swiss round's.
        table = cup_table(standings, players)
    else:
        table = _table(standings, players, records=records, double=double, marks=marks)
    for pid in sorted(out, key=lambda p: (out[p][0], p)):
        round_no, reason = out[pid]
        table += f"\nDQ {pid}: disqualified in round {round_no} ({reason}); its later games " \
                 "were forfeited"
    if settings is None:
        return table
    n = settings.format.rounds
    if n is None:
        n = len(records) if records is not None else 0
    rounds = f"{n} round{'s' if n != 1 else ''}"
    return f"Final standings: {settings.event} ({rounds})\n{table}"
