"""Plain-text tables of a replayed event: standings, crosstable, schedule.

Pure functions returning strings (the command prints them). The crosstable
is Swiss-style, one column per round, because a full N x N grid is unreadable
for a 40-engine field: each cell is the opponent's final rank, the colour and
the result, e.g. ``12w1`` (won with White against the 12th), ``3b=`` (drew
with Black against the 3rd); a double round shows both games (``12w1 12b=``);
a BYE shows ``BYE+``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tcecd.domain import Color, PlayerId, Result
from tcecd.pairing.base import Player, RoundRecord, Standing
from tcecd.replay.event import ReplayedGame


def _render(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> str:
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in
               enumerate(zip(cells, widths, strict=True))]  # fmt: skip
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), sep, *(line(r) for r in rows)])


def _points(half: int) -> str:
    return f"{half // 2}" + ("½" if half % 2 else "")


def _tiebreak(value: float) -> str:
    return f"{value:g}" if float(value).is_integer() else f"{value:.2f}"


def standings_table(players: Sequence[Player], standings: Sequence[Standing]) -> str:
    """Rank, player, seed, score, BYEs, games, then each configured tiebreak."""
    seed = {p.id: p.seed for p in players}
    name = {p.id: p.name for p in players}
    tb_names = [n for n, _ in standings[0].tiebreaks] if standings else []
    header = ["#", "Player", "Seed", "Score", "BYEs", "Games", *tb_names]
    rows = [
        [
            str(s.rank),
            name.get(s.id, s.id),
            str(seed.get(s.id, "")),
            _points(s.score_half),
            str(s.byes),
            str(s.games),
            *(_tiebreak(v) for _, v in s.tiebreaks),
        ]
        for s in sorted(standings, key=lambda s: s.rank)
    ]
    right = {0, 2, 3, 4, 5, *range(6, 6 + len(tb_names))}
    return _render(header, rows, right)


_MARK = {2: "1", 1: "=", 0: "0"}


def crosstable_table(
    players: Sequence[Player], rounds: Sequence[RoundRecord], standings: Sequence[Standing]
) -> str:
    """The Swiss crosstable: per round, opponent's rank, colour and result."""
    rank = {s.id: s.rank for s in standings}
    name = {p.id: p.name for p in players}
    cells: dict[PlayerId, list[list[str]]] = {p.id: [[] for _ in rounds] for p in players}
    for i, rnd in enumerate(rounds):
        if rnd.bye is not None and rnd.bye in cells:
            cells[rnd.bye][i].append("BYE+")
        for g in rnd.games:
            if g.result is Result.UNFINISHED:
                continue
            sides = ((g.white, g.black, Color.WHITE), (g.black, g.white, Color.BLACK))
            for me, opp, color in sides:
                c = color.value[0] if g.played else "-"
                mark = _MARK[g.result.half_points(color)]
                cells[me][i].append(f"{rank.get(opp, '?')}{c}{mark}")
    header = ["#", "Player", "Score", *(f"R{r.round}" for r in rounds)]
    rows = [
        [str(s.rank), name.get(s.id, s.id), _points(s.score_half),
         *(" ".join(c) for c in cells.get(s.id, []))]
        for s in sorted(standings, key=lambda s: s.rank)
    ]  # fmt: skip
    return _render(header, rows, {0, 2})


def schedule_table(games: Sequence[ReplayedGame], names: dict[PlayerId, str]) -> str:
    """Every game in playing order: round tag, players, result, how it ended."""
    header = ["Game", "Round", "White", "Black", "Result", "Termination", "Moves"]
    rows = [
        [
            str(i),
            str(g.game_id),
            names.get(g.white, g.white),
            names.get(g.black, g.black),
            g.result.value,
            g.detail or g.termination,
            "" if g.plies is None else str((g.plies + 1) // 2),
        ]
        for i, g in enumerate(games, start=1)
    ]
    return _render(header, rows, {0, 6})
