"""A Chess960 game's PGN: the Variant tag and FEN, SAN castling both ways, TCEC's
comments; read back as Chess960 by python-chess, pgn-extract and tcecd's own
readers (the replay's records, ``replay --trf``). Pure but for pgn-extract."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import chess
import chess.pgn
import pytest

from tcecd.cli import main
from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.chess960 import numbered_opening
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.pgn.writer import LivePgn, game_pgn, start_tags
from tcecd.replay.moves import game_record
from tcecd.trf import parse_trf
from tests.pgn.helpers import PGN_EXTRACT, pgn_extract_accepts

#: Double Chess960: White's back rank of position 74 (king d1 beside the rook
#: c1: O-O-O at once), Black's of position 7 (king f8 beside the rook g8: O-O).
DOUBLE = Opening(
    name="dfrc-1",
    fen="qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w KQkq - 0 1",
    chess960=True,
)
FIRST = GameId(1, 1)
#: Both sides castle at once, then a few moves (checked with python-chess below).
SANS = ["O-O-O", "O-O", "e4", "e5", "Nb3", "Nbc6"]


def chess960_record(
    opening: Opening = DOUBLE,
    sans: list[str] = SANS,
    *,
    game_id: GameId = FIRST,
    white: str = "sf-a",
    black: str = "sf-b",
    result: Result = Result.DRAW,
) -> GameRecord:
    """A finished Chess960 game of ``sans`` from ``opening``, engine data made up."""
    board = opening.start_board()
    moves = []
    for index, san in enumerate(sans):
        move = board.parse_san(san)
        color = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
        uci = board.uci(move)
        board.push(move)
        moves.append(
            MoveRecord(ply=index + 1, color=color, uci=uci, san=san, fen_after=board.fen(),
                       move_time_ms=900, clock_left_ms=59_000, depth=12, seldepth=15,
                       nodes=1000, nps=500_000, score=Score(cp=20 - index), pv_san=(san,),
                       tbhits=0, hashfull=10, r50=50, rd=-1000, rr=-1000)
        )  # fmt: skip
    return GameRecord(
        game_id=game_id, event="FRC test", site="tests", white=white, black=black,
        result=result, termination=Termination.ADJUDICATION,
        termination_detail="TCEC max moves rule", start_time="2026-11-27T10:00:00.000Z",
        end_time="2026-11-27T10:00:01.000Z", duration_ms=1000, time_control="60+1",
        opening=opening, moves=tuple(moves), white_options=(("Threads", "1"),),
        black_options=(("Threads", "1"),),
    )  # fmt: skip


def test_castling_is_king_takes_rook_in_uci() -> None:
    record = chess960_record()
    assert [m.uci for m in record.moves[:2]] == ["d1c1", "f8g8"]
    assert record.moves[1].fen_after == (
        "qnbnrrkb/pppppppp/8/8/8/8/PPPPPPPP/NNKRBBQR w - - 2 2"
    )


def test_tags_and_movetext() -> None:
    text = game_pgn(chess960_record())
    assert '[Variant "fischerandom"]' in text
    assert f'[FEN "{DOUBLE.fen}"]' in text
    assert '[SetUp "1"]' in text
    assert '[Opening "dfrc-1"]' in text
    lines = text.splitlines()
    first = lines.index("{WhiteEngineOptions: Threads=1;, BlackEngineOptions: Threads=1;}") + 1
    assert lines[first].startswith("1. O-O-O {d=12, sd=15, mt=900, tl=59000, s=500000, n=1000, ")
    assert lines[first + 1].startswith("O-O {d=12, sd=15, ")
    assert "mb=+0+0+0+0+0," in lines[first + 1]


def test_the_standard_position_as_chess960_keeps_its_fen() -> None:
    """Position 518 is Chess960 too: the tags say so (cutechess's reader, and
    TCEC's viewer, know a Chess960 game only by its FEN and Variant tags)."""
    tags = dict(start_tags(
        event="e", site="s", game_id=GameId(1, 1), white="a", black="b",
        start_time="2026-11-27T10:00:00.000Z", time_control="60+1",
        opening=numbered_opening(518),
    ))  # fmt: skip
    assert tags["Variant"] == "fischerandom"
    assert tags["FEN"] == chess.STARTING_FEN
    assert tags["SetUp"] == "1"
    standard = dict(start_tags(
        event="e", site="s", game_id=GameId(1, 1), white="a", black="b",
        start_time="2026-11-27T10:00:00.000Z", time_control="60+1",
        opening=Opening(name=None, fen=None),
    ))  # fmt: skip
    assert "Variant" not in standard
    assert "FEN" not in standard


def test_python_chess_and_the_replay_read_it_back_as_chess960() -> None:
    record = chess960_record()
    game = chess.pgn.read_game(io.StringIO(game_pgn(record)))
    assert game is not None
    assert not game.errors
    board = game.board()
    assert board.chess960
    assert game.headers.is_chess960()
    assert [board.uci(m) for m in game.mainline_moves()][:2] == ["d1c1", "f8g8"]
    assert game.end().board().fen() == record.moves[-1].fen_after
    # The replay rebuilds exactly the record the daemon wrote.
    assert game_record(game, GameId(1, 1)) == record


def test_live_pgn_of_a_running_chess960_game() -> None:
    record = chess960_record()
    tags = start_tags(
        event="FRC test", site="tests", game_id=GameId(1, 1), white="sf-a", black="sf-b",
        start_time=record.start_time, time_control="60+1", opening=DOUBLE,
    )  # fmt: skip
    live = LivePgn(dict(tags), (), (), DOUBLE)
    for move in record.moves[:2]:
        live.add(move)
    game = chess.pgn.read_game(io.StringIO(live.text()))
    assert game is not None
    assert not game.errors
    assert game.board().chess960
    assert [m.uci() for m in game.mainline_moves()] == ["d1c1", "f8g8"]


def test_pgn_extract_replays_the_castling(tmp_path: Path) -> None:
    """pgn-extract reads the game without a complaint and, from the FEN's
    castling rights, puts king and rook where Chess960 castling puts them."""
    record = chess960_record()
    text = game_pgn(record)
    pgn_extract_accepts(tmp_path, text)
    assert PGN_EXTRACT is not None
    path = tmp_path / "fen.pgn"
    path.write_text(text, encoding="utf-8")
    out = subprocess.run(
        [PGN_EXTRACT, "--fencomments", "-s", str(path)],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    # Its FEN comment after Black's O-O (the second one) is the position after it.
    after_castling = record.moves[1].fen_after.split()[0]
    fens = [c.split()[0] for c in _comments(out) if c.count("/") == 7]
    assert fens[1] == after_castling


def _comments(text: str) -> list[str]:
    """The bodies of ``{...}`` comments, spaces and line ends folded."""
    out, rest = [], " ".join(text.split())
    while "{" in rest:
        start = rest.index("{")
        end = rest.index("}", start)
        out.append(rest[start + 1 : end].strip())
        rest = rest[end + 1 :]
    return out


def test_replay_and_its_trf_export_read_a_chess960_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tcecd's readers of an event PGN: ``replay`` (the games played on Chess960
    boards: a Chess960 castling move read as standard chess is illegal) and its
    TRF export. Two single rounds of two players."""
    games = [
        chess960_record(game_id=GameId(1, 1), white="sf-a", black="sf-b",
                        result=Result.WHITE_WINS),
        chess960_record(numbered_opening(74), ["O-O-O", "O-O-O", "Nb3", "Nb6"],
                        game_id=GameId(2, 1), white="sf-b", black="sf-a"),
    ]  # fmt: skip
    pgn = tmp_path / "event.pgn"
    pgn.write_text("".join(game_pgn(g) for g in games), encoding="utf-8")
    out = tmp_path / "event.trf"
    assert main(["replay", str(pgn), "--quiet", "--trf", str(out)]) == 0
    event = parse_trf(out.read_text(), "event.trf")
    assert sorted(p.name for p in event.players) == ["sf-a", "sf-b"]
    assert len(event.rounds) == 2
    capsys.readouterr()
