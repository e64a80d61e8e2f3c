"""``tcecd run EVENT.yaml --from-pgn EVENT.pgn``: a new state from an event's PGN.

For an event whose state directory was lost: the PGN is rebuilt and verified
against the rules by the replay layer (:func:`tcecd.replay.recover.recover_from_pgn`,
which refuses a PGN that deviates), then written into a fresh store exactly as
the daemon would have recorded it (:func:`tcecd.replay.recover.restore_state`):
players, each round's pairing, each finished game (record and PGN text), a
strike for each game lost by a fault, and the disqualification of engines whose
games were forfeited. Then the daemon resumes as after any restart.

The import is one store transaction: a PGN refused half-way (a malformed move
comment in its 40th game) leaves the state directory without an event, as it
was (a directory the import made is removed again). It is also refused,
before anything is committed, when the event's own PGN file (``outputs.pgn``)
holds anything but the imported games as tcecd writes them: that file is never
rewritten (see :mod:`tcecd.daemon.ledger`). Once committed, the import writes
that file itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tcecd.daemon.settings import RunSettings
from tcecd.errors import StateError
from tcecd.outputs.files import PgnFile
from tcecd.store import EventStore

if TYPE_CHECKING:
    from tcecd.config.event import EventConfig


def import_pgn(settings: RunSettings, config: EventConfig, pgn: Path) -> int:
    """Initialise ``settings.state_dir`` from ``pgn``; returns the games imported.
    Refuses (StateError) a state directory that already holds an event."""
    from tcecd.replay.recover import recover_from_pgn, restore_state

    with EventStore(settings.state_dir) as store:
        if store.initialised:
            raise StateError(
                f"{settings.state_dir}: already holds an event; --from-pgn only starts a new "
                "state (run without it to resume, or give another --state-dir)"
            )
        event = recover_from_pgn(config, pgn)
        with store.batch():
            count = restore_state(
                store,
                event,
                fingerprint=settings.fingerprint,
                rng_seed=settings.seeding_seed,
                max_strikes=settings.strikes_max,
            )
            output = PgnFile(settings.pgn_path)
            games = [g.pgn for g in store.games()]
            if output.missing_tail(games) is None:
                raise StateError(
                    f"{settings.pgn_path}: holds text other than the imported games as tcecd "
                    "writes them; refusing to overwrite it: move it away (or give --from-pgn "
                    "a copy of it) and run again"
                )
        # The event's PGN file as the state says, now: the daemon that starts next finds
        # it complete (it warned "pgn file repaired" on every import; that warning is for
        # a file a crash cut short). Killed before this, the next start does it, warning.
        output.sync(games)
        return count
