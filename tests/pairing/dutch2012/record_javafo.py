"""JaVaFo 1.4's pairings of random tournaments, recorded once and replayed without Java.

``python -m tests.pairing.dutch2012.record_javafo [FIRST [COUNT]]`` plays the
random tournaments of seeds FIRST to FIRST+COUNT-1 (1 and 2500 by default)
with :func:`tests.pairing.dutch2012.oracle.play`, every round paired by
JaVaFo 1.4 (Java and ``javafo-1.4.jar`` needed; one call at a time, about
0.1 to 0.3 s per round: about 40 minutes for 2500 tournaments on a 2-core machine),
and writes what JaVaFo played to :data:`RECORDING`
(``data/javafo14-random.json.gz``). Progress goes to ``RECORDING.partial``
(one tournament per line), so an interrupted run resumes where it stopped;
``-o PATH`` writes elsewhere. The differences tcecd makes today are printed
as the recording goes (for information: the recording holds JaVaFo's
pairings only).

The file is gzip'd JSON::

    {"format": 1, "oracle": "...", "jar_sha256": "...", "generator": "...",
     "tournaments": [
       {"seed": 1, "rounds": 7, "first": "white",
        "players": [["Player 001", 2650, "GM"], ...],
        "played": [["3Z 5H", "4\\n1 2\\n...", "10=+", "a1b2c3..."], ...]}, ...]}

Player ``i`` (1-based) of ``players`` has id and pairing number ``i``;
``rounds`` is the planned number of rounds (TRF ``XXR``), ``first`` the colour
of player 1 in round 1 (``XXC``). Each entry of ``played`` is one round, in
order: the players not paired that round (id and TRF-2016 letter: ``Z``
absent, ``H`` half-point bye), JaVaFo 1.4's ``-p`` output for it (``NO
PAIRING`` when JaVaFo found none: the tournament ends there), the results of
its games in JaVaFo's board order (``1`` ``0`` ``=`` played, ``+`` ``-``
forfeited, white's point first), and the start of the SHA-256 of the TRF text
JaVaFo read for that round: :func:`rounds` rebuilds each round's input from
the rounds before it, and ``test_javafo_recorded.py`` checks it is that text.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcecd.domain import Color, Result
from tcecd.pairing.base import Bye, ByeKind, PlayedGame, Player, RoundContext, RoundRecord
from tcecd.trf.model import TrfEvent
from tcecd.trf.writer import format_trf
from tests.pairing.dutch2012.oracle import (
    NO_PAIRING,
    Played,
    Shape,
    jar_path,
    javafo14_text,
    missing,
    play,
)

RECORDING = Path(__file__).parent / "data" / "javafo14-random.json.gz"
FORMAT = 1
_ORACLE = "JaVaFo Rel. 1.4 (Build 1913), ../shared/oracles/javafo-1.4.jar"
_GENERATOR = "tests/pairing/dutch2012/oracle.py: play(Shape.random(seed))"

_PLAYED = {Result.WHITE_WINS: "1", Result.BLACK_WINS: "0", Result.DRAW: "="}
_FORFEIT = {Result.WHITE_WINS: "+", Result.BLACK_WINS: "-"}
_RESULTS = {
    "1": (Result.WHITE_WINS, True),
    "0": (Result.BLACK_WINS, True),
    "=": (Result.DRAW, True),
    "+": (Result.WHITE_WINS, False),
    "-": (Result.BLACK_WINS, False),
}


def digest(event: TrfEvent) -> str:
    """The start of the SHA-256 of ``event``'s TRF as JaVaFo 1.4 reads it."""
    return hashlib.sha256(javafo14_text(format_trf(event)).encode()).hexdigest()[:16]


def _result_code(game: PlayedGame) -> str:
    codes = _PLAYED if game.played else _FORFEIT
    return codes[game.result]


def _pairs(output: str) -> tuple[list[tuple[str, str]], str | None]:
    """JaVaFo's ``-p`` output as its pairs in board order and its bye."""
    if output == NO_PAIRING:
        return [], None
    numbers = output.split()
    assert int(numbers[0]) * 2 == len(numbers) - 1, output
    pairs, bye = [], None
    for i in range(1, len(numbers), 2):
        white, black = numbers[i], numbers[i + 1]
        if black == "0":
            bye = white
        else:
            pairs.append((white, black))
    return pairs, bye


def encode(played: Played) -> dict[str, Any]:
    """One tournament :func:`play` played, as :data:`RECORDING` holds it."""
    for i, player in enumerate(played.players, start=1):
        assert player.id == str(i), player
        assert player.seed == i, player
    rounds = []
    for number, (event, output) in enumerate(zip(played.events, played.outputs, strict=True), 1):
        byes = " ".join(f"{b.player}{b.kind.value}" for b in event.context.requested_byes)
        results = ""
        if output != NO_PAIRING:
            record = played.finished[number - 1]
            assert record.round == number
            pairs, _ = _pairs(output)
            assert [(g.white, g.black) for g in record.games] == pairs
            results = "".join(_result_code(g) for g in record.games)
        rounds.append([byes, output, results, digest(event)])
    return {
        "seed": played.shape.seed,
        "rounds": played.shape.rounds,
        "first": played.first.value,
        "players": [[p.name, p.rating, p.title] for p in played.players],
        "played": rounds,
    }


@dataclass(frozen=True, slots=True)
class RecordedRound:
    """One round JaVaFo 1.4 paired: its input, JaVaFo's output, the input's digest."""

    seed: int
    round: int
    event: TrfEvent
    javafo: str
    digest: str


def rounds(tournament: dict[str, Any]) -> Iterator[RecordedRound]:
    """Each round of a recorded tournament with the input JaVaFo read for it,
    rebuilt from the players and the rounds before it."""
    seed = tournament["seed"]
    players = tuple(
        Player(str(i), name, i, rating, title)
        for i, (name, rating, title) in enumerate(tournament["players"], start=1)
    )
    first = Color(tournament["first"])
    finished: list[RoundRecord] = []
    for number, (byes_text, output, results, sha) in enumerate(tournament["played"], start=1):
        byes = tuple(Bye(entry[:-1], ByeKind(entry[-1])) for entry in byes_text.split())
        context = RoundContext(
            total_rounds=tournament["rounds"], requested_byes=byes, first_colour=first
        )
        event = TrfEvent(f"random {seed}", players, tuple(finished), context)
        yield RecordedRound(seed, number, event, output, sha)
        pairs, bye = _pairs(output)
        assert len(pairs) == len(results), (seed, number)
        games = []
        for (white, black), code in zip(pairs, results, strict=True):
            result, was_played = _RESULTS[code]
            games.append(PlayedGame(white, black, result, played=was_played))
        finished.append(RoundRecord(number, bye, (), tuple(games), byes))


def load(path: Path = RECORDING) -> dict[str, Any]:
    """The recording: its header and ``tournaments``."""
    data: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
    assert data["format"] == FORMAT, f"{path}: format {data['format']}, expected {FORMAT}"
    return data


def _jar_sha256() -> str:
    jar = jar_path()
    assert jar is not None
    return hashlib.sha256(jar.read_bytes()).hexdigest()


def record(first: int, count: int, out: Path) -> int:
    why = missing()
    if why is not None:
        print(f"JaVaFo 1.4 cannot run here: {why}", file=sys.stderr)
        return 2
    partial = out.with_name(out.name + ".partial")
    done: dict[int, dict[str, Any]] = {}
    if partial.exists():
        for line in partial.read_text().splitlines():
            if line.strip():
                entry = json.loads(line)
                done[entry["seed"]] = entry
    total_rounds = total_differences = 0
    with partial.open("a") as progress:
        for seed in range(first, first + count):
            if seed in done:
                continue
            played = play(Shape.random(seed))
            entry = encode(played)
            done[seed] = entry
            progress.write(json.dumps(entry, separators=(",", ":")) + "\n")
            progress.flush()
            total_rounds += played.rounds
            total_differences += len(played.differences)
            differ = [d.round for d in played.differences]
            stop = (
                f"; JaVaFo 1.4 gave no answer for round {played.unanswered}, the recording "
                "stops before it"
                if played.unanswered is not None
                else ""
            )
            print(f"seed {seed}: {played.rounds} rounds; tcecd differs in {differ}{stop}")
            sys.stdout.flush()
    data = {
        "format": FORMAT,
        "oracle": _ORACLE,
        "jar_sha256": _jar_sha256(),
        "generator": _GENERATOR,
        "tournaments": [done[s] for s in range(first, first + count)],
    }
    text = json.dumps(data, separators=(",", ":")).replace('"played":', '\n"played":')
    out.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
    partial.unlink()
    rounds_total = sum(len(t["played"]) for t in data["tournaments"])
    print(
        f"{out}: {count} tournaments, {rounds_total} rounds "
        f"({total_rounds} played now, {total_differences} differ from tcecd)"
    )
    return 0


def _main(argv: list[str]) -> int:
    args = list(argv[1:])
    out = RECORDING
    if "-o" in args:
        i = args.index("-o")
        out = Path(args[i + 1])
        del args[i : i + 2]
    first = int(args[0]) if args else 1
    count = int(args[1]) if len(args) > 1 else 2500
    return record(first, count, out)


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
