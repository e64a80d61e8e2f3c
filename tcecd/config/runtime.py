"""The event config's runtime sections: outputs, MQTT and its operators,
execution (this host or a Dask cluster), logging, shutdown, forecasts and
kibitzers (pure; :mod:`tcecd.config.event` holds them in the event)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, StrictFloat, StrictInt, model_validator

from tcecd.config.engines import EngineConfig
from tcecd.config.section import ConfigPath, PositiveInt, Section, error_at
from tcecd.game.timecontrol import MAX_TIME_MS

if TYPE_CHECKING:
    from tcecd.bus.settings import MqttSettings

class OutputsConfig(Section):
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



class TlsConfig(Section):
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


class OperatorConfig(Section):
    """An operator of the console (``tcecd ctl``): an MQTT account that may
    publish commands on the event's ``control`` topic (docs/operations.md)."""

    username: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.@-]{1,64}$")]
    """The operator's MQTT user name (letters, digits, _ . @ -)."""
    password_file: ConfigPath | None = None
    """File holding the operator's password (its first line; mode 600), relative to the config
    file. Required with embedded (tcecd makes the account on its broker); an external broker's
    accounts are the broker's (docs/operations.md)."""


class MqttConfig(Section):
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


class ExecutionTlsConfig(Section):
    """TLS files for a ``tls://`` Dask scheduler (relative to the config file)."""

    ca: ConfigPath
    """CA certificate that signed the scheduler's and workers' certificates."""
    cert: ConfigPath
    """This daemon's client certificate."""
    key: ConfigPath
    """This daemon's client key."""


class ExecutionConfig(Section):
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
                raise error_at("execution.scheduler", "required with backend 'dask'")
            if not self.scheduler.startswith(("tcp://", "tls://")):
                raise error_at(
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
                raise error_at(
                    "execution.scheduler",
                    f"{self.scheduler!r} is plain TCP to a host that is not loopback: whoever "
                    "reaches the scheduler runs code on the workers, and the daemon unpickles "
                    "what comes back; use tls:// with execution.tls, or set "
                    "execution.insecure_tcp: true for a network only the cluster reaches",
                )
        elif self.scheduler is not None or self.tls is not None:
            raise error_at(
                "execution", "scheduler and tls are for backend 'dask'; backend is 'local'"
            )
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


class LoggingConfig(Section):
    """Log level and format (auto: console on a terminal, JSON lines otherwise)."""

    level: Literal["debug", "info", "warning", "error"] = "info"
    """Lowest level logged."""
    format: Literal["auto", "json", "console"] = "auto"
    """auto: console on a terminal, JSON lines otherwise."""


class ShutdownConfig(Section):
    """What the first SIGTERM/SIGINT does: let running games finish, or abort
    them (unfinished games are replayed on resume). A second signal always aborts."""

    on_signal: Literal["finish-game", "abort"] = "finish-game"
    """First SIGTERM/SIGINT: let running games finish, or abort them (replayed on resume). A second
    signal always aborts."""
    grace_s: Annotated[StrictFloat, Field(gt=0, le=MAX_TIME_MS // 1000)] | None = None
    """finish-game: if the running games have not finished this many seconds after the first
    signal, abort them as a second signal would (null: wait for them however long they take)."""


class ForecastConfig(Section):
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


class KibitzerConfig(Section):
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
