"""An event played by tcecd itself (the daemon, real engine processes) replays
to the rules, and the replay writes the very TCEC JSON files the daemon wrote."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tcecd.cli import main

CONFIG = """
event: {name: "replay check"}
pairing: {rounds: 2, seeding: {method: explicit}}
engines:
  - {ref: ab-d1, name: A1}
  - {ref: ab-d1, name: A2}
  - {ref: ab-d2, name: A3}
  - {ref: ab-d1, name: A4}
  - {ref: ab-d2, name: A5}
time_control: {tc: "5+0.05"}
adjudication: {max_moves: 20}
concurrency: 2
outputs: {state_dir: ./state}
"""


@pytest.mark.slow
def test_daemon_event_replays_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "event.yaml"
    cfg.write_text(CONFIG)
    done = subprocess.run(
        [sys.executable, "-m", "tcecd", "run", str(cfg)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    state = tmp_path / "state"
    pgn = state / "event.pgn"

    # Seeds from the PGN alone (its seed tags) and from the config agree.
    assert main(["replay", str(pgn), "--verify", "--quiet"]) == 0
    out_dir = tmp_path / "replayed"
    code = main(["replay", str(pgn), "--config", str(cfg), "--verify", "--out", str(out_dir)])
    assert code == 0
    out = capsys.readouterr().out
    summary = "5 players (seeds from the config), 2 complete single rounds (given), 4 games, 2 BYEs"
    assert summary in out

    for name in ("crosstable.json", "schedule.json"):
        daemon = json.loads((state / "tcec" / name).read_text())
        replayed = json.loads((out_dir / name).read_text())
        assert replayed == daemon, name

    # The records rebuilt from the PGN render back to the very same PGN text
    # (what a state recovered with --from-pgn keeps writing).
    from tcecd.pgn.writer import game_pgn
    from tcecd.replay.event import rebuild_from_pgn
    from tcecd.replay.recover import iter_game_records

    event = rebuild_from_pgn(pgn)
    assert "".join(game_pgn(r) for r in iter_game_records(event)) == pgn.read_text()

    # A state restored from the PGN alone is the daemon's state.
    from tcecd.config.event_file import load_event
    from tcecd.config.fingerprint import config_fingerprint
    from tcecd.replay.recover import recover_from_pgn, restore_state
    from tcecd.store.sqlite import EventStore

    config = load_event(cfg)
    recovered = recover_from_pgn(config, pgn)
    with EventStore(tmp_path / "restored") as new, EventStore(state) as old:
        assert restore_state(new, recovered, fingerprint=config_fingerprint(config)) == 4
        assert new.players() == old.players()
        assert new.fingerprint() == old.fingerprint()
        assert new.pairings() == old.pairings()
        assert new.round_records() == old.round_records()
        assert [(g.game_id, g.played, g.pgn) for g in new.games()] == [
            (g.game_id, g.played, g.pgn) for g in old.games()
        ]
        for restored, original in zip(new.games(), old.games(), strict=True):
            a, b = json.loads(restored.record_json), json.loads(original.record_json)
            # The daemon times a game with a monotonic clock; the PGN keeps its
            # start and end times to the millisecond, so the duration read
            # back from them can differ by the rounding of each: 1 ms at most.
            assert abs(a.pop("duration_ms") - b.pop("duration_ms")) <= 1
            assert a == b
