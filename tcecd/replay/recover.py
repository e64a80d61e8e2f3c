"""Recovering an event whose state directory was lost, from its PGN alone.

``tcecd run EVENT.yaml --from-pgn EVENT.pgn`` calls :func:`recover_from_pgn`
and then :func:`restore_state` on the new, empty state:
the PGN is rebuilt with the config's players, seeds and round format, every
round is re-paired and must follow the rules (a PGN that deviates cannot be
continued: the next pairing would rest on a history the rules never gave),
and the result is what a fresh state needs: the rounds' pairings, the
finished games' records (streamed from the PGN by
:func:`iter_game_records`) and the unfinished round, if any.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tcecd.domain import Color, PlayerId, Result, Termination
from tcecd.errors import PgnError, StateError
from tcecd.game.record import GameRecord
from tcecd.pgn.reader import ProgressCallback, iter_games
from tcecd.replay.event import ReplayedEvent, rebuild_from_pgn
from tcecd.replay.games import ReplayedGame
from tcecd.replay.moves import game_record

if TYPE_CHECKING:
    from tcecd.config.event import EventConfig
    from tcecd.store.sqlite import EventStore

#: Game endings that cost the loser a strike, as the daemon names the fault.
_FAULT_KINDS = {
    Termination.TIME_FORFEIT: "time-forfeit",
    Termination.ILLEGAL_MOVE: "illegal-move",
    Termination.ABANDONED: "crash",
    Termination.STALLED: "stall",
}


def strike_of(
    termination: Termination, result: Result, white: PlayerId, black: PlayerId
) -> tuple[PlayerId, str] | None:
    """The (engine, fault kind) a finished game charges a strike to, as far
    as its PGN tells: the loser of a game lost by time forfeit, illegal move,
    crash or stall; None for any other game."""
    kind = _FAULT_KINDS.get(termination)
    winner = result.winner
    if kind is None or winner is None:
        return None
    return (black if winner is Color.WHITE else white), kind


def pgn_strikes(games: Iterable[ReplayedGame]) -> dict[PlayerId, int]:
    """Strikes per engine over a replayed event's games (see :func:`strike_of`)."""
    counts: dict[PlayerId, int] = {}
    for g in games:
        try:
            termination = Termination(g.termination.strip().lower())
        except ValueError:
            continue
        hit = strike_of(termination, g.result, g.white, g.black)
        if hit is not None:
            counts[hit[0]] = counts.get(hit[0], 0) + 1
    return counts


def recover_from_pgn(
    config: EventConfig,
    pgn: str | os.PathLike[str],
    *,
    progress: ProgressCallback | None = None,
) -> ReplayedEvent:
    """Rebuild and verify ``pgn`` as the event ``config`` describes.

    Raises :class:`PgnError` (one line) when the PGN is malformed, names an
    engine the config does not have, has more rounds than the config plans,
    uses the other round format, or deviates from its pairing system's rules (the
    first deviation is quoted). On success every round of the returned event
    follows the rules, so ``event.pairings()`` are the rules' pairings of the
    rounds in the PGN (the last one possibly unfinished: ``event.partial``).
    """
    from tcecd.replay.session import players_from_config, rules_from_config

    path = Path(pgn)
    players = players_from_config(config) or None
    from tcecd.pairing.registry import SystemOptions

    event = rebuild_from_pgn(
        path,
        players=players,
        double=config.pairing.double,
        progress=progress,
        verify=True,
        system=config.pairing.system,
        options=SystemOptions(time_limit_s=config.pairing.time_limit_s),
        total_rounds=config.rounds,
        rules=rules_from_config(config, players or (), path),
    )
    engines = {e.name for e in config.engines}
    unknown = sorted(p.id for p in event.players if p.id not in engines)
    if unknown:
        raise PgnError(f"{path.name}: player {unknown[0]!r} is not an engine of the config")
    missing = sorted(engines - {p.id for p in event.players})
    if missing:
        raise PgnError(
            f"{path.name}: engine {missing[0]!r} of the config never plays in the PGN's round 1"
        )
    planned = config.rounds
    played = len(event.rounds) + (1 if event.partial is not None else 0)
    if played > planned:
        raise PgnError(f"{path.name}: the PGN has {played} rounds; the config plans {planned}")
    event.check()
    return event


def iter_game_records(
    event: ReplayedEvent, *, progress: ProgressCallback | None = None
) -> Iterator[GameRecord]:
    """The finished games of ``event`` as :class:`GameRecord` s, in playing
    order, read from its PGN one game at a time (an unfinished last game,
    ``Result "*"``, is not included)."""
    wanted = {g.number: g.game_id for g in event.games}
    for number, game in iter_games(event.path, progress=progress):
        gid = wanted.get(number)
        if gid is None:
            continue
        try:
            yield game_record(game, gid)
        except ValueError as exc:
            raise PgnError(f"{event.path.name}: game {number}: {exc}") from None


def restore_state(
    store: EventStore,
    event: ReplayedEvent,
    *,
    fingerprint: dict[str, object],
    rng_seed: int | None = None,
    progress: ProgressCallback | None = None,
    max_strikes: int | None = None,
) -> int:
    """Fill an empty event state from a recovered event; returns the number
    of games restored.

    Restored exactly: the players and seeds, the round format, every round's
    pairing (the rules' pairing, removed history rounds included; for an
    unfinished last round the whole round, so the daemon plays the rest) and
    every finished game with its record and PGN text (tcecd's writer renders
    a tcecd PGN back byte for byte). Restored as far as a PGN tells them:
    one strike for each game lost by time forfeit, illegal move, crash or
    stall (faults that led to a replayed game leave no trace in a PGN), and
    a disqualification for each engine whose games were forfeited (the
    daemon writes ``"<engine> disqualified"``), from the first such round,
    and, given ``max_strikes``, for each engine whose restored strikes reach
    it (as the daemon would have disqualified it: its later games must be
    forfeited, not played, even when the PGN shows no forfeit yet).
    """
    from tcecd.pgn.writer import game_pgn

    if store.initialised:
        raise StateError(
            f"{store.path}: the state directory already holds an event; "
            "--from-pgn needs an empty one"
        )
    store.initialise(
        fingerprint=fingerprint, players=event.players, rng_seed=rng_seed, double=event.double
    )
    for pairing in event.pairings():
        store.save_pairing(pairing)
    ids = {p.id for p in event.players}
    disqualified: dict[PlayerId, tuple[int, str]] = {}
    strikes: dict[PlayerId, int] = {}
    count = 0
    for record in iter_game_records(event, progress=progress):
        gid = record.game_id
        faults: list[tuple[PlayerId, str, str]] = []
        hit = strike_of(record.termination, record.result, record.white, record.black)
        if hit is not None:
            loser, kind = hit
            faults.append((loser, kind, record.termination_detail or kind))
        played = record.termination is not Termination.FORFEIT
        new_dq: list[tuple[PlayerId, int, str]] = []
        if not played:
            detail = record.termination_detail
            names = (
                [record.white, record.black]
                if detail.startswith("both engines")
                else [n for n in ids if detail == f"{n} disqualified"]
            )
            for name in names:
                if name not in disqualified:
                    disqualified[name] = (gid.round, f"restored from the PGN (forfeits from {gid})")
                    new_dq.append((name, *disqualified[name]))
        for engine, kind_, detail_ in faults:
            strikes[engine] = strikes.get(engine, 0) + 1
            if (
                max_strikes is not None
                and strikes[engine] >= max_strikes
                and engine not in disqualified
            ):
                reason = (
                    f"{strikes[engine]} strikes (last: {kind_}: {detail_}; "
                    "restored from the PGN)"
                )
                disqualified[engine] = (gid.round, reason)
                new_dq.append((engine, gid.round, reason))
        store.commit_game(record, game_pgn(record), played=played, faults=faults,
                          disqualify=new_dq)  # fmt: skip
        count += 1
    return count
