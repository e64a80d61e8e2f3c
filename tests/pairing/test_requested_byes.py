"""Requested byes that would silently change who is paired are refused, in
the same words, by every system that takes them."""

from __future__ import annotations

import pytest

from tcecd.errors import PairingError
from tcecd.pairing.base import Bye, ByeKind, Player, RoundContext
from tcecd.pairing.registry import SystemOptions, get_system

SYSTEMS = ("dutch-2017", "dutch-2012", "dubov", "integer-program")
PLAYERS = tuple(Player(f"p{i}", f"P{i}", i, 2000 - i) for i in range(1, 7))


@pytest.mark.parametrize("name", SYSTEMS)
def test_a_bye_of_an_unknown_player_is_refused(name: str) -> None:
    system = get_system(name, SystemOptions())
    context = RoundContext(requested_byes=(Bye("nobody", ByeKind.HALF),))
    with pytest.raises(PairingError, match=r"^round 1: unknown bye player 'nobody'$"):
        system.pair(PLAYERS, (), double=False, context=context)


@pytest.mark.parametrize("name", SYSTEMS)
def test_two_byes_of_one_player_are_refused(name: str) -> None:
    system = get_system(name, SystemOptions())
    twice = (Bye("p2", ByeKind.HALF), Bye("p2", ByeKind.ZERO))
    with pytest.raises(PairingError, match=r"^round 1: 'p2' has two byes$"):
        system.pair(PLAYERS, (), double=False, context=RoundContext(requested_byes=twice))


@pytest.mark.parametrize("name", SYSTEMS)
def test_a_requested_bye_takes_the_player_out_of_the_round(name: str) -> None:
    system = get_system(name, SystemOptions())
    context = RoundContext(requested_byes=(Bye("p2", ByeKind.HALF),))
    pairing = system.pair(PLAYERS, (), double=False, context=context)
    paired = {pid for pair in pairing.pairs for pid in (pair.first, pair.second)}
    assert "p2" not in paired
    assert pairing.bye != "p2"
    assert len(paired) == 4  # five left: four paired, one pairing-allocated bye
