"""Shared helpers for the daemon tests: tiny event configs, running ``python -m
tcecd run`` as a real subprocess, and normalising outputs for comparison."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPENINGS = ROOT / "configs" / "openings" / "demo.epd"

#: Four distinct depth-1 players (the bundled abengine with different eval noise):
#: a few milliseconds a move, and deterministic.
FAST_ENGINES = (
    "ab-d1",
    "ab-d1-noisy",
    "{ref: ab-d1, name: ab-d1-n50, options: {Noise: 50, Seed: 3}}",
    "{ref: ab-d1, name: ab-d1-n120, options: {Noise: 120, Seed: 4}}",
)

#: Tags whose values depend on the wall clock.
_CLOCK_TAGS = re.compile(r'^\[(GameStartTime|GameEndTime|GameDuration|Date) "[^"]*"\]\n', re.M)
#: Per-move comment fields that depend on the wall clock (think time, clock, speed).
_CLOCK_FIELDS = re.compile(r"\b(mt|tl|s)=-?[0-9.]+, |\[%clk [0-9:.]+\] ?")


def write_config(
    directory: Path,
    *,
    engines: tuple[str, ...] = FAST_ENGINES,
    rounds: int = 3,
    double: bool = False,
    max_moves: int = 10,
    extra: str = "",
    mqtt: str | None = None,
    on_signal: str = "finish-game",
    strikes: str = "{max: 3, on_fault: lose}",
    concurrency: int = 2,
    system: str | None = None,
    seeding: str | None = "explicit",
) -> Path:
    """A tiny deterministic event: bundled depth-1/2 engines, short games.
    ``system``: a pairing system other than the default; ``seeding`` None: the
    system's default seeding."""
    directory.mkdir(parents=True, exist_ok=True)
    cfg = directory / "event.yaml"
    lines = [
        "event: {name: kill test, site: tests}",
        f"pairing: {{rounds: {rounds}, double: {str(double).lower()}"
        + (f", system: {system}" if system else "")
        + (f", seeding: {{method: {seeding}}}" if seeding else "")
        + "}",
        f"engines: [{', '.join(engines)}]",
        'time_control: {tc: "60+1"}',
        f"adjudication: {{draw: null, max_moves: {max_moves}}}",
        f"openings: {{file: {OPENINGS}}}",
        f"strikes: {strikes}",
        f"concurrency: {concurrency}",
        "outputs: {state_dir: state}",
        "logging: {level: info, format: json}",
        f"shutdown: {{on_signal: {on_signal}}}",
    ]
    if mqtt is not None:
        lines.append(f"mqtt: {mqtt}")
    cfg.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return cfg


def tcecd_argv(cfg: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "tcecd", "run", str(cfg), *args]


def run_env(crash_at: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("TCECD_TEST_CRASH_AT", None)
    if crash_at:
        env["TCECD_TEST_CRASH_AT"] = crash_at
    return env


def run_tcecd(
    cfg: Path, *args: str, crash_at: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m tcecd run`` to its end (or to its self-inflicted SIGKILL)."""
    return subprocess.run(
        tcecd_argv(cfg, *args),
        cwd=ROOT,
        env=run_env(crash_at),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def normalise_pgn(text: str) -> str:
    """The PGN without wall-clock values (fixed-depth engines give identical moves)."""
    return _CLOCK_FIELDS.sub("", _CLOCK_TAGS.sub("", text))


def pgn_rounds(text: str) -> list[str]:
    return re.findall(r'^\[Round "([^"]+)"\]', text, re.M)


def crosstable_summary(state: Path) -> list[tuple[str, float, int]]:
    """(name, score, rank) in ranking order, from crosstable.json."""
    doc = json.loads((state / "tcec" / "crosstable.json").read_text(encoding="utf-8"))
    table = doc["Table"]
    return [(name, table[name]["Score"], table[name]["Rank"]) for name in doc["Order"]]


def schedule_summary(state: Path) -> list[tuple[str, str, str, str | None, str | None]]:
    doc = json.loads((state / "tcec" / "schedule.json").read_text(encoding="utf-8"))
    return [
        (g["Round"], g["White"], g["Black"], g.get("Result"), g.get("Termination")) for g in doc
    ]


def standings_block(stdout: str) -> str:
    """The final standings table printed at the end of a run."""
    start = stdout.index("Final standings")
    return stdout[start:].strip()


def live_processes_with(*marks: str) -> set[int]:
    """Live (non-zombie) processes whose environment holds one of ``marks``
    (``NAME=value``, e.g. the reaper's mark of an event): how the survivor tests
    find exactly the processes their own run started, never by name."""
    wanted = [mark.encode() for mark in marks]
    found = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry.name}/environ").read_bytes().split(b"\0")
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue  # gone, or not ours to read
        if any(m in environ for m in wanted) and stat[stat.rindex(")") + 2] != "Z":
            found.add(int(entry.name))
    return found


def wait_until(predicate: Callable[[], object], timeout_s: float = 20.0) -> bool:
    """Whether ``predicate()`` came to hold within ``timeout_s`` (a deadline only
    against hanging: no timing is asserted, a loaded machine just takes longer)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False
