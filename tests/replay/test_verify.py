"""``--verify`` on simulated events with exactly one tampered round each.

The tamper happens while the event is simulated, and later rounds are paired
from what was "played", so a correct verifier reports the tampered round and
nothing else. Expected messages are built from the untampered pairing, which
the simulation records before tampering.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tcecd.domain import PlayerId
from tcecd.replay.event import ReplayedEvent, rebuild_from_pgn
from tcecd.replay.verify import DeviationKind
from tests.fixtures.replay_pgn import headers_pgn, simulate_event

Games = list[tuple[PlayerId, PlayerId]]


class Recorder:
    """A tamper that changes one round and remembers the rules' version."""

    def __init__(self, round_: int, change: str) -> None:
        self.round = round_
        self.change = change
        self.original: Games = []
        self.original_bye: PlayerId | None = None

    def __call__(
        self, r: int, games: Games, bye: PlayerId | None
    ) -> tuple[Games, PlayerId | None]:
        if r != self.round:
            return games, bye
        self.original, self.original_bye = list(games), bye
        g = list(games)
        if self.change == "swap-colours":
            g[1] = (g[1][1], g[1][0])
        elif self.change == "reorder":
            g[0], g[1] = g[1], g[0]
        elif self.change == "wrong-pair":
            (w1, b1), (w2, b2) = g[0], g[1]
            g[0], g[1] = (w1, b2), (w2, b1)
        elif self.change == "wrong-bye":
            assert bye is not None
            w, b = g[0]
            g[0], bye = (w, bye), b  # the BYE player plays; Black of game 1 sits out
        return g, bye


def text(white: str, black: str) -> str:
    return f"{white} (white) vs {black} (black)"


def run(
    tmp_path: Path, players: int, rounds: int, tamper: Recorder, double: bool = False
) -> ReplayedEvent:
    _, games, _ = simulate_event(players, rounds, double=double, tamper=tamper)
    path = tmp_path / "event.pgn"
    path.write_text(headers_pgn(games))
    return rebuild_from_pgn(path)


@pytest.mark.parametrize("double", [False, True])
def test_swapped_colours(tmp_path: Path, double: bool) -> None:
    t = Recorder(3, "swap-colours")
    event = run(tmp_path, 10, 5, t, double)
    (w, b) = t.original[1]
    assert [str(d) for d in event.deviations] == [
        f"round 3 game 2: rules give {text(w, b)}; PGN has {text(b, w)} [colours swapped]"
    ]


def test_wrong_order(tmp_path: Path) -> None:
    t = Recorder(4, "reorder")
    event = run(tmp_path, 12, 6, t)
    g1, g2 = t.original[0], t.original[1]
    assert [str(d) for d in event.deviations] == [
        f"round 4 game 1: rules give {text(*g1)}; PGN has {text(*g2)} [wrong order]",
        f"round 4 game 2: rules give {text(*g2)}; PGN has {text(*g1)} [wrong order]",
    ]


def test_wrong_pair(tmp_path: Path) -> None:
    t = Recorder(2, "wrong-pair")
    event = run(tmp_path, 8, 4, t)
    (w1, b1), (w2, b2) = t.original[0], t.original[1]
    assert [str(d) for d in event.deviations] == [
        f"round 2 game 1: rules give {text(w1, b1)}; PGN has {text(w1, b2)} [wrong pair]",
        f"round 2 game 2: rules give {text(w2, b2)}; PGN has {text(w2, b1)} [wrong pair]",
    ]
    assert {d.kind for d in event.deviations} == {DeviationKind.WRONG_PAIR}


def test_wrong_bye(tmp_path: Path) -> None:
    t = Recorder(3, "wrong-bye")
    event = run(tmp_path, 9, 5, t)
    assert t.original_bye is not None
    (w, b) = t.original[0]
    assert [str(d) for d in event.deviations] == [
        f"round 3: rules give the BYE to {t.original_bye}; PGN has the BYE to {b} [wrong BYE]",
        f"round 3 game 1: rules give {text(w, b)}; PGN has {text(w, t.original_bye)} "
        "[wrong pair]",
    ]


def test_untampered_events_verify(tmp_path: Path) -> None:
    for players, rounds, double in ((9, 6, False), (10, 9, False), (6, 4, True), (5, 6, True)):
        _, games, _ = simulate_event(players, rounds, double=double)
        path = tmp_path / f"e{players}-{rounds}.pgn"
        path.write_text(headers_pgn(games))
        event = rebuild_from_pgn(path)
        assert event.ok, (players, rounds, double, [str(d) for d in event.deviations])
