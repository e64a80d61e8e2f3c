"""Against bbpPairings: it writes TRF files tcecd reads, and reads what tcecd writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tcecd.pairing.base import ByeKind
from tcecd.trf import format_trf, parse_trf
from tests.trf.oracle import bbp, discrepancies, generate


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_generated_files_read_and_rewrite_unchanged_for_the_checker(
    tmp_path: Path, seed: int
) -> None:
    """A tournament bbpPairings paired itself (forfeits, byes, absences) reads
    into whole rounds; written back by tcecd, bbpPairings' checker still finds
    every round paired by its rules: nothing was lost or changed on the way,
    first colour included (the generated file has no XXC; tcecd infers it and
    writes it)."""
    source = generate(tmp_path, seed)
    event = parse_trf(source.read_text(), source.name)
    assert len(event.players) == 11
    assert len(event.rounds) == 6
    for record in event.rounds:
        seen = [p for g in record.games for p in (g.white, g.black)]
        seen += [b.player for b in record.requested_byes]
        seen += [record.bye] if record.bye is not None else []
        assert sorted(seen, key=int) == [p.id for p in event.players]
    # The generator's forfeits and byes are there (seeds chosen to have them).
    assert any(not g.played for r in event.rounds for g in r.games)
    assert any(r.requested_byes for r in event.rounds)
    assert all(b.kind is not ByeKind.PAIRING for r in event.rounds for b in r.requested_byes)

    original = bbp("--dutch", source, "-c")
    assert original.returncode == 0, original.stderr
    assert discrepancies(original.stdout) == 0
    rewritten = tmp_path / "rewritten.trf"
    rewritten.write_text(format_trf(event))
    checked = bbp("--dutch", rewritten, "-c")
    assert checked.returncode == 0, checked.stderr
    assert discrepancies(checked.stdout) == 0, checked.stdout
    assert parse_trf(rewritten.read_text(), "rewritten.trf") == event


def test_simulated_event_is_read_by_bbppairings(tmp_path: Path) -> None:
    """``tcecd simulate --trf`` writes a file bbpPairings accepts: its checker
    reads all rounds, and it pairs the next round of the same event with more
    rounds to go (XXR 6 after 4), printing the -p format tcecd pair prints."""
    trf = tmp_path / "sim.trf"
    done = subprocess.run(
        [sys.executable, "-m", "tcecd", "simulate", "--players", "9", "--rounds", "4",
         "--seed", "3", "--trf", str(trf)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    checked = bbp("--dutch", trf, "-c")
    assert checked.returncode == 0, checked.stderr
    assert [f"sim: Round #{r}" for r in range(1, 5)] == [
        line for line in checked.stdout.splitlines() if line.startswith("sim: Round #")
    ]
    longer = tmp_path / "longer.trf"
    longer.write_text(trf.read_text().replace("XXR 4", "XXR 6"))
    out = tmp_path / "pairs.txt"
    paired = bbp("--dutch", longer, "-p", out)
    assert paired.returncode == 0, paired.stderr
    lines = out.read_text().splitlines()
    # 9 players: 4 boards and the bye "N 0"; the count line counts all five.
    assert lines[0] == "5"
    assert len(lines) == 6
    assert lines[-1].endswith(" 0")
    assert sorted(int(n) for line in lines[1:] for n in line.split() if n != "0") == list(
        range(1, 10)
    )
