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

Needs Java and ``../shared/oracles/javafo-1.4.jar`` (or ``$TCECD_JAVAFO14``):
skipped without them, except under ``CI=true``, where that is a failure.
"""

from __future__ import annotations

import os

import pytest

from tests.pairing.dutch2012.oracle import Shape, missing, play

#: (seed, round) -> the article by which tcecd's pairing differs from JaVaFo 1.4's
#: (docs/pairing.md, "Dutch 2012"; test_departures.py works one out by hand).
_B1B = "B.1b: every player had a point without playing; JaVaFo 1.4 gives a bye anyway"
DEPARTURES: dict[tuple[int, int], str] = {
    (66, 5): _B1B,
    (68, 9): _B1B,
    (173, 10): _B1B,
    (208, 9): _B1B,
    (208, 10): _B1B,
    (208, 11): _B1B,
    (273, 6): _B1B,
}

#: (seed, round) -> rounds where tcecd still pairs otherwise than JaVaFo 1.4 and
#: no reading of the text has been found that gives JaVaFo's pairing without
#: losing others (docs/pairing.md, "Dutch 2012", open differences): each one
#: involves C.13 joining brackets. Run as expected failures, never as passes.
_C13 = "C.13 joins brackets; JaVaFo 1.4 pairs the joined bracket otherwise"
OPEN: dict[tuple[int, int], str] = {
    (45, 7): _C13,
    (45, 9): _C13,
    (80, 9): _C13,
    (99, 8): _C13,
    (129, 9): _C13,
    (173, 8): _C13,
    (177, 10): _C13,
    (221, 5): _C13,
    (221, 8): _C13,
}

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
