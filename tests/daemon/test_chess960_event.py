"""Chess960 and double-Chess960 events with Stockfish, SIGKILLed mid-game and resumed.

Real engines, real subprocesses: ``tcecd run`` of a double round-robin from
Chess960 positions given by number (74: the king beside its rook c1, so O-O-O
is legal at once; 7: beside its rook g1, O-O at once: tests/game/test_chess960.py
checks both by hand), and ``tcecd play --tournament knockout`` (the same runner
and knockout format) from a double-Chess960 EPD (White's back rank of 74,
Black's of 7). Stockfish castles at once in these positions (a node-limited
search with one thread is deterministic); the tests check that it did, both
ways and with both colours, and what crossed the UCI pipe (``UCI_Chess960``,
king-takes-rook castling both ways), from Stockfish's own ``Debug Log File``.
Then every reader: python-chess and pgn-extract read the PGN as Chess960,
``replay --verify`` (the cup: its verifier) finds the rules kept, ``run
--from-pgn`` rebuilds the state from it.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from tcecd.cli import main
from tcecd.config.load import find_executable
from tcecd.formats.knockout import KnockoutSettings, games_from_headers, verify_cup
from tcecd.game.chess960 import numbered_opening
from tcecd.pgn.reader import iter_checked_headers
from tcecd.store.sqlite import EventStore
from tests.daemon.helpers import pgn_rounds, run_env, run_tcecd
from tests.pgn.helpers import pgn_extract_accepts

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(find_executable("stockfish") is None, reason="stockfish is not installed"),
]

#: White's back rank of position 74 (O-O-O at once), Black's of position 7 (O-O).
DOUBLE_FEN = "qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w KQkq - 0 1"


def _engine(name: str, extra: str = "") -> str:
    """An inline Stockfish kept alive between games (its starts dominate these events)."""
    return (f"  - {{name: {name}, command: [stockfish], restart: keep-alive, "
            f"options: {{Threads: 1, Hash: 16{extra}}}}}")  # fmt: skip


def _write(directory: Path, body: str) -> Path:
    cfg = directory / "event.yaml"
    cfg.write_text(
        body + "outputs: {state_dir: state}\nlogging: {level: info, format: json}\n",
        encoding="utf-8",
    )
    return cfg


def _castlings(pgn: Path) -> list[tuple[str, str, str, str]]:
    """(round, colour, SAN, UCI) of every castling move in the PGN's games,
    each game read by python-chess as Chess960 from its tags."""
    out = []
    with pgn.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors
            board = game.board()
            assert board.chess960
            assert game.headers["Variant"] == "fischerandom"
            for move in game.mainline_moves():
                if board.is_castling(move):
                    colour = "white" if board.turn == chess.WHITE else "black"
                    out.append((game.headers["Round"], colour, board.san(move), board.uci(move)))
                board.push(move)
    return out


def _kill_then_resume(cfg: Path, crash_at: str) -> None:
    killed = run_tcecd(cfg, crash_at=crash_at)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    resumed = run_tcecd(cfg)
    assert resumed.returncode == 0, resumed.stderr[-3000:]


def test_chess960_round_robin_killed_resumed_verified(tmp_path: Path) -> None:
    log = tmp_path / "sf-a.log"
    cfg = _write(tmp_path, "\n".join([
        "event: {name: FRC test, site: tests}",
        "variant: chess960",
        "pairing: {system: round-robin, double: true}",
        "engines:",
        _engine("sf-a", f", Debug Log File: {log}"),
        _engine("sf-b"),
        _engine("sf-c"),
        "time_control: {nodes: 1000}",
        "adjudication: {draw: null, max_moves: 12}",
        "openings: {positions: [74, 7]}",
        "",
    ]))  # fmt: skip
    # Killed in round 2 (position 7) after both sides castled kingside.
    _kill_then_resume(cfg, "mid-game:2.1:ply=7")
    pgn = tmp_path / "state" / "event.pgn"
    assert pgn_rounds(pgn.read_text(encoding="utf-8")) == ["1.1", "1.2", "2.1", "2.2", "3.1",
                                                           "3.2"]  # fmt: skip
    # Each position twice, colours reversed: rounds 1 and 3 play 74, round 2 plays 7.
    with pgn.open(encoding="utf-8") as handle:
        fens = [h["FEN"] for h in iter(lambda: chess.pgn.read_headers(handle), None)]
    q, k = numbered_opening(74).fen, numbered_opening(7).fen
    assert fens == [q, q, k, k, q, q]
    castled = _castlings(pgn)
    assert {(c, san, uci) for _, c, san, uci in castled} == {
        ("white", "O-O-O", "d1c1"), ("black", "O-O-O", "d8c8"),
        ("white", "O-O", "f1g1"), ("black", "O-O", "f8g8"),
    }  # fmt: skip
    # The store's records: castling in UCI as the engine wrote it, king takes rook.
    store = EventStore(tmp_path / "state")
    try:
        stored = list(store.iter_games())
    finally:
        store.close()
    records = [g.record for g in stored]
    assert all(r.opening.chess960 for r in records)
    assert {m.uci for r in records for m in r.moves if m.san.startswith("O-O")} == {
        "d1c1", "d8c8", "f1g1", "f8g8"
    }
    # What sf-a was told and answered (it played rounds 2 and 3, before and after the kill).
    said = log.read_text(encoding="utf-8", errors="replace")
    assert ">> setoption name UCI_Chess960 value true" in said
    assert ">> position fen qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/QNBNRKRB w GEge - 0 1" in said
    assert "<< bestmove f1g1" in said or " moves f1g1 " in said
    assert "<< bestmove d1c1" in said or " moves d1c1 " in said
    # Every reader: pgn-extract, replay --verify, run --from-pgn.
    pgn_extract_accepts(tmp_path, pgn.read_text(encoding="utf-8"), games=6)
    assert main(["replay", "--config", str(cfg), str(pgn), "--verify", "--quiet"]) == 0
    rebuilt = run_tcecd(cfg, "--from-pgn", str(pgn), "--state-dir", str(tmp_path / "rebuilt"))
    assert rebuilt.returncode == 0, rebuilt.stderr[-3000:]
    store = EventStore(tmp_path / "rebuilt")
    try:
        # The records read back from the PGN are the games played, Chess960 and all
        # (the state keeps each game's PGN as the writer makes it from the record).
        assert [g.pgn for g in store.iter_games()] == [g.pgn for g in stored]
        assert all(g.record.opening.chess960 for g in store.iter_games())
    finally:
        store.close()


def test_double_chess960_knockout_killed_resumed_verified(tmp_path: Path) -> None:
    """A cup (``tcecd play --tournament knockout``: the event runner and the
    knockout format of ``tcecd run``) from a double-Chess960 EPD, killed in its
    first game and resumed with the same command."""
    epd = tmp_path / "dfrc.epd"
    # The same position in Shredder-FEN (TCEC's FRC books) and X-FEN castling: the
    # encounter plays the first line (a second only if its games ended level).
    epd.write_text(
        'qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w HCge - id "dfrc-1";\n'
        f"{DOUBLE_FEN}\n",
        encoding="utf-8",
    )
    # A depth-1 Stockfish as the second seed: the encounter is decided in its two games.
    argv = [
        sys.executable, "-m", "tcecd", "play", "stockfish", "stockfish", "depth=1",
        "--tournament", "knockout", "--games", "2", "--variant", "chess960",
        "--openings", str(epd), "--nodes", "2000", "--resign", "movecount=2", "score=300",
        "--maxmoves", "60", "--each", "restart=off", "--state", "state", "--pgn", "cup.pgn",
        "--quiet",
    ]  # fmt: skip
    killed = subprocess.run(argv, cwd=tmp_path, env=run_env("mid-game:1.1:ply=3"),
                            capture_output=True, text=True, timeout=120, check=False)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    resumed = subprocess.run(argv, cwd=tmp_path, env=run_env(), capture_output=True, text=True,
                             timeout=120, check=False)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "(resumed)" in resumed.stdout
    pgn = tmp_path / "cup.pgn"
    headers = list(iter_checked_headers(pgn))  # each game played on a Chess960 board
    assert [e.problem for e in headers] == [None, None]
    assert [e.headers["FEN"] for e in headers] == [DOUBLE_FEN, DOUBLE_FEN]
    assert [e.headers["Opening"] for e in headers] == ["dfrc-1", "dfrc-1"]
    games, problems = games_from_headers(e.headers for e in headers)
    assert problems == []
    assert verify_cup(["stockfish", "stockfish-2"], games, KnockoutSettings(games=2)) == []
    castled = _castlings(pgn)
    # Game 1.1: White (the full Stockfish) castles queenside, Black kingside, at once.
    assert ("1.1", "white", "O-O-O", "d1c1") in castled
    assert ("1.1", "black", "O-O", "f8g8") in castled
