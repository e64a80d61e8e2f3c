"""Engine events paired by the other systems of the registry, end to end: a
round-robin whose length the field fixes (no ``pairing.rounds``), and a Dubov
event, each verified afterwards by ``replay --verify`` with the same system."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.daemon.helpers import ROOT, run_env, run_tcecd, write_config

pytestmark = pytest.mark.slow

RATED = (
    "{ref: ab-d1, rating: 2400}",
    "{ref: ab-d1-noisy, rating: 2300}",
    "{ref: ab-d1, name: ab-d1-n50, rating: 2500, options: {Noise: 50, Seed: 3}}",
    "{ref: ab-d1, name: ab-d1-n120, rating: 2350, options: {Noise: 120, Seed: 4}}",
    "{ref: ab-d1, name: ab-d1-n80, rating: 2200, options: {Noise: 80, Seed: 5}}",
)


def _verify(cfg: Path, state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcecd", "replay", str(state / "event.pgn"), "--config", str(cfg),
         "--verify"],
        cwd=ROOT, env=run_env(), capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_round_robin_event_plays_every_pair_once(tmp_path: Path) -> None:
    """5 engines, no `rounds`: the Berger table fixes 5 rounds of 2 games and a BYE;
    every pair meets exactly once."""
    cfg = write_config(tmp_path, engines=RATED, system="round-robin", concurrency=1,
                       max_moves=8)  # fmt: skip
    text = cfg.read_text(encoding="utf-8")
    cfg.write_text(re.sub(r"rounds: \d+, ", "", text), encoding="utf-8")
    done = run_tcecd(cfg)
    assert done.returncode == 0, done.stderr[-3000:]
    pgn = (tmp_path / "state" / "event.pgn").read_text(encoding="utf-8")
    games = re.findall(r'\[White "([^"]+)"\]\n\[Black "([^"]+)"\]', pgn)
    assert len(games) == 10  # 5 x 4 / 2 pairs, each once
    assert len({frozenset(g) for g in games}) == 10
    verify = _verify(cfg, tmp_path / "state")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "follow the round-robin rules" in verify.stdout


def test_dubov_event_runs_and_verifies(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, engines=RATED, system="dubov", seeding=None, rounds=3,
                       concurrency=1, max_moves=8)  # fmt: skip
    done = run_tcecd(cfg)
    assert done.returncode == 0, done.stderr[-3000:]
    verify = _verify(cfg, tmp_path / "state")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "follow the dubov rules" in verify.stdout
