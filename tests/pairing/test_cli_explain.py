"""``tcecd pair --explain`` and ``--time-limit`` (the integer-program model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tcecd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcecd", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def _state(tmp_path: Path) -> Path:
    """An 8-player integer-program event after 2 of 5 rounds."""
    sim = _tcecd("simulate", "--system", "integer-program", "--players", "8", "--rounds", "2",
                 "--json")  # fmt: skip
    assert sim.returncode == 0, sim.stderr
    doc = json.loads(sim.stdout)
    doc["context"] = {**doc.get("context", {}), "total_rounds": 5}
    path = tmp_path / "event.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_explain_prints_status_objective_terms_and_boards(tmp_path: Path) -> None:
    state = _state(tmp_path)
    done = _tcecd("pair", "--explain", str(state))
    assert done.returncode == 0, done.stderr
    pairing_text, _, explanation = done.stdout.partition("\n\nround 3: ")
    pairing = json.loads(pairing_text)
    assert pairing["round"] == 3
    assert explanation.startswith("integer program, optimal (proven)")
    # The objective line names each of the seed's terms with its weight, and the
    # four boards are those of the pairing, in its order.
    objective = next(line for line in explanation.splitlines() if "objective" in line)
    for term in ("50 x 4 pairs", "paired after sitting out", "L", "M", "score difference"):
        assert term in objective
    boards = [line.split(":")[0].split(". ", 1)[1] for line in explanation.splitlines()
              if line.strip()[:2] in ("1.", "2.", "3.", "4.")]  # fmt: skip
    got = [f"{g['white']} - {g['black']}" for g in pairing["games"]]
    assert [" - ".join(part.split(" (")[0] for part in b.split(" - ")) for b in boards] == got


def test_explain_is_refused_for_other_systems_and_time_limit_checked(tmp_path: Path) -> None:
    state = _state(tmp_path)
    other = _tcecd("pair", "--explain", "--system", "tcec-swiss", str(state))
    assert other.returncode == 2
    assert other.stderr == (
        "tcecd: error: --explain: only the integer-program system explains its pairing, "
        "not 'tcec-swiss'\n"
    )
    bad = _tcecd("pair", "--time-limit", "0", str(state))
    assert (bad.returncode, bad.stderr) == (2, "tcecd: error: --time-limit: must be > 0, got 0.0\n")
    # A limit too short to prove the optimum is an error naming the round, never a pairing.
    tiny = _tcecd("pair", "--time-limit", "0.000001", str(state))
    assert tiny.returncode == 2
    assert tiny.stderr.startswith("tcecd: error: round 3: ")
    assert tiny.stdout == ""
