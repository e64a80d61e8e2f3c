"""Reading an event config file: :func:`load_event` reads the YAML, resolves
its engine entries and kibitzers (:mod:`tcecd.config.load`), validates it into
an :class:`~tcecd.config.event.EventConfig` and checks the files it names.
Every problem is a one-line :class:`~tcecd.errors.ConfigError` naming the
file, the key path and the bad value."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from tcecd.config.engines import EngineConfig
from tcecd.config.load import (
    EXTRA_BIN_DIRS,
    EngineRef,
    EngineRefError,
    engine_from_mapping,
    event_keys,
    load_engine,
)
from tcecd.config.messages import from_validation_error, where
from tcecd.config.messages import shown as short_repr
from tcecd.config.yaml_file import read_yaml, show_path
from tcecd.errors import ConfigError

if TYPE_CHECKING:
    from tcecd.config.event import EventConfig

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
    if raw.get("kibitzers", ()) is None:
        raw["kibitzers"] = []  # a key written with no value: no kibitzers
    entries: dict[str, Callable[..., object]] = {
        "engines": _engine_entry,
        "kibitzers": _kibitzer_entry,
    }
    for key, entry in entries.items():
        if key not in raw:
            continue
        items = raw[key]
        if not isinstance(items, list):
            raise ConfigError(
                f"{source}: {key}: expected a list of engines, got {short_repr(items)}"
            )
        search_dirs = _engine_search_dirs(raw, base_dir, source)
        raw[key] = [
            entry(item, i, source=source, base_dir=base_dir, search_dirs=search_dirs)
            for i, item in enumerate(items)
        ]
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
        from tcecd.config.overrides import execution_override

        execution = execution_override(config, scheduler)
        config = config.model_copy(update={"execution": execution})
    return _check_files(config, source)
