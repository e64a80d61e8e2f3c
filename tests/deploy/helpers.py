"""Shared helpers of the deploy tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcecd.config.event import EventConfig
from tcecd.config.event_file import load_event
from tcecd.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def load_event_or_skip(path: Path) -> EventConfig:
    """Load an event config; skip the test when one of its Debian engines is
    not installed here (the loader checks that engine programs exist, and
    deploy/install.sh installs them)."""
    try:
        return load_event(path)
    except ConfigError as exc:
        if "not found or not executable" in str(exc):
            pytest.skip(f"an engine of {path.name} is not installed: {exc}")
        raise
