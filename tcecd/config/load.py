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
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import yaml
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
from tcecd.errors import ConfigError

if TYPE_CHECKING:
    # Imported where an event is loaded: building the event config's models is
    # most of the import time of ``tcecd play``, which loads engines only.
    from tcecd.config.event import EventConfig

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


def show_path(path: Path) -> str:
    """A path as a user would type it: relative to the working directory when
    below it, absolute otherwise."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


#: Limits on a YAML file (configs and engine definitions are hostile input: a
#: tiny file must not exhaust memory, time or the stack). A real config is a
#: few kilobytes, a few levels deep, a few hundred values.
MAX_YAML_CHARS = 1_000_000
MAX_YAML_DEPTH = 64
#: Values a document may hold with every alias expanded to its full size (an
#: "alias bomb" of nine nested anchors expands 9**9 times).
MAX_YAML_VALUES = 100_000


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key repeated in one mapping is an
    error (PyYAML keeps the last one silently: a pasted second ``pairing:``
    would quietly replace the first), and that the document's nesting depth
    and its size with aliases expanded are bounded (:data:`MAX_YAML_DEPTH`,
    :data:`MAX_YAML_VALUES`; a recursive alias is refused). PyYAML's composer
    recurses once per level: without the depth bound a deep file ends in a
    ``RecursionError``; without the size bound an alias bomb in gigabytes."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        #: Expanded size of every finished node, by id (the nodes stay alive in the tree).
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        mark = event.start_mark
        if isinstance(event, yaml.AliasEvent):
            anchor = event.anchor
            target = self.anchors.get(anchor)
            if target is not None and id(target) not in self._sizes:
                raise yaml.composer.ComposerError(
                    None, None, f"alias *{anchor} refers to a value that contains it", mark
                )
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"nested more than {MAX_YAML_DEPTH} levels deep", mark
                )
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node is not None and id(node) not in self._sizes:
            size = 1
            if isinstance(node, yaml.SequenceNode):
                size += sum(self._sizes.get(id(child), 1) for child in node.value)
            elif isinstance(node, yaml.MappingNode):
                size += sum(
                    self._sizes.get(id(k), 1) + self._sizes.get(id(v), 1) for k, v in node.value
                )
            if size > MAX_YAML_VALUES:
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    f"more than {MAX_YAML_VALUES} values once aliases are expanded",
                    mark,
                )
            self._sizes[id(node)] = size
        return node


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[object, object]:
    loader.flatten_mapping(node)
    seen: set[object] = set()
    for key_node, _value in node.value:
        key = loader.construct_object(key_node)
        try:
            duplicate = key in seen
        except TypeError:  # an unhashable key; the constructor reports it
            continue
        if duplicate:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return dict(loader.construct_pairs(node))


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)

#: Longest integer literal accepted (Python refuses to convert over 4300 digits,
#: with a ValueError that would otherwise escape as a traceback).
MAX_INT_CHARS = 100


def _construct_int(loader: _StrictLoader, node: yaml.ScalarNode) -> int:
    if len(str(node.value)) > MAX_INT_CHARS:
        raise yaml.constructor.ConstructorError(
            None, None, f"a number of more than {MAX_INT_CHARS} characters", node.start_mark
        )
    value: int = loader.construct_yaml_int(node)
    return value


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def read_yaml(path: Path) -> object:
    """Parse one YAML file; unreadable files and syntax errors are one-line
    :class:`ConfigError` s (with the line number for syntax errors)."""
    shown = show_path(path)
    try:
        with path.open(encoding="utf-8") as handle:
            text = handle.read(MAX_YAML_CHARS + 1)
    except FileNotFoundError:
        raise ConfigError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{shown}: is a directory, expected a YAML file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read: {exc.strerror}") from None
    if len(text) > MAX_YAML_CHARS:
        raise ConfigError(f"{shown}: larger than {MAX_YAML_CHARS} characters; not a config")
    try:
        return yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = exc.problem or exc.context or "syntax error"
        raise ConfigError(f"{shown}: {line}invalid YAML: {problem}") from None
    except yaml.reader.ReaderError as exc:  # a control character: PyYAML's text is two lines
        raise ConfigError(
            f"{shown}: invalid YAML: unacceptable character {chr(exc.character)!r} "
            f"at position {exc.position}"
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{shown}: invalid YAML: {' '.join(str(exc).split())}") from None


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


# -- the event config ---------------------------------------------------------------


def _engine_search_dirs(raw: dict[str, object], base_dir: Path, source: str) -> list[Path]:
    """``engines_dir`` (if given, relative to the config), then ``<config dir>/engines``."""
    dirs: list[Path] = []
    extra = raw.get("engines_dir")
    if extra is not None:
        if not isinstance(extra, str):
            raise ConfigError(
                f"{source}: engines_dir: expected a directory path, got {short_repr(extra)}"
            )
        directory = Path(extra).expanduser()
        directory = directory if directory.is_absolute() else base_dir / directory
        if not directory.is_dir():
            raise ConfigError(f"{source}: engines_dir: {extra!r} is not a directory ({directory})")
        dirs.append(directory)
    dirs.append(base_dir / "engines")
    return dirs


def _engine_entry(
    item: object,
    index: int,
    *,
    source: str,
    base_dir: Path,
    search_dirs: Sequence[Path],
    key: str = "engines",
) -> EngineConfig:
    """One item of ``engines`` (or of ``key``): a reference, ``{ref: ...,
    name/options/rating}`` overriding a definition, or an inline definition."""
    prefix: tuple[int | str, ...] = (key, index)
    here = where(source, prefix)
    if isinstance(item, str):
        try:
            return load_engine(item, search_dirs=search_dirs)
        except EngineRefError as exc:
            raise ConfigError(f"{here}: {exc}") from None
    if not isinstance(item, dict):
        raise ConfigError(
            f"{here}: expected an engine name, a {{ref: ...}} mapping or an inline "
            f"definition, got {short_repr(item)}"
        )
    if "ref" not in item:
        return engine_from_mapping(item, source=source, here=base_dir, prefix=prefix)
    try:
        entry = EngineRef.model_validate(item)
    except ValidationError as exc:
        raise from_validation_error(exc, source, prefix=prefix, model=EngineRef) from None
    try:
        engine = load_engine(entry.ref, search_dirs=search_dirs)
    except EngineRefError as exc:
        raise ConfigError(f"{where(source, (*prefix, 'ref'))}: {exc}") from None
    update: dict[str, object] = {"options": {**engine.options, **entry.options}}
    if entry.name is not None:
        update["name"] = entry.name
    if entry.rating is not None:
        update["rating"] = entry.rating
    limits = entry.limits()
    if limits is not None:
        update.update(limits)  # all four: the entry's limits replace the definition's
    # Validated again as a whole (model_copy would not): the overrides obey the
    # definition's rules too (a name of 1-64 characters, no managed option).
    try:
        return EngineConfig.model_validate({**engine.model_dump(), **update})
    except ValidationError as exc:
        raise from_validation_error(exc, source, prefix=prefix, model=EngineConfig) from None


#: The keys of a ``kibitzers`` item that are not an engine's.
KIBITZER_KEYS = ("board", "nice")
#: An engine entry's own limits: a kibitzer analyses without any.
_LIMIT_KEYS = ("tc", "nodes", "depth", "movetime_ms")


def _kibitzer_entry(
    item: object, index: int, *, source: str, base_dir: Path, search_dirs: Sequence[Path]
) -> dict[str, object]:
    """One item of ``kibitzers``: an ``engines`` entry (the same three forms,
    loaded by the same code) with ``board`` and ``nice`` beside its keys; as the
    mapping :class:`~tcecd.config.runtime.KibitzerConfig` validates."""
    own: dict[str, object] = {}
    if isinstance(item, dict):
        item = dict(item)
        for name in _LIMIT_KEYS:
            if name in item:
                raise ConfigError(
                    f"{where(source, ('kibitzers', index, name))}: a kibitzer analyses "
                    "without a limit (go infinite); remove it"
                )
        own = {k: item.pop(k) for k in KIBITZER_KEYS if k in item}
        model = EngineRef if "ref" in item else EngineConfig
        keys = [k for k in model.model_fields if k not in _LIMIT_KEYS] + list(KIBITZER_KEYS)
        unknown = next((k for k in item if k not in keys), None)
        if unknown is not None:
            raise ConfigError(
                f"{where(source, ('kibitzers', index))}: unknown key {str(unknown)!r} "
                f"(expected one of: {', '.join(keys)})"
            )
    engine = _engine_entry(
        item, index, source=source, base_dir=base_dir, search_dirs=search_dirs, key="kibitzers"
    )
    if engine.has_own_limits:
        # From the definition the entry names: a kibitzer has no use for them.
        engine = engine.model_copy(
            update={"tc": None, "nodes": None, "depth": None, "movetime_ms": None}
        )
    return {"engine": engine, **own}


def check_state_dir(state_dir: Path, key: str) -> None:
    """The state directory is a directory, or can be made one: its nearest
    existing ancestor is a directory (a file there would only fail at run time)."""
    if state_dir.exists():
        if not state_dir.is_dir():
            raise ConfigError(f"{key}: {str(state_dir)!r} is not a directory")
        return
    for parent in state_dir.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(
                    f"{key}: {str(state_dir)!r} cannot be created: {str(parent)!r} is not a "
                    "directory"
                )
            return


def _check_files(config: EventConfig, source: str) -> EventConfig:
    """The checks that need the file system: programs, tables, books, secrets."""
    # On a Dask cluster the engines and tables are on the workers (docs/operations.md).
    on_workers = config.execution.backend == "dask"
    for i, engine in enumerate(config.engines):
        if engine.remote is not None or on_workers:
            continue
        program = Path(engine.command[0])
        # A bare name left as written was not found on PATH (resolve_command);
        # the working directory is not searched (find_executable).
        bare = "/" not in engine.command[0]
        if bare or not (program.is_file() and os.access(program, os.X_OK)):
            dirs = ", ".join(str(d) for d in EXTRA_BIN_DIRS[:3])
            raise ConfigError(
                f"{where(source, ('engines', i, 'command'))}: program {engine.command[0]!r} "
                f"of engine {engine.name!r} not found or not executable "
                f"(searched PATH, {dirs})"
            )
        if engine.workdir is not None and not Path(engine.workdir).is_dir():
            # Otherwise the engine would fail every start with "cannot run ...":
            # a misleading disqualification in the middle of the event.
            raise ConfigError(
                f"{where(source, ('engines', i, 'workdir'))}: {engine.workdir!r} of engine "
                f"{engine.name!r} does not exist or is not a directory"
            )
    check_state_dir(config.state_dir, where(source, ("outputs", "state_dir")))
    tables = config.adjudication.tablebases
    if tables is not None and not on_workers:
        for j, directory in enumerate(tables.path):
            key = where(source, ("adjudication", "tablebases", "path", j))
            if not directory.is_dir():
                raise ConfigError(f"{key}: {str(directory)!r} does not exist or is not a directory")
            if not any(directory.glob("*.rtbw")):
                raise ConfigError(f"{key}: no Syzygy tables (*.rtbw) in {str(directory)!r}")
    if config.openings is not None:
        files: list[tuple[tuple[str, ...], Path]] = []
        if config.openings.file is not None:
            files.append((("openings", "file"), config.openings.file))
        if config.openings.book is not None:
            files.append((("openings", "book", "file"), config.openings.book.file))
        for keys, path in files:
            key = where(source, keys)
            if not path.is_file():
                raise ConfigError(f"{key}: {str(path)!r} does not exist or is not a file")
            if not os.access(path, os.R_OK):
                raise ConfigError(f"{key}: {str(path)!r} is not readable")
    mqtt_config = config.mqtt
    if mqtt_config is not None:
        if mqtt_config.tls is not None:
            for name in ("ca", "cert", "key"):
                tls_file: Path | None = getattr(mqtt_config.tls, name)
                if tls_file is not None and not tls_file.is_file():
                    raise ConfigError(
                        f"{where(source, ('mqtt', 'tls', name))}: {str(tls_file)!r} does not exist"
                    )
        if mqtt_config.password_file is not None:
            key = where(source, ("mqtt", "password_file"))
            secret = read_password_file(mqtt_config.password_file, key)
            config = config.model_copy(update={"mqtt_password": secret})
        secrets: dict[str, str] = {}
        for i, op in enumerate(mqtt_config.operators):
            if op.password_file is not None:
                key = where(source, ("mqtt", "operators", i, "password_file"))
                secrets[op.username] = read_password_file(op.password_file, key)
        if secrets:
            config = config.model_copy(update={"mqtt_operator_passwords": secrets})
    return config


#: Bytes of a password file read at most: its first line is the password.
MAX_PASSWORD_FILE_BYTES = 4096


def read_password_file(path: Path, key: str) -> str:
    """The password in ``path``: its first line, without the line end.

    A config is hostile input too (issue 28): the file it names is sent to the
    broker it names, so only a file that is a secret by its permissions is read:
    a regular file (not a FIFO, device or directory: opened without blocking,
    then checked on the open descriptor) that neither its group nor others may
    read, write or run (``chmod 600``, as ssh wants of a private key). Only the
    first :data:`MAX_PASSWORD_FILE_BYTES` bytes are read, and only the first line
    is used. Any problem is one :class:`ConfigError` naming ``key`` and the file,
    never its content."""
    shown = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise ConfigError(f"{key}: cannot read {shown!r}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{key}: {shown!r} is not a regular file")
        mode = stat.S_IMODE(info.st_mode)
        if mode & 0o077:
            raise ConfigError(
                f"{key}: {shown!r} can be read by other users (mode {mode:04o}); "
                f"make it readable by its owner only: chmod 600 {shown}"
            )
        data = os.read(fd, MAX_PASSWORD_FILE_BYTES)
    except OSError as exc:
        raise ConfigError(f"{key}: cannot read {shown!r}: {exc.strerror}") from None
    finally:
        os.close(fd)
    first = data.split(b"\n", 1)[0].rstrip(b"\r")
    try:
        return first.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{key}: {shown!r}: the first line is not UTF-8 text") from None


def load_event(path: Path, *, scheduler: str | None = None) -> EventConfig:
    """Read, validate and resolve an event config file.

    Engine references are resolved through :func:`load_engine` (search order:
    ``engines_dir``, ``<config dir>/engines``, the bundled ``engines/``), relative
    paths against the config file's directory, and the files the event needs
    (engine programs, tablebases, openings, TLS files, password file) are
    checked. Every problem is one :class:`ConfigError` line. ``scheduler``
    (``tcecd run --scheduler``) selects the Dask backend before the checks: its
    engine programs and tablebases are the workers' to have, not this host's.
    """
    from tcecd.config.event import EventConfig

    source = show_path(path)
    data = read_yaml(path)
    if data is None:
        raise ConfigError(f"{source}: the file is empty; expected an event config mapping")
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of event keys, got {short_repr(data)}")
    raw: dict[str, object] = {str(k): v for k, v in data.items()}
    for internal in ("source", "mqtt_password", "mqtt_operator_passwords"):
        if internal in raw:
            raise ConfigError(
                f"{source}: unknown key {internal!r} (expected one of: {', '.join(event_keys())})"
            )
    base_dir = path.resolve().parent
    if "engines" in raw:
        items = raw["engines"]
        if not isinstance(items, list):
            raise ConfigError(
                f"{source}: engines: expected a list of engines, got {short_repr(items)}"
            )
        search_dirs = _engine_search_dirs(raw, base_dir, source)
        raw["engines"] = [
            _engine_entry(item, i, source=source, base_dir=base_dir, search_dirs=search_dirs)
            for i, item in enumerate(items)
        ]
    if "kibitzers" in raw and raw["kibitzers"] is not None:
        items = raw["kibitzers"]
        if not isinstance(items, list):
            raise ConfigError(
                f"{source}: kibitzers: expected a list of engines, got {short_repr(items)}"
            )
        search_dirs = _engine_search_dirs(raw, base_dir, source)
        raw["kibitzers"] = [
            _kibitzer_entry(item, i, source=source, base_dir=base_dir, search_dirs=search_dirs)
            for i, item in enumerate(items)
        ]
    elif "kibitzers" in raw:
        raw["kibitzers"] = []
    raw["source"] = path
    try:
        config = EventConfig.model_validate(raw, context={"base_dir": base_dir})
    except ValidationError as exc:
        raise from_validation_error(exc, source, model=EventConfig) from None
    if config.outputs.state_dir is None:
        # Default: "state/<config stem>" beside the config file, made absolute
        # here so the daemon's working directory does not matter.
        outputs = config.outputs.model_copy(update={"state_dir": base_dir / "state" / path.stem})
        config = config.model_copy(update={"outputs": outputs})
    if scheduler is not None:
        from tcecd.config.event import execution_override

        execution = execution_override(config, scheduler)
        config = config.model_copy(update={"execution": execution})
    return _check_files(config, source)
