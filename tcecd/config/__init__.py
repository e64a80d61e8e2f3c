"""tcecd.config: the event config and engine definitions.

``load_event(path)`` and ``load_engine(ref, search_dirs=...)`` are the only
functions that read files; everything else is pure. See docs/config.md.
"""

from tcecd.config.engines import EngineConfig, RemoteConfig
from tcecd.config.event import EventConfig, apply_overrides
from tcecd.config.fingerprint import config_fingerprint, diff_fingerprints
from tcecd.config.load import load_engine, load_engine_file, load_event

__all__ = [
    "EngineConfig",
    "EventConfig",
    "RemoteConfig",
    "apply_overrides",
    "config_fingerprint",
    "diff_fingerprints",
    "load_engine",
    "load_engine_file",
    "load_event",
]
