"""Openings files against the issue text ("EPD or PGN files, sequential or
seeded-random order, a ply limit"): the cases a book maker writes that the
first tests did not cover. Expected values are worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcecd.errors import OpeningsError
from tcecd.game.openings import load_openings, select_opening


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_pgn_from_a_fen_with_a_ply_limit_keeps_the_start_position(tmp_path: Path) -> None:
    fen = "rnbqkbnr/pp2pppp/2p5/3p4/3PP3/8/PPP2PPP/RNBQKBNR w KQkq - 0 3"
    path = write(tmp_path, "caro.pgn", f'[FEN "{fen}"]\n[SetUp "1"]\n\n3. e5 Bf5 4. Nf3 e6 *\n')
    (opening,) = load_openings(path, plies=1)
    assert opening.fen == fen  # the header's position, not the one after the cut
    assert opening.moves == ("e4e5",)


def test_pgn_comments_nags_and_variations_are_not_book_moves(tmp_path: Path) -> None:
    path = write(
        tmp_path, "notes.pgn", "1. e4 {best by test} e5 (1... c5 2. Nf3) 2. Nf3 $1 Nc6 *\n"
    )
    (opening,) = load_openings(path)
    assert opening.moves == ("e2e4", "e7e5", "g1f3", "b8c6")


def test_pgn_line_that_ends_the_game_is_rejected_unless_cut(tmp_path: Path) -> None:
    path = write(tmp_path, "fool.pgn", "1. f3 e5 2. g4 Qh4# 0-1\n")
    with pytest.raises(OpeningsError, match=r"fool\.pgn: game 1: the game is already over"):
        load_openings(path)
    (opening,) = load_openings(path, plies=3)
    assert opening.moves == ("f2f3", "e7e5", "g2g4")


def test_pgn_line_ending_in_a_third_repetition_is_rejected(tmp_path: Path) -> None:
    # The start position occurs at the start, after 2...Ng8 and after 4...Ng8:
    # tcecd's rules (threefold, no claim needed) would end the game at once.
    path = write(tmp_path, "shuffle.pgn", "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 *\n")
    with pytest.raises(OpeningsError, match="already over"):
        load_openings(path)
    (opening,) = load_openings(path, plies=7)
    assert len(opening.moves) == 7


def test_epd_move_counters_are_kept(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "counters.epd",
        "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - hmvc 1; fmvn 1;\n"
        "r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - hmvc 7; fmvn 12;\n",
    )
    first, second = load_openings(path)
    assert first.fen == "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"
    assert second.fen == "r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 7 12"


def test_epd_at_the_fifty_move_limit_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "fifty.epd", "8/8/4k3/8/8/3QK3/8/8 w - - hmvc 100; fmvn 90;\n")
    with pytest.raises(OpeningsError, match=r"fifty\.epd:1: the game is already over"):
        load_openings(path)


def test_both_games_of_a_pair_and_a_resume_get_the_same_opening(tmp_path: Path) -> None:
    path = write(tmp_path, "three.pgn", "1. e4 *\n\n1. d4 *\n\n1. c4 *\n")
    openings = load_openings(path)
    for order in ("sequential", "random"):
        picks = [select_opening(openings, slot, order=order, seed=9) for slot in range(6)]
        # Asked again (the reversed game, or after a restart): the same answers.
        assert picks == [select_opening(openings, s, order=order, seed=9) for s in range(6)]
        # Each slot cycle uses every opening once.
        assert {p.moves for p in picks[:3]} == {("e2e4",), ("d2d4",), ("c2c4",)}
        assert picks[3:] == picks[:3]
