"""The event config: one YAML file describing a whole event, as frozen models.

Every section is a frozen pydantic model with ``extra="forbid"`` (an unknown
key is an error naming it): the event, seeding and pairing sections are here,
the game's in :mod:`tcecd.config.game`, the runtime's (outputs, MQTT,
execution, ...) in :mod:`tcecd.config.runtime`. :class:`EventConfig` is the
parsed, resolved whole: engine references are already
:class:`~tcecd.config.engines.EngineConfig` values and relative paths are
absolute (resolved against the config file's directory; outputs against the
state directory). Nothing downstream reads raw dicts.

This module is pure: reading the YAML and the engine definitions, and checking
that files exist, is :func:`tcecd.config.event_file.load_event`'s job. Relative paths
are resolved during validation from ``context={"base_dir": DIR}``.

Scores in the YAML are in pawns (``0.15``), as TCEC writes them; the
conversions to the game layer's values (:meth:`EventConfig.adjudication_rules`)
turn them into centipawns.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    StrictFloat,
    StrictInt,
    field_validator,
    model_validator,
)

from tcecd.config.engines import EngineConfig
from tcecd.config.game import (
    AdjudicationConfig,
    OpeningsConfig,
    StrikesConfig,
    TimeControlConfig,
)
from tcecd.config.runtime import (
    ExecutionConfig,
    ForecastConfig,
    KibitzerConfig,
    LoggingConfig,
    MqttConfig,
    OutputsConfig,
    ShutdownConfig,
)
from tcecd.config.section import ConfigPath, PositiveInt, Section, error_at
from tcecd.errors import ConfigError
from tcecd.game.timecontrol import TimeControl

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tcecd.bus.settings import MqttSettings
    from tcecd.formats.base import FormatSettings
    from tcecd.game.adjudication import AdjudicationRules
    from tcecd.pairing.base import Player, RoundContext
    from tcecd.pairing.points import PointSystem

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


def _variant_name(value: object) -> object:
    """``variant``: a name of :data:`tcecd.game.chess960.VARIANT_NAMES`
    (``fischerandom`` reads as ``chess960``), any case."""
    if isinstance(value, str):
        from tcecd.game.chess960 import VARIANT_NAMES

        return VARIANT_NAMES.get(value.strip().lower(), value)
    return value


class EventInfo(Section):
    """What the event is called and where it runs (PGN ``Event`` / ``Site``)."""

    name: Annotated[str, Field(min_length=1, max_length=200)]
    """The event's name (PGN Event tag)."""
    site: Annotated[str, Field(min_length=1)] = "localhost"
    """Where it is played (PGN Site tag)."""


class SeedingConfig(Section):
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


class KnockoutTiebreakConfig(Section):
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


class PairingConfig(Section):
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


class EventConfig(Section):
    """The whole event, parsed once: what :func:`~tcecd.config.event_file.load_event` returns."""

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
            raise error_at(
                "engines",
                f"{count} engine{'s' if count != 1 else ''} given; an event needs at least two",
            )
        seen: dict[str, int] = {}
        for i, engine in enumerate(self.engines):
            if engine.name in seen:
                raise error_at(
                    f"engines[{i}]",
                    f"duplicate engine name {engine.name!r} (also engines[{seen[engine.name]}]);"
                    " give one of them another 'name'",
                )
            seen[engine.name] = i
        seeding = self.pairing.seeding
        if self.pairing.rounds is None and self._fixed_rounds() is None:
            raise error_at("pairing", "missing required key 'rounds'")
        if self.seeding_method == "rating":
            why = "" if seeding.method else f"(the default of {self.pairing.system}) "
            for i, engine in enumerate(self.engines):
                if engine.rating is None:
                    raise error_at(
                        f"engines[{i}]",
                        f"engine {engine.name!r} has no rating; seeding method 'rating' "
                        f"{why}needs one for every engine",
                    )
        if self.forecast is not None and self.pairing.system == "knockout":
            raise error_at("forecast", "a knockout has no forecast (it forecasts Swiss and "
                      "round-robin events' final places)")
        if self.forecast is not None and self.forecast.top > count:
            raise error_at(
                "forecast.top",
                f"{self.forecast.top!r} for {count} engines; expected at most the number of "
                "engines",
            )
        self._variant_fits_openings()
        if seeding.groups is not None and seeding.groups > count:
            raise error_at(
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
                    raise error_at(
                        f"pairing.forbidden_pairs[{i}][{k}]",
                        f"unknown engine {name!r} (engines: {known})",
                    )
            if pair[0] == pair[1]:
                raise error_at(
                    f"pairing.forbidden_pairs[{i}]", f"{pair[0]!r} is paired with itself"
                )
        if isinstance(pairing.acceleration, dict):
            for name, row in pairing.acceleration.items():
                if name not in names:
                    raise error_at(
                        f"pairing.acceleration.{name}",
                        f"unknown engine {name!r} (engines: {known})",
                    )
                for k, value in enumerate(row):
                    try:
                        exact(value)
                    except ValueError as exc:
                        raise error_at(f"pairing.acceleration.{name}[{k}]", str(exc)) from None
                if len(row) > self.rounds:
                    raise error_at(
                        f"pairing.acceleration.{name}",
                        f"virtual points for {len(row)} rounds, but the event has {self.rounds}",
                    )
        elif pairing.acceleration == "baku" and not self.point_system().is_standard:
            raise error_at(
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
                raise error_at(f"pairing.{key}", "a knockout's encounters cannot honour it")
            reason = unsupported_rule(pairing.system, (key,))
            if reason is not None:
                raise error_at(f"pairing.{key}", reason)

    def _variant_fits_openings(self) -> None:
        openings = self.openings
        if self.variant == "chess960":
            if openings is None:
                raise error_at(
                    "openings",
                    "variant 'chess960' needs its start positions: openings.file (EPD or PGN "
                    "Chess960 positions) or openings.positions (numbers 0-959, or 'all')",
                )
            if openings.format == "polyglot" or openings.book is not None:
                key = "openings.book" if openings.book is not None else "openings.file"
                raise error_at(
                    key,
                    "a Polyglot book holds standard-chess positions; variant 'chess960' takes "
                    "EPD or PGN openings, or openings.positions",
                )
        elif openings is not None and openings.positions is not None:
            raise error_at(
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
