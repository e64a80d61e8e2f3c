"""``tcecd run EVENT.yaml --from-pgn EVENT.pgn``: a new state from an event's PGN.

For an event whose state directory was lost: the PGN is rebuilt and verified
against the rules by the replay layer (:func:`tcecd.replay.recover.recover_from_pgn`,
which refuses a PGN that deviates), then written into a fresh store exactly as
the daemon would have recorded it: players, each round's pairing, each finished
game (record and PGN text). Engines with forfeited games were disqualified, so
they are recorded as such. Then the daemon resumes as after any restart.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tcecd.daemon.core import default_fingerprint
from tcecd.daemon.settings import RunSettings
from tcecd.domain import Color, Termination
from tcecd.errors import StateError
from tcecd.store import EventStore

if TYPE_CHECKING:
    from tcecd.config.event import EventConfig


def import_pgn(settings: RunSettings, config: EventConfig, pgn: Path) -> int:
    """Initialise ``settings.state_dir`` from ``pgn``; returns the games imported.
    Refuses (StateError) a state directory that already holds an event."""
    from tcecd.pgn.writer import game_pgn
    from tcecd.replay.recover import iter_game_records, recover_from_pgn

    with EventStore(settings.state_dir) as store:
        if store.initialised:
            raise StateError(
                f"{settings.state_dir}: already holds an event; --from-pgn only starts a new "
                "state (run without it to resume, or give another --state-dir)"
            )
        event = recover_from_pgn(config, pgn)
        store.initialise(
            fingerprint=settings.fingerprint or default_fingerprint(settings),
            players=event.players,
            rng_seed=settings.seeding_seed,
            double=settings.double,
        )
        for pairing in event.pairings():
            store.save_pairing(pairing)
        count = 0
        for record in iter_game_records(event):
            forfeit = record.termination is Termination.FORFEIT
            disqualify = []
            if forfeit:
                loser = record.result.winner
                out = record.black if loser is Color.WHITE else record.white
                disqualify.append(
                    (out, record.game_id.round, "disqualified (recovered from the PGN)")
                )
            store.commit_game(record, game_pgn(record), played=not forfeit, disqualify=disqualify)
            count += 1
    return count
