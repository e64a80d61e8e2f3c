"""The Dutch system's shortcuts change no pairing (no oracle needed).

When a bracket's best pairings leave at most one downfloater, C.7 is summed
up per player instead of putting the following bracket in the matcher
(``tcecd.pairing.dutch.following``), and D.2's weights join the first
matching for a guessed remainder. Every round of random events, paired by
the system itself with requested byes, players who withdraw, forfeits and
draws (the shapes bbpPairings' generator plays), must come out the same with
the summary switched off: the following bracket in the matcher and D.2 only
once the remainder is known, as before the shortcuts.
"""

from __future__ import annotations

import random

import pytest

from tcecd.domain import Result
from tcecd.errors import PairingError
from tcecd.pairing.base import (
    Bye,
    ByeKind,
    Pair,
    PlayedGame,
    Player,
    RoundContext,
    RoundRecord,
)
from tcecd.pairing.dutch import brackets
from tcecd.pairing.dutch.following import Following
from tcecd.pairing.dutch.system import Dutch2017


def _game(rng: random.Random, pair: Pair, draw: float) -> PlayedGame:
    wins = (Result.WHITE_WINS, Result.BLACK_WINS)
    if rng.random() < 0.03:  # a forfeit: never played, one side scores
        return PlayedGame(pair.first, pair.second, rng.choice(wins), played=False)
    result = Result.DRAW if rng.random() < draw else rng.choice(wins)
    return PlayedGame(pair.first, pair.second, result)


@pytest.mark.parametrize("seed", range(24))
def test_summed_up_c7_pairs_as_the_full_graph(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    n, rounds = rng.randint(15, 70), rng.randint(5, 9)
    draw = rng.choice((0.1, 0.3, 0.6))
    players = [Player(f"p{k}", f"P{k}", k, 2700 - 10 * k) for k in range(1, n + 1)]
    gone: set[str] = set()  # withdrawn: absent from every later round
    system = Dutch2017()
    history: list[RoundRecord] = []
    real = brackets.following_bracket
    summed = 0

    def counting(*args: object, **kwargs: object) -> Following | None:
        nonlocal summed
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        summed += found is not None
        return found

    for number in range(1, rounds + 1):
        gone |= {p.id for p in players if rng.random() < 0.02}
        byes = tuple(
            Bye(p.id, ByeKind.ZERO if p.id in gone else rng.choice((ByeKind.HALF, ByeKind.ZERO)))
            for p in players
            if p.id in gone or rng.random() < 0.06
        )
        context = RoundContext(total_rounds=rounds, requested_byes=byes)
        try:
            with monkeypatch.context() as m:
                m.setattr(brackets, "following_bracket", counting)
                fast = system.pair(players, history, double=False, context=context)
        except PairingError:
            break  # no pairing by C.1-C.3 (A.9): the event ends here
        with monkeypatch.context() as m:
            m.setattr(brackets, "following_bracket", lambda *a, **k: None)
            full = system.pair(players, history, double=False, context=context)
        assert fast == full, f"seed {seed}, round {number}"
        games = tuple(_game(rng, pair, draw) for pair in fast.pairs)
        history.append(RoundRecord(number, fast.bye, (), games, byes))
    assert summed  # the shortcut was taken
