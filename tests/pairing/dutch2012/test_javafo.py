"""tcecd's Dutch 2012 system against JaVaFo 1.4 on random tournaments.

Each tournament (:func:`tests.pairing.dutch2012.oracle.play`: ratings and
titles, requested half-point byes, absences, late starters, withdrawals,
Elo-model results with forfeits) is played with JaVaFo 1.4's pairings; every
round is paired again by tcecd from the rounds before it, and the two outputs
must be identical: the same pairs, colours, board order and bye.

By default a few tournaments run (about 10 s of CPU, most of it the Java
start of each JaVaFo call); ``TCECD_ORACLE_CASES=N`` runs N of them (seeds 1
to N; 300 take about 20 minutes on one core). Where tcecd follows the 2012
text and JaVaFo 1.4 does not, the round is listed in :data:`DEPARTURES` with
the article that decides it, and ``test_departures.py`` checks tcecd's
pairing worked out by hand.

The same tournaments are recorded in ``data/javafo14-random.json.gz`` (seeds 1
to 2500), which ``test_javafo_recorded.py`` replays without Java: each
tournament played here must be the recorded one, round by round (its inputs
and JaVaFo's outputs), so this test also proves the recording is what JaVaFo
1.4 pairs.

Needs Java and ``../shared/oracles/javafo-1.4.jar`` (or ``$TCECD_JAVAFO14``):
skipped without them, except under ``CI=true``, where that is a failure.
"""

from __future__ import annotations

import hashlib
import os

import pytest

from tests.pairing.dutch2012.oracle import DEPARTURES, OPEN, Shape, jar_path, missing, play
from tests.pairing.dutch2012.record_javafo import encode, load

#: The tournaments run by default: small fields, so that the Java start-ups
#: (about 0.15 s of CPU per round) keep the whole test near 10 s. They pass
#: through the rules that JaVaFo 1.4 decided (docs/pairing.md): B.3 for floaters
#: (13), the minimum number of pairs (4), colours without history (10), C.12
#: (51), C.13 (108, 192), B.5 for moved-down players (125) and a departure (66).
DEFAULT_SEEDS = (4, 10, 13, 51, 66, 108, 125, 192)


def _seeds() -> list[int]:
    count = os.environ.get("TCECD_ORACLE_CASES")
    if count:
        return list(range(1, int(count) + 1))
    return list(DEFAULT_SEEDS)


@pytest.fixture(scope="module", autouse=True)
def _oracle() -> None:
    why = missing()
    if why is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"JaVaFo 1.4 oracle unavailable under CI=true: {why}")
    pytest.skip(f"JaVaFo 1.4 oracle unavailable: {why}")


@pytest.mark.parametrize("seed", _seeds())
def test_rounds_agree_with_javafo_1_4(seed: int) -> None:
    shape = Shape.random(seed)
    played = play(shape)
    assert played.rounds > 0
    recorded = {t["seed"]: t for t in load()["tournaments"]}.get(seed)
    if recorded is not None:
        assert encode(played) == recorded, f"seed {seed}: JaVaFo 1.4 no longer plays the recording"
    differ = {d.round for d in played.differences}
    unexplained = [d for d in played.differences if (seed, d.round) not in DEPARTURES | OPEN]
    if unexplained:
        d = unexplained[0]
        pytest.fail(
            f"{shape}: {len(unexplained)} round(s) differ; round {d.round}:\n{d.trf}\n"
            f"JaVaFo 1.4:\n{d.javafo}tcecd:\n{d.tcecd}"
        )
    departures = {r for (s, r) in DEPARTURES if s == seed}
    assert departures <= differ, f"departures {departures - differ} no longer differ"
    still_open = sorted(r for (s, r) in OPEN if s == seed and r in differ)
    if still_open:
        pytest.xfail(f"open differences in rounds {still_open}: see OPEN")


def test_recording_is_of_this_jar() -> None:
    """data/javafo14-random.json.gz was written by the jar found here."""
    jar = jar_path()
    assert jar is not None
    assert load()["jar_sha256"] == hashlib.sha256(jar.read_bytes()).hexdigest()
