"""``tcecd run --from-pgn`` restores strikes as the daemon counted them: an
engine whose restored strikes reach ``strikes.max`` is disqualified, so its
later games are forfeited instead of played (found by the docs audit: it used
to play on and collect a second strike)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _config(path: Path, rounds: int) -> Path:
    path.write_text(
        "event: {name: Strike Restore}\n"
        f"pairing: {{rounds: {rounds}}}\n"
        "engines: [ab-d1, ab-d1-noisy, broken-crash]\n"
        'time_control: {tc: "10+0.1"}\n'
        "adjudication: {max_moves: 30}\n"
        "strikes: {max: 1}\n",
        encoding="utf-8",
    )
    return path


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcecd", "run", *map(str, args)],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip


def _games(pgn: str) -> list[dict[str, str]]:
    blocks = re.split(r"\n\n(?=\[Event )", pgn.strip())
    return [dict(re.findall(r'^\[(\w+) "([^"]*)"\]', b, re.M)) for b in blocks]


def test_restored_strikes_disqualify_like_the_original_run(tmp_path: Path) -> None:
    short = _run(_config(tmp_path / "two.yaml", 2), "--state-dir", tmp_path / "st")
    assert short.returncode == 0, short.stderr[-2000:]
    pgn = tmp_path / "st" / "event.pgn"
    crashed = [
        g for g in _games(pgn.read_text(encoding="utf-8"))
        if "broken-crash" in (g["White"], g["Black"]) and g["Termination"] != "forfeit"
    ]  # fmt: skip
    assert len(crashed) == 1  # its one played game: lost to a crash, then strikes.max = 1
    assert crashed[0]["Termination"] == "abandoned"

    longer = _run(
        _config(tmp_path / "three.yaml", 3), "--state-dir", tmp_path / "st3", "--from-pgn", pgn
    )
    assert longer.returncode == 0, longer.stderr[-2000:]
    games = _games((tmp_path / "st3" / "event.pgn").read_text(encoding="utf-8"))
    after = [
        g for g in games
        if g["Round"].startswith("3.") and "broken-crash" in (g["White"], g["Black"])
    ]  # fmt: skip
    # Round 3 either gives broken-crash the BYE (no game) or forfeits its game.
    assert all(g["Termination"] == "forfeit" for g in after), after
    assert "2 strikes" not in longer.stderr


def test_replay_out_counts_strikes_like_the_daemon(tmp_path: Path) -> None:
    """``replay --out`` rebuilds crosstable.json with the strikes a PGN shows
    (a game lost by a crash is one), equal to the daemon's own file."""
    cfg = _config(tmp_path / "two.yaml", 2)
    run = _run(cfg, "--state-dir", tmp_path / "st")
    assert run.returncode == 0, run.stderr[-2000:]
    replay = subprocess.run(
        [sys.executable, "-m", "tcecd", "replay", str(tmp_path / "st" / "event.pgn"),
         "--config", str(cfg), "--out", str(tmp_path / "out")],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stderr[-2000:]

    def strikes(path: Path) -> dict[str, int]:
        table = json.loads(path.read_text(encoding="utf-8"))["Table"]
        return {name: row["Strikes"] for name, row in table.items()}

    daemon = strikes(tmp_path / "st" / "tcec" / "crosstable.json")
    assert daemon["broken-crash"] == 1
    assert strikes(tmp_path / "out" / "crosstable.json") == daemon
