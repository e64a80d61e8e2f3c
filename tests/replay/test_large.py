"""A 10,000-game PGN streams through in bounded memory.

The event is built without the pairing core (re-pairing 10,000 games takes
longer than this area's test budget; verification is covered on smaller
events): round 1 is the rules' round 1, the later rounds are round-robin
rounds (circle method), all double rounds, so the file is a structurally
valid 100-player, 100-round event of exactly 10,000 games, each with a few
moves carrying TCEC comments, as a real event PGN has.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from tcecd.cli import main
from tcecd.replay.event import rebuild_from_pgn

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


def write_big_pgn(path: Path) -> int:
    games = 0
    with path.open("w", encoding="utf-8") as fh:
        for r in range(1, ROUNDS + 1):
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


@pytest.fixture(scope="module")
def big_pgn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.pgn"
    assert write_big_pgn(path) == 10_000
    return path


@pytest.mark.slow
def test_ten_thousand_games_stream_in_bounded_memory(big_pgn: Path) -> None:
    path = big_pgn
    size = path.stat().st_size
    assert size > 10_000_000

    tracemalloc.start()
    try:
        event = rebuild_from_pgn(path, verify=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(event.games) == 10_000
    assert len(event.rounds) == ROUNDS
    assert event.double is True
    assert event.seeds_inferred
    assert [p.seed for p in event.players] == list(range(1, PLAYERS + 1))
    assert all(int(p.id[1:4]) == p.seed for p in event.players)
    # The whole file never sits in memory: what is kept is a few hundred
    # bytes per game, far below the file's ~1.3 kB per game.
    assert peak < size / 4, (peak, size)


@pytest.mark.slow
def test_big_pgn_tables_from_the_command_line(
    big_pgn: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(big_pgn)]) == 0
    out = capsys.readouterr()
    assert "100 players (seeds inferred from round 1), 100 complete double rounds" in out.out
    assert out.err == ""  # no progress bar when stderr is not a terminal
