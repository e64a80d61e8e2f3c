"""What ``tcecd simulate --forecast`` reads: an event's state, a TRF, or a JSON document.

An event forecast offline needs the players, the finished rounds (and what is known of
the round being played), single or double rounds, the system and the number of rounds.
Four inputs hold them:

- an event's **state directory** (``outputs.state_dir``), or its **event.sqlite**: the
  store the daemon writes (:mod:`tcecd.store`), opened read-only and without the state
  directory's lock, so a running event can be forecast beside its daemon. The system,
  the number of rounds, double rounds and tie-breaks come from the stored config
  fingerprint; the round being played counts with its finished games, as the daemon's
  own forecasts do (:func:`tcecd.daemon.forecast.snapshot`);
- a **TRF-2016** file (``tcecd replay --trf``, ``tcecd simulate --trf``, FIDE's tournament
  managers): FIDE's format, so the system defaults to ``dutch-2017``, rounds from ``XXR``;
- a **JSON** document (``tcecd simulate --json``; :mod:`tcecd.pairing.state_json`).

Which one a path is: a directory is a state directory; a file that starts with SQLite's
header is a state database; a ``.trf`` file, or a file with a TRF player line (``001``),
is a TRF; a ``.json`` file, or one whose text starts with ``{``, is JSON. Anything else is
one :class:`~tcecd.errors.ConfigError` line naming the file and what was expected.

:func:`snapshot_from_store` and :func:`snapshot_from_records` are pure; :func:`read_source`
is the I/O shell.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tcecd.errors import ConfigError
from tcecd.forecast.montecarlo import EventSnapshot
from tcecd.pairing.base import PlayedGame, Player, RoundContext, RoundPairing, RoundRecord
from tcecd.pairing.standings import DEFAULT_TIEBREAKS

#: The first 16 bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"
#: The system of a TRF when none is given (TRF is FIDE's format; as ``tcecd pair``).
TRF_DEFAULT_SYSTEM = "dutch-2017"
#: The system of a JSON document that names none (as ``tcecd pair``).
JSON_DEFAULT_SYSTEM = "tcec-swiss"
#: What ``--forecast`` takes, for error messages.
KINDS = "an event's state directory, its event.sqlite, a TRF-2016 file or a JSON event document"


@dataclass(frozen=True, slots=True)
class Source:
    """An event read for a forecast: the snapshot's parts before the number of rounds
    is settled (``total_rounds`` None: the input does not say), and what it was."""

    kind: str  # "state", "trf" or "json"
    system: str
    players: tuple[Player, ...]
    double: bool
    rounds: tuple[RoundRecord, ...]
    total_rounds: int | None
    context: RoundContext
    tiebreaks: tuple[str, ...] = DEFAULT_TIEBREAKS
    current: RoundPairing | None = None
    current_games: tuple[PlayedGame, ...] = ()

    def snapshot(self, total_rounds: int) -> EventSnapshot:
        return EventSnapshot(
            system=self.system,
            players=self.players,
            double=self.double,
            rounds=self.rounds,
            total_rounds=total_rounds,
            tiebreaks=self.tiebreaks,
            current=self.current,
            current_games=self.current_games,
            context=self.context,
        )


def _setting(fingerprint: Mapping[str, object], key: str) -> object:
    """``pairing.<key>`` of a stored fingerprint: nested (the config layer's) or
    flat (``pairing.<key>``, the settings-built one); None when absent."""
    pairing = fingerprint.get("pairing")
    if isinstance(pairing, Mapping) and key in pairing:
        return pairing[key]
    return fingerprint.get(f"pairing.{key}")


def snapshot_from_store(
    players: tuple[Player, ...],
    pairings: Sequence[RoundPairing],
    records: Sequence[RoundRecord],
    fingerprint: Mapping[str, object],
    *,
    system: str | None = None,
) -> Source:
    """The event in a state: ``records`` are the store's rounds as far as paired
    (the current one with its finished games only: :func:`tcecd.store.sqlite.round_record`),
    ``pairings`` every stored pairing. ``system``: for a fingerprint that names none
    (states written by settings-built daemons in tests). Pure."""
    stored_system = _setting(fingerprint, "system")
    rounds = _setting(fingerprint, "rounds")
    double = _setting(fingerprint, "double")
    tiebreaks = _setting(fingerprint, "tiebreaks")
    by_round = {p.round: p for p in pairings}
    finished: list[RoundRecord] = []
    current: RoundPairing | None = None
    current_games: tuple[PlayedGame, ...] = ()
    for record in records:
        pairing = by_round[record.round]
        if current is None and len(record.games) == len(pairing.games):
            finished.append(record)
        elif current is None:
            current, current_games = pairing, record.games
    total = rounds if isinstance(rounds, int) and not isinstance(rounds, bool) else None
    return Source(
        kind="state",
        system=stored_system if isinstance(stored_system, str)
        else system or JSON_DEFAULT_SYSTEM,
        players=players,
        double=bool(double),
        rounds=tuple(finished),
        total_rounds=total,
        context=RoundContext(total_rounds=total),
        tiebreaks=tuple(str(t) for t in tiebreaks)
        if isinstance(tiebreaks, list) and tiebreaks
        else DEFAULT_TIEBREAKS,
        current=current,
        current_games=current_games,
    )


def _read_state(state_dir: Path, shown: str, system: str | None) -> Source:
    from tcecd.store.sqlite import EventStore, StoredGame, round_record

    store = EventStore(state_dir, readonly=True)
    try:
        players = store.players()
        pairings = store.pairings()
        games = store.games()
        fingerprint = store.fingerprint() or {}
    finally:
        store.close()
    by_round: dict[int, dict[int, StoredGame]] = {}
    for g in games:
        by_round.setdefault(g.game_id.round, {})[g.game_id.number] = g
    records = [round_record(p, by_round.get(p.round, {})) for p in pairings]
    source = snapshot_from_store(players, pairings, records, fingerprint, system=system)
    if not source.players:
        raise ConfigError(f"--forecast {shown}: the event state has no players")
    return source


def read_source(path: str, *, system: str | None = None) -> Source:
    """Read ``path`` (module docstring). ``system``: the pairing system to assume for
    an input that names none (a TRF; a JSON document or state without one). Errors
    are one line (exit 2)."""
    from tcecd.store.sqlite import DB_NAME

    p = Path(path)
    if p.is_dir():
        if not (p / DB_NAME).is_file():
            raise ConfigError(
                f"--forecast {path}: a directory without {DB_NAME}: not an event's state "
                f"directory (expected {KINDS})"
            )
        return _read_state(p, path, system)
    try:
        with open(p, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ConfigError(f"--forecast {path}: cannot read: {exc.strerror or exc}") from None
    if data.startswith(SQLITE_HEADER):
        if p.name != DB_NAME:
            raise ConfigError(
                f"--forecast {path}: an SQLite database not named {DB_NAME}: give the event's "
                "state directory or its event.sqlite"
            )
        return _read_state(p.parent, path, system)
    suffix = p.suffix.lower()
    is_trf = suffix == ".trf" or (
        suffix != ".json" and any(line.startswith(b"001") for line in data.splitlines())
    )
    if is_trf:
        from tcecd.trf import parse_trf

        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("latin-1")  # TRFs of older tournament managers
        event = parse_trf(text, path)
        return Source(
            kind="trf",
            system=system or TRF_DEFAULT_SYSTEM,
            players=event.players,
            double=False,
            rounds=event.rounds,
            total_rounds=event.context.total_rounds,
            context=event.context,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"--forecast {path}: not UTF-8 text (expected {KINDS})") from None
    if suffix != ".json" and not text.lstrip().startswith("{"):
        raise ConfigError(f"--forecast {path}: not an event (expected {KINDS})")
    from tcecd.pairing.state_json import load_event_state

    state = load_event_state(text, path)
    return Source(
        kind="json",
        system=system or state.system or JSON_DEFAULT_SYSTEM,
        players=state.players,
        double=state.double,
        rounds=state.rounds,
        total_rounds=state.context.total_rounds,
        context=state.context,
    )
