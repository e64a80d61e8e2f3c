"""A cup played in memory through the public API, as the runner will play it:
ask ``next_games`` for as many games as there are free slots, finish one
running game, fold again; repeat until the cup is over.

Results are given from the higher seed's side (``"W"`` the higher seed wins,
``"D"`` a draw, ``"L"`` it loses) by a function of the encounter's two seeds
and the game's place in the encounter, so a test can fix every encounter's
result sequence whatever the concurrency and the order games finish in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from tcecd.domain import PlayerId, Result
from tcecd.formats.knockout import (
    Cup,
    CupGame,
    KnockoutSettings,
    NewGame,
    build_cup,
    next_games,
)

#: (higher seed, lower seed, index of the game in the encounter) -> "W", "D" or "L".
ResultFor = Callable[[int, int, int], str]


def players(n: int) -> list[PlayerId]:
    """P1 ... Pn, in seed order."""
    return [f"P{i}" for i in range(1, n + 1)]


def seed_of(p: PlayerId) -> int:
    return int(p[1:])


def result_for(white: PlayerId, black: PlayerId, outcome: str) -> Result:
    """The PGN result of a game whose higher seed ``outcome``s."""
    high_white = seed_of(white) < seed_of(black)
    if outcome == "D":
        return Result.DRAW
    high_wins = outcome == "W"
    return Result.WHITE_WINS if high_wins == high_white else Result.BLACK_WINS


@dataclass
class Scheduled:
    """One call of ``next_games``: the cup it was asked of and what it returned."""

    cup: Cup
    games: tuple[NewGame, ...]


@dataclass
class Played:
    """A whole cup: its games in Round-tag order, the final fold, every call."""

    games: list[CupGame]
    cup: Cup
    calls: list[Scheduled] = field(default_factory=list)


def play(n: int, settings: KnockoutSettings, outcome: ResultFor, *, concurrency: int = 1,
         pick: Callable[[int], int] | None = None,
         disqualified: Mapping[PlayerId, int] | None = None, max_games: int = 2000) -> Played:
    """Play a cup of ``n`` players. ``pick(k)`` chooses which of the ``k``
    running games finishes next (default: the oldest)."""
    field_ = players(n)
    games: list[CupGame] = []
    calls: list[Scheduled] = []
    index_of: dict[tuple[int, int], int] = {}
    while True:
        cup = build_cup(field_, settings, games, disqualified)
        running = [i for i, g in enumerate(games) if not g.finished]
        new = next_games(cup, limit=concurrency - len(running))
        calls.append(Scheduled(cup, new))
        for ng in new:
            index_of[(ng.round, ng.number)] = ng.index
            games.append(ng.as_game())
        running = [i for i, g in enumerate(games) if not g.finished]
        if not running:
            assert not new
            return Played(games, cup, calls)
        if len(games) > max_games:
            raise AssertionError(f"more than {max_games} games")
        k = running[pick(len(running)) if pick else 0]
        g = games[k]
        high, low = sorted((seed_of(g.white), seed_of(g.black)))
        games[k] = replace(g, result=result_for(
            g.white, g.black, outcome(high, low, index_of[(g.round, g.number)])))


def sequence(*results: str) -> ResultFor:
    """Every encounter plays ``results`` in order (then the higher seed wins)."""
    return lambda high, low, index: results[index - 1] if index <= len(results) else "W"


def encounter_games(p: Played, round_no: int, high: int) -> list[CupGame]:
    """The games of the encounter of ``round_no`` that seed ``high`` plays."""
    for e in p.cup.rounds[round_no - 1].encounters:
        if f"P{high}" in (e.upper, e.lower):
            return [eg.game for eg in e.games]
    raise AssertionError(f"P{high} plays no encounter in round {round_no}")
