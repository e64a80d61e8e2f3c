"""tcecd.config: the event config and engine definitions.

``load_event(path)`` and ``load_engine(ref, search_dirs=...)`` are the only
functions that read files; everything else is pure. See docs/config.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tcecd.config.engines import EngineConfig, RemoteConfig
    from tcecd.config.event import EventConfig
    from tcecd.config.event_file import load_event
    from tcecd.config.fingerprint import config_fingerprint, diff_fingerprints
    from tcecd.config.load import load_engine, load_engine_file
    from tcecd.config.overrides import apply_overrides

#: Where each name lives, imported on first use (PEP 562): importing
#: ``tcecd.config.engines`` (``tcecd play``) then does not build the event
#: config's models, most of that command's start-up time.
_LAZY = {
    "EngineConfig": "engines",
    "RemoteConfig": "engines",
    "EventConfig": "event",
    "apply_overrides": "overrides",
    "config_fingerprint": "fingerprint",
    "diff_fingerprints": "fingerprint",
    "load_engine": "load",
    "load_engine_file": "load",
    "load_event": "event_file",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

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
