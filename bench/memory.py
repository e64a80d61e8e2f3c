"""The daemon's peak memory against the event's length.

Runs ``tcecd run`` on round-robin events of the bundled depth-1 engine (a
single round-robin of 15 engines: 105 games; a double one of 32 engines:
992 games; two games at a time, at most 60 moves a game) and prints the
daemon's peak resident memory (``VmHWM`` of /proc, read while it runs) and
its growth per game between the two sizes. Finished games' moves live in the
store, so the daemon's memory should not grow with the event's length beyond
the few hundred bytes a game the event state keeps (issue 29: before the
runner was rebuilt it grew by about 0.16 MB a game).

    .venv/bin/python bench/memory.py                  # both sizes
    .venv/bin/python bench/memory.py --games 105      # one
    .venv/bin/python bench/memory.py --source DIR     # another checkout's tcecd

``--source`` runs the tcecd of another checkout (for a before/after figure:
``git worktree add /tmp/before <commit>``); its configs are written the same.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: games -> (engines, double)
SIZES = {105: (15, False), 992: (32, True)}


def config_text(engines: int, double: bool, state: Path) -> str:
    names = [f"e{i:02d}" for i in range(engines)]
    entries = "\n".join(
        f"  - {{name: {n}, command: [{sys.executable}, {ROOT / 'engines' / 'abengine.py'}, "
        f"--depth, '1'], restart: per-game}}"
        for n in names
    )
    return (
        "event: {name: memory bench, site: bench}\n"
        f"pairing: {{system: round-robin, double: {str(double).lower()}}}\n"
        f"engines:\n{entries}\n"
        "time_control: {tc: '60+1'}\n"
        "adjudication: {max_moves: 60, draw: null}\n"
        "concurrency: 2\n"
        f"outputs: {{state_dir: {state}}}\n"
        "logging: {level: warning}\n"
    )


def peak_rss(games: int, source: Path) -> tuple[int, float]:
    """Run the event; (peak RSS in KiB, wall seconds)."""
    engines, double = SIZES[games]
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "event.yaml"
        cfg.write_text(config_text(engines, double, Path(tmp) / "state"), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(source)}
        start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "tcecd", "run", str(cfg)], cwd=source, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        peak = 0
        status = Path(f"/proc/{proc.pid}/status")
        while proc.poll() is None:
            try:
                for line in status.read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
            except OSError:
                break
            time.sleep(0.2)
        _, err = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"tcecd run failed ({proc.returncode}): {err[-2000:]}")
        return peak, time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, choices=sorted(SIZES), action="append")
    parser.add_argument("--source", type=Path, default=ROOT, help="the checkout to run")
    args = parser.parse_args()
    sizes = args.games or sorted(SIZES)
    figures: dict[int, int] = {}
    for games in sizes:
        peak, wall = peak_rss(games, args.source.resolve())
        figures[games] = peak
        print(f"{games:4d} games: daemon peak RSS {peak / 1024:7.1f} MiB ({wall:.0f} s)")
    if len(figures) == 2:
        (small, a), (large, b) = sorted(figures.items())
        growth = (b - a) / 1024 / (large - small)
        print(f"growth: {growth * 1024:.1f} KiB a game ({growth:.3f} MiB) from {small} to {large}")


if __name__ == "__main__":
    main()
