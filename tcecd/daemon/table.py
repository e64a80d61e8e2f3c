"""The final standings as a plain-text table (printed at the end of ``tcecd run``)."""

from __future__ import annotations

from collections.abc import Sequence

from tcecd.daemon.settings import RunSettings
from tcecd.pairing.base import Standing


def _fmt(value: float) -> str:
    return f"{value:g}" if float(value).is_integer() else f"{value:.2f}"


def standings_table(standings: Sequence[Standing], settings: RunSettings | None = None) -> str:
    """Rank, engine, points, games, BYEs and the tiebreaks, one row per player."""
    names = [name for name, _ in standings[0].tiebreaks] if standings else []
    header = ["Rank", "Engine", "Points", "Games", "Byes", *names]
    rows = [
        [
            str(s.rank),
            s.id,
            _fmt(s.score),
            str(s.games),
            str(s.byes),
            *(_fmt(v) for _, v in s.tiebreaks),
        ]
        for s in standings
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    if settings is not None:
        lines.append(f"Final standings: {settings.event} ({settings.rounds} rounds)")
    for r in [header, *rows]:
        cells = [
            c.ljust(w) if i == 1 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    lines.insert(2 if settings is not None else 1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
