"""Plain-text tables for terminals: one renderer, one number format.

Used by ``tcecd run`` (final standings), ``tcecd replay`` (standings,
crosstable, schedule) and ``tcecd simulate``, so that the same standings look
the same wherever they are printed. Pure: strings in, a string out.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

from tcecd.pairing.base import Player, RoundRecord, Standing


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


def points(units: int, unit: int = 2) -> str:
    """A score of ``units`` of ``1/unit`` point (half-points by default) in
    points with one decimal: ``4.5``, ``4.0``, ``0.5`` (every point system's
    values are multiples of 0.1)."""
    if unit == 2:
        return f"{units // 2}.{5 if units % 2 else 0}"
    tenths = units * 10 // unit
    return f"{tenths // 10}.{tenths % 10}"


def tiebreak_column(values: Sequence[float]) -> list[str]:
    """One tiebreak column: integers when every value is whole (counts such as
    wins), otherwise two decimals throughout (Sonneborn-Berger quarters)."""
    if all(float(v).is_integer() for v in values):
        return [str(int(v)) for v in values]
    return [f"{v:.2f}" for v in values]


def performance(opponent_ratings: Sequence[int], points: float) -> int | None:
    """A performance rating: the opponents' average rating plus the Elo difference
    the score implies (``-400 log10(1/p - 1)``), capped at ±800 as FIDE's table
    is (a perfect or zero score); None without a rated opponent."""
    if not opponent_ratings:
        return None
    p = points / len(opponent_ratings)
    if p <= 0.0:
        diff = -800.0
    elif p >= 1.0:
        diff = 800.0
    else:
        diff = max(-800.0, min(800.0, -400.0 * math.log10(1.0 / p - 1.0)))
    return round(sum(opponent_ratings) / len(opponent_ratings) + diff)


def _results_columns(
    ranked: Sequence[Standing],
    players: Sequence[Player],
    records: Sequence[RoundRecord],
    double: bool,
) -> tuple[list[str], list[list[str]]]:
    """W, D, L over the games (forfeits included, BYEs not) and, when any engine
    is rated, the performance over the games played against rated opponents (a
    forfeit never played rates nobody, as in FIDE's rating rules)."""
    from tcecd.domain import Color
    from tcecd.pairing.tally import tally

    totals = tally(players, records, double=double)
    rating = {p.id: p.rating for p in players}
    header = ["W", "D", "L"]
    rows: list[list[str]] = []
    for s in ranked:
        t = totals[s.id]
        draws = sum(1 for _, half in t.results if half == 1)
        losses = sum(1 for _, half in t.results if half == 0)
        rows.append([str(t.wins), str(draws), str(losses)])
    if any(r is not None for r in rating.values()):
        header.append("Perf")
        rated: dict[str, list[tuple[int, int]]] = {p.id: [] for p in players}
        for record in records:
            for g in record.games:
                for me, opp, color in ((g.white, g.black, Color.WHITE),
                                       (g.black, g.white, Color.BLACK)):  # fmt: skip
                    theirs = rating[opp]
                    if g.played and theirs is not None:
                        rated[me].append((theirs, g.result.half_points(color)))
        for row, s in zip(rows, ranked, strict=True):
            mine = rated[s.id]
            perf = performance([r for r, _ in mine], sum(h for _, h in mine) / 2)
            row.append("-" if perf is None else str(perf))
    return header, rows


def standings_table(
    standings: Sequence[Standing],
    players: Sequence[Player] = (),
    *,
    records: Sequence[RoundRecord] | None = None,
    double: bool = False,
    marks: Mapping[str, str] | None = None,
) -> str:
    """Rank, player id, seed (when ``players`` are given), score, BYEs, games,
    wins, draws and losses and the performance rating (when ``records`` are
    given), then each configured tiebreak, in rank order. ``marks``: text after a
    player's id (``DQ`` for a disqualified engine)."""
    seed = {p.id: p.seed for p in players}
    ranked = sorted(standings, key=lambda s: s.rank)
    tb_names = [n for n, _ in ranked[0].tiebreaks] if ranked else []
    columns = [tiebreak_column([s.tiebreaks[i][1] for s in ranked]) for i in range(len(tb_names))]
    with_seed = bool(players)
    extra_header: list[str] = []
    extra: list[list[str]] = [[] for _ in ranked]
    if records is not None and players:
        extra_header, extra = _results_columns(ranked, players, records, double)
    header = ["Rank", "Player", *(["Seed"] if with_seed else []), "Score", "BYEs", "Games"]
    header += extra_header + tb_names
    rows = [
        [
            str(s.rank),
            f"{s.id} {marks[s.id]}" if marks and s.id in marks else s.id,
            *([str(seed.get(s.id, ""))] if with_seed else []),
            points(s.score_units, s.unit),
            str(s.byes),
            str(s.games),
            *extra[row],
            *(col[row] for col in columns),
        ]
        for row, s in enumerate(ranked)
    ]
    return render_table(header, rows, right={0, *range(2, len(header))})


def cup_table(standings: Sequence[Standing], players: Sequence[Player] = ()) -> str:
    """A knockout cup's standings: the winner, the runner-up, then by the round
    each engine went out in, with the encounters won (``rounds-won``), the
    points and the games of each."""
    names = {p.id: p.name for p in players}
    rows = [
        [str(s.rank), names.get(s.id, s.id), str(int(dict(s.tiebreaks).get("rounds-won", 0))),
         points(s.score_half), str(s.games)]
        for s in standings
    ]  # fmt: skip
    return render_table(["Rank", "Engine", "Won", "Points", "Games"], rows, right={0, 2, 3, 4})
