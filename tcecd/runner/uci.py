"""tcecd's UCI protocol: python-chess's, with the per-move exchange made lean.

python-chess drives the engine (handshake, options, ``ucinewgame``/``isready``,
errors). What happens every move is tcecd's own, because python-chess's general
machinery was most of tcecd's CPU time per move (``bench/match.py``):

- ``info`` lines are kept raw (:class:`~tcecd.runner.pipes.KeptInfo`) and parsed
  once, the last ones only, when ``bestmove`` has arrived (:func:`read_info`);
- the ``position`` command is built incrementally and goes out in one write with
  the ``go`` (:meth:`_UciProtocol._position`);
- the first move of a game is python-chess's play command (:class:`_UciPlayCommand`,
  defined once instead of per call), which sets the options play sets; the later
  moves of the same game, with nothing changed in between, skip python-chess's
  command queue: ``position`` + ``go`` are written and a future waits for
  ``bestmove`` (:meth:`_UciProtocol.play_move`);
- a ``bestmove`` is read as python-chess reads it, without the ponder move, and
  without a second legality check when a PV already made the move there
  (:func:`parse_bestmove`).

That exchange is an explicit state machine (:class:`FastPath`, in the manner of
python-chess's ``CommandState``): every change of state is asserted to be one the
table :data:`NEXT` allows. It rests on python-chess internals (``_position``, ``_go``,
``_setoption``, ``_configure``, ``_ucinewgame``, ``_isready``, ``_line_received``,
``_parse_uci_info``, ``_next_token``, ``BaseCommand``, the protocol's ``buffer``,
``command``, ``next_command``, ``game``, ``first_game``, ``target_config``,
``may_ponderhit``), so pyproject.toml pins the python-chess version, and
tests/runner/test_contract.py replays recorded engine transcripts through this path
and through python-chess's own ``play`` and requires the same records.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Mapping
from typing import Any

import chess
import chess.engine

from tcecd.runner.pipes import KeptInfo
from tcecd.runner.pv import SHARED as SHARED_SAN

#: What tcecd keeps of the engine's search report: python-chess's parse of
#: depth, seldepth, nodes, nps, time, hashfull, tbhits and the score, read from
#: one line per move (see :class:`_UciProtocol`). The PV is read apart, by
#: :func:`parse_pv` (its words only; the game layer reads them as moves and
#: checks them in SAN, :func:`tcecd.runner.pv.pv_san`).
UCI_INFO = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE
#: Fields of a later ``info`` line (one without score or PV) that update the
#: kept line: counters that only grow while the search ends.
_COUNTERS = ("nodes", "nps", "time", "hashfull", "tbhits")
#: UCI ``info`` keywords that can follow a ``pv`` (ends the move list).
_INFO_KEYWORDS = frozenset(
    [
        "depth",
        "seldepth",
        "time",
        "nodes",
        "pv",
        "multipv",
        "score",
        "currmove",
        "currmovenumber",
        "hashfull",
        "nps",
        "tbhits",
        "sbhits",
        "cpuload",
        "string",
        "refutation",
        "currline",
        "lowerbound",
        "upperbound",
        "wdl",
    ]
)


class FastPath(enum.Enum):
    """Where tcecd's own per-move exchange with a UCI engine stands (the settled path of
    :meth:`_UciProtocol.play_move`). Every change goes through
    :meth:`_UciProtocol._enter`, which asserts that :data:`NEXT` allows it."""

    #: No move of ours in flight and no ``bestmove`` due: the fast path may start one.
    IDLE = enum.auto()
    #: ``position`` + ``go`` written; the ``bestmove`` is awaited.
    THINKING = enum.auto()
    #: The ``bestmove`` came; the move that awaited it has not taken it yet.
    ANSWERED = enum.auto()
    #: A move given up (cancelled, out of time): ``stop`` sent, its ``bestmove`` is due
    #: and must not be taken for the next move's (python-chess's play command does the
    #: same); the next move goes through python-chess's command once it came.
    STOPPING = enum.auto()
    #: The engine is gone; nothing follows.
    TERMINATED = enum.auto()


#: The changes :class:`FastPath` allows.
NEXT: dict[FastPath, frozenset[FastPath]] = {
    FastPath.IDLE: frozenset({FastPath.THINKING, FastPath.TERMINATED}),
    FastPath.THINKING: frozenset({FastPath.ANSWERED, FastPath.STOPPING, FastPath.TERMINATED}),
    FastPath.ANSWERED: frozenset({FastPath.IDLE, FastPath.TERMINATED}),
    FastPath.STOPPING: frozenset({FastPath.IDLE, FastPath.TERMINATED}),
    FastPath.TERMINATED: frozenset(),
}


class _UciProtocol(chess.engine.UciProtocol):
    """python-chess's UCI protocol, keeping ``info`` lines raw.

    An engine sends many ``info`` lines per move (one per iteration, and more);
    tcecd keeps only what the last one says. Parsing every line (python-chess
    does when ``play()`` is given an info mask) was most of tcecd's CPU time
    per move, so ``info`` lines never reach python-chess here: the protocol
    keeps them raw in :attr:`kept` (:class:`~tcecd.runner.pipes.KeptInfo`: the
    last line with a score or a PV, the last line with a PV, and the last other
    line after them, for counters; the stdout reader keeps most of them there
    before they reach the protocol), and :func:`read_info` parses them once,
    when ``bestmove`` has arrived. No python-chess command needs
    ``info`` lines besides the info collection of ``play``/``analysis``, and
    tcecd plays through :meth:`play_move`, which collects none (and makes the
    later moves of a game without python-chess's command queue: see the module
    docstring).
    """

    def __init__(self) -> None:
        super().__init__()
        self.kept = KeptInfo()
        # The game whose first move python-chess's play command made (options set,
        # new game sent): later moves of it take the settled path of play_move.
        self._settled_game: object = None
        #: Where the fast path stands (:class:`FastPath`).
        self.phase = FastPath.IDLE
        # THINKING, ANSWERED: the future the move awaits, given the bestmove's text.
        self._waiter: asyncio.Future[str] | None = None
        # STOPPING: done when the given-up move's bestmove came (or the engine died).
        self._stopped: asyncio.Future[None] | None = None
        # The last ``position`` command, word by word, for the game it was sent in.
        self._position_game: object = None
        self._position_words: list[str] = []
        self._position_moves: list[chess.Move] = []
        self._held_position: str | None = None

    def _position(self, board: chess.Board, *, settled: bool = False) -> None:
        """Send ``position``, as python-chess does, but built incrementally.

        python-chess rebuilds the whole command for every move (the root
        position's FEN and every move of the game in UCI notation): the second
        largest part of tcecd's CPU time per move. Within one game the board
        only grows, so the words sent last time are kept and the new moves
        appended. Anything else (another game, a board that is not a
        continuation, Chess960, a variant, a null move) takes python-chess's
        own path. ``settled``: a later move of the game whose first move set the
        options that follow the board (the board's kind is the game's), and the
        bestmove is read against the caller's board: neither is done again.
        """
        stack = board.move_stack
        sent = self._position_moves
        grows = (
            self.game is not None
            and self.game is self._position_game
            and len(sent) <= len(stack)
            and (not sent or stack[len(sent) - 1] == sent[-1])
        )
        new = stack[len(sent) :] if grows else stack
        if board.chess960 or type(board).uci_variant != "chess" or not all(new):
            self._position_game = None
            self._position_words, self._position_moves = [], []
            super()._position(board)
            return
        if not grows:
            root = board.root()
            fen = root.fen(en_passant="fen")
            start = ["startpos"] if fen == chess.STARTING_FEN else ["fen", fen]
            self._position_words = ["position", *start]
            self._position_moves = []
            self._position_game = self.game
        if new:
            if not self._position_moves:
                self._position_words.append("moves")
            self._position_words.extend(move.uci() for move in new)
            self._position_moves.extend(new)
        # As python-chess: UCI_Variant and UCI_Chess960 follow the board.
        if not settled and "UCI_Variant" in self.options:
            self._setoption("UCI_Variant", "chess")
        if not settled and "UCI_Chess960" in self.options:
            self._setoption("UCI_Chess960", False)
        # Held and written together with the ``go`` that python-chess sends next
        # (see send_line): one pipe write and one engine wake-up per move, not two.
        self._held_position = " ".join(self._position_words)
        if not settled:
            self.board = board.copy(stack=False)

    def _configure(self, options: chess.engine.ConfigMapping) -> None:
        # Options may change: the next move goes through python-chess's command again.
        self._settled_game = None
        super()._configure(options)

    async def play_move(
        self,
        board: chess.Board,
        limit: chess.engine.Limit,
        game: object,
        timeout_s: float | None = None,
    ) -> chess.engine.PlayResult:
        """``play(board, limit, game=game)`` as tcecd calls it (no pondering, no
        ``info`` collection), within ``timeout_s`` (``TimeoutError`` after it):
        through :class:`_UciPlayCommand` for the first move of a game, then,
        while python-chess has no command running and no option was set since,
        by writing ``position`` + ``go`` and waiting for ``bestmove`` (what the
        command would do then: its option and new-game steps have nothing left
        to send)."""
        if (
            game is not None
            and game is self._settled_game
            and game is self.game
            and self.phase is FastPath.IDLE
            and self.command is None
            and self.next_command is None
            and not self.returncode.done()
        ):
            return await self._play_settled(board, limit, timeout_s)
        async with asyncio.timeout(timeout_s):
            if self.phase is FastPath.STOPPING:  # a given-up move's bestmove is still due
                assert self._stopped is not None
                await asyncio.shield(self._stopped)
            return await self.communicate(lambda _: _UciPlayCommand(self, board, limit, game))

    def _enter(self, phase: FastPath) -> None:
        """Move the fast path to ``phase``: one of the changes :data:`NEXT` allows."""
        assert phase in NEXT[self.phase], f"fast path: {self.phase.name} -> {phase.name}"
        self.phase = phase

    async def _play_settled(
        self, board: chess.Board, limit: chess.engine.Limit, timeout_s: float | None
    ) -> chess.engine.PlayResult:
        waiter: asyncio.Future[str] = self.loop.create_future()
        self._enter(FastPath.THINKING)
        self._waiter = waiter
        # A timer on the wait itself (asyncio.timeout's bookkeeping is a noticeable
        # part of a move's CPU; the first move of a game still uses it).
        timer = None if timeout_s is None else self.loop.call_later(timeout_s, _expire, waiter)
        try:
            self._position(board, settled=True)
            self._go(limit)
            arg = await waiter
        except (asyncio.CancelledError, TimeoutError):
            self._give_up()
            raise
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()
        self._enter(FastPath.IDLE)
        # The caller's board: the game waits for this move, its board stands still.
        return chess.engine.PlayResult(parse_bestmove(board, arg), None)

    def _give_up(self) -> None:
        """The awaiting move was cancelled or ran out of time: as python-chess's play
        command, ``stop``, unless its bestmove came in the same turn of the loop."""
        if self.phase is FastPath.THINKING:
            if self.returncode.done():  # dying: connection_lost follows
                self._enter(FastPath.TERMINATED)
                return
            self._enter(FastPath.STOPPING)
            self._stopped = self.loop.create_future()
            self.send_line("stop")
        elif self.phase is FastPath.ANSWERED:
            self._enter(FastPath.IDLE)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        waiter, stopped = self._waiter, self._stopped
        self._stopped = None
        if self.phase is not FastPath.TERMINATED:
            self._enter(FastPath.TERMINATED)
        if waiter is not None and not waiter.done():
            code = self.returncode.result()
            waiter.set_exception(
                chess.engine.EngineTerminatedError(
                    f"engine process died unexpectedly (exit code: {code})"
                )
            )
        if stopped is not None and not stopped.done():
            stopped.set_result(None)

    def send_line(self, line: str) -> None:
        held, self._held_position = self._held_position, None
        super().send_line(line if held is None else f"{held}\n{line}")

    def _line_received(self, line: str) -> None:
        if line.startswith("info"):  # a line the stdout reader did not keep itself
            self.kept.keep(line.encode("utf-8"))
            return
        phase = self.phase
        if phase is FastPath.THINKING or phase is FastPath.ANSWERED:
            token, arg = chess.engine._next_token(line)
            if token != "bestmove":  # as python-chess's play command
                chess.engine.LOGGER.warning("%s: Unexpected engine output: %r", self, line)
            elif phase is FastPath.THINKING:
                self._enter(FastPath.ANSWERED)
                waiter = self._waiter
                if waiter is not None and not waiter.done():  # (not out of time already)
                    waiter.set_result(arg)
            return  # (a second bestmove is nobody's)
        if phase is FastPath.STOPPING:
            token, _arg = chess.engine._next_token(line)
            if token == "bestmove":  # the given-up move's: not the next move's
                stopped, self._stopped = self._stopped, None
                self._enter(FastPath.IDLE)
                if stopped is not None and not stopped.done():
                    stopped.set_result(None)
                return
        super()._line_received(line)


class _UciPlayCommand(chess.engine.BaseCommand[chess.engine.PlayResult]):
    """python-chess's UCI ``play`` command for the one kind tcecd sends: no
    pondering, no extra options or opponent, no root moves, ``info`` lines not
    collected (:class:`_UciProtocol` keeps them raw).

    python-chess defines its play command as a new class inside every ``play()``
    call, and creating a generic class costs more than the rest of sending a
    move: a noticeable share of tcecd's CPU time per move. This is that class
    defined once, doing what python-chess's does for these arguments, with its
    own pieces: the option and new-game steps, ``_position``/``_go``, and the
    board's ``parse_uci``, which checks the move's legality (an illegal or
    malformed ``bestmove`` is an ``EngineError`` as before).
    """

    def __init__(
        self, engine: _UciProtocol, board: chess.Board, limit: chess.engine.Limit, game: object
    ) -> None:
        super().__init__(engine)
        self.engine = engine
        self.board = board
        self.limit = limit
        self.game = game
        self.info: chess.engine.InfoDict = {}
        self.sent_isready = False
        engine.may_ponderhit = None  # as python-chess's, without pondering

    def start(self) -> None:
        engine = self.engine
        # No ``ponderhit``: only a pondering play command sets that flag.
        options = engine.options
        if "UCI_AnalyseMode" in options and "UCI_AnalyseMode" not in engine.target_config:
            engine._setoption("UCI_AnalyseMode", False)
        if "Ponder" in options:
            engine._setoption("Ponder", False)
        if "MultiPV" in options:
            engine._setoption("MultiPV", options["MultiPV"].default)
        new_opponent = engine.target_config.get("UCI_Opponent")
        opponent_changed = new_opponent != engine.config.get("UCI_Opponent")
        engine._configure({})
        if engine.first_game or engine.game != self.game or opponent_changed:
            engine.game = self.game
            engine._ucinewgame()
            self.sent_isready = True
            engine._isready()
        else:
            self._readyok()
        engine._settled_game = self.game

    def line_received(self, line: str) -> None:
        token, remaining = chess.engine._next_token(line)
        if token == "info":
            # Only an ``info`` line the protocol did not keep (leading blanks).
            self.info.update(
                chess.engine._parse_uci_info(remaining, self.engine.board, chess.engine.INFO_NONE)
            )
        elif token == "bestmove":
            self._bestmove(remaining)
        elif line.strip() == "readyok" and self.sent_isready:
            self._readyok()
        else:
            chess.engine.LOGGER.warning("%s: Unexpected engine output: %r", self.engine, line)

    def _readyok(self) -> None:
        self.sent_isready = False
        self.engine._position(self.board)
        self.engine._go(self.limit)

    def _bestmove(self, arg: str) -> None:
        if not self.result.cancelled():
            move = parse_bestmove(self.engine.board, arg)
            self.result.set_result(chess.engine.PlayResult(move, None, self.info))
        self.engine.may_ponderhit = None
        self.set_finished()

    def cancel(self) -> None:
        self.engine.send_line("stop")

    def engine_terminated(self, exc: Exception) -> None:
        # As python-chess's: no error once a result was returned.
        if not self.result.done():
            super().engine_terminated(exc)


def read_info(
    board: chess.Board, last: str | None, pv_line: str | None, tail: str | None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The search report of one move from the raw ``info`` lines kept by
    :class:`_UciProtocol`: python-chess's parse of the last line with a score
    or a PV (``board`` is the position searched: scores are from its side to
    move), its counters updated from a later line; and the PV (UCI words) of
    the last line that had one."""
    info: dict[str, Any] = {}
    pv: tuple[str, ...] = ()
    if last is not None:
        # The PV is cut out here (python-chess would only step over its moves).
        rest, words = _split_pv(last)
        info.update(chess.engine._parse_uci_info(rest, board, UCI_INFO))
        if last is pv_line:
            pv, pv_line = words, None
    if tail is not None:
        later: Mapping[str, Any] = chess.engine._parse_uci_info(
            tail[4:], board, chess.engine.INFO_BASIC
        )
        info.update((key, later[key]) for key in _COUNTERS if key in later)
    return info, (pv if pv_line is None else parse_pv(pv_line))


def parse_pv(line: str | None) -> tuple[str, ...]:
    """The words after ``pv`` in a raw UCI ``info`` line, up to the next
    keyword: the PV as the engine wrote it. The game layer reads them as moves
    and ends the line at the first that is not a legal move
    (:func:`tcecd.runner.pv.pv_san`)."""
    return () if line is None else _split_pv(line)[1]


def _split_pv(line: str) -> tuple[str, tuple[str, ...]]:
    """A raw ``info`` line cut in two: its words after ``info`` without the
    ``pv`` and its moves, and those moves' words (up to the next keyword)."""
    tokens = line.split()
    try:
        start = tokens.index("pv")
    except ValueError:
        return " ".join(tokens[1:]), ()
    end = start + 1
    for token in tokens[start + 1 :]:
        if token in _INFO_KEYWORDS:
            break
        end += 1
    return " ".join(tokens[1:start] + tokens[end:]), tuple(tokens[start + 1 : end])


def parse_bestmove(board: chess.Board, arg: str) -> chess.Move | None:
    """The move of ``bestmove <move> [ponder <move>]`` in ``board``, read as
    python-chess's ``_parse_uci_bestmove`` reads it (``(none)``/``NULL``: None;
    upper-case promotions accepted; an illegal or malformed move is an
    ``EngineError`` wrapping python-chess's ``IllegalMoveError``/``InvalidMoveError``),
    but without the ponder move: python-chess checks that one by making the
    move on the board and taking it back, a third of the cost of receiving
    ``bestmove``, for a reply tcecd reads from the PV instead."""
    tokens = arg.split()
    if not tokens or tokens[0] in ("(none)", "NULL"):
        return None
    text = tokens[0].lower()
    try:
        # python-chess's parse_uci reads the move the same way first.
        move = chess.Move.from_uci(text)
        if SHARED_SAN.known_legal(board, text):
            return move  # what parse_uci returns for it, without the check
        return board.parse_uci(text)
    except ValueError as err:
        raise chess.engine.EngineError(err) from None


def _expire(waiter: asyncio.Future[str]) -> None:
    """A settled move's time is up."""
    if not waiter.done():
        waiter.set_exception(TimeoutError())
