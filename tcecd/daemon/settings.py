"""What the daemon needs from an event config, as one flat frozen value.

:func:`from_config` is the only place that reads the config model
(:class:`tcecd.config.load.EventConfig`), so the daemon's logic depends on this
small value rather than on the config's nesting.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tcecd.config.engines import EngineConfig
from tcecd.execution import ExecutionSettings
from tcecd.forecast.forecast import ForecastSettings
from tcecd.forecast.model import ModelSettings
from tcecd.formats.base import FormatSettings
from tcecd.game.rules import GameRules

if TYPE_CHECKING:
    from tcecd.bus.settings import MqttSettings
    from tcecd.config.event import EventConfig


@dataclass(frozen=True)
class KibitzerSettings:
    """One kibitzer (:mod:`tcecd.daemon.kibitzer`): its engine, the game it
    follows (the ``board``-th running game of the playing order) and its CPU
    priority (Unix nice)."""

    engine: EngineConfig
    board: int = 1
    nice: int = 19


@dataclass(frozen=True)
class RunSettings:
    """Everything ``tcecd run`` acts on. Paths are absolute."""

    event: str
    site: str
    engines: tuple[EngineConfig, ...]
    #: The event's format (``pairing.system`` and its parameters: rounds, ...).
    format: FormatSettings
    #: How every game is played and judged (from the config to the game, unchanged).
    rules: GameRules
    state_dir: Path
    pgn_path: Path
    #: Where schedule.json, crosstable.json and live.json go (None: not written).
    json_dir: Path | None = None
    #: Least time between two writes of the JSON files (FileWriter.interval_s), ms.
    live_interval_ms: int = 100
    seeding: str = "explicit"
    seeding_groups: int | None = None
    seeding_seed: int | None = None
    openings_file: Path | None = None
    #: Chess960 start positions by number instead of a file ("all": 0..959).
    openings_positions: tuple[int, ...] | Literal["all"] | None = None
    openings_format: Literal["epd", "pgn", "polyglot"] | None = None
    openings_order: Literal["sequential", "random"] = "sequential"
    openings_seed: int = 0
    openings_plies: int | None = None
    #: A Polyglot book extending each EPD/PGN opening (None: none).
    openings_book_file: Path | None = None
    openings_book_depth: int | None = None
    openings_book_selection: Literal["weighted", "best"] = "weighted"
    openings_book_seed: int | None = None
    concurrency: int = 1
    strikes_max: int = 3
    #: How often a game is played again after a fault under the ``replay`` policy
    #: before its last attempt is played under ``lose`` (None: until strikes
    #: disqualify the offender; ``tcecd play``: a few times).
    max_replays: int | None = None
    #: Commits and PGN appends are fsync'd (False: a scratch state thrown away
    #: at the end, ``tcecd play`` without ``--state``: a crash loses it anyway).
    durable: bool = True
    mqtt: MqttSettings | None = None
    log_level: str = "info"
    log_format: Literal["auto", "json", "console"] = "auto"
    on_signal: Literal["finish-game", "abort"] = "finish-game"
    #: finish-game: abort the running games this long after the first signal (None: wait).
    shutdown_grace_s: float | None = None
    fingerprint: dict[str, object] = field(default_factory=dict)
    #: Where games are played (tcecd.execution; docs/config.md ``execution:``).
    execution: ExecutionSettings = field(default_factory=ExecutionSettings)
    #: live forecasts (tcecd.forecast; None: off)
    forecast: ForecastSettings | None = None
    forecast_workers: int = 1
    #: Analysis engines following the running games, on this host (none: no kibitzers).
    kibitzers: tuple[KibitzerSettings, ...] = ()


def from_config(config: EventConfig) -> RunSettings:
    """Flatten a loaded, overridden :class:`EventConfig` into :class:`RunSettings`."""
    from tcecd.config.fingerprint import config_fingerprint

    seeding = config.pairing.seeding
    openings = config.openings
    book = None if openings is None else openings.book
    tablebases = config.adjudication.tablebases
    return RunSettings(
        event=config.event.name,
        site=config.event.site,
        engines=tuple(config.engines),
        format=config.format_settings(),
        rules=GameRules(
            time_control=config.time_control_value(),
            margin_ms=config.time_control.margin_ms,
            adjudication=config.adjudication_rules(),
            fault_policy=config.strikes.on_fault,
            tablebase_path=(
                None if tablebases is None else os.pathsep.join(str(p) for p in tablebases.path)
            ),
            stall_grace_ms=config.time_control.stall_grace_ms,
            stall_timeout_ms=config.time_control.stall_timeout_ms,
            variant=config.variant,
        ),
        state_dir=config.state_dir,
        pgn_path=config.pgn_path,
        json_dir=config.tcec_json_dir,
        live_interval_ms=config.outputs.live_interval_ms,
        seeding=config.seeding_method,
        seeding_groups=seeding.groups,
        seeding_seed=seeding.seed,
        openings_file=None if openings is None else openings.file,
        openings_positions=None if openings is None else openings.positions,
        openings_format=None if openings is None else openings.format,
        openings_order="sequential" if openings is None else openings.order,
        openings_seed=0 if openings is None or openings.seed is None else openings.seed,
        openings_plies=None if openings is None else openings.plies,
        openings_book_file=None if book is None else book.file,
        openings_book_depth=None if book is None else book.depth,
        openings_book_selection="weighted" if book is None else book.selection,
        openings_book_seed=None if book is None else book.seed,
        concurrency=config.concurrency,
        strikes_max=config.strikes.max,
        mqtt=config.mqtt_settings(),
        log_level=config.logging.level,
        log_format=config.logging.format,
        on_signal=config.shutdown.on_signal,
        shutdown_grace_s=config.shutdown.grace_s,
        fingerprint=dict(config_fingerprint(config)),
        forecast=None if config.forecast is None else ForecastSettings(
            simulations=config.forecast.simulations,
            top=config.forecast.top,
            seed=config.forecast.seed,
            model=ModelSettings(prior_sd=config.forecast.prior_sd),
        ),
        forecast_workers=1 if config.forecast is None else config.forecast.workers,
        execution=_execution(config),
        kibitzers=tuple(
            KibitzerSettings(k.engine, board=k.board, nice=k.nice) for k in config.kibitzers
        ),
    )


def _execution(config: EventConfig) -> ExecutionSettings:
    ex = config.execution
    tls = ex.tls
    return ExecutionSettings(
        backend=ex.backend,
        scheduler=ex.scheduler,
        slots=ex.slots,
        connect_timeout_s=ex.connect_timeout_s,
        tls_ca=None if tls is None else str(tls.ca),
        tls_cert=None if tls is None else str(tls.cert),
        tls_key=None if tls is None else str(tls.key),
    )
