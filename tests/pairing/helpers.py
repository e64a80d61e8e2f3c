"""Builders shared by the pairing tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tcecd.domain import Result
from tcecd.pairing.base import PlayedGame, Player, RoundPairing, RoundRecord
from tcecd.pairing.tcec_swiss import TcecSwiss


def field(n: int) -> tuple[Player, ...]:
    """Players P1..Pn with seed i."""
    return tuple(Player(id=f"P{i}", name=f"Player {i}", seed=i) for i in range(1, n + 1))


def finish(pairing: RoundPairing, results: Sequence[str]) -> RoundRecord:
    """The record of a paired round with the given results (in playing order)."""
    assert len(results) == len(pairing.games)
    return RoundRecord(
        round=pairing.round,
        bye=pairing.bye,
        removed_history_rounds=pairing.removed_history_rounds,
        games=tuple(
            PlayedGame(g.white, g.black, Result.from_pgn(r))
            for g, r in zip(pairing.games, results, strict=True)
        ),
    )


def games(pairing: RoundPairing) -> list[str]:
    """``["white-black", ...]`` in playing order."""
    return [f"{g.white}-{g.black}" for g in pairing.games]


def run_event(
    players: Sequence[Player],
    rounds: int,
    *,
    double: bool,
    result: Callable[[int, str, str], str],
) -> list[tuple[RoundPairing, RoundRecord]]:
    """Pair and play ``rounds`` rounds; ``result(round, white, black)`` gives
    each game's result."""
    system = TcecSwiss()
    history: list[RoundRecord] = []
    out = []
    for _ in range(rounds):
        pairing = system.pair(players, history, double=double)
        record = finish(pairing, [result(pairing.round, g.white, g.black) for g in pairing.games])
        history.append(record)
        out.append((pairing, record))
    return out


def all_draws(_round: int, _white: str, _black: str) -> str:
    return "1/2-1/2"
