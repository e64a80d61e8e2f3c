"""``recover_from_pgn``: what ``tcecd run --from-pgn`` builds a new state from."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcecd.config.event_file import load_event
from tcecd.domain import GameId, Result
from tcecd.errors import PgnError
from tcecd.replay.recover import iter_game_records, recover_from_pgn
from tests.fixtures.replay_pgn import SimGame, simulate_event, tcecd_pgn
from tests.replay.test_cli import config, hand
from tests.replay.test_rebuild import HAND_4


def test_recovers_a_verified_event(tmp_path: Path) -> None:
    cfg = load_event(config(tmp_path, {"P1": 2000, "P2": 1900, "P3": 1800, "P4": 1700}))
    pgn = tmp_path / "event.pgn"
    pgn.write_text(hand(*HAND_4))
    event = recover_from_pgn(cfg, pgn)
    assert event.ok
    assert [p.id for p in event.players] == ["P1", "P2", "P3", "P4"]
    assert len(event.rounds) == 2
    assert event.partial is None
    pairings = event.pairings()
    assert [(g.white, g.black) for g in pairings[1].games] == [("P3", "P2"), ("P1", "P4")]
    records = list(iter_game_records(event))
    assert [r.game_id for r in records] == [GameId(1, 1), GameId(1, 2), GameId(2, 1),
                                            GameId(2, 2)]  # fmt: skip
    assert records[2].result is Result.DRAW


def test_unfinished_round_is_recovered_with_its_remaining_games(tmp_path: Path) -> None:
    _, games, history = simulate_event(6, 2)
    ratings = {f"P{i:02d}-e": 2000 - i for i in range(1, 7)}
    cfg = load_event(config(tmp_path, ratings))
    cut = [*games[:4], SimGame(games[4].game_id, games[4].white, games[4].black,
                               Result.UNFINISHED)]  # fmt: skip
    pgn = tmp_path / "event.pgn"
    pgn.write_text(tcecd_pgn(cut))
    event = recover_from_pgn(cfg, pgn)
    assert event.rounds == (history[0],)
    assert event.partial is not None
    assert event.partial.round == 2
    assert event.partial.games == history[1].games[:1]
    # The rules' round 2, whose games 2 and 3 are still to play.
    assert event.partial.pairing is not None
    assert [(g.white, g.black) for g in event.partial.pairing.games] == [
        (g.white, g.black) for g in history[1].games
    ]
    assert len(list(iter_game_records(event))) == 4


def test_a_deviating_pgn_cannot_be_continued(tmp_path: Path) -> None:
    cfg = load_event(config(tmp_path, {"P1": 2000, "P2": 1900, "P3": 1800, "P4": 1700}))
    pgn = tmp_path / "event.pgn"
    pgn.write_text(hand(*HAND_4[:3], ("2.2", "P4", "P1", "0-1")))
    with pytest.raises(PgnError) as info:
        recover_from_pgn(cfg, pgn)
    assert str(info.value) == (
        "event.pgn: does not follow the TCEC Swiss rules: round 2 game 2: rules give "
        "P1 (white) vs P4 (black); PGN has P4 (white) vs P1 (black) [colours swapped]"
    )


def test_more_rounds_than_planned(tmp_path: Path) -> None:
    _, games, _ = simulate_event(4, 3)
    cfg = load_event(config(tmp_path, {f"P{i:02d}-e": 2000 - i for i in range(1, 5)}))
    pgn = tmp_path / "event.pgn"
    pgn.write_text(tcecd_pgn(games))
    with pytest.raises(PgnError, match=r"event\.pgn: the PGN has 3 rounds; the config plans 2"):
        recover_from_pgn(cfg, pgn)


def test_format_must_match_the_config(tmp_path: Path) -> None:
    _, games, _ = simulate_event(4, 1, double=True)
    cfg = load_event(config(tmp_path, {f"P{i:02d}-e": 2000 - i for i in range(1, 5)}))
    pgn = tmp_path / "event.pgn"
    pgn.write_text(tcecd_pgn(games))
    with pytest.raises(PgnError, match=r"game 3: 'P0\d-e' plays game 2 of single round 1"):
        recover_from_pgn(cfg, pgn)
