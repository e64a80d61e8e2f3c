"""The event's bookkeeping for the daemon: rounds, finished games, strikes.

:class:`EventBook` is the daemon's in-memory mirror of the store (loaded once at
start-up, then updated right after each store commit), so that deciding what
comes next never reads SQLite on the event loop: the finished rounds as the
pairing core reads them, live standings, which opening a game gets, whether a
resumed state is consistent, the record of a forfeited game, and the TCEC
``schedule.json`` / ``crosstable.json`` documents. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from tcecd.daemon.settings import RunSettings
from tcecd.domain import GameId, PlayerId, Result, Termination
from tcecd.errors import StateError
from tcecd.game.record import GameRecord, Opening
from tcecd.outputs import tcec_json
from tcecd.pairing.base import Player, RoundPairing, RoundRecord, ScheduledGame, Standing
from tcecd.store import EventStore, OutboxRow, StoredGame, round_record

FaultTuple = tuple[PlayerId, str, str]  # engine, kind, detail


def gid_key(gid: GameId) -> tuple[int, int]:
    return (gid.round, gid.number)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def default_fingerprint(s: RunSettings) -> dict[str, object]:
    """The history-relevant parts of the settings (used when the config layer
    gave none, e.g. settings built directly in tests)."""
    fingerprint: dict[str, object] = {
        "engines": [
            {"name": e.name, "command": list(e.command), "protocol": e.protocol,
             "options": dict(sorted(e.options.items()))}
            for e in s.engines
        ],
        "pairing.rounds": s.rounds,
        "pairing.double": s.double,
        "pairing.seeding": [s.seeding, s.seeding_groups, s.seeding_seed],
        "pairing.tiebreaks": list(s.tiebreaks),
        "time_control": s.time_control.pgn_tag(),
        "openings": [str(s.openings_file), s.openings_order, s.openings_seed, s.openings_plies],
    }  # fmt: skip
    if s.openings_book_file is not None:
        # Only when set, so states written before books existed still resume.
        fingerprint["openings.book"] = [
            str(s.openings_book_file),
            s.openings_book_depth,
            s.openings_book_selection,
            s.openings_book_seed,
        ]
    return fingerprint


class EventBook:
    """Players, pairings, finished games, strikes and disqualifications of one
    event, as committed to the store (see the module docstring)."""

    def __init__(self, settings: RunSettings) -> None:
        self.s = settings
        self.engines = {e.name: e for e in settings.engines}
        self.players: tuple[Player, ...] = ()
        self.pairings: dict[int, RoundPairing] = {}
        self.finished: dict[GameId, StoredGame] = {}
        self.records: dict[GameId, GameRecord] = {}
        self.openings: tuple[Opening, ...] = ()
        #: Mirrors of the store's ``faults`` (counted) and ``disqualified`` tables.
        self.strikes: dict[PlayerId, int] = {}
        self.disqualified: dict[PlayerId, tuple[int, str]] = {}
        #: The store's ``finished`` mark: the final standings were published.
        self.marked_finished = False
        #: Keys of the store's outbox rows (tcecd.bus.outbox), and the rows the
        #: broker had not acknowledged at start-up (re-sent first).
        self.outbox_keys: set[str] = set()
        self.outbox_pending: list[OutboxRow] = []

    def load(self, store: EventStore) -> None:
        """Read everything back from the store (start-up only)."""
        self.players = store.players()
        self.pairings = {p.round: p for p in store.pairings()}
        for g in store.games():
            self.finished[g.game_id] = g
            self.records[g.game_id] = g.record
        self.strikes = store.strikes()
        self.disqualified = store.disqualified()
        self.marked_finished = store.finished
        self.outbox_keys = store.outbox_keys()
        self.outbox_pending = store.outbox_pending()

    # -- recording (called right after the matching store commit) --------------------

    def add_game(self, record: GameRecord, pgn: str, *, played: bool) -> None:
        gid = record.game_id
        self.finished[gid] = StoredGame(
            gid, record.white, record.black, record.result, record.termination, played, pgn, ""
        )
        self.records[gid] = record

    def add_strike(self, engine: PlayerId) -> int:
        """One more fault for ``engine``; returns its strikes so far."""
        self.strikes[engine] = self.strikes.get(engine, 0) + 1
        return self.strikes[engine]

    def disqualify(self, engine: PlayerId, round_no: int, reason: str) -> None:
        self.disqualified.setdefault(engine, (round_no, reason))  # as INSERT OR IGNORE

    # -- rounds -------------------------------------------------------------------------

    def history(self) -> list[RoundRecord]:
        """Finished rounds in order, as the pairing core reads them."""
        out: list[RoundRecord] = []
        for r in sorted(self.pairings):
            pairing = self.pairings[r]
            games = {gid.number: g for gid, g in self.finished.items() if gid.round == r}
            if len(games) < len(pairing.games):
                break
            out.append(round_record(pairing, games))
        return out

    def records_so_far(self) -> list[RoundRecord]:
        """Every round paired so far, the current one partially (for live standings)."""
        out: list[RoundRecord] = []
        for r in sorted(self.pairings):
            games = {gid.number: g for gid, g in self.finished.items() if gid.round == r}
            out.append(round_record(self.pairings[r], games))
        return out

    def standings(self, records: list[RoundRecord]) -> tuple[Standing, ...]:
        from tcecd.pairing.standings import standings

        return tuple(
            standings(self.players, records, double=self.s.double, tiebreaks=self.s.tiebreaks)
        )

    def unfinished(self, pairing: RoundPairing) -> list[ScheduledGame]:
        """The round's games not yet recorded, in playing order."""
        return [g for g in pairing.games if GameId(pairing.round, g.number) not in self.finished]

    def verify(self, where: object) -> None:
        """On (re)start: the stored rounds must follow each other, and every stored
        game must be the scheduled one. Stored pairings are authoritative and are
        not re-paired here: checking them against the rules is ``tcecd replay
        --verify``'s job."""
        history = self.history()
        for r in sorted(self.pairings):
            if r - 1 > len(history):
                raise StateError(f"{where}: round {r} is paired before round "
                                 f"{len(history) + 1} finished")  # fmt: skip
        for gid, game in self.finished.items():
            pairing = self.pairings.get(gid.round)
            scheduled = (
                None
                if pairing is None
                else next((g for g in pairing.games if g.number == gid.number), None)
            )
            if scheduled is None or (scheduled.white, scheduled.black) != (game.white, game.black):
                raise StateError(
                    f"{where}: stored game {gid} ({game.white}-{game.black}) is not "
                    "in the stored schedule; the state is inconsistent"
                )

    # -- games --------------------------------------------------------------------------

    def opening_for(self, pairing: RoundPairing, game: ScheduledGame) -> Opening:
        """Openings are taken in order: one per game in single rounds, one per
        pair in double rounds (both legs of a pair share it)."""
        if not self.openings:
            return Opening(name=None, fen=None)
        from tcecd.game.openings import select_opening

        before = 0
        for r in range(1, pairing.round):
            p = self.pairings[r]
            before += len(p.pairs) if self.s.double else len(p.games)
        if self.s.double:
            first_leg = [g for g in pairing.games if g.leg == 1]
            position = next(i for i, g in enumerate(first_leg) if g.pair_index == game.pair_index)
        else:
            position = game.number - 1
        return select_opening(
            self.openings,
            before + position,
            order=self.s.openings_order,
            seed=self.s.openings_seed,
        )

    def forfeit(self, pairing: RoundPairing, game: ScheduledGame) -> GameRecord:
        """The record of a game not played because an engine is disqualified."""
        gid = GameId(pairing.round, game.number)
        disq = self.disqualified
        w_out, b_out = game.white in disq, game.black in disq
        if w_out and b_out:
            result, detail = Result.DRAW, "both engines disqualified"
        elif w_out:
            result, detail = Result.BLACK_WINS, f"{game.white} disqualified"
        else:
            result, detail = Result.WHITE_WINS, f"{game.black} disqualified"
        now = utc_now()
        return GameRecord(
            game_id=gid,
            event=self.s.event,
            site=self.s.site,
            white=game.white,
            black=game.black,
            result=result,
            termination=Termination.FORFEIT,
            termination_detail=detail,
            start_time=now,
            end_time=now,
            duration_ms=0,
            time_control=self.s.time_control.pgn_tag(),
            opening=self.opening_for(pairing, game),
            moves=(),
            white_elo=self.engines[game.white].rating if game.white in self.engines else None,
            black_elo=self.engines[game.black].rating if game.black in self.engines else None,
        )

    # -- TCEC JSON documents --------------------------------------------------------------

    def schedule(self, running: Mapping[GameId, str] | None = None) -> list[dict[str, Any]]:
        """``schedule.json``; ``running``: the games being played, with their start."""
        pairings = [self.pairings[r] for r in sorted(self.pairings)]
        names = {p.id: p.name for p in self.players}
        return tcec_json.schedule_json(pairings, self.records, names=names, running=running)

    def crash_rows(self) -> list[dict[str, Any]]:
        """``crash.json``: the games an engine fault decided."""
        pairings = [self.pairings[r] for r in sorted(self.pairings)]
        names = {p.id: p.name for p in self.players}
        return tcec_json.crash_json(pairings, self.records, names=names)

    def crosstable(self) -> dict[str, Any]:
        ordinal = 0
        games: list[tcec_json.CrossGame] = []
        for r in sorted(self.pairings):
            for g in self.pairings[r].games:
                ordinal += 1
                done = self.finished.get(GameId(r, g.number))
                if done is not None:
                    games.append(
                        tcec_json.CrossGame(
                            ordinal, done.white, done.black, done.result, done.played
                        )
                    )
        return tcec_json.crosstable_json(
            self.s.event,
            self.players,
            games,
            self.standings(self.records_so_far()),
            strikes=dict(self.strikes),
        )
