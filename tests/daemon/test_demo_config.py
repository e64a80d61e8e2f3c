"""The demo config is valid and is what the README promises: 6-8 bundled
engines, a few rounds, no broker needed (embedded)."""

from __future__ import annotations

from tcecd.config.event_file import load_event
from tcecd.daemon.settings import from_config
from tests.daemon.helpers import ROOT


def test_demo_config_loads_and_fits_the_promise() -> None:
    config = load_event(ROOT / "configs" / "demo.yaml")
    settings = from_config(config)
    assert 6 <= len(settings.engines) <= 8
    for engine in settings.engines:
        assert "abengine.py" in " ".join(engine.command)  # bundled, deterministic
    assert settings.format.rounds is not None
    assert 3 <= settings.format.rounds <= 7
    assert settings.mqtt is not None
    assert settings.mqtt.embedded
    assert settings.openings_file is not None
    assert settings.openings_file.exists()
    assert settings.state_dir.resolve() == (ROOT / "state" / "demo").resolve()
    assert settings.pgn_path.parent.resolve() == settings.state_dir.resolve()
