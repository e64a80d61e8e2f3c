"""The broker password on the command line, without putting it in the process list.

A password written into ``--mqtt mqtt://user:secret@host`` is visible to every
local user in ``ps``. ``tcecd run``, ``watch`` and ``replay --publish`` also take
it from a file (``--mqtt-password-file FILE``) or from the environment
(``TCECD_MQTT_PASSWORD``); a password in the URL itself still wins, and an event
config keeps its own ``mqtt.password_file``.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import MutableMapping
from pathlib import Path

from tcecd.bus.settings import MqttSettings

#: The environment variable holding the broker password.
PASSWORD_ENV = "TCECD_MQTT_PASSWORD"


def add_password_file_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--mqtt-password-file FILE``."""
    parser.add_argument(
        "--mqtt-password-file",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"read the broker password from FILE (else from ${PASSWORD_ENV}); "
        "keeps it out of the process list",
    )


def command_line_password(
    args: argparse.Namespace, environ: MutableMapping[str, str]
) -> str | None:
    """The password from ``--mqtt-password-file`` (its first line), else from
    :data:`PASSWORD_ENV`, else None; an unreadable file is one line naming it.

    The variable is removed from ``environ`` (the daemon's ``os.environ``) once
    read, so that nothing the daemon starts afterwards inherits it (engines get
    an allowlisted environment anyway: :func:`tcecd.runner.process.engine_env`).
    """
    from_env = environ.pop(PASSWORD_ENV, None) or None
    path: Path | None = args.mqtt_password_file
    if path is not None:
        from tcecd.config.event_file import read_password_file

        return read_password_file(path, "--mqtt-password-file")
    return from_env


def with_password(settings: MqttSettings, password: str | None) -> MqttSettings:
    """``settings`` with ``password`` filled in, unless they already have one."""
    if password is None or settings.password is not None:
        return settings
    return dataclasses.replace(settings, password=password)
