"""The systemd unit's command, run for real (paths mapped into a temp dir):
``systemctl stop`` (SIGTERM) ends it with status 0 and a start resumes the
event to its end; a user error exits 2, which the unit does not retry.

No systemd runs where the tests run, so this exercises what the unit relies
on rather than systemd itself: the exit statuses behind ``Restart=on-failure``
and ``RestartPreventExitStatus=2``, and resuming on the next start.
"""

from __future__ import annotations

import configparser
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import chess.pgn

from tests.deploy.helpers import ROOT

EVENT = """\
event: {{name: "unit check"}}
pairing: {{system: tcec-swiss, rounds: 2}}
engines: [ab-d1, ab-d1-noisy, ab-d2, ab-d2-noisy]
time_control: {{depth: 2}}
adjudication: {{max_moves: 5}}
openings: {{file: {openings}}}
shutdown: {{on_signal: abort}}
"""


def _exec_start(tmp_path: Path) -> list[str]:
    """tcecd.service's ExecStart with its paths moved into ``tmp_path`` and the
    program run as ``python -m tcecd`` from this checkout."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(ROOT / "deploy" / "tcecd.service")
    argv = shlex.split(parser["Service"]["ExecStart"])
    assert argv[0] == "/opt/tcecd/.venv/bin/tcecd"
    mapping = {
        "/etc/tcecd/event.yaml": str(tmp_path / "event.yaml"),
        "/var/lib/tcecd/event": str(tmp_path / "state"),
    }
    assert set(mapping) <= set(argv)
    return [sys.executable, "-m", "tcecd", *(mapping.get(a, a) for a in argv[1:])]


def _rounds_in_pgn(path: Path) -> list[str]:
    rounds = []
    with path.open(encoding="utf-8") as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            rounds.append(headers["Round"])
    return rounds


def test_sigterm_stops_with_status_0_and_the_next_start_finishes_the_event(
    tmp_path: Path,
) -> None:
    (tmp_path / "event.yaml").write_text(
        EVENT.format(openings=ROOT / "configs" / "openings" / "demo.epd")
    )
    argv = _exec_start(tmp_path)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with (tmp_path / "first.out").open("w") as first_out:
        proc = subprocess.Popen(
            argv,
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=first_out,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert proc.stderr is not None
        seen = []
        try:
            for line in proc.stderr:  # the log (JSON lines: not a terminal)
                seen.append(line)
                if '"game started"' in line:
                    break
            else:
                raise AssertionError(f"no game started: {''.join(seen)}")
            proc.send_signal(signal.SIGTERM)  # what `systemctl stop` sends (KillMode=mixed)
            rest = proc.stderr.read()
            code = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            proc.stderr.close()
    # 0: a clean stop. (Restart=on-failure does not restart it; a failure would.)
    assert code == 0, "".join(seen) + rest
    assert "Final standings" not in (tmp_path / "first.out").read_text()  # stopped mid-event
    pgn = tmp_path / "state" / "event.pgn"
    assert len(_rounds_in_pgn(pgn) if pgn.exists() else []) < 4
    # The next start (boot, `systemctl start`) resumes and finishes the event.
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Final standings" in done.stdout
    # Two rounds of two games, each exactly once, in playing order.
    assert _rounds_in_pgn(pgn) == ["1.1", "1.2", "2.1", "2.2"]


def test_a_user_error_exits_2_which_the_unit_does_not_retry(tmp_path: Path) -> None:
    (tmp_path / "event.yaml").write_text("event: {name: broken}\npairing: {rounds: 0}\n")
    result = subprocess.run(
        _exec_start(tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2  # RestartPreventExitStatus=2 in the units
    assert result.stderr.startswith("tcecd: error: ")
    assert "Traceback" not in result.stderr
