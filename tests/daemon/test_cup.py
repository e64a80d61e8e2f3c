"""A knockout cup of seven bundled engines through ``tcecd run``: the bracket,
encounters decided as cutechess-cli decides them, tiebreak games at their own
time control with the higher seed advancing after the cap, TCEC's cup files;
killed (crash points in a tiebreak game, after a round's schedule, between a
commit and the PGN append, and a real SIGKILL at a random instant) and resumed
to the same cup; verified from its PGN by ``tcecd replay --verify``.

The engines are the bundled depth-1 engine with different evaluation noise:
deterministic, so two runs of the cup give the same games. The reference cup,
worked out from its PGN: round 1 pairs seeds 4-5, 2-7, 3-6 (seed 1 has the
BYE); 4-5 and 3-6 draw both games and both tiebreak games (cap 2) and the
higher seeds advance; 2-7 is won 2-0 by seed 2 after its two games."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.daemon.helpers import ROOT, normalise_pgn, pgn_rounds, run_env, run_tcecd, tcecd_argv

# One worker for the module: its tests share the cup played once (a module
# fixture; spread over workers it was played once per worker).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("daemon-cup")]

OPENINGS = ROOT / "configs" / "openings" / "demo.epd"
ENGINES = [
    "ab-d1",
    "ab-d1-noisy",
    *(
        f"{{ref: ab-d1, name: ab-d1-n{noise}, options: {{Noise: {noise}, Seed: {seed}}}}}"
        for noise, seed in ((50, 3), (120, 4), (200, 5), (300, 6), (400, 7))
    ),
]
SEEDS = ["ab-d1", "ab-d1-noisy", "ab-d1-n50", "ab-d1-n120", "ab-d1-n200", "ab-d1-n300",
         "ab-d1-n400"]  # fmt: skip


def write_cup(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    cfg = directory / "event.yaml"
    cfg.write_text(
        "event: {name: cup test, site: tests}\n"
        'pairing: {system: knockout, games: 2, tiebreak: {time_control: "30+0.5", max_games: 2}}\n'
        f"engines: [{', '.join(ENGINES)}]\n"
        'time_control: {tc: "60+1"}\n'
        "adjudication: {draw: null, max_moves: 30}\n"
        f"openings: {{file: {OPENINGS}}}\n"
        "concurrency: 2\n"
        "outputs: {state_dir: state}\n"
        "logging: {level: info, format: json}\n",
        encoding="utf-8",
    )
    return cfg


def finish(cfg: Path, *, max_runs: int = 4) -> str:
    """Run until the cup completes; its PGN."""
    for _ in range(max_runs):
        proc = run_tcecd(cfg)
        assert proc.returncode == 0, proc.stderr[-3000:]
        if "Final standings" in proc.stdout:
            return (cfg.parent / "state" / "event.pgn").read_text(encoding="utf-8")
    raise AssertionError("the cup never finished")


def tags(pgn: str, name: str) -> list[str]:
    import re

    return re.findall(rf'^\[{name} "([^"]*)"\]', pgn, re.M)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    cfg = write_cup(tmp_path_factory.mktemp("cup-reference"))
    return cfg, finish(cfg)


def test_the_cup_plays_its_bracket(reference: tuple[Path, str]) -> None:
    cfg, pgn = reference
    rounds = pgn_rounds(pgn)
    # Round 1: three encounters of two games each, then the two level ones' tiebreaks.
    assert rounds[:10] == [f"1.{n}" for n in range(1, 11)]
    whites, blacks = tags(pgn, "White"), tags(pgn, "Black")
    first_round = {frozenset(p) for p in zip(whites[:6], blacks[:6], strict=True)}
    seed = {name: i + 1 for i, name in enumerate(SEEDS)}
    # The standard seeded draw (seed 1 has the BYE): 4-5, 2-7, 3-6.
    assert {frozenset(seed[n] for n in pair) for pair in first_round} == {
        frozenset({4, 5}), frozenset({2, 7}), frozenset({3, 6}),
    }  # fmt: skip
    # Games beyond an encounter's two are tiebreak games, at their own time control.
    controls = dict(zip(rounds, tags(pgn, "TimeControl"), strict=True))
    assert {controls[g] for g in ("1.1", "1.2", "1.3", "1.4", "1.5", "1.6")} == {"60+1"}
    assert {controls[g] for g in ("1.7", "1.8", "1.9", "1.10")} == {"30+0.5"}
    # The game that decides an encounter says who advanced and why: 4-5 is level
    # after its two games and its two tiebreak games (all drawn), so seed 4 goes on.
    decided = dict(zip(rounds, [g for g in pgn.split("[Event ")[1:]], strict=True))
    assert '[Encounter "ab-d1-n120 advances: 2-2 tied after 2 tiebreak games: ab-d1-n120 ' \
        'advances as the higher seed"]' in decided["1.8"]
    assert '[Encounter "ab-d1-noisy advances: ab-d1-noisy wins 1.5-0.5"]' in decided["1.4"]
    assert "[Encounter " not in decided["1.1"]
    state = cfg.parent / "state" / "tcec"
    tournament = json.loads((state / "tournament.json").read_text(encoding="utf-8"))
    assert tournament["cup"] != 0  # TCEC's viewer shows the bracket
    bracket = json.loads((state / "Eventcrosstable.json").read_text(encoding="utf-8"))
    assert set(bracket) >= {"EventTable", "teams", "results"}
    assert len(bracket["EventTable"]) == 6  # 3 + 2 + 1 encounters (the BYE is not one)


def test_a_cup_killed_at_any_instant_resumes_to_the_same_cup(
    tmp_path: Path, reference: tuple[Path, str]
) -> None:
    _, ref = reference
    cfg = write_cup(tmp_path)
    # In a tiebreak game, right after round 2 was scheduled, between a tiebreak
    # game's commit and its PGN append: each run dies there, the next resumes.
    for point in ("mid-game:1.7:ply=5", "after-pairing:2", "after-store:2.5"):
        proc = run_tcecd(cfg, crash_at=point)
        assert proc.returncode == -signal.SIGKILL, (point, proc.stderr[-2000:])
    # A real SIGKILL at a random instant of the rest (the seed is printed).
    seed = random.randrange(1_000_000)
    print(f"random kill seed: {seed}")
    proc = subprocess.Popen(tcecd_argv(cfg), cwd=ROOT, env=run_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    time.sleep(random.Random(seed).uniform(0.5, 3.0))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    got = finish(cfg)
    assert pgn_rounds(got) == pgn_rounds(ref)
    assert normalise_pgn(got) == normalise_pgn(ref)


def replay(cfg: Path, pgn: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*tcecd_argv(cfg)[:3], "replay", str(pgn), "--config", str(cfg), "--verify"],
        cwd=ROOT, env=run_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_replay_verifies_the_cup(reference: tuple[Path, str], tmp_path: Path) -> None:
    cfg, pgn = reference
    proc = replay(cfg, cfg.parent / "state" / "event.pgn")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK: all 20 games follow the knockout rules" in proc.stdout
    assert "   1  ab-d1          3     3.5      6" in proc.stdout  # the cup's winner
    # Game 1.3 given to ab-d1-n400 instead: it would have led its encounter 1.5-0.5
    # and gone on, so the round-2 games of ab-d1-noisy deviate from the bracket.
    tampered = tmp_path / "tampered.pgn"
    games = ["[Event " + g for g in pgn.split("[Event ")[1:]]
    games[2] = games[2].replace('[Result "1-0"]', '[Result "0-1"]')
    tampered.write_text("".join(games), encoding="utf-8")
    proc = replay(cfg, tampered)
    assert proc.returncode == 1
    assert "knockout game 2.3 (ab-d1-noisy-ab-d1-n50) is not an encounter of round 2" in (
        proc.stdout
    )
    assert "FAILED:" in proc.stdout
    # Without its config: one line naming what is missing, exit 2.
    proc = subprocess.run(
        [*tcecd_argv(cfg)[:3], "replay", str(cfg.parent / "state" / "event.pgn"), "--verify"],
        cwd=ROOT, env=run_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "replaying a knockout cup needs its config (--config EVENT.yaml" in proc.stderr
    assert "Traceback" not in proc.stderr
