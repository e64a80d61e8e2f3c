"""Laws of chess and TCEC adjudication, hand-checked against the rules."""

from __future__ import annotations

from collections.abc import Callable

import chess
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, Result, Termination
from tcecd.game.adjudication import (
    AdjudicationRules,
    Adjudicator,
    DrawRule,
    TablebaseRule,
    Verdict,
    WinRule,
    rules_verdict,
)
from tcecd.game.record import Score

W, B = Color.WHITE, Color.BLACK


def mover_of(board: chess.Board) -> Color:
    """The side that made the last move on ``board``."""
    return B if board.turn == chess.WHITE else W


def play(
    adj: Adjudicator,
    board: chess.Board,
    sans: list[str],
    scores: list[Score | None] | Score | None,
    *,
    book_plies: int = 0,
) -> list[tuple[Verdict | None, tuple[int, int, int]]]:
    """Push ``sans`` one by one, feeding the adjudicator; the verdict and the
    counters after each ply."""
    out = []
    for index, san in enumerate(sans):
        board.push_san(san)
        score = scores[index] if isinstance(scores, list) else scores
        verdict = adj.on_ply(board, mover_of(board), score, book=index < book_plies)
        out.append((verdict, adj.counters(board)))
    return out


# -- laws of chess ----------------------------------------------------------


def test_checkmate_black_mates() -> None:
    board = chess.Board()
    for san in ["f3", "e5", "g4", "Qh4#"]:
        board.push_san(san)
    assert rules_verdict(board) == Verdict(Result.BLACK_WINS, Termination.NORMAL, "Black mates")


def test_checkmate_white_mates() -> None:
    board = chess.Board()
    for san in ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]:
        board.push_san(san)
    assert rules_verdict(board) == Verdict(Result.WHITE_WINS, Termination.NORMAL, "White mates")


def test_stalemate() -> None:
    # After Qg6 the black king on h8 is not in check, and g8, g7 and h7 are
    # all covered by the queen or the king on f7.
    board = chess.Board("7k/5K2/8/6Q1/8/8/8/8 w - - 0 1")
    board.push_san("Qg6")
    assert rules_verdict(board) == Verdict(Result.DRAW, Termination.NORMAL, "Stalemate")


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1",  # KvK
        "8/8/8/4k3/8/8/8/2B1K3 w - - 0 1",  # KBvK
        "8/8/8/4k3/8/8/8/1N2K3 w - - 0 1",  # KNvK
        "8/8/1b6/4k3/8/8/8/2B1K3 w - - 0 1",  # bishops on c1 and b6: both dark squares
    ],
)
def test_insufficient_material(fen: str) -> None:
    board = chess.Board(fen)
    assert rules_verdict(board) == Verdict(Result.DRAW, Termination.NORMAL, "Insufficient material")


def test_material_that_can_still_mate_plays_on() -> None:
    # Bishops on opposite colours (c1 dark, c6 light) and KNvKN: a mate is
    # possible, so cutechess (and tcecd) play on.
    assert rules_verdict(chess.Board("8/8/2b5/4k3/8/8/8/2B1K3 w - - 0 1")) is None
    assert rules_verdict(chess.Board("8/8/1n6/4k3/8/8/8/2N1K3 w - - 0 1")) is None


def test_threefold_repetition_ends_the_game_on_the_third_occurrence() -> None:
    board = chess.Board()
    sans = ["Nf3", "Nf6", "Ng1", "Ng8"] * 2
    verdicts = []
    for san in sans:
        board.push_san(san)
        verdicts.append(rules_verdict(board))
    # The start position occurs at ply 0, 4 and 8: the draw comes at ply 8.
    assert verdicts[:7] == [None] * 7
    assert verdicts[7] == Verdict(Result.DRAW, Termination.NORMAL, "3-Fold repetition")


def test_fifty_moves_ends_the_game_at_100_plies() -> None:
    board = chess.Board("7k/8/6K1/8/8/8/8/R7 w - - 98 80")
    board.push_san("Ra2")  # ply 99 without capture or pawn move
    assert rules_verdict(board) is None
    board.push_san("Kg8")  # ply 100
    assert rules_verdict(board) == Verdict(Result.DRAW, Termination.NORMAL, "Fifty moves rule")


def test_checkmate_on_the_100th_ply_wins() -> None:
    board = chess.Board("7k/8/6K1/8/8/8/8/R7 w - - 99 80")
    board.push_san("Ra8#")
    assert board.halfmove_clock == 100
    assert rules_verdict(board) == Verdict(Result.WHITE_WINS, Termination.NORMAL, "White mates")


def test_on_ply_applies_the_laws_first() -> None:
    # Max moves (2 moves = 4 plies) would draw at ply 4, but ply 4 mates.
    adj = Adjudicator(AdjudicationRules(max_moves=2))
    results = play(adj, chess.Board(), ["f3", "e5", "g4", "Qh4#"], Score(cp=0))
    assert [v for v, _ in results] == [
        None,
        None,
        None,
        Verdict(Result.BLACK_WINS, Termination.NORMAL, "Black mates"),
    ]


# -- TCEC draw rule ----------------------------------------------------------

KNIGHTS = ["Nf3", "Nc6", "Nc3", "Nf6", "Nb5", "Nb4", "Nbd4", "Nbd5"]  # no repetition


def test_draw_rule_fires_after_k_moves_each_from_move_n() -> None:
    adj = Adjudicator(AdjudicationRules(draw=DrawRule(from_move=2, score_cp=10, moves=2)))
    results = play(adj, chess.Board(), KNIGHTS[:4], Score(cp=5))
    verdicts = [v for v, _ in results]
    # 2 moves each = 4 plies within ±0.10; ply 4 is move 2: drawn there.
    assert verdicts == [
        None,
        None,
        None,
        Verdict(Result.DRAW, Termination.ADJUDICATION, "TCEC draw rule"),
    ]
    # Rd counts the plies left: 3, 2, 1 (then 0 when it fires).
    assert [c[1] for _, c in results] == [3, 2, 1, 0]


def test_draw_rule_waits_for_move_n() -> None:
    adj = Adjudicator(AdjudicationRules(draw=DrawRule(from_move=3, score_cp=10, moves=2)))
    results = play(adj, chess.Board(), KNIGHTS[:6], Score(cp=-10))
    verdicts = [v for v, _ in results]
    # Four qualifying plies by ply 4, but move 3 is only reached at ply 6.
    assert verdicts[:5] == [None] * 5
    assert verdicts[5] == Verdict(Result.DRAW, Termination.ADJUDICATION, "TCEC draw rule")
    # At ply 4 the count is full but the rule cannot fire before move 3:
    # counting but not active, shown negative.
    assert results[3][1][1] == -1


def test_draw_rule_reset_by_capture_and_pawn_move() -> None:
    rule = DrawRule(from_move=0, score_cp=20, moves=2)
    adj = Adjudicator(AdjudicationRules(draw=rule))
    board = chess.Board()
    # Nf3 Nc6 (2 qualifying plies), e4 (pawn move: reset), Nf6 Nc3 Nxe4
    # (capture: reset), then 4 quiet plies are needed again.
    sans = ["Nf3", "Nc6", "e4", "Nf6", "Nc3", "Nxe4", "Nxe4", "d5"]
    results = play(adj, board, sans, Score(cp=0))
    assert all(v is None for v, _ in results)
    rds = [c[1] for _, c in results]
    # Not counting after a reset: -(plies left)-1 = -5.
    assert rds == [3, 2, -5, 3, 2, -5, -5, -5]


def test_draw_rule_reset_by_an_eval_outside_the_band() -> None:
    adj = Adjudicator(AdjudicationRules(draw=DrawRule(from_move=0, score_cp=15, moves=2)))
    scores: list[Score | None] = [
        Score(cp=0),
        Score(cp=16),
        Score(cp=-15),
        Score(cp=0),
        Score(cp=15),
    ]
    results = play(adj, chess.Board(), KNIGHTS[:5], scores)
    assert [c[1] for _, c in results] == [3, -5, 3, 2, 1]
    # A mate score is never within the band.
    adj2 = Adjudicator(AdjudicationRules(draw=DrawRule(from_move=0, score_cp=15, moves=1)))
    results2 = play(adj2, chess.Board(), KNIGHTS[:2], Score(mate=5))
    assert [v for v, _ in results2] == [None, None]


def test_book_plies_do_not_count() -> None:
    adj = Adjudicator(AdjudicationRules(draw=DrawRule(from_move=0, score_cp=10, moves=1)))
    results = play(adj, chess.Board(), KNIGHTS[:4], Score(cp=0), book_plies=2)
    verdicts = [v for v, _ in results]
    # Plies 1-2 are book; plies 3 and 4 make one move each: draw at ply 4.
    assert verdicts[:3] == [None, None, None]
    assert verdicts[3] is not None
    assert verdicts[3].detail == "TCEC draw rule"


def test_missing_score_resets_the_count() -> None:
    adj = Adjudicator(AdjudicationRules(draw=DrawRule(from_move=0, score_cp=10, moves=1)))
    results = play(adj, chess.Board(), KNIGHTS[:3], [Score(cp=0), None, Score(cp=0)])
    assert [v for v, _ in results] == [None, None, None]


# -- TCEC win rule -----------------------------------------------------------


def test_win_rule_needs_both_engines() -> None:
    rules = AdjudicationRules(win=WinRule(score_cp=500, moves=2))
    # White's engine says +6, Black's engine says 0: no agreement, no result.
    adj = Adjudicator(rules)
    scores: list[Score | None] = [Score(cp=600), Score(cp=0)] * 4
    assert all(v is None for v, _ in play(adj, chess.Board(), KNIGHTS, scores))
    # Both say White is 5+ pawns up (Black's engine -6 from its side = +6).
    adj = Adjudicator(rules)
    results = play(adj, chess.Board(), KNIGHTS[:4], Score(cp=600))
    verdicts = [v for v, _ in results]
    assert verdicts[:3] == [None, None, None]
    assert verdicts[3] == Verdict(Result.WHITE_WINS, Termination.ADJUDICATION, "TCEC resign rule")
    # Plies left before the rule fires: 3, 2, 1, then 0.
    assert [c[2] for _, c in results] == [3, 2, 1, 0]


def test_win_rule_for_black_and_mate_scores() -> None:
    adj = Adjudicator(AdjudicationRules(win=WinRule(score_cp=1000, moves=1)))
    results = play(adj, chess.Board(), KNIGHTS[:2], [Score(mate=-7), Score(cp=-1000)])
    assert results[1][0] == Verdict(Result.BLACK_WINS, Termination.ADJUDICATION, "TCEC resign rule")


def test_win_rule_disagreement_on_side_resets() -> None:
    adj = Adjudicator(AdjudicationRules(win=WinRule(score_cp=500, moves=1)))
    # White's engine thinks White wins, Black's thinks Black wins: no verdict.
    results = play(adj, chess.Board(), KNIGHTS[:4], [Score(cp=900), Score(cp=-900)] * 2)
    assert all(v is None for v, _ in results)


def test_counters_when_rules_are_off_or_idle() -> None:
    board = chess.Board()
    board.push_san("Nf3")
    off = Adjudicator(AdjudicationRules())
    off.on_ply(board, W, Score(cp=0))
    assert off.counters(board) == (49, -1000, -1000)
    idle = Adjudicator(AdjudicationRules(draw=DrawRule(34, 15, 5), win=WinRule(1000, 5)))
    idle.on_ply(board, W, Score(cp=50))
    # Eval outside both bands: both rules idle, -(2K)-1 = -11.
    assert idle.counters(board) == (49, -11, -11)


def test_r50_as_tcec_writes_it() -> None:
    # Samples: 50 right after a pawn move, 49 after 1 or 2 quiet plies, 48 after 3.
    adj = Adjudicator(AdjudicationRules())
    board = chess.Board()
    r50 = [c[0] for _, c in play(adj, board, ["e4", "Nc6", "Nf3", "Nf6", "Nc3", "d6"], Score(cp=0))]
    assert r50 == [50, 49, 49, 48, 48, 50]


# -- maximum length ----------------------------------------------------------


def test_max_moves_counts_plies_from_the_start_position_book_included() -> None:
    adj = Adjudicator(AdjudicationRules(max_moves=3))
    results = play(adj, chess.Board(), KNIGHTS[:6], Score(cp=0), book_plies=2)
    verdicts = [v for v, _ in results]
    assert verdicts[:5] == [None] * 5
    assert verdicts[5] == Verdict(Result.DRAW, Termination.ADJUDICATION, "TCEC max moves rule")


# -- tablebases with a fake probe --------------------------------------------


def fake_probe(value: int | None, calls: list[str]) -> Callable[[chess.Board], int | None]:
    def probe(board: chess.Board) -> int | None:
        calls.append(board.fen())
        return value

    return probe


@pytest.mark.parametrize(
    ("wdl", "result"),
    [
        (2, Result.BLACK_WINS),
        (1, Result.DRAW),
        (0, Result.DRAW),
        (-1, Result.DRAW),
        (-2, Result.WHITE_WINS),
    ],
)
def test_probe_value_is_from_the_side_to_move(wdl: int, result: Result) -> None:
    # KRvKR after a white move: Black to move, so +2 means Black wins.
    board = chess.Board("4k3/8/8/8/8/8/r7/R3K3 w - - 0 1")
    board.push_san("Kf1")
    calls: list[str] = []
    adj = Adjudicator(AdjudicationRules(tablebase=TablebaseRule(4)), fake_probe(wdl, calls))
    assert adj.on_ply(board, W, Score(cp=0)) == Verdict(
        result, Termination.ADJUDICATION, "SyzygyTB"
    )


def test_probe_only_at_or_below_max_pieces_and_without_castling() -> None:
    calls: list[str] = []
    board = chess.Board("4k3/8/8/8/8/8/r7/R3K3 w - - 0 1")
    board.push_san("Kf1")
    adj = Adjudicator(AdjudicationRules(tablebase=TablebaseRule(3)), fake_probe(2, calls))
    assert adj.on_ply(board, W, Score(cp=0)) is None
    assert calls == []
    # White may still castle queen-side: Syzygy tables do not cover it.
    castling = chess.Board("4k3/8/8/8/8/8/r7/R3K3 b Q - 0 1")
    castling.push_san("Ra3")
    adj = Adjudicator(AdjudicationRules(tablebase=TablebaseRule(4)), fake_probe(2, calls))
    assert castling.castling_rights
    assert adj.on_ply(castling, B, Score(cp=0)) is None
    assert calls == []


def test_unknown_probe_value_plays_on() -> None:
    calls: list[str] = []
    board = chess.Board("4k3/8/8/8/8/8/r7/R3K3 w - - 0 1")
    board.push_san("Kf1")
    adj = Adjudicator(AdjudicationRules(tablebase=TablebaseRule(4)), fake_probe(None, calls))
    assert adj.on_ply(board, W, Score(cp=0)) is None
    assert len(calls) == 1


# -- properties ----------------------------------------------------------------

DRAW = DrawRule(from_move=3, score_cp=20, moves=2)
WIN = WinRule(score_cp=300, moves=2)


@st.composite
def games(draw: st.DrawFn) -> tuple[chess.Board, list[tuple[chess.Move, Score | None, bool]]]:
    """A random legal game with random scores (mostly near 0 or decisive)."""
    board = chess.Board()
    plies: list[tuple[chess.Move, Score | None, bool]] = []
    book = draw(st.integers(0, 4))
    length = draw(st.integers(1, 60))
    # Mostly one typical score per game so that the rules do fire, with
    # occasional missing or off-band scores that must reset the counts.
    base = draw(st.sampled_from([0, 10, -20, 300, -300, 900]))
    choices: list[Score | None] = [Score(cp=base)] * 12
    choices += [Score(cp=25), Score(cp=-299), Score(cp=1000), None]
    score_st = st.sampled_from(choices)
    for index in range(length):
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        if not moves or rules_verdict(board) is not None:
            break
        move = moves[draw(st.integers(0, len(moves) - 1))]
        board.push(move)
        plies.append((move, draw(score_st), index < book))
    return chess.Board(), plies


@settings(max_examples=80, deadline=None)
@given(games())
def test_verdicts_match_a_windowed_oracle(
    game: tuple[chess.Board, list[tuple[chess.Move, Score | None, bool]]],
) -> None:
    """The draw/win rules fire exactly when the last 2K plies qualify, which
    is what "K consecutive moves each" means; counters stay in range."""
    board, plies = game
    adj = Adjudicator(AdjudicationRules(draw=DRAW, win=WIN))
    history: list[tuple[bool, bool, Score | None]] = []  # (book, reset, score)
    previous_r50: int | None = None
    for move, score, book in plies:
        board.push(move)
        verdict = adj.on_ply(board, mover_of(board), score, book=book)
        history.append((book, board.halfmove_clock == 0, score))
        r50, rd, rr = adj.counters(board)
        assert 0 <= r50 <= 50
        if previous_r50 is not None and board.halfmove_clock != 0:
            assert r50 <= previous_r50
        previous_r50 = r50
        assert -2 * DRAW.moves - 1 <= rd <= 2 * DRAW.moves
        assert -2 * WIN.moves - 1 <= rr <= 2 * WIN.moves
        window = history[-2 * DRAW.moves :]
        drawn = (
            len(board.move_stack) // 2 >= DRAW.from_move
            and len(window) == 2 * DRAW.moves
            and all(
                not b
                and not r
                and s is not None
                and s.cp is not None
                and abs(s.cp) <= DRAW.score_cp
                for b, r, s in window
            )
        )
        white_won = len(window) == 2 * WIN.moves and all(
            not b and s is not None and s.cp is not None and s.cp >= WIN.score_cp
            for b, _, s in window
        )
        black_won = len(window) == 2 * WIN.moves and all(
            not b and s is not None and s.cp is not None and s.cp <= -WIN.score_cp
            for b, _, s in window
        )
        rules = rules_verdict(board)
        if rules is not None:
            assert verdict == rules
            break
        if drawn:
            event("draw rule")
            assert verdict is not None
            assert verdict.detail == "TCEC draw rule"
            break
        if white_won or black_won:
            event("win rule")
            expected = Result.WHITE_WINS if white_won else Result.BLACK_WINS
            assert verdict == Verdict(expected, Termination.ADJUDICATION, "TCEC resign rule")
            break
        assert verdict is None
        if rd >= 0:
            # Active: the rule fires after exactly rd more qualifying plies.
            assert rd >= 1


@given(st.data())
@settings(max_examples=200, deadline=None)
def test_repetition_verdict_is_python_chess_threefold(data: st.DataObject) -> None:
    """The fifty-move counter shortcut never hides a threefold repetition:
    random games that mostly shuffle pieces (many repetitions), from the start
    or from a FEN whose counter is not zero."""
    fen = data.draw(
        st.sampled_from([chess.STARTING_FEN, "4k3/2n5/8/8/8/8/5N2/R3K2R w KQ - 7 40"])
    )
    board = chess.Board(fen)
    for _ in range(data.draw(st.integers(0, 60))):
        moves = list(board.legal_moves)
        quiet = [m for m in moves if not board.is_zeroing(m)]
        pool = quiet if quiet and data.draw(st.integers(0, 9)) else moves
        if not pool:
            break
        board.push(data.draw(st.sampled_from(pool)))
        verdict = rules_verdict(board)
        if verdict is None or verdict.detail == "3-Fold repetition":
            assert (verdict is not None) == board.is_repetition(3)
        if verdict is not None:
            break


@given(st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None)
def test_a_known_legal_move_changes_no_verdict(rng: object) -> None:
    """Told that a legal move exists (an engine's PV goes on with one), the laws
    give the same verdict as after their own move generation, ply by ply, in
    random games that reach mates, stalemates, bare kings and repetitions."""
    import random

    assert isinstance(rng, random.Random)
    board = chess.Board()
    while True:
        legal = list(board.legal_moves)
        known = rules_verdict(board, has_legal_move=bool(legal))
        assert known == rules_verdict(board)
        if known is not None or not legal:
            break
        # Mostly captures and checks first: games that end by the laws.
        sharp = [m for m in legal if board.is_capture(m) or board.gives_check(m)]
        board.push(rng.choice(sharp if sharp and rng.random() < 0.7 else legal))
    event(known.detail if known else "no verdict")
