"""One running engine: start, configure, think, and tear down, all under timeouts.

:class:`EngineSession` wraps python-chess's async ``Protocol`` (UCI or xboard)
for one engine process. Everything that can go wrong with a real engine
(it does not start, it dies, it stops answering, it sends an illegal or
malformed move) surfaces as one typed exception, :class:`EngineFault`, with a
:class:`FaultKind`; the game layer turns that into a result and a strike.

Timing is measured here, because only here are ``go`` and ``bestmove`` close
at hand: python-chess writes ``position`` + ``go`` synchronously inside
``play()`` (the transport write happens before ``play()`` first yields) and
resolves the result in the callback that parses the ``bestmove`` line. So
``time.monotonic_ns()`` read just before ``play()`` and just after it returns
brackets the engine's think time as closely as python-chess allows: the only
extra is a pipe write, one event-loop wake-up and python-chess's parsing of
the engine's own ``info`` lines, tens of microseconds per move (``bench/match.py``
prints the figures). That small excess is charged to the engine, as a wall
clock on the table would; the event's time margin (``margin_ms``) absorbs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import re
import time
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import chess
import chess.engine

from tcecd.config.engines import EngineConfig, OptionValue
from tcecd.errors import ConfigError, EngineError
from tcecd.game.clock import GoLimits
from tcecd.runner.options import option_problems
from tcecd.runner.pipes import read_engine_stdout
from tcecd.runner.process import engine_argv, kill_group, spawn_kwargs, wait_group_gone
from tcecd.runner.pv import SHARED as SHARED_SAN
from tcecd.runner.reaper import EngineGroups, with_parent_death_signal

LOG = logging.getLogger(__name__)

#: How long a healthy engine gets to exit after ``quit`` before its group is killed.
QUIT_TIMEOUT_S = 1.0
#: How long we wait for the killed leader's exit status (it is SIGKILLed: short).
REAP_TIMEOUT_S = 5.0


class FaultKind(enum.StrEnum):
    """What an engine did wrong (the ``kind`` of :class:`tcecd.events.EngineFault`)."""

    STARTUP = "startup"  # failed to start, or to answer uci/isready in time
    CRASH = "crash"  # the process died
    STALL = "stall"  # stopped answering (no bestmove before deadline + grace)
    ILLEGAL_MOVE = "illegal-move"  # a well-formed move that is illegal here
    GARBAGE = "garbage"  # a malformed move or a protocol violation
    TIME_FORFEIT = "time-forfeit"  # answered, but after its flag fell


class EngineFault(EngineError):
    """An engine broke the game: ``kind`` says how, ``detail`` says what."""

    def __init__(self, engine: str, kind: FaultKind, detail: str) -> None:
        super().__init__(f"engine {engine!r}: {kind}: {detail}")
        self.engine = engine
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class ThinkResult:
    """One ``go`` answered: the move, what the engine reported, and timings.

    ``started_ns``/``finished_ns`` are ``time.monotonic_ns()`` just before
    ``go`` is sent and just after ``bestmove`` is received; the game layer
    uses them for the bestmove -> next ``go`` latency figures. The reply the
    engine expects (``ponder``) is not kept: the game layer takes it from the PV.
    """

    move: chess.Move | None
    info: Mapping[str, Any]
    used_ms: int
    started_ns: int
    finished_ns: int
    resigned: bool = False


def _retrieve(task: asyncio.Future[None]) -> None:
    """Done-callback: mark a shielded task's outcome as seen (no asyncio warning)."""
    if not task.cancelled():
        task.exception()


async def _uncancellable(coro: Coroutine[Any, Any, None]) -> None:
    """Await ``coro`` without ever cancelling it.

    python-chess commands must not be cancelled while the engine may still
    answer: a cancelled ``ping`` (or ``uci``) whose ``readyok`` (``uciok``)
    arrives later makes python-chess set a result on a cancelled future, an
    ``InvalidStateError`` logged from inside the event loop. A timeout or a
    cancellation here abandons the wait instead; the caller then kills the
    engine, which ends the command with ``EngineTerminatedError`` (retrieved).
    """
    task = asyncio.ensure_future(coro)
    task.add_done_callback(_retrieve)
    await asyncio.shield(task)


class SessionState(enum.Enum):
    NEW = enum.auto()
    READY = enum.auto()
    THINKING = enum.auto()
    FAULTED = enum.auto()
    CLOSED = enum.auto()


def to_limit(limits: GoLimits, clock_id: object) -> chess.engine.Limit:
    """python-chess ``Limit`` (seconds) from tcecd's integer-millisecond limits."""

    def sec(ms: int | None) -> float | None:
        return None if ms is None else ms / 1000

    return chess.engine.Limit(
        white_clock=sec(limits.wtime_ms),
        black_clock=sec(limits.btime_ms),
        white_inc=sec(limits.winc_ms),
        black_inc=sec(limits.binc_ms),
        remaining_moves=limits.movestogo,
        time=sec(limits.movetime_ms),
        nodes=limits.nodes,
        depth=limits.depth,
        clock_id=clock_id,
    )


_QUOTED = re.compile(r"'([^']*)'")

#: What tcecd keeps of the engine's search report: python-chess's parse of
#: depth, seldepth, nodes, nps, time, hashfull, tbhits and the score, read from
#: one line per move (see :class:`_UciProtocol`). The PV is read apart, by
#: :func:`parse_pv` (syntax only; the game layer checks legality in SAN).
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


class _UciProtocol(chess.engine.UciProtocol):
    """python-chess's UCI protocol, keeping ``info`` lines raw.

    An engine sends many ``info`` lines per move (one per iteration, and more);
    tcecd keeps only what the last one says. Parsing every line (python-chess
    does when ``play()`` is given an info mask) was most of tcecd's CPU time
    per move, so ``info`` lines never reach python-chess here: the protocol
    remembers the last line with a score or a PV, the last line with a PV, and
    the last other line after them (counters), and :func:`read_info` parses
    them once, when ``bestmove`` has arrived. No python-chess command needs
    ``info`` lines besides the info collection of ``play``/``analysis``, and
    tcecd plays through :meth:`play_move`, which collects none.
    """

    def __init__(self) -> None:
        super().__init__()
        self.last_info: str | None = None
        self.last_pv_line: str | None = None
        self.info_tail: str | None = None
        # The last ``position`` command, word by word, for the game it was sent in.
        self._position_game: object = None
        self._position_words: list[str] = []
        self._position_moves: list[chess.Move] = []
        self._held_position: str | None = None

    def forget_info(self) -> None:
        """Before a ``go``: nothing reported yet."""
        self.last_info = self.last_pv_line = self.info_tail = None

    def _position(self, board: chess.Board) -> None:
        """Send ``position``, as python-chess does, but built incrementally.

        python-chess rebuilds the whole command for every move (the root
        position's FEN and every move of the game in UCI notation): the second
        largest part of tcecd's CPU time per move. Within one game the board
        only grows, so the words sent last time are kept and the new moves
        appended. Anything else (another game, a board that is not a
        continuation, Chess960, a variant, a null move) takes python-chess's
        own path.
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
        if "UCI_Variant" in self.options:
            self._setoption("UCI_Variant", "chess")
        if "UCI_Chess960" in self.options:
            self._setoption("UCI_Chess960", False)
        # Held and written together with the ``go`` that python-chess sends next
        # (see send_line): one pipe write and one engine wake-up per move, not two.
        self._held_position = " ".join(self._position_words)
        self.board = board.copy(stack=False)

    async def play_move(
        self, board: chess.Board, limit: chess.engine.Limit, game: object
    ) -> chess.engine.PlayResult:
        """``play(board, limit, game=game)`` as tcecd calls it (no pondering, no
        ``info`` collection), through :class:`_UciPlayCommand`."""
        return await self.communicate(lambda _: _UciPlayCommand(self, board, limit, game))

    def send_line(self, line: str) -> None:
        held, self._held_position = self._held_position, None
        super().send_line(line if held is None else f"{held}\n{line}")

    def _line_received(self, line: str) -> None:
        if line.startswith("info"):
            if " pv " in line:
                self.last_info = self.last_pv_line = line
                self.info_tail = None
            elif " score " in line:
                self.last_info = line
                self.info_tail = None
            elif not line.startswith("info string"):
                self.info_tail = line
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
            move = self._parse_bestmove(arg)
            self.result.set_result(chess.engine.PlayResult(move, None, self.info))
        self.engine.may_ponderhit = None
        self.set_finished()

    def _parse_bestmove(self, arg: str) -> chess.Move | None:
        """The move of ``bestmove <move> [ponder <move>]``, read as python-chess's
        ``_parse_uci_bestmove`` reads it (``(none)``/``NULL``: None; upper-case
        promotions accepted; an illegal or malformed move is an ``EngineError``
        wrapping python-chess's ``IllegalMoveError``/``InvalidMoveError``), but
        without the ponder move: python-chess checks that one by making the
        move on the board and taking it back, a third of the cost of receiving
        ``bestmove``, for a reply tcecd reads from the PV instead."""
        tokens = arg.split()
        if not tokens or tokens[0] in ("(none)", "NULL"):
            return None
        text, board = tokens[0].lower(), self.engine.board
        try:
            # python-chess's parse_uci reads the move the same way first.
            move = chess.Move.from_uci(text)
            if move and SHARED_SAN.known_legal(board, move):
                return move  # what parse_uci returns for it, without the check
            return board.parse_uci(text)
        except ValueError as err:
            raise chess.engine.EngineError(err) from None

    def cancel(self) -> None:
        self.engine.send_line("stop")

    def engine_terminated(self, exc: Exception) -> None:
        # As python-chess's: no error once a result was returned.
        if not self.result.done():
            super().engine_terminated(exc)


def read_info(
    board: chess.Board, last: str | None, pv_line: str | None, tail: str | None
) -> dict[str, Any]:
    """The search report of one move from the raw ``info`` lines kept by
    :class:`_UciProtocol`: python-chess's parse of the last line with a score
    or a PV (``board`` is the position searched: scores are from its side to
    move), its counters updated from a later line, and the PV of the last
    line that had one."""
    info: dict[str, Any] = {}
    pv: list[chess.Move] = []
    if last is not None:
        # The PV is read here (python-chess would only step over its moves).
        rest, moves = _split_pv(last)
        info.update(chess.engine._parse_uci_info(rest, board, UCI_INFO))
        if last is pv_line:
            pv, pv_line = moves, None
    if tail is not None:
        later: Mapping[str, Any] = chess.engine._parse_uci_info(
            tail[4:], board, chess.engine.INFO_BASIC
        )
        info.update((key, later[key]) for key in _COUNTERS if key in later)
    info["pv"] = pv if pv_line is None else parse_pv(pv_line)
    return info


_NO_SETBOARD = re.compile(r"(?<=\s)setboard=0(?=\s|$)")


class _XBoardProtocol(chess.engine.XBoardProtocol):
    """python-chess's xboard protocol, accepting engines without ``setboard``.

    python-chess refuses an engine that declares ``setboard=0`` (Fairy-Max does),
    although it only needs ``setboard`` for games that do not start from the
    standard position. Such an engine is accepted here and a game from another
    position becomes a ``startup`` fault (see :meth:`EngineSession.think`).
    """

    def __init__(self) -> None:
        super().__init__()
        self.lacks_setboard = False

    def _line_received(self, line: str) -> None:
        if line.startswith("feature") and _NO_SETBOARD.search(line):
            self.lacks_setboard = True
            line = _NO_SETBOARD.sub("setboard=1", line)
        super()._line_received(line)


def parse_pv(line: str | None) -> list[chess.Move]:
    """The moves after ``pv`` in a raw UCI ``info`` line (syntax only; the game
    layer checks legality when it converts them to SAN)."""
    return [] if line is None else _split_pv(line)[1]


def _split_pv(line: str) -> tuple[str, list[chess.Move]]:
    """A raw ``info`` line cut in two: its words after ``info`` without the
    ``pv`` and its moves, and those moves (up to the next keyword or the first
    word that is not a move)."""
    tokens = line.split()
    try:
        start = tokens.index("pv")
    except ValueError:
        return " ".join(tokens[1:]), []
    moves: list[chess.Move] = []
    end = start + 1
    for token in tokens[start + 1 :]:
        if token in _INFO_KEYWORDS:
            break
        try:
            moves.append(chess.Move.from_uci(token))
        except ValueError:
            break
        end += 1
    return " ".join(tokens[1:start] + tokens[end:]), moves


def classify_engine_error(exc: chess.engine.EngineError) -> tuple[FaultKind, str]:
    """Map a python-chess ``EngineError`` raised while playing to a fault.

    python-chess raises ``EngineError(IllegalMoveError("illegal uci: 'e2e5' in
    <fen>"))`` for a well-formed illegal ``bestmove`` and wraps an
    ``InvalidMoveError("invalid uci: '...'")`` for a malformed one.
    """
    cause = exc.args[0] if exc.args else exc
    text = str(cause)
    quoted = _QUOTED.search(text)
    token = quoted.group(1) if quoted else text
    if isinstance(cause, chess.IllegalMoveError):
        return FaultKind.ILLEGAL_MOVE, token
    if isinstance(cause, chess.InvalidMoveError):
        return FaultKind.GARBAGE, f"malformed move {token!r}"
    return FaultKind.GARBAGE, text[:200]


class EngineSession:
    """An engine process and its protocol, as an async context manager.

    ``async with EngineSession(config) as engine:`` starts the engine (under
    its start-up timeout), sets its options and waits for ``readyok``; leaving
    the block quits it politely when it is healthy and always kills and reaps
    its whole process group. Use :meth:`new_game` before each game and
    :meth:`think` for each move.

    ``soft_options`` are set only when the engine declares them (a command-line
    ``--option Hash=16`` for a match mixing engines); ``config.options`` must
    all exist (a typo is a start-up fault naming the option).
    """

    def __init__(
        self,
        config: EngineConfig,
        *,
        soft_options: Mapping[str, OptionValue] | None = None,
        groups: EngineGroups | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        #: The event's record of engine process groups (None: not recorded).
        self.groups = groups
        self.soft_options = dict(soft_options or {})
        self.state = SessionState.NEW
        self.pid: int | None = None
        #: Options actually sent, in order (the PGN's first comment lists them).
        self.options: tuple[tuple[str, str], ...] = ()
        self._transport: asyncio.SubprocessTransport | None = None
        self._protocol: chess.engine.Protocol | None = None
        self._game: object = None
        self.games_started = 0

    # -- lifecycle -------------------------------------------------------

    async def __aenter__(self) -> EngineSession:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Cancelled (shutdown) or failed: no polite quit, just kill the group.
        await self.close(graceful=exc_type is None)

    @property
    def alive(self) -> bool:
        """True while the process runs and has not broken the protocol."""
        return (
            self.state in (SessionState.READY, SessionState.THINKING)
            and self._protocol is not None
            and not self._protocol.returncode.done()
        )

    @property
    def engine_id(self) -> str | None:
        """The name the engine gives itself (UCI ``id name``, xboard ``myname``)."""
        protocol = self._protocol
        return None if protocol is None else protocol.id.get("name")

    @property
    def declared_options(self) -> Mapping[str, chess.engine.Option]:
        """The options the engine declared at start-up (empty before)."""
        protocol = self._protocol
        return {} if protocol is None else protocol.options

    @property
    def startup_timeout_s(self) -> float:
        return self.config.startup_timeout_ms / 1000

    def _fault(self, kind: FaultKind, detail: str) -> EngineFault:
        self.state = SessionState.FAULTED
        return EngineFault(self.name, kind, detail)

    def _exit_text(self) -> str:
        proto = self._protocol
        if proto is not None and proto.returncode.done() and not proto.returncode.cancelled():
            return f"exit code {proto.returncode.result()}"
        return "exit code unknown"

    async def start(self) -> None:
        """Spawn the engine in its own process group and wait until it is ready.

        Raises :class:`EngineFault` (``startup``) when the program cannot be
        run, dies, or does not finish ``uci``/``uciok``, the options and
        ``isready``/``readyok`` within ``startup_timeout_ms``.
        """
        assert self.state is SessionState.NEW, self.state
        try:
            argv = engine_argv(self.config)
        except EngineError as exc:  # e.g. the program is not installed
            raise self._fault(FaultKind.STARTUP, str(exc)) from None
        cls: type[chess.engine.Protocol] = _UciProtocol
        if self.config.protocol == "xboard":
            cls = _XBoardProtocol
        mark = self.groups.env() if self.groups is not None else None
        try:
            # Killed by the kernel when tcecd dies (tcecd.runner.reaper).
            transport, protocol = await cls.popen(
                with_parent_death_signal(argv), **spawn_kwargs(self.config, mark)
            )
        except OSError as exc:
            detail = f"cannot run {argv[0]!r}: {exc.strerror}"
            raise self._fault(FaultKind.STARTUP, detail) from None
        self._transport, self._protocol = transport, protocol
        self.pid = transport.get_pid()
        read_engine_stdout(transport, protocol)
        try:
            if self.groups is not None:
                await asyncio.to_thread(self.groups.started, self.pid)
            async with asyncio.timeout(self.startup_timeout_s):
                await _uncancellable(self._handshake(protocol))
        except TimeoutError:
            await self.close(graceful=False)
            raise self._fault(
                FaultKind.STARTUP,
                f"not ready within {self.config.startup_timeout_ms} ms",
            ) from None
        except chess.engine.EngineTerminatedError:
            await self.close(graceful=False)
            detail = f"exited while starting ({self._exit_text()})"
            raise self._fault(FaultKind.STARTUP, detail) from None
        except chess.engine.EngineError as exc:
            await self.close(graceful=False)
            raise self._fault(FaultKind.STARTUP, str(exc)) from None
        except BaseException:
            # Cancelled while starting (shutdown, Ctrl-C): nobody owns this
            # process yet, so kill it here.
            await self.close(graceful=False)
            raise
        self.state = SessionState.READY

    async def _handshake(self, protocol: chess.engine.Protocol) -> None:
        await protocol.initialize()
        await self._configure(protocol)
        await protocol.ping()

    async def _configure(self, protocol: chess.engine.Protocol) -> None:
        soft = {k: v for k, v in self.soft_options.items() if k in protocol.options}
        # Every problem at once, before anything is sent: a missing option (a
        # typo), a managed one, a value of the wrong type or out of range.
        problems = option_problems(protocol.options, self.config.options)
        problems += option_problems(protocol.options, soft, origin=" (--option)")
        if problems:
            raise chess.engine.EngineError("; ".join(problems))
        wanted: dict[str, OptionValue] = dict(soft)
        wanted.update(self.config.options)  # the definition wins over the command line
        if wanted:
            # python-chess takes str/int/bool; a float option goes as its text.
            await protocol.configure(
                {k: str(v) if isinstance(v, float) else v for k, v in wanted.items()}
            )
        if isinstance(protocol, chess.engine.UciProtocol):
            # The options are set now and UCI options keep their values. python-chess
            # would otherwise walk every declared option (its ``target_config``,
            # defaults included) before every ``go`` to re-send any that changed,
            # which tcecd never does: a measurable share of its CPU time per move.
            protocol.target_config.clear()
        self.options = tuple((name, _option_text(value)) for name, value in wanted.items())

    async def close(self, *, graceful: bool = True) -> None:
        """Stop the engine: ``quit`` if healthy and ``graceful``, then kill its
        whole process group and reap the leader. Idempotent; never raises."""
        transport, protocol = self._transport, self._protocol
        if transport is None or protocol is None:
            self.state = SessionState.CLOSED
            return
        self._transport = self._protocol = None
        healthy = self.state is SessionState.READY and not protocol.returncode.done()
        self.state = SessionState.CLOSED
        try:
            if graceful and healthy:
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(QUIT_TIMEOUT_S):
                        await protocol.quit()
        finally:
            # Always, even when cancelled: helpers the engine spawned, or the
            # engine itself if it ignored quit, die with the group.
            assert self.pid is not None
            kill_group(self.pid)
            try:
                async with asyncio.timeout(REAP_TIMEOUT_S):
                    await asyncio.shield(protocol.returncode)
            except TimeoutError:  # pragma: no cover - SIGKILL cannot be ignored
                LOG.warning("engine %s (pid %s) not reaped after SIGKILL", self.name, self.pid)
            finally:
                transport.close()
            if not await asyncio.shield(wait_group_gone(self.pid, REAP_TIMEOUT_S)):
                LOG.warning("engine %s: process group %s survives SIGKILL", self.name, self.pid)
            elif self.groups is not None:
                await asyncio.shield(asyncio.to_thread(self.groups.ended, self.pid))

    # -- games -----------------------------------------------------------

    async def new_game(self) -> None:
        """Prepare for a new game: ``ucinewgame`` + ``isready`` for UCI (so the
        first move's think time does not include the engine's reset), a fresh
        game key for xboard (python-chess sends ``new`` on the first move)."""
        assert self.state is SessionState.READY, self.state
        protocol = self._protocol
        assert protocol is not None
        self._game = object()
        self.games_started += 1
        try:
            async with asyncio.timeout(self.startup_timeout_s):
                if isinstance(protocol, chess.engine.UciProtocol):
                    protocol.send_line("ucinewgame")
                    await _uncancellable(protocol.ping())
                    # Tell python-chess the game is already set up, so play()
                    # sends position + go at once (no second ucinewgame/isready).
                    protocol.game = self._game
                    protocol.first_game = False
                else:
                    await _uncancellable(protocol.ping())
        except TimeoutError:
            raise self._fault(
                FaultKind.STALL, f"no readyok within {self.config.startup_timeout_ms} ms"
            ) from None
        except chess.engine.EngineTerminatedError:
            raise self._fault(FaultKind.CRASH, f"process died ({self._exit_text()})") from None
        except chess.engine.EngineError as exc:
            raise self._fault(FaultKind.GARBAGE, str(exc)) from None

    async def think(
        self, board: chess.Board, limits: GoLimits, *, timeout_ms: int | None
    ) -> ThinkResult:
        """Ask for a move in ``board`` and wait at most ``timeout_ms``.

        Returns the engine's answer with the measured think time; a legal move
        is guaranteed unless the engine resigned (xboard). Raises
        :class:`EngineFault` for a crash, a stall (timeout), an illegal or
        malformed move; the session is then unusable and should be closed.
        """
        assert self.state is SessionState.READY, self.state
        protocol = self._protocol
        assert protocol is not None
        if (
            isinstance(protocol, _XBoardProtocol)
            and protocol.lacks_setboard
            and board.root().fen() != chess.STARTING_FEN
        ):
            raise self._fault(
                FaultKind.STARTUP,
                "cannot set up a position (no xboard 'setboard'): "
                "use openings given as moves from the start position",
            )
        if (
            isinstance(protocol, chess.engine.XBoardProtocol)
            and limits.nodes is not None
            and (limits.wtime_ms is not None or limits.movetime_ms is not None)
        ):
            # python-chess (and the xboard protocol's "nps" trick) cannot combine them.
            raise ConfigError(
                f"engine {self.name!r}: an xboard engine cannot combine a node limit "
                "with a clock or a move time"
            )
        limit = to_limit(limits, self._game)
        uci = protocol if isinstance(protocol, _UciProtocol) else None
        if uci is not None:
            uci.forget_info()
        self.state = SessionState.THINKING
        started = time.monotonic_ns()
        try:
            async with asyncio.timeout(None if timeout_ms is None else timeout_ms / 1000):
                if uci is not None:  # info: read_info parses the kept lines once
                    played = await uci.play_move(board, limit, self._game)
                else:
                    played = await protocol.play(
                        board, limit, info=chess.engine.INFO_ALL, ponder=False, game=self._game
                    )
        except TimeoutError:
            waited = (time.monotonic_ns() - started) // 1_000_000
            raise self._fault(FaultKind.STALL, f"no move after {waited} ms") from None
        except chess.engine.EngineTerminatedError:
            raise self._fault(FaultKind.CRASH, f"process died ({self._exit_text()})") from None
        except chess.engine.EngineError as exc:
            kind, detail = classify_engine_error(exc)
            raise self._fault(kind, detail) from None
        finished = time.monotonic_ns()
        self.state = SessionState.READY
        if played.move is None and not played.resigned:
            # "bestmove (none)" (or an xboard result claim) while legal moves exist.
            raise self._fault(FaultKind.ILLEGAL_MOVE, "no move ((none))")
        if played.move is not None and not played.move:
            # python-chess checks a ``bestmove`` for legality (``push_uci``), except
            # "bestmove 0000", which it takes as chess.Move.null(); a null move is
            # never legal in a game (FIDE Laws 1.1, 3.1: the player having the move
            # must make one). It is this engine's illegal move; the opponent must
            # never be sent it. (xboard: ``push_xboard`` checks legality too.)
            raise self._fault(FaultKind.ILLEGAL_MOVE, played.move.uci())
        info: Mapping[str, Any] = played.info
        if uci is not None:
            info = read_info(board, uci.last_info, uci.last_pv_line, uci.info_tail)
        return ThinkResult(
            move=played.move,
            info=info,
            used_ms=(finished - started) // 1_000_000,
            started_ns=started,
            finished_ns=finished,
            resigned=played.resigned,
        )

    async def abort(self) -> None:
        """Kill a faulted (or any) engine at once: no ``quit``, group killed, reaped."""
        await self.close(graceful=False)


def _option_text(value: OptionValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass
class SessionPool:
    """Idle keep-alive sessions by engine name (``restart: keep-alive``).

    A session goes back into the pool only when it finished a game healthy;
    ``per-game`` engines are never pooled.
    """

    idle: dict[str, list[EngineSession]] = field(default_factory=dict)
    #: The event's record of engine process groups, given to every session.
    groups: EngineGroups | None = None

    async def acquire(
        self, config: EngineConfig, *, soft_options: Mapping[str, OptionValue] | None = None
    ) -> EngineSession:
        """A ready session for ``config``: an idle kept-alive one, or a new one
        (raises :class:`EngineFault` ``startup`` when it cannot start)."""
        stack = self.idle.get(config.name)
        while stack:
            session = stack.pop()
            if session.alive:
                return session
            await session.close(graceful=False)
        session = EngineSession(config, soft_options=soft_options, groups=self.groups)
        await session.start()
        return session

    async def release(self, session: EngineSession) -> None:
        """Keep ``session`` for the next game if it is healthy and keep-alive,
        else close it (kill and reap)."""
        if session.config.restart == "keep-alive" and session.alive:
            self.idle.setdefault(session.name, []).append(session)
        else:
            await session.close()

    async def aclose(self) -> None:
        """Close every idle session."""
        stacks, self.idle = self.idle, {}
        for stack in stacks.values():
            for session in stack:
                await session.close()
