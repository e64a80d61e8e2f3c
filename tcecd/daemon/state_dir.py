"""Opening an event's state directory: everything checked before anything is written.

:func:`open_event` runs before any game or task exists (blocking here holds
up nothing):

1. the openings (and the Polyglot book) are read first: a bad file fails
   before the state exists;
2. the store is opened (one daemon per state directory: it holds a lock),
   writing nothing yet; engines an earlier run left behind die now;
3. a resumed event must match the config's fingerprint
   (:mod:`tcecd.config.fingerprint`) and its PGN must be a beginning of the
   stored games (:mod:`tcecd.daemon.ledger`); a new event must not find an
   earlier event's files; it records its fingerprint and seeded players;
4. the event state is folded from the store (:func:`~tcecd.daemon.recorder.load_state`)
   and checked (stored rounds follow each other, every stored game is the
   scheduled one).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from tcecd.config.engines import EngineConfig
from tcecd.config.fingerprint import accept_replacements, diff_fingerprints
from tcecd.daemon.ledger import check_new_event, check_resumed_event
from tcecd.daemon.recorder import load_state
from tcecd.daemon.settings import RunSettings
from tcecd.domain import GameId
from tcecd.errors import StateError
from tcecd.event.state import EventState
from tcecd.game.record import Opening
from tcecd.outputs.files import PgnFile
from tcecd.pairing.base import Player
from tcecd.store import EventStore


@dataclass
class OpenedEvent:
    """An event's state directory, opened and checked (the caller closes the store)."""

    store: EventStore
    state: EventState
    openings: tuple[Opening, ...]
    #: The record of engine process groups (tcecd.runner.reaper).
    engine_groups: Any
    resumed: bool

    def close(self) -> None:
        self.store.close()


def load_openings(s: RunSettings) -> tuple[Opening, ...]:
    """The event's openings (with the Polyglot book's moves; Chess960 positions
    by number), or none."""
    chess960 = s.rules.variant == "chess960"
    if s.openings_positions is not None:
        from tcecd.game.chess960 import all_openings, numbered_openings

        if s.openings_positions == "all":
            return all_openings()
        return numbered_openings(s.openings_positions)
    if s.openings_file is None:
        return ()
    from tcecd.game.openings import load_openings as load
    from tcecd.game.polyglot import read_book

    polyglot = None
    if s.openings_book_file is not None:
        polyglot = read_book(
            s.openings_book_file,
            depth=s.openings_book_depth,
            selection=s.openings_book_selection,
            seed=s.openings_book_seed,
        )
    return load(
        s.openings_file,
        fmt=s.openings_format,
        plies=s.openings_plies,
        book=polyglot,
        chess960=chess960,
    )


def seed(s: RunSettings) -> tuple[tuple[Player, ...], int | None]:
    """The seeded players of a new event and the seeding's RNG seed (drawn now
    for random seeding without one: recorded in the state, so the seeding is
    known and replayable)."""
    from tcecd.pairing.seeding import seed_players

    rng_seed = s.seeding_seed
    if s.seeding == "random" and rng_seed is None:
        rng_seed = secrets.randbelow(2**31)
    entries = [(e.name, e.name, e.rating) for e in s.engines]
    players = seed_players(entries, s.seeding, groups=s.seeding_groups, rng_seed=rng_seed)
    return tuple(players), rng_seed


def open_event(
    s: RunSettings, *, log: Any, openings: tuple[Opening, ...] | None = None
) -> OpenedEvent:
    """Open (or create) the event's state and check it (module docstring);
    ``openings``: already loaded (``tcecd play``), instead of the settings' file."""
    openings = load_openings(s) if openings is None else openings
    # Opening the store writes nothing; nothing is written until the checks
    # below (and the damaged-store checks of EventStore) have passed.
    store = EventStore(s.state_dir, durable=s.durable)
    try:
        # Under the state directory's lock: engines an earlier run left behind die now.
        from tcecd.runner.reaper import EngineGroups

        groups = EngineGroups(s.state_dir)
        killed = groups.reap()
        if killed:
            log.warning("engine processes of an earlier run killed", pids=killed)
        pgn = PgnFile(s.pgn_path)
        resumed = store.initialised
        if resumed:
            stored = store.fingerprint() or {}
            new = accept_replacements(stored, s.fingerprint, replaced_engines(store))
            changes = diff_fingerprints(stored, new)
            if changes:
                raise StateError(
                    f"{s.state_dir}: the config changed in a way that would rewrite the "
                    f"event's history; refusing to resume: {'; '.join(changes)}"
                )
            # The ledger: the PGN holds nothing the store does not record.
            check_resumed_event(pgn, store.ledger(), store.path)
        else:
            check_new_event(pgn, s.json_dir, store.path)
            players, rng_seed = seed(s)
            store.initialise(
                fingerprint=s.fingerprint, players=players, rng_seed=rng_seed,
                double=s.format.double,
            )  # fmt: skip
            log.info("new event", state_dir=str(s.state_dir), players=len(players))
        state = load_state(store)
        verify(state, store.path)
        if resumed:
            log.info("resuming event", state_dir=str(s.state_dir))
    except BaseException:
        store.close()
        raise
    return OpenedEvent(store, state, openings, groups, resumed)


def replaced_engines(store: EventStore) -> dict[str, EngineConfig]:
    """Each engine the console replaced, with its latest definition."""
    out: dict[str, EngineConfig] = {}
    for entry in store.commands(accepted=True):
        if entry.command == "replace" and entry.effect is not None:
            definition = entry.effect.get("definition")
            if isinstance(definition, dict):
                try:
                    out[str(entry.args.get("engine"))] = EngineConfig.model_validate(definition)
                except ValueError as exc:
                    raise StateError(f"{store.path}: console command {entry.seq}: the "
                                     f"engine definition is damaged: {exc}") from None
    return out


def verify(state: EventState, where: object) -> None:
    """On (re)start: the stored rounds must follow each other, and every stored
    game must be the scheduled one. Stored schedules are authoritative and are
    not paired again here: checking them against the rules is ``tcecd replay
    --verify``'s job."""
    history = state.history()
    pending = state.pending()
    for r in state.rounds:
        # A round is paired once the one before it finished; an earlier game
        # still to play must be one the operator voided since (a round-robin's
        # restart-game, docs/running.md).
        if r - 1 > len(history) and any(
            (rr < r and GameId(rr, g.number) not in state.restarted) for rr, g in pending
        ):
            raise StateError(
                f"{where}: round {r} is paired before round {len(history) + 1} finished"
            )
    for gid, game in state.results.items():
        scheduled = state.game(gid)
        if scheduled is None or (scheduled.white, scheduled.black) != (game.white, game.black):
            raise StateError(
                f"{where}: stored game {gid} ({game.white}-{game.black}) is not "
                "in the stored schedule; the state is inconsistent"
            )
