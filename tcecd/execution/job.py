"""A game to play and what playing it gave, as plain frozen values that can leave the process.

The daemon decides *which* game is played (pairing, opening, order); a
:class:`~tcecd.execution.player.GamePlayer` decides *where* (in this process, or
on a Dask worker). Between them pass only the values here:

- :class:`GameJob`: everything one game needs: the game's identity, both
  engines' definitions, the opening and the game's rules
  (:class:`~tcecd.game.rules.GameRules`: the time control, adjudication, fault
  policy, stall limits and the tablebase *path*: a probe function cannot leave
  the process, so the player opens the tables where the game is played);
- :class:`GameUpdate` values streamed while it is played: :class:`GameBegan`
  (engines ready, clocks start), :class:`MoveMade` (one ply), and
  :class:`GameRestarted` (the game starts again from its first move elsewhere,
  e.g. its Dask worker died);
- :class:`GameResult`: the record (or None when the game must be replayed) and
  the engine faults.

Each has a versioned JSON-ready encoding (``"v": 1``); the game record and
moves reuse the store's encoding (:mod:`tcecd.store.codec`), so a result that
crossed the network is the same value the store keeps. Pure: no I/O.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from tcecd.config.engines import EngineConfig
from tcecd.domain import GameId
from tcecd.errors import TcecdError
from tcecd.game.record import GameRecord, MoveRecord, Opening
from tcecd.game.rules import GameRules
from tcecd.store.codec import (
    move_from_dict,
    move_to_dict,
    opening_from_dict,
    opening_to_dict,
    record_from_dict,
    record_to_dict,
)

#: The encoding's version: bumped when a field changes meaning or goes away, or
#: when one an older reader would ignore must not be ignored (2: the game's
#: rules travel as one value, ``rules``; 3: the rules' ``variant`` and the
#: opening's ``chess960``: a worker that ignored them would play a Chess960
#: game as standard chess).
VERSION = 3

JsonDict = dict[str, Any]
#: (engine, kind, detail) of one engine fault (as the daemon's store keeps it).
FaultTuple = tuple[str, str, str]


class ExecutionError(TcecdError):
    """The game execution backend cannot be used (e.g. the Dask scheduler is
    unreachable), or sent something this tcecd cannot read."""


@dataclass(frozen=True)
class GameJob:
    """One game to play, self-contained (see the module docstring)."""

    game_id: GameId
    event: str
    site: str
    white: EngineConfig
    black: EngineConfig
    opening: Opening
    #: How the game is played and judged (time control, adjudication, faults...).
    rules: GameRules
    #: The worker resource ``engine_slots`` the game holds while it is played.
    slots: int = 1


@dataclass(frozen=True)
class GameResult:
    """What one attempt at a game gave: the record, or None with ``replay``
    True when the game must be played again; the faults either way."""

    record: GameRecord | None
    faults: tuple[FaultTuple, ...] = ()
    replay: bool = False
    #: Where it was played (a Dask worker's address; "local" in-process).
    where: str = "local"
    #: Timing figures for ``bench/`` (in-process only, not encoded): each
    #: engine move's think time and the bestmove -> next ``go`` latency, in ns.
    think_ns: tuple[int, ...] = field(default=(), compare=False)
    latencies_ns: tuple[int, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class GameBegan:
    """Both engines are ready and the clocks start."""

    game_id: GameId
    start_time: str
    white_options: tuple[tuple[str, str], ...]
    black_options: tuple[tuple[str, str], ...]
    white_clock_ms: int | None
    black_clock_ms: int | None
    where: str = "local"


@dataclass(frozen=True)
class MoveMade:
    """One ply (book or engine) and both clocks after it."""

    game_id: GameId
    move: MoveRecord
    white_clock_ms: int | None
    black_clock_ms: int | None


@dataclass(frozen=True)
class GameRestarted:
    """The game is played again from its first move (its moves so far are void)."""

    game_id: GameId
    reason: str


GameUpdate = GameBegan | MoveMade | GameRestarted


# -- encoding -------------------------------------------------------------------------


def _pairs(items: tuple[tuple[str, str], ...]) -> list[list[str]]:
    return [[k, v] for k, v in items]


def _unpairs(items: list[list[str]]) -> tuple[tuple[str, str], ...]:
    return tuple((k, v) for k, v in items)


def _check_version(d: JsonDict, what: str) -> None:
    if d.get("v") != VERSION:
        raise ExecutionError(
            f"{what} encoded as version {d.get('v')!r}; this tcecd reads version {VERSION} "
            "(run the same tcecd version on the daemon and the workers)"
        )


def job_to_dict(job: GameJob) -> JsonDict:
    return {
        "v": VERSION,
        "game_id": str(job.game_id),
        "event": job.event,
        "site": job.site,
        "white": job.white.model_dump(mode="json"),
        "black": job.black.model_dump(mode="json"),
        "opening": opening_to_dict(job.opening),
        "rules": job.rules.to_dict(),
        "slots": job.slots,
    }


def job_from_dict(d: JsonDict) -> GameJob:
    _check_version(d, "game job")
    try:
        return GameJob(
            game_id=GameId.parse(d["game_id"]),
            event=d["event"],
            site=d["site"],
            white=EngineConfig.model_validate(d["white"]),
            black=EngineConfig.model_validate(d["black"]),
            opening=opening_from_dict(d["opening"]),
            rules=GameRules.from_dict(d["rules"]),
            slots=int(d["slots"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ExecutionError(f"game job is malformed: {exc!r}") from None


def result_to_dict(result: GameResult) -> JsonDict:
    return {
        "v": VERSION,
        "record": None if result.record is None else record_to_dict(result.record),
        "faults": [list(f) for f in result.faults],
        "replay": result.replay,
        "where": result.where,
    }


def result_from_dict(d: JsonDict) -> GameResult:
    _check_version(d, "game result")
    try:
        raw = d["record"]
        return GameResult(
            record=None if raw is None else record_from_dict(raw),
            faults=tuple((str(e), str(k), str(t)) for e, k, t in d["faults"]),
            replay=bool(d["replay"]),
            where=str(d.get("where", "?")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ExecutionError(f"game result is malformed: {exc!r}") from None


def update_to_dict(update: GameUpdate) -> JsonDict:
    gid = str(update.game_id)
    if isinstance(update, GameBegan):
        return {
            "v": VERSION, "kind": "began", "game_id": gid, "start_time": update.start_time,
            "white_options": _pairs(update.white_options),
            "black_options": _pairs(update.black_options),
            "white_clock_ms": update.white_clock_ms, "black_clock_ms": update.black_clock_ms,
            "where": update.where,
        }  # fmt: skip
    if isinstance(update, MoveMade):
        return {
            "v": VERSION, "kind": "move", "game_id": gid, "move": move_to_dict(update.move),
            "white_clock_ms": update.white_clock_ms, "black_clock_ms": update.black_clock_ms,
        }  # fmt: skip
    return {"v": VERSION, "kind": "restarted", "game_id": gid, "reason": update.reason}


def update_from_dict(d: JsonDict) -> GameUpdate:
    _check_version(d, "game update")
    try:
        gid = GameId.parse(d["game_id"])
        kind = d["kind"]
        if kind == "began":
            return GameBegan(
                game_id=gid,
                start_time=d["start_time"],
                white_options=_unpairs(d["white_options"]),
                black_options=_unpairs(d["black_options"]),
                white_clock_ms=d["white_clock_ms"],
                black_clock_ms=d["black_clock_ms"],
                where=d.get("where", "?"),
            )
        if kind == "move":
            return MoveMade(gid, move_from_dict(d["move"]), d["white_clock_ms"],
                            d["black_clock_ms"])  # fmt: skip
        if kind == "restarted":
            return GameRestarted(gid, d["reason"])
        raise ValueError(f"unknown update kind {kind!r}")
    except (KeyError, TypeError, ValueError) as exc:
        raise ExecutionError(f"game update is malformed: {exc!r}") from None


def game_slots(white: EngineConfig, black: EngineConfig, override: int | None) -> int:
    """The ``engine_slots`` a game holds: the event's ``execution.slots`` when set,
    else the larger ``Threads`` option of the two engines (1 when neither sets it).
    Not the sum: without pondering only the side to move thinks, so a game keeps
    at most one engine's threads busy at a time."""
    if override is not None:
        return override
    threads = [1]
    for engine in (white, black):
        for name, value in engine.options.items():
            if name.lower() == "threads" and not isinstance(value, bool):
                with contextlib.suppress(TypeError, ValueError):
                    threads.append(int(value))
    return max(threads)
