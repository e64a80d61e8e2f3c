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
from tcecd.runner.pipes import MAX_LINE, EngineTransport, popen_engine
from tcecd.runner.process import engine_argv, kill_group, spawn_kwargs, wait_group_gone
from tcecd.runner.reaper import EngineGroups, with_parent_death_signal
from tcecd.runner.uci import _UciProtocol, read_info

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
    #: The engine's PV as UCI words (not yet read as moves or checked legal).
    pv: tuple[str, ...] = ()


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

    #: The UCI protocol spoken to the engine: tcecd's lean one for games
    #: (:mod:`tcecd.runner.uci`); an analysis session speaks python-chess's own
    #: (:mod:`tcecd.runner.analysis`).
    uci_protocol: type[chess.engine.UciProtocol] = _UciProtocol

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
    def offers_chess960(self) -> bool:
        """Whether the engine plays Chess960: a UCI engine declares the option
        ``UCI_Chess960``, an xboard engine names ``fischerandom`` in its
        ``variants`` feature (python-chess sets the option, or sends ``variant
        fischerandom``, for a Chess960 board). False before the engine started."""
        protocol = self._protocol
        if isinstance(protocol, chess.engine.UciProtocol):
            return "UCI_Chess960" in protocol.options  # case-insensitive, as UCI's names
        if isinstance(protocol, chess.engine.XBoardProtocol):
            variants = str(protocol.features.get("variants", "")).split(",")
            return "fischerandom" in (v.strip() for v in variants)
        return False

    @property
    def startup_timeout_s(self) -> float:
        return self.config.startup_timeout_ms / 1000

    def _fault(self, kind: FaultKind, detail: str) -> EngineFault:
        self.state = SessionState.FAULTED
        return EngineFault(self.name, kind, detail)

    def _overflowed(self) -> str | None:
        """Why tcecd killed the engine, when it did so for a line beyond the limit
        (:data:`tcecd.runner.pipes.MAX_LINE`); None otherwise."""
        transport = self._transport
        if isinstance(transport, EngineTransport) and transport.overflowed:
            return f"an output line longer than {MAX_LINE} bytes"
        return None

    def _terminated(self) -> EngineFault:
        """The fault of an engine gone while playing: ``garbage`` when tcecd killed it
        for an endless line, else a ``crash``."""
        overflowed = self._overflowed()
        if overflowed is not None:
            return self._fault(FaultKind.GARBAGE, overflowed)
        return self._fault(FaultKind.CRASH, f"process died ({self._exit_text()})")

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
            argv = self.argv()
        except EngineError as exc:  # e.g. the program is not installed
            raise self._fault(FaultKind.STARTUP, str(exc)) from None
        cls: type[chess.engine.Protocol] = self.uci_protocol
        if self.config.protocol == "xboard":
            cls = _XBoardProtocol
        mark = self.groups.env() if self.groups is not None else None
        try:
            # Killed by the kernel when tcecd dies (tcecd.runner.reaper).
            transport, protocol = await popen_engine(
                cls, with_parent_death_signal(argv), **spawn_kwargs(self.config, mark)
            )
        except OSError as exc:
            detail = f"cannot run {argv[0]!r}: {exc.strerror}"
            raise self._fault(FaultKind.STARTUP, detail) from None
        self._transport, self._protocol = transport, protocol
        self.pid = transport.get_pid()
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
            overflowed = self._overflowed()
            await self.close(graceful=False)
            detail = overflowed or f"exited while starting ({self._exit_text()})"
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

    def argv(self) -> list[str]:
        """The command that starts the engine (:func:`engine_argv`)."""
        return engine_argv(self.config)

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
            raise self._terminated() from None
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
            # A Chess960 game is always set up with setboard (python-chess's _new).
            and (board.chess960 or board.root().fen() != chess.STARTING_FEN)
        ):
            raise self._fault(
                FaultKind.STARTUP,
                "cannot set up a position (no xboard 'setboard'): "
                "use openings given as moves from the start position",
            )
        if board.chess960 and not self.offers_chess960:
            # validate --engines and run refuse such an engine up front
            # (tcecd.runner.check.chess960_problem); this is the game's own guard.
            raise self._fault(FaultKind.STARTUP, chess960_problem(self.config.protocol))
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
            uci.kept.forget()
        self.state = SessionState.THINKING
        started = time.monotonic_ns()
        timeout_s = None if timeout_ms is None else timeout_ms / 1000
        try:
            if uci is not None:  # info: read_info parses the kept lines once
                played = await uci.play_move(board, limit, self._game, timeout_s)
            else:
                async with asyncio.timeout(timeout_s):
                    played = await protocol.play(
                        board, limit, info=chess.engine.INFO_ALL, ponder=False, game=self._game
                    )
        except TimeoutError:
            # The limit it waited for (the measured wait is a millisecond or so over it).
            raise self._fault(FaultKind.STALL, f"no move after {timeout_ms} ms") from None
        except chess.engine.EngineTerminatedError:
            raise self._terminated() from None
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
            info, pv = read_info(board, *uci.kept.lines())
        else:  # python-chess read the xboard PV as moves
            pv = tuple(move.uci() for move in info.get("pv", ()))
        return ThinkResult(
            move=played.move,
            info=info,
            used_ms=(finished - started) // 1_000_000,
            started_ns=started,
            finished_ns=finished,
            resigned=played.resigned,
            pv=pv,
        )

    async def abort(self) -> None:
        """Kill a faulted (or any) engine at once: no ``quit``, group killed, reaped."""
        await self.close(graceful=False)


def chess960_problem(protocol: str) -> str:
    """What an engine that does not offer Chess960 lacks, in one phrase."""
    if protocol == "xboard":
        return "does not offer Chess960 (no 'fischerandom' in its xboard 'variants' feature)"
    return "does not offer Chess960 (no UCI_Chess960 option)"


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
