"""Per-engine limits in engine entries: parsed, checked, fingerprinted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tcecd.config.event import EventConfig
from tcecd.config.fingerprint import config_fingerprint, diff_fingerprints
from tcecd.errors import ConfigError
from tcecd.game.timecontrol import TimeControl
from tests.fixtures.event_config import event_config, event_file  # noqa: F401

EventFactory = Callable[..., EventConfig]


def test_entry_limits_replace_the_event_time_control(event_config: EventFactory) -> None:  # noqa: F811
    config = event_config(engines=[{"ref": "ab-d1", "nodes": 500}, {"ref": "ab-d2", "tc": "5+1"}])
    event = config.time_control_value()
    first, second = config.engines
    assert first.time_control(event) == TimeControl(nodes=500)
    assert second.time_control(event) == TimeControl.parse("5+1")
    plain = event_config()
    assert plain.engines[0].time_control(plain.time_control_value()) == TimeControl.parse("10+0.1")


def test_bad_entry_limits_name_the_entry(event_file: Callable[..., Path]) -> None:  # noqa: F811
    from tcecd.config.event_file import load_event

    path = event_file(engines=[{"ref": "ab-d1", "tc": "60++1"}, "ab-d2"])
    with pytest.raises(ConfigError) as err:
        load_event(path)
    assert str(err.value) == str(path) + (
        ": engines[0].tc: invalid time control: '60++1' (bad stage '60++1', "
        "expected [moves/]seconds[+increment])"
    )
    path = event_file(engines=[{"ref": "ab-d1", "tc": "5+1", "nodes": 0}, "ab-d2"])
    with pytest.raises(ConfigError, match=r"engines\[0\]\.nodes"):
        load_event(path)


def test_fingerprint_carries_limits_only_when_set(event_config: EventFactory) -> None:  # noqa: F811
    plain = config_fingerprint(event_config())
    engines = plain["engines"]
    assert isinstance(engines, list)
    # An event stored before per-engine limits existed still resumes unchanged.
    assert all("limits" not in e for e in engines)
    limited = config_fingerprint(event_config(engines=[{"ref": "ab-d1", "nodes": 500}, "ab-d2"]))
    assert diff_fingerprints(plain, limited) == [
        'engines[0].limits: (absent) -> {"depth": null, "movetime_ms": null, "nodes": 500, '
        '"tc": null}'
    ]
