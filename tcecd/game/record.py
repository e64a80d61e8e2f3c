"""What one game produced: the per-move record and the finished game.

These are the values the runner builds, the PGN writer renders, the store
keeps and the live stream publishes. Times are integer milliseconds; scores
are from White's point of view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tcecd.domain import Color, GameId, PlayerId, Result, Termination

if TYPE_CHECKING:
    import chess


@dataclass(frozen=True, slots=True)
class Score:
    """An evaluation from White's point of view: centipawns, or mate in N
    (``mate`` > 0: White mates; < 0: Black mates). Exactly one is set."""

    cp: int | None = None
    mate: int | None = None

    def pgn(self) -> str:
        """TCEC ``wv`` text: pawns with two decimals, or ``M<n>``/``-M<n>``."""
        if self.mate is not None:
            return f"M{self.mate}" if self.mate > 0 else f"-M{-self.mate}"
        assert self.cp is not None
        return f"{self.cp / 100:.2f}"


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One ply. Engine fields are None for book moves or when the engine did
    not report them."""

    ply: int  # 1-based ply number within the game (after the opening's start position)
    color: Color
    uci: str
    san: str
    fen_after: str
    book: bool = False
    move_time_ms: int | None = None
    clock_left_ms: int | None = None  # mover's clock after the move (increment included)
    depth: int | None = None
    seldepth: int | None = None
    nodes: int | None = None
    nps: int | None = None
    score: Score | None = None  # White's point of view
    pv_san: tuple[str, ...] = ()
    ponder_san: str | None = None
    tbhits: int | None = None
    hashfull: int | None = None  # permille, as UCI reports it
    # Adjudication counters after this ply (see tcec-formats.md): plies left
    # before the 50-move rule, the draw rule, the win rule (-1000: rule off).
    r50: int | None = None
    rd: int | None = None
    rr: int | None = None
    # The PV's moves in UCI, one per ``pv_san`` move, all legal, when the runner made
    # the record (empty when it was rebuilt from a PGN, the store or the stream):
    # ``live.json`` replays the PV from them instead of parsing each SAN again (a
    # move generation a move). Derived data, so not compared: a record is the same
    # with or without it, and neither the store nor the stream carries it.
    pv_uci: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class Opening:
    """A start position and the book moves played from it (UCI).

    ``chess960``: the game is played under Chess960 castling rules (an event
    with ``variant: chess960``): the castling rights of ``fen`` name the
    castling rooks wherever they stand (X-FEN or Shredder-FEN), castling moves
    are written king-takes-rook in UCI (``e1h1``, as ``UCI_Chess960`` engines
    write them) and ``O-O``/``O-O-O`` in SAN. Every board of the game is made
    by :meth:`start_board`, so the flag reaches each reader of the opening.
    """

    name: str | None
    fen: str | None  # None: the standard start position
    moves: tuple[str, ...] = ()
    eco: str | None = None
    index: int | None = None  # position in the openings file, for the record
    chess960: bool = False

    def start_board(self, plies: int = 0) -> chess.Board:
        """The start position (a Chess960 board when :attr:`chess960`), with
        its first ``plies`` book moves played."""
        import chess

        board = chess.Board(self.fen or chess.STARTING_FEN, chess960=self.chess960)
        for uci in self.moves[:plies]:
            board.push_uci(uci)
        return board


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished (or forfeited) game, everything needed to write its PGN."""

    game_id: GameId
    event: str
    site: str
    white: PlayerId
    black: PlayerId
    result: Result
    termination: Termination
    termination_detail: str  # human text, e.g. "TCEC draw rule", "White mates"
    start_time: str  # UTC ISO 8601, e.g. "2026-11-22T03:59:43.149Z"
    end_time: str
    duration_ms: int
    time_control: str  # PGN TimeControl tag value
    opening: Opening
    moves: tuple[MoveRecord, ...]
    white_options: tuple[tuple[str, str], ...] = ()
    black_options: tuple[tuple[str, str], ...] = ()
    white_elo: int | None = None
    black_elo: int | None = None
    extra_tags: tuple[tuple[str, str], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What the event keeps in memory of a finished game: its result and the
    few facts the live outputs show (TCEC's schedule and crash rows, the
    crosstable, the standings), not its moves. The moves and the PGN text
    live in the store; a long event's memory so grows by a few hundred bytes
    a game, not by the game's record (:meth:`of`)."""

    game_id: GameId
    white: PlayerId
    black: PlayerId
    result: Result
    termination: Termination
    termination_detail: str
    start_time: str
    duration_ms: int
    plies: int
    #: The position the game ended in (FEN).
    final_fen: str
    opening_name: str | None = None
    eco: str | None = None
    #: Each side's last engine evaluation, White's point of view (``wv`` text).
    white_eval: str | None = None
    black_eval: str | None = None

    @property
    def played(self) -> bool:
        """False for a game never played (forfeited: an engine was out):
        it scores, but gives neither player a colour."""
        return self.termination is not Termination.FORFEIT

    @classmethod
    def of(cls, record: GameRecord) -> GameSummary:
        from tcecd.game.fen import fen

        if record.moves:
            final = record.moves[-1].fen_after
        else:
            final = fen(record.opening.start_board(len(record.opening.moves)))
        return cls(
            game_id=record.game_id,
            white=record.white,
            black=record.black,
            result=record.result,
            termination=record.termination,
            termination_detail=record.termination_detail,
            start_time=record.start_time,
            duration_ms=record.duration_ms,
            plies=len(record.moves),
            final_fen=final,
            opening_name=record.opening.name,
            eco=record.opening.eco,
            white_eval=_last_eval(record.moves, Color.WHITE),
            black_eval=_last_eval(record.moves, Color.BLACK),
        )


def _last_eval(moves: tuple[MoveRecord, ...], color: Color) -> str | None:
    for m in reversed(moves):
        if m.color is color and not m.book and m.score is not None:
            return m.score.pgn()
    return None
