"""What every section of the event config shares: the frozen base model, the
path type resolved against the config file's folder, and the error naming a
key path (pure, like :mod:`tcecd.config.event`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field, StrictInt, ValidationInfo

from tcecd.config.engines import Frozen

PositiveInt = Annotated[StrictInt, Field(ge=1)]

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


class Section(Frozen):
    """A config section: frozen, unknown keys are errors, and each field's
    docstring becomes its description in the JSON Schema (editor hovers;
    :mod:`tcecd.config.schema` reads them there, not pydantic's
    ``use_attribute_docstrings``: that reads and tokenizes this module's
    source at every import, 70 ms of every daemon's and command's start)."""


def error_at(loc: str, message: str) -> ValueError:
    """The error for a model-level check, at the key path ``loc``: pydantic
    reports model-level errors at the model's own location, so the key
    path is carried in the message with a marker that messages.describe()
    understands ("@key.path: message")."""
    return ValueError(f"@{loc}: {message}")
