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


# -- a 7-engine cup, by hand (the documents' and TCEC viewer's tests) ----------------------

#: Engine names: the viewer shows the first word and looks for image/engine/<word>.png.
NAMES = {"P1": "Alpha 1.0", "P2": "Bravo 2", "P3": "Charlie dev", "P4": "Delta 4",
         "P5": "Echo 5", "P6": "Foxtrot 6", "P7": "Golf 7"}

#: g=2, at most 2 tiebreak games at 30+1.
CUP7_SETTINGS = KnockoutSettings(games=2, tiebreak_time_control="30+1", tiebreak_max_games=2)

_W, _D, _B = Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS

#: Round 1 (8 places: 1-BYE, 4-5, 2-7, 3-6): P4 beats P5 1.5-0.5, P2 beats P7 2-0,
#: P3-P6 1-1 and 1-1 in the tiebreak pair: P3 advances as the higher seed.
#: Semi-finals P1-P4 (P1 1.5-0.5) and P2-P3 (P3 1.5-0.5); final P1-P3: P3 1.5-0.5.
CUP7_GAMES = [
    CupGame(1, 1, "P4", "P5", _W), CupGame(1, 2, "P5", "P4", _D),
    CupGame(1, 3, "P2", "P7", _W), CupGame(1, 4, "P7", "P2", _B),
    CupGame(1, 5, "P3", "P6", _B), CupGame(1, 6, "P6", "P3", _B),
    CupGame(1, 7, "P3", "P6", _D), CupGame(1, 8, "P6", "P3", _D),
    CupGame(2, 1, "P1", "P4", _W), CupGame(2, 2, "P4", "P1", _D),
    CupGame(2, 3, "P2", "P3", _D), CupGame(2, 4, "P3", "P2", _W),
    CupGame(3, 1, "P1", "P3", _B), CupGame(3, 2, "P3", "P1", _D),
]


def cup7(stage: str) -> Cup:
    """``"finished"``; ``"semis"``: the first semi-final over (P1), game 2.4 running."""
    games = list(CUP7_GAMES)
    if stage == "semis":
        games = [*games[:11], replace(games[11], result=None)]
    return build_cup(players(7), CUP7_SETTINGS, games)
