"""Hypothesis properties of the Dubov system: the absolute rules always hold.

Random events (2-10 players, up to 7 rounds, single or double rounds, random
results, forfeits never played, requested byes) are paired round by round.
The checks are computed here from the records, independently of
:mod:`tcecd.pairing.dubov.facts`:

* every player not on a requested bye is paired exactly once or has the
  pairing-allocated bye; requested byes are not paired;
* C.1: no two players meet twice over the board (a forfeit never played is
  no encounter);
* C.2 and C.04.1: nobody gets the pairing-allocated bye after a bye or a
  forfeit win, so at most one pairing-allocated bye per player;
* C.3 with section E: absolute colour preferences are always granted, so a
  colour difference never goes beyond +-2 and no player has the same colour
  three times running (played games; the first game of a double round);
* A.8: a round is refused (PairingError) only when no complete pairing
  exists at all, for any choice of the bye.
"""

from __future__ import annotations

import itertools
import random

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, Result
from tcecd.errors import PairingError
from tcecd.pairing.base import Bye, ByeKind, PlayedGame, RoundContext, RoundRecord
from tcecd.pairing.dubov.system import Dubov

from .helpers import field

RESULTS = [Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS]


class Record:
    """What the checks need, kept from the records by the test itself."""

    def __init__(self, ids: list[str]) -> None:
        self.colours: dict[str, list[Color]] = {p: [] for p in ids}
        self.met: set[frozenset[str]] = set()
        self.no_bye: set[str] = set()  # had the pairing bye or a forfeit win

    def absolute(self, pid: str) -> Color | None:
        seq = self.colours[pid]
        diff = sum(1 if c is Color.WHITE else -1 for c in seq)
        if diff < -1 or seq[-2:] == [Color.BLACK, Color.BLACK]:
            return Color.WHITE
        if diff > 1 or seq[-2:] == [Color.WHITE, Color.WHITE]:
            return Color.BLACK
        return None

    def legal(self, a: str, b: str) -> bool:
        if frozenset((a, b)) in self.met:
            return False
        pa, pb = self.absolute(a), self.absolute(b)
        return pa is None or pa is not pb

    def can_complete(self, playing: list[str]) -> bool:
        """Some bye (if needed) leaves a perfect legal pairing."""
        byes: list[str | None] = [None]
        if len(playing) % 2:
            byes = [p for p in playing if p not in self.no_bye]
        for bye in byes:
            rest = [p for p in playing if p != bye]
            g = nx.Graph()
            g.add_nodes_from(rest)
            g.add_edges_from((a, b) for a, b in itertools.combinations(rest, 2) if self.legal(a, b))
            if len(nx.max_weight_matching(g, maxcardinality=True)) * 2 == len(rest):
                return True
        return False


FLIP = {Result.WHITE_WINS: Result.BLACK_WINS, Result.BLACK_WINS: Result.WHITE_WINS}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 10),
    total=st.integers(1, 7),
    double=st.booleans(),
    rng=st.randoms(use_true_random=False),
)
def test_absolute_rules_always_hold(n: int, total: int, double: bool, rng: random.Random) -> None:
    players = field([2700 - 37 * i for i in range(n)])
    ids = [p.id for p in players]
    record = Record(ids)
    history: list[RoundRecord] = []
    system = Dubov()
    for number in range(1, total + 1):
        requested = tuple(Bye(p, ByeKind.HALF) for p in ids if rng.random() < 0.1)
        playing = [p for p in ids if p not in {b.player for b in requested}]
        context = RoundContext(total_rounds=total, requested_byes=requested)
        try:
            pairing = system.pair(players, history, double=double, context=context)
        except PairingError:
            assert not record.can_complete(playing), f"round {number} refused but pairable"
            return
        # Everyone playing is paired once or has the bye; nobody else is.
        seen = [pid for pair in pairing.pairs for pid in (pair.first, pair.second)]
        if pairing.bye is not None:
            seen.append(pairing.bye)
            assert pairing.bye not in record.no_bye  # C.2
            record.no_bye.add(pairing.bye)
        assert sorted(seen) == sorted(playing)
        games: list[PlayedGame] = []
        for pair in pairing.pairs:
            assert record.legal(pair.first, pair.second)  # C.1, C.3
            played = rng.random() > 0.08
            result = rng.choice(RESULTS if played else [RESULTS[0], RESULTS[2]])
            games.append(PlayedGame(pair.first, pair.second, result, played=played))
            if played:
                record.met.add(frozenset((pair.first, pair.second)))
                record.colours[pair.first].append(Color.WHITE)
                record.colours[pair.second].append(Color.BLACK)
            else:
                winner = pair.first if result is Result.WHITE_WINS else pair.second
                record.no_bye.add(winner)  # a forfeit win (C.2)
        if double:  # the reversed games; a forfeit keeps its winner
            games += [
                PlayedGame(g.black, g.white, rng.choice(RESULTS))
                if g.played
                else PlayedGame(g.black, g.white, FLIP[g.result], played=False)
                for g in list(games)
            ]
        for pid in ids:  # colour limits (section E grants absolute wishes)
            seq = record.colours[pid]
            assert abs(sum(1 if c is Color.WHITE else -1 for c in seq)) <= 2, (pid, seq)
            assert all(len(set(seq[i : i + 3])) > 1 for i in range(len(seq) - 2)), (pid, seq)
        history.append(RoundRecord(number, pairing.bye, (), tuple(games), requested_byes=requested))
