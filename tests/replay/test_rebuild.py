"""Rebuilding events from PGN: the TCEC reference files, hand-made events
worked out by hand from the rule text, inference, unfinished rounds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tcecd.domain import Result
from tcecd.pairing.base import PlayedGame, Player
from tcecd.replay.event import rebuild_from_pgn
from tcecd.replay.verify import DeviationKind
from tests.fixtures.replay_pgn import SimGame, headers_pgn, simulate_event, tcecd_pgn


def samples_dir() -> Path | None:
    env = os.environ.get("TCECD_SAMPLES_PATH")
    root = Path(__file__).resolve().parents[2]
    for candidate in (Path(env) if env else None, root / "../shared/data/tcec-swiss-samples"):
        if candidate is not None and candidate.is_dir():
            return candidate.resolve()
    return None


SAMPLES = samples_dir()
needs_samples = pytest.mark.skipif(SAMPLES is None, reason="TCEC sample PGNs not found")


def write(tmp_path: Path, text: str, name: str = "event.pgn") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def pgn_game(round_tag: str, white: str, black: str, result: str) -> str:
    return (
        f'[Event "hand"]\n[Site "?"]\n[Round "{round_tag}"]\n[White "{white}"]\n'
        f'[Black "{black}"]\n[Result "{result}"]\n\n{result}\n\n'
    )


@needs_samples
@pytest.mark.parametrize(
    ("name", "players", "rounds", "double"),
    [("a_10p_7r_single.pgn", 10, 7, False), ("c_8p_5r_double.pgn", 8, 5, True)],
)
def test_tcec_reference_events_follow_the_rules(
    name: str, players: int, rounds: int, double: bool
) -> None:
    assert SAMPLES is not None
    event = rebuild_from_pgn(SAMPLES / name)
    assert event.ok, [str(d) for d in event.deviations]
    assert event.double is double
    assert event.double_inferred
    assert len(event.players) == players
    # The README: the engine names start with their seed (P01 = seed 1, ...).
    for p in event.players:
        assert int(p.id[1:3]) == p.seed
    assert len(event.rounds) == rounds
    assert event.partial is None
    games_per_round = players // 2 * (2 if double else 1)
    assert all(len(r.games) == games_per_round and r.bye is None for r in event.rounds)
    assert len(event.games) == rounds * games_per_round


# Four players, two rounds, worked out by hand from tcec-swiss-system.txt:
# round 1 pairs 2-1 and 4-3, worst pair first, second-of-pair White in round 1:
#   1.1 P4-P3 (White wins), 1.2 P2-P1 (Black wins).
# Round 2 pairing order P1, P4 (1 point), P2, P3 (0; seed order). P1 takes the
# highest allowed partner, P4 (not met, |WGD -1 + 1| = 0), leaving P2-P3.
# Colours: the greater WGD gets Black: P4 (+1) over P1 (-1), P2 (+1) over
# P3 (-1). Order: pairs by their first-of-pair's rank, worst first:
#   2.1 P3-P2, 2.2 P1-P4.
HAND_4 = [
    ("1.1", "P4", "P3", "1-0"),
    ("1.2", "P2", "P1", "0-1"),
    ("2.1", "P3", "P2", "1/2-1/2"),
    ("2.2", "P1", "P4", "1-0"),
]


def test_hand_made_event_follows_the_rules(tmp_path: Path) -> None:
    path = write(tmp_path, "".join(pgn_game(*g) for g in HAND_4))
    event = rebuild_from_pgn(path)
    assert event.ok, [str(d) for d in event.deviations]
    assert [(p.id, p.seed) for p in event.players] == [("P1", 1), ("P2", 2), ("P3", 3), ("P4", 4)]
    assert event.double is False
    assert event.rounds[1].games == (
        PlayedGame("P3", "P2", Result.DRAW),
        PlayedGame("P1", "P4", Result.WHITE_WINS),
    )
    assert event.event == "hand"


def test_hand_made_colour_swap_is_reported_exactly(tmp_path: Path) -> None:
    games = [*HAND_4[:3], ("2.2", "P4", "P1", "0-1")]
    event = rebuild_from_pgn(write(tmp_path, "".join(pgn_game(*g) for g in games)))
    assert [str(d) for d in event.deviations] == [
        "round 2 game 2: rules give P1 (white) vs P4 (black); "
        "PGN has P4 (white) vs P1 (black) [colours swapped]"
    ]


def test_hand_made_wrong_order_is_reported_exactly(tmp_path: Path) -> None:
    games = [*HAND_4[:2], ("2.1", "P1", "P4", "1-0"), ("2.2", "P3", "P2", "1/2-1/2")]
    event = rebuild_from_pgn(write(tmp_path, "".join(pgn_game(*g) for g in games)))
    assert [str(d) for d in event.deviations] == [
        "round 2 game 1: rules give P3 (white) vs P2 (black); "
        "PGN has P1 (white) vs P4 (black) [wrong order]",
        "round 2 game 2: rules give P1 (white) vs P4 (black); "
        "PGN has P3 (white) vs P2 (black) [wrong order]",
    ]


def test_hand_made_wrong_pair_is_reported_exactly(tmp_path: Path) -> None:
    # P3-P4 met in round 1 already: the rules pair P3-P2 and P1-P4.
    games = [*HAND_4[:2], ("2.1", "P3", "P4", "1-0"), ("2.2", "P1", "P2", "1/2-1/2")]
    event = rebuild_from_pgn(write(tmp_path, "".join(pgn_game(*g) for g in games)))
    assert [str(d) for d in event.deviations] == [
        "round 2 game 1: rules give P3 (white) vs P2 (black); "
        "PGN has P3 (white) vs P4 (black) [wrong pair]",
        "round 2 game 2: rules give P1 (white) vs P4 (black); "
        "PGN has P1 (white) vs P2 (black) [wrong pair]",
    ]


# Five players, worked out by hand. Round 1: the BYE goes to the last seed,
# P5; 1.1 P4-P3, 1.2 P2-P1. With P4 and P1 winning, round 2's pairing order is
# P1, P4, P5 (1 point each, a BYE scores as a win), P2, P3; the BYE goes to
# the lowest of those without one: P3. P1-P4 and P5-P2 remain; Black for the
# greater WGD: P4 (+1 vs -1), P2 (+1 vs 0). Worst pair first: 2.1 P5-P2,
# 2.2 P1-P4.
HAND_5 = [
    ("1.1", "P4", "P3", "1-0"),
    ("1.2", "P2", "P1", "0-1"),
    ("2.1", "P5", "P2", "1-0"),
    ("2.2", "P1", "P4", "1/2-1/2"),
]


def test_odd_field_bye_inferred(tmp_path: Path) -> None:
    event = rebuild_from_pgn(write(tmp_path, "".join(pgn_game(*g) for g in HAND_5)))
    assert event.ok, [str(d) for d in event.deviations]
    assert [(p.id, p.seed) for p in event.players][-1] == ("P5", 5)
    assert [r.bye for r in event.rounds] == ["P5", "P3"]


def test_wrong_bye_is_reported(tmp_path: Path) -> None:
    # P3 plays instead of P2, who sits out: the BYE is P3's by the rules.
    games = [*HAND_5[:2], ("2.1", "P5", "P3", "1-0"), HAND_5[3]]
    event = rebuild_from_pgn(write(tmp_path, "".join(pgn_game(*g) for g in games)))
    assert [str(d) for d in event.deviations] == [
        "round 2: rules give the BYE to P3; PGN has the BYE to P2 [wrong BYE]",
        "round 2 game 1: rules give P5 (white) vs P2 (black); "
        "PGN has P5 (white) vs P3 (black) [wrong pair]",
    ]


def test_config_seeds_override_inference(tmp_path: Path) -> None:
    # With seeds from a config that differ from round 1, round 1 itself deviates.
    players = [Player("P1", "P1", 2), Player("P2", "P2", 1), Player("P3", "P3", 3),
               Player("P4", "P4", 4)]  # fmt: skip
    event = rebuild_from_pgn(
        write(tmp_path, "".join(pgn_game(*g) for g in HAND_4)), players=players
    )
    assert not event.seeds_inferred
    assert [p.id for p in event.players] == ["P2", "P1", "P3", "P4"]
    assert any(
        d.round == 1 and d.game == 2 and d.kind is DeviationKind.COLOURS_SWAPPED
        for d in event.deviations
    )


def test_double_given_but_games_single_is_an_impossible_round(tmp_path: Path) -> None:
    from tcecd.errors import PgnError

    path = write(tmp_path, "".join(pgn_game(*g) for g in HAND_4))
    message = r"event\.pgn: game 2: round 1 has 2 games and 'P4' plays 1 of them"
    with pytest.raises(PgnError, match=message):
        rebuild_from_pgn(path, double=True)


def test_simulated_double_event_with_byes(tmp_path: Path) -> None:
    players, games, history = simulate_event(7, 5, double=True)
    event = rebuild_from_pgn(write(tmp_path, headers_pgn(games)))
    assert event.ok, [str(d) for d in event.deviations]
    assert event.double is True
    assert event.players == tuple(players)
    assert event.rounds == tuple(history)
    assert sum(1 for r in event.rounds if r.bye) == 5


def test_event_written_by_tcecd_follows_the_rules(tmp_path: Path) -> None:
    """The daemon's own PGN layout (tcecd's writer, with real moves)."""
    players, games, history = simulate_event(6, 4)
    event = rebuild_from_pgn(write(tmp_path, tcecd_pgn(games)))
    assert event.ok, [str(d) for d in event.deviations]
    assert event.players == tuple(players)
    assert event.rounds == tuple(history)
    assert event.games[0].plies == 4
    assert event.event == "tcecd-sim"


def test_history_removal_is_rebuilt(tmp_path: Path) -> None:
    # 4 players, 5 rounds: after 3 rounds everyone has met everyone, so the
    # rules must remove history rounds; the rebuilt records carry them.
    _players, games, history = simulate_event(4, 5)
    assert any(r.removed_history_rounds for r in history)
    event = rebuild_from_pgn(write(tmp_path, headers_pgn(games)))
    assert event.ok
    assert event.rounds == tuple(history)


def test_unfinished_last_round(tmp_path: Path) -> None:
    _players, games, history = simulate_event(8, 3)
    cut = games[:-2]  # two games of round 3 not played yet
    unfinished = SimGame(games[-2].game_id, games[-2].white, games[-2].black, Result.UNFINISHED)
    event = rebuild_from_pgn(write(tmp_path, headers_pgn([*cut, unfinished])))
    assert event.ok
    assert event.rounds == tuple(history[:2])
    assert event.partial is not None
    assert event.partial.round == 3
    assert event.partial.games == history[2].games[:2]
    assert event.partial.pairing is not None
    assert len(event.partial.pairing.games) == 4
    assert len(event.games) == 10
