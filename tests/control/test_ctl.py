"""``tcecd ctl`` on the command line: what it sends, and its exit codes when
nothing answers or the broker cannot be reached (the answers themselves:
tests/control/test_console_run.py)."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from tcecd.cli import main
from tcecd.commands import ctl
from tests.fixtures.mosquitto import free_port


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    ctl.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_replace_sends_an_argv_and_typed_options() -> None:
    name, args = ctl.command_of(_args(
        "replace", "sf", "--command", "/opt/sf/sf 'two words' --x", "--option", "Hash=256",
        "--option", "Ponder=false", "--option", "Style=Risky", "--option", "Contempt=-0.5",
        "--reason", "fixed build"))  # fmt: skip
    assert name == "replace"
    assert args == {"engine": "sf", "reason": "fixed build",
                    "command": ["/opt/sf/sf", "two words", "--x"],
                    "options": {"Hash": 256, "Ponder": False, "Style": "Risky",
                                "Contempt": -0.5}}  # fmt: skip


@pytest.mark.parametrize(("argv", "expected"), [
    (("status",), ("status", {})),
    (("pause",), ("pause", {"reason": ""})),
    (("adjudicate", "3.2", "1/2-1/2", "--reason", "r"),
     ("adjudicate", {"game": "3.2", "result": "1/2-1/2", "reason": "r"})),
    (("restart-game", "1.4", "--reason", "hw"),
     ("restart-game", {"game": "1.4", "reason": "hw"})),
    (("withdraw", "X", "--reason", "r"), ("withdraw", {"engine": "X", "reason": "r"})),
    (("concurrency", "3"), ("concurrency", {"concurrency": 3})),
])
def test_each_command_as_sent(argv: tuple[str, ...], expected: tuple[str, Any]) -> None:
    assert ctl.command_of(_args(*argv)) == expected


@pytest.mark.mosquitto
def test_no_answer_is_one_line_and_exit_1(mosquitto: Any,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ctl", "--mqtt", mosquitto.url, "--event", "nobody", "--timeout", "0.3",
                 "pause"])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert err == ["tcecd ctl: no answer within 0.3 s (is the event running, with "
                   "mqtt.operators, on this broker?)"]


def test_an_unreachable_broker_or_a_bad_id_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"mqtt://127.0.0.1:{free_port()}"
    assert main(["ctl", "--mqtt", url, "--event", "x", "status"]) == 2
    assert capsys.readouterr().err.startswith(f"tcecd: error: cannot reach {url}")
    assert main(["ctl", "--mqtt", url, "--id", "a/b", "status"]) == 2
    assert "--id: 'a/b'" in capsys.readouterr().err
