"""Malformed and hostile console payloads (tests/control): each must be refused
with a reason, never raise, and never change the event."""

from __future__ import annotations

import json
import random


def _cmd(ident: object, command: object, args: object = None, **extra: object) -> bytes:
    doc: dict[str, object] = {"id": ident, "command": command}
    if args is not None:
        doc["args"] = args
    doc.update(extra)
    return json.dumps(doc).encode()


def hostile_payloads(count: int = 200, *, seed: int = 7) -> list[tuple[str | None, bytes]]:
    """``count`` payloads, each with the id its reply goes to (None: ``control/error``).
    Every one is well-formed enough to be answered, and wrong enough to be refused
    whatever the event's state (no such game or engine, bad types, bad sizes...)."""
    rng = random.Random(seed)
    out: list[tuple[str | None, bytes]] = []
    n = 0

    def ident() -> str:
        nonlocal n
        n += 1
        return f"h-{seed}-{n}"

    fixed: list[tuple[str | None, bytes]] = [
        (None, b""),
        (None, b"\xff\xfe\x00garbage"),
        (None, b"[" * 5000 + b"]" * 5000),
        (None, b'{"id": "x", ' + b'"pad": "' + b"a" * 20000 + b'"}'),
        (None, b"null"),
        (None, b"[]"),
        (None, b'"pause"'),
        (None, b"12"),
        (None, b"{not json"),
        (None, _cmd(None, "pause")),
        (None, _cmd(12, "pause")),
        (None, _cmd("a/b", "pause")),
        (None, _cmd("+", "pause")),
        (None, _cmd("#", "pause")),
        (None, _cmd("x" * 65, "pause")),
        (None, _cmd("ok\u202e", "pause")),
    ]
    out += fixed
    templates = [
        lambda: ("nope", {}),
        lambda: ("PAUSE", {}),
        lambda: (7, {}),
        lambda: ("pause", {"reason": 5}),
        lambda: ("pause", {"reason": "x" * 600}),
        lambda: ("pause", {"reason": "\x1b[31mred"}),
        lambda: ("pause", {"why": "extra key"}),
        lambda: ("status", {"verbose": True}),
        lambda: ("adjudicate", {"game": "1.1", "result": "2-0", "reason": "r"}),
        lambda: ("adjudicate", {"game": "0.1", "result": "1-0", "reason": "r"}),
        lambda: ("adjudicate", {"game": "99.1", "result": "1-0", "reason": "r"}),
        lambda: ("adjudicate", {"game": "1.1", "result": "1-0"}),
        lambda: ("adjudicate", {"game": "1.1", "result": "1-0", "reason": ""}),
        lambda: ("adjudicate", {"game": 1.1, "result": "1-0", "reason": "r"}),
        lambda: ("restart-game", {"game": "1", "reason": "r"}),
        lambda: ("restart-game", {"game": "77.3", "reason": "r"}),
        lambda: ("withdraw", {"engine": "nobody", "reason": "r"}),
        lambda: ("withdraw", {"engine": "", "reason": "r"}),
        lambda: ("withdraw", {"engine": ["a"], "reason": "r"}),
        lambda: ("replace", {"engine": "nobody", "options": {"Hash": 2}}),
        lambda: ("replace", {"engine": "a", "command": []}),
        lambda: ("replace", {"engine": "a", "command": "rm -rf /"}),
        lambda: ("replace", {"engine": "a", "command": ["/nonexistent/engine"]}),
        lambda: ("replace", {"engine": "a", "options": {"Hash": {"nested": 1}}}),
        lambda: ("replace", {"engine": "a"}),
        lambda: ("concurrency", {"concurrency": 0}),
        lambda: ("concurrency", {"concurrency": 65}),
        lambda: ("concurrency", {"concurrency": "2"}),
        lambda: ("concurrency", {"concurrency": 2.0}),
        lambda: ("concurrency", {"concurrency": True}),
        lambda: ("concurrency", {}),
        lambda: ("stop", {"reason": None}),
    ]
    while len(out) < count - 8:
        name, args = rng.choice(templates)()
        i = ident()
        out.append((i, _cmd(i, name, args)))
    while len(out) < count:
        # Random bytes: never JSON, so never an id to answer to.
        out.append((None, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))))
    return out[:count]
