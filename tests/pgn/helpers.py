"""pgn-extract as a second, independent PGN parser for the writer's tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PGN_EXTRACT = shutil.which("pgn-extract") or (
    "/usr/games/pgn-extract" if Path("/usr/games/pgn-extract").exists() else None
)


def pgn_extract_accepts(tmp_path: Path, text: str, games: int = 1) -> None:
    """pgn-extract parses the text with no error or warning at all."""
    if PGN_EXTRACT is None:
        pytest.skip("pgn-extract not installed")
    path = tmp_path / "game.pgn"
    path.write_text(text, encoding="utf-8")
    log = tmp_path / "log.txt"
    proc = subprocess.run(
        [PGN_EXTRACT, "-r", f"-l{log}", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = log.read_text().splitlines()
    # "Processing <file>", one summary line per game, "<n> game(s) matched out of <n>."
    plural = "game" if games == 1 else "games"
    assert lines[0] == f"Processing {path}"
    assert lines[-1] == f"{games} {plural} matched out of {games}."
    assert len(lines) == games + 2, [line for line in lines if "Line" in line or "rror" in line]
