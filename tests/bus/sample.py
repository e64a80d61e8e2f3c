"""A small, hand-checked event as a stream of domain events, for the bus tests.

Four players, two rounds, single games. Round 1: A-B 1-0, C-D 1/2-1/2.
Round 2 (C has White vs A, B vs D): C-A 0-1, B-D 1-0.
Standings after round 2 (hand-computed): A 2, B 1, C 0.5, D 0.5.
Each game plays a few real moves from the start position (FENs from python-chess).
"""

from __future__ import annotations

import chess

from tcecd.domain import Color, GameId, Result, Termination
from tcecd.events import (
    DomainEvent,
    EngineFault,
    EventFinished,
    EventStarted,
    GameFinished,
    GameStarted,
    MovePlayed,
    RoundPaired,
    StandingsUpdated,
)
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.pairing.base import Pair, Player, RoundPairing, ScheduledGame, Standing

PLAYERS = (Player("A", "Alpha", 1, 3500), Player("B", "Beta", 2), Player("C", "Gamma 2", 3),
           Player("D", "Delta/x", 4))
OPENING = Opening(name="Italian", fen=None, moves=(), eco="C50")
MOVES = ("e2e4", "e7e5", "g1f3", "b8c6")

#: (round, number, white, black, result)
GAMES = (
    (1, 1, "A", "B", Result.WHITE_WINS),
    (1, 2, "C", "D", Result.DRAW),
    (2, 1, "C", "A", Result.BLACK_WINS),
    (2, 2, "B", "D", Result.WHITE_WINS),
)


def move_records(uci_moves: tuple[str, ...] = MOVES) -> list[MoveRecord]:
    board = chess.Board()
    out = []
    for ply, uci in enumerate(uci_moves, start=1):
        mv = chess.Move.from_uci(uci)
        san = board.san(mv)
        color = Color.WHITE if board.turn else Color.BLACK
        board.push(mv)
        out.append(MoveRecord(ply=ply, color=color, uci=uci, san=san, fen_after=board.fen(),
                              move_time_ms=1000, clock_left_ms=60000 - 1000 * ply, depth=20 + ply,
                              seldepth=30, nodes=10**6 * ply, nps=10**6,
                              score=Score(cp=20 + ply), pv_san=(san, "Nc6"), r50=50 - ply))
    return out


def standings(after_round: int) -> tuple[Standing, ...]:
    if after_round == 0:
        rows = [("A", 0), ("B", 0), ("C", 0), ("D", 0)]
    elif after_round == 1:
        rows = [("A", 2), ("C", 1), ("D", 1), ("B", 0)]
    else:
        rows = [("A", 4), ("B", 2), ("C", 1), ("D", 1)]
    return tuple(Standing(rank=i + 1, id=pid, score_half=half, byes=0, games=after_round,
                          tiebreaks=(("SB", float(half)),))
                 for i, (pid, half) in enumerate(rows))


def pairing(round_: int) -> RoundPairing:
    games = [g for g in GAMES if g[0] == round_]
    return RoundPairing(
        round=round_, bye=None, removed_history_rounds=(),
        pairs=tuple(Pair(w, b) for _, _, w, b, _ in games),
        games=tuple(ScheduledGame(number=n, white=w, black=b, pair_index=i)
                    for i, (_, n, w, b, _) in enumerate(games)),
    )


def game_events(round_: int, number: int, white: str, black: str,
                result: Result) -> list[DomainEvent]:
    gid = GameId(round_, number)
    moves = move_records()
    out: list[DomainEvent] = [GameStarted(gid, white, black, OPENING, "60+1",
                                          "2026-11-22T04:00:00.000Z", 60000, 60000)]
    for m in moves:
        out.append(MovePlayed(gid, m, m.clock_left_ms if m.color is Color.WHITE else 59000,
                              m.clock_left_ms if m.color is Color.BLACK else 58000))
    rec = GameRecord(game_id=gid, event="Bus Test", site="here", white=white, black=black,
                     result=result, termination=Termination.ADJUDICATION,
                     termination_detail="test", start_time="2026-11-22T04:00:00.000Z",
                     end_time="2026-11-22T04:01:00.000Z", duration_ms=60000,
                     time_control="60+1", opening=OPENING, moves=tuple(moves))
    pgn = f'[Event "Bus Test"]\n[Round "{gid}"]\n[Result "{result.value}"]\n\n{result.value}\n'
    out.append(GameFinished(rec, pgn))
    return out


def round_events(round_: int) -> list[DomainEvent]:
    out: list[DomainEvent] = [RoundPaired(pairing(round_))]
    for g in GAMES:
        if g[0] == round_:
            out += game_events(*g)
    out.append(StandingsUpdated(round_, standings(round_)))
    return out


def start_events() -> list[DomainEvent]:
    return [EventStarted("Bus Test", "here", "tcec-swiss", False, 2, "60+1", PLAYERS),
            StandingsUpdated(0, standings(0))]


def all_events() -> list[DomainEvent]:
    return [*start_events(), *round_events(1),
            EngineFault("D", GameId(2, 2), "crash", "segfault", 1), *round_events(2),
            EventFinished(standings(2))]
