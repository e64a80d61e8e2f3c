"""The bracket: its size, the standard seeded draw, BYEs to the top seeds.

The rule (issue 29, section 3; tennis and TCEC's first Cups): the next power
of two of places; seed k meets seed size + 1 - k in the first round; each half
is built the same way, so the surviving top seeds meet as late as possible;
a missing opponent is a BYE.
"""

from __future__ import annotations

import pytest

from tcecd.errors import PairingError
from tcecd.formats.knockout import KnockoutSettings, bracket_size, first_round, seed_order
from tcecd.formats.knockout.bracket import round_count, round_name

from .helpers import play, sequence


def test_eight_players_by_hand() -> None:
    # 8 places, no BYE. Seed k meets 9 - k: 1-8, 2-7, 3-6, 4-5. Their order:
    # the final is 1 v 2, so 1 and 2 head the two halves; in 1's half the
    # other semi-finalist is the 4-5 winner (1 + 4 = 5 = the semi-final sum
    # 4 + 1), in 2's half the 3-6 winner (2 + 3 = 5). So the upper half is
    # 1-8 then 4-5, the lower half 2-7 then 3-6.
    assert first_round(8) == ((1, 8), (4, 5), (2, 7), (3, 6))
    assert seed_order(8) == (1, 8, 4, 5, 2, 7, 3, 6)


def test_six_players_by_hand() -> None:
    # 6 players still need 8 places: seeds 7 and 8 do not exist, so their
    # first-round opponents, 2 (9 - 7) and 1 (9 - 8), have BYEs; the other
    # encounters are as for eight: 4-5 and 3-6. Places as for eight.
    assert first_round(6) == ((1, None), (4, 5), (2, None), (3, 6))


def test_sixteen_is_the_published_order() -> None:
    # TCEC's viewer's own test table (tcecgui js/game.test.js, calculate_seeds, 16 places).
    assert seed_order(16) == (1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11)


@pytest.mark.parametrize("n", range(2, 34))
def test_first_round_follows_the_rule(n: int) -> None:
    size = bracket_size(n)
    assert size >= n
    assert size & (size - 1) == 0
    assert size // 2 < n
    pairs = first_round(n)
    assert len(pairs) == size // 2
    seeds = [s for pair in pairs for s in pair if s is not None]
    assert sorted(seeds) == list(range(1, n + 1))
    for high, low in pairs:
        if low is None:
            assert size + 1 - high > n  # a BYE exactly when the opponent does not exist
        else:
            assert high + low == size + 1
            assert high < low
    # The BYEs go to the top seeds: seeds 1 .. size - n.
    assert sorted(h for h, low in pairs if low is None) == list(range(1, size - n + 1))


@pytest.mark.parametrize("n", range(2, 34))
def test_top_seeds_meet_as_late_as_possible(n: int) -> None:
    # When the higher seed wins every encounter, round r is played by seeds
    # 1 .. size / 2^(r-1) and every encounter's seeds sum to size / 2^(r-1) + 1
    # (with k = log2(size): 2^(k-r+1) + 1). Played through the whole cup.
    p = play(n, KnockoutSettings(games=1), sequence("W"))
    size = bracket_size(n)
    assert len(p.cup.rounds) == round_count(n)
    for r, rnd in enumerate(p.cup.rounds, start=1):
        alive = size >> (r - 1)
        for e in rnd.encounters:
            seeds = (e.upper_seed, e.lower_seed or size + 1 - e.upper_seed)
            assert sum(seeds) == alive + 1, (r, seeds)
    assert p.cup.champion == "P1"


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_each_block_of_the_bracket_holds_one_top_seed(size: int) -> None:
    # For every j, the top 2^j seeds are in different blocks of size/2^j places.
    order = seed_order(size)
    j = 1
    while 2**j <= size:
        block = size // 2**j
        blocks = [order[i:i + block] for i in range(0, size, block)]
        assert sorted(min(b) for b in blocks) == list(range(1, 2**j + 1))
        j += 1


def test_degenerate_and_bad_sizes() -> None:
    assert bracket_size(1) == 1
    assert first_round(1) == ()
    assert round_count(1) == 0
    with pytest.raises(PairingError, match="at least one player"):
        bracket_size(0)
    with pytest.raises(PairingError, match="power of two"):
        seed_order(6)


def test_round_names() -> None:
    assert [round_name(r, 5) for r in range(1, 6)] == [
        "Round of 32", "Round of 16", "Quarter-finals", "Semi-finals", "Final"]


# -- cutechess-cli, for the comparison in bracket.py's docstring ---------------------------


def _cutechess_player_seed(rank: int, bracket: int) -> int:
    """KnockoutTournament::playerSeed (knockouttournament.cpp, c35723393c), transcribed."""
    if rank <= 1:
        return 0
    if rank % 2 == 0:
        return bracket // 2 + _cutechess_player_seed(rank // 2, bracket // 2)
    return _cutechess_player_seed(rank // 2 + 1, bracket // 2)


def _cutechess_first_round(n: int) -> list[tuple[int, int | None]]:
    """KnockoutTournament::initializePairing with every player seeded (rank order), transcribed."""
    x = 1
    while x < n:
        x *= 2
    places = [-1] * x
    ranks = list(range(1, n + 1)) + [-1] * (x - n)
    byes = 0
    for i, player in enumerate(ranks):
        index = _cutechess_player_seed(i + 1, x)
        if player == -1:
            byes += 1
            bye_index = _cutechess_player_seed(byes, x) + 1
            places[index] = places[bye_index]
            places[bye_index] = player
        else:
            places[index] = player
    return [(places[i], None if places[i + 1] == -1 else places[i + 1]) for i in range(0, x, 2)]


def test_cutechess_differs_as_documented() -> None:
    # Eight places: cutechess's slide (1-5, 3-7, 2-6, 4-8), ours the fold.
    assert _cutechess_first_round(8) == [(1, 5), (3, 7), (2, 6), (4, 8)]
    # TCEC's viewer draws cutechess's order from cup 6 on (its test table, new mode).
    cc = [s for pair in _cutechess_first_round(16) for s in pair]
    assert cc == [1, 9, 5, 13, 3, 11, 7, 15, 2, 10, 6, 14, 4, 12, 8, 16]
    # Five players: the same encounters, BYEs to the top three seeds in both,
    # but 4-5 sits in 2's half for cutechess and in 1's half for us.
    assert _cutechess_first_round(5) == [(1, None), (3, None), (2, None), (4, 5)]
    assert first_round(5) == ((1, None), (4, 5), (2, None), (3, None))


@pytest.mark.parametrize("n", range(2, 34))
def test_byes_fall_to_the_same_top_seeds_as_cutechess(n: int) -> None:
    ours = {h for h, low in first_round(n) if low is None}
    theirs = {h for h, low in _cutechess_first_round(n) if low is None}
    assert ours == theirs == set(range(1, bracket_size(n) - n + 1))
    # Both keep 1 and 2 in different halves.
    for draw in (list(first_round(n)), _cutechess_first_round(n)):
        half = len(draw) // 2
        upper = {s for pair in draw[:half] for s in pair}
        if n > 2:
            assert (1 in upper) != (2 in upper)
