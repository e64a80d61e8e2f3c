"""How long a resume takes: SIGKILL the daemon mid-event, start it again, and
time from the new process's start to its first move published on MQTT.

A small event (eight bundled depth-1 engines, single TCEC Swiss rounds, games
of at most 60 moves) runs with a Mosquitto started here (on a free port); after
``--after`` games are recorded the daemon is killed with SIGKILL, and started
again; the figure is the time from that start to the first ``move`` message
the resumed daemon publishes (the replayed game's first engine move: the
store read back, the state folded, the outbox and the state re-published, the
engines started). Printed: each trial, the median, and the load average.

    .venv/bin/python bench/restart.py [--trials 5] [--after 12] [--source DIR]

``--source`` runs the tcecd of another checkout (for a before/after figure:
``git worktree add /tmp/before <commit>``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def config(state: Path, port: int) -> str:
    engines = ", ".join(
        f"{{ref: ab-d1, name: e{i}, options: {{Noise: {40 * i}, Seed: {i}}}}}" for i in range(8)
    )
    return (
        "event: {name: restart bench, site: bench}\n"
        "pairing: {rounds: 6}\n"
        f"engines: [{engines}]\n"
        "time_control: {tc: '60+1'}\n"
        "adjudication: {draw: null, max_moves: 60}\n"
        f"openings: {{file: {ROOT / 'configs' / 'openings' / 'demo.epd'}}}\n"
        "concurrency: 2\n"
        f"outputs: {{state_dir: {state}}}\n"
        f"mqtt: mqtt://127.0.0.1:{port}\n"
        "logging: {level: warning}\n"
    )


def games_recorded(state: Path) -> int:
    try:
        with sqlite3.connect(f"file:{state / 'event.sqlite'}?mode=ro", uri=True) as db:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def first_move_after(port: int, start: float, proc: subprocess.Popen[bytes]) -> float:
    """Seconds from ``start`` to the first ``move`` message on the broker."""
    sub = subprocess.Popen(
        ["mosquitto_sub", "-p", str(port), "-t", "tcecd/+/game/+/move", "-C", "1", "-W", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    out, _ = sub.communicate(timeout=90)
    if not out or proc.poll() not in (None, 0):
        raise SystemExit("no move published after the restart")
    return time.monotonic() - start


def trial(source: Path, after: int) -> float:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        conf = Path(tmp) / "mosquitto.conf"
        conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n", encoding="utf-8")
        broker = subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c",
                                   str(conf)], stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            state = Path(tmp) / "state"
            cfg = Path(tmp) / "event.yaml"
            cfg.write_text(config(state, port), encoding="utf-8")
            env = {**os.environ, "PYTHONPATH": str(source)}
            argv = [sys.executable, "-m", "tcecd", "run", str(cfg)]
            first = subprocess.Popen(argv, cwd=source, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)  # fmt: skip
            while games_recorded(state) < after:
                if first.poll() is not None:
                    raise SystemExit("the event ended before the kill")
                time.sleep(0.05)
            first.send_signal(signal.SIGKILL)
            first.wait()
            time.sleep(0.5)  # the broker has the last will; nothing else runs
            start = time.monotonic()
            second = subprocess.Popen(argv, cwd=source, env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)  # fmt: skip
            try:
                return first_move_after(port, start, second)
            finally:
                second.send_signal(signal.SIGKILL)
                second.wait()
        finally:
            broker.terminate()
            broker.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--after", type=int, default=12, help="games recorded before the kill")
    parser.add_argument("--source", type=Path, default=ROOT, help="the checkout to run")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    figures = []
    for n in range(args.trials):
        seconds = trial(args.source.resolve(), args.after)
        figures.append(seconds)
        print(f"trial {n + 1}: {seconds:.3f} s from the restart to the first move published")
    print(f"median {statistics.median(figures):.3f} s over {len(figures)} trials "
          f"(load average {load:.2f} at the start)")  # fmt: skip


if __name__ == "__main__":
    main()
