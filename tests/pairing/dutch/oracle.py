"""bbpPairings v5.0.1 as a reference for the Dutch differential tests.

Random tournaments come from bbpPairings' own generator (``-g CONFIG -s SEED``);
each of their rounds is then paired again from the finished rounds before it,
by bbpPairings (``--dutch FILE -p OUT``) and by tcecd, and the two outputs
(JaVaFo's ``-p`` format: pairs in board order, white first, the bye as ``N 0``)
are compared as text.

The generator gives up on some seeds (a round it cannot pair: exit code 1);
such a shape is generated again with another seed (:func:`generate_event`),
and a comparison says how many rounds it compared, so that "no differences"
never stands for "nothing compared".
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from tcecd.errors import PairingError
from tcecd.pairing.base import RoundContext
from tcecd.pairing.dutch.system import Dutch2017
from tcecd.trf.model import TrfEvent
from tcecd.trf.reader import parse_trf
from tcecd.trf.writer import format_pairing, format_trf
from tests.trf.oracle import bbp_path

#: ../shared/oracles/bbpPairings-v5.0.1 (or $TCECD_BBPPAIRINGS), found as the TRF tests find it.
ORACLE = bbp_path() or Path("../shared/oracles/bbpPairings-v5.0.1")

#: Seeds tried for one shape before a comparison fails: the shape's own,
#: then ``seed + k * RESEED`` (the generator gave up on about 4 in 100).
ATTEMPTS = 5
RESEED = 1_000_000


def require_oracle() -> None:
    """Skip the calling test without bbpPairings; with ``CI=true`` fail
    instead (a missing reference must not pass unnoticed)."""
    if ORACLE.exists():
        return
    message = f"bbpPairings oracle not found at {ORACLE} (set TCECD_BBPPAIRINGS)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


@dataclass(frozen=True, slots=True)
class Generated:
    """One generated tournament's shape."""

    players: int
    rounds: int
    seed: int
    draw: int = 30
    forfeit: int = 5
    retired: int = 3
    half_bye: int = 5

    def config(self) -> str:
        return "\n".join(
            [
                f"PlayersNumber={self.players}",
                f"RoundsNumber={self.rounds}",
                f"DrawPercentage={self.draw}",
                f"ForfeitRate={self.forfeit}",
                f"RetiredRate={self.retired}",
                f"HalfPointByeRate={self.half_bye}",
                "HighestRating=2700",
                "LowestRating=1400",
                "",
            ]
        )


def generate(shape: Generated, folder: Path) -> TrfEvent | None:
    """The generated tournament, or None when bbpPairings' generator gave up
    (a round without a valid pairing: exit code 1)."""
    cfg = folder / f"cfg{shape.seed}.txt"
    out = folder / f"gen{shape.seed}.trf"
    cfg.write_text(shape.config())
    proc = subprocess.run(
        [str(ORACLE), "--dutch", "-g", str(cfg), "-o", str(out), "-s", str(shape.seed)],
        capture_output=True,
        timeout=120,
    )
    if proc.returncode == 1:
        return None
    proc.check_returncode()
    event = parse_trf(out.read_text(), str(out))
    context = replace(event.context, total_rounds=shape.rounds)
    return replace(event, context=context)


def generate_event(shape: Generated, folder: Path) -> tuple[Generated, TrfEvent]:
    """A generated tournament of this shape and the shape it was made with:
    when the generator gives up on the seed, the same shape with the next
    seed (``seed + RESEED``, ...), at most :data:`ATTEMPTS` seeds."""
    for attempt in range(ATTEMPTS):
        tried = replace(shape, seed=shape.seed + attempt * RESEED)
        event = generate(tried, folder)
        if event is not None:
            return tried, event
    raise AssertionError(f"bbpPairings' generator gave up on {ATTEMPTS} seeds from {shape}")


def prefix(event: TrfEvent, done: int) -> TrfEvent:
    """The event before round ``done + 1`` is paired, with that round's byes."""
    requested = event.rounds[done].requested_byes if done < len(event.rounds) else ()
    context = RoundContext(
        total_rounds=event.context.total_rounds,
        requested_byes=requested,
        first_colour=event.context.first_colour,
    )
    return replace(event, rounds=event.rounds[:done], context=context)


def oracle_pairing(event: TrfEvent, folder: Path, tag: str) -> str:
    path = folder / f"{tag}.trf"
    out = folder / f"{tag}.out"
    path.write_text(format_trf(event))
    proc = subprocess.run(
        [str(ORACLE), "--dutch", str(path), "-p", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode == 1:
        return "NO PAIRING\n"
    if proc.returncode != 0:
        raise RuntimeError(f"bbpPairings failed on {path}: {proc.stderr.strip()}")
    return out.read_text().replace("\r\n", "\n").replace("\r", "\n")


def tcecd_pairing(event: TrfEvent) -> str:
    try:
        pairing = Dutch2017().pair(
            event.players, event.rounds, double=False, context=event.context
        )
    except PairingError:
        return "NO PAIRING\n"
    return format_pairing(pairing, event.players)


@dataclass(frozen=True, slots=True)
class Comparison:
    """One generated tournament paired again round by round: the shape it
    was generated with (its seed may differ from the one asked for), how
    many rounds were compared, and those that differ as (round,
    bbpPairings' output, tcecd's output)."""

    shape: Generated
    compared: int
    diffs: tuple[tuple[int, str, str], ...]


def compare_event(
    shape: Generated, folder: Path | None = None, *, rounds: range | None = None
) -> Comparison:
    """Pair every round of one generated tournament (or the rounds in
    ``rounds``, numbered from 1) with both programs and compare."""
    with tempfile.TemporaryDirectory() as tmp:
        where = folder or Path(tmp)
        used, event = generate_event(shape, where)
        wanted = rounds if rounds is not None else range(1, len(event.rounds) + 1)
        diffs = []
        for number in wanted:
            before = prefix(event, number - 1)
            expected = oracle_pairing(before, where, f"s{used.seed}r{number}")
            got = tcecd_pairing(before)
            if got != expected:
                diffs.append((number, expected, got))
        return Comparison(used, len(wanted), tuple(diffs))
