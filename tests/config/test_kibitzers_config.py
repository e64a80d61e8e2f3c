"""``kibitzers:`` in an event config: written like ``engines`` entries (the
same loader), with ``board`` and ``nice``; not part of the fingerprint (a
kibitzer never changes a game, so adding one to a running event is fine)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tcecd.config.event import EventConfig
from tcecd.config.fingerprint import config_fingerprint
from tcecd.config.summary import describe_event
from tcecd.daemon.settings import KibitzerSettings, from_config
from tcecd.errors import ConfigError
from tests.fixtures.event_config import event_config, event_file  # noqa: F401

EventFactory = Callable[..., EventConfig]


def test_kibitzer_entries_take_the_three_engine_forms(event_config: EventFactory) -> None:  # noqa: F811
    config = event_config(kibitzers=[
        "stockfish",
        {"ref": "stockfish", "name": "sf-2", "options": {"Threads": 2, "Hash": 64},
         "board": 2, "nice": 0},
        {"name": "inline", "command": ["{python}", "engine.py"], "options": {"Hash": 8}},
    ])
    first, second, third = config.kibitzers
    assert (first.engine.name, first.board, first.nice) == ("stockfish", 1, 19)
    assert first.engine.options == {"Threads": 1, "Hash": 16}  # engines/stockfish.yaml's
    assert (second.engine.name, second.board, second.nice) == ("sf-2", 2, 0)
    assert second.engine.options == {"Threads": 2, "Hash": 64}  # merged over the definition
    assert second.engine.command == first.engine.command
    assert third.engine.name == "inline"
    assert third.engine.command[1].endswith("engine.py")
    settings = from_config(config)
    assert settings.kibitzers == (
        KibitzerSettings(first.engine, board=1, nice=19),
        KibitzerSettings(second.engine, board=2, nice=0),
        KibitzerSettings(third.engine, board=1, nice=19),
    )
    assert "kibitzers:    3" in describe_event(config)
    assert from_config(event_config()).kibitzers == ()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"ref": "stockfish", "nodes": 1000},
         "kibitzers[0].nodes: a kibitzer analyses without a limit (go infinite); remove it"),
        ({"ref": "stockfish", "board": 0},
         "kibitzers[0].board: 0 is out of range; expected a number >= 1"),
        ({"ref": "stockfish", "nice": 20},
         "kibitzers[0].nice: 20 is out of range; expected a number <= 19"),
        ({"ref": "stockfish", "colour": "white"}, "kibitzers[0]: unknown key 'colour' "
         "(expected one of: ref, name, options, rating, board, nice)"),
        ("no-such-engine", "kibitzers[0]: unknown engine 'no-such-engine'"),
    ],
)
def test_bad_kibitzer_entries_are_one_line_naming_the_entry(
    event_file: Callable[..., Path], entry: object, message: str  # noqa: F811
) -> None:
    from tcecd.config.event_file import load_event

    path = event_file(kibitzers=[entry])
    with pytest.raises(ConfigError) as err:
        load_event(path)
    text = str(err.value)
    assert "\n" not in text
    assert text.startswith(str(path))
    assert message in text


def test_kibitzers_do_not_change_the_fingerprint(event_config: EventFactory) -> None:  # noqa: F811
    plain = config_fingerprint(event_config())
    assert config_fingerprint(event_config(kibitzers=["stockfish"])) == plain
