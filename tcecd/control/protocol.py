"""The console's wire protocol: what an operator may send, checked strictly. Pure.

A command is one MQTT message on ``<prefix>/<event>/control``::

    {"id": "c-7f3a", "command": "adjudicate",
     "args": {"game": "3.2", "result": "1/2-1/2", "reason": "hardware fault"}}

and its answer one message on ``<prefix>/<event>/control/reply/<id>``:
``{"id", "ok", "error"}`` or ``{"id", "ok", "effect"}`` (docs/events.md,
"The console"). A payload without a usable id is answered on
``control/error``.

:func:`parse_command` is the only door: a payload over :data:`MAX_PAYLOAD`
bytes, not UTF-8 JSON, nested too deep, with an unknown key, an unknown
command or an argument of the wrong type or size is a :class:`Rejected` value
(with the id, when one could be read), never an exception: a hostile or
broken payload cannot stop the daemon. Strings must be printable (no control
or bidi characters: they end up in PGN tags and logs). What the command
means for the event (is there such a game, such an engine?) is the
console's to decide (:mod:`tcecd.control.console`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

#: Largest payload read, in bytes (a ``replace`` with a long command line fits).
MAX_PAYLOAD = 16 * 1024
#: A command id: it becomes a topic level, so no ``/``, ``+``, ``#`` or NUL.
ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
#: Longest reason kept (PGN tags and the audit log carry it).
MAX_REASON = 500
#: Most games at once ``concurrency`` accepts.
MAX_CONCURRENCY = 64

#: The commands, in the order the docs list them.
COMMANDS = (
    "status", "pause", "resume", "stop", "restart-game", "adjudicate", "withdraw", "replace",
    "concurrency",
)  # fmt: skip

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_GAME = r"^[1-9][0-9]{0,5}\.[1-9][0-9]{0,5}$"


def _printable(value: str) -> str:
    if _UNPRINTABLE.search(value):
        raise ValueError("contains a control character")
    return value


Text = Annotated[str, Field(strict=True, max_length=MAX_REASON)]
Name = Annotated[str, Field(strict=True, min_length=1, max_length=64)]
GameText = Annotated[str, Field(strict=True, pattern=_GAME)]
OptionValue = Annotated[str, Field(strict=True, max_length=1024)] | bool | int | float


class _Args(BaseModel):
    """Arguments: typed, nothing unknown, strings printable."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_control_characters(cls, value: Any) -> Any:
        if isinstance(value, str):
            return _printable(value)
        if isinstance(value, tuple | list):
            for item in value:
                if isinstance(item, str):
                    _printable(item)
        if isinstance(value, dict):
            for k, v in value.items():
                _printable(k)
                if isinstance(v, str):
                    _printable(v)
        return value


class NoArgs(_Args):
    """``status``."""


class ReasonArgs(_Args):
    """``pause``, ``resume``, ``stop``."""

    reason: Text = ""


class RestartArgs(_Args):
    game: GameText
    reason: Annotated[Text, Field(min_length=1)]


class AdjudicateArgs(_Args):
    game: GameText
    result: Literal["1-0", "0-1", "1/2-1/2"]
    reason: Annotated[Text, Field(min_length=1)]


class WithdrawArgs(_Args):
    engine: Name
    reason: Annotated[Text, Field(min_length=1)]


class ReplaceArgs(_Args):
    engine: Name
    #: The new program and its arguments (argv, never a shell string).
    command: Annotated[
        list[Annotated[str, Field(strict=True, min_length=1, max_length=4096)]],
        Field(min_length=1, max_length=64),
    ] | None = None
    #: Options to set (on top of the engine's).
    options: Annotated[dict[Name, OptionValue], Field(max_length=64)] = {}
    reason: Text = ""


class ConcurrencyArgs(_Args):
    concurrency: Annotated[int, Field(strict=True, ge=1, le=MAX_CONCURRENCY)]


_ARGS: dict[str, type[_Args]] = {
    "status": NoArgs,
    "pause": ReasonArgs,
    "resume": ReasonArgs,
    "stop": ReasonArgs,
    "restart-game": RestartArgs,
    "adjudicate": AdjudicateArgs,
    "withdraw": WithdrawArgs,
    "replace": ReplaceArgs,
    "concurrency": ConcurrencyArgs,
}


class _Envelope(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    id: Annotated[str, Field(strict=True, pattern=ID_PATTERN)]
    command: Annotated[str, Field(strict=True, max_length=32)]
    args: dict[str, Any] = {}


@dataclass(frozen=True, slots=True)
class Command:
    """A well-formed command: its id, name and checked arguments."""

    id: str
    name: str
    args: _Args

    def args_json(self) -> dict[str, object]:
        """The arguments as the audit log keeps them (JSON data)."""
        data: dict[str, object] = self.args.model_dump(mode="json")
        return data


@dataclass(frozen=True, slots=True)
class Rejected:
    """A payload that is not a command: why, with the id and the command's
    name when they could be read (else None and ``"?"``)."""

    id: str | None
    name: str
    error: str
    args: dict[str, object]


def parse_command(payload: bytes | bytearray) -> Command | Rejected:
    """The command in ``payload``, or why it is not one (module docstring)."""
    if len(payload) > MAX_PAYLOAD:
        return Rejected(None, "?", f"payload of {len(payload)} bytes is over the limit of "
                        f"{MAX_PAYLOAD}", {})  # fmt: skip
    try:
        doc = json.loads(bytes(payload).decode("utf-8"))
    except UnicodeDecodeError:
        return Rejected(None, "?", "payload is not UTF-8 text", {})
    except RecursionError:
        return Rejected(None, "?", "payload is nested too deep", {})
    except ValueError as exc:
        return Rejected(None, "?", f"payload is not JSON: {exc}", {})
    if not isinstance(doc, dict):
        return Rejected(None, "?", "payload is not a JSON object", {})
    ident = doc.get("id")
    good_id = ident if isinstance(ident, str) and re.fullmatch(ID_PATTERN, ident) else None
    name = doc.get("command")
    shown = name if isinstance(name, str) and name in _ARGS else "?"
    try:
        envelope = _Envelope.model_validate(doc)
    except ValidationError as exc:
        return Rejected(good_id, shown, _first_error(exc, "payload"), {})
    model = _ARGS.get(envelope.command)
    if model is None:
        return Rejected(envelope.id, "?", f"unknown command {_shown(envelope.command)} "
                        f"(known: {', '.join(COMMANDS)})", {})  # fmt: skip
    try:
        args = model.model_validate(envelope.args)
    except ValidationError as exc:
        return Rejected(envelope.id, envelope.command, _first_error(exc, "args"), {})
    return Command(envelope.id, envelope.command, args)


def _shown(value: str) -> str:
    """A string from a payload as an error message may show it."""
    return repr(_UNPRINTABLE.sub("\ufffd", value[:40]))


def _first_error(exc: ValidationError, where: str) -> str:
    """One line: where the first problem is and what it is (never the value)."""
    err = exc.errors(include_url=False, include_input=False)[0]
    loc = ".".join(str(p) for p in err["loc"]) if err["loc"] else ""
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "unknown key"
    return f"{where}.{loc}: {msg}" if loc else f"{where}: {msg}"


def reply_document(body: dict[str, object], ts: str) -> dict[str, object]:
    """The reply's payload: the common fields and ``{"id", "ok", "error"|"effect"}``."""
    return {"schema": 1, "type": "reply", "ts": ts, **body}


def command_payload(ident: str, name: str, args: dict[str, object]) -> bytes:
    """What ``tcecd ctl`` publishes."""
    return json.dumps({"id": ident, "command": name, "args": args},
                      separators=(",", ":")).encode()  # fmt: skip
