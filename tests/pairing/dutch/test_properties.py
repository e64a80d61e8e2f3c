"""Properties of the Dutch system on random events it pairs itself.

Whatever the results, every round it pairs keeps the absolute criteria:
nobody meets the same opponent twice (C.1), nobody receives the
pairing-allocated bye twice (C.2), and no player who is not a topscorer gets
a colour difference beyond +-2 or the same colour three times in a row
(C.3 with A.6.a; only topscorers in the last round, A.7, may).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, Result
from tcecd.errors import PairingError
from tcecd.pairing.base import PlayedGame, Player, RoundContext, RoundRecord
from tcecd.pairing.dutch.state import build_states
from tcecd.pairing.dutch.system import Dutch2017

RESULTS = (Result.WHITE_WINS, Result.BLACK_WINS, Result.DRAW)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(min_value=3, max_value=12),
    rounds=st.integers(min_value=2, max_value=7),
    data=st.data(),
)
def test_absolute_criteria_hold_every_round(n: int, rounds: int, data: st.DataObject) -> None:
    players = [Player(f"p{k}", f"P{k}", k) for k in range(1, n + 1)]
    system = Dutch2017()
    context = RoundContext(total_rounds=rounds)
    history: list[RoundRecord] = []
    met: set[frozenset[str]] = set()
    byes: set[str] = set()
    for rnd in range(1, rounds + 1):
        try:
            pairing = system.pair(players, history, double=False, context=context)
        except PairingError:
            break  # no pairing satisfies C.1-C.3: the arbiter's case (A.9)
        before = build_states(players, history, double=False, total_rounds=rounds)
        games = []
        for pair in pairing.pairs:
            key = frozenset((pair.first, pair.second))
            assert key not in met, f"round {rnd}: {pair} met before (C.1)"
            met.add(key)
            result = data.draw(st.sampled_from(RESULTS))
            games.append(PlayedGame(pair.first, pair.second, result))
        if pairing.bye is not None:
            assert pairing.bye not in byes, f"round {rnd}: second bye for {pairing.bye} (C.2)"
            byes.add(pairing.bye)
        history.append(RoundRecord(rnd, pairing.bye, (), tuple(games)))
        after = build_states(players, history, double=False, total_rounds=rounds)
        for game in games:
            exempt = before[game.white].topscorer or before[game.black].topscorer
            for pid in (game.white, game.black):
                played = after[pid].played
                if exempt:
                    continue  # A.7: topscorers (and their opponents) in the last round
                assert abs(after[pid].colour_difference) <= 2, f"round {rnd}: {pid} {played}"
                assert played[-3:] not in ((Color.WHITE,) * 3, (Color.BLACK,) * 3), (
                    f"round {rnd}: {pid} {played}"
                )
