"""Remote engines over SSH: the ssh argv, the clock allowance, and real games
and disconnects against an sshd the test starts (tests/fixtures/sshd.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

import chess
import chess.engine
import pytest

from tcecd.config.engines import EngineConfig
from tcecd.errors import ConfigError
from tcecd.game.rules import GameRules
from tcecd.runner.remote import (
    REMOTE_WRAPPER,
    WRAPPER_NAME,
    charged_ms,
    describe,
    engine_argv,
    remote_argv,
    think_deadline_ms,
)
from tests.fixtures.sshd import SshServer

STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"
needs_stockfish = pytest.mark.skipif(
    not os.access(STOCKFISH, os.X_OK), reason="stockfish not installed (package stockfish)"
)
needs_ssh = pytest.mark.skipif(shutil.which("ssh") is None, reason="ssh client not installed")


def _engine(**remote: object) -> EngineConfig:
    return EngineConfig.model_validate(
        {"name": "sf", "command": ["/usr/games/stockfish"], "remote": remote}
    )


def _ssh_effective(argv: list[str]) -> dict[str, str]:
    """What ssh itself makes of our argv (``ssh -G`` prints the resolved
    config and exits without connecting): the real parser, not ours."""
    ssh = shutil.which("ssh")
    assert ssh is not None
    out = subprocess.run(
        [ssh, "-G", *argv[1:-1]], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    conf: dict[str, str] = {}
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        # Repeated keys (identityfile) list the given value before the defaults.
        conf.setdefault(key, value)
        conf[f"all-{key}"] = f"{conf.get(f'all-{key}', '')}\n{value}"
    return conf


def _wrapper_run(*engine: str) -> tuple[int, bytes, bytes]:
    """The far-side wrapper run here as sshd runs it (``sh -c``, a session of its
    own: its ``kill 0`` must reach only its own processes), fed one command
    with stdin kept open, as python-chess keeps it.

    The signals the wrapper traps start with their default action, whatever the
    test run inherited (``env --default-signal``, GNU coreutils): a shell cannot
    trap a signal that was ignored when it started (POSIX ``trap``). Under
    ``nohup`` HUP is ignored, the wrapper's ``trap "exit 0" HUP`` did not take,
    and a normal end of the engine ended with status 1 (seen 2026-11-29)."""
    proc = subprocess.Popen(
        ["env", "--default-signal=HUP,USR1,TERM", "sh", "-c", REMOTE_WRAPPER, WRAPPER_NAME,
         *engine],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    # A failed engine may end the session before the command is written: fine.
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.write(b"uci\n")
        proc.stdin.flush()
    try:
        status = proc.wait(timeout=20)
    finally:
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: only what it started
            proc.wait()
    return status, proc.stdout.read(), proc.stderr.read()


def test_the_wrapper_ends_a_failed_engine_with_status_1_every_time() -> None:
    """An engine that fails at once (its program is missing: 127) ends the
    session with status 1 and a line naming it, every time. Before the
    wrapper's handshake, its signal could reach the stdin copier while that was
    still being forked: the copier lived on, and its TERM ended the session by
    a signal instead (about 1 run in 20 on a loaded machine; remote.py)."""
    for attempt in range(30):
        status, _, err = _wrapper_run("env", "/nonexistent/engine")
        assert status == 1, (attempt, status, err.decode(errors="replace"))
        assert b"tcecd-engine: env exited with status 127" in err


def test_the_wrapper_passes_stdin_through_and_ends_a_normal_exit_with_0() -> None:
    """The handshake line is the wrapper's own: the engine reads exactly what
    the client sent; an engine that exits 0 ends the session with 0."""
    status, out, _ = _wrapper_run("head", "-n", "1")
    assert (status, out) == (0, b"uci\n")


# -- the argv, checked by ssh's own parser ---------------------------------------------------


@needs_ssh
def test_ssh_reads_host_port_user_key_and_safe_defaults(tmp_path: Path) -> None:
    key = tmp_path / "id_engine"
    key.write_text("")  # ssh -G lists only key files that exist
    engine = _engine(host="engines.example", user="tcec", port=2222, identity_file=str(key))
    conf = _ssh_effective(remote_argv(engine))
    assert conf["hostname"] == "engines.example"
    assert conf["port"] == "2222"
    assert conf["user"] == "tcec"
    assert str(key) in conf["all-identityfile"].split("\n")
    assert conf["identitiesonly"] == "yes"
    assert conf["batchmode"] == "yes"  # a daemon never answers a prompt
    assert conf["stricthostkeychecking"] == "accept-new"
    assert conf["serveraliveinterval"] == "5"  # a dead link is noticed
    assert conf["serveralivecountmax"] == "3"
    assert conf["connecttimeout"] == "10"  # from startup_timeout_ms = 10 000
    assert conf["clearallforwardings"] == "yes"


@needs_ssh
def test_operator_ssh_options_override_the_defaults() -> None:
    engine = _engine(
        host="h",
        ssh_options=["StrictHostKeyChecking=yes", "ServerAliveInterval 2", "Compression=yes"],
    )
    conf = _ssh_effective(remote_argv(engine))
    assert conf["stricthostkeychecking"] == "true"  # ssh -G spells "yes" as "true"
    assert conf["serveraliveinterval"] == "2"
    assert conf["compression"] == "yes"


def test_no_pty_and_the_engine_argv_is_quoted_for_the_far_shell() -> None:
    engine = EngineConfig.model_validate(
        {
            "name": "sf",
            "command": ["/opt/my engines/sf", "--weights=a b.nnue"],
            "workdir": "/srv/engine dir",
            "env": {"OMP_NUM_THREADS": "1"},
            "remote": {"host": "h"},
        }
    )
    argv = remote_argv(engine, ssh="ssh")
    assert argv[:5] == ["ssh", "-T", "-e", "none", "-x"]
    command = argv[-1]
    assert argv[-2] == "h"
    # The far side's login shell splits the command line back into this argv.
    words = shlex.split(command)
    assert words[:2] == ["sh", "-c"]
    assert words[2].startswith("cd '/srv/engine dir' || exit 127; ")
    assert words[3:] == [
        "tcecd-engine",
        "env",
        "OMP_NUM_THREADS=1",
        "/opt/my engines/sf",
        "--weights=a b.nnue",
    ]


def test_engine_argv_of_a_local_engine_is_its_command() -> None:
    engine = EngineConfig(name="sf", command=("/usr/games/stockfish", "bench"))
    assert engine_argv(engine) == ["/usr/games/stockfish", "bench"]
    assert describe(engine) == "local"


@pytest.mark.parametrize(
    ("remote", "message"),
    [
        (
            {"host": "-oProxyCommand=x"},
            "engine 'sf': remote.host: invalid host name '-oProxyCommand=x'",
        ),
        ({"host": "a b"}, "engine 'sf': remote.host: invalid host name 'a b'"),
        ({"host": "h", "user": "-x"}, "engine 'sf': remote.user: invalid user name '-x'"),
        (
            {"host": "h", "ssh_options": ["-v"]},
            "engine 'sf': remote.ssh_options[0]: expected an ssh_config option such as "
            "'StrictHostKeyChecking=yes', got '-v'",
        ),
    ],
)
def test_values_ssh_would_misread_are_config_errors(
    remote: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        remote_argv(_engine(**remote), ssh="ssh")
    assert str(info.value) == message


# -- the clock allowance ---------------------------------------------------------------------


def test_latency_is_extra_allowance_per_move() -> None:
    remote = _engine(host="h", latency_ms=40)
    local = EngineConfig(name="l", command=("x",))
    # 1 000 ms measured locally over a 40 ms link: 960 ms of engine time.
    assert charged_ms(remote, 1000) == 960
    assert charged_ms(remote, 25) == 0  # never credits time back
    assert charged_ms(local, 1000) == 1000
    # Forfeit deadline: clock 5 000 + margin 200 + link 40.
    assert think_deadline_ms(remote, 5000, 200) == 5240
    assert think_deadline_ms(local, 5000, 200) == 5200
    assert describe(remote) == "ssh h:22 (+40 ms/move)"


# -- for real, through sshd ------------------------------------------------------------------


def _far_side(token: str) -> list[int]:
    """Live processes started for the far side of the link carrying ``token``
    (in their argv, or in their environment: the engine gets it via ``env``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            status = (entry / "stat").read_text()
            if status.rsplit(")", 1)[1].split()[0] == "Z":
                continue  # a zombie has already exited; only its parent's wait is pending
            blob = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
        except OSError:
            continue
        if token.encode() in blob and b"ssh" not in (entry / "comm").read_bytes():
            found.append(int(entry.name))
    return found


def _wait_gone(token: str, within_s: float = 20.0) -> list[int]:
    """Poll until no far-side process carries ``token``; the survivors if any.
    (A generous bound, not a timing assertion: cleanup takes ~0-2 s.)"""
    deadline = time.monotonic() + within_s
    left = _far_side(token)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _far_side(token)
    return left


def _remote_engine(
    sshd: SshServer, token: str, command: list[str], **remote: object
) -> EngineConfig:
    return EngineConfig.model_validate(
        {
            "name": "remote-sf",
            "command": command,
            "env": {"TCECD_TEST_TOKEN": token},
            "remote": sshd.remote(**remote),
        }
    )


@needs_stockfish
@needs_ssh
async def test_a_game_against_stockfish_over_ssh_then_nothing_left_remote(
    sshd: SshServer,
) -> None:
    token = f"tok-{uuid.uuid4().hex}"
    remote = _remote_engine(sshd, token, [STOCKFISH], latency_ms=30)
    white_transport, white = await chess.engine.popen_uci(
        engine_argv(remote), start_new_session=True
    )
    black_transport, black = await chess.engine.popen_uci([STOCKFISH], start_new_session=True)
    try:
        assert white.id.get("name", "").startswith("Stockfish")
        assert _far_side(token), "the engine runs on the far side while the game is on"
        for engine in (white, black):
            await engine.configure({"Threads": 1, "Hash": 16})
        board = chess.Board()
        while not board.is_game_over(claim_draw=True) and board.ply() < 40:
            mover = white if board.turn == chess.WHITE else black
            result = await asyncio.wait_for(
                mover.play(board, chess.engine.Limit(nodes=3000), info=chess.engine.INFO_ALL),
                timeout=30,
            )
            assert result.move is not None
            assert result.move in board.legal_moves
            board.push(result.move)
        assert board.ply() >= 20  # a real game went through the link, both ways
    finally:
        await asyncio.wait_for(white.quit(), timeout=30)
        await asyncio.wait_for(black.quit(), timeout=30)
        white_transport.close()
        black_transport.close()
    assert _wait_gone(token) == []


@needs_stockfish
@needs_ssh
async def test_killing_the_ssh_client_mid_search_ends_the_far_engine(sshd: SshServer) -> None:
    token = f"tok-{uuid.uuid4().hex}"
    remote = _remote_engine(sshd, token, [STOCKFISH])
    transport, engine = await chess.engine.popen_uci(engine_argv(remote), start_new_session=True)
    analysis = await engine.analysis(chess.Board())  # go infinite
    await analysis.get()  # the search is running remotely
    assert _far_side(token)
    pid = transport.get_pid()
    os.killpg(pid, signal.SIGKILL)  # the daemon was SIGKILLed / the link is cut
    await asyncio.wait_for(engine.returncode, timeout=30)
    transport.close()
    assert _wait_gone(token) == []


@needs_ssh
async def test_an_engine_ignoring_eof_and_sigterm_is_still_killed(
    sshd: SshServer, tmp_path: Path
) -> None:
    """The worst case: an 'engine' that never reads stdin and ignores SIGTERM.
    Only the wrapper's process-group SIGKILL can end it."""
    stubborn = tmp_path / "stubborn.sh"
    stubborn.write_text('#!/bin/sh\ntrap "" TERM\necho ready\nwhile :; do sleep 0.2; done\n')
    stubborn.chmod(0o755)
    token = f"tok-{uuid.uuid4().hex}"
    remote = _remote_engine(sshd, token, [str(stubborn)])
    proc = await asyncio.create_subprocess_exec(
        *engine_argv(remote),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdout is not None
    assert await asyncio.wait_for(proc.stdout.readline(), timeout=30) == b"ready\n"
    assert _far_side(token)
    proc.kill()
    await proc.wait()
    proc._transport.close()  # type: ignore[attr-defined]  # asyncio.subprocess has no close()
    assert _wait_gone(token) == []


@needs_stockfish
@needs_ssh
async def test_a_normal_quit_ends_the_session_cleanly(sshd: SshServer) -> None:
    token = f"tok-{uuid.uuid4().hex}"
    remote = _remote_engine(sshd, token, [STOCKFISH])
    transport, engine = await chess.engine.popen_uci(engine_argv(remote), start_new_session=True)
    await engine.ping()
    await asyncio.wait_for(engine.quit(), timeout=30)
    assert transport.get_returncode() == 0  # the wrapper exits 0 after the engine quits
    transport.close()
    assert _wait_gone(token) == []


@needs_stockfish
@needs_ssh
async def test_the_runner_plays_a_clocked_game_with_a_remote_engine(sshd: SshServer) -> None:
    """The daemon's own path: EngineSession + play_game, White over SSH with a
    30 ms link allowance that is not charged to its clock, Black local."""
    from tcecd.domain import Color, GameId
    from tcecd.game.adjudication import AdjudicationRules
    from tcecd.game.timecontrol import TimeControl
    from tcecd.runner.game import GameSetup, play_game
    from tcecd.runner.session import EngineSession

    token = f"tok-{uuid.uuid4().hex}"
    remote = _remote_engine(sshd, token, [STOCKFISH], latency_ms=30)
    remote = remote.model_copy(update={"options": {"Threads": 1, "Hash": 16}})
    local = EngineConfig(name="local-sf", command=(STOCKFISH,), options={"Threads": 1, "Hash": 16})
    setup = GameSetup(
        game_id=GameId(1, 1),
        event="remote test",
        site="localhost",
        rules=GameRules(
            time_control=TimeControl.parse("60+1 nodes=2000"),
            adjudication=AdjudicationRules(max_moves=12),
        ),
    )
    async with EngineSession(remote) as white, EngineSession(local) as black:
        assert _far_side(token)
        outcome = await play_game(setup, white, black)
    assert outcome.faults == ()
    moves = outcome.record.moves
    # 24 plies (drawn at the 12-move cap) unless a mate or a draw came first.
    assert 10 <= len(moves) <= 24
    # Engine moves alternate White (remote) and Black (local), in think order.
    assert len(outcome.think_ms) == len(moves)
    for move, measured in zip(moves, outcome.think_ms, strict=True):
        if move.color is Color.WHITE:
            assert move.move_time_ms == max(0, measured - 30)
        else:
            assert move.move_time_ms == measured
    assert _wait_gone(token) == []


@needs_ssh
async def test_an_unreachable_engine_host_is_a_startup_fault() -> None:
    from tcecd.runner.session import EngineFault, EngineSession, FaultKind
    from tests.fixtures.mosquitto import free_port

    engine = EngineConfig.model_validate(
        {
            "name": "far",
            "command": ["/usr/games/stockfish"],
            "startup_timeout_ms": 5000,
            "remote": {"host": "127.0.0.1", "port": free_port()},  # nothing listens
        }
    )
    with pytest.raises(EngineFault) as info:
        async with EngineSession(engine):
            pass
    assert info.value.kind is FaultKind.STARTUP


@pytest.fixture
def sshd_with_wrong_pin(sshd: SshServer, tmp_path: Path) -> SshServer:
    """``sshd`` whose client-side ``known_hosts`` pins another host key."""
    other = tmp_path / "other_host_key"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)],
        check=True,
        capture_output=True,
        timeout=30,
    )
    kind, key = Path(f"{other}.pub").read_text().split()[:2]
    sshd.known_hosts.write_text(f"[{sshd.host}]:{sshd.port} {kind} {key}\n")
    return sshd


@needs_stockfish
@needs_ssh
async def test_a_changed_host_key_is_refused(sshd_with_wrong_pin: SshServer) -> None:
    """With the host key pinned (StrictHostKeyChecking=yes), a server showing
    another key -- a man in the middle, or a reinstalled host -- gets no
    engine started and the game never begins."""
    from tcecd.runner.session import EngineFault, EngineSession, FaultKind

    token = f"tok-{uuid.uuid4().hex}"
    with pytest.raises(EngineFault) as info:
        async with EngineSession(_remote_engine(sshd_with_wrong_pin, token, [STOCKFISH])):
            pass
    assert info.value.kind is FaultKind.STARTUP
    assert _far_side(token) == []


@needs_ssh
async def test_a_missing_program_on_the_engine_host_is_reported(sshd: SshServer) -> None:
    token = f"tok-{uuid.uuid4().hex}"
    remote = _remote_engine(sshd, token, ["/nonexistent/engine"])
    proc = await asyncio.create_subprocess_exec(
        *engine_argv(remote),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdin is not None
    assert proc.stderr is not None
    assert proc.stdout is not None
    proc.stdin.write(b"uci\n")  # and keep stdin open, as python-chess does
    err, _ = await asyncio.wait_for(
        asyncio.gather(proc.stderr.read(), proc.stdout.read()), timeout=30
    )
    await proc.wait()
    proc.stdin.close()
    # not 0: the session did not end normally (255 would be ssh's own failure, or the
    # far side's shell ended by a signal: the wrapper's race that
    # test_the_wrapper_ends_a_failed_engine_with_status_1_every_time checks; err says which)
    assert proc.returncode == 1, err.decode(errors="replace")
    # The wrapper's line names the program (run through `env` for the token).
    assert b"tcecd-engine: env exited with status 127" in err
    assert b"/nonexistent/engine" in err  # env's own message
    proc._transport.close()  # type: ignore[attr-defined]
    assert _wait_gone(token) == []
