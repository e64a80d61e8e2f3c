"""tcecd's fast path and python-chess's own play give the same records (issue 27).

tcecd plays UCI engines through its own per-move exchange (tcecd.runner.uci: the
position built incrementally and written with the ``go``, ``info`` lines kept raw and
parsed once, the later moves of a game past python-chess's command queue) and reads
every engine's stdout with its own reader (tcecd.runner.pipes), on some eighteen
private names of python-chess. This test replays recorded engine transcripts
(``contract/transcripts/``: Stockfish over UCI and HoiChess over xboard, standard and
Chess960, with illegal moves, garbage, a crash in the middle of a search and a search
that never ends: ``contract/record.py``, ``contract/variants.py``) through both:

- tcecd: ``popen_engine`` with tcecd's protocol classes; ``play_move`` and
  ``read_info`` for UCI, python-chess's ``play`` on tcecd's pipes for xboard;
- python-chess: ``popen_uci`` / ``popen_xboard`` and ``play(..., info=INFO_ALL)``,

and requires identical records: each move (or fault, as the session classifies it),
the search report tcecd keeps, and every line the engine received. An upgrade of
python-chess that changes what tcecd relies on fails here, not in a tournament
(pyproject.toml pins the version this was checked with).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import chess
import chess.engine
import pytest

from tcecd.runner.pipes import popen_engine
from tcecd.runner.reaper import with_parent_death_signal
from tcecd.runner.session import _XBoardProtocol, classify_engine_error
from tcecd.runner.uci import NEXT, FastPath, _UciProtocol, read_info

HERE = Path(__file__).resolve().parent / "contract"
TRANSCRIPTS = sorted((HERE / "transcripts").glob("*.json"))
ENGINE = HERE / "engine.py"
#: What tcecd keeps of a UCI search report (tcecd.runner.uci.UCI_INFO and the counters).
UCI_KEYS = ("depth", "seldepth", "nodes", "nps", "time", "hashfull", "tbhits", "score")
#: Seconds a driver waits for a move the transcript never gives (until ``stop``).
GIVE_UP_S = 0.5

#: By hand: how each transcript's moves end ("move" for a legal move).
EXPECTED = {
    "uci-stockfish-standard": ["move"] * 4,
    "uci-stockfish-chess960": ["move"] * 4,
    "uci-chunks": ["move"] * 4,
    "uci-chess960-castling": ["move"] * 3,
    "uci-illegal": ["move", "move", "illegal-move"],
    "uci-garbage": ["move", "garbage"],
    "uci-crash": ["move", "crash"],
    "uci-timeout": ["move", "stall", "move", "move"],
    "xboard-hoichess-standard": ["move"] * 4,
    "xboard-illegal": ["move", "illegal-move"],
    "xboard-crash": ["move", "crash"],
}


def _score(value: Any) -> str:
    return repr(value)


def _record(info: dict[str, Any], pv: list[str], keys: tuple[str, ...] | None) -> dict[str, Any]:
    chosen = info if keys is None else {k: info[k] for k in keys if k in info}
    out = {k: _score(v) if k == "score" else v for k, v in chosen.items() if k != "pv"}
    out["pv"] = pv
    return out


def _doc(transcript: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(transcript.read_text(encoding="utf-8"))
    return doc


async def drive(transcript: Path, log: Path, *, ours: bool) -> list[dict[str, Any]]:
    """Play the transcript's moves with one driver; a record per ``go``."""
    doc = _doc(transcript)
    uci = doc["protocol"] == "uci"
    # (Killed with this process, should a hung test be killed.)
    argv = with_parent_death_signal([sys.executable, str(ENGINE), str(transcript), str(log)])
    engine: chess.engine.Protocol
    transport: asyncio.SubprocessTransport
    if ours:
        cls: type[chess.engine.Protocol] = _UciProtocol if uci else _XBoardProtocol
        transport, engine = await popen_engine(cls, argv)
        await engine.initialize()  # (python-chess's popen_* do this themselves)
    elif uci:
        transport, engine = await chess.engine.popen_uci(argv)
    else:
        transport, engine = await chess.engine.popen_xboard(argv)
    records: list[dict[str, Any]] = []
    try:
        board = chess.Board(doc["fen"] or chess.STARTING_FEN, chess960=doc["chess960"])
        limit = chess.engine.Limit(white_clock=60, black_clock=60, white_inc=1, black_inc=1)
        game = object()
        for entry in doc["moves"]:
            timeout = GIVE_UP_S if "hang" in entry else None
            try:
                if ours and isinstance(engine, _UciProtocol):
                    engine.kept.forget()
                    played = await engine.play_move(board, limit, game, timeout)
                    info, words = read_info(board, *engine.kept.lines())
                    pv = list(words)
                else:
                    played = await asyncio.wait_for(
                        engine.play(board, limit, info=chess.engine.INFO_ALL, game=game),
                        timeout,
                    )
                    info = dict(played.info)
                    pv = [m.uci() for m in info.get("pv", [])]
            except TimeoutError:
                records.append({"fault": "stall"})
                continue
            except chess.engine.EngineTerminatedError:
                records.append({"fault": "crash"})
                break
            except chess.engine.EngineError as exc:
                kind, detail = classify_engine_error(exc)
                records.append({"fault": str(kind), "detail": detail})
                break
            assert played.move is not None
            records.append({"move": board.uci(played.move),
                            "info": _record(info, pv, UCI_KEYS if uci else None)})  # fmt: skip
            board.push(played.move)
        else:
            async with asyncio.timeout(10):
                await engine.quit()
    finally:
        if not engine.returncode.done():
            transport.kill()
        async with asyncio.timeout(10):
            await engine.returncode
        transport.close()  # (left to the garbage collector, it warns in a later test)
    return records


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda p: p.stem)
async def test_the_fast_path_and_python_chess_make_the_same_records(
    transcript: Path, tmp_path: Path
) -> None:
    async with asyncio.timeout(30):  # a driver that waits for a move it lost fails here
        ours = await drive(transcript, tmp_path / "ours.log", ours=True)
        theirs = await drive(transcript, tmp_path / "theirs.log", ours=False)
    assert ours == theirs
    # Both say what the transcript was written to say (not merely the same thing).
    kinds = [r.get("fault", "move") for r in ours]
    assert kinds == EXPECTED[transcript.stem]
    doc = _doc(transcript)
    for record, entry in zip(ours, doc["moves"], strict=False):
        if "move" in record:
            last = entry["lines"][-1].split()
            assert last[0] in ("bestmove", "move")
            assert record["move"] == last[1] or doc["protocol"] == "xboard"
            assert record["info"], record  # a search report was read
    # The engine heard the same from both, line for line (xboard pings carry a random
    # number: python-chess's).
    def heard(name: str) -> str:
        return re.sub(r"^ping \d+$", "ping N", (tmp_path / name).read_text(encoding="utf-8"),
                      flags=re.M)  # fmt: skip

    said = heard("ours.log")
    assert said == heard("theirs.log")
    assert said.count("\ngo") + said.startswith("go") >= len(ours)


def test_every_transcript_has_its_expectation() -> None:
    assert sorted(EXPECTED) == sorted(p.stem for p in TRANSCRIPTS)


def test_the_fast_paths_table() -> None:
    """Every state has its row; nothing follows TERMINATED; each move goes IDLE ->
    THINKING -> ANSWERED -> IDLE, a given-up one THINKING -> STOPPING -> IDLE."""
    assert set(NEXT) == set(FastPath)
    assert NEXT[FastPath.TERMINATED] == frozenset()
    assert all(FastPath.TERMINATED in NEXT[p] for p in FastPath if p is not FastPath.TERMINATED)
    assert FastPath.THINKING in NEXT[FastPath.IDLE]
    assert FastPath.ANSWERED in NEXT[FastPath.THINKING]
    assert FastPath.IDLE in NEXT[FastPath.ANSWERED]
    assert FastPath.STOPPING in NEXT[FastPath.THINKING]
    assert FastPath.IDLE in NEXT[FastPath.STOPPING]


async def test_the_fast_path_walks_its_states_and_refuses_others(tmp_path: Path) -> None:
    """The timeout transcript, step by step: the first move through python-chess's
    command (no state of ours), the second given up (STOPPING until its late
    bestmove), the rest on the fast path; a change the table does not allow is an
    AssertionError; the engine's end is TERMINATED."""
    transcript = HERE / "transcripts" / "uci-timeout.json"
    doc = _doc(transcript)
    argv = with_parent_death_signal(
        [sys.executable, str(ENGINE), str(transcript), str(tmp_path / "log")]
    )
    transport, engine = await popen_engine(_UciProtocol, argv)
    assert isinstance(engine, _UciProtocol)
    async with asyncio.timeout(30):
        await engine.initialize()
        board = chess.Board(doc["fen"] or chess.STARTING_FEN)
        limit = chess.engine.Limit(nodes=1000)
        game = object()
        seen: list[FastPath] = []
        enter = engine._enter
        terminated = asyncio.Event()

        def watch(phase: FastPath) -> None:
            enter(phase)
            seen.append(phase)
            if phase is FastPath.TERMINATED:
                terminated.set()

        engine._enter = watch  # type: ignore[method-assign]
        board.push((await engine.play_move(board, limit, game)).move)  # type: ignore[arg-type]
        assert (engine.phase, seen) == (FastPath.IDLE, [])  # python-chess's command
        with pytest.raises(TimeoutError):
            await engine.play_move(board, limit, game, GIVE_UP_S)
        assert seen == [FastPath.THINKING, FastPath.STOPPING]
        # Asked again: waits for the given-up move's bestmove (not taken for this one).
        board.push((await engine.play_move(board, limit, game)).move)  # type: ignore[arg-type]
        assert seen[2] is FastPath.IDLE
        board.push((await engine.play_move(board, limit, game)).move)  # type: ignore[arg-type]
        assert seen[-3:] == [FastPath.THINKING, FastPath.ANSWERED, FastPath.IDLE]
        with pytest.raises(AssertionError, match="IDLE -> ANSWERED"):
            engine._enter(FastPath.ANSWERED)
        transport.kill()
        await engine.returncode
        await terminated.wait()  # (connection_lost comes after the exit code)
    transport.close()
    assert seen[-1] is FastPath.TERMINATED
