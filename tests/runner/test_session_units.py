"""Pure helpers of the session and game layers: PV extraction, error
classification, limits, fault verdicts and score conversion."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import chess
import chess.engine
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, Result, Termination
from tcecd.game.clock import GoLimits
from tcecd.runner.game import Fault, fault_verdict, score_white
from tcecd.runner.session import FaultKind, classify_engine_error, to_limit
from tcecd.runner.uci import parse_pv


def test_parse_pv_reads_moves_after_pv() -> None:
    line = "info depth 12 seldepth 15 score cp 31 nodes 20000 nps 900000 pv e2e4 e7e5 g1f3"
    assert parse_pv(line) == ("e2e4", "e7e5", "g1f3")


def test_parse_pv_stops_at_a_keyword_and_the_line_at_a_bad_word() -> None:
    from tcecd.runner.pv import pv_san

    assert parse_pv("info pv e2e4 e7e5 string hello") == ("e2e4", "e7e5")
    assert parse_pv("info depth 3 nodes 10") == ()
    assert parse_pv(None) == ()
    # A word that is not a move ends the line the record shows (read as moves
    # by the game layer), whatever follows it.
    words = parse_pv("info pv e2e4 banana e7e5")
    assert words == ("e2e4", "banana", "e7e5")
    assert pv_san(chess.Board(), chess.Move.from_uci("e2e4"), words, None) == ("e4",)


def _engine_error(uci: str) -> chess.engine.EngineError:
    """The error python-chess raises for ``bestmove <uci>`` in the start position."""
    try:
        chess.Board().push_uci(uci)
    except ValueError as exc:
        return chess.engine.EngineError(exc)
    raise AssertionError(f"{uci} is legal")


def test_illegal_and_malformed_bestmoves_are_told_apart() -> None:
    assert classify_engine_error(_engine_error("e2e5")) == (FaultKind.ILLEGAL_MOVE, "e2e5")
    assert classify_engine_error(_engine_error("!!x")) == (
        FaultKind.GARBAGE,
        "malformed move '!!x'",
    )
    kind, _ = classify_engine_error(chess.engine.EngineError("Error (unknown command): foo"))
    assert kind is FaultKind.GARBAGE


def test_limits_become_seconds() -> None:
    limits = GoLimits(
        wtime_ms=60_000, btime_ms=59_500, winc_ms=600, binc_ms=600, movestogo=40, nodes=20_000
    )
    limit = to_limit(limits, clock_id="g")
    assert (limit.white_clock, limit.black_clock) == (60.0, 59.5)
    assert (limit.white_inc, limit.black_inc, limit.remaining_moves) == (0.6, 0.6, 40)
    assert (limit.nodes, limit.time, limit.depth) == (20_000, None, None)


@pytest.mark.parametrize(
    ("kind", "detail", "termination", "text"),
    [
        (FaultKind.CRASH, "exit code 3", Termination.ABANDONED, "White disconnects"),
        (FaultKind.STALL, "no move", Termination.STALLED, "White's connection stalls"),
        (
            FaultKind.ILLEGAL_MOVE,
            "e2e5",
            Termination.ILLEGAL_MOVE,
            "White makes an illegal move: e2e5",
        ),
        (FaultKind.STARTUP, "x", Termination.ABANDONED, "White fails to start"),
    ],
)
def test_fault_verdicts(kind: FaultKind, detail: str, termination: Termination, text: str) -> None:
    fault = Fault("eng", Color.WHITE, kind, detail)
    verdict, replay = fault_verdict(fault, "lose")
    assert (verdict.result, verdict.termination, verdict.detail) == (
        Result.BLACK_WINS,
        termination,
        text,
    )
    assert not replay
    verdict, replay = fault_verdict(fault, "replay")
    assert verdict.result is Result.UNFINISHED
    assert replay


def test_scores_are_converted_to_whites_view() -> None:
    info = {"score": chess.engine.PovScore(chess.engine.Cp(50), chess.BLACK)}
    score = score_white(info, chess.BLACK)
    assert score is not None
    assert score.cp == -50
    info = {"score": chess.engine.PovScore(chess.engine.Mate(2), chess.BLACK)}
    score = score_white(info, chess.BLACK)
    assert score is not None
    assert score.mate == -2
    assert score_white({}, chess.BLACK) is None


def test_bare_program_names_are_found_in_debian_dirs() -> None:
    from tcecd.config.engines import EngineConfig
    from tcecd.config.load import find_executable
    from tcecd.runner.process import engine_argv, spawn_kwargs

    config = EngineConfig(
        name="sf", command=("stockfish", "--x"), workdir="/tmp", env={"TCECD_TEST": "1"}
    )
    found = find_executable("stockfish")
    if found is None:
        pytest.skip("stockfish is not installed")
    assert engine_argv(config) == [str(found), "--x"]
    kwargs = spawn_kwargs(config)
    assert kwargs["start_new_session"] is True
    assert kwargs["cwd"] == "/tmp"
    assert kwargs["env"]["TCECD_TEST"] == "1"
    assert "PATH" in kwargs["env"]  # the allowlisted part of the daemon's environment


def test_missing_bare_program_is_one_clear_error() -> None:
    from tcecd.config.engines import EngineConfig
    from tcecd.errors import EngineError
    from tcecd.runner.process import engine_argv

    config = EngineConfig(name="ghost", command=("no-such-engine-xyz",))
    with pytest.raises(
        EngineError, match=r"engine 'ghost': program 'no-such-engine-xyz' not found"
    ):
        engine_argv(config)


def test_remote_engine_workdir_is_on_the_far_host_not_local() -> None:
    """A remote engine's workdir names a folder on the far host: the local ssh
    client must not try to chdir there (it would fail to start with a
    misleading error); the remote command does the `cd` instead."""
    from tcecd.config.engines import EngineConfig, RemoteConfig
    from tcecd.runner.process import spawn_kwargs
    from tcecd.runner.remote import remote_command

    config = EngineConfig(
        name="far",
        command=("/opt/engines/sf",),
        workdir="/srv/only-on-the-far-host",
        remote=RemoteConfig(host="engine-box", user="tcec"),
    )
    assert "cwd" not in spawn_kwargs(config)
    assert "cd /srv/only-on-the-far-host" in remote_command(config)


class _Stdin:
    """Stands for an engine's transport: records what is written to its stdin."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def get_pipe_transport(self, fd: int) -> _Stdin:
        return self

    def write(self, data: bytes) -> None:
        self.writes.append(data.decode())

    def get_returncode(self) -> int:
        return 3

    def get_pid(self) -> int:
        return 0


def test_position_is_built_as_python_chess_builds_it() -> None:
    """The incremental ``position`` command (one game, the board only grows)
    is python-chess's, from the start position and from a FEN, and after a new
    game starts from another position; it goes out in one write with the ``go``."""
    import asyncio
    import random

    import chess.engine

    from tcecd.runner.uci import _UciProtocol

    async def compare() -> None:
        random.seed(7)
        mine, ref = _UciProtocol(), chess.engine.UciProtocol()
        got, want = _Stdin(), _Stdin()
        mine.transport, ref.transport = got, want  # type: ignore[assignment]
        fens = (None, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2")
        for fen in fens:
            board = chess.Board(fen) if fen else chess.Board()
            mine.game = object()  # a new game (EngineSession.new_game)
            for _ in range(60):
                for protocol in (mine, ref):
                    protocol._position(board)
                    protocol._go(chess.engine.Limit(nodes=1000))
                if board.is_game_over():
                    break
                board.push(random.choice(list(board.legal_moves)))
        # The same text; python-chess writes position and go apart, tcecd at once.
        assert "".join(got.writes) == "".join(want.writes)
        assert len(want.writes) == 2 * len(got.writes)
        assert got.writes[0] == "position startpos\ngo nodes 1000\n"
        assert got.writes[1].startswith("position startpos moves ")
        assert got.writes[60].startswith("position fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/")

    asyncio.run(compare())


def test_read_info_keeps_the_last_line_and_later_counters() -> None:
    from tcecd.runner.uci import read_info

    board = chess.Board()
    last = (
        "info depth 9 seldepth 12 multipv 1 score cp 31 nodes 9000 nps 450000 hashfull 3 "
        "tbhits 0 time 20 pv e2e4 e7e5 g1f3"
    )
    tail = "info nodes 9100 nps 455000 hashfull 4 time 21"
    info, pv = read_info(board, last, last, tail)
    assert (info["depth"], info["seldepth"]) == (9, 12)
    assert info["score"].white().score() == 31
    # Counters of the later line win: the search went on after the last PV.
    assert (info["nodes"], info["nps"], info["hashfull"], info["time"]) == (9100, 455000, 4, 0.021)
    assert pv == ("e2e4", "e7e5", "g1f3")
    # Black to move: a score is from Black's side, as python-chess reads it.
    board.push_uci("e2e4")
    black, pv = read_info(board, "info depth 1 score cp -20 pv e7e5", None, None)
    assert black["score"].white().score() == 20
    assert pv == ()
    assert read_info(board, None, None, None) == ({}, ())


def test_read_info_reads_words_after_the_pv() -> None:
    from tcecd.runner.uci import read_info

    # Some engines put counters after the PV: the PV ends at the next keyword.
    line = "info depth 5 score cp 10 pv e2e4 e7e5 nodes 500 time 3"
    info, pv = read_info(chess.Board(), line, line, None)
    assert (info["depth"], info["nodes"], info["time"]) == (5, 500, 0.003)
    assert pv == ("e2e4", "e7e5")


def test_pv_san_with_a_memo_matches_a_fresh_conversion() -> None:
    from tcecd.runner.pv import SanMemo, pv_san

    def moves(text: str) -> list[chess.Move]:
        return [chess.Move.from_uci(uci) for uci in text.split()]

    def words(line: list[chess.Move]) -> list[str]:
        return [m.uci() for m in line]

    memo = SanMemo()
    start = chess.Board()
    pv = moves("e2e4 e7e5 g1f3 b8c6")
    assert pv_san(start, pv[0], words(pv), memo) == ("e4", "e5", "Nf3", "Nc6")
    # The next PV starts with known moves, goes on with new ones, and ends at
    # an illegal move (the king cannot go to e3): the SAN stops there.
    board = chess.Board()
    for move in moves("e2e4 e7e5"):
        board.push(move)
    line = moves("g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1e3")
    expected = ("Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6")
    assert pv_san(board, line[0], words(line), None) == expected
    assert pv_san(board, line[0], words(line), memo) == expected
    assert pv_san(board, line[0], words(line), memo) == expected  # all known
    # Known moves between new ones: the scratch board catches up before each new one.
    gaps = SanMemo()
    assert pv_san(board, line[0], words(line[:2]), gaps) == expected[:2]
    assert pv_san(board, line[0], words(line), gaps) == expected
    # A PV that does not start with the move played: the move alone.
    assert pv_san(board, chess.Move.from_uci("d2d4"), words(line), memo) == ("d4",)
    # Check and mate signs come from the position, known or not.
    mate = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    rook = moves("a1a8")
    assert pv_san(mate, rook[0], words(rook), memo) == ("Ra8#",)
    assert pv_san(mate, rook[0], words(rook), memo) == ("Ra8#",)
    assert board.move_stack == moves("e2e4 e7e5")  # the caller's board is untouched


def test_a_full_memo_starts_afresh() -> None:
    from tcecd.runner.pv import SanMemo, pv_san

    memo = SanMemo(max_entries=3)
    line = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]
    first = chess.Move.from_uci(line[0])
    assert pv_san(chess.Board(), first, line, memo) == ("e4", "e5", "Nf3", "Nc6", "Bb5")
    # It fills up during a walk and starts afresh before the next one.
    assert len(memo.entries) == 5
    assert pv_san(chess.Board(), first, line[:1], memo) == ("e4",)
    assert len(memo.entries) == 1
    assert len(memo.positions) == 2
    assert pv_san(chess.Board(), first, line, memo) == ("e4", "e5", "Nf3", "Nc6", "Bb5")


class _Lines(chess.engine.UciProtocol):
    """A protocol that records the stdout lines and stderr lines it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def _line_received(self, line: str) -> None:
        self.lines.append(line)

    def error_line_received(self, line: str) -> None:  # pragma: no cover - stdout only
        self.lines.append("stderr: " + line)


_OUTPUT = st.lists(
    st.sampled_from(
        [
            b"info depth 1 score cp 20 pv e2e4\n",
            b"info depth 2 score cp 25\r\n",
            b"info nodes 500 time 3\n",
            b"info string hello pv\n",
            b"info string caf\xc3\xa9\r\n",
            b"bestmove e2e4 ponder e7e5\n",
            b"readyok\n",
            b"\n",
            b"\r\n",
            b"\xff\xfe not utf-8\n",
            b"id name T\xc3",  # a line cut inside a character
            b"\xa9st\n",
        ]
    ),
    max_size=12,
)


class _KeptLines(_Lines):
    """A UCI protocol as tcecd's: ``info`` lines kept, the others recorded."""

    def __init__(self) -> None:
        super().__init__()
        from tcecd.runner.pipes import KeptInfo

        self.kept = KeptInfo()

    def _line_received(self, line: str) -> None:
        if line.startswith("info"):
            self.kept.keep(line.encode())
        else:
            self.lines.append(line)


@given(_OUTPUT, st.lists(st.integers(0, 60), max_size=8), st.data(), st.booleans())
@settings(max_examples=300, deadline=None)
def test_stdout_lines_reach_the_protocol_as_python_chess_splits_them(
    parts: list[bytes], cuts: list[int], data: st.DataObject, uci: bool
) -> None:
    """:class:`StdoutProtocol` hands on the same lines, in the same order, as
    python-chess's ``pipe_data_received`` given the same chunks (whole lines,
    lines cut anywhere, several lines at once, ``\\r\\n``, bad UTF-8); for a UCI
    engine (``uci``) it keeps the same ``info`` lines as the protocol would."""
    import asyncio

    from tcecd.runner.pipes import StdoutProtocol

    stream = b"".join(parts)
    points = sorted({min(cut, len(stream)) for cut in cuts} | {0, len(stream)})
    if data.draw(st.booleans()):  # mostly one line a chunk, as engines write
        points = sorted({0, *(i + 1 for i, byte in enumerate(stream) if byte == 10)})
        points += [] if points[-1] == len(stream) else [len(stream)]
    chunks = [stream[a:b] for a, b in itertools.pairwise(points) if b > a]

    async def feed() -> tuple[object, object]:
        mine, ref = (_KeptLines(), _KeptLines()) if uci else (_Lines(), _Lines())
        pipe = StdoutProtocol(lambda: None, mine, getattr(mine, "kept", None))
        for chunk in chunks:
            pipe.data_received(chunk)
            ref.pipe_data_received(1, chunk)
        assert bytes(mine.buffer[1]) == bytes(ref.buffer[1])
        if isinstance(mine, _KeptLines) and isinstance(ref, _KeptLines):
            assert mine.kept.lines() == ref.kept.lines()
        return mine.lines, ref.lines

    got, want = asyncio.run(feed())
    assert got == want


@pytest.mark.parametrize(
    "arg",
    [
        "e2e4",
        "e2e4 ponder e7e5",
        "e2e4 ponder e2e4",  # an illegal ponder move: the move stands
        "e2e4 ponder xyz",
        "E2E4",
        "(none)",
        "NULL",
        "",
        "0000",
        "e2e5",  # illegal
        "e9e4",  # malformed
        "e1g1",  # castling, illegal here
    ],
)
@pytest.mark.parametrize("known", [False, True])
def test_bestmove_is_read_as_python_chess_reads_it(
    arg: str, known: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The move of a ``bestmove`` line (or the error it raises) is python-chess's,
    also when an earlier PV made the move there (``known``: the session then
    takes its legality from the SAN memo instead of checking it again)."""
    from tcecd.runner import pv

    memo = pv.SanMemo()
    if known:  # an earlier PV from the start position: e2e4 is known legal there
        line = ["e2e4", "e7e5", "g1f3"]
        pv.pv_san(chess.Board(), chess.Move.from_uci(line[0]), line, memo)
        assert memo.known_legal(chess.Board(), line[0])
    monkeypatch.setattr(pv.SHARED, "entries", memo.entries)
    monkeypatch.setattr(pv.SHARED, "positions", memo.positions)

    from tcecd.runner.uci import parse_bestmove

    def outcome(read: Callable[[chess.Board, str], chess.Move | None]) -> object:
        board = chess.Board()
        try:
            return read(board, arg)
        except chess.engine.EngineError as exc:
            cause = exc.args[0]
            return type(exc), type(cause), str(cause)

    mine = outcome(parse_bestmove)
    ref = outcome(lambda board, text: chess.engine._parse_uci_bestmove(board, text).move)
    assert mine == ref


def test_settled_moves_wait_for_their_own_bestmove() -> None:
    """After a game's first move (python-chess's play command), its later moves
    write ``position`` + ``go`` and wait for ``bestmove`` themselves. A cancelled
    one (or one out of time) sends ``stop``, and its late ``bestmove`` is not taken
    for the next move's; an option set sends the next move through python-chess's
    command again; the engine's death fails the waiting move as python-chess's
    command would."""
    import asyncio

    from tcecd.runner.uci import _UciProtocol

    async def scenario() -> None:
        protocol, stdin = _UciProtocol(), _Stdin()
        protocol.transport = stdin  # type: ignore[assignment]
        game, board, limit = object(), chess.Board(), chess.engine.Limit(nodes=1)
        protocol.game, protocol.first_game = game, False
        protocol.initialized = True  # uci/uciok done
        protocol._settled_game = game  # the first move was made

        first = asyncio.create_task(protocol.play_move(board, limit, game))
        await asyncio.sleep(0)
        assert stdin.writes[-1] == "position startpos\ngo nodes 1\n"
        assert protocol.command is None  # python-chess's queue is not used
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        assert stdin.writes[-1] == "stop\n"

        second = asyncio.create_task(protocol.play_move(board, limit, game))
        await asyncio.sleep(0)
        assert stdin.writes[-1] == "stop\n"  # not sent before the late bestmove
        protocol._line_received("bestmove e2e4")  # the cancelled move's answer
        for _ in range(3):  # the shielded wait, then the task, resume
            await asyncio.sleep(0)
        assert stdin.writes[-1] == "position startpos\ngo nodes 1\n"
        protocol._line_received("info depth 1 score cp 5 pv d2d4 d7d5")
        protocol._line_received("bestmove d2d4 ponder d7d5")
        assert (await second).move == chess.Move.from_uci("d2d4")
        assert protocol.kept.lines()[0] == "info depth 1 score cp 5 pv d2d4 d7d5"

        # An option set since: python-chess's play command makes the next move.
        protocol._configure({})
        third = asyncio.create_task(protocol.play_move(board, limit, game))
        await asyncio.sleep(0)
        assert protocol.command is not None
        protocol._line_received("bestmove g1f3")
        assert (await third).move == chess.Move.from_uci("g1f3")

        # A move out of time: TimeoutError, stop, and the late answer is no one's.
        with pytest.raises(TimeoutError):
            await protocol.play_move(board, limit, game, 0.01)
        assert stdin.writes[-1] == "stop\n"
        protocol._line_received("bestmove e2e4")
        assert protocol._stopped is None

        # Settled again; the engine dies while the move is awaited.
        fourth = asyncio.create_task(protocol.play_move(board, limit, game))
        await asyncio.sleep(0)
        assert protocol.command is None
        protocol.connection_lost(None)
        with pytest.raises(chess.engine.EngineTerminatedError, match="exit code: 3"):
            await fourth

    asyncio.run(scenario())


def test_a_bestmove_in_the_turn_of_its_cancellation_needs_no_stop() -> None:
    """A settled move cancelled in the same turn of the loop as its ``bestmove``
    arrived: nothing is stopped or awaited, and the next move waits only for
    its own answer."""
    import asyncio

    from tcecd.runner.uci import _UciProtocol

    async def scenario() -> None:
        protocol, stdin = _UciProtocol(), _Stdin()
        protocol.transport = stdin  # type: ignore[assignment]
        game, board, limit = object(), chess.Board(), chess.engine.Limit(nodes=1)
        protocol.game, protocol.first_game, protocol.initialized = game, False, True
        protocol._settled_game = game
        first = asyncio.create_task(protocol.play_move(board, limit, game))
        await asyncio.sleep(0)
        first.cancel()
        protocol._line_received("bestmove e2e4")  # before the task sees its cancellation
        with pytest.raises(asyncio.CancelledError):
            await first
        assert "stop\n" not in stdin.writes
        second = asyncio.create_task(protocol.play_move(board, limit, game))
        await asyncio.sleep(0)
        protocol._line_received("bestmove d2d4")
        assert (await asyncio.wait_for(second, 5)).move == chess.Move.from_uci("d2d4")

    asyncio.run(scenario())
