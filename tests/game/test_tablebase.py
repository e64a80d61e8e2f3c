"""Syzygy adjudication with the real 3-4 piece tables (skipped when absent)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import chess
import pytest

from tcecd.domain import Color, Result, Termination
from tcecd.errors import ConfigError
from tcecd.game.adjudication import AdjudicationRules, Adjudicator, TablebaseRule, Verdict
from tcecd.game.record import Score
from tcecd.game.tablebase import open_probe

Probe = Callable[[chess.Board], int | None]


@pytest.fixture
def probe(syzygy_dir: Path) -> Iterator[Probe]:
    probe, close = open_probe(syzygy_dir)
    yield probe
    close()


def after(fen: str, san: str) -> chess.Board:
    board = chess.Board(fen)
    board.push_san(san)
    return board


def test_kqvk_win_is_adjudicated_for_white(probe: Probe) -> None:
    # White queen d1 takes the rook on d2: KQvK, Black to move, lost.
    board = after("4k3/8/8/8/8/8/3r4/3QK3 w - - 0 1", "Qxd2")
    assert probe(board) == -2  # from the side to move (Black)
    adj = Adjudicator(AdjudicationRules(tablebase=TablebaseRule(3)), probe)
    assert adj.on_ply(board, Color.WHITE, Score(cp=900)) == Verdict(
        Result.WHITE_WINS, Termination.ADJUDICATION, "SyzygyTB"
    )


def test_kqvk_win_is_adjudicated_for_black(probe: Probe) -> None:
    # Mirror: Black's queen takes the white rook; White to move, lost.
    board = after("3qk3/3R4/8/8/8/8/8/4K3 b - - 0 1", "Qxd7")
    assert probe(board) == -2
    adj = Adjudicator(AdjudicationRules(tablebase=TablebaseRule(4)), probe)
    assert adj.on_ply(board, Color.BLACK, Score(cp=-900)) == Verdict(
        Result.BLACK_WINS, Termination.ADJUDICATION, "SyzygyTB"
    )


def test_kbvk_is_a_tablebase_draw(probe: Probe) -> None:
    # The laws of chess already call KBvK insufficient material (and the
    # Adjudicator applies them first); the table agrees it is a draw.
    board = chess.Board("8/8/8/4k3/8/8/8/2B1K3 b - - 0 1")
    assert probe(board) == 0
    adj = Adjudicator(AdjudicationRules(tablebase=TablebaseRule(3)), probe)
    verdict = adj.on_ply(board, Color.WHITE, Score(cp=0))
    assert verdict is not None
    assert verdict.result is Result.DRAW


def test_rook_pawn_with_the_defender_in_the_corner_is_a_draw(probe: Probe) -> None:
    # KPvK with the a-pawn and the black king on a8: a book draw.
    board = after("k7/8/8/8/8/8/P7/1K6 w - - 0 1", "Kb2")
    assert probe(board) == 0
    adj = Adjudicator(AdjudicationRules(tablebase=TablebaseRule(3)), probe)
    assert adj.on_ply(board, Color.WHITE, Score(cp=150)) == Verdict(
        Result.DRAW, Termination.ADJUDICATION, "SyzygyTB"
    )


def test_only_at_or_below_max_pieces(probe: Probe) -> None:
    # KRvK (3 pieces), Black to move and lost.
    board = after("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "Kf2")
    assert probe(board) == -2
    off = Adjudicator(AdjudicationRules(tablebase=TablebaseRule(2)), probe)
    assert off.on_ply(board, Color.WHITE, Score(cp=500)) is None
    on = Adjudicator(AdjudicationRules(tablebase=TablebaseRule(3)), probe)
    verdict = on.on_ply(board, Color.WHITE, Score(cp=500))
    assert verdict is not None
    assert verdict.result is Result.WHITE_WINS


def test_probe_returns_none_beyond_the_tables(probe: Probe) -> None:
    assert probe(chess.Board()) is None  # 32 pieces, castling rights
    # 5 pieces: no 5-piece tables in the 3-4 set.
    assert probe(chess.Board("4k3/8/8/8/8/8/2PPP3/4K3 w - - 0 1")) is None


def test_missing_directory_is_a_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(ConfigError, match="nope"):
        open_probe(missing)
