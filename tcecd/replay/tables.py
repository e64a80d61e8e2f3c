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
from tcecd.outputs.text import points as _points
from tcecd.outputs.text import render_table as _render
from tcecd.outputs.text import standings_table as _standings_table
from tcecd.pairing.base import Player, RoundRecord, Standing
from tcecd.replay.games import ReplayedGame


def standings_table(players: Sequence[Player], standings: Sequence[Standing]) -> str:
    """Rank, player, seed, score, BYEs, games, then each configured tiebreak."""
    return _standings_table(standings, players)


_MARK = {2: "1", 1: "=", 0: "0"}


def crosstable_table(
    players: Sequence[Player], rounds: Sequence[RoundRecord], standings: Sequence[Standing]
) -> str:
    """The Swiss crosstable: per round, opponent's rank, colour and result."""
    rank = {s.id: s.rank for s in standings}
    name = {p.id: p.name for p in players}
    cells: dict[PlayerId, list[list[str]]] = {p.id: [[] for _ in rounds] for p in players}
    for i, rnd in enumerate(rounds):
        for bye in rnd.byes:
            if bye in cells:
                cells[bye][i].append("BYE+")
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
        [str(s.rank), name.get(s.id, s.id), _points(s.score_units, s.unit),
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
