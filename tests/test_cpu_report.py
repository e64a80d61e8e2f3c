"""tests/fixtures/cpu_report.py: with ``TCECD_CPU_REPORT`` a pytest run writes
each test's CPU, its child processes' included, and the report names the
costly one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.cpu_report import ENV, main

ROOT = Path(__file__).resolve().parents[1]

SAMPLE = """
import subprocess, sys

def test_spends_cpu_in_a_child():
    # about 0.3 s of CPU in a process the test starts and reaps
    subprocess.run([sys.executable, "-c", "sum(range(10_000_000))"], check=True)

def test_spends_nothing():
    pass
"""


def test_the_report_counts_a_tests_child_processes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "test_sample.py").write_text(SAMPLE, encoding="utf-8")
    report = tmp_path / "report"
    env = dict(os.environ, PYTHONPATH=str(ROOT), **{ENV: str(report)})
    env.pop("PYTEST_XDIST_WORKER", None)  # (set when this test runs in an xdist worker)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "-p", "tests.fixtures.cpu_report", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    written = json.loads((report / "cpu-main.json").read_text(encoding="utf-8"))
    rows = {row[0].split("::")[-1]: row for row in written}
    assert set(rows) == {"test_spends_cpu_in_a_child", "test_spends_nothing"}
    _, _, children, wall = rows["test_spends_cpu_in_a_child"]
    assert children > 0.05  # the child's CPU is counted (it would be 0 otherwise)
    assert wall >= children * 0.5
    assert rows["test_spends_nothing"][2] == 0
    assert main([str(report)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 tests, ")
    costly = [line for line in out.splitlines() if line.endswith("test_spends_cpu_in_a_child")]
    assert costly
    assert main([str(tmp_path / "nothing")]) == 2
