"""bbpPairings v5.0.1 (../shared/oracles/README.md) as a reference in tests.

Found through ``TCECD_BBPPAIRINGS``, else in ``../shared/oracles`` beside the
repository (or one level further up, for a git worktree in a subfolder); tests
that need it skip when it is absent.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

_NAME = "bbpPairings-v5.0.1"


def bbp_path() -> Path | None:
    env = os.environ.get("TCECD_BBPPAIRINGS")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[2]
    for shared in (repo.parent / "shared", repo.parent.parent / "shared"):
        candidate = shared / "oracles" / _NAME
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def bbp(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run bbpPairings (skip the test when it is not installed)."""
    path = bbp_path()
    if path is None:
        pytest.skip(f"{_NAME} not found (set TCECD_BBPPAIRINGS)")
    return subprocess.run(
        [str(path), *map(str, args)], capture_output=True, text=True, timeout=60, check=False
    )


def generate(tmp: Path, seed: int, players: int = 11, rounds: int = 6) -> Path:
    """A random tournament paired by bbpPairings' Dutch engine, with draws,
    forfeits, retirements and half-point byes."""
    config = tmp / f"config{seed}.txt"
    config.write_text(
        f"PlayersNumber={players}\nRoundsNumber={rounds}\nDrawPercentage=30\n"
        "ForfeitRate=15\nRetiredRate=10\nHalfPointByeRate=15\n"
        "HighestRating=2600\nLowestRating=1400\n"
    )
    out = tmp / f"generated{seed}.trf"
    done = bbp("--dutch", "-g", config, "-o", out, "-s", str(seed))
    assert done.returncode == 0, done.stderr
    return out


def discrepancies(check_output: str) -> int:
    """How many rounds bbpPairings' checker (-c) reports as paired differently
    (it exits 0 either way: each such round prints a "Checker pairings" table)."""
    return check_output.count("Checker pairings")
