"""A PV in SAN through the memo is python-chess's SAN of the same line, move by move."""

from __future__ import annotations

import random

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.runner.pv import SanMemo, pv_san
from tests.fixtures.pv_lines import random_pv


def _reference(board: chess.Board, move: chess.Move, pv: list[chess.Move]) -> tuple[str, ...]:
    """python-chess alone: the SAN of each move up to the first illegal one."""
    line = pv if pv and pv[0] == move else [move]
    scratch = board.copy()
    out = []
    for m in line:
        if not scratch.is_legal(m):
            break
        out.append(scratch.san(m))
        scratch.push(m)
    return tuple(out)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), memo_size=st.sampled_from([4, 64, 50_000]))
def test_memo_answers_are_python_chess_answers(seed: int, memo_size: int) -> None:
    # One memo over two games of alternating "engines" whose PVs overlap: the
    # position after each move played is often one a PV went through before.
    rng = random.Random(seed)
    memo = SanMemo(max_entries=memo_size)
    for _ in range(2):
        board = chess.Board()
        pv: list[chess.Move] = []
        while not board.is_game_over() and board.ply() < 80:
            # The mover either continues the last PV (minus the move just made)
            # or starts a new one.
            keep = pv[1:] if len(pv) > 1 and rng.random() < 0.6 else []
            if not keep or not board.is_legal(keep[0]):
                keep = random_pv(board, rng, rng.randrange(1, 12))
            pv = keep
            move = pv[0] if board.is_legal(pv[0]) else rng.choice(list(board.legal_moves))
            before = board.copy()
            words = [m.uci() for m in pv]
            assert pv_san(board, move, words, memo) == _reference(board, move, pv)
            assert board == before
            assert board.move_stack == before.move_stack
            # A move the memo knows in this position is one python-chess reads
            # there as itself (legal): the bestmove shortcut of the session.
            assert memo.known_legal(board, move.uci()) or memo_size < 50_000
            for candidate in _candidates(board, rng):
                if memo.known_legal(board, candidate.uci()):
                    assert board.parse_uci(candidate.uci()) == candidate
            board.push(move)


def _candidates(board: chess.Board, rng: random.Random) -> list[chess.Move]:
    """Moves to ask the memo about: the legal ones, pseudo-legal ones that leave
    the king in check, and a few arbitrary square pairs."""
    out = list(board.pseudo_legal_moves)
    out += [chess.Move(rng.randrange(64), rng.randrange(64)) for _ in range(8)]
    return out


def test_a_chess960_board_is_never_answered_from_the_memo() -> None:
    # In Chess960 python-chess reads e1g1 as castling when a rook is not on g1,
    # so a king move the memo saw elsewhere must not stand for it.
    memo = SanMemo()
    board = chess.Board("rn2k1r1/ppp1pppp/8/8/8/8/PPP1PPPP/RN2K2R w HQq - 0 1")
    move = chess.Move.from_uci("e1f1")
    pv_san(board, move, [move.uci()], memo)
    assert memo.known_legal(board, move.uci())
    board960 = chess.Board(board.fen(), chess960=True)
    assert not memo.known_legal(board960, move.uci())


def test_a_new_move_after_known_ones_is_read_in_the_position_they_lead_to() -> None:
    # The scratch board is set straight to the position after the known moves:
    # its en passant square and castling rights must be that position's.
    memo = SanMemo()
    board = chess.Board("rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQK2R b KQkq - 0 3")
    d5 = chess.Move.from_uci("d7d5")
    assert pv_san(board, d5, ["d7d5", "a2a3"], memo) == ("d5", "a3")
    assert pv_san(board, d5, ["d7d5", "e5d6", "c7d6", "e1g1"], memo) == (
        "d5",
        "exd6",
        "cxd6",
        "O-O",
    )
    # Known up to the capture; castling is new (and legal: the rights came along).
    assert pv_san(board, d5, ["d7d5", "e5d6", "e7d6", "e1g1"], memo) == (
        "d5",
        "exd6",
        "exd6",
        "O-O",
    )
    # The same words with the castling right gone: the castling is not legal there.
    no_castling = chess.Board("rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQK2R b Qkq - 0 3")
    assert pv_san(no_castling, d5, ["d7d5", "e5d6", "e7d6", "e1g1"], memo) == ("d5", "exd6", "exd6")
    # Known moves that gave up castling rights (a rook went and came back): the
    # castling after them is not legal, though the pieces stand as before.
    rooks = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    rg1 = chess.Move.from_uci("h1g1")
    there_and_back = ["h1g1", "a8b8", "g1h1", "b8a8"]
    assert pv_san(rooks, rg1, there_and_back, memo) == ("Rg1", "Rb8", "Rh1", "Ra8")
    assert pv_san(rooks, rg1, [*there_and_back, "e1g1"], memo) == ("Rg1", "Rb8", "Rh1", "Ra8")
    assert pv_san(rooks, rg1, [*there_and_back, "e1c1"], memo) == (
        *("Rg1", "Rb8", "Rh1", "Ra8"),
        "O-O-O",
    )
