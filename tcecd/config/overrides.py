"""Command-line overrides of an event config (``tcecd run --state-dir DIR
--mqtt URL --scheduler ADDRESS``): a new :class:`~tcecd.config.event.EventConfig`
from a validated one, each changed section validated again. Pure: no files
are read here (the password's file is read by the caller)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tcecd.config.event import EventConfig
from tcecd.config.runtime import ExecutionConfig, MqttConfig
from tcecd.errors import ConfigError


def _message(exc: ValueError) -> str:
    """The first of pydantic's messages, without its "Value error, " prefix."""
    if isinstance(exc, ValidationError):
        return str(exc.errors(include_url=False)[0]["msg"]).removeprefix("Value error, ")
    return str(exc)


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
            raise ConfigError(f"--mqtt: {_message(exc)}") from None
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
        raise ConfigError(f"--scheduler: {_message(exc).split(': ', 1)[-1]}") from None
