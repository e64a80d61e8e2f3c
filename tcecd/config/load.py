"""Reading engine definitions: the only place (with :mod:`tcecd.config.event`'s
``load_event``) where config files are read.

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

import yaml
from pydantic import ValidationError

import tcecd
from tcecd.config.engines import EngineConfig
from tcecd.config.messages import from_validation_error, where
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
    """Absolute path of program ``name`` on ``PATH`` or in :data:`EXTRA_BIN_DIRS`."""
    found = shutil.which(name)
    if found is not None:
        return Path(os.path.abspath(found))  # not resolve(): keep venv symlinks
    for directory in EXTRA_BIN_DIRS:
        candidate = directory / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def show_path(path: Path) -> str:
    """A path as a user would type it: relative to the working directory when
    below it, absolute otherwise."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def read_yaml(path: Path) -> object:
    """Parse one YAML file; unreadable files and syntax errors are one-line
    :class:`ConfigError` s (with the line number for syntax errors)."""
    shown = show_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{shown}: is a directory, expected a YAML file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read: {exc.strerror}") from None
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = exc.problem or exc.context or "syntax error"
        raise ConfigError(f"{shown}: {line}invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{shown}: invalid YAML: {exc}") from None


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
            f"(argv, never a shell string), got {command!r}"
        )
    if isinstance(command, list | tuple):
        raw["command"] = [
            expand_placeholders(item, here) if isinstance(item, str) else item
            for item in command
        ]
    workdir = raw.get("workdir")
    if isinstance(workdir, str):
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
            f"got {data!r}"
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
    return EngineConfig(name=absolute.stem or absolute.name, command=command)


def search_path(search_dirs: Sequence[Path] = ()) -> tuple[Path, ...]:
    """The dirs searched for ``<name>.yaml``: the given ones, then the bundled
    ``engines/`` folder (without duplicates, order kept)."""
    out: list[Path] = []
    for directory in (*search_dirs, DEFAULT_ENGINES_DIR):
        if directory not in out:
            out.append(directory)
    return tuple(out)


class UnknownEngine(ConfigError):
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
    if path.is_file():
        if path.suffix in YAML_SUFFIXES:
            return load_engine_file(path)
        if path.suffix == ".py" or os.access(path, os.X_OK):
            return engine_from_executable(path)
        raise ConfigError(f"engine {ref!r}: {show_path(path)} is neither YAML nor executable")
    if not looks_like_path:
        program = find_executable(ref)
        if program is not None:
            return EngineConfig(name=ref, command=(str(program),))
    if looks_like_path:
        raise UnknownEngine(f"unknown engine {ref!r} (no such file)")
    looked = ", ".join(show_path(d).rstrip("/") + "/" for d in search_path(search_dirs))
    raise UnknownEngine(f"unknown engine {ref!r} (looked in {looked})")
