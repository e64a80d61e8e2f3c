"""Properties over many simulated events (hypothesis).

- Replaying the PGN of an event paired by the rules gives back its players,
  seeds, round format and every round record, and no deviation.
- Swapping the colours of any one game of any one round (the later rounds
  paired from what was played) is reported as exactly that one deviation.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tcecd.domain import PlayerId
from tcecd.replay.event import ReplayedEvent, rebuild_from_pgn
from tcecd.replay.verify import DeviationKind
from tests.fixtures.replay_pgn import headers_pgn, simulate_event

events = st.tuples(
    st.integers(min_value=2, max_value=12),  # players
    st.integers(min_value=1, max_value=6),  # rounds
    st.booleans(),  # double
)


def replay(text: str) -> ReplayedEvent:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "event.pgn"
        path.write_text(text)
        return rebuild_from_pgn(path)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events)
def test_rule_following_events_replay_exactly(event: tuple[int, int, bool]) -> None:
    players, rounds, double = event
    # A one-round PGN of an odd field never shows the BYE player: only a
    # config can name it (docs/replay.md).
    assume(players % 2 == 0 or rounds > 1)
    field, games, history = simulate_event(players, rounds, double=double)
    replayed = replay(headers_pgn(games))
    assert replayed.ok, [str(d) for d in replayed.deviations]
    assert replayed.players == tuple(field)
    assert replayed.double is double
    assert replayed.rounds == tuple(history)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events, st.data())
def test_one_colour_swap_is_one_deviation(
    event: tuple[int, int, bool], data: st.DataObject
) -> None:
    players, rounds, double = event
    target_round = data.draw(st.integers(min_value=2, max_value=max(2, rounds)), "round")
    per_round = players // 2 * (2 if double else 1)
    target_game = data.draw(st.integers(min_value=1, max_value=per_round), "game")
    seen: list[tuple[PlayerId, PlayerId]] = []

    def swap(
        r: int, g: list[tuple[PlayerId, PlayerId]], bye: PlayerId | None
    ) -> tuple[list[tuple[PlayerId, PlayerId]], PlayerId | None]:
        if r != target_round:
            return g, bye
        g = list(g)
        seen.append(g[target_game - 1])
        white, black = g[target_game - 1]
        g[target_game - 1] = (black, white)
        return g, bye

    _, games, _ = simulate_event(players, max(rounds, 2), double=double, tamper=swap)
    replayed = replay(headers_pgn(games))
    (white, black) = seen[0]
    assert [(d.round, d.game, d.kind) for d in replayed.deviations] == [
        (target_round, target_game, DeviationKind.COLOURS_SWAPPED)
    ]
    assert str(replayed.deviations[0]).endswith(
        f"rules give {white} (white) vs {black} (black); "
        f"PGN has {black} (white) vs {white} (black) [colours swapped]"
    )
