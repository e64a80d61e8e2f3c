"""Openings files: loading EPD/PGN with validation, and deterministic selection."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcecd.errors import OpeningsError
from tcecd.game.openings import load_openings, select_opening
from tcecd.game.record import Opening

EPD = """\
# TCEC-style openings
rnbqkbnr/pppppp1p/6p1/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - id "Modern Defence";

rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - c0 "Benoni-ish"; eco "A43";
rnbqkbnr/pp2pppp/2p5/3p4/3PP3/8/PPP2PPP/RNBQKBNR w KQkq -
"""

PGN = """\
[Event "book"]
[Opening "Italian Game"]
[Variation "Giuoco Piano"]
[ECO "C53"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 *

[Event "book"]
[FEN "rnbqkbnr/pp2pppp/2p5/3p4/3PP3/8/PPP2PPP/RNBQKBNR w KQkq - 0 3"]
[SetUp "1"]

3. e5 Bf5 *
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_epd_positions_names_and_indexes(tmp_path: Path) -> None:
    openings = load_openings(write(tmp_path, "book.epd", EPD))
    assert openings == (
        Opening(
            name="Modern Defence",
            fen="rnbqkbnr/pppppp1p/6p1/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 1",
            index=0,
        ),
        Opening(
            name="Benoni-ish",
            fen="rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 0 1",
            eco="A43",
            index=1,
        ),
        Opening(
            name=None,
            fen="rnbqkbnr/pp2pppp/2p5/3p4/3PP3/8/PPP2PPP/RNBQKBNR w KQkq - 0 1",
            index=2,
        ),
    )


def test_pgn_moves_tags_fen_and_ply_limit(tmp_path: Path) -> None:
    path = write(tmp_path, "book.pgn", PGN)
    full = load_openings(path)
    assert full[0] == Opening(
        name="Italian Game, Giuoco Piano",
        fen=None,
        moves=("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "c2c3"),
        eco="C53",
        index=0,
    )
    assert full[1] == Opening(
        name=None,
        fen="rnbqkbnr/pp2pppp/2p5/3p4/3PP3/8/PPP2PPP/RNBQKBNR w KQkq - 0 3",
        moves=("e4e5", "c8f5"),
        index=1,
    )
    limited = load_openings(path, plies=4)
    assert limited[0].moves == ("e2e4", "e7e5", "g1f3", "b8c6")
    assert limited[1].moves == ("e4e5", "c8f5")


def test_format_from_argument_overrides_suffix(tmp_path: Path) -> None:
    path = write(tmp_path, "book.txt", EPD)
    with pytest.raises(OpeningsError, match=r"suffix '\.txt'"):
        load_openings(path)
    assert len(load_openings(path, fmt="epd")) == 3


def test_bad_epd_line_names_file_and_line_not_its_text(tmp_path: Path) -> None:
    """A config is hostile input (issue 28): ``openings.file`` naming a secret
    file must not print its lines."""
    path = write(tmp_path, "bad.epd", EPD + "rnbqkbnr/pppppppp/8/8 w KQkq -\n")
    with pytest.raises(OpeningsError) as info:
        load_openings(path)
    assert str(info.value) == (
        f"{path}:6: not an EPD position (expected piece placement, side to move, "
        "castling rights, en passant square, then opcodes)"
    )
    shadow = write(tmp_path, "shadow.epd", "root:$6$saltsalt$hashhash:19000:0:99999:7:::\n")
    with pytest.raises(OpeningsError) as info:
        load_openings(shadow)
    assert str(info.value).startswith(f"{shadow}:1: not an EPD position (")
    assert "$6$" not in str(info.value)
    binary = tmp_path / "key.epd"
    binary.write_bytes(b"# a comment\n\n\xffsecret\n")
    with pytest.raises(OpeningsError) as info:
        load_openings(binary)
    assert str(info.value) == f"{binary}:3: not UTF-8 text"


def test_illegal_epd_position_is_rejected(tmp_path: Path) -> None:
    # Two white kings.
    path = write(tmp_path, "bad.epd", "4k3/8/8/8/8/8/8/K3K3 w - -\n")
    with pytest.raises(OpeningsError, match=r"bad\.epd:1: illegal position \(TOO_MANY_KINGS\)$"):
        load_openings(path)


def test_finished_position_is_rejected(tmp_path: Path) -> None:
    # Fool's mate: White is checkmated, there is no game left to play.
    path = write(
        tmp_path, "mate.epd", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq -\n"
    )
    with pytest.raises(OpeningsError, match="already over"):
        load_openings(path)


def test_illegal_pgn_move_names_the_game(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.pgn", PGN + '\n[Event "x"]\n\n1. e4 e5 2. Ke3 *\n')
    with pytest.raises(OpeningsError) as info:
        load_openings(path)
    # Where (game, move), not what: the move's text is the file's content.
    assert str(info.value) == f"{path}: game 3: illegal move (White's move 2)"


def test_empty_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(OpeningsError, match="no openings"):
        load_openings(write(tmp_path, "empty.epd", "# nothing\n\n"))
    with pytest.raises(OpeningsError, match="cannot read"):
        load_openings(tmp_path / "missing.pgn")


def test_every_loaded_opening_is_playable(tmp_path: Path) -> None:
    for opening in load_openings(write(tmp_path, "a.pgn", PGN)) + load_openings(
        write(tmp_path, "a.epd", EPD)
    ):
        board = chess.Board(opening.fen) if opening.fen else chess.Board()
        for uci in opening.moves:
            board.push_uci(uci)
        assert board.is_valid()


OPENINGS = tuple(Opening(name=f"o{i}", fen=None, index=i) for i in range(7))


def test_sequential_order_cycles() -> None:
    names = [select_opening(OPENINGS, i, order="sequential").name for i in range(9)]
    assert names == ["o0", "o1", "o2", "o3", "o4", "o5", "o6", "o0", "o1"]


@given(seed=st.integers(0, 2**32), start=st.integers(0, 3))
def test_random_order_is_a_seeded_permutation_that_cycles(seed: int, start: int) -> None:
    n = len(OPENINGS)
    first = [select_opening(OPENINGS, i, order="random", seed=seed) for i in range(n)]
    # Every opening exactly once per cycle...
    assert sorted(o.index for o in first if o.index is not None) == list(range(n))
    # ...the same again in the next cycle and for the same seed.
    for i in range(start, start + n):
        assert select_opening(OPENINGS, i + n, order="random", seed=seed) == first[i % n]
        assert select_opening(OPENINGS, i, order="random", seed=seed) == first[i % n]


def test_random_order_depends_on_the_seed() -> None:
    orders = {
        tuple(select_opening(OPENINGS, i, order="random", seed=seed).name for i in range(7))
        for seed in range(5)
    }
    assert len(orders) > 1


def test_selection_errors() -> None:
    with pytest.raises(OpeningsError):
        select_opening((), 0, order="sequential")
    with pytest.raises(ValueError, match="index"):
        select_opening(OPENINGS, -1, order="sequential")


def test_epd_lines_with_fen_move_counters_are_read_as_the_peers_read_them(
    tmp_path: Path,
) -> None:
    """Many published books and TCEC's own files write full FENs in .epd files,
    counters included; cutechess-cli and fastchess play them. The counters are
    kept (halfmove clock, fullmove number), and opcodes after them still name
    the opening."""
    text = (
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
        'rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2 id "Indian";\n'
        'rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2 c0 "Sicilian";\n'
    )
    openings = load_openings(write(tmp_path, "counters.epd", text))
    assert [o.fen for o in openings] == [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2",
        # python-chess drops an en-passant square no pawn can take: c6 is not capturable.
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    ]
    assert [o.name for o in openings] == [None, "Indian", "Sicilian"]
