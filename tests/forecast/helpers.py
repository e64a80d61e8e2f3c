"""Small hand-built events for the forecast tests."""

from __future__ import annotations

from tcecd.domain import Result
from tcecd.pairing.base import PlayedGame, Player, RoundRecord


def players(n: int, rating: int = 3300) -> tuple[Player, ...]:
    return tuple(Player(f"P{i}", f"Engine {i}", i, rating) for i in range(1, n + 1))


def single_round(number: int, *games: tuple[str, str, Result]) -> RoundRecord:
    return RoundRecord(number, None, (), tuple(PlayedGame(w, b, r) for w, b, r in games))
