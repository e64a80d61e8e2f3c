"""An engine event paired by the FIDE Dutch system (``pairing: {system: dutch}``),
end to end: the daemon, a SIGKILL and resume, ``replay --verify`` against the
Dutch rules, the TRF export checked by ``tcecd pair --check``, and double rounds.

The engines are the bundled deterministic ones with ratings: the initial ranking
is by rating (the Dutch system's default seeding), so the pairings are the rules'
for that ranking, checked here by re-pairing with an independent command
(``replay --verify``) and against bbpPairings when it is installed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.daemon.helpers import ROOT, normalise_pgn, pgn_rounds, run_env, run_tcecd, write_config
from tests.trf.oracle import bbp_path, discrepancies

pytestmark = pytest.mark.slow

RATED = (
    "{ref: ab-d1, rating: 2400}",
    "{ref: ab-d1-noisy, rating: 2300}",
    "{ref: ab-d1, name: ab-d1-n50, rating: 2500, options: {Noise: 50, Seed: 3}}",
    "{ref: ab-d1, name: ab-d1-n120, rating: 2350, options: {Noise: 120, Seed: 4}}",
    "{ref: ab-d1, name: ab-d1-n80, rating: 2200, options: {Noise: 80, Seed: 5}}",
)


def _tcecd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcecd", *args],
        cwd=ROOT, env=run_env(), capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def _config(directory: Path, *, double: bool = False, rounds: int = 3) -> Path:
    return write_config(
        directory, engines=RATED, rounds=rounds, double=double, system="dutch", seeding=None,
        concurrency=1,
    )  # fmt: skip


def test_dutch_event_runs_resumes_and_verifies(tmp_path: Path) -> None:
    reference_cfg = _config(tmp_path / "ref")
    done = run_tcecd(reference_cfg)
    assert done.returncode == 0, done.stderr[-3000:]
    reference = (tmp_path / "ref" / "state" / "event.pgn").read_text(encoding="utf-8")
    # 5 players: 2 games a round and one pairing-allocated bye, 3 rounds.
    assert pgn_rounds(reference) == ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"]
    # Round 1 by the Dutch rules (S1 = the top half by rating, S2 the rest; the bye
    # to the lowest-ranked player): ranking n50 2500, ab-d1 2400, n120 2350,
    # ab-d1-noisy 2300, n80 2200 -> n50 v n120 and ab-d1 v ab-d1-noisy, n80 the bye.
    round1 = re.findall(r'\[Round "1\.\d"\]\n\[White "([^"]+)"\]\n\[Black "([^"]+)"\]', reference)
    assert {frozenset(p) for p in round1} == {
        frozenset({"ab-d1-n50", "ab-d1-n120"}), frozenset({"ab-d1", "ab-d1-noisy"}),
    }  # fmt: skip

    # SIGKILL right after round 2 was paired, then resume: the same event.
    cfg = _config(tmp_path / "crash")
    killed = run_tcecd(cfg, crash_at="after-pairing:2")
    assert killed.returncode != 0
    resumed = run_tcecd(cfg)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    pgn = (tmp_path / "crash" / "state" / "event.pgn").read_text(encoding="utf-8")
    assert normalise_pgn(pgn) == normalise_pgn(reference)

    # replay --verify re-pairs every round with the Dutch rules.
    state_pgn = str(tmp_path / "crash" / "state" / "event.pgn")
    verify = _tcecd("replay", state_pgn, "--config", str(cfg), "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "OK: all 6 games follow the dutch-2017 rules" in verify.stdout
    # Without the config: every game names the system, the rounds and the seeds
    # (tcecd.pgn.event_tags); verified against the Dutch rules all the same. Before,
    # this said "FAILED: ... deviations from the TCEC Swiss rules" (issue 27).
    alone = _tcecd("replay", state_pgn, "--verify")
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert "5 players (seeds from the PGN's seed tags)" in alone.stdout
    assert "OK: all 6 games follow the dutch-2017 rules" in alone.stdout
    # A PGN without those tags: checked against TCEC Swiss, and the verdict says so.
    bare = tmp_path / "bare.pgn"
    bare.write_text(re.sub(r'^\[(PairingSystem|EventRounds|WhiteSeed|BlackSeed) "[^"]*"\]\n',
                           "", pgn, flags=re.M), encoding="utf-8")  # fmt: skip
    assumed = _tcecd("replay", str(bare), "--verify", "--quiet")
    assert assumed.returncode == 1
    assert assumed.stdout.splitlines()[-1].endswith(
        "from the TCEC Swiss rules (assumed: the PGN does not name its pairing system; give "
        "--system NAME or --config EVENT.yaml for another)")

    # The TRF export, checked by tcecd's checker and, where installed, bbpPairings.
    trf = tmp_path / "event.trf"
    exported = _tcecd("replay", state_pgn, "--config", str(cfg), "--trf", str(trf))
    assert exported.returncode == 0, exported.stderr
    # The same file from the PGN alone (XXR from the games' EventRounds tag).
    trf_alone = tmp_path / "alone.trf"
    assert _tcecd("replay", state_pgn, "--trf", str(trf_alone)).returncode == 0
    assert trf_alone.read_text(encoding="utf-8") == trf.read_text(encoding="utf-8")
    check = _tcecd("pair", "--check", str(trf))
    assert check.returncode == 0, check.stdout + check.stderr
    oracle = bbp_path()
    if oracle is not None:
        bbp = subprocess.run([str(oracle), "--dutch", str(trf), "-c"], capture_output=True,
                             text=True, timeout=60, check=False)  # fmt: skip
        assert bbp.returncode == 0, bbp.stderr
        assert discrepancies(bbp.stdout) == 0, bbp.stdout  # bbpPairings agrees on every round
        assert "Round #3" in bbp.stdout


def test_dutch_double_rounds_reverse_the_colours(tmp_path: Path) -> None:
    """Double rounds: each pair plays two games with colours reversed; the Dutch
    rules allocate the first game's colours; the round is one encounter."""
    cfg = _config(tmp_path, double=True, rounds=2)
    done = run_tcecd(cfg)
    assert done.returncode == 0, done.stderr[-3000:]
    pgn = (tmp_path / "state" / "event.pgn").read_text(encoding="utf-8")
    games = re.findall(r'\[Round "(\d)\.(\d)"\]\n\[White "([^"]+)"\]\n\[Black "([^"]+)"\]', pgn)
    assert len(games) == 8  # 2 rounds x 2 pairs x 2 games
    for rnd in ("1", "2"):
        first = [(w, b) for r, n, w, b in games if r == rnd and n in ("1", "2")]
        second = [(w, b) for r, n, w, b in games if r == rnd and n in ("3", "4")]
        assert second == [(b, w) for w, b in first]  # same boards, colours reversed
    # Nobody meets the same opponent in round 2 (a double round is one encounter).
    pairs = {rnd: {frozenset((w, b)) for r, _, w, b in games if r == rnd} for rnd in ("1", "2")}
    assert not pairs["1"] & pairs["2"]
    verify = _tcecd("replay", str(tmp_path / "state" / "event.pgn"), "--config", str(cfg),
                    "--verify")  # fmt: skip
    assert verify.returncode == 0, verify.stdout + verify.stderr
