"""Playing one game between two running engines: the async loop around the pure rules.

:func:`play_game` owns one board, one :class:`~tcecd.game.clock.Clock` and one
:class:`~tcecd.game.adjudication.Adjudicator`. Each ply it asks the mover's
:class:`~tcecd.runner.session.EngineSession` to think under a timeout derived
from the clock, charges the measured think time, records the move with
everything the engine reported, lets the adjudicator decide, and calls the
``on_move`` callback (the daemon's live stream). All rules are decided by
tcecd, never by the engines.

Faults (see :class:`~tcecd.runner.session.FaultKind`) end the game at once:
the offender's process group is killed and reaped before this function
returns, the fault is listed in :class:`GameOutcome`, and per the
:class:`GameSetup` fault policy the offender loses (``"lose"``) or the game is
marked for replay (``"replay"``, result ``*``). A flag fall is a normal chess
loss under both policies (FIDE 6.9: a draw when the opponent cannot mate).

Timeouts: with a clock, the mover gets ``deadline + grace`` before it is
declared stalled; an answer after the deadline but within the grace is a time
forfeit. Without a clock (nodes/depth only) it gets ``stall_timeout_ms``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.engine

from tcecd.config.engines import EngineConfig
from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.adjudication import Adjudicator, Verdict, rules_verdict
from tcecd.game.fen import fen
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.game.rules import (
    FaultPolicy,
    GameRules,
    game_clock,
    game_opening,
    side_time_control_tags,
)
from tcecd.runner.pv import pv_line, pv_san
from tcecd.runner.session import EngineFault, EngineSession, FaultKind, ThinkResult
from tcecd.wallclock import utc_now

#: ``on_move(move, white_clock_ms, black_clock_ms)``: called after every ply.
MoveCallback = Callable[[MoveRecord, int | None, int | None], None]


@dataclass(frozen=True)
class GameSetup:
    """Everything one game needs besides the two engines: who it is, its
    rules (:class:`~tcecd.game.rules.GameRules`, as the config or ``tcecd
    play`` made them), the tablebase probe opened where it is played, and
    its start position."""

    game_id: GameId
    event: str
    site: str
    rules: GameRules
    probe: Callable[[chess.Board], int | None] | None = None
    opening: Opening = field(default_factory=lambda: Opening(name=None, fen=None))
    extra_tags: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Fault:
    """An engine fault in a game: who (name and colour), what kind, the detail."""

    engine: str
    color: Color
    kind: FaultKind
    detail: str


@dataclass(frozen=True)
class GameOutcome:
    """A finished game: its record, the faults, whether it must be replayed,
    and timing figures (for ``bench/``: per engine move, think time in ms, and
    the bestmove -> next ``go`` latency in ns)."""

    record: GameRecord
    faults: tuple[Fault, ...] = ()
    replay: bool = False
    think_ms: tuple[int, ...] = ()
    latencies_ns: tuple[int, ...] = ()
    #: Think times in ns (``bench/``: ms truncation would bias short moves).
    think_ns: tuple[int, ...] = ()


def _side(color: Color) -> str:
    return "White" if color is Color.WHITE else "Black"


def _color_of(board: chess.Board) -> Color:
    return Color.WHITE if board.turn == chess.WHITE else Color.BLACK


def fault_verdict(fault: Fault, policy: FaultPolicy) -> tuple[Verdict, bool]:
    """The result, PGN termination and detail for a fault, and whether to replay.

    Texts follow cutechess/TCEC: "White disconnects", "Black's connection
    stalls", "White makes an illegal move: e2e5", "Black loses on time".
    """
    side = _side(fault.color)
    termination, detail = {
        FaultKind.STARTUP: (Termination.ABANDONED, f"{side} fails to start"),
        FaultKind.CRASH: (Termination.ABANDONED, f"{side} disconnects"),
        FaultKind.STALL: (Termination.STALLED, f"{side}'s connection stalls"),
        FaultKind.ILLEGAL_MOVE: (
            Termination.ILLEGAL_MOVE,
            f"{side} makes an illegal move: {fault.detail}",
        ),
        FaultKind.GARBAGE: (Termination.ILLEGAL_MOVE, f"{side} sends garbage: {fault.detail}"),
        FaultKind.TIME_FORFEIT: (Termination.TIME_FORFEIT, f"{side} loses on time"),
    }[fault.kind]
    if policy == "replay" and fault.kind is not FaultKind.TIME_FORFEIT:
        return Verdict(Result.UNFINISHED, termination, detail), True
    return Verdict(Result.win_for(fault.color.other), termination, detail), False


def score_white(info: dict[str, Any] | Any, board_turn: chess.Color) -> Score | None:
    """The engine's score converted to White's point of view, if it gave one."""
    pov = info.get("score")
    if pov is None:
        return None
    white = pov.white()
    mate = white.mate()
    if mate is not None:
        # python-chess reports "mate 0" (mated now) as Mate(-0); keep the sign meaningful.
        if mate == 0:
            mate = -1 if board_turn == chess.WHITE else 1
        return Score(mate=mate)
    return Score(cp=white.score())


def _int(info: Any, key: str) -> int | None:
    value = info.get(key)
    return None if value is None else int(value)


class _Game:
    """The state of one game in progress (used only by :func:`play_game`)."""

    def __init__(
        self,
        setup: GameSetup,
        white: EngineSession,
        black: EngineSession,
        on_move: MoveCallback | None,
    ) -> None:
        self.setup = setup
        self.engines = {Color.WHITE: white, Color.BLACK: black}
        self.on_move = on_move
        #: The opening as this game plays it (Chess960 castling in a Chess960 game).
        self.opening = game_opening(setup.rules, setup.opening)
        self.board = self.opening.start_board()
        self.clock = game_clock(setup.rules, white.config, black.config)
        self.adjudicator = Adjudicator(setup.rules.adjudication, setup.probe)
        self.moves: list[MoveRecord] = []
        self.faults: list[Fault] = []
        self.think_ms: list[int] = []
        self.think_ns: list[int] = []
        self.latencies_ns: list[int] = []
        self.last_bestmove_ns: int | None = None
        self.start_time = utc_now()
        self.start_ns = time.monotonic_ns()

    def emit(self, record: MoveRecord) -> None:
        self.moves.append(record)
        if self.on_move is not None:
            self.on_move(
                record, self.clock.remaining_ms(Color.WHITE), self.clock.remaining_ms(Color.BLACK)
            )

    def push_book(self) -> Verdict | None:
        """Play the opening's book moves (validated by the openings loader)."""
        for uci in self.opening.moves:
            mover = _color_of(self.board)
            move = chess.Move.from_uci(uci)
            san = self.board.san_and_push(move)
            verdict = self.adjudicator.on_ply(self.board, mover, None, book=True)
            self.emit(self._record(mover, move, san, book=True))
            if verdict is not None:
                return verdict
        return None

    def _record(
        self,
        mover: Color,
        move: chess.Move,
        san: str,
        *,
        book: bool = False,
        **fields: Any,
    ) -> MoveRecord:
        r50, rd, rr = self.adjudicator.counters(self.board)
        return MoveRecord(
            ply=len(self.moves) + 1,
            color=mover,
            uci=move.uci(),
            san=san,
            fen_after=fen(self.board),
            book=book,
            r50=r50,
            rd=rd,
            rr=rr,
            **fields,
        )

    def allowance(self, mover: Color) -> tuple[int | None, int | None]:
        """(deadline, timeout) in ms for the mover's next think. A remote
        engine's network round trip (``remote.latency_ms``) is added to its
        allowance and not charged to its clock."""
        deadline = self.clock.deadline_ms(mover)
        if deadline is None:
            return None, self.setup.rules.stall_timeout_ms
        return deadline, deadline + self._latency(mover) + self.setup.rules.stall_grace_ms

    def _latency(self, mover: Color) -> int:
        remote = self.engines[mover].config.remote
        return 0 if remote is None else remote.latency_ms

    async def engine_ply(self) -> Verdict | None:
        """One engine move; returns a verdict when the game is over. Raises
        :class:`EngineFault` (kind ``time-forfeit`` included) on a fault."""
        board, mover = self.board, _color_of(self.board)
        engine = self.engines[mover]
        deadline, timeout = self.allowance(mover)
        try:
            answer = await engine.think(board, self.clock.limits(mover), timeout_ms=timeout)
        except EngineFault as fault:
            if fault.kind is FaultKind.STALL and deadline is not None:
                fault.detail += f" (flag fell at {deadline} ms)"
            raise
        if self.last_bestmove_ns is not None:
            self.latencies_ns.append(answer.started_ns - self.last_bestmove_ns)
        self.last_bestmove_ns = answer.finished_ns
        used = max(0, answer.used_ms - self._latency(mover))
        self.think_ms.append(answer.used_ms)
        self.think_ns.append(answer.finished_ns - answer.started_ns)
        if deadline is not None and self.clock.flag_fell(mover, used):
            raise EngineFault(
                engine.name, FaultKind.TIME_FORFEIT, f"thought {used} ms, allowed {deadline} ms"
            )
        if answer.resigned or answer.move is None:
            return Verdict(
                Result.win_for(mover.other), Termination.NORMAL, f"{_side(mover)} resigns"
            )
        self.clock = self.clock.after_move(mover, used)
        return self._push_engine_move(mover, answer, used)

    def _push_engine_move(self, mover: Color, answer: ThinkResult, used: int) -> Verdict | None:
        board, move, info = self.board, answer.move, answer.info
        assert move is not None
        score = score_white(info, board.turn)
        uci = move.uci()
        line = pv_line(uci, answer.pv)
        pv = pv_san(board, move, line)  # stops before the first illegal move
        san = pv[0]  # ``move``'s own SAN: the line starts with it
        board.push(move)
        # A PV that goes on after the move names a legal reply (pv_san checked it):
        # no checkmate or stalemate to look for.
        verdict = self.adjudicator.on_ply(board, mover, score, has_legal_move=len(pv) > 1)
        self.emit(
            self._record(
                mover,
                move,
                san,
                move_time_ms=used,
                clock_left_ms=self.clock.remaining_ms(mover),
                depth=_int(info, "depth"),
                seldepth=_int(info, "seldepth"),
                nodes=_int(info, "nodes"),
                nps=_int(info, "nps"),
                score=score,
                pv_san=pv,
                pv_uci=tuple(line[: len(pv)]),
                ponder_san=pv[1] if len(pv) > 1 else None,
                tbhits=_int(info, "tbhits"),
                hashfull=_int(info, "hashfull"),
            )
        )
        return verdict

    def record(self, verdict: Verdict) -> GameRecord:
        setup, white, black = self.setup, self.engines[Color.WHITE], self.engines[Color.BLACK]
        return GameRecord(
            game_id=setup.game_id,
            event=setup.event,
            site=setup.site,
            white=white.name,
            black=black.name,
            result=verdict.result,
            termination=verdict.termination,
            termination_detail=verdict.detail,
            start_time=self.start_time,
            end_time=utc_now(),
            duration_ms=(time.monotonic_ns() - self.start_ns) // 1_000_000,
            time_control=setup.rules.time_control.pgn_tag(),
            opening=self.opening,
            moves=tuple(self.moves),
            white_options=white.options,
            black_options=black.options,
            white_elo=white.config.rating,
            black_elo=black.config.rating,
            extra_tags=setup.extra_tags
            + side_time_control_tags(self.clock, setup.rules.time_control),
        )


def flag_verdict(board: chess.Board, loser: Color) -> Verdict:
    """Loss on time, or a draw when the opponent cannot possibly mate (FIDE 6.9)."""
    winner = loser.other
    if board.has_insufficient_material(chess.WHITE if winner is Color.WHITE else chess.BLACK):
        return Verdict(
            Result.DRAW,
            Termination.TIME_FORFEIT,
            f"{_side(loser)} loses on time; {_side(winner)} cannot mate",
        )
    return Verdict(
        Result.win_for(winner), Termination.TIME_FORFEIT, f"{_side(loser)} loses on time"
    )


async def play_game(
    setup: GameSetup,
    white: EngineSession,
    black: EngineSession,
    *,
    on_move: MoveCallback | None = None,
) -> GameOutcome:
    """Play one game between two started sessions and return its outcome.

    Never raises for engine misbehaviour: faults end the game (see the module
    docstring) and the offender is killed and reaped before returning. The
    sessions stay open otherwise; their owner closes or reuses them.
    """
    game = _Game(setup, white, black, on_move)
    verdict: Verdict | None = None
    replay = False
    current = Color.WHITE  # whose engine is being talked to: the offender on a fault
    try:
        for current in (Color.WHITE, Color.BLACK):
            await game.engines[current].new_game()
        verdict = game.push_book() or rules_verdict(game.board)
        while verdict is None:
            current = _color_of(game.board)
            verdict = await game.engine_ply()
    except EngineFault as exc:
        fault = Fault(exc.engine, current, exc.kind, exc.detail)
        game.faults.append(fault)
        if exc.kind is FaultKind.TIME_FORFEIT:
            verdict = flag_verdict(game.board, current)
        else:
            verdict, replay = fault_verdict(fault, setup.rules.fault_policy)
            # Its process group dies now, before the outcome is reported.
            await game.engines[current].abort()
    return GameOutcome(
        record=game.record(verdict),
        faults=tuple(game.faults),
        replay=replay,
        think_ms=tuple(game.think_ms),
        latencies_ns=tuple(game.latencies_ns),
        think_ns=tuple(game.think_ns),
    )


def startup_outcome(
    setup: GameSetup,
    white: EngineConfig,
    black: EngineConfig,
    fault: Fault,
) -> GameOutcome:
    """The outcome of a game that could not start because ``fault.color``'s
    engine failed to start: no moves; the offender loses (termination
    ``abandoned``, "White fails to start") or, under the ``replay`` policy,
    the game is played again. The one record of a failed start, for every
    command that plays games."""
    verdict, replay = fault_verdict(fault, setup.rules.fault_policy)
    now = utc_now()
    record = GameRecord(
        game_id=setup.game_id,
        event=setup.event,
        site=setup.site,
        white=white.name,
        black=black.name,
        result=verdict.result,
        termination=verdict.termination,
        termination_detail=verdict.detail,
        start_time=now,
        end_time=now,
        duration_ms=0,
        time_control=setup.rules.time_control.pgn_tag(),
        opening=game_opening(setup.rules, setup.opening),
        moves=(),
        white_elo=white.rating,
        black_elo=black.rating,
        extra_tags=setup.extra_tags,
    )
    return GameOutcome(record=record, faults=(fault,), replay=replay)
