"""Properties of the 2012 Dutch pairing over random fields, rounds and results.

Each example plays a whole random event (some forfeits never played, some
requested byes) and checks every round against the absolute criteria:

* B.1a: no two players meet twice (a forfeit never played is no encounter);
* B.1b: no second bye for a player who had a point without playing, so at
  most one pairing-allocated bye per player;
* B.2: never two players with the same absolute colour preference (no total
  rounds given, so the top-scorer exception of the last round never applies),
  hence no colour difference beyond +-2 and no colour three times running;
* everybody is paired exactly once, bar the requested byes and one bye in an
  odd field.

A round the system declares impossible must really be impossible: networkx
then finds no pairing meeting B.1 and B.2 (with an eligible bye).
"""

from __future__ import annotations

import random

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, Result
from tcecd.errors import PairingError
from tcecd.pairing.base import Bye, ByeKind, PlayedGame, Player, RoundContext, RoundRecord
from tcecd.pairing.dutch2012.colours import Strength, preference
from tcecd.pairing.dutch2012.state import player_states
from tcecd.pairing.dutch2012.system import Dutch2012


def _field(n: int, rng: random.Random) -> list[Player]:
    ratings = sorted((rng.randrange(2000, 2800) for _ in range(n)), reverse=True)
    return [Player(f"P{i}", f"Player {i:02d}", i, ratings[i - 1]) for i in range(1, n + 1)]


def _possible(players: list[Player], history: list[RoundRecord], absent: set[str]) -> bool:
    """Whether any pairing meets B.1 and B.2 (brute force by networkx matching)."""
    states = player_states(players, history, double=False)
    ids = [p.id for p in players if p.id not in absent]
    prefs = {i: preference(states[i].colours) for i in ids}
    g = nx.Graph()
    g.add_nodes_from(ids)
    for a in ids:
        for b in ids:
            if a < b and b not in states[a].opponents:
                pa, pb = prefs[a], prefs[b]
                absolute = pa.strength is Strength.ABSOLUTE and pb.strength is Strength.ABSOLUTE
                if not (absolute and pa.colour is pb.colour):
                    g.add_edge(a, b)
    if len(ids) % 2:
        g.add_node("BYE")
        for a in ids:
            if not states[a].unplayed_point:
                g.add_edge(a, "BYE")
    matching = nx.max_weight_matching(g, maxcardinality=True)
    return 2 * len(matching) == g.number_of_nodes()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(min_value=4, max_value=13),
    rounds=st.integers(min_value=3, max_value=7),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_absolute_criteria_hold(n: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    players = _field(n, rng)
    system = Dutch2012()
    history: list[RoundRecord] = []
    met: set[frozenset[str]] = set()
    colours: dict[str, list[Color]] = {p.id: [] for p in players}
    allocated_byes: dict[str, int] = {p.id: 0 for p in players}
    for number in range(1, rounds + 1):
        absent = {p.id for p in players if rng.random() < 0.08}
        requested = tuple(Bye(a, ByeKind.HALF) for a in sorted(absent))
        context = RoundContext(requested_byes=requested)
        try:
            pairing = system.pair(players, history, double=False, context=context)
        except PairingError:
            assert not _possible(players, history, absent)
            return
        states = player_states(players, history, double=False)
        seen = [x for g in pairing.games for x in (g.white, g.black)]
        if pairing.bye is not None:
            seen.append(pairing.bye)
            assert not states[pairing.bye].unplayed_point  # B.1b
            allocated_byes[pairing.bye] += 1
            assert allocated_byes[pairing.bye] == 1
        assert sorted(seen) == sorted(p.id for p in players if p.id not in absent)
        games = []
        for g in pairing.games:
            key = frozenset((g.white, g.black))
            assert key not in met, f"round {number}: {g.white}-{g.black} met before (B.1a)"
            pw = preference(colours[g.white])
            pb = preference(colours[g.black])
            assert not (
                pw.strength is Strength.ABSOLUTE
                and pb.strength is Strength.ABSOLUTE
                and pw.colour is pb.colour
            ), f"round {number}: {g.white}-{g.black} share an absolute preference (B.2)"
            played = rng.random() > 0.05
            result = rng.choice([Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS])
            if not played:
                result = rng.choice([Result.WHITE_WINS, Result.BLACK_WINS])
            games.append(PlayedGame(g.white, g.black, result, played))
        for game in games:
            if game.played:
                met.add(frozenset((game.white, game.black)))
                colours[game.white].append(Color.WHITE)
                colours[game.black].append(Color.BLACK)
        for pid, cs in colours.items():
            diff = sum(1 if c is Color.WHITE else -1 for c in cs)
            assert -2 <= diff <= 2, pid
            assert not (len(cs) >= 3 and cs[-1] is cs[-2] is cs[-3]), pid
        history.append(RoundRecord(number, pairing.bye, (), tuple(games), requested))
