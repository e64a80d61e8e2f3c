#!/usr/bin/env python3
"""abengine: a small, deterministic alpha-beta UCI chess engine for demos and tests.

Why it exists: tcecd's tests and demo need real engine processes that start in
a blink, play legal chess at a few distinct strengths, and play *the same game
every time* from the same opening, so a test can assert on a whole game. Only
python-chess is needed (it runs under the project's virtualenv interpreter).

Search: iterative deepening negamax with alpha-beta, a capture-only quiescence
search (bounded in depth), MVV-LVA move ordering plus the previous iteration's
best move first. Evaluation: material plus piece-square tables, and an optional
deterministic "noise" term (a hash of the position and ``--seed``) that makes
weaker personalities without any randomness tied to time.

Nothing in the search depends on the wall clock: ``go wtime/btime/movetime``
all search to the configured depth (only ``go depth N`` and ``go nodes N``
change the amount of work), so the same input always gives the same move. One
safety valve: when the engine's own clock is under 100 ms it searches depth 1.

Usage: ``abengine.py [--depth N] [--noise CP] [--seed S] [--name NAME] [--pace-ms MS]``.
``--pace-ms`` (UCI option ``Pace``): answer each ``go`` no sooner than MS
milliseconds after it arrived, by sleeping after the search (the move is the
same): a steady, realistic pace of moves for benchmarks (bench/web.py), and
games that last without loading the machine for tests that act while a game
is running (kill a daemon, a worker, a scheduler). ``--delay-ms`` is another
name for ``--pace-ms``.
UCI options ``Depth``, ``Noise``, ``Seed`` and ``Pace`` override the command line;
``Hash`` and ``Threads`` are accepted and ignored (so configs written for real
engines work unchanged), as is the combo ``Style`` (so that option checks have
a combo to check). The string option ``Log File`` makes the engine append every
line it receives to that file (tests read what tcecd sent, e.g. each ``go``).
"""

from __future__ import annotations

import argparse
import sys
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--noise", type=int, default=0, help="eval noise amplitude, centipawns")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default=None)
    ap.add_argument(
        "--pace-ms", "--delay-ms", dest="pace_ms", type=int, default=0,
        help="answer go no sooner than this (ms)",
    )
    args = ap.parse_args()
    pace_ms = args.pace_ms
    search = Search(args.depth, args.noise, args.seed)
    name = args.name or f"abengine d{args.depth}"
    board = chess.Board()

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    log = None
    for raw in sys.stdin:
        if log is not None:
            log.write(raw)
            log.flush()
        tokens = raw.split()
        if not tokens:
            continue
        cmd = tokens[0]
        if cmd == "uci":
            say(f"id name {name}")
            say("id author tcecd")
            say(f"option name Depth type spin default {args.depth} min 1 max 8")
            say(f"option name Noise type spin default {args.noise} min 0 max 1000")
            say(f"option name Seed type spin default {args.seed} min 0 max 1000000")
            say(f"option name Pace type spin default {args.pace_ms} min 0 max 60000")
            say("option name Hash type spin default 1 min 1 max 65536")
            say("option name Threads type spin default 1 min 1 max 1")
            say("option name Style type combo default Normal var Solid var Normal var Risky")
            say("option name Log File type string default <empty>")
            say("uciok")
        elif cmd == "isready":
            say("readyok")
        elif cmd == "setoption" and "name" in tokens and "value" in tokens:
            opt = " ".join(tokens[tokens.index("name") + 1:tokens.index("value")]).lower()
            value = " ".join(tokens[tokens.index("value") + 1:])
            if opt == "depth":
                search.depth = max(1, int(value))
            elif opt == "noise":
                search.noise = max(0, int(value))
            elif opt == "seed":
                search.seed = int(value)
            elif opt == "pace":
                pace_ms = max(0, int(value))
            elif opt == "log file" and value not in ("", "<empty>"):
                log = open(value, "a", encoding="utf-8")  # noqa: SIM115 - open until exit
        elif cmd == "ucinewgame":
            board = chess.Board()
        elif cmd == "position":
            board = parse_position(tokens[1:])
        elif cmd == "go":
            arrived = time.monotonic()
            opts = dict(zip(tokens[1::2], tokens[2::2], strict=False))
            depth = search.depth
            if "depth" in opts:
                depth = max(1, int(opts["depth"]))
            search.node_limit = int(opts["nodes"]) if "nodes" in opts else None
            own = opts.get("wtime" if board.turn == chess.WHITE else "btime")
            if own is not None and int(own) < 100:
                depth = 1
            if not any(board.legal_moves):
                say("bestmove (none)")
                continue
            lines: list[str] = []
            move = search.go(board, depth, lines)
            rest = pace_ms / 1000 - (time.monotonic() - arrived)
            if rest > 0:
                time.sleep(rest)
            say("\n".join(lines))
            say(f"bestmove {move.uci()}")
        elif cmd == "quit":
            return


if __name__ == "__main__":
    main()
