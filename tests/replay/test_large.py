"""A 10,000-game PGN streams through in bounded memory.

The event is built without the pairing core (re-pairing 10,000 games takes
longer than this area's test budget; verification is covered on smaller
events): round 1 is the rules' round 1, the later rounds are round-robin
rounds (circle method), all double rounds, so the file is a structurally
valid 100-player, 100-round event of exactly 10,000 games, each with a few
moves carrying TCEC comments, as a real event PGN has.

Memory is measured as a user sees it: the peak resident set of a ``tcecd
replay`` process for the whole file, against the same command for its first
round (interpreter, imports and code paths alike). ``tracemalloc`` measured it
before, but slowed the 5 s replay eightfold (40 s, the suite's longest test).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

PLAYERS = 100
ROUNDS = 100

MOVETEXT = "".join(
    f"{san} {{d={20 + i}, sd={30 + i}, mt={1500 + i}, tl={58000 - i}, s=1000000, n=1500000, "
    f"pv={san} e5 Nf3 Nc6 Bb5 a6, tb=null, h=1.2, ph=0.0, wv=0.{20 + i}, R50=50, Rd=-10, "
    "Rr=-1000, mb=+0+0+0+0+0,} "
    for i, san in enumerate(["1. e4", "e5", "2. Nf3", "Nc6", "3. Bb5", "a6"])
) + "\n"


def name(seed: int) -> str:
    return f"P{seed:03d}-e"


def round_pairs(r: int) -> list[tuple[int, int]]:
    """(white seed, black seed) for the first game of each pair of round r."""
    n = PLAYERS // 2
    if r == 1:  # the rules' round 1: seed2-seed1, ..., worst pair first
        return [(2 * (n - k) + 2, 2 * (n - k) + 1) for k in range(1, n + 1)]
    # Circle method: seat 1 fixed, the others rotate.
    seats = [1, *[(i + r) % (PLAYERS - 1) + 2 for i in range(PLAYERS - 1)]]
    return [(seats[i], seats[PLAYERS - 1 - i]) for i in range(n)]


def write_big_pgn(path: Path, rounds: int = ROUNDS) -> int:
    games = 0
    with path.open("w", encoding="utf-8") as fh:
        for r in range(1, rounds + 1):
            pairs = round_pairs(r)
            legs = pairs + [(b, w) for w, b in pairs]
            for number, (w, b) in enumerate(legs, start=1):
                result = ("1-0", "0-1", "1/2-1/2")[(r + number) % 3]
                fh.write(
                    f'[Event "big"]\n[Site "?"]\n[Date "2026.11.22"]\n[Round "{r}.{number}"]\n'
                    f'[White "{name(w)}"]\n[Black "{name(b)}"]\n[Result "{result}"]\n'
                    f'[GameStartTime "2026-11-22T03:59:43.149 UTC"]\n[PlyCount "6"]\n'
                    f'[Termination "adjudication"]\n[TimeControl "60+1"]\n\n'
                    f"{MOVETEXT}{result}\n\n"
                )
                games += 1
    return games


def replay(path: Path, tmp: Path) -> tuple[int, str, str, int]:
    """``tcecd replay PATH`` in a process of its own: (exit code, stdout, stderr,
    its peak resident set in bytes, from ``wait4``)."""
    out, err = tmp / f"{path.stem}.out", tmp / f"{path.stem}.err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tcecd", "replay", str(path)], stdout=stdout, stderr=stderr
        )
        deadline = time.monotonic() + 300
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                raise AssertionError(f"tcecd replay {path.name} ran for over 300 s")
            time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak = usage.ru_maxrss * 1024  # Linux: kilobytes
    return proc.returncode, out.read_text(), err.read_text(), peak


@pytest.mark.slow
def test_ten_thousand_games_stream_in_bounded_memory(tmp_path: Path) -> None:
    big, first = tmp_path / "big.pgn", tmp_path / "first.pgn"
    assert write_big_pgn(big) == 10_000
    assert write_big_pgn(first, rounds=1) == PLAYERS
    size = big.stat().st_size
    assert size > 10_000_000

    code, out, err, peak = replay(big, tmp_path)
    assert (code, err) == (0, "")  # no progress bar when stderr is not a terminal
    assert out.startswith(
        "big: 100 players (seeds inferred from round 1), 100 complete double rounds"
        " (inferred), 10000 games, 0 BYEs\n"
    ), out[:300]
    # The standings: every player once, seeded by its number (P001-e is seed 1).
    rows = [line.split() for line in out.splitlines() if line.lstrip()[:1].isdigit()]
    assert sorted(int(row[2]) for row in rows) == list(range(1, PLAYERS + 1))
    assert all(int(row[1][1:4]) == int(row[2]) for row in rows)
    assert all(row[5] == "200" for row in rows)  # games: 100 double rounds

    code, _, _, baseline = replay(first, tmp_path)
    assert code == 0
    # The whole file never sits in memory: what 9,900 more games add is what
    # is kept of them (a few hundred bytes a game), far below the file itself
    # (~1.3 kB a game; reading it whole would add at least its size).
    assert peak - baseline < size / 2, (peak, baseline, size)
