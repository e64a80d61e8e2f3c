"""Engine references: definition names, YAML paths, executables, placeholders."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tcecd.config.load import DEFAULT_ENGINES_DIR, UnknownEngine, load_engine, load_engine_file
from tcecd.errors import ConfigError


def test_bundled_definition_runs_under_this_interpreter() -> None:
    engine = load_engine("ab-d2")
    assert engine.name == "ab-d2"
    assert engine.protocol == "uci"
    assert engine.command[0] == sys.executable
    assert engine.command[1] == str(DEFAULT_ENGINES_DIR / "abengine.py")
    assert Path(engine.command[1]).is_file()


def test_search_dirs_come_before_the_bundled_ones(tmp_path: Path) -> None:
    (tmp_path / "ab-d2.yaml").write_text(
        "name: mine\ncommand: ['{python}', '{here}/x.py']\nworkdir: '{here}'\n",
        encoding="utf-8",
    )
    engine = load_engine("ab-d2", search_dirs=[tmp_path])
    assert engine.name == "mine"
    assert engine.command == (sys.executable, f"{tmp_path}/x.py")
    assert engine.workdir == str(tmp_path)


def test_yaml_path_and_default_name(tmp_path: Path) -> None:
    path = tmp_path / "my-engine.yml"
    path.write_text("command: ['{python}', '-u']\nprotocol: xboard\n", encoding="utf-8")
    for engine in (load_engine(str(path)), load_engine_file(path)):
        assert engine.name == "my-engine"  # the file's stem
        assert engine.protocol == "xboard"
        assert engine.command == (sys.executable, "-u")


def test_executable_and_script_paths(tmp_path: Path) -> None:
    program = tmp_path / "toy-engine"
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    engine = load_engine(str(program))
    assert engine.name == "toy-engine"
    assert engine.protocol == "uci"
    assert engine.command == (str(program.resolve()),)

    script = tmp_path / "pyeng.py"
    script.write_text("print('hi')\n", encoding="utf-8")
    engine = load_engine(str(script))
    assert engine.name == "pyeng"
    assert engine.command == (sys.executable, str(script.resolve()))


def test_bare_program_name_is_found_in_debian_dirs(tmp_path: Path) -> None:
    """A definition whose command is a bare name gets the absolute path, also
    when the program lives in /usr/games (often not on PATH)."""
    if not Path("/usr/games/stockfish").is_file():
        pytest.skip("stockfish is not installed in /usr/games")
    path = tmp_path / "sf.yaml"
    path.write_text("command: [stockfish]\n", encoding="utf-8")
    old_path = os.environ.get("PATH", "")
    try:
        os.environ["PATH"] = "/usr/bin:/bin"
        assert load_engine_file(path).command == ("/usr/games/stockfish",)
    finally:
        os.environ["PATH"] = old_path


def test_unknown_reference_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # dirs below the working directory are shown relative
    with pytest.raises(ConfigError) as info:
        load_engine("no-such-engine-xyz", search_dirs=[tmp_path / "defs"])
    assert str(info.value) == (
        f"unknown engine 'no-such-engine-xyz' (looked in defs/, {DEFAULT_ENGINES_DIR}/)"
    )
    with pytest.raises(ConfigError) as info:
        load_engine(str(tmp_path / "gone.yaml"))
    assert str(info.value) == f"unknown engine '{tmp_path}/gone.yaml' (no such file)"


def test_bad_definition_names_file_key_and_value(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("command: ['{python}']\nstartup_timeout_ms: -5\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_engine_file(path)
    assert str(info.value) == (
        f"{path}: startup_timeout_ms: -5 is out of range; expected a number >= 1"
    )
    path.write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_engine_file(path)
    assert str(info.value) == (
        f"{path}: expected a mapping of engine keys (name, command, protocol, ...), "
        "got ['just', 'a list']"
    )


def test_non_executable_file_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "notes.txt"
    data.write_text("x\n", encoding="utf-8")
    data.chmod(0o644)
    with pytest.raises(ConfigError) as info:
        load_engine(str(data))
    assert str(info.value) == f"engine '{data}': {data} is neither YAML nor executable"


def test_remote_workdir_is_kept_as_written(tmp_path: Path) -> None:
    """Relative workdirs resolve against the YAML's folder for local engines
    only; for a remote engine the path belongs to the far host."""
    (tmp_path / "far.yaml").write_text(
        "command: [./sf]\nworkdir: engines/sf\nremote: {host: engine-box}\n"
    )
    (tmp_path / "near.yaml").write_text(
        f"command: [{sys.executable!r}]\nworkdir: engines/sf\n"
    )
    assert load_engine_file(tmp_path / "far.yaml").workdir == "engines/sf"
    assert load_engine_file(tmp_path / "near.yaml").workdir == str(tmp_path / "engines/sf")


# -- issue 28: a bare name is never looked up in the working directory -------------------------


def _planted(directory: Path, name: str = "planted-engine-xyz") -> Path:
    """An executable in ``directory`` that a bare name must not reach."""
    program = directory / name
    program.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    program.chmod(0o755)
    return program


def test_a_bare_name_is_not_looked_up_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under systemd the working directory is the state directory: a file
    planted there must not become the engine a config names by a bare name."""
    program = _planted(tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnknownEngine) as info:
        load_engine(program.name, search_dirs=[tmp_path / "defs"])
    assert "'./planted-engine-xyz'" in str(info.value)  # says how to name it
    # Named with a path it is taken, as before.
    assert load_engine(f"./{program.name}").command == (str(program),)


def test_empty_and_relative_path_entries_are_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PATH=/usr/bin:`` (a trailing colon) or ``.`` in PATH would name the
    working directory: those entries are not searched."""
    from tcecd.config.load import find_executable

    program = _planted(tmp_path)
    monkeypatch.chdir(tmp_path)
    for path in ("/usr/bin:", ".:/usr/bin", "/usr/bin::/bin", "sub/..:/bin"):
        monkeypatch.setenv("PATH", path)
        assert find_executable(program.name) is None, path
    monkeypatch.setenv("PATH", f"/usr/bin:{tmp_path}")
    assert find_executable(program.name) == program


def test_a_definitions_bare_command_is_not_taken_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A definition's bare ``command`` not found on PATH is refused by the event
    check, even with a file of that name in the working directory."""
    from tcecd.config.event_file import load_event

    _planted(tmp_path)
    monkeypatch.chdir(tmp_path)
    event = tmp_path / "event.yaml"
    event.write_text(
        "event: {name: x}\npairing: {system: round-robin}\ntime_control: {tc: '1+0.1'}\n"
        "engines:\n  - {name: a, command: [planted-engine-xyz]}\n  - ab-d1\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"program 'planted-engine-xyz' of engine 'a' not found"):
        load_event(event)
