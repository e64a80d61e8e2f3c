"""The TCEC-style PGN writer: layout, re-reading with python-chess, pgn-extract."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import chess
import chess.pgn
import pytest

from tcecd.domain import Color, GameId, Result, Termination
from tcecd.errors import PgnError
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.pgn.writer import forfeit_pgn, game_pgn, move_comment, result_description
from tests.pgn.helpers import pgn_extract_accepts


def build(
    sans: list[str],
    *,
    fen: str | None = None,
    book: int = 0,
    result: Result = Result.UNFINISHED,
    termination: Termination = Termination.UNTERMINATED,
    detail: str = "",
    scores: list[Score] | None = None,
    ponders: list[str | None] | None = None,
) -> GameRecord:
    """A record of ``sans`` played from ``fen`` (the first ``book`` plies from
    the opening), with made-up but plausible engine data."""
    board = chess.Board(fen) if fen else chess.Board()
    moves = []
    for index, san in enumerate(sans):
        move = board.parse_san(san)
        color = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
        board.push(move)
        engine = index >= book
        moves.append(
            MoveRecord(
                ply=index + 1,
                color=color,
                uci=move.uci(),
                san=san,
                fen_after=board.fen(),
                book=not engine,
                move_time_ms=1500 + index if engine else None,
                clock_left_ms=3_600_000 - 1000 * index if engine else None,
                depth=20 if engine else None,
                seldepth=30 if engine else None,
                nodes=1_000_000 * (index + 1) if engine else None,
                nps=650_000 if engine else None,
                score=(scores[index] if scores else Score(cp=17)) if engine else None,
                pv_san=(san,) if engine else (),
                ponder_san=(ponders[index] if ponders else None) if engine else None,
                tbhits=0 if engine else None,
                hashfull=423 if engine else None,
                r50=(100 - board.halfmove_clock) // 2 if engine else None,
                rd=-11 if engine else None,
                rr=-1000 if engine else None,
            )
        )
    return GameRecord(
        game_id=GameId(3, 4),
        event='TCEC "Swiss" 1',
        site="https://tcec-chess.com",
        white="Stockfish 15.1",
        black="Fairy-Max",
        result=result,
        termination=termination,
        termination_detail=detail,
        start_time="2026-11-22T03:59:43.149Z",
        end_time="2026-11-22T05:01:44.000Z",
        duration_ms=3_720_851,
        time_control="40/7200:3600+30",
        opening=Opening(
            name="Italian Game",
            fen=fen,
            moves=tuple(m.uci for m in moves[:book]),
            eco="C50",
            index=2,
        ),
        moves=tuple(moves),
        white_options=(("Protocol", "uci"), ("Threads", "1"), ("Hash", "16")),
        black_options=(("Protocol", "xboard"),),
        white_elo=3500,
        extra_tags=(("Variation", "Giuoco Piano"),),
    )


SCHOLAR = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


def mate_record() -> GameRecord:
    return build(
        SCHOLAR,
        book=2,
        result=Result.WHITE_WINS,
        termination=Termination.NORMAL,
        detail="White mates",
        scores=[Score(cp=0)] * 6 + [Score(mate=1)],
    )


def read(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    assert game.errors == []
    return game


def test_tags_roster_first_then_alphabetical() -> None:
    text = game_pgn(mate_record())
    head = text.split("\n\n")[0]
    assert head == "\n".join(
        [
            '[Event "TCEC \\"Swiss\\" 1"]',
            '[Site "https://tcec-chess.com"]',
            '[Date "2026.11.22"]',
            '[Round "3.4"]',
            '[White "Stockfish 15.1"]',
            '[Black "Fairy-Max"]',
            '[Result "1-0"]',
            '[ECO "C50"]',
            '[GameDuration "01:02:00"]',
            '[GameEndTime "2026-11-22T05:01:44.000 UTC"]',
            '[GameStartTime "2026-11-22T03:59:43.149 UTC"]',
            '[Opening "Italian Game"]',
            '[PlyCount "7"]',
            '[Termination "normal"]',
            '[TerminationDetails "White mates"]',
            '[TimeControl "40/7200:3600+30"]',
            '[Variation "Giuoco Piano"]',
            '[WhiteElo "3500"]',
        ]
    )


def test_movetext_layout() -> None:
    text = game_pgn(mate_record())
    body = text.split("\n\n", 1)[1]
    lines = body.split("\n")
    assert lines[0] == (
        "{WhiteEngineOptions: Protocol=uci; Threads=1; Hash=16;, "
        "BlackEngineOptions: Protocol=xboard;}"
    )
    assert lines[1] == "1. e4 {book, mb=+0+0+0+0+0,}"
    assert lines[2] == "e5 {book, mb=+0+0+0+0+0,}"
    # Ply 3 (index 2): mt=1502, tl=3600000-2000, n=3000000, h=42.3 %, R50 after
    # one quiet ply = 49, tb=0, eval 0.00; the clock annotation is 0:59:58.
    assert lines[3] == (
        "2. Bc4 {d=20, sd=30, mt=1502, tl=3598000, s=650000, n=3000000, pv=Bc4, tb=0, "
        "h=42.3, ph=0.0, wv=0.00, R50=49, Rd=-11, Rr=-1000, mb=+0+0+0+0+0, "
        "[%eval 0.00] [%clk 0:59:58]}"
    )
    # The mating move carries the end-of-game text; White is a pawn up after Qxf7#.
    assert lines[7] == (
        "4. Qxf7# {d=20, sd=30, mt=1506, tl=3594000, s=650000, n=7000000, pv=Qxf7#, tb=0, "
        "h=42.3, ph=0.0, wv=M1, R50=50, Rd=-11, Rr=-1000, mb=+1+0+0+0+0, White mates "
        "[%eval #1] [%clk 0:59:54]}"
    )
    assert lines[8:] == ["1-0", "", ""]
    assert text.endswith("1-0\n\n")


def test_round_trip_with_python_chess() -> None:
    record = mate_record()
    game = read(game_pgn(record))
    assert game.headers["Result"] == "1-0"
    assert game.headers["PlyCount"] == "7"
    assert [m.uci() for m in game.mainline_moves()] == [m.uci for m in record.moves]
    assert game.end().board().is_checkmate()
    assert game.comment.startswith("WhiteEngineOptions: Protocol=uci;")
    nodes = list(game.mainline())
    assert nodes[0].comment == "book, mb=+0+0+0+0+0,"
    for node, move in zip(nodes[2:], record.moves[2:], strict=True):
        fields = dict(item.split("=", 1) for item in node.comment.split(", ") if "=" in item)
        assert move.score is not None
        assert fields["d"] == str(move.depth)
        assert fields["mt"] == str(move.move_time_ms)
        assert fields["tl"] == str(move.clock_left_ms)
        assert fields["n"] == str(move.nodes)
        assert fields["wv"] == move.score.pgn()
        assert fields["R50"] == str(move.r50)
    assert nodes[2].clock() == 3598.0
    assert nodes[2].eval() == chess.engine.PovScore(chess.engine.Cp(0), chess.WHITE)
    assert nodes[-1].eval() == chess.engine.PovScore(chess.engine.Mate(1), chess.WHITE)


def test_pgn_extract_accepts_games(tmp_path: Path) -> None:
    text = game_pgn(mate_record())
    pgn_extract_accepts(tmp_path, text)
    fen_game = game_pgn(
        build(
            ["d6", "Nf3", "Nc6"],
            fen="rnbqkbnr/pppppp1p/6p1/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 1",
            result=Result.DRAW,
            termination=Termination.ADJUDICATION,
            detail="TCEC max moves rule",
        )
    )
    forfeit = forfeit_pgn(
        dataclasses.replace(
            build([], result=Result.BLACK_WINS, termination=Termination.FORFEIT),
            termination_detail="White forfeits: disqualified",
        )
    )
    pgn_extract_accepts(tmp_path, text + fen_game + forfeit, games=3)


def test_start_position_from_fen_with_black_to_move() -> None:
    fen = "rnbqkbnr/pppppp1p/6p1/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 1"
    record = build(
        ["d6", "Nf3", "Nc6"],
        fen=fen,
        result=Result.DRAW,
        termination=Termination.ADJUDICATION,
        detail="TCEC draw rule",
    )
    text = game_pgn(record)
    assert f'[FEN "{fen}"]' in text
    assert '[SetUp "1"]' in text
    assert '[PlyCount "3"]' in text
    lines = text.split("\n")
    moves = [line for line in lines if line[:1].isdigit() or line[:2] in ("Nc", "d6")]
    assert moves[0].startswith("1... d6 {")
    assert moves[1].startswith("2. Nf3 {")
    assert moves[2].startswith("Nc6 {")
    assert "mb=+0+0+0+0+0, Adjudication: TCEC draw rule [%eval" in moves[2]
    game = read(text)
    assert game.board().fen() == fen
    assert [m.uci() for m in game.mainline_moves()] == ["d7d6", "g1f3", "b8c6"]


def test_standard_start_fen_writes_no_fen_tag() -> None:
    text = game_pgn(build(["e4"], fen=chess.STARTING_FEN))
    assert "[FEN " not in text
    assert "[SetUp " not in text


def test_forfeit_has_no_moves_and_parses() -> None:
    record = dataclasses.replace(
        build([], result=Result.BLACK_WINS, termination=Termination.FORFEIT),
        termination_detail="White forfeits: disqualified",
    )
    text = forfeit_pgn(record)
    assert '[PlyCount "0"]' in text
    assert '[Termination "forfeit"]' in text
    assert text.endswith("{White forfeits: disqualified}\n0-1\n\n")
    game = read(text)
    assert game.headers["Result"] == "0-1"
    assert list(game.mainline_moves()) == []
    assert "White forfeits: disqualified" in game.comment
    with pytest.raises(ValueError, match="no moves"):
        forfeit_pgn(mate_record())


@pytest.mark.parametrize(
    ("result", "termination", "detail", "text"),
    [
        (Result.WHITE_WINS, Termination.NORMAL, "White mates", "White mates"),
        (Result.DRAW, Termination.NORMAL, "3-Fold repetition", "3-Fold repetition"),
        (
            Result.BLACK_WINS,
            Termination.ADJUDICATION,
            "TCEC resign rule",
            "Black wins by adjudication: TCEC resign rule",
        ),
        (Result.DRAW, Termination.ADJUDICATION, "TCEC draw rule", "Adjudication: TCEC draw rule"),
        (
            Result.WHITE_WINS,
            Termination.ADJUDICATION,
            "SyzygyTB",
            "White wins by adjudication: SyzygyTB",
        ),
        (Result.BLACK_WINS, Termination.TIME_FORFEIT, "White loses on time", "White loses on time"),
        (Result.DRAW, Termination.NORMAL, "", "Drawn game"),
        (Result.UNFINISHED, Termination.UNTERMINATED, "", "No result"),
    ],
)
def test_result_description(
    result: Result, termination: Termination, detail: str, text: str
) -> None:
    assert result_description(result, termination, detail) == text


def test_move_comment_of_a_sample_tcec_move() -> None:
    # From a_10p_7r_single.pgn, game 1.1, ply 3 (Black's Nc6):
    # {d=6, sd=6, pd=Nc3, mt=4, tl=-8, s=500200, n=2501, pv=Bg4 Nc3 Bg7 a4 Bxf3,
    #  tb=0, h=0.0, ph=0.0, wv=0.43, R50=49, Rd=-13, Rr=3, mb=+0+0+0+0+0,}
    move = MoveRecord(
        ply=3,
        color=Color.BLACK,
        uci="b8c6",
        san="Nc6",
        fen_after="r1bqkbnr/ppp1pp1p/2np2p1/8/3PP3/5N2/PPP2PPP/RNBQKB1R w KQkq - 2 3",
        move_time_ms=4,
        clock_left_ms=-8,
        depth=6,
        seldepth=6,
        nodes=2501,
        nps=500200,
        score=Score(cp=43),
        pv_san=("Bg4", "Nc3", "Bg7", "a4", "Bxf3"),
        tbhits=0,
        hashfull=0,
        r50=49,
        rd=-13,
        rr=3,
    )
    assert move_comment(move, pd="Nc3", ph=0.0) == (
        "d=6, sd=6, pd=Nc3, mt=4, tl=-8, s=500200, n=2501, pv=Bg4 Nc3 Bg7 a4 Bxf3, "
        "tb=0, h=0.0, ph=0.0, wv=0.43, R50=49, Rd=-13, Rr=3, mb=+0+0+0+0+0,"
    )


def test_move_comment_leaves_out_unknown_fields() -> None:
    move = MoveRecord(
        ply=1,
        color=Color.WHITE,
        uci="e2e4",
        san="e4",
        fen_after="rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        depth=1,
        score=Score(cp=-5),
    )
    assert move_comment(move) == "d=1, tb=null, wv=-0.05, mb=+0+0+0+0+0,"
    book = dataclasses.replace(move, book=True)
    assert move_comment(book) == "book, mb=+0+0+0+0+0,"


def test_ponder_move_and_hit_rate() -> None:
    # Each engine predicts the reply after its move (ponder_san). TCEC's pd on
    # a move is the engine's previous prediction; ph the share of its earlier
    # predictions the opponent played.
    #   ply 1 e4  (W predicts e5)  -> Black plays e5: hit  (W 1/1)
    #   ply 2 e5  (B predicts Nf3) -> White plays Nc3: miss (B 0/1)
    #   ply 3 Nc3 (W predicts Nc6) -> Black plays Nf6: miss (W 1/2)
    #   ply 4 Nf6 (B predicts f4)  -> White plays f4: hit (B 1/2)
    #   ply 5 f4  (W no prediction) -> counts as a miss (W 1/3)
    #   ply 6 d6, ply 7 Nf3
    record = build(
        ["e4", "e5", "Nc3", "Nf6", "f4", "d6", "Nf3"],
        ponders=["e5", "Nf3", "Nc6", "f4", None, "Nf3", "Bc4"],
    )
    game = read(game_pgn(record))
    fields = [
        {k: v for k, v in (item.split("=", 1) for item in n.comment.split(", ") if "=" in item)}
        for n in game.mainline()
    ]
    assert [f.get("pd") for f in fields] == [None, None, "e5", "Nf3", "Nc6", "f4", None]
    assert [f["ph"] for f in fields] == ["0.0", "0.0", "100.0", "0.0", "50.0", "50.0", "33.3"]


def test_illegal_move_in_a_record_is_an_error() -> None:
    record = mate_record()
    bad = dataclasses.replace(record.moves[3], uci="e7e5")
    moves = (*record.moves[:3], bad, *record.moves[4:])
    with pytest.raises(PgnError, match=r"game 3\.4: illegal move 'e7e5' at ply 4"):
        game_pgn(dataclasses.replace(record, moves=moves))


def test_comment_text_cannot_close_the_comment() -> None:
    record = dataclasses.replace(
        mate_record(), white_options=(("Tricky}Name", "a}b"),), termination_detail="x } y"
    )
    game = read(game_pgn(record))
    assert "Tricky)Name=a)b;" in game.comment
    assert len(list(game.mainline_moves())) == 7


@pytest.mark.parametrize(
    ("ms", "text", "seconds"),
    [
        # A 1+0.01 game: every clock is under a second; tenths keep them apart.
        (950, "0:00:00.9", 0.9),
        (99, "0:00:00", 0.0),  # floored to the tenth, as the second used to be
        (61_250, "0:01:01.2", 61.2),
        (3_600_000, "1:00:00", 3600.0),  # a zero tenth is left out
        (-5, "0:00:00", 0.0),  # a flag fallen past zero shows 0, never negative
    ],
)
def test_clock_annotation_keeps_tenths_that_python_chess_reads(
    ms: int, text: str, seconds: float
) -> None:
    """[%clk] carries tenths of a second (it was floored to whole seconds, so a
    bullet game showed 0:00:00 on every move); python-chess reads them back."""
    from tcecd.pgn.writer import _clk

    assert _clk(ms) == text
    game = chess.pgn.read_game(io.StringIO(f"1. e4 {{[%clk {text}]}} *"))
    assert game is not None
    assert game.next().clock() == pytest.approx(seconds)  # type: ignore[union-attr]


def test_event_tags_for_replay_are_read_back_and_accepted(tmp_path: Path) -> None:
    """``PairingSystem``, ``EventRounds``, ``WhiteSeed``/``BlackSeed`` (tcecd.pgn.event_tags):
    python-chess and pgn-extract read the game with them, an earlier value is replaced,
    and :class:`EventTags` gathers them back (a game that contradicts one is an error)."""
    from tcecd.pgn.event_tags import EventTags, with_event_tags

    record = dataclasses.replace(mate_record(), extra_tags=(("PairingSystem", "old"),))
    seeds = {record.white: 4, record.black: 1}
    tagged = with_event_tags(record, "dutch-2017", 9, seeds)
    text = game_pgn(tagged)
    headers = read(text).headers
    assert (headers["PairingSystem"], headers["EventRounds"]) == ("dutch-2017", "9")
    assert (headers["WhiteSeed"], headers["BlackSeed"]) == ("4", "1")
    assert text.count("[PairingSystem ") == 1
    pgn_extract_accepts(tmp_path, text)
    tags = EventTags("event.pgn")
    tags.add(1, dict(headers), record.white, record.black)
    assert (tags.system, tags.rounds, tags.seeds) == ("dutch-2017", 9, seeds)
    assert tags.seeded({record.white, record.black}) is False  # seeds 4 and 1 of 2 players
    with pytest.raises(PgnError, match=r"game 2: WhiteSeed 2 for .* whose seed is 4"):
        tags.add(2, {**headers, "WhiteSeed": "2"}, record.white, record.black)
