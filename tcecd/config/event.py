"""The event config: one YAML file describing a whole event, as frozen models.

Every section is a frozen pydantic model with ``extra="forbid"`` (an unknown
key is an error naming it). :class:`EventConfig` is the parsed, resolved whole:
engine references are already :class:`~tcecd.config.engines.EngineConfig`
values and relative paths are absolute (resolved against the config file's
directory; outputs against the state directory). Nothing downstream reads raw
dicts.

This module is pure: reading the YAML and the engine definitions, and checking
that files exist, is :func:`tcecd.config.load.load_event`'s job. Relative paths
are resolved during validation from ``context={"base_dir": DIR}``.

Scores in the YAML are in pawns (``0.15``), as TCEC writes them; the
conversions to the game layer's values (:meth:`EventConfig.adjudication_rules`)
turn them into centipawns.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    StrictFloat,
    StrictInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from tcecd.config.engines import EngineConfig, Frozen, time_control_of
from tcecd.errors import ConfigError
from tcecd.game.timecontrol import MAX_TIME_MS, TimeControl

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tcecd.bus.settings import MqttSettings
    from tcecd.formats.base import FormatSettings
    from tcecd.game.adjudication import AdjudicationRules
    from tcecd.pairing.base import Player, RoundContext
    from tcecd.pairing.points import PointSystem

PositiveInt = Annotated[StrictInt, Field(ge=1)]

#: Final-ranking tiebreaks (tcec-swiss.md, "Final ranking"); seed ASC always
#: ends the list so the order is total.
Tiebreak = Literal[
    "black-games",
    "sonneborn-berger",
    "buchholz",
    "buchholz-cut1",
    "wins",
    "direct-encounter",
]
DEFAULT_TIEBREAKS: tuple[Tiebreak, ...] = ("black-games", "sonneborn-berger", "wins")


def _resolve(value: Path | None, info: ValidationInfo) -> Path | None:
    """A relative path, made absolute against the config file's directory
    (``context["base_dir"]``); unchanged when there is no context."""
    if value is None:
        return None
    value = value.expanduser()
    base = (info.context or {}).get("base_dir") if isinstance(info.context, dict) else None
    if value.is_absolute() or base is None:
        return value
    # normpath: "configs/../state" reads better as "state" in messages and logs.
    return Path(os.path.normpath(Path(base) / value))


def _resolve_path(value: Path, info: ValidationInfo) -> Path:
    resolved = _resolve(value, info)
    assert resolved is not None
    return resolved


#: A path in the config: relative paths resolve against the config file's folder.
ConfigPath = Annotated[Path, AfterValidator(_resolve_path)]


class _Section(Frozen):
    """A config section: frozen, unknown keys are errors, and each field's
    docstring becomes its description in the JSON Schema (editor hovers;
    :mod:`tcecd.config.schema` reads them there, not pydantic's
    ``use_attribute_docstrings``: that reads and tokenizes this module's
    source at every import, 70 ms of every daemon's and command's start)."""


def _variant_name(value: object) -> object:
    """``variant``: a name of :data:`tcecd.game.chess960.VARIANT_NAMES`
    (``fischerandom`` reads as ``chess960``), any case."""
    if isinstance(value, str):
        from tcecd.game.chess960 import VARIANT_NAMES

        return VARIANT_NAMES.get(value.strip().lower(), value)
    return value


class EventInfo(_Section):
    """What the event is called and where it runs (PGN ``Event`` / ``Site``)."""

    name: Annotated[str, Field(min_length=1, max_length=200)]
    """The event's name (PGN Event tag)."""
    site: Annotated[str, Field(min_length=1)] = "localhost"
    """Where it is played (PGN Site tag)."""


class SeedingConfig(_Section):
    """How seed numbers 1..P are given (tcec-swiss.md, "Players, seeds")."""

    method: Literal["explicit", "rating", "group", "random"] | None = None
    """explicit: the order of `engines`; rating: highest rating first (ties: the order given);
    group: the rule text's group procedure; random: a seeded RNG. Null: the pairing system's
    default (rating for the FIDE systems, explicit otherwise)."""
    groups: Annotated[StrictInt, Field(ge=2)] | None = None
    """Group seeding only: an even number of groups (null: round_to_even(players / 7),
    at least 2)."""
    seed: StrictInt | None = None
    """Random seeding only: the RNG seed (null: chosen at the start and recorded in the event
    state, so a resume replays it)."""

    @model_validator(mode="after")
    def _parameters_fit_method(self) -> SeedingConfig:
        if self.groups is not None:
            if self.method != "group":
                raise ValueError(
                    f"groups: {self.groups!r} is only used by method 'group', "
                    f"not {self.method or 'the default'!r}"
                )
            if self.groups % 2:
                raise ValueError(
                    f"groups: {self.groups!r} is odd; group seeding needs an even number of groups"
                )
        if self.seed is not None and self.method != "random":
            raise ValueError(
                f"seed: {self.seed!r} is only used by method 'random', "
                f"not {self.method or 'the default'!r}"
            )
        return self


def _system_name(value: str) -> str:
    from tcecd.errors import PairingError
    from tcecd.formats.base import check_format_name

    try:
        return check_format_name(value)
    except PairingError as exc:
        raise ValueError(str(exc)) from None


class KnockoutTiebreakConfig(_Section):
    """A cup's tiebreak games: played at their own time control once an
    encounter's ``games`` are played and it is still level."""

    time_control: str
    """The tiebreak games' time control (cutechess style, as `time_control.tc`)."""
    max_games: PositiveInt | None = None
    """At most this many tiebreak games; still level after them, the higher seed advances
    (null: until decided)."""

    @field_validator("time_control")
    @classmethod
    def _a_time_control(cls, value: str) -> str:
        TimeControl.parse(value)  # raises ValueError with a readable message
        return value


def _point_system(value: object) -> object:
    from tcecd.pairing.points import parse_points

    parse_points(value)  # ValueError: the message names what is wrong
    return value


#: A point value in the config: a number (multiples of 0.1).
PointValue = StrictInt | StrictFloat


class PairingConfig(_Section):
    """The pairing system and its parameters."""

    system: Annotated[str, AfterValidator(_system_name)] = "tcec-swiss"
    """The pairing system by name (`tcecd pair --help` lists them): tcec-swiss (the default),
    dutch-2017 (alias dutch), ...; an alias is stored as the system's own name."""
    rounds: PositiveInt | None = None
    """Number of rounds (the TCEC rules suggest an odd number of single rounds, at most about
    players / 2). Required, except for a system whose field fixes it (round-robin)."""
    double: bool = False
    """Double rounds: each pair plays two games with reversed colours and the same opening."""
    seeding: SeedingConfig = SeedingConfig()
    """How seed numbers 1..P are given."""
    tiebreaks: tuple[Tiebreak, ...] = DEFAULT_TIEBREAKS
    """Final-ranking tiebreaks after score and received BYEs, in order; seed ASC always ends the
    list."""
    time_limit_s: Annotated[float, Field(gt=0)] = 10.0
    """The integer-program model's solver limit per round, in seconds: a round not proven
    optimal within it is an error, never a worse pairing. Other systems ignore it."""
    forbidden_pairs: tuple[tuple[str, str], ...] = ()
    """Pairs of engines that must never meet ([[a, b], ...], engine names), such as two
    versions of one engine: an absolute rule, like not meeting twice, for dutch-2017,
    dutch-2012, dubov and integer-program (TCEC Swiss and round-robin cannot honour it)."""
    points: Annotated[str | dict[str, PointValue], AfterValidator(_point_system)] | None = None
    """The point system: 'WIN-DRAW-LOSS' such as '3-1-0' (forfeits and byes follow), or a
    mapping of outcomes (win, draw, loss, forfeit_win, forfeit_loss, pairing_bye, full_bye,
    half_bye, zero_bye; win_white, win_black, draw_white, ... for one colour) to points, in
    multiples of 0.1. Null: 1-0.5-0. Scores, standings and score groups follow it (TCEC Swiss
    cannot honour it)."""
    acceleration: Literal["baku"] | dict[str, tuple[PointValue, ...]] | None = None
    """Accelerated rounds (virtual points for pairing only): 'baku', FIDE's Baku Acceleration
    (C.04.5.1; standard points only), or {engine: [virtual points of round 1, round 2, ...]}.
    Null: none. TCEC Swiss and round-robin cannot honour it."""

    @field_validator("forbidden_pairs", mode="before")
    @classmethod
    def _pairs_of_two(cls, value: object) -> object:
        if isinstance(value, list | tuple):
            for item in value:
                if not isinstance(item, list | tuple) or len(item) != 2:
                    raise ValueError(f"expected pairs of two engine names [a, b], got {item!r}")
        return value

    @field_validator("acceleration", mode="before")
    @classmethod
    def _baku_or_mapping(cls, value: object) -> object:
        if isinstance(value, str) and value != "baku":
            raise ValueError(
                f"expected 'baku' or a mapping of engines to virtual points per round, "
                f"got {value!r}"
            )
        return value
    games: PositiveInt | None = None
    """Knockout only: games per encounter (default 2), played with paired openings; an
    encounter ends as soon as it is decided."""
    tiebreak: KnockoutTiebreakConfig | None = None
    """Knockout only: tiebreak games at their own time control (null: the encounter goes on at
    the event's time control until decided)."""

    @model_validator(mode="after")
    def _knockout_keys(self) -> PairingConfig:
        knockout = self.system == "knockout"
        if not knockout:
            for key in ("games", "tiebreak"):
                if getattr(self, key) is not None:
                    raise ValueError(
                        f"{key}: only a knockout has it (system is {self.system!r})"
                    )
        elif self.double:
            raise ValueError("double: a knockout's encounters set their games with 'games'")
        elif self.rounds is not None:
            raise ValueError(
                f"rounds: {self.rounds!r}; a knockout's field fixes its rounds (leave it out)"
            )
        return self

    @field_validator("tiebreaks")
    @classmethod
    def _no_repeated_tiebreak(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for i, name in enumerate(value):
            if name in value[:i]:
                raise ValueError(f"{name!r} is listed twice")
        return value


class TimeControlConfig(_Section):
    """The time control: a cutechess-style ``tc`` text and/or per-move limits.

    ``tc`` is checked with :meth:`tcecd.game.timecontrol.TimeControl.parse`, so
    a bad time control is an error when the config is loaded.
    """

    tc: str | None = None
    """cutechess-style time control: [moves/]seconds[+increment], stages joined by ':', 'inf' for
    no clock; may add 'nodes=N', 'depth=N', 'st=S'."""
    nodes: PositiveInt | None = None
    """Nodes per move (a search limit, not a clock)."""
    depth: PositiveInt | None = None
    """Search depth per move."""
    movetime_ms: Annotated[StrictInt, Field(ge=1, le=MAX_TIME_MS)] | None = None
    """Fixed think time per move, in milliseconds (at most 24 hours)."""
    margin_ms: Annotated[StrictInt, Field(ge=0)] = 200
    """Tolerance before a flag falls (engine I/O and process scheduling), in milliseconds."""
    stall_grace_ms: Annotated[StrictInt, Field(ge=0, le=MAX_TIME_MS)] = 2_000
    """How long after its flag fell a silent engine is still waited for before it counts as
    stalled (a stall is a fault; an answer within it is a loss on time), in milliseconds."""
    stall_timeout_ms: Annotated[StrictInt, Field(ge=1, le=MAX_TIME_MS)] = 60_000
    """Without a clock (nodes or depth only): how long one move is waited for before the engine
    counts as stalled, in milliseconds."""

    @model_validator(mode="after")
    def _is_a_time_control(self) -> TimeControlConfig:
        self.value()  # raises ValueError with a readable message
        return self

    def value(self) -> TimeControl:
        """The game layer's :class:`TimeControl` (``ValueError`` when invalid)."""
        return time_control_of(self.tc, self.nodes, self.depth, self.movetime_ms)


class DrawAdjudication(_Section):
    """TCEC draw rule: from move ``from_move``, both evals within ±``score``
    pawns for ``moves`` moves each (tcec-formats.md, "Adjudication")."""

    from_move: Annotated[StrictInt, Field(ge=0)] = 35
    """The rule applies from this move number on."""
    score: Annotated[float, Field(ge=0)] = 0.15
    """Both evaluations within plus or minus this many pawns."""
    moves: PositiveInt = 5
    """For this many consecutive moves of each engine."""


class WinAdjudication(_Section):
    """TCEC win rule: both engines agree on ±``score`` pawns for ``moves`` moves each."""

    score: Annotated[float, Field(ge=0.01)] = 10.0
    """Both engines agree one side is ahead by at least this many pawns."""
    moves: PositiveInt = 5
    """For this many consecutive moves of each engine."""


class TablebaseAdjudication(_Section):
    """Syzygy adjudication of positions with at most ``max_pieces`` pieces."""

    path: tuple[ConfigPath, ...]
    """A folder of Syzygy tables, or a list of folders (relative to the config file)."""
    max_pieces: Annotated[StrictInt, Field(ge=3, le=7)] = 6
    """Adjudicate positions with at most this many pieces, kings included."""

    @field_validator("path", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, str | Path) else value

    @field_validator("path")
    @classmethod
    def _not_empty(cls, value: tuple[Path, ...]) -> tuple[Path, ...]:
        if not value:
            raise ValueError("expected at least one directory of Syzygy tables")
        return value


class AdjudicationConfig(_Section):
    """Which adjudication rules apply; ``null`` switches a rule off."""

    draw: DrawAdjudication | None = DrawAdjudication()
    """The draw rule (null: off)."""
    win: WinAdjudication | None = None
    """The win rule (null: off)."""
    tablebases: TablebaseAdjudication | None = None
    """Syzygy tablebase adjudication (null: off)."""
    max_moves: PositiveInt | None = None
    """Draw after this many moves (null: no limit)."""

    @model_validator(mode="after")
    def _win_beyond_draw(self) -> AdjudicationConfig:
        if self.draw is not None and self.win is not None and self.win.score <= self.draw.score:
            raise ValueError(
                f"win.score: {self.win.score!r} must be above draw.score ({self.draw.score!r})"
            )
        return self

    def rules(self) -> AdjudicationRules:
        """The game layer's rules, scores converted from pawns to centipawns."""
        from tcecd.game.adjudication import AdjudicationRules, DrawRule, TablebaseRule, WinRule

        draw = win = tablebase = None
        if self.draw is not None:
            draw = DrawRule(self.draw.from_move, round(self.draw.score * 100), self.draw.moves)
        if self.win is not None:
            win = WinRule(round(self.win.score * 100), self.win.moves)
        if self.tablebases is not None:
            tablebase = TablebaseRule(self.tablebases.max_pieces)
        return AdjudicationRules(draw, win, tablebase, self.max_moves)


class OpeningsBookConfig(_Section):
    """A Polyglot book that extends every EPD/PGN opening, as cutechess's
    ``-book FILE -bookdepth N``: from the opening's position the game follows
    the book until ``depth`` plies or the position is out of book."""

    file: ConfigPath
    """The Polyglot .bin book, relative to the config file."""
    depth: Annotated[StrictInt, Field(ge=1)] | None = None
    """At most this many book plies after the opening (null: while in book)."""
    selection: Literal["weighted", "best"] = "weighted"
    """weighted: at random in proportion to the weights (seeded); best: the highest weight."""
    seed: StrictInt | None = None
    """Seed of the weighted choice (null: the openings' seed, else 0)."""



def _positions(value: object) -> object:
    """``positions``: ``all`` (the 960 Chess960 start positions), or a non-empty
    list of position numbers 0-959 (checked here, so a bad one is named)."""
    if value is None:
        return None
    if isinstance(value, str):
        if value.strip().lower() == "all":
            return "all"
        raise ValueError(
            f"{value!r}: expected 'all' or a list of Chess960 position numbers (0-959)"
        )
    if isinstance(value, list | tuple):
        if not value:
            raise ValueError("an empty list; expected Chess960 position numbers (0-959)")
        for i, number in enumerate(value):
            if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 959:
                raise ValueError(
                    f"item {i}: {number!r} is not a Chess960 position number (0-959)"
                )
        return tuple(value)
    raise ValueError(
        f"{value!r}: expected 'all' or a list of Chess960 position numbers (0-959)"
    )


class OpeningsConfig(_Section):
    """The openings book: each pair (both games of a double round) gets one."""

    file: ConfigPath | None = None
    """The book: an EPD or PGN file, or a Polyglot .bin book, relative to the config file.
    Chess960 (variant chess960): EPD or PGN start positions, castling rights in Shredder-FEN
    (HAha) or X-FEN (KQkq), double Chess960 (each side its own back rank) included."""
    positions: Annotated[Literal["all"] | tuple[int, ...] | None, BeforeValidator(_positions)] = (
        None
    )
    """Chess960 only, instead of a file: start positions by their number (0-959, 518 is the
    standard position), a list played in its order, or 'all' for the 960 positions in
    number order; with order: random (and a seed) they are drawn in a seeded random order."""
    format: Literal["epd", "pgn", "polyglot"] | None = None
    """epd, pgn or polyglot (null: from the file's suffix: .epd, .pgn, .bin)."""
    order: Literal["sequential", "random"] = "sequential"
    """Use the openings in the file's order, or shuffled with `seed` (not used by polyglot)."""
    seed: StrictInt | None = None
    """Random order: the shuffle's seed. Polyglot: the seed of the weighted book choice."""
    plies: Annotated[StrictInt, Field(ge=0)] | None = None
    """PGN books: keep at most this many plies of each opening (null: all).
    Polyglot: the book depth in plies, as cutechess's -bookdepth (null: while in book)."""
    book: OpeningsBookConfig | None = None
    """A Polyglot book that extends each EPD/PGN opening (null: none)."""


    @model_validator(mode="before")
    @classmethod
    def _format_from_suffix(cls, data: object) -> object:
        if isinstance(data, dict) and data.get("format") is None and data.get("file") is not None:
            suffix = Path(str(data["file"])).suffix.lower().lstrip(".")
            formats = {"epd": "epd", "pgn": "pgn", "bin": "polyglot"}
            if suffix not in formats:
                raise ValueError(
                    f"file: cannot tell the format of {str(data['file'])!r}; "
                    # .bin (a Polyglot book) is recognised too; any other name sets 'format'
                    "expected a .epd or .pgn file, or set 'format'"
                )
            data = {**data, "format": formats[suffix]}
        return data

    @model_validator(mode="after")
    def _file_or_positions(self) -> OpeningsConfig:
        if (self.file is None) == (self.positions is None):
            raise ValueError(
                "give either file (an EPD, PGN or Polyglot book) or positions (Chess960 "
                "position numbers, or 'all'), not both"
                if self.file is not None
                else "missing 'file' (an EPD, PGN or Polyglot book) or, in a Chess960 event, "
                "'positions'"
            )
        if self.positions is not None:
            for key in ("format", "plies", "book"):
                if getattr(self, key) is not None:
                    raise ValueError(f"{key}: only an openings file has it (positions are given)")
        return self

    @model_validator(mode="after")
    def _seed_needs_random(self) -> OpeningsConfig:
        if self.seed is not None and self.order != "random" and self.format != "polyglot":
            raise ValueError(f"seed: {self.seed!r} is only used with order 'random'")
        return self

    @model_validator(mode="after")
    def _one_book(self) -> OpeningsConfig:
        if self.book is not None and self.format == "polyglot":
            raise ValueError(
                "book: use either a Polyglot openings file (format 'polyglot') or an EPD/PGN "
                "file with a book, not both"
            )
        return self


class StrikesConfig(_Section):
    """Engine faults (crash, stall, illegal move, time loss by a wide margin):
    ``max`` strikes disqualify an engine; each faulty game is lost or replayed."""

    max: PositiveInt = 3
    """Faults that disqualify an engine."""
    on_fault: Literal["lose", "replay"] = "lose"
    """A faulty game is lost by the faulty engine, or replayed."""


class OutputsConfig(_Section):
    """Where results go. ``state_dir`` is relative to the config file; the
    other paths are relative to ``state_dir`` unless absolute."""

    state_dir: ConfigPath | None = None
    """The event's state folder, relative to the config file (null: state/<config file stem> beside
    it)."""
    pgn: Path = Path("event.pgn")
    """The event PGN, relative to state_dir unless absolute."""
    tcec_json: bool = True
    """Write TCEC-format JSON files."""
    tcec_json_dir: Path = Path("tcec")
    """Folder of the TCEC-format JSON files, relative to state_dir unless absolute."""
    live_interval_ms: Annotated[StrictInt, Field(ge=0, le=60_000)] = 100
    """Least time between two rewrites of the JSON files (live.json, live.pgn, ...): at most ten a
    second by default, however fast the moves come (0: after every move)."""



class TlsConfig(_Section):
    """TLS files for the MQTT connection (relative to the config file)."""

    ca: ConfigPath | None = None
    """CA certificate file."""
    cert: ConfigPath | None = None
    """Client certificate file."""
    key: ConfigPath | None = None
    """Client key file (needs cert)."""
    insecure: bool = False
    """Do not verify the broker's certificate (tests only)."""



#: The MQTT account tcecd makes for itself on its embedded broker (the only one
#: that may publish the event's topics: tcecd.control.acl).
DAEMON_USER = "tcecd-daemon"


class OperatorConfig(_Section):
    """An operator of the console (``tcecd ctl``): an MQTT account that may
    publish commands on the event's ``control`` topic (docs/operations.md)."""

    username: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.@-]{1,64}$")]
    """The operator's MQTT user name (letters, digits, _ . @ -)."""
    password_file: ConfigPath | None = None
    """File holding the operator's password (its first line; mode 600), relative to the config
    file. Required with embedded (tcecd makes the account on its broker); an external broker's
    accounts are the broker's (docs/operations.md)."""


class MqttConfig(_Section):
    """The MQTT broker to publish to. ``mqtt: embedded`` starts a private broker
    (Mosquitto, else amqtt) on a free port; ``mqtt: "mqtt://host"`` is short for
    ``{url: ...}``."""

    url: str | None = None
    """Broker URL: mqtt://[user[:password]@]host[:port] or mqtts:// for TLS (default
    mqtt://127.0.0.1:1883; with embedded: mqtt://127.0.0.1 on a free port)."""
    embedded: bool = False
    """Start a private broker (a Mosquitto child, else amqtt in-process) on the URL's
    host and port (no port or 0: a free one, logged)."""
    embedded_ws_port: Annotated[int, Field(ge=0, le=65535)] | None = 0
    """With embedded: the MQTT-over-websockets port for browsers (0: a free one, logged;
    null: no websockets listener)."""
    embedded_broker: Literal["auto", "mosquitto", "amqtt"] = "auto"
    """With embedded: auto (Mosquitto if installed, else amqtt), mosquitto or amqtt."""
    embedded_public: bool = False
    """With embedded: allow an address other machines reach (the embedded broker takes
    anonymous clients, who may publish what viewers show); refused unless true."""
    client_id: str | None = None
    """MQTT client id (null: generated)."""
    username: str | None = None
    """User name (overrides the URL's)."""
    password: str | None = Field(default=None, repr=False)
    """Password (prefer password_file)."""
    password_file: ConfigPath | None = None
    """File holding the password, relative to the config file."""
    tls: TlsConfig | None = None
    """TLS files and options."""
    topic_prefix: str = "tcecd"
    """Prefix of every topic (no '+', '#' or empty levels)."""
    qos: Annotated[StrictInt, Field(ge=0, le=2)] = 1
    """QoS of results, standings, pairings and status (live moves go at QoS 0)."""
    delivery_timeout_s: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 30.0
    """Seconds tcecd run waits at its end for the broker to acknowledge the results,
    pairings and standings still queued (then warns; they are re-sent on the next start)."""
    operators: tuple[OperatorConfig, ...] = ()
    """Who may send console commands (tcecd ctl): turns the console on. With embedded, tcecd makes
    these accounts on its Mosquitto and lets nobody else publish; with another broker, its ACL
    must (docs/operations.md, "Running a public broadcast")."""


    def __repr_args__(self) -> Any:
        # The URL's password stays out of a repr (logs, tracebacks): issue 28.
        from tcecd.bus.settings import redact_url

        for name, value in super().__repr_args__():
            yield name, redact_url(value) if name == "url" and isinstance(value, str) else value

    @model_validator(mode="after")
    def _valid_settings(self) -> MqttConfig:
        if self.password is not None and self.password_file is not None:
            raise ValueError("give either password or password_file, not both")
        seen: set[str] = set()
        for op in self.operators:
            if op.username in seen:
                raise ValueError(f"operators: {op.username!r} is given twice")
            if op.username == DAEMON_USER:
                raise ValueError(f"operators: {DAEMON_USER!r} is tcecd's own account")
            if self.embedded and op.password_file is None:
                raise ValueError(f"operators: {op.username!r} needs a password_file with "
                                 "embedded (tcecd makes the account on its broker)")
            seen.add(op.username)
        self.settings()  # checks the URL, topic prefix and TLS combination
        return self

    @property
    def effective_url(self) -> str:
        """The URL, or its default (an embedded broker's: a free port)."""
        if self.url is not None:
            return self.url
        return "mqtt://127.0.0.1:0" if self.embedded else "mqtt://127.0.0.1:1883"

    def settings(
        self, password: str | None = None, operator_passwords: dict[str, str] | None = None
    ) -> MqttSettings:
        """The bus layer's settings (``ValueError`` on a bad URL or prefix).
        ``password`` is the content of ``password_file`` when it was read;
        ``operator_passwords`` the operators' (by user name), when read."""
        from tcecd.bus.settings import MqttSettings
        from tcecd.errors import BusError

        overrides: dict[str, object] = {
            "client_id": self.client_id,
            "topic_prefix": self.topic_prefix,
            "qos": self.qos,
            "embedded": self.embedded,
            "embedded_ws_port": self.embedded_ws_port,
            "embedded_broker": self.embedded_broker,
            "embedded_public": self.embedded_public,
            "delivery_timeout_s": self.delivery_timeout_s,
            "operators": tuple(
                (op.username, (operator_passwords or {}).get(op.username))
                for op in self.operators
            ),
        }
        if self.username is not None:
            overrides["username"] = self.username
        secret = self.password if self.password is not None else password
        if secret is not None:
            overrides["password"] = secret
        if self.tls is not None:
            overrides["tls_ca"] = str(self.tls.ca) if self.tls.ca else None
            overrides["tls_cert"] = str(self.tls.cert) if self.tls.cert else None
            overrides["tls_key"] = str(self.tls.key) if self.tls.key else None
            overrides["tls_insecure"] = self.tls.insecure
        try:
            return MqttSettings.from_url(self.effective_url, **overrides)
        except BusError as exc:
            raise ValueError(str(exc)) from None


class ExecutionTlsConfig(_Section):
    """TLS files for a ``tls://`` Dask scheduler (relative to the config file)."""

    ca: ConfigPath
    """CA certificate that signed the scheduler's and workers' certificates."""
    cert: ConfigPath
    """This daemon's client certificate."""
    key: ConfigPath
    """This daemon's client key."""


class ExecutionConfig(_Section):
    """Where games are played: in this process (``local``), or as tasks on the
    workers of a Dask cluster (``dask``; docs/operations.md). With ``dask``,
    engine programs and tablebase paths are paths on the workers."""

    backend: Literal["local", "dask"] = "local"
    """local: in the daemon's process; dask: on the Dask cluster at ``scheduler``."""
    scheduler: str | None = None
    """The Dask scheduler, tcp://HOST:PORT or tls://HOST:PORT (backend dask only)."""
    slots: PositiveInt | None = None
    """Worker resource engine_slots each game holds (null: the engines' larger Threads option, or
    1)."""
    connect_timeout_s: Annotated[float, Field(gt=0)] = 10.0
    """How long to try reaching the scheduler at start before giving up (exit 2)."""
    tls: ExecutionTlsConfig | None = None
    """TLS files for a tls:// scheduler."""
    insecure_tcp: bool = False
    """Allow a plain tcp:// scheduler on a host that is not loopback (refused otherwise: whoever
    reaches the scheduler runs code on the workers, and the daemon unpickles what comes back)."""

    @model_validator(mode="after")
    def _scheduler_fits_backend(self) -> ExecutionConfig:
        if self.backend == "dask":
            if self.scheduler is None:
                raise _at("execution.scheduler", "required with backend 'dask'")
            if not self.scheduler.startswith(("tcp://", "tls://")):
                raise _at(
                    "execution.scheduler",
                    f"{self.scheduler!r} is not a scheduler address; expected tcp://HOST:PORT "
                    "or tls://HOST:PORT",
                )
            if (
                self.scheduler.startswith("tcp://")
                and not self.insecure_tcp
                and not _loopback_address(self.scheduler)
            ):
                # Issue 28: Dask's comms run pickled code both ways (docs/operations.md).
                raise _at(
                    "execution.scheduler",
                    f"{self.scheduler!r} is plain TCP to a host that is not loopback: whoever "
                    "reaches the scheduler runs code on the workers, and the daemon unpickles "
                    "what comes back; use tls:// with execution.tls, or set "
                    "execution.insecure_tcp: true for a network only the cluster reaches",
                )
        elif self.scheduler is not None or self.tls is not None:
            raise _at("execution", "scheduler and tls are for backend 'dask'; backend is 'local'")
        return self


def _loopback_address(address: str) -> bool:
    """Whether a ``tcp://HOST:PORT`` scheduler address names this machine only."""
    from urllib.parse import urlsplit

    from tcecd.bus.settings import is_loopback

    try:
        host = urlsplit(address).hostname
    except ValueError:
        return False
    return host is not None and is_loopback(host)


class LoggingConfig(_Section):
    """Log level and format (auto: console on a terminal, JSON lines otherwise)."""

    level: Literal["debug", "info", "warning", "error"] = "info"
    """Lowest level logged."""
    format: Literal["auto", "json", "console"] = "auto"
    """auto: console on a terminal, JSON lines otherwise."""


class ShutdownConfig(_Section):
    """What the first SIGTERM/SIGINT does: let running games finish, or abort
    them (unfinished games are replayed on resume). A second signal always aborts."""

    on_signal: Literal["finish-game", "abort"] = "finish-game"
    """First SIGTERM/SIGINT: let running games finish, or abort them (replayed on resume). A second
    signal always aborts."""
    grace_s: Annotated[StrictFloat, Field(gt=0, le=MAX_TIME_MS // 1000)] | None = None
    """finish-game: if the running games have not finished this many seconds after the first
    signal, abort them as a second signal would (null: wait for them however long they take)."""


class ForecastConfig(_Section):
    """Live forecasts of the final places (docs/forecast.md), published on MQTT
    (``<prefix>/<event>/forecast``) after every game and every round."""

    simulations: Annotated[int, Field(ge=1, le=1_000_000)] = 1000
    """Simulations of the rest of the event per forecast."""
    top: PositiveInt = 1
    """Report P(top k) for this k (e.g. the promotion places)."""
    seed: int = 0
    """Seed of the simulations: the same event state and seed give the same forecast."""
    prior_sd: Annotated[float, Field(gt=0)] = 100.0
    """How far, in Elo, an engine's true strength may be from its configured rating (the
    standard deviation of the rating prior); smaller trusts the ratings more."""
    workers: Annotated[int, Field(ge=1, le=64)] = 1
    """Worker processes computing the forecast, at the lowest CPU priority."""


class KibitzerConfig(_Section):
    """A kibitzer: an analysis engine that follows a running game and reports
    its evaluation and PV (docs/config.md, "Kibitzers"). Written in the file as
    an ``engines`` entry (a name, a ``{ref: ...}`` mapping or an inline
    definition) with ``board`` and ``nice`` beside its keys."""

    engine: EngineConfig
    """The engine, as an ``engines`` entry gives it (its options: Threads, Hash, ...)."""
    board: PositiveInt = 1
    """Follow the N-th game of the playing order still running (1: the first)."""
    nice: Annotated[StrictInt, Field(ge=0, le=19)] = 19
    """CPU priority of the kibitzer's process (Unix nice, 0-19): by default the lowest, so a
    kibitzer on the games' host only gets CPU time the players leave."""


class EventConfig(_Section):
    """The whole event, parsed once: what :func:`~tcecd.config.load.load_event` returns."""

    #: The YAML file this config came from (not a YAML key).
    source: Path = Field(default=Path("<memory>"), exclude=True)
    event: EventInfo
    """What the event is called and where."""
    variant: Annotated[Literal["standard", "chess960"], BeforeValidator(_variant_name)] = (
        "standard"
    )
    """standard, or chess960 (Fischer Random; fischerandom, cutechess-cli's and fastchess's
    name, is accepted): every game from a Chess960 position of openings (a file, or positions
    by number), the engines told (UCI_Chess960, xboard variant fischerandom)."""
    pairing: PairingConfig
    """The pairing system and its parameters."""
    engines: tuple[EngineConfig, ...]
    engines_dir: ConfigPath | None = None
    """An extra folder of engine definitions, relative to the config file."""
    kibitzers: tuple[KibitzerConfig, ...] = ()
    """Analysis engines that follow the running games (TCEC shows two); written like engines
    entries, with board and nice."""
    time_control: TimeControlConfig
    """The time control."""
    adjudication: AdjudicationConfig = AdjudicationConfig()
    """Adjudication rules."""
    openings: OpeningsConfig | None = None
    """The openings book (null: every game from the start position)."""
    concurrency: PositiveInt = 1
    """Games played at the same time (TCEC plays one)."""
    execution: ExecutionConfig = ExecutionConfig()
    """Where games are played: local (default) or on a Dask cluster."""
    strikes: StrikesConfig = StrikesConfig()
    """What engine faults cost."""
    outputs: OutputsConfig = OutputsConfig()
    """Where results go."""
    mqtt: MqttConfig | None = None
    """The MQTT broker: a mapping, 'embedded', a URL, or null for no MQTT."""
    # The content of mqtt.password_file, read by load_event (never printed).
    mqtt_password: str | None = Field(default=None, repr=False, exclude=True)
    # The operators' passwords (mqtt.operators[].password_file), by user name.
    mqtt_operator_passwords: dict[str, str] | None = Field(
        default=None, repr=False, exclude=True
    )
    logging: LoggingConfig = LoggingConfig()
    """Logging."""
    shutdown: ShutdownConfig = ShutdownConfig()
    """What a signal does."""
    forecast: ForecastConfig | None = None
    """Live forecasts of the final places (null, the default: none). `forecast: {}` turns them
    on with the defaults."""

    @field_validator("mqtt", mode="before")
    @classmethod
    def _mqtt_shorthand(cls, value: object) -> object:
        if value == "embedded":
            return {"embedded": True}
        if isinstance(value, str):
            return {"url": value}
        return value


    @model_validator(mode="after")
    def _consistent(self) -> EventConfig:
        count = len(self.engines)
        if count < 2:
            raise _at(
                "engines",
                f"{count} engine{'s' if count != 1 else ''} given; an event needs at least two",
            )
        seen: dict[str, int] = {}
        for i, engine in enumerate(self.engines):
            if engine.name in seen:
                raise _at(
                    f"engines[{i}]",
                    f"duplicate engine name {engine.name!r} (also engines[{seen[engine.name]}]);"
                    " give one of them another 'name'",
                )
            seen[engine.name] = i
        seeding = self.pairing.seeding
        if self.pairing.rounds is None and self._fixed_rounds() is None:
            raise _at("pairing", "missing required key 'rounds'")
        if self.seeding_method == "rating":
            why = "" if seeding.method else f"(the default of {self.pairing.system}) "
            for i, engine in enumerate(self.engines):
                if engine.rating is None:
                    raise _at(
                        f"engines[{i}]",
                        f"engine {engine.name!r} has no rating; seeding method 'rating' "
                        f"{why}needs one for every engine",
                    )
        if self.forecast is not None and self.pairing.system == "knockout":
            raise _at("forecast", "a knockout has no forecast (it forecasts Swiss and "
                      "round-robin events' final places)")
        if self.forecast is not None and self.forecast.top > count:
            raise _at("forecast.top", f"{self.forecast.top!r} for {count} engines; expected at "
                      "most the number of engines")
        self._variant_fits_openings()
        if seeding.groups is not None and seeding.groups > count:
            raise _at(
                "pairing.seeding.groups",
                f"{seeding.groups!r} groups for {count} engines; expected at most one group "
                "per engine",
            )
        self._check_rules(set(seen))
        return self

    def _check_rules(self, names: set[str]) -> None:
        """``pairing.forbidden_pairs``, ``points`` and ``acceleration``: known
        engines, values the rules allow, and a system that honours them."""
        from tcecd.pairing.points import exact
        from tcecd.pairing.registry import unsupported_rule

        pairing = self.pairing
        known = ", ".join(sorted(names))
        for i, pair in enumerate(pairing.forbidden_pairs):
            for k, name in enumerate(pair):
                if name not in names:
                    raise _at(
                        f"pairing.forbidden_pairs[{i}][{k}]",
                        f"unknown engine {name!r} (engines: {known})",
                    )
            if pair[0] == pair[1]:
                raise _at(f"pairing.forbidden_pairs[{i}]", f"{pair[0]!r} is paired with itself")
        if isinstance(pairing.acceleration, dict):
            for name, row in pairing.acceleration.items():
                if name not in names:
                    raise _at(
                        f"pairing.acceleration.{name}",
                        f"unknown engine {name!r} (engines: {known})",
                    )
                for k, value in enumerate(row):
                    try:
                        exact(value)
                    except ValueError as exc:
                        raise _at(f"pairing.acceleration.{name}[{k}]", str(exc)) from None
                if len(row) > self.rounds:
                    raise _at(
                        f"pairing.acceleration.{name}",
                        f"virtual points for {len(row)} rounds, but the event has {self.rounds}",
                    )
        elif pairing.acceleration == "baku" and not self.point_system().is_standard:
            raise _at(
                "pairing.acceleration",
                "'baku' (FIDE C.04.5.1) applies only to the standard point system "
                f"(win 1, draw 0.5), not {pairing.points!r}",
            )
        used = [
            key
            for key, value in (
                ("forbidden_pairs", pairing.forbidden_pairs),
                ("acceleration", pairing.acceleration),
                ("points", pairing.points is not None and not self.point_system().is_standard),
            )
            if value
        ]
        for key in used:
            if pairing.system == "knockout":
                raise _at(f"pairing.{key}", "a knockout's encounters cannot honour it")
            reason = unsupported_rule(pairing.system, (key,))
            if reason is not None:
                raise _at(f"pairing.{key}", reason)

    def _variant_fits_openings(self) -> None:
        openings = self.openings
        if self.variant == "chess960":
            if openings is None:
                raise _at(
                    "openings",
                    "variant 'chess960' needs its start positions: openings.file (EPD or PGN "
                    "Chess960 positions) or openings.positions (numbers 0-959, or 'all')",
                )
            if openings.format == "polyglot" or openings.book is not None:
                key = "openings.book" if openings.book is not None else "openings.file"
                raise _at(
                    key,
                    "a Polyglot book holds standard-chess positions; variant 'chess960' takes "
                    "EPD or PGN openings, or openings.positions",
                )
        elif openings is not None and openings.positions is not None:
            raise _at(
                "openings.positions",
                "Chess960 position numbers need variant: chess960 (the variant is 'standard')",
            )

    # -- derived values -----------------------------------------------------

    def _fixed_rounds(self) -> int | None:
        if self.pairing.system == "knockout":
            # The bracket's size is the next power of two: one round per halving.
            return (len(self.engines) - 1).bit_length()
        from tcecd.pairing.registry import get_system

        return get_system(self.pairing.system).rounds_for(len(self.engines))

    def format_settings(self) -> FormatSettings:
        """What the event's format is built with (:mod:`tcecd.formats`)."""
        from tcecd.formats.base import FormatSettings

        pairing = self.pairing
        extra: dict[str, Any] = {}
        if pairing.forbidden_pairs or pairing.points is not None or pairing.acceleration:
            # The pairing rules, as the config writes them (tcecd.pairing.points.event_context).
            extra["rules"] = {
                "forbidden_pairs": [list(p) for p in pairing.forbidden_pairs],
                "points": pairing.points,
                "acceleration": pairing.acceleration,
            }
        if pairing.system == "knockout":
            tiebreak = pairing.tiebreak
            extra = {
                "games": pairing.games or 2,
                "tiebreak_time_control": None if tiebreak is None else tiebreak.time_control,
                "tiebreak_max_games": None if tiebreak is None else tiebreak.max_games,
            }
        return FormatSettings(
            system=pairing.system,
            rounds=self.rounds,
            double=pairing.double,
            tiebreaks=tuple(pairing.tiebreaks),
            time_limit_s=pairing.time_limit_s,
            extra=extra,
        )

    @property
    def rounds(self) -> int:
        """The number of rounds: ``pairing.rounds``, or what the system's field fixes."""
        if self.pairing.rounds is not None:
            return self.pairing.rounds
        fixed = self._fixed_rounds()
        assert fixed is not None  # checked when the config was validated
        return fixed

    def point_system(self) -> PointSystem:
        """``pairing.points`` (the standard system when null), in a unit that
        also counts ``pairing.acceleration``'s virtual points exactly."""
        from tcecd.pairing.points import event_point_system

        return event_point_system(self.pairing.points, self.pairing.acceleration)

    def pairing_context(self, players: Sequence[Player]) -> RoundContext:
        """The context every round of the event is paired with (its requested
        byes aside; a tcecd event has none): the event's rounds, white for the
        top seed in round 1, and ``pairing.forbidden_pairs``, ``points`` and
        ``acceleration``. ``players`` are the seeded engines (ids: engine
        names; Baku's group GA is the first half by seed). Standings use
        :meth:`point_system`, the same system."""
        from tcecd.pairing.points import event_context

        pairing = self.pairing
        return event_context(
            players, self.rounds, pairing.forbidden_pairs, pairing.points, pairing.acceleration
        )

    @property
    def seeding_method(self) -> str:
        """``pairing.seeding.method``, or the pairing system's default."""
        if self.pairing.seeding.method is not None:
            return self.pairing.seeding.method
        if self.pairing.system == "knockout":
            return "explicit"  # the config's order, as TCEC's Cup seeds by its list
        from tcecd.pairing.registry import system_info

        return system_info(self.pairing.system).default_seeding

    @property
    def state_dir(self) -> Path:
        """The state directory (absolute when the config came from a file)."""
        if self.outputs.state_dir is not None:
            return self.outputs.state_dir
        return self.source.parent / "state" / self.source.stem

    @property
    def pgn_path(self) -> Path:
        """The event PGN, under the state directory unless absolute."""
        return self.state_dir / self.outputs.pgn

    @property
    def tcec_json_dir(self) -> Path | None:
        """The TCEC-format JSON directory, or None when switched off."""
        return self.state_dir / self.outputs.tcec_json_dir if self.outputs.tcec_json else None

    def time_control_value(self) -> TimeControl:
        """The game layer's :class:`~tcecd.game.timecontrol.TimeControl`."""
        return self.time_control.value()

    def adjudication_rules(self) -> AdjudicationRules:
        """The game layer's :class:`~tcecd.game.adjudication.AdjudicationRules`."""
        return self.adjudication.rules()

    def mqtt_settings(self) -> MqttSettings | None:
        """The bus layer's settings, or None when MQTT is off."""
        if self.mqtt is None:
            return None
        try:
            return self.mqtt.settings(self.mqtt_password, self.mqtt_operator_passwords)
        except ValueError as exc:
            raise ConfigError(f"{self.source}: mqtt: {exc}") from None


def _at(loc: str, message: str) -> ValueError:
    # pydantic reports model-level errors at the model's own location; the key
    # path is carried in the message with a marker that messages.describe()
    # understands ("@key.path: message").
    return ValueError(f"@{loc}: {message}")


def apply_overrides(
    config: EventConfig,
    *,
    state_dir: Path | None = None,
    mqtt_url: str | None = None,
    mqtt_password: str | None = None,
    scheduler: str | None = None,
) -> EventConfig:
    """The config with command-line overrides applied (``tcecd run --state-dir
    DIR --mqtt URL``). A relative ``state_dir`` is relative to the working
    directory, as on any command line. ``mqtt_url`` keeps the config's other
    MQTT settings (prefix, QoS, client id) but never its credentials for
    another broker, and turns the embedded broker off. Raises ConfigError
    naming the option."""
    update: dict[str, Any] = {}
    if scheduler is not None:
        update["execution"] = execution_override(config, scheduler)
    if state_dir is not None:
        update["outputs"] = config.outputs.model_copy(
            update={"state_dir": state_dir.expanduser().absolute()}
        )
    if mqtt_url is not None:
        base = config.mqtt if config.mqtt is not None else MqttConfig()
        fields = base.model_dump()
        fields.update(
            url=mqtt_url, embedded=False, username=None, password=None, password_file=None
        )
        try:
            update["mqtt"] = MqttConfig.model_validate(fields)
        except ValueError as exc:
            from pydantic import ValidationError

            if isinstance(exc, ValidationError):
                msg = exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
            else:
                msg = str(exc)
            raise ConfigError(f"--mqtt: {msg}") from None
        update["mqtt_password"] = mqtt_password
    elif (
        mqtt_password is not None
        and config.mqtt is not None
        and config.mqtt.password is None
        and config.mqtt_password is None
    ):
        # A password from the command line's file or environment fills in one the
        # config does not give; the config's own password or password_file wins.
        update["mqtt_password"] = mqtt_password
    return config.model_copy(update=update) if update else config


def execution_override(config: EventConfig, scheduler: str) -> ExecutionConfig:
    """``execution`` with ``tcecd run --scheduler ADDRESS``: the Dask backend at
    ``ADDRESS``, keeping the config's other execution settings."""
    fields = config.execution.model_dump()
    fields.update(backend="dask", scheduler=scheduler)
    try:
        return ExecutionConfig.model_validate(fields)
    except ValueError as exc:
        from pydantic import ValidationError

        if isinstance(exc, ValidationError):
            msg = exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        else:
            msg = str(exc)
        raise ConfigError(f"--scheduler: {msg.split(': ', 1)[-1]}") from None
