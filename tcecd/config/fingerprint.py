"""The parts of an event config that must not change when an event resumes.

On resume the daemon compares the fingerprint stored in the event state with
the current config's. Engines (names, commands, options, protocol, own limits), pairing
(rounds, single/double, seeding including its RNG seed, tiebreaks), the time
control, adjudication, the variant (standard or Chess960) and the openings
(file or Chess960 position numbers, order, seed, plies, and the Polyglot
book's file, depth, selection and seed) would rewrite the
event's history if they changed: the daemon refuses and prints
:func:`diff_fingerprints`' lines. Operational settings (MQTT, logging, outputs,
concurrency, shutdown, the tablebase location) may change freely.

The fingerprint is plain JSON data (dicts, lists, strings, numbers, bools,
None) so the store can keep it as is. Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from tcecd.config.engines import EngineConfig
from tcecd.config.event import EventConfig


def config_fingerprint(config: EventConfig) -> dict[str, object]:
    """The history-defining parts of ``config`` as JSON-ready data."""
    pairing = config.pairing
    tc = config.time_control
    adj = config.adjudication
    openings: dict[str, object] | None = None
    if config.openings is not None:
        openings = {
            "file": None if config.openings.file is None else str(config.openings.file),
            "format": config.openings.format,
            "order": config.openings.order,
            "seed": config.openings.seed,
            "plies": config.openings.plies,
        }
        positions = config.openings.positions
        if positions is not None:
            # Only when set, so an event stored before Chess960 still resumes.
            openings["positions"] = positions if positions == "all" else list(positions)
        book = config.openings.book
        if book is not None:
            # Only when set, so an event stored before books existed still resumes.
            openings["book"] = {
                "file": str(book.file),
                "depth": book.depth,
                "selection": book.selection,
                "seed": book.seed,
            }
    engines = [engine_fingerprint(e) for e in config.engines]
    fingerprint: dict[str, object] = {
        "engines": engines,
        "pairing": {
            "system": pairing.system,
            "rounds": config.rounds,
            "double": pairing.double,
            "seeding": {
                "method": config.seeding_method,
                "groups": pairing.seeding.groups,
                "seed": pairing.seeding.seed,
            },
            "tiebreaks": list(pairing.tiebreaks),
            # The event's rules, only when set, so an event stored before they
            # existed still resumes.
            **({"forbidden_pairs": [list(p) for p in pairing.forbidden_pairs]}
               if pairing.forbidden_pairs else {}),
            **({"points": pairing.points} if pairing.points is not None else {}),
            **({"acceleration": {k: list(v) for k, v in pairing.acceleration.items()}
                if isinstance(pairing.acceleration, dict) else pairing.acceleration}
               if pairing.acceleration is not None else {}),
        },
        "time_control": {
            "tc": tc.tc,
            "nodes": tc.nodes,
            "depth": tc.depth,
            "movetime_ms": tc.movetime_ms,
        },
        "adjudication": {
            "draw": None
            if adj.draw is None
            else {
                "from_move": adj.draw.from_move,
                "score": adj.draw.score,
                "moves": adj.draw.moves,
            },
            "win": None if adj.win is None else {"score": adj.win.score, "moves": adj.win.moves},
            "tablebases": None
            if adj.tablebases is None
            else {"max_pieces": adj.tablebases.max_pieces},
            "max_moves": adj.max_moves,
        },
        "openings": openings,
    }
    if config.variant != "standard":
        # Only when not standard, so an event stored before Chess960 still resumes.
        fingerprint["variant"] = config.variant
    return fingerprint


def engine_fingerprint(e: EngineConfig) -> dict[str, object]:
    """The history-defining parts of one engine definition."""
    engine: dict[str, object] = {
        "name": e.name,
        "command": list(e.command),
        "protocol": e.protocol,
        "options": dict(sorted(e.options.items())),
    }
    if e.has_own_limits:
        # Only when set, so an event stored before per-engine limits still resumes.
        engine["limits"] = {
            "tc": e.tc,
            "nodes": e.nodes,
            "depth": e.depth,
            "movetime_ms": e.movetime_ms,
        }
    return engine


def accept_replacements(
    stored: dict[str, object], new: dict[str, object], replaced: Mapping[str, EngineConfig]
) -> dict[str, object]:
    """``new`` with every engine that the config now defines as the console
    replaced it (``replaced``: engine -> its definition since ``replace``)
    counted as unchanged: an event whose operator replaced an engine resumes
    whether its config still has the engine's first definition or has been
    updated to the replacement (docs/running.md, "The console")."""
    if not replaced:
        return new
    stored_engines = stored.get("engines")
    new_engines = new.get("engines")
    if not isinstance(stored_engines, list) or not isinstance(new_engines, list):
        return new
    before = {e.get("name"): e for e in stored_engines if isinstance(e, dict)}
    engines = []
    for entry in new_engines:
        name = entry.get("name") if isinstance(entry, dict) else None
        if (
            isinstance(name, str)
            and name in replaced
            and name in before
            and entry == engine_fingerprint(replaced[name])
        ):
            entry = before[name]
        engines.append(entry)
    return {**new, "engines": engines}


_ABSENT = object()


def _show(value: object) -> str:
    if value is _ABSENT:
        return "(absent)"
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _walk(path: str, old: object, new: object, out: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            sub = f"{path}.{key}" if path else str(key)
            _walk(sub, old.get(key, _ABSENT), new.get(key, _ABSENT), out)
        return
    if isinstance(old, list) and isinstance(new, list) and path != "pairing.tiebreaks":
        if path.endswith(".command"):
            # An argv reads best whole.
            if old != new:
                out.append(f"{path}: {_show(old)} -> {_show(new)}")
            return
        for i in range(max(len(old), len(new))):
            _walk(
                f"{path}[{i}]",
                old[i] if i < len(old) else _ABSENT,
                new[i] if i < len(new) else _ABSENT,
                out,
            )
        return
    if old != new:
        out.append(f"{path}: {_show(old)} -> {_show(new)}")


def diff_fingerprints(old: dict[str, object], new: dict[str, object]) -> list[str]:
    """Readable differences, one per changed value, e.g.
    ``pairing.rounds: 7 -> 9`` or ``engines[1].options.Threads: 1 -> 2``;
    empty when the event may resume."""
    out: list[str] = []
    _walk("", old, new, out)
    return out
