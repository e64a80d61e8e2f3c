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
