"""Configs that ``validate`` used to accept but that fail at run time, and files built to
exhaust memory, time or the stack. Each is one line naming the file, key and bad value,
exit 2, in bounded memory and time.

Each message was checked by hand: the key path is where the value is written in the
file, the quoted value is the one written there, and the reason says what is wrong.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import chess.engine
import pytest
import yaml

from tcecd.cli import main
from tcecd.config.engines import MANAGED_OPTIONS
from tests.fixtures.event_config import BASE_EVENT

NAME_65 = "n" * 65


def _validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> tuple[int, str, str]:
    (tmp_path / "event.yaml").write_text(text, encoding="utf-8")
    code = main(["validate", "-q", str(tmp_path / "event.yaml")])
    out, err = capsys.readouterr()
    return code, out, err


def _event(**sections: object) -> str:
    data = {**BASE_EVENT, **sections}
    return yaml.safe_dump(data, sort_keys=False)


ROWS = [
    pytest.param(
        # python-chess sets MultiPV itself and refuses the engine when a config does.
        {"engines": ["ab-d1", {"ref": "ab-d2", "options": {"MultiPV": 3}}]},
        "engines[1].options: 'MultiPV' is set by tcecd's engine layer (python-chess) for every "
        "search and cannot be configured; remove it",
        id="managed-option-multipv",
    ),
    pytest.param(
        {"engines": ["ab-d1", {"name": "x", "command": ["{python}"], "options": {"ponder": True}}]},
        "engines[1].options: 'ponder' is set by tcecd's engine layer (python-chess) for every "
        "search and cannot be configured; remove it",
        id="managed-option-any-case",
    ),
    pytest.param(
        {"engines": ["ab-d1", {"name": "x", "command": ["{python}"], "workdir": "nowhere"}]},
        "engines[1].workdir: '{dir}/nowhere' of engine 'x' does not exist or is not a directory",
        id="missing-workdir",
    ),
    pytest.param(
        {"outputs": {"state_dir": "a-file"}},
        "outputs.state_dir: '{dir}/a-file' is not a directory",
        id="state-dir-is-a-file",
    ),
    pytest.param(
        {"outputs": {"state_dir": "a-file/state"}},
        "outputs.state_dir: '{dir}/a-file/state' cannot be created: '{dir}/a-file' is not a "
        "directory",
        id="state-dir-below-a-file",
    ),
    pytest.param(
        {"time_control": {"tc": "99999999999999999999+0"}},
        "time_control.tc: invalid time control: '99999999999999999999+0' "
        "(99999999999999999999 s is more than the limit of 86400 s (24 h))",
        id="absurd-time-control",
    ),
    pytest.param(
        {"time_control": {"movetime_ms": 86_400_001}},
        "time_control.movetime_ms: 86400001 is out of range; expected a number <= 86400000",
        id="absurd-movetime",
    ),
    pytest.param(
        {"pairing": {"rounds": True}},
        "pairing.rounds: expected an integer, got True",
        id="rounds-true",
    ),
    pytest.param(
        {"concurrency": False},
        "concurrency: expected an integer, got False",
        id="concurrency-false",
    ),
    pytest.param(
        {"shutdown": {"grace_s": True}},
        "shutdown.grace_s: expected a number, got True",
        id="grace-true",
    ),
    pytest.param(
        # The docs: an engine name has 1-64 characters; a ref override is no exception.
        {"engines": ["ab-d1", {"ref": "ab-d2", "name": NAME_65}]},
        f"engines[1].name: string should have at most 64 characters, got {NAME_65!r}",
        id="ref-name-65",
    ),
]


@pytest.mark.parametrize(("sections", "message"), ROWS)
def test_run_time_failures_are_caught_by_validate(
    sections: dict[str, object],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "a-file").write_text("not a directory\n", encoding="utf-8")
    code, out, err = _validate(tmp_path, capsys, _event(**sections))
    expected = message.replace("{dir}", str(tmp_path.resolve()))
    assert (code, out, err) == (2, "", f"tcecd: error: {tmp_path / 'event.yaml'}: {expected}\n")


def test_a_program_whose_file_name_is_too_long_for_an_engine_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A path to a program becomes an engine named after the file: 65 characters is
    one too many (it was a pydantic traceback)."""
    program = tmp_path / f"{NAME_65}.py"
    program.write_text("pass\n", encoding="utf-8")
    code, _, err = _validate(tmp_path, capsys, _event(engines=["ab-d1", str(program)]))
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith(f"tcecd: error: {tmp_path / 'event.yaml'}: engines[1]: engine ")
    assert f"name: string should have at most 64 characters, got {NAME_65!r}" in err


def test_managed_options_are_python_chess_s() -> None:
    """The list the config refuses is the one python-chess refuses at engine start."""
    assert sorted(name.lower() for name in MANAGED_OPTIONS) == sorted(chess.engine.MANAGED_OPTIONS)


# -- files built to exhaust resources ----------------------------------------------------

_BOMB = "\n".join(
    [
        "event: {name: T}",
        "engines: [ab-d1, ab-d2]",
        "time_control: {tc: '10+0.1'}",
        "pairing:",
        "  rounds:",
        "    - &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
        *(
            f"    - &{b} [{', '.join(['*' + a] * 9)}]"
            for a, b in zip("abcdefgh", "bcdefghi", strict=True)
        ),
    ]
)


def _limited(
    cmd: list[str], cwd: Path, memory_bytes: int = 1 << 30
) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` with at most ``memory_bytes`` of address space and 60 s."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    return subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, timeout=60, check=False, preexec_fn=limit
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # Nine anchors of nine aliases each: 9**9 (387 million) values when expanded. The
        # anchor &a holds 1 + 9 values, &b 1 + 9 * 10 = 91, &c 820, &d 7381, &e 66430 and
        # &f 597871, the first over 100000: &f is on line 11.
        (_BOMB, "line 11: invalid YAML: more than 100000 values once aliases are expanded"),
        (
            "a: " + "[" * 20_000 + "]" * 20_000 + "\n",
            "line 1: invalid YAML: nested more than 64 levels deep",
        ),
        ("a: &x [1, *x]\n", "line 1: invalid YAML: alias *x refers to a value that contains it"),
    ],
    ids=["alias-bomb", "20000-deep", "recursive-alias"],
)
def test_yaml_built_to_exhaust_resources_is_one_line(
    text: str, reason: str, tmp_path: Path
) -> None:
    (tmp_path / "event.yaml").write_text(text, encoding="utf-8")
    proc = _limited([sys.executable, "-m", "tcecd", "validate", "event.yaml"], tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"tcecd: error: event.yaml: {reason}\n"


def test_100000_deep_json_state_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    proc = _limited([sys.executable, "-m", "tcecd", "pair", "state.json"], tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "tcecd: error: state.json: nested more than 32 levels deep; not an event document\n"
    )


def test_a_5000_digit_number_is_one_short_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Python refuses to convert integers of over 4300 digits (a ValueError, which
    escaped as a traceback); a float of 5000 digits is quoted cut to 200 characters."""
    digits = "1" * 5000
    code, _, err = _validate(
        tmp_path, capsys, _event(pairing={"rounds": 3}).replace("rounds: 3", f"rounds: {digits}")
    )
    assert (code, err) == (
        2,
        # event: / name / site / pairing: / rounds: the number is on line 5.
        f"tcecd: error: {tmp_path / 'event.yaml'}: line 5: invalid YAML: a number of more "
        "than 100 characters\n",
    )
    code, _, err = _validate(tmp_path, capsys, _event(pairing={"rounds": f"1.{digits}"}))
    assert code == 2
    quoted = repr(f"1.{digits}")[:197] + "..."
    assert err == (
        f"tcecd: error: {tmp_path / 'event.yaml'}: pairing.rounds: expected an integer, "
        f"got {quoted}\n"
    )


def test_a_5000_digit_number_in_a_json_state_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "state.json"
    path.write_text('{"players": ' + "1" * 5000 + "}", encoding="utf-8")
    assert main(["pair", str(path)]) == 2
    assert capsys.readouterr().err == f"tcecd: error: {path}: a number with too many digits\n"


def test_run_with_a_state_dir_that_is_a_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "event.yaml").write_text(_event(), encoding="utf-8")
    (tmp_path / "a-file").write_text("x\n", encoding="utf-8")
    assert main(["run", str(tmp_path / "event.yaml"), "--state-dir", str(tmp_path / "a-file")]) == 2
    assert capsys.readouterr().err == (
        f"tcecd: error: --state-dir: {str(tmp_path / 'a-file')!r} is not a directory\n"
    )


def test_play_refuses_a_managed_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["play", "ab-d1", "ab-d2", "--tc", "1+0.1", "--pgn", str(tmp_path / "x.pgn"),
                 "--option", "MultiPV=4"])  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err == (
        "tcecd: error: --option: 'MultiPV' is set by tcecd's engine layer (python-chess) for "
        "every search and cannot be configured; remove it\n"
    )
