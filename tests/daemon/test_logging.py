"""Log format: JSON lines off a terminal, console lines on one, with the
event, round and game bound to every line."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator

import pytest
import structlog

from tcecd.logging import configure, get_logger


@pytest.fixture(autouse=True)
def _restore_structlog() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    structlog.reset_defaults()  # configure() is global: leave other tests the default
    root.handlers[:] = handlers
    root.setLevel(level)


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


def test_stdlib_library_lines_are_json_with_the_bound_context_too() -> None:
    """python-chess and aiomqtt log through the stdlib: off a terminal their
    lines must be JSON as well, naming the event, round and game."""
    out = io.StringIO()
    configure("info", "auto", stream=out)
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(event_name="Ev", round=2, game="2.1")
    try:
        logging.getLogger("aiomqtt").warning("connection lost: %s", "reset")
        logging.getLogger("chess.engine").warning("filtered: below ERROR for chess.engine")
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            logging.getLogger("chess.engine").exception("engine protocol error")
    finally:
        structlog.contextvars.clear_contextvars()
    lines = out.getvalue().splitlines()
    docs = [json.loads(line) for line in lines]  # every line is JSON
    assert [d["event"] for d in docs] == ["connection lost: reset", "engine protocol error"]
    for doc in docs:
        assert (doc["event_name"], doc["round"], doc["game"]) == ("Ev", 2, "2.1")
        assert doc["timestamp"].endswith("Z")
    assert (docs[0]["level"], docs[0]["logger"]) == ("warning", "aiomqtt")
    assert docs[1]["level"] == "error"
    assert "RuntimeError: boom" in docs[1]["exception"]


def test_configure_twice_leaves_one_stdlib_handler() -> None:
    first, second = io.StringIO(), io.StringIO()
    configure("info", "json", stream=first)
    configure("info", "json", stream=second)
    logging.getLogger("aiomqtt").warning("once")
    assert first.getvalue() == ""
    assert [json.loads(line)["event"] for line in second.getvalue().splitlines()] == ["once"]
