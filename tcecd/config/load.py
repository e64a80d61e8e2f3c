"""Reading engine definitions: with :mod:`tcecd.config.event_file` (the event
config) the only place where config files are read (both through
:func:`tcecd.config.yaml_file.read_yaml`).

An engine *reference* is one of:

* a definition name, found as ``<dir>/<name>.yaml`` in the search dirs (the
  caller's dirs first, then the project's bundled ``engines/`` folder);
* a path to a YAML definition file;
* a path to an executable (or a ``.py`` script, run under this interpreter),
  which becomes a minimal UCI engine named after the file;
* as a last resort, a bare program name found on ``PATH`` or in the Debian
  directories ``/usr/games``, ``/usr/local/games``, ``/usr/sbin`` (a minimal UCI
  engine as well).

In a definition file, ``command`` items and ``workdir`` may use the
placeholders ``{python}`` (this interpreter, so bundled Python engines run
under the venv) and ``{here}`` (the directory of the YAML file). A bare program
name as the first ``command`` item is resolved to its absolute path when it
can be found, because Debian installs engines in ``/usr/games`` which is often
not on ``PATH``.

Every problem is a one-line :class:`~tcecd.errors.ConfigError` naming the
file, the key path and the bad value.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated

from pydantic import Field, StrictInt, ValidationError, field_validator, model_validator

import tcecd
from tcecd.config.engines import (
    EngineConfig,
    Frozen,
    OptionValue,
    check_engine_name,
    time_control_of,
)
from tcecd.config.messages import from_validation_error, where
from tcecd.config.messages import shown as short_repr
from tcecd.config.yaml_file import read_yaml, show_path
from tcecd.errors import ConfigError

#: The bundled engine definitions: ``<project>/engines``.
DEFAULT_ENGINES_DIR = Path(tcecd.__file__).resolve().parents[1] / "engines"

#: Where Debian puts engines and brokers; searched after ``PATH``.
EXTRA_BIN_DIRS: tuple[Path, ...] = (
    Path("/usr/games"),
    Path("/usr/local/games"),
    Path("/usr/sbin"),
    Path("/usr/local/sbin"),
)

YAML_SUFFIXES = (".yaml", ".yml")


def find_executable(name: str) -> Path | None:
    """Absolute path of program ``name`` on ``PATH`` or in :data:`EXTRA_BIN_DIRS`.

    Never in the working directory (under systemd, the state directory): an
    empty or relative ``PATH`` entry (``::``, ``.``), which would name it, is
    skipped, as Go's ``exec.LookPath`` refuses such results (issue 28). A
    program in the working directory is named with a path: ``./engine``."""
    if "/" in name or not name:
        return None
    found = shutil.which(name, path=_absolute_path_entries())
    if found is not None:
        return Path(os.path.abspath(found))  # not resolve(): keep venv symlinks
    for directory in EXTRA_BIN_DIRS:
        candidate = directory / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _absolute_path_entries() -> str:
    """``PATH`` without its empty and relative entries."""
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join(e for e in entries if os.path.isabs(e))


def expand_placeholders(text: str, here: Path) -> str:
    """Replace ``{python}`` and ``{here}`` in one command item or workdir."""
    return text.replace("{python}", sys.executable).replace("{here}", str(here))


def resolve_command(command: Sequence[str]) -> tuple[str, ...]:
    """The command with a bare program name (no ``/``) replaced by its absolute
    path when it can be found; left as written otherwise (a remote engine's
    program lives on another host)."""
    if not command:
        return tuple(command)
    program = command[0]
    if "/" not in program:
        found = find_executable(program)
        if found is not None:
            return (str(found), *command[1:])
    return tuple(command)


def engine_from_mapping(
    data: Mapping[str, object],
    *,
    source: Path | str,
    here: Path,
    prefix: tuple[int | str, ...] = (),
    default_name: str | None = None,
) -> EngineConfig:
    """Validate one engine definition given as a mapping (a definition file's
    content or an inline event entry). Placeholders are expanded relative to
    ``here``; errors name ``source`` and the key path under ``prefix``."""
    raw = dict(data)
    if default_name is not None:
        raw.setdefault("name", default_name)
    command = raw.get("command")
    if isinstance(command, str):
        # A shell string would be split wrongly on quoted spaces; be explicit.
        raise ConfigError(
            f"{where(source, (*prefix, 'command'))}: expected a list of arguments "
            f"(argv, never a shell string), got {short_repr(command)}"
        )
    if isinstance(command, list | tuple):
        raw["command"] = [
            expand_placeholders(item, here) if isinstance(item, str) else item for item in command
        ]
    workdir = raw.get("workdir")
    # A remote engine's workdir is a path on the far host: leave it as written.
    if isinstance(workdir, str) and raw.get("remote") is None:
        expanded = Path(expand_placeholders(workdir, here))
        raw["workdir"] = str(expanded if expanded.is_absolute() else here / expanded)
    try:
        engine = EngineConfig.model_validate(raw)
    except ValidationError as exc:
        raise from_validation_error(exc, source, prefix=prefix, model=EngineConfig) from None
    if engine.remote is None:
        engine = engine.model_copy(update={"command": resolve_command(engine.command)})
    return engine


def load_engine_file(path: Path) -> EngineConfig:
    """Load one engine definition file (``name`` defaults to the file's stem)."""
    data = read_yaml(path)
    shown = show_path(path)
    if not isinstance(data, dict):
        raise ConfigError(
            f"{shown}: expected a mapping of engine keys (name, command, protocol, ...), "
            f"got {short_repr(data)}"
        )
    return engine_from_mapping(
        data, source=shown, here=path.resolve().parent, default_name=path.stem
    )


def engine_from_executable(path: Path) -> EngineConfig:
    """A minimal UCI engine for an executable (``.py`` scripts run under this
    interpreter), named after the file."""
    absolute = path.resolve()
    if absolute.suffix == ".py":
        command: tuple[str, ...] = (sys.executable, str(absolute))
    else:
        command = (str(absolute),)
    return _minimal_engine(absolute.stem or absolute.name, command, str(path))


def _minimal_engine(name: str, command: tuple[str, ...], ref: str) -> EngineConfig:
    """A minimal UCI engine named after its program; a name that is no valid
    engine name (longer than 64 characters) is a :class:`EngineRefError`."""
    try:
        return EngineConfig(name=name, command=command)
    except ValidationError as exc:
        detail = from_validation_error(exc, f"engine {ref!r}", model=EngineConfig)
        raise EngineRefError(
            f"{detail} (the name comes from the program's file name; "
            "write a definition with a shorter 'name')"
        ) from None


def search_path(search_dirs: Sequence[Path] = ()) -> tuple[Path, ...]:
    """The dirs searched for ``<name>.yaml``: the given ones, then the bundled
    ``engines/`` folder (without duplicates, order kept)."""
    out: list[Path] = []
    for directory in (*search_dirs, DEFAULT_ENGINES_DIR):
        if directory not in out:
            out.append(directory)
    return tuple(out)


class EngineRef(Frozen):
    """An ``engines`` item reusing a definition: ``{ref: stockfish, name: sf-fast,
    options: {Threads: 1}}``. Options are merged over the definition's; the
    engine's own limits (``tc``, ``nodes``, ``depth``, ``movetime_ms``), when
    any is given, replace the definition's and the event's time control."""

    ref: str
    name: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    options: dict[str, OptionValue] = Field(default_factory=dict)
    rating: StrictInt | None = None
    tc: str | None = None
    nodes: Annotated[int, Field(ge=1)] | None = None
    depth: Annotated[int, Field(ge=1)] | None = None
    movetime_ms: Annotated[int, Field(ge=1)] | None = None

    @field_validator("name")
    @classmethod
    def _name_survives_a_pgn(cls, name: str | None) -> str | None:
        return None if name is None else check_engine_name(name)

    @model_validator(mode="after")
    def _limits_are_a_time_control(self) -> EngineRef:
        if self.limits() is not None:
            time_control_of(self.tc, self.nodes, self.depth, self.movetime_ms)
        return self

    def limits(self) -> dict[str, object] | None:
        """The entry's own limits as EngineConfig fields, None when it gives none."""
        limits: dict[str, object] = {"tc": self.tc, "nodes": self.nodes, "depth": self.depth,
                  "movetime_ms": self.movetime_ms}  # fmt: skip
        return limits if any(v is not None for v in limits.values()) else None


def event_keys() -> tuple[str, ...]:
    """The keys of an event config file (for "unknown key" messages)."""
    from tcecd.config.event import EventConfig

    return tuple(k for k, f in EventConfig.model_fields.items() if not f.exclude)


class EngineRefError(ConfigError):
    """An engine reference cannot be used (the caller adds where it was written)."""


class UnknownEngine(EngineRefError):
    """An engine reference names no definition, file or program."""


def load_engine(ref: str, *, search_dirs: Sequence[Path] = ()) -> EngineConfig:
    """Resolve an engine reference (see the module docstring) to its config.

    Raises :class:`UnknownEngine` (a :class:`ConfigError`) saying where it
    looked, or a :class:`ConfigError` for a broken definition file.
    """
    if not ref.strip():
        raise ConfigError(f"empty engine reference {ref!r}")
    looks_like_path = "/" in ref or ref.endswith(YAML_SUFFIXES) or ref.startswith(".")
    if not looks_like_path:
        for directory in search_path(search_dirs):
            for suffix in YAML_SUFFIXES:
                candidate = directory / f"{ref}{suffix}"
                if candidate.is_file():
                    return load_engine_file(candidate)
    path = Path(ref).expanduser()
    # A bare name is never looked up in the working directory (issue 28): it is a
    # definition's name or a program on PATH; a file there is named as one
    # (./engine, or a name ending in .yaml/.yml).
    if looks_like_path and path.is_file():
        if path.suffix in YAML_SUFFIXES:
            return load_engine_file(path)
        if path.suffix == ".py" or os.access(path, os.X_OK):
            return engine_from_executable(path)
        raise ConfigError(f"engine {ref!r}: {show_path(path)} is neither YAML nor executable")
    if not looks_like_path:
        program = find_executable(ref)
        if program is not None:
            return _minimal_engine(ref, (str(program),), ref)
    if looks_like_path:
        raise UnknownEngine(f"unknown engine {ref!r} (no such file)")
    looked = ", ".join(show_path(d).rstrip("/") + "/" for d in search_path(search_dirs))
    hint = ""
    if path.is_file():
        hint = f"; a file in the working directory is named with a path: './{ref}'"
    raise UnknownEngine(f"unknown engine {ref!r} (looked in {looked}{hint})")
