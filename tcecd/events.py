"""The domain events: one vocabulary for the store, the PGN writer, MQTT and logs.

The daemon emits these in order; every consumer (the crash-safe store, the
TCEC-format JSON writers, the MQTT publisher, the log) is a function of this
stream. Events are frozen values; payload layout for MQTT lives in
:mod:`tcecd.bus.payloads`, not here.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcecd.domain import GameId, PlayerId, Result, Termination
from tcecd.forecast.forecast import Forecast
from tcecd.game.record import GameRecord, GameSummary, MoveRecord, Opening, Score
from tcecd.pairing.base import Player, RoundPairing, Standing


@dataclass(frozen=True, slots=True)
class EventStarted:
    """The event's metadata; published retained."""

    event: str
    site: str
    system: str  # "tcec-swiss"
    double: bool
    rounds: int
    time_control: str
    players: tuple[Player, ...]
    #: "standard" or "chess960" (tcecd.game.chess960.Variant).
    variant: str = "standard"


@dataclass(frozen=True, slots=True)
class RoundPaired:
    """A round was paired (BYE and history removals included)."""

    pairing: RoundPairing


@dataclass(frozen=True, slots=True)
class GameStarted:
    game_id: GameId
    white: PlayerId
    black: PlayerId
    opening: Opening
    time_control: str
    start_time: str  # UTC ISO 8601
    white_clock_ms: int | None
    black_clock_ms: int | None
    #: The game's PGN tags as known at its start (:func:`tcecd.pgn.writer.start_tags`):
    #: what ``live.pgn`` shows while it runs.
    headers: tuple[tuple[str, str], ...] = ()
    white_options: tuple[tuple[str, str], ...] = ()
    black_options: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class MovePlayed:
    """One ply of a running game (book moves included, ``move.book``)."""

    game_id: GameId
    move: MoveRecord
    white_clock_ms: int | None
    black_clock_ms: int | None


@dataclass(frozen=True, slots=True)
class GameFinished:
    """A game ended (played, or forfeited without being played)."""

    record: GameRecord
    pgn: str

    @property
    def game_id(self) -> GameId:
        return self.record.game_id

    @property
    def result(self) -> Result:
        return self.record.result

    @property
    def termination(self) -> Termination:
        return self.record.termination

    @property
    def summary(self) -> GameSummary:
        """What the event state keeps of the game (no moves)."""
        return GameSummary.of(self.record)


@dataclass(frozen=True, slots=True)
class GameReplayed:
    """A game ended by an engine fault is played again from its start (the
    ``replay`` policy): its faults came as :class:`EngineFault` events; no
    result is recorded for the attempt."""

    game_id: GameId
    white: PlayerId
    black: PlayerId
    detail: str


@dataclass(frozen=True, slots=True)
class EngineFault:
    """An engine misbehaved (crash, stall, illegal move, time forfeit, ...)."""

    engine: PlayerId
    game_id: GameId | None
    kind: str  # e.g. "crash", "stall", "illegal-move", "time-forfeit", "startup"
    detail: str
    strikes: int  # strikes after this fault


@dataclass(frozen=True, slots=True)
class EngineDisqualified:
    engine: PlayerId
    reason: str
    round: int


@dataclass(frozen=True, slots=True)
class StandingsUpdated:
    """Standings after ``after_round`` rounds (0: before the first round)."""

    after_round: int
    standings: tuple[Standing, ...]


@dataclass(frozen=True, slots=True)
class ForecastUpdated:
    """A forecast of the final places (:mod:`tcecd.forecast`) after
    ``forecast.after_round`` rounds and ``forecast.after_game`` games of the
    next; published retained, a newer one replacing it."""

    forecast: Forecast


@dataclass(frozen=True, slots=True)
class BracketUpdated:
    """A knockout event's bracket as it stands (rounds, encounters, scores,
    who advanced): the body of the retained ``bracket`` topic
    (docs/events.md). Derived from the state by the format, published after
    every change; not part of the record."""

    bracket: dict[str, object]


@dataclass(frozen=True, slots=True)
class KibitzerReport:
    """What a kibitzer (an analysis engine following a running game, never a
    player: :mod:`tcecd.daemon.kibitzer`) reports of its current search, at
    most about once a second. Not part of the record: published retained
    (``kibitzer/<n>``) and written to TCEC's ``data.json``/``liveeval.json``."""

    #: The kibitzer's place in the config's ``kibitzers`` list (0, 1, ...).
    kibitzer: int
    #: Its name (the config's, as players are named).
    engine: str
    #: Its settings as the viewer shows them (``"Threads 1, Hash 16"``).
    desc: str
    game_id: GameId
    #: Plies of the game before the analysed position, counted from the
    #: opening's start position as :attr:`MoveRecord.ply` counts them (0: the start).
    ply: int
    #: The analysed position.
    fen: str
    #: From White's point of view (None: no score reported yet).
    score: Score | None
    depth: int | None = None
    seldepth: int | None = None
    nodes: int | None = None
    nps: int | None = None
    tbhits: int | None = None
    hashfull: int | None = None  # permille, as UCI reports it
    time_ms: int | None = None
    #: Win, draw and loss chances in permille from White's point of view, when the
    #: engine reports them (UCI ``wdl``).
    wdl: tuple[int, int, int] | None = None
    #: The principal variation from the analysed position, legal moves only.
    pv_san: tuple[str, ...] = ()
    pv_uci: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EventFinished:
    standings: tuple[Standing, ...]


# -- the operator's console (tcecd.control; docs/events.md, "The console") --------------


@dataclass(frozen=True, slots=True)
class ControlEntry:
    """One command as the audit log keeps it: accepted or refused.

    ``id`` is the operator's command id (None for a payload without a usable
    one); ``received`` the UTC ISO time it arrived; ``command`` and ``args``
    as sent (``command`` "?" for a malformed payload); ``ok`` whether it was
    applied; ``error`` why not, or ``effect`` what it did (JSON values)."""

    seq: int
    id: str | None
    received: str
    command: str
    args: dict[str, object]
    ok: bool
    error: str | None = None
    effect: dict[str, object] | None = None

    def reply(self) -> dict[str, object]:
        """The reply document's body (``control/reply/<id>``)."""
        body: dict[str, object] = {"id": self.id, "ok": self.ok}
        if self.ok:
            body["effect"] = self.effect or {}
        else:
            body["error"] = self.error or "refused"
        return body


@dataclass(frozen=True, slots=True)
class CommandAnswered:
    """A console command was recorded (or, ``repeated``, its id came again and
    the recorded answer is given again): its reply and the audit log's new
    entry go out. The facts it changed come as their own events, after it."""

    entry: ControlEntry
    repeated: bool = False


@dataclass(frozen=True, slots=True)
class EventPaused:
    """``pause`` (True) or ``resume`` (False): while paused no game starts."""

    paused: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class EngineWithdrawn:
    """The operator withdrew an engine from round ``round`` on: it is not
    paired again, or its remaining games are forfeits (docs/running.md)."""

    engine: PlayerId
    reason: str
    round: int


@dataclass(frozen=True, slots=True)
class EngineReplaced:
    """From its next game on, ``engine`` is played by ``definition`` (an
    engine definition as ``EngineConfig.model_dump(mode="json")`` gives it)."""

    engine: PlayerId
    definition: dict[str, object]
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ConcurrencyChanged:
    """How many games may play at once, from now on."""

    concurrency: int


@dataclass(frozen=True, slots=True)
class GameRestartOrdered:
    """The operator restarted game ``game_id``: it is played again from its
    start. ``voided``: it had finished (by a fault) and its result is void
    (kept in the record as an earlier attempt)."""

    game_id: GameId
    reason: str
    voided: bool = False


@dataclass(frozen=True, slots=True)
class GameAdjudicationOrdered:
    """The operator ended running game ``game_id`` with ``result``; its record
    is committed in its turn (and, after a crash, without playing it again)."""

    game_id: GameId
    result: Result
    reason: str


DomainEvent = (
    EventStarted
    | RoundPaired
    | GameStarted
    | MovePlayed
    | GameFinished
    | GameReplayed
    | EngineFault
    | EngineDisqualified
    | StandingsUpdated
    | ForecastUpdated
    | BracketUpdated
    | KibitzerReport
    | EventFinished
    | CommandAnswered
    | EventPaused
    | EngineWithdrawn
    | EngineReplaced
    | ConcurrencyChanged
    | GameRestartOrdered
    | GameAdjudicationOrdered
)
