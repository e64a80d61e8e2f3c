"""The CLI's contract: one entry point, subcommands, clean errors."""

from __future__ import annotations

import subprocess
import sys

from tcecd.cli import COMMANDS, main


def test_every_command_has_a_module_with_help() -> None:
    import importlib

    for name in COMMANDS:
        module = importlib.import_module(f"tcecd.commands.{name}")
        assert isinstance(module.HELP, str)
        assert callable(module.add_arguments)
        assert callable(module.run)


def test_python_dash_m_and_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tcecd", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("tcecd ")


def test_unknown_command_is_a_usage_error(capsys: object) -> None:
    import pytest

    with pytest.raises(SystemExit) as info:
        main(["no-such-command"])
    assert info.value.code == 2


def test_a_bad_command_line_is_one_line_and_exit_2(capsys: object) -> None:
    """``--tc -1+0.1`` (argparse takes the value for an option): one line saying how to
    give such a value, exit 2; argparse printed its whole usage first (issue 27)."""
    import pytest

    assert isinstance(capsys, pytest.CaptureFixture)
    with pytest.raises(SystemExit) as info:
        main(["play", "--tc", "-1+0.1", "ab-d1", "ab-d2"])
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "tcecd play: error: argument --tc: expected one argument (a value that starts with "
        "'-' is given as --tc=VALUE) (see tcecd play -h)"
    ]
    # Given that way, the value itself is checked: one line, exit 2.
    assert main(["play", "--tc=-1+0.1", "ab-d1", "ab-d2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcecd: error: --tc: invalid time control: '-1+0.1'")
    assert len(err.splitlines()) == 1
