"""TCEC-format JSON builders, checked by hand against tcec-formats.md, and the
atomic / append-only file writers."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, GameId, Result, Termination
from tcecd.errors import StateError
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.outputs.files import PgnFile, atomic_write_json, atomic_write_text
from tcecd.outputs.tcec_json import (
    CrossGame,
    crosstable_json,
    live_move_json,
    schedule_json,
)
from tcecd.pairing.base import Pair, Player, RoundPairing, ScheduledGame, Standing
from tests.fixtures.pv_lines import random_pv

A, B, C = Player("a", "Alpha", 1, 3000), Player("b", "Beta", 2), Player("c", "Gamma", 3)


def _standings() -> list[Standing]:
    return [
        Standing(1, "a", 3, 0, 2, ()),
        Standing(2, "b", 2, 0, 2, ()),
        Standing(3, "c", 1, 0, 2, ()),
    ]


def test_crosstable_by_hand() -> None:
    games = [
        CrossGame(1, "a", "b", Result.WHITE_WINS, True),  # Alpha beats Beta with white
        CrossGame(2, "c", "a", Result.DRAW, True),  # Gamma-Alpha drawn
        CrossGame(3, "b", "c", Result.WHITE_WINS, False),  # Gamma forfeits to Beta
    ]
    rated_b, rated_c = Player("b", "Beta", 2, 2900), Player("c", "Gamma", 3, 2800)
    doc = crosstable_json("Ev", (A, rated_b, rated_c), games, _standings(), strikes={"c": 3})
    assert doc["Event"] == "Ev"
    assert doc["Order"] == ["Alpha", "Beta", "Gamma"]
    a, b, c = (doc["Table"][n] for n in ("Alpha", "Beta", "Gamma"))
    # Alpha: 1 + 1/2 = 1.5 from 2 games; SB = 1 x Beta's 1 + 1/2 x Gamma's 0.5 = 1.25.
    assert (a["Rank"], a["Score"], a["Games"], a["Neustadtl"]) == (1, 1.5, 2, 1.25)
    assert (a["GamesAsWhite"], a["GamesAsBlack"], a["WinsAsWhite"], a["WinsAsBlack"]) == (
        1, 1, 1, 0,
    )  # fmt: skip
    assert a["Performance"] == 75.0
    # Elo is the rating change TCEC's viewer shows as "Elo [Rating + Elo]": K = 32
    # times (score - expected) over the games played. Alpha 3000 beat Beta 2900
    # (expected 1 / (1 + 10^-0.25) = 0.6401: +11.52) and drew Gamma 2800
    # (expected 1 / (1 + 10^-0.5) = 0.7597: -8.31): +3.2.
    assert a["Elo"] == 3.2
    assert a["Rating"] == 3000
    assert a["Results"]["Beta"] == {
        "H2h": 1.0, "Text": "1", "Scores": [{"Game": 1, "Result": 1.0, "Winner": "White"}],
    }  # fmt: skip
    assert a["Results"]["Gamma"]["Scores"] == [{"Game": 2, "Result": 0.5, "Winner": "Draw"}]
    # Beta: the forfeit win counts for points and games, not for colours.
    assert (b["Score"], b["Games"], b["GamesAsWhite"], b["GamesAsBlack"]) == (1.0, 2, 0, 1)
    assert (b["LossAsBlack"], b["WinsAsWhite"]) == (1, 0)
    assert b["Neustadtl"] == 0.5  # 0 x 1.5 + 1 x 0.5
    # Beta lost to Alpha (expected 0.3599: -11.52); the forfeit win was never played
    # and changes no rating.
    assert (b["Performance"], b["Elo"]) == (50.0, -11.5)
    # Gamma: one drawn game with white, one unplayed loss; 3 strikes.
    assert (c["GamesAsWhite"], c["GamesAsBlack"], c["Games"], c["Strikes"]) == (1, 0, 2, 3)
    assert c["Neustadtl"] == 0.75  # 1/2 x 1.5 + 0 x 1
    assert c["Elo"] == 8.3  # drew Alpha: 32 x (0.5 - 0.2403)
    assert c["Results"]["Beta"]["Text"] == "0"
    assert [a["Abbreviation"], b["Abbreviation"], c["Abbreviation"]] == ["Alp", "Bet", "Gam"]


def _record(gid: GameId, termination: Termination = Termination.NORMAL) -> GameRecord:
    board = chess.Board()
    board.push_uci("e2e4")
    move = MoveRecord(1, Color.WHITE, "e2e4", "e4", board.fen(), score=Score(cp=31))
    moves = () if termination is Termination.FORFEIT else (move,)
    return GameRecord(
        game_id=gid, event="Ev", site="S", white="a", black="b", result=Result.WHITE_WINS,
        termination=termination,
        termination_detail="b disqualified" if moves == () else "Black resigns",
        start_time="2026-11-22T10:00:00.000Z", end_time="2026-11-22T11:01:02.000Z",
        duration_ms=3_662_000, time_control="60+1",
        opening=Opening(name="King's Pawn", fen=None, eco="B00"), moves=moves,
    )  # fmt: skip


def test_schedule_lists_every_game_and_results_of_finished_ones() -> None:
    r1 = RoundPairing(1, "c", (), (Pair("a", "b"),), (ScheduledGame(1, "b", "a", 0, 1),))
    r2 = RoundPairing(
        2, None, (), (Pair("a", "b"),),
        (ScheduledGame(1, "a", "b", 0, 1), ScheduledGame(2, "b", "a", 0, 2)),
    )  # fmt: skip
    finished = {GameId(1, 1): _record(GameId(1, 1)),
                GameId(2, 1): _record(GameId(2, 1), Termination.FORFEIT)}  # fmt: skip
    doc = schedule_json([r1, r2], finished, names={"a": "Alpha", "b": "Beta"})
    assert [g["Game"] for g in doc] == [1, 2, 3]  # ordinal over the event
    assert [g["Round"] for g in doc] == ["1.1", "2.1", "2.2"]
    first = doc[0]
    assert first["White"] == "Beta"  # the schedule's names, not the record's
    assert first["Result"] == "1-0"
    assert first["Termination"] == "Black resigns"
    assert first["Duration"] == "01:01:02"
    assert first["Moves"] == 1
    assert first["WhiteEv"] == "0.31"
    assert "BlackEv" not in first  # unknown: left out (the viewer prints a null)
    assert first["Start"] == "10:00:00 on 2026.11.22"  # UTC, TCEC's cutechess format
    assert first["ECO"] == "B00"
    assert first["FinalFen"].startswith("rnbqkbnr/pppppppp/8/8/4P3/")
    assert doc[1]["Termination"] == "Canceled"  # voided by disqualification, TCEC word
    assert doc[1]["Forfeit"] == "b disqualified"
    assert "Result" not in doc[2]  # not played yet
    assert all(v is not None for row in doc for v in row.values())


def test_schedule_shows_the_running_game_as_tcec_writes_it() -> None:
    """The running game: Start, Result "*" and Termination "in progress"; the
    games after it only Game, White, Black (and our Round)."""
    r1 = RoundPairing(
        1, None, (), (Pair("a", "b"), Pair("c", "d")),
        (ScheduledGame(1, "b", "a", 0, 1), ScheduledGame(2, "d", "c", 1, 1)),
    )  # fmt: skip
    doc = schedule_json([r1], {}, running={GameId(1, 1): "2026-11-22T18:18:54.568Z"})
    assert doc[0] == {
        "Game": 1, "Round": "1.1", "White": "b", "Black": "a",
        "Start": "18:18:54 on 2026.11.22", "Result": "*", "Termination": "in progress",
    }  # fmt: skip
    assert doc[1] == {"Game": 2, "Round": "1.2", "White": "d", "Black": "c"}


@pytest.mark.parametrize(
    ("termination", "detail", "cell"),
    [
        # TCEC's viewer colours every Termination red but its TERMINATION_NORMALS;
        # our PGN keeps the words of TCEC's PGNs, the viewer files say its words.
        (Termination.ADJUDICATION, "TCEC resign rule", "TCEC win rule"),
        (Termination.ADJUDICATION, "TCEC max moves rule", "TCEC Adjudication"),
        (Termination.ADJUDICATION, "TCEC draw rule", "TCEC draw rule"),
        (Termination.ADJUDICATION, "SyzygyTB", "SyzygyTB"),
        (Termination.NORMAL, "White mates", "White mates"),
        (Termination.NORMAL, "3-Fold repetition", "3-Fold repetition"),
        (Termination.NORMAL, "Fifty moves rule", "Fifty moves rule"),
        (Termination.TIME_FORFEIT, "White loses on time", "White loses on time"),  # red: right
        (Termination.FORFEIT, "b disqualified", "Canceled"),
    ],
)
def test_viewer_terminations(termination: Termination, detail: str, cell: str) -> None:
    from tcecd.outputs.tcec_json import viewer_termination

    assert viewer_termination(termination, detail) == cell


def test_crash_json_lists_fault_decided_games_with_the_viewers_keys() -> None:
    from tcecd.outputs.tcec_json import crash_json

    r1 = RoundPairing(
        1, None, (), (Pair("a", "b"), Pair("c", "d")),
        (ScheduledGame(1, "b", "a", 0, 1), ScheduledGame(2, "d", "c", 1, 1)),
    )  # fmt: skip
    crash = dataclasses.replace(
        _record(GameId(1, 2)), white="d", black="c", result=Result.BLACK_WINS,
        termination=Termination.ABANDONED, termination_detail="White disconnects",
    )  # fmt: skip
    rows = crash_json([r1], {GameId(1, 1): _record(GameId(1, 1)), GameId(1, 2): crash})
    assert rows == [
        {"gameno": 2, "White": "d", "Black": "c", "Reason": "White disconnects",
         "decision": "White disconnects", "action": "loses the game, one strike",
         "Result": "0-1", "Log": ""},
    ]  # fmt: skip


def test_live_move_entry() -> None:
    board = chess.Board("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    after = board.copy()
    after.push_uci("e4d5")
    move = MoveRecord(
        3, Color.WHITE, "e4d5", "exd5", after.fen(), move_time_ms=1500, clock_left_ms=59_000,
        depth=20, seldepth=30, nodes=10**6, nps=666_666, score=Score(mate=-4),
        pv_san=("exd5", "Qxd5", "Nc3"), tbhits=0, hashfull=843, r50=50, rd=-3, rr=-1000,
    )  # fmt: skip
    entry = live_move_json(board, move)
    assert (entry["m"], entry["from"], entry["to"], entry["book"]) == ("exd5", "e4", "d5", False)
    assert (entry["d"], entry["sd"], entry["mt"], entry["tl"], entry["n"]) == (
        20, 30, 1500, 59_000, 10**6,
    )  # fmt: skip
    assert entry["wv"] == "-M4"
    assert entry["h"] == 84.3  # permille -> percent
    assert entry["material"] == {"p": 1, "n": 0, "b": 0, "r": 0, "q": 0}
    assert entry["adjudication"] == {"FiftyMoves": 50, "Draw": -3, "ResignOrWin": -1000}
    assert entry["pv"]["San"] == "exd5 Qxd5 Nc3"
    assert [m["m"] for m in entry["pv"]["Moves"]] == ["exd5", "Qxd5", "Nc3"]
    assert entry["pv"]["Moves"][1]["from"] == "d8"
    assert entry["pv"]["Moves"][2]["fen"].startswith("rnb1kbnr/ppp1pppp/8/3q4/8/2N5/")
    assert board.fen().endswith("w KQkq - 0 2")  # the caller's board is untouched
    assert "ph" not in entry
    assert "rem" not in entry


def test_live_move_entry_leaves_unknown_values_out() -> None:
    """An xboard engine reports no nps, selective depth or hash: the viewer would
    print a null as "6/null" and "0nps", so the keys are left out; book moves
    carry no search data at all."""
    board = chess.Board()
    after = board.copy()
    after.push_uci("e2e4")
    xboard = MoveRecord(1, Color.WHITE, "e2e4", "e4", after.fen(), move_time_ms=900,
                        clock_left_ms=59_100, depth=6, nodes=12_000, score=Score(cp=20))
    entry = live_move_json(board, xboard)
    assert entry["d"] == 6
    assert not {"sd", "s", "tb", "h", "pd", "pv"} & set(entry)
    assert all(v is not None for v in entry.values())
    book = live_move_json(board, MoveRecord(1, Color.WHITE, "e2e4", "e4", after.fen(), book=True))
    assert set(book) == {"m", "from", "to", "book", "fen", "material"}


def test_atomic_write_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "out" / "x.json"
    atomic_write_json(target, {"a": 1})
    atomic_write_text(target, "new\n", durable=True)
    assert target.read_text() == "new\n"
    assert [p.name for p in target.parent.iterdir()] == ["x.json"]


def test_pgn_file_sync_and_append(tmp_path: Path) -> None:
    pgn = PgnFile(tmp_path / "e.pgn")
    assert pgn.sync([]) is False  # nothing to write, nothing there
    pgn.append("G1\n\n")
    assert pgn.sync(["G1\n\n"]) is False  # already right: untouched
    # A crash mid-append leaves a torn tail: the beginning of the next stored
    # game (the store commits before the append), here cut inside the "é".
    g2 = '[Event "Café"]\n\nG2\n\n'
    with open(tmp_path / "e.pgn", "ab") as fh:
        fh.write(g2.encode("utf-8")[:12])
    assert pgn.sync(["G1\n\n", g2]) is True  # completed by appending the rest
    assert (tmp_path / "e.pgn").read_text(encoding="utf-8") == "G1\n\n" + g2
    # Text the games do not account for is never removed or rewritten.
    with open(tmp_path / "e.pgn", "a", encoding="utf-8") as fh:
        fh.write("G3\n\n")
    with pytest.raises(StateError, match="does not record; refusing to overwrite it"):
        pgn.sync(["G1\n\n", g2])
    assert (tmp_path / "e.pgn").read_text(encoding="utf-8") == "G1\n\n" + g2 + "G3\n\n"


def test_pgn_append_crash_hook_sees_half_written_game(tmp_path: Path) -> None:
    seen: list[str] = []

    def hook(tag: str) -> None:
        seen.append((tmp_path / "e.pgn").read_text())
        raise RuntimeError("killed")

    pgn = PgnFile(tmp_path / "e.pgn", crash_hook=hook)
    with pytest.raises(RuntimeError):
        pgn.append("ABCDEFGH", tag="1.1")
    assert seen == ["ABCD"]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_live_moves_from_the_runners_pv_moves_are_those_parsed_from_san(seed: int) -> None:
    """A record made by the runner carries its PV's moves (``pv_uci``), and
    ``live.json`` replays the PV from them: every entry (SAN, squares, the FEN
    after each move, counters included) is the one parsed from the SAN alone, for
    random games and PVs with stray moves (which end the line), and the record
    equals the same record without them."""
    from tcecd.runner.pv import pv_line, pv_san

    rng = random.Random(seed)
    board = chess.Board()
    while not board.is_game_over() and board.ply() < 60:
        move = rng.choice(list(board.legal_moves))
        after = board.copy()
        after.push(move)
        if rng.random() < 0.9:  # the engine's PV starts with its move
            raw = [move, *random_pv(after, rng, rng.randrange(12))]
        else:
            raw = random_pv(board, rng, rng.randrange(12))
        line = pv_line(move.uci(), [m.uci() for m in raw])
        pv = pv_san(board, move, line, None)
        record = MoveRecord(
            board.ply() + 1, Color.WHITE if board.turn else Color.BLACK, move.uci(), pv[0],
            after.fen(), pv_san=pv, pv_uci=tuple(line[: len(pv)]),
        )  # fmt: skip
        from_san = dataclasses.replace(record, pv_uci=())
        assert record == from_san
        assert live_move_json(board, record) == live_move_json(board, from_san)
        board.push(move)
