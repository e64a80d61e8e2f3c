"""The search of abengine (engines/abengine.py): material and piece-square
evaluation, iterative-deepening alpha-beta with a bounded quiescence search, and
the UCI ``position`` parser. Separate so that abengine answers ``uci`` and
``isready`` without importing python-chess: tcecd starts every engine once to
check it before an event (tcecd.runner.check), and python-chess's import (its
attack tables) is most of a short-lived engine's CPU. Also used by
engines/broken.py."""

from __future__ import annotations

import time

import chess
import chess.polyglot

VALUES = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500,
          chess.QUEEN: 900, chess.KING: 0}

# Piece-square tables from White's point of view, a8..h8 first row (the
# classic "simplified evaluation function" tables).
_PST_TEXT = {
    chess.PAWN: """
         0   0   0   0   0   0   0   0
        50  50  50  50  50  50  50  50
        10  10  20  30  30  20  10  10
         5   5  10  25  25  10   5   5
         0   0   0  20  20   0   0   0
         5  -5 -10   0   0 -10  -5   5
         5  10  10 -20 -20  10  10   5
         0   0   0   0   0   0   0   0""",
    chess.KNIGHT: """
       -50 -40 -30 -30 -30 -30 -40 -50
       -40 -20   0   0   0   0 -20 -40
       -30   0  10  15  15  10   0 -30
       -30   5  15  20  20  15   5 -30
       -30   0  15  20  20  15   0 -30
       -30   5  10  15  15  10   5 -30
       -40 -20   0   5   5   0 -20 -40
       -50 -40 -30 -30 -30 -30 -40 -50""",
    chess.BISHOP: """
       -20 -10 -10 -10 -10 -10 -10 -20
       -10   0   0   0   0   0   0 -10
       -10   0   5  10  10   5   0 -10
       -10   5   5  10  10   5   5 -10
       -10   0  10  10  10  10   0 -10
       -10  10  10  10  10  10  10 -10
       -10   5   0   0   0   0   5 -10
       -20 -10 -10 -10 -10 -10 -10 -20""",
    chess.ROOK: """
         0   0   0   0   0   0   0   0
         5  10  10  10  10  10  10   5
        -5   0   0   0   0   0   0  -5
        -5   0   0   0   0   0   0  -5
        -5   0   0   0   0   0   0  -5
        -5   0   0   0   0   0   0  -5
        -5   0   0   0   0   0   0  -5
         0   0   0   5   5   0   0   0""",
    chess.QUEEN: """
       -20 -10 -10  -5  -5 -10 -10 -20
       -10   0   0   0   0   0   0 -10
       -10   0   5   5   5   5   0 -10
        -5   0   5   5   5   5   0  -5
         0   0   5   5   5   5   0  -5
       -10   5   5   5   5   5   0 -10
       -10   0   5   0   0   0   0 -10
       -20 -10 -10  -5  -5 -10 -10 -20""",
    chess.KING: """
       -30 -40 -40 -50 -50 -40 -40 -30
       -30 -40 -40 -50 -50 -40 -40 -30
       -30 -40 -40 -50 -50 -40 -40 -30
       -30 -40 -40 -50 -50 -40 -40 -30
       -20 -30 -30 -40 -40 -30 -30 -20
       -10 -20 -20 -20 -20 -20 -20 -10
        20  20   0   0   0   0  20  20
        20  30  10   0   0  10  30  20""",
}


def _tables() -> dict[tuple[bool, int], list[int]]:
    """(color, piece type) -> 64 values indexed by python-chess square (a1 = 0)."""
    out: dict[tuple[bool, int], list[int]] = {}
    for piece, text in _PST_TEXT.items():
        rows = [[int(v) for v in line.split()] for line in text.strip().splitlines()]
        white = [0] * 64
        for r, row in enumerate(rows):  # r = 0 is rank 8
            for f, v in enumerate(row):
                white[chess.square(f, 7 - r)] = v + VALUES[piece]
        out[(chess.WHITE, piece)] = white
        out[(chess.BLACK, piece)] = [white[chess.square_mirror(sq)] for sq in range(64)]
    return out


PST = _tables()
_HASHER = chess.polyglot.ZobristHasher(chess.polyglot.POLYGLOT_RANDOM_ARRAY)
_ZOBRIST = _HASHER.array
#: (colour, piece type, its piece-square table, its first index in the polyglot
#: key array: 64 x (2 x (type - 1) + 1 for White), as chess.polyglot numbers them).
_PIECES = tuple(
    (color, piece_type, table, 64 * (2 * (piece_type - 1) + int(color)))
    for (color, piece_type), table in PST.items()
)
MATE = 100_000
INF = 1_000_000
QS_DEPTH = 6  # quiescence plies: bounded so Python search times stay predictable


class Search:
    """One engine's search state: settings, node counter, a small move cache."""

    def __init__(self, depth: int, noise: int, seed: int) -> None:
        self.depth = depth
        self.noise = noise
        self.seed = seed
        self.nodes = 0
        self.node_limit: int | None = None
        self.best_at_root: dict[int, chess.Move] = {}

    def evaluate(self, board: chess.Board) -> int:
        """Static evaluation from the side to move's point of view."""
        # One walk over the piece bitboards gives the piece-square total and, with
        # noise, the pieces' part of the position's polyglot Zobrist key: the same
        # values as board.piece_map() and chess.polyglot.zobrist_hash(board), which
        # would walk the board once more each (most of the engine's time).
        noise = self.noise
        score = key = 0
        for color, piece_type, table, base in _PIECES:
            mask = board.pieces_mask(piece_type, color)
            if mask:
                total = 0
                for sq in chess.scan_forward(mask):
                    total += table[sq]
                    if noise:
                        key ^= _ZOBRIST[base + sq]
                score += total if color == chess.WHITE else -total
        if noise:
            key ^= _HASHER.hash_castling(board) ^ _HASHER.hash_ep_square(board)
            key ^= _HASHER.hash_turn(board)
            key ^= self.seed * 0x9E3779B97F4A7C15
            key = (key * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
            score += (key >> 20) % (2 * self.noise + 1) - self.noise
        return score if board.turn == chess.WHITE else -score

    @staticmethod
    def _order(board: chess.Board, moves: list[chess.Move]) -> list[chess.Move]:
        def key(m: chess.Move) -> int:
            if board.is_capture(m):
                victim = board.piece_type_at(m.to_square) or chess.PAWN
                attacker = board.piece_type_at(m.from_square) or chess.PAWN
                return -(10 * VALUES[victim] - VALUES[attacker]) - 10_000
            if m.promotion:
                return -9_000
            return 0
        return sorted(moves, key=key)  # stable: keeps python-chess's deterministic order

    def quiesce(self, board: chess.Board, alpha: int, beta: int, qdepth: int) -> int:
        self.nodes += 1
        stand = self.evaluate(board)
        if stand >= beta or qdepth == 0:
            return stand
        alpha = max(alpha, stand)
        captures = [m for m in board.generate_legal_captures()]
        for move in self._order(board, captures):
            board.push(move)
            score = -self.quiesce(board, -beta, -alpha, qdepth - 1)
            board.pop()
            if score >= beta:
                return score
            alpha = max(alpha, score)
        return alpha

    def negamax(
        self, board: chess.Board, depth: int, alpha: int, beta: int, ply: int
    ) -> tuple[int, list[chess.Move]]:
        """Score from the side to move's view and the principal variation below."""
        # Mate and stalemate from one look for a legal move (python-chess's
        # is_checkmate() and is_stalemate() would each look again).
        if not any(board.generate_legal_moves()):
            return (-MATE + ply if board.is_check() else 0), []
        if board.is_insufficient_material() or (
            ply > 0 and (board.is_repetition(2) or board.halfmove_clock >= 100)
        ):
            return 0, []
        if depth == 0:
            return self.quiesce(board, alpha, beta, QS_DEPTH), []
        self.nodes += 1
        best, line = -INF, []
        for move in self._order(board, list(board.legal_moves)):
            board.push(move)
            score, sub = self.negamax(board, depth - 1, -beta, -alpha, ply + 1)
            score = -score
            board.pop()
            if score > best:
                best, line = score, [move, *sub]
            if score > alpha:
                alpha = score
            if alpha >= beta:
                break
        return best, line

    def root(self, board: chess.Board, depth: int,
             first: chess.Move | None) -> tuple[int, list[chess.Move]]:
        """Search the root to ``depth``; returns (score, pv)."""
        moves = self._order(board, list(board.legal_moves))
        if first is not None and first in moves:
            moves.remove(first)
            moves.insert(0, first)
        alpha, best_line, best_score = -INF, [moves[0]], -INF
        for move in moves:
            board.push(move)
            score, sub = self.negamax(board, depth - 1, -INF, -alpha, 1)
            score = -score
            board.pop()
            if score > best_score:
                best_score, best_line = score, [move, *sub]
            alpha = max(alpha, score)
        return best_score, best_line

    def go(self, board: chess.Board, depth: int, out: list[str]) -> chess.Move:
        """Iterative deepening to ``depth`` (or the node limit); ``info`` lines go to ``out``."""
        self.nodes = 0
        start = time.perf_counter()
        best: chess.Move | None = None
        for d in range(1, max(1, depth) + 1):
            score, pv = self.root(board, d, best)
            best = pv[0]
            elapsed = max(time.perf_counter() - start, 1e-6)
            if abs(score) > MATE - 1000:
                plies = MATE - abs(score)
                text = f"mate {(plies + 1) // 2 if score > 0 else -((plies + 1) // 2)}"
            else:
                text = f"cp {score}"
            out.append(
                f"info depth {d} seldepth {d + QS_DEPTH} score {text} nodes {self.nodes} "
                f"nps {int(self.nodes / elapsed)} time {int(elapsed * 1000)} "
                f"hashfull 0 tbhits 0 pv {' '.join(m.uci() for m in pv)}"
            )
            if self.node_limit is not None and self.nodes >= self.node_limit:
                break
        assert best is not None
        return best


def parse_position(tokens: list[str]) -> chess.Board:
    """``position [startpos | fen F...] [moves m...]``."""
    if "moves" in tokens:
        i = tokens.index("moves")
        head, moves = tokens[:i], tokens[i + 1:]
    else:
        head, moves = tokens, []
    board = chess.Board() if not head or head[0] == "startpos" else chess.Board(" ".join(head[1:]))
    for m in moves:
        board.push_uci(m)
    return board

