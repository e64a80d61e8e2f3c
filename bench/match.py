#!/usr/bin/env python3
"""Orchestration cost of tcecd's game runner, next to the engines' own work.

Plays a 4-game Stockfish vs Stockfish match at ``nodes=20000`` a move
(Threads=1, Hash=16, two openings, colours reversed, one game at a time, the
engines kept alive between games as fastchess and cutechess-cli do) and prints:

- wall time of the games against the sum of the engines' think time (``go`` ->
  ``bestmove`` as tcecd measures it); target: at most 1.05x;
- tcecd's own CPU time per move (this process only, engines excluded);
- the latency from receiving ``bestmove`` to sending the next ``go``: median
  and 99th percentile; target: median under 1 ms;
- the match statistics as ``tcecd play`` prints them (Elo, nElo, pentanomial);
- the floor under tcecd's figure: the same games replayed by a driver that only
  reads the engines' lines and sends ``position`` + ``go`` (``bench/floor.py``),
  its CPU per move and what is left of tcecd's above it (tcecd's own work).

If ``fastchess`` or ``cutechess-cli`` is on PATH or in ``bench/peers/bin``, the
same match is run with it and its wall time, its own CPU time per move and the
ratio of tcecd's CPU per move to its own are printed beside tcecd's (each writes
a PGN, as tcecd does, and its moves are counted from it). Neither is packaged
for Debian or PyPI (PyPI's "fastchess" is an unrelated chess library): ``bash
bench/peers.sh`` builds both from source at pinned commits. The ratio is the
figure to compare across machines: what a wake-up costs differs by a factor of
two between hosts and hours (docs/engines.md). The load average is printed too:
on a loaded machine every figure, tcecd's CPU per move included, is larger.
With ``--runs N`` everything is run N times and a table of the runs' figures
with their medians ends the output (a single run's figure moves by 15-30% with
the host's noise). Usage: ``.venv/bin/python bench/match.py [--games 4]
[--nodes 20000] [--runs 1]``. Figures only, no assertions (see docs/engines.md).
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chess.pgn
from floor import replay

from tcecd import eventloop
from tcecd.config.load import find_executable, load_engine
from tcecd.game.record import GameRecord, Opening
from tcecd.game.timecontrol import TimeControl
from tcecd.runner.match import MatchSpec, run_match, unique_names

OPENINGS = (
    Opening(name="Open game", fen=None, moves=("e2e4", "e7e5")),
    Opening(name="Queen's gambit", fen=None, moves=("d2d4", "d7d5", "c2c4")),
)
EPD_LINES = (
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -",
    "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq -",
)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


async def tcecd_match(games: int, nodes: int) -> tuple[float, float, int, list[GameRecord]]:
    """Run the match with tcecd; prints the figures and returns the wall time (s),
    tcecd's CPU time (s), the number of engine moves and the games."""
    stockfish = load_engine("stockfish").model_copy(
        update={"options": {"Threads": 1, "Hash": 16}, "restart": "keep-alive"}
    )
    with tempfile.TemporaryDirectory() as tmp:
        spec = MatchSpec(
            engines=unique_names([stockfish, stockfish]),
            rounds=max(1, games // 2),  # as fastchess's -rounds N -games 2
            games=2,
            time_control=TimeControl(nodes=nodes),
            pgn_path=Path(tmp) / "bench.pgn",
            openings=OPENINGS,
            concurrency=1,
            keep_records=True,
        )
        cpu0, wall0 = time.process_time(), time.perf_counter()
        result = await run_match(spec)
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
    records = result.records
    think_s = sum(result.think_ns) / 1e9
    game_wall_s = sum(r.duration_ms for r in records) / 1000
    moves = len(result.think_ns)
    latencies_ms = [ns / 1e6 for ns in result.latencies_ns]
    print(f"tcecd: {len(records)} games, {moves} engine moves at nodes={nodes}")
    print(f"  engines' think time (go -> bestmove): {think_s:8.3f} s")
    print(
        f"  wall time of the games:               {game_wall_s:8.3f} s"
        f"  -> {game_wall_s / think_s:.3f}x think time (target <= 1.05x)"
    )
    print(f"  wall time incl. engine start-up:      {wall:8.3f} s  -> {wall / think_s:.3f}x")
    print(
        f"  tcecd CPU time: {cpu:.3f} s = {cpu / moves * 1000:.3f} ms per move"
        " (target <= 1 ms)"
    )
    if latencies_ms:
        print(
            f"  bestmove -> next go latency: median {statistics.median(latencies_ms):.3f} ms,"
            f" p99 {percentile(latencies_ms, 99):.3f} ms, max {max(latencies_ms):.3f} ms"
            f" (n={len(latencies_ms)}, target: median < 1 ms)"
        )
    # The statistics tcecd play prints (fastchess's, see tcecd/runner/stats.py).
    for line in result.report():
        print(f"  {line}")
    return wall, cpu, moves, records


async def floor_match(records: list[GameRecord], nodes: int, tcecd_cpu: float, moves: int) -> float:
    """Replay tcecd's games with a driver that only reads the engines' lines
    (``bench/floor.py``), print its CPU per move beside tcecd's and return it (ms)."""
    stockfish = find_executable("stockfish")
    assert stockfish is not None
    floor = await replay(str(stockfish), {"Threads": 1, "Hash": 16}, records, nodes)
    per_move = floor.cpu_s / floor.moves * 1000
    tcecd_per_move = tcecd_cpu / moves * 1000
    print(
        "pipes only (bench/floor.py: tcecd's games replayed on its pipes,"
        " nothing parsed or recorded):"
        f" {floor.moves} engine moves ({floor.agreed} bestmoves as tcecd's),"
        f" {floor.reads / floor.moves:.1f} reads a move; CPU {floor.cpu_s:.3f} s ="
        f" {per_move:.3f} ms per move; tcecd's own work above it:"
        f" {tcecd_per_move - per_move:.3f} ms per move"
    )
    return per_move


def peer_commands(
    tool: str, stockfish: str, games: int, nodes: int, epd: Path, pgn: Path
) -> list[str]:
    """The peer's command line for the bench's match, writing its games to
    ``pgn`` (tcecd writes a PGN too)."""
    engine = ["cmd=" + stockfish, "option.Threads=1", "option.Hash=16"]
    if Path(tool).name.startswith("fastchess"):
        return [
            tool,
            "-engine",
            *engine,
            "name=sf1",
            "-engine",
            *engine,
            "name=sf2",
            "-each",
            "tc=inf",
            f"nodes={nodes}",
            "-rounds",
            str(games // 2),
            "-games",
            "2",
            "-repeat",
            "-openings",
            f"file={epd}",
            "format=epd",
            "order=sequential",
            "-concurrency",
            "1",
            "-pgnout",
            f"file={pgn}",
        ]
    return [
        tool,
        "-engine",
        *engine,
        "name=sf1",
        "-engine",
        *engine,
        "name=sf2",
        "-each",
        "proto=uci",
        "tc=inf",
        f"nodes={nodes}",
        "-games",
        "2",
        "-rounds",
        str(games // 2),
        "-repeat",
        "-openings",
        f"file={epd}",
        "format=epd",
        "order=sequential",
        "-concurrency",
        "1",
        "-pgnout",
        str(pgn),
    ]


def pgn_moves(pgn: Path) -> int:
    """The number of moves in a PGN file's games (the peers start from the EPD
    positions, so every move is an engine's)."""
    moves = 0
    with pgn.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            moves += sum(1 for _ in game.mainline_moves())
    return moves


def own_cpu_s(argv: list[str], cwd: str) -> tuple[float, float]:
    """Run ``argv`` to its end; (wall s, its own CPU s: user + system, its
    engines excluded), read from /proc while it is a zombie, before it is reaped."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    wall = time.perf_counter() - start
    text = Path(f"/proc/{proc.pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    proc.wait()
    return wall, cpu


#: Where ``bench/peers.sh`` builds the peers (looked up after ``PATH``).
PEERS_BIN = Path(__file__).resolve().parent / "peers" / "bin"


def find_peer(name: str) -> str | None:
    """A peer's program: on ``PATH``, else built by ``bench/peers.sh``."""
    found = shutil.which(name)
    if found is None and (PEERS_BIN / name).is_file():
        found = str(PEERS_BIN / name)
    return found


PEERS = ("fastchess", "cutechess-cli")


def run_peers(
    games: int, nodes: int, tcecd_wall: float, tcecd_cpu: float, moves: int
) -> dict[str, float]:
    """Run the match with each peer found, print its figures, and return each
    one's CPU per move (ms)."""
    stockfish = find_executable("stockfish")
    assert stockfish is not None
    found = False
    figures: dict[str, float] = {}
    for name in PEERS:
        tool = find_peer(name)
        if tool is None:
            continue
        found = True
        with tempfile.TemporaryDirectory() as tmp:
            epd, pgn = Path(tmp) / "openings.epd", Path(tmp) / "games.pgn"
            epd.write_text("\n".join(EPD_LINES) + "\n", encoding="utf-8")
            argv = peer_commands(tool, str(stockfish), games, nodes, epd, pgn)
            wall, cpu = own_cpu_s(argv, tmp)
            own_moves = pgn_moves(pgn) if pgn.exists() else 0
        if not own_moves:
            print(f"{name}: wrote no games ({' '.join(argv)})")
            continue
        # Its CPU is read in clock ticks (10 ms): the ratio is +-5% at 4 games.
        per_move = cpu / own_moves * 1000
        ratio = tcecd_cpu / moves * 1000 / per_move if cpu > 0 else float("nan")
        print(
            f"{name}: {own_moves} engine moves; wall {wall:.3f} s;"
            f" tcecd/{name} = {tcecd_wall / wall:.3f}x; its own CPU {cpu:.3f} s ="
            f" {per_move:.3f} ms per move; tcecd's CPU per move = {ratio:.2f}x {name}'s"
        )
        figures[name] = per_move
    if not found:
        print(
            "peers: neither fastchess nor cutechess-cli is on PATH or in bench/peers/bin"
            " (not run; neither is packaged for Debian or PyPI: bash bench/peers.sh builds"
            " them from source)"
        )
    return figures


@dataclass(frozen=True)
class Run:
    """One run's CPU per move (ms): tcecd, the floor, and each peer run."""

    tcecd: float
    floor: float
    peers: dict[str, float]


def summary(runs: list[Run]) -> list[str]:
    """The runs as a Markdown table (CPU per move in ms, tcecd's own work is
    tcecd less the floor, ratios are tcecd's figure over the peer's), the
    medians, and in how many runs tcecd's figure was at most 1 ms. Host noise
    moves a single run's figure by 15-30% (docs/engines.md): the medians of
    several runs are the figures to compare."""
    peers = [name for name in PEERS if any(name in run.peers for run in runs)]
    head = ["run", "tcecd", "floor", "tcecd's own work"]
    for name in peers:
        head += [name, f"tcecd / {name}"]
    rows: list[list[float | None]] = []
    for run in runs:
        row: list[float | None] = [run.tcecd, run.floor, run.tcecd - run.floor]
        for name in peers:
            peer = run.peers.get(name)
            row += [peer, None if not peer else run.tcecd / peer]
        rows.append(row)
    columns = list(zip(*rows, strict=True))
    medians: list[float | None] = [
        statistics.median([v for v in column if v is not None] or [math.nan]) for column in columns
    ]

    def cells(row: list[float | None]) -> list[str]:
        ratio = [False, False, False] + [False, True] * len(peers)
        return [
            "-" if v is None else f"{v:.2f}x" if is_ratio else f"{v:.3f}"
            for v, is_ratio in zip(row, ratio, strict=True)
        ]

    lines = [
        f"summary of {len(runs)} runs, CPU per move in ms:",
        "| " + " | ".join(head) + " |",
        "|" + " --- |" * len(head),
    ]
    lines += [f"| {i} | " + " | ".join(cells(row)) + " |" for i, row in enumerate(rows, 1)]
    lines.append("| median | " + " | ".join(cells(medians)) + " |")
    within = sum(run.tcecd <= 1.0 for run in runs)
    lines.append(f"tcecd at most 1 ms per move in {within} of {len(runs)} runs")
    return lines


def load_average() -> str:
    """The 1, 5 and 15 minute load averages."""
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument(
        "--runs", type=int, default=1, help="run everything N times and print a summary table"
    )
    args = parser.parse_args()
    if find_executable("stockfish") is None:
        print("bench/match.py: stockfish not found (bash deploy/install.sh)", file=sys.stderr)
        return 2
    print(f"load average: {load_average()} on {os.cpu_count()} CPUs")
    # On the loop tcecd play runs on (uvloop unless TCECD_EVENT_LOOP=asyncio).
    print(f"event loop: {eventloop.name()}")
    runs: list[Run] = []
    for number in range(1, args.runs + 1):
        if args.runs > 1:
            print(f"== run {number} of {args.runs} (load average {load_average()})")
        wall, cpu, moves, records = eventloop.run(tcecd_match(args.games, args.nodes))
        floor = eventloop.run(floor_match(records, args.nodes, cpu, moves))
        peers = run_peers(args.games, args.nodes, wall, cpu, moves)
        runs.append(Run(cpu / moves * 1000, floor, peers))
    if args.runs > 1:
        print("\n".join(summary(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
