"""Plain-text tables for terminals: one renderer, one number format.

Used by ``tcecd run`` (final standings), ``tcecd replay`` (standings,
crosstable, schedule) and ``tcecd simulate``, so that the same standings look
the same wherever they are printed. Pure: strings in, a string out.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from tcecd.pairing.base import Player, Standing


def render_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], right: Collection[int] = ()
) -> str:
    """Columns padded to their widest cell, two spaces apart, a dashed rule
    under the header; the columns in ``right`` are right-aligned (numbers)."""
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def points(score_half: int) -> str:
    """A score in points with one decimal: ``4.5``, ``4.0``, ``0.5``."""
    return f"{score_half // 2}.{5 if score_half % 2 else 0}"


def tiebreak_column(values: Sequence[float]) -> list[str]:
    """One tiebreak column: integers when every value is whole (counts such as
    wins), otherwise two decimals throughout (Sonneborn-Berger quarters)."""
    if all(float(v).is_integer() for v in values):
        return [str(int(v)) for v in values]
    return [f"{v:.2f}" for v in values]


def standings_table(standings: Sequence[Standing], players: Sequence[Player] = ()) -> str:
    """Rank, player id, seed (when ``players`` are given), score, BYEs, games,
    then each configured tiebreak, in rank order."""
    seed = {p.id: p.seed for p in players}
    ranked = sorted(standings, key=lambda s: s.rank)
    tb_names = [n for n, _ in ranked[0].tiebreaks] if ranked else []
    columns = [tiebreak_column([s.tiebreaks[i][1] for s in ranked]) for i in range(len(tb_names))]
    with_seed = bool(players)
    header = ["Rank", "Player", *(["Seed"] if with_seed else []), "Score", "BYEs", "Games"]
    header += tb_names
    rows = [
        [
            str(s.rank),
            s.id,
            *([str(seed.get(s.id, ""))] if with_seed else []),
            points(s.score_half),
            str(s.byes),
            str(s.games),
            *(col[row] for col in columns),
        ]
        for row, s in enumerate(ranked)
    ]
    return render_table(header, rows, right={0, *range(2, len(header))})
