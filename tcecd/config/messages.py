"""Turn pydantic validation errors into tcecd's one-line config errors.

A raw pydantic error is several lines of library jargon; a user needs
``FILE: key.path: what is wrong with VALUE (what was expected)``. This module
renders the *first* error of a :class:`pydantic.ValidationError` that way, so
every config problem reaches the CLI as one :class:`~tcecd.errors.ConfigError`
line. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from tcecd.errors import ConfigError

Loc = Sequence[int | str]


#: Longest quoted value in a message: a config is hostile input, and a value of
#: megabytes (a 5000-digit number, a list of 100,000 items) must not become the line.
MAX_SHOWN = 200


def shown(value: object) -> str:
    """``repr(value)``, cut to :data:`MAX_SHOWN` characters (``...`` marks the cut),
    with secrets hidden: a URL's password and any ``password`` key's value
    (:func:`redacted`)."""
    text = repr(redacted(value))
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def redacted(value: object) -> object:
    """``value`` with its secrets replaced by ``***`` (issue 28): the password of
    a URL string (``mqtt://user:***@host``) and the value of every ``password``
    key, however deep (a config's nesting is bounded by the YAML reader)."""
    from tcecd.bus.settings import HIDDEN, redact_url

    if isinstance(value, str):
        return redact_url(value) if "//" in value else value
    if isinstance(value, dict):
        return {k: HIDDEN if k == "password" else redacted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redacted(v) for v in value)
    return value


def key_path(loc: Loc) -> str:
    """``("engines", 2, "options")`` -> ``"engines[2].options"``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _parse_path(path: str) -> Loc:
    """``"engines[2].options"`` -> ``("engines", 2, "options")``."""
    out: list[int | str] = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        if name:
            out.append(name)
        for index in rest.rstrip("]").split("]["):
            if index:
                out.append(int(index))
    return tuple(out)


def where(source: Path | str, loc: Loc) -> str:
    """The ``FILE: key.path`` prefix of a config error (just ``FILE`` at the top)."""
    path = key_path(loc)
    return f"{source}: {path}" if path else f"{source}"


def _allowed_keys(model: type[BaseModel] | None, loc: Loc) -> list[str] | None:
    """The keys a mapping at ``loc`` (relative to ``model``) accepts, if known."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        field = current.model_fields.get(part)
        if field is None:
            return None
        current = _model_in(field.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [k for k, f in current.model_fields.items() if not f.exclude]
    return None


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The (first) pydantic model inside a field annotation such as ``X | None``
    or ``tuple[X, ...]``; ``None`` when there is none."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _expected(msg: str) -> str:
    """Rephrase pydantic's "Input should be X" as "expected X"."""
    for prefix in ("Input should be ", "Input should have "):
        if msg.startswith(prefix):
            return "expected " + msg[len(prefix) :]
    return msg[:1].lower() + msg[1:]


def describe(error: ErrorDetails, *, model: type[BaseModel] | None = None) -> tuple[Loc, str]:
    """``(key path, message)`` for one pydantic error, without the file name."""
    loc: Loc = tuple(error["loc"])
    kind = error["type"]
    value = error.get("input")
    if "password" in loc:  # a password of the wrong type is still a password
        from tcecd.bus.settings import HIDDEN

        value = HIDDEN
    if kind == "extra_forbidden":
        parent, key = loc[:-1], loc[-1]
        allowed = _allowed_keys(model, parent)
        hint = f" (expected one of: {', '.join(allowed)})" if allowed else ""
        return parent, f"unknown key {key!r}{hint}"
    if kind == "missing":
        parent, key = loc[:-1], loc[-1]
        return parent, f"missing required key {key!r}"
    if kind == "value_error":
        # Our own validators: the message already names the value.
        msg = error["msg"].removeprefix("Value error, ")
        if msg.startswith("@") and ": " in msg:
            # A cross-field check naming its own (absolute) key path: "@a.b: ...".
            path, _, msg = msg[1:].partition(": ")
            return _parse_path(path), msg
        head, sep, rest = msg.partition(": ")
        if sep and all(part.isidentifier() for part in head.split(".")):
            # "key: ..." or "a.b: ..." from a model-level validator: keys below this model.
            return (*loc, *head.split(".")), rest
        return loc, msg
    if kind == "assertion_error":
        return loc, error["msg"].removeprefix("Assertion failed, ")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return loc, f"expected a mapping of keys to values, got {shown(value)}"
    ctx = error.get("ctx") or {}
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        op = {
            "greater_than_equal": ">=",
            "greater_than": ">",
            "less_than_equal": "<=",
            "less_than": "<",
        }[kind]
        bound = ctx.get({">=": "ge", ">": "gt", "<=": "le", "<": "lt"}[op])
        return loc, f"{shown(value)} is out of range; expected a number {op} {bound}"
    if kind in _TYPE_WORDS:
        return loc, f"expected {_TYPE_WORDS[kind]}, got {shown(value)}"
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        return loc, f"expected a non-empty string, got {shown(value)}"
    return loc, f"{_expected(error['msg'])}, got {shown(value)}"


#: What an error of a pydantic type-check kind expected, in words.
_TYPE_WORDS = {
    "int_parsing": "an integer",
    "int_type": "an integer",
    "int_from_float": "a whole number",
    "float_parsing": "a number",
    "float_type": "a number",
    "bool_parsing": "true or false",
    "bool_type": "true or false",
    "string_type": "a string",
    "path_type": "a path (a string)",
    "list_type": "a list",
    "tuple_type": "a list",
}

#: Member tags pydantic puts in the location of a union's errors.
_UNION_TAGS = {"str": "a string", "int": "an integer", "float": "a number", "bool": "a boolean"}


def _union_error(errors: list[ErrorDetails]) -> tuple[Loc, str] | None:
    """One message for the per-member errors of a failed scalar union (e.g. an
    engine option that is neither string, number nor boolean), or None."""
    first = errors[0]
    loc = tuple(first["loc"])
    if not loc or loc[-1] not in _UNION_TAGS:
        return None
    members = [
        e for e in errors if tuple(e["loc"])[:-1] == loc[:-1] and e["loc"][-1] in _UNION_TAGS
    ]
    if len(members) < 2:
        return None
    words = [_UNION_TAGS[str(e["loc"][-1])] for e in members]
    expected = ", ".join(words[:-1]) + " or " + words[-1]
    return loc[:-1], f"expected {expected}, got {shown(first.get('input'))}"


def from_validation_error(
    exc: ValidationError,
    source: Path | str,
    *,
    prefix: Loc = (),
    model: type[BaseModel] | None = None,
) -> ConfigError:
    """A one-line :class:`ConfigError` for the first error in ``exc``.

    ``prefix`` is prepended to the key path (e.g. ``("engines", 2)`` when an
    inline engine is validated on its own); ``model`` lets an unknown-key error
    list the keys that are allowed.
    """
    errors = exc.errors(include_url=False)
    loc, msg = _union_error(errors) or describe(errors[0], model=model)
    return ConfigError(f"{where(source, (*prefix, *loc))}: {msg}")
