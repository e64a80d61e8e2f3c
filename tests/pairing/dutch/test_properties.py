"""Properties of the Dutch system on random events it pairs itself.

Whatever the results, every round it pairs keeps the absolute criteria:
nobody meets the same opponent twice (C.1), nobody receives the
pairing-allocated bye twice (C.2), and two non-topscorers with the same
absolute colour preference never meet (C.3), so nobody gets a colour
difference beyond +-2 or the same colour three times in a row unless C.3's
exemption let a topscorer (A.7: over 50% of the maximum score when pairing
the final round) meet a player of the same absolute colour preference.
When it finds no pairing, none exists (checked by brute force from the rule
text), and the compatibility it pairs with is C.1 and C.3 as written, for
topscorers too.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, Result
from tcecd.errors import PairingError
from tcecd.pairing.base import PlayedGame, Player, RoundContext, RoundRecord
from tcecd.pairing.dutch.colours import preference
from tcecd.pairing.dutch.criteria import compatible
from tcecd.pairing.dutch.state import PlayerState, build_states
from tcecd.pairing.dutch.system import Dutch2017

RESULTS = (Result.WHITE_WINS, Result.BLACK_WINS, Result.DRAW)
W, B = Color.WHITE, Color.BLACK


def absolute_colour(played: Sequence[Color]) -> Color | None:
    """A.6.a, read from the text: the colour a player must get because its
    colour difference is beyond +-1 or its two latest games had the same
    colour (None: no absolute preference)."""
    difference = sum(1 if c is W else -1 for c in played)
    if difference > 1:
        return B
    if difference < -1:
        return W
    if len(played) >= 2 and played[-1] is played[-2]:
        return played[-1].other
    return None


def may_meet(a: PlayerState, b: PlayerState) -> bool:
    """C.1 and C.3 as written: not met before, and not two non-topscorers
    with the same absolute colour preference."""
    if b.id in a.opponents:
        return False
    same = absolute_colour(a.played) is not None and (
        absolute_colour(a.played) is absolute_colour(b.played)
    )
    return not (same and not a.topscorer and not b.topscorer)


def pairing_exists(states: Sequence[PlayerState]) -> bool:
    """Whether the players can all be paired by C.1-C.3, one of them (C.2:
    one who had no pairing-allocated bye yet) taking the bye when they are
    odd. Brute force: the fields here have at most 12 players."""

    def pairable(rest: tuple[PlayerState, ...]) -> bool:
        if not rest:
            return True
        first, others = rest[0], rest[1:]
        return any(
            may_meet(first, other) and pairable(others[:k] + others[k + 1 :])
            for k, other in enumerate(others)
        )

    everyone = tuple(states)
    if len(everyone) % 2 == 0:
        return pairable(everyone)
    return any(
        s.pab_allowed and pairable(everyone[:k] + everyone[k + 1 :])
        for k, s in enumerate(everyone)
    )


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
        before = build_states(players, history, double=False, total_rounds=rounds)
        try:
            pairing = system.pair(players, history, double=False, context=context)
        except PairingError:
            # A.9: the arbiter's case, only when no pairing satisfies C.1-C.3.
            assert not pairing_exists(list(before.values())), f"round {rnd}: a pairing exists"
            break
        games = []
        for pair in pairing.pairs:
            key = frozenset((pair.first, pair.second))
            assert key not in met, f"round {rnd}: {pair} met before (C.1)"
            assert may_meet(before[pair.first], before[pair.second]), f"round {rnd}: {pair} (C.3)"
            met.add(key)
            result = data.draw(st.sampled_from(RESULTS))
            games.append(PlayedGame(pair.first, pair.second, result))
        if pairing.bye is not None:
            assert pairing.bye not in byes, f"round {rnd}: second bye for {pairing.bye} (C.2)"
            byes.add(pairing.bye)
        history.append(RoundRecord(rnd, pairing.bye, (), tuple(games)))
        after = build_states(players, history, double=False, total_rounds=rounds)
        for game in games:
            white, black = before[game.white], before[game.black]
            colour = absolute_colour(white.played)
            if colour is not None and colour is absolute_colour(black.played):
                # C.3's exemption: a topscorer (A.7, the final round only)
                # met a player of the same absolute colour preference; one
                # of them cannot get it.
                assert white.topscorer or black.topscorer
                assert rnd == rounds
                continue
            for pid in (game.white, game.black):
                played = after[pid].played
                assert abs(after[pid].colour_difference) <= 2, f"round {rnd}: {pid} {played}"
                assert played[-3:] not in ((W,) * 3, (B,) * 3), f"round {rnd}: {pid} {played}"


colours = st.lists(st.sampled_from((W, B, None)), max_size=8)


@settings(max_examples=300, deadline=None)
@given(
    first=colours, second=colours, tops=st.tuples(st.booleans(), st.booleans()), met=st.booleans()
)
def test_compatibility_is_c1_and_c3_as_written(
    first: list[Color | None], second: list[Color | None], tops: tuple[bool, bool], met: bool
) -> None:
    # Both topscorer flags matter: C.3 binds only two non-topscorers, so one
    # topscorer is enough to let two players of the same absolute colour
    # preference meet (in the final round, where A.7 makes topscorers).
    def state(pid: str, history: list[Color | None], top: bool, other: str) -> PlayerState:
        return PlayerState(
            id=pid,
            seed=int(pid[1:]),
            score=0,
            colours=tuple(history),
            floats=(None,) * len(history),
            opponents=frozenset({other} if met else ()),
            pab_allowed=True,
            topscorer=top,
        )

    a = state("p1", first, tops[0], "p2")
    b = state("p2", second, tops[1], "p1")
    expected = may_meet(a, b)
    assert compatible(a, preference(a), b, preference(b)) is expected
    assert compatible(b, preference(b), a, preference(a)) is expected
