"""Final ranking of a TCEC Swiss event (tcec-swiss.md, "Final ranking").

Order: score DESC (BYE points included), received BYEs ASC (fewer is better),
then the configured tiebreaks in order, each DESC, and finally seed ASC, so the
order is total and every rank is distinct.

Tiebreaks (all "higher is better"):

``black-games``
    games played with the black pieces (forfeits never played have no colour);
``sonneborn-berger``
    sum over games of (points scored in the game x the opponent's final score);
``buchholz``
    sum over games of the opponent's final score;
``buchholz-cut1``
    Buchholz without the single lowest opponent score;
``wins``
    games won (forfeit wins included; a BYE is not a game);
``direct-encounter``
    points scored in the games against the players still level on every
    earlier criterion (score, BYEs and the tiebreaks listed before it).

Scores of opponents are their final scores, BYE points included. In double
rounds every game counts on its own, so an opponent counts twice. Scores, and
the points in Sonneborn-Berger and direct encounter, follow the event's point
system (``pairing.points``; the standard one by default); tiebreak values are
in points.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tcecd.domain import PlayerId
from tcecd.errors import ConfigError
from tcecd.pairing.base import Player, RoundRecord, Standing
from tcecd.pairing.points import STANDARD, PointSystem
from tcecd.pairing.tally import Tally, check_players, tally

#: Every tiebreak name, with its one-line meaning (for help texts and docs).
TIEBREAKS: dict[str, str] = {
    "black-games": "games played with black (more is better)",
    "sonneborn-berger": "sum of points scored x opponent's final score, per game",
    "buchholz": "sum of the opponents' final scores, per game",
    "buchholz-cut1": "Buchholz without the lowest opponent score",
    "wins": "games won",
    "direct-encounter": "points scored against the players level on every earlier criterion",
}

#: The default list (tcec-swiss.md): games with black, Sonneborn-Berger, wins; seed last.
DEFAULT_TIEBREAKS: tuple[str, ...] = ("black-games", "sonneborn-berger", "wins")


def check_tiebreaks(names: Sequence[str]) -> None:
    """Raise :class:`ConfigError` for an unknown or repeated tiebreak name."""
    seen: set[str] = set()
    for name in names:
        if name not in TIEBREAKS:
            known = ", ".join(TIEBREAKS)
            raise ConfigError(f"unknown tiebreak: {name!r} (known: {known})")
        if name in seen:
            raise ConfigError(f"tiebreak listed twice: {name!r}")
        seen.add(name)


def _simple_values(
    totals: dict[PlayerId, Tally], unit: int
) -> dict[str, Callable[[Tally], float]]:
    """Tiebreaks that depend on one player's games only (and final scores);
    ``unit``: the point system's units per point."""
    # Final scores looked up once (the forecast ranks thousands of tables).
    score = {pid: t.score / unit for pid, t in totals.items()}

    def sonneborn_berger(t: Tally) -> float:
        return sum([got / unit * score[opp] for opp, got in t.results], 0.0)

    def buchholz(t: Tally) -> float:
        return sum([score[opp] for opp, _ in t.results], 0.0)

    def buchholz_cut1(t: Tally) -> float:
        scores = [score[opp] for opp, _ in t.results]
        return sum(scores) - min(scores) if scores else 0.0

    return {
        "black-games": lambda t: float(t.black),
        "sonneborn-berger": sonneborn_berger,
        "buchholz": buchholz,
        "buchholz-cut1": buchholz_cut1,
        "wins": lambda t: float(t.wins),
    }


def standings(
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    *,
    double: bool,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    points: PointSystem = STANDARD,
) -> tuple[Standing, ...]:
    """Rank every player after the rounds in ``history`` (best first), scored
    by ``points``."""
    check_players(players)
    check_tiebreaks(tiebreaks)
    totals = tally(players, history, double=double, points=points)
    return rank_totals(players, totals, tiebreaks, unit=points.unit)


def rank_totals(
    players: Sequence[Player],
    totals: dict[PlayerId, Tally],
    tiebreaks: Sequence[str],
    *,
    unit: int = STANDARD.unit,
) -> tuple[Standing, ...]:
    """The standings from ``totals`` already tallied (a pairing session's,
    :mod:`tcecd.pairing.session`) in units of ``1/unit`` point; ``players``
    and ``tiebreaks`` must have been checked."""
    simple = _simple_values(totals, unit)

    values: dict[PlayerId, list[float]] = {p.id: [] for p in players}
    # The key so far: criteria before the tiebreak being computed (negated
    # where higher is better, so that ascending sort is best first).
    keys: dict[PlayerId, tuple[float, ...]] = {
        p.id: (-totals[p.id].score, totals[p.id].byes) for p in players
    }
    for name in tiebreaks:
        if name == "direct-encounter":
            level = _direct_encounter(players, totals, keys, unit)
        else:
            level = {p.id: simple[name](totals[p.id]) for p in players}
        for p in players:
            values[p.id].append(level[p.id])
            keys[p.id] = (*keys[p.id], -level[p.id])

    ranked = sorted(players, key=lambda p: (keys[p.id], p.seed))
    return tuple(
        Standing(
            rank=rank,
            id=p.id,
            score_units=totals[p.id].score,
            byes=totals[p.id].byes,
            games=totals[p.id].games,
            tiebreaks=tuple(zip(tiebreaks, values[p.id], strict=True)),
            unit=unit,
        )
        for rank, p in enumerate(ranked, start=1)
    )


def rank_order(
    players: Sequence[Player],
    totals: dict[PlayerId, Tally],
    tiebreaks: Sequence[str],
    *,
    unit: int = STANDARD.unit,
) -> list[Player]:
    """The players in the order of :func:`rank_totals` (best first), without
    the rows: each tiebreak is computed only for the players still level on
    every earlier criterion, since it cannot move anyone else (the forecast
    ranks thousands of final tables and needs only the order)."""
    simple = _simple_values(totals, unit)
    # Groups of players level so far, each with its key (as in rank_totals):
    # a player alone in its group keeps its place whatever comes next, so its
    # key is padded with 0 (the prefix already tells it from every other).
    groups: dict[tuple[float, ...], list[Player]] = {}
    for p in players:
        t = totals[p.id]
        groups.setdefault((-t.score, t.byes), []).append(p)
    for name in tiebreaks:
        split: dict[tuple[float, ...], list[Player]] = {}
        for key, members in groups.items():
            if len(members) == 1:
                split[(*key, 0.0)] = members
                continue
            if name == "direct-encounter":
                ids = {p.id for p in members}
                for p in members:
                    level = sum(got for opp, got in totals[p.id].results if opp in ids) / unit
                    split.setdefault((*key, -level), []).append(p)
            else:
                value = simple[name]
                for p in members:
                    split.setdefault((*key, -value(totals[p.id])), []).append(p)
        groups = split
    order: list[Player] = []
    for key in sorted(groups):
        members = groups[key]
        if len(members) > 1:
            members.sort(key=lambda p: p.seed)
        order += members
    return order


def _direct_encounter(
    players: Sequence[Player],
    totals: dict[PlayerId, Tally],
    keys: dict[PlayerId, tuple[float, ...]],
    unit: int,
) -> dict[PlayerId, float]:
    """Points each player scored against the others level with it so far."""
    groups: dict[tuple[float, ...], set[PlayerId]] = {}
    for p in players:
        groups.setdefault(keys[p.id], set()).add(p.id)
    result: dict[PlayerId, float] = {}
    for p in players:
        group = groups[keys[p.id]]
        result[p.id] = sum(got for opp, got in totals[p.id].results if opp in group) / unit
    return result
