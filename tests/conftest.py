"""Root conftest: loads every fixture module in ``tests/fixtures/`` as a plugin,
so areas add fixtures (a Mosquitto broker, engine paths, ...) without editing
a shared file."""

from __future__ import annotations

import pkgutil
from pathlib import Path

_FIXTURES = Path(__file__).parent / "fixtures"
pytest_plugins = [
    f"tests.fixtures.{m.name}" for m in pkgutil.iter_modules([str(_FIXTURES)]) if not m.ispkg
]
