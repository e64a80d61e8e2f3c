"""Differential audit: a brute-force TCEC Swiss written straight from the rule
text (no blossom, no cleverness: perfect matchings by exhaustive search on
small fields) against ``TcecSwiss`` on many random small events, with BYEs,
draws, forfeits that never started, history removals and double rounds."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

import pytest

from tcecd.domain import Result
from tcecd.errors import PairingError
from tcecd.pairing.base import PlayedGame, Player, RoundRecord
from tcecd.pairing.tcec_swiss import TcecSwiss

Ref = tuple[str | None, tuple[int, ...], list[tuple[str, str]], list[tuple[str, str]]]


def reference_pair(players: Sequence[Player], history: Sequence[RoundRecord], double: bool) -> Ref:
    """(bye, removed rounds, pairs (first, second), games (white, black) in playing order)."""
    seed = {p.id: p.seed for p in players}
    score = dict.fromkeys(seed, 0)
    byes = dict.fromkeys(seed, 0)
    wgd = dict.fromkeys(seed, 0)
    for r in history:
        if r.bye is not None:
            score[r.bye] += 4 if double else 2  # a win per game of the round
            byes[r.bye] += 1
        for g in r.games:
            w = {Result.WHITE_WINS: 2, Result.DRAW: 1, Result.BLACK_WINS: 0}[g.result]
            score[g.white] += w
            score[g.black] += 2 - w
            if g.played:  # a forfeit that never started gives no colour
                wgd[g.white] += 1
                wgd[g.black] -= 1
    # STEP 1 and 2
    order = sorted(seed, key=lambda p: (-score[p], seed[p]))
    bye = None
    if len(order) % 2:
        # BYEs DESC, pairing order ASC; the bottom player
        bye = sorted(order, key=lambda p: (-byes[p], order.index(p)))[-1]
        order.remove(bye)
    # STEP 3
    removed = {x for r in history for x in r.removed_history_rounds}
    in_force = [r for r in history if r.round not in removed]
    new_removed: list[int] = []

    def allowed(a: str, b: str) -> bool:
        met = any({a, b} == {g.white, g.black} for r in in_force for g in r.games)
        return not met and abs(wgd[a] + wgd[b]) <= 2

    def perfect(vs: tuple[str, ...]) -> bool:
        @cache
        def go(rest: frozenset[str]) -> bool:
            if not rest:
                return True
            a = min(rest, key=order.index)
            return any(allowed(a, b) and go(rest - {a, b}) for b in rest - {a})

        return go(frozenset(vs))

    while not perfect(tuple(order)):
        if not in_force:
            raise PairingError("colour block")
        new_removed.append(in_force.pop(0).round)
    # STEP 4
    left = list(order)
    pairs = []
    while left:
        first = left.pop(0)
        second = next(
            c for c in left if allowed(first, c) and perfect(tuple(x for x in left if x != c))
        )
        left.remove(second)
        pairs.append((first, second))
    # STEP 5 and playing order
    rnd = len(history) + 1
    firsts = []
    for first, second in reversed(pairs):
        if double:
            fw = False
        elif wgd[first] != wgd[second]:
            fw = wgd[first] < wgd[second]
        elif score[first] != score[second]:
            fw = score[first] < score[second]
        else:
            fw = rnd % 4 in (2, 3)
        firsts.append((first, second) if fw else (second, first))
    games = firsts + ([(b, w) for w, b in firsts] if double else [])
    return bye, tuple(new_removed), pairs, games


def random_event(rng: random.Random, n: int, rounds: int, double: bool) -> int:
    players = [Player(id=f"P{i}", name=f"P{i}", seed=i) for i in range(1, n + 1)]
    history: list[RoundRecord] = []
    system = TcecSwiss()
    checked = 0
    for _ in range(rounds):
        try:
            expected = reference_pair(players, history, double)
        except PairingError:
            with pytest.raises(PairingError):
                system.pair(players, history, double=double)
            return checked
        got = system.pair(players, history, double=double)
        assert got.bye == expected[0]
        assert got.removed_history_rounds == expected[1]
        assert [(p.first, p.second) for p in got.pairs] == expected[2]
        assert [(g.white, g.black) for g in got.games] == expected[3]
        checked += 1
        games = []
        for g in got.games:
            result = rng.choice([Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS, Result.DRAW])
            played = rng.random() > 0.05
            games.append(PlayedGame(g.white, g.black, result, played))
        history.append(RoundRecord(got.round, got.bye, got.removed_history_rounds, tuple(games)))
        if not double:
            # Rule text, STEP 5 notes: every player always has at most 2 more
            # games with one colour than with the other (forfeits never played
            # included: they give no colour at all).
            wgd = dict.fromkeys((p.id for p in players), 0)
            for r in history:
                for pg in r.games:
                    if pg.played:
                        wgd[pg.white] += 1
                        wgd[pg.black] -= 1
            assert all(abs(w) <= 2 for w in wgd.values())
    return checked


@pytest.mark.parametrize("double", [False, True])
def test_matches_a_brute_force_reference(double: bool) -> None:
    rng = random.Random(20261122 + double)
    checked = 0
    for _ in range(120):
        n = rng.randint(2, 9)
        checked += random_event(rng, n, rng.randint(1, 2 * n), double)
    assert checked > 500
