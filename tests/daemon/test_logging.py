"""Log format: JSON lines off a terminal, console lines on one, with the
event, round and game bound to every line."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator

import pytest
import structlog

from tcecd.logging import configure, get_logger


@pytest.fixture(autouse=True)
def _restore_structlog() -> Iterator[None]:
    yield
    structlog.reset_defaults()  # configure() is global: leave other tests the default


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_json_lines_when_not_a_terminal_carry_the_bound_context() -> None:
    out = io.StringIO()
    configure("info", "auto", stream=out)
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(event_name="Ev", round=3, game="3.1")
    try:
        get_logger().info("game finished", result="1-0")
        get_logger().debug("not shown at info level")
    finally:
        structlog.contextvars.clear_contextvars()
    [line] = out.getvalue().splitlines()
    doc = json.loads(line)
    assert doc["event"] == "game finished"
    assert (doc["event_name"], doc["round"], doc["game"], doc["result"]) == ("Ev", 3, "3.1", "1-0")
    assert doc["level"] == "info"
    assert doc["timestamp"].endswith("Z")


def test_console_lines_on_a_terminal() -> None:
    out = FakeTerminal()
    configure("debug", "auto", stream=out)
    get_logger(round=2).debug("round paired")
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # colours on a terminal
    assert "round paired" in text
    assert "round=2" in text
    assert not text.lstrip().startswith("{")
