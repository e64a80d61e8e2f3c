"""The event rules in every pairing system: forbidden pairs never meet in the
systems that honour them, virtual points move players between brackets,
and the systems that cannot honour a rule refuse it in one line.

Hand-worked rounds (each also checked against bbpPairings v5.0.1 and JaVaFo
3.0p while it was written; tests/pairing/dutch/test_rules_differential.py
compares them on random tournaments).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from tcecd.cli import main
from tcecd.errors import PairingError
from tcecd.pairing.base import Player, RoundContext, RoundPairing
from tcecd.pairing.points import baku, forbidden_pairs, parse_points
from tcecd.pairing.registry import RULES, SYSTEMS, check_rules, get_system, rules_used
from tcecd.pairing.simulation import simulate_event
from tcecd.pairing.state_json import load_event_state

from .helpers import field

HONOURING = ("dutch-2017", "dutch-2012", "dubov", "integer-program")


def _rated(n: int) -> tuple[Player, ...]:
    return tuple(replace(p, rating=2800 - 10 * p.seed) for p in field(n))


def seeds(pairing: RoundPairing, players: Sequence[Player]) -> list[str]:
    seed = {p.id: p.seed for p in players}
    return [f"{seed[g.white]}-{seed[g.black]}" for g in pairing.games]


def test_round_one_with_baku_acceleration() -> None:
    """Eight players, Baku: GA = 2 * (8 / 4) = players 1-4 with one virtual
    point in round 1, so two brackets: {1, 2, 3, 4} pairs 1-3 4-2 and
    {5, 6, 7, 8} 5-7 8-6 (S1 against S2, colours alternating from white1).
    Without it: 1-5 6-2 3-7 8-4. bbpPairings and JaVaFo pair the same."""
    players = _rated(8)
    points, virtual = baku(players, 5)
    context = RoundContext(total_rounds=5, points=points, acceleration=virtual)
    dutch = get_system("dutch-2017")
    assert seeds(dutch.pair(players, [], double=False, context=context), players) == [
        "1-3",
        "4-2",
        "5-7",
        "8-6",
    ]
    plain = dutch.pair(players, [], double=False, context=RoundContext(total_rounds=5))
    assert seeds(plain, players) == ["1-5", "6-2", "3-7", "8-4"]


@pytest.mark.parametrize("system", HONOURING)
def test_forbidden_pairs_never_meet(system: str) -> None:
    """Players 1-2, 3-4, 5-6 and 1-3 may not meet: over a 12-player event
    none of them does, in any system that honours forbidden pairs."""
    forbid = [("P01", "P02"), ("P03", "P04"), ("P05", "P06"), ("P01", "P03")]
    event = simulate_event(12, 5, system=system, seed=5, forbidden=forbid)
    banned = forbidden_pairs(forbid)
    assert event.context.forbidden_pairs == banned
    met = {frozenset((g.white, g.black)) for r in event.rounds for g in r.games}
    assert not met & banned
    # The same event without them pairs some of them (the rule did the work).
    free = simulate_event(12, 5, system=system, seed=5)
    assert {frozenset((g.white, g.black)) for r in free.rounds for g in r.games} & banned


def test_a_round_forbidden_pairs_make_impossible_is_an_error() -> None:
    """Four players, every pair but 1-2 and 3-4 forbidden, and those two
    met in round 1: no pairing is left (A.9: the arbiter decides)."""
    players = _rated(4)
    dutch = get_system("dutch-2017")
    first = dutch.pair(players, [], double=False)
    assert seeds(first, players) == ["1-3", "4-2"]
    from tcecd.domain import Result
    from tcecd.pairing.base import PlayedGame

    record = first.record([PlayedGame(g.white, g.black, Result.DRAW) for g in first.games])
    banned = forbidden_pairs([("P1", "P2"), ("P3", "P4"), ("P1", "P4"), ("P2", "P3")])
    with pytest.raises(PairingError, match="round 2: no pairing satisfies the absolute"):
        dutch.pair(players, [record], double=False, context=RoundContext(forbidden_pairs=banned))


def test_the_registry_lists_who_honours_what() -> None:
    honours = {info.name: info.rules for info in SYSTEMS}
    for name in HONOURING:
        assert honours[name] == tuple(RULES)
    assert honours["tcec-swiss"] == ()
    assert honours["round-robin"] == ("points",)


@pytest.mark.parametrize(
    ("system", "context", "message"),
    [
        (
            "tcec-swiss",
            RoundContext(forbidden_pairs=forbidden_pairs([("P1", "P2")])),
            "round 1: the tcec-swiss system cannot honour forbidden pairs "
            "(TRF XXP, pairing.forbidden_pairs)",
        ),
        (
            "tcec-swiss",
            RoundContext(points=parse_points("3-1-0")),
            "round 1: the tcec-swiss system cannot honour a point system other than the "
            "standard one (TRF XXS/BB?, pairing.points)",
        ),
        (
            "round-robin",
            RoundContext(acceleration=baku(field(4), 3)[1]),
            "round 1: the round-robin system cannot honour accelerated rounds "
            "(TRF XXA, pairing.acceleration)",
        ),
    ],
)
def test_systems_that_cannot_honour_a_rule_refuse_it(
    system: str, context: RoundContext, message: str
) -> None:
    with pytest.raises(PairingError) as info:
        get_system(system).pair(field(4), [], double=False, context=context)
    assert str(info.value) == message


def test_round_robin_ranks_by_a_point_system() -> None:
    event = simulate_event(4, 3, system="round-robin", points=parse_points("3-1-0"), seed=2)
    assert {s.unit for s in event.standings} == {1}
    assert sum(s.score_units for s in event.standings) in range(12, 19)  # 6 games, 2-3 each
    check_rules("round-robin", event.context)


def test_rules_used_names_the_non_default_fields() -> None:
    assert rules_used(RoundContext()) == ()
    assert rules_used(RoundContext(points=parse_points("1-0.5-0"))) == ()
    context = RoundContext(
        forbidden_pairs=forbidden_pairs([("a", "b")]),
        points=parse_points("3-1-0"),
        acceleration=baku(field(4), 3)[1],
    )
    assert rules_used(context) == ("forbidden_pairs", "acceleration", "points")


def test_a_json_document_carries_the_rules_to_tcecd_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``simulate --json`` writes the rules in ``"context"``; ``tcecd pair``
    reads them back and pairs the next round as the system does with them."""
    base = ["simulate", "--system", "dutch", "--players", "8", "--rounds", "2", "--json"]
    assert main([*base, "--acceleration", "baku"]) == 0
    # Two rounds: one accelerated, GA (4 of 8) with one virtual point.
    assert json.loads(capsys.readouterr().out)["context"]["acceleration"] == {
        pid: [1] for pid in ("P01", "P04", "P06", "P07")
    }
    assert main([*base, "--points", "3-1-0", "--forbid", "P01,P02"]) == 0
    doc = json.loads(capsys.readouterr().out)
    context = doc["context"]
    assert context["forbidden_pairs"] == [["P01", "P02"]]
    assert context["points"]["win_white"] == 3
    assert doc["standings"][0]["score"] in (6.0, 4.0)  # two wins, or a win and a draw
    doc["context"]["total_rounds"] = 4
    path = tmp_path / "event.json"
    path.write_text(json.dumps(doc))
    assert main(["pair", str(path)]) == 0
    paired = json.loads(capsys.readouterr().out)
    state = load_event_state(path.read_text(), str(path))
    assert state.context.forbidden_pairs == forbidden_pairs([("P01", "P02")])
    expected = get_system("dutch-2017").pair(
        state.players, state.rounds, double=False, context=state.context
    )
    assert [(g["white"], g["black"]) for g in paired["games"]] == [
        (g.white, g.black) for g in expected.games
    ]
