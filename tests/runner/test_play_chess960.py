"""``tcecd play --variant chess960`` against cutechess-cli's PGN of the same start
positions, and engines without Chess960 refused before anything is played.
Real subprocesses, Stockfish (and the bundled abengine, Fairy-Max: no Chess960).

``data/cutechess-fischerandom.pgn`` is what ``cutechess-cli -variant fischerandom
-openings file=frc.epd format=epd -games 2 -rounds 2 -repeat`` writes for the two
positions of ``FRC_EPD`` with two Stockfish, derived from cutechess's source
(cutechess/cutechess, projects/lib/src): the tags are ``PgnGame::tags`` (the Seven
Tag Roster, then the others in ``QMap`` order, alphabetical); ``Variant`` is
``FrcBoard::variant()`` ("fischerandom", set by ``ChessGame::initializePgn``);
``FEN``/``SetUp`` come from ``ChessGame::resetBoard``, which always sets a random
variant's starting FEN and rewrites it with ``Board::fenString()``, X-FEN
(``WesternBoard::castlingRightsString``: ``KQkq`` for the outermost rooks, a file
letter only for an inner one), whatever castling notation the book used; castling
is ``O-O``/``O-O-O`` (``WesternBoard::sanMoveString``); the comments are
``evalString`` (``+0.29/9 0.012s``), the result description appended to the last
(``PgnGame::setResultDescription``), lines cut before 80 characters
(``PgnGame::write``). The moves are Stockfish's from these positions (it castles
at once: a node-limited search is deterministic). No cutechess-cli was built for
this sample; bench/peers.sh builds one to compare by hand.

``data/fastchess-fischerandom.pgn`` is what fastchess itself wrote (built by
``bench/peers.sh``'s pinned commit 74deac23, Debian's Stockfish 15.1) for the
same two positions: ``fastchess -engine cmd=stockfish name=stockfish -engine
cmd=stockfish name=stockfish2 -each tc=inf nodes=1000 option.Threads=1
option.Hash=16 -variant fischerandom -openings file=frc.epd format=epd
order=sequential -rounds 2 -games 2 -repeat -maxmoves 3 -pgnout file=fc.pgn``.
fastchess writes ``[Variant "Chess960"]`` and keeps the book's castling field
(Shredder-FEN here) where cutechess writes "fischerandom" and X-FEN: tcecd writes
what TCEC's cutechess fork writes, and every reader takes both as Chess960.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from tcecd.config.load import find_executable
from tests.fixtures.event_config import write_event

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).parent / "data" / "cutechess-fischerandom.pgn"
FASTCHESS = Path(__file__).parent / "data" / "fastchess-fischerandom.pgn"
#: Positions 74 (O-O-O at once) and 7 (O-O at once) in Shredder-FEN, as TCEC's
#: FRC books write them.
FRC_EPD = (
    "nnrkbbqr/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w HChc -\n"
    "qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/QNBNRKRB w GEge -\n"
)


def tcecd(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcecd", *args],
        cwd=cwd, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip


def read_games(path: Path) -> list[chess.pgn.Game]:
    games = []
    with path.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors, game.errors
            games.append(game)
    return games


def castlings(game: chess.pgn.Game) -> list[tuple[int, str, str]]:
    """(ply, SAN, UCI on the game's board) of each castling move."""
    board, out = game.board(), []
    for ply, move in enumerate(game.mainline_moves(), start=1):
        if board.is_castling(move):
            out.append((ply, board.san(move), board.uci(move)))
        board.push(move)
    return out


@pytest.mark.skipif(find_executable("stockfish") is None, reason="stockfish is not installed")
def test_play_chess960_writes_what_cutechess_writes(tmp_path: Path) -> None:
    (tmp_path / "frc.epd").write_text(FRC_EPD, encoding="utf-8")
    proc = tcecd(
        "play", "stockfish", "stockfish", "--variant", "fischerandom", "--openings", "frc.epd",
        "--nodes", "1000", "--maxmoves", "3", "--games", "2", "--rounds", "2",
        "--each", "restart=off", "--pgn", "match.pgn", "--quiet", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].endswith(", Chess960")
    ours, theirs = read_games(tmp_path / "match.pgn"), read_games(SAMPLE)
    assert len(ours) == len(theirs) == 4
    for mine, cute in zip(ours, theirs, strict=True):
        for tag in ("Variant", "FEN", "SetUp"):
            assert mine.headers[tag] == cute.headers[tag], tag
        assert mine.board().chess960
        assert cute.board().chess960
        # The same castling, written the same way, the first move of each game.
        assert castlings(mine)[:1] == castlings(cute)[:1]
    assert castlings(ours[0])[:2] == [(1, "O-O-O", "d1c1"), (2, "O-O-O", "d8c8")]
    assert castlings(ours[2])[:1] == [(1, "O-O", "f1g1")]
    # fastchess's own PGN of the same positions: the same start positions and
    # castling rights (compared as Shredder-FEN), Chess960 for python-chess, and the
    # same castling moves, written the same way.
    fast = read_games(FASTCHESS)
    assert len(fast) == 4
    for mine, theirs in zip(ours, fast, strict=True):
        assert theirs.headers["Variant"] == "Chess960"
        assert mine.board().shredder_fen() == theirs.board().shredder_fen()
        assert mine.board().chess960
        assert theirs.board().chess960
        assert castlings(mine)[:1] == castlings(theirs)[:1]


def test_engines_without_chess960_are_refused_in_one_line_each(tmp_path: Path) -> None:
    """abengine declares no UCI_Chess960, Fairy-Max no fischerandom among its
    xboard variants: a Chess960 event refuses both before anything is played."""
    if find_executable("fairymax") is None:
        pytest.skip("fairymax is not installed (bash deploy/install.sh)")
    write_event(tmp_path, variant="chess960", openings={"positions": [518]},
                engines=["ab-d1", "fairymax"])  # fmt: skip
    proc = tcecd("validate", "event.yaml", "--engines", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "tcecd: error: event.yaml: engines[0]: engine 'ab-d1': does not offer Chess960 "
        "(no UCI_Chess960 option)",
        "tcecd: error: event.yaml: engines[1]: engine 'fairymax': does not offer Chess960 "
        "(no 'fischerandom' in its xboard 'variants' feature)",
    ]
    play = tcecd("play", "ab-d1", "ab-d2", "--variant", "chess960", "--nodes", "100",
                 cwd=tmp_path)  # fmt: skip
    assert play.returncode == 2
    assert play.stderr.splitlines() == [
        "tcecd: error: engine 'ab-d1': does not offer Chess960 (no UCI_Chess960 option)",
        "tcecd: error: engine 'ab-d2': does not offer Chess960 (no UCI_Chess960 option)",
    ]
