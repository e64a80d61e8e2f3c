"""Builders for the Dubov tests: players, hand-written rounds, synthetic facts."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tcecd.domain import Color, Result
from tcecd.pairing.base import (
    Bye,
    ByeKind,
    PlayedGame,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
)
from tcecd.pairing.dubov.facts import Facts, colour_preference
from tcecd.pairing.dubov.system import Dubov


def field(ratings: Sequence[int], names: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ") -> tuple[Player, ...]:
    """Players A, B, C, ... with seeds 1, 2, 3, ... and the given ratings."""
    return tuple(
        Player(id=names[i], name=f"Player {names[i]}", seed=i + 1, rating=r)
        for i, r in enumerate(ratings)
    )


def game(text: str) -> PlayedGame:
    """``"A-B 1-0"``: A (white) beat B; ``"A-B +-"``: A won by forfeit, not played."""
    pair, result = text.split()
    white, black = pair.split("-")
    if result in ("+-", "-+"):
        winner = Result.WHITE_WINS if result == "+-" else Result.BLACK_WINS
        return PlayedGame(white, black, winner, played=False)
    return PlayedGame(white, black, Result.from_pgn(result))


def rnd(
    number: int, *games: str, bye: str | None = None, requested: Sequence[str] = ()
) -> RoundRecord:
    """A finished round from game strings (see :func:`game`); ``requested``:
    players with a requested half-point bye."""
    return RoundRecord(
        round=number,
        bye=bye,
        removed_history_rounds=(),
        games=tuple(game(g) for g in games),
        requested_byes=tuple(Bye(p, ByeKind.HALF) for p in requested),
    )


def pairs(pairing: RoundPairing) -> list[str]:
    """``["white-black", ...]`` of the first games, in board order."""
    return [f"{p.first}-{p.second}" for p in pairing.pairs]


def facts(
    pid: str,
    rank: int,
    score: float,
    colours: str = "",
    *,
    aro: int = 0,
    met: Iterable[str] = "",
    upfloats: int = 0,
    upfloated_last_round: bool = False,
    bye_barred: bool = False,
    rating: int | None = None,
) -> Facts:
    """A player's section-A facts written by hand: ``colours`` as ``"WB..."``
    (played games, oldest first), ``met`` the ids met (a string: one-letter ids)."""
    seq = tuple(Color.WHITE if c == "W" else Color.BLACK for c in colours)
    return Facts(
        player=Player(id=pid, name=pid, seed=rank, rating=rating or 2800 - rank),
        rank=rank,
        rating=rating or 2800 - rank,
        score=round(score * 2),
        colours=seq,
        preference=colour_preference(seq),
        aro=aro,
        games_played=len(seq),
        bye_barred=bye_barred,
        met=frozenset(met),
        upfloats=upfloats,
        upfloated_last_round=upfloated_last_round,
    )


@dataclass(frozen=True)
class EventShape:
    """A seeded random event: players with ratings in seed order, random
    results, optional forfeits never played and requested half-point byes."""

    players: int
    rounds: int
    seed: int
    forfeit_rate: float = 0.0
    request_rate: float = 0.0

    @property
    def label(self) -> str:
        return (
            f"{self.players}p x {self.rounds}r seed {self.seed}"
            f"{' +forfeits' if self.forfeit_rate else ''}"
            f"{' +requested' if self.request_rate else ''}"
        )


def seeded_players(shape: EventShape, rng: random.Random) -> tuple[Player, ...]:
    ratings = sorted((rng.randrange(2000, 2800) for _ in range(shape.players)), reverse=True)
    return tuple(
        Player(id=str(i), name=f"Player {i}", seed=i, rating=ratings[i - 1])
        for i in range(1, shape.players + 1)
    )


def play(pairing: RoundPairing, shape: EventShape, rng: random.Random) -> RoundRecord:
    """Random results for a paired round (single games)."""
    results = [Result.WHITE_WINS, Result.BLACK_WINS, Result.DRAW]
    games = []
    for g in pairing.games:
        if rng.random() < shape.forfeit_rate:
            games.append(PlayedGame(g.white, g.black, rng.choice(results[:2]), played=False))
        else:
            games.append(PlayedGame(g.white, g.black, rng.choice(results)))
    return RoundRecord(
        round=pairing.round,
        bye=pairing.bye,
        removed_history_rounds=(),
        games=tuple(games),
        requested_byes=pairing.requested_byes,
    )


def context_for(shape: EventShape, players: Sequence[Player], rng: random.Random) -> RoundContext:
    requested = tuple(Bye(p.id, ByeKind.HALF) for p in players if rng.random() < shape.request_rate)
    return RoundContext(total_rounds=shape.rounds, requested_byes=requested)


__all__ = ["Dubov", "EventShape", "context_for", "facts", "field", "pairs", "play", "rnd"]
