"""The cup's bracket: its size, the seeded draw and the first round.

The draw is the standard seeded one of tennis and of TCEC's first Cups: the
bracket has the next power of two of places, seed ``k`` meets seed
``size + 1 - k`` in the first round, and every half of the bracket is built
the same way, so the seeds that survive meet as late as possible (1 and 2 only
in the final, 1 and 3 or 4 in a semi-final, ...). Places beyond the field are
BYEs; seed ``k`` has one exactly when seed ``size + 1 - k`` does not exist, so
the BYEs fall to the top seeds. For eight places the first round reads, in
bracket order, 1-8, 4-5, 2-7, 3-6.

The order of the places is built by doubling: from the order for ``m`` places,
each seed ``s`` is followed by its first-round opponent ``2m + 1 - s``
(``[1, 2] -> [1, 4, 2, 3] -> [1, 8, 4, 5, 2, 7, 3, 6]``). TCEC's viewer computes
the same order for its bracket (``calculate_seeds`` in tcecgui's js/game.js,
when ``tournament.json`` has a ``cup`` below 6).

Where cutechess-cli differs (``KnockoutTournament::playerSeed`` and
``initializePairing`` in its projects/lib/src/knockouttournament.cpp, read at
commit c35723393cde881866ed1cc8019212d485055acd):

* Its places are not the standard draw. ``playerSeed`` sends an even rank to
  the lower half and an odd one to the upper half, recursively, so for eight
  places the first round is 1-5, 3-7, 2-6, 4-8: seed ``k`` meets seed
  ``k + size/2`` (a "slide", not the standard "fold"), and 1 can meet 3 in a
  semi-final. It agrees with us that 1 and 2 can meet only in the final, and
  that each quarter holds one of the top four seeds. (TCEC's viewer numbers
  its bracket in this order when ``tournament.json`` has a ``cup`` of 6 or
  more: ``calculate_seeds``' "new mode", labelled "cup6" in its tests.)
* BYEs go to the top seeds in both: cutechess fills the missing places with
  BYEs in rank order and moves each BYE next to the next top seed (the opponent
  it displaces takes the BYE's place). The encounters are the same as ours --
  for 5 players: 1-BYE, 2-BYE, 3-BYE, 4-5 -- but their places differ (cutechess
  puts 4-5 in 2's half, we put it in 1's: 1 meets the 4-5 winner in the
  semi-final, as the standard draw wants).
* cutechess shuffles the unseeded players (beyond ``-seeds N``) at random;
  tcecd's field is always wholly seeded (``seeding.method``).
"""

from __future__ import annotations

from tcecd.errors import PairingError


def bracket_size(players: int) -> int:
    """The number of places: the smallest power of two >= ``players``
    (1 for a field of one, a degenerate cup with no game)."""
    if players < 1:
        raise PairingError(f"a knockout needs at least one player, got {players!r}")
    size = 1
    while size < players:
        size *= 2
    return size


def round_count(players: int) -> int:
    """The number of knockout rounds (log2 of the bracket size; 0 for one player)."""
    return bracket_size(players).bit_length() - 1


def seed_order(size: int) -> tuple[int, ...]:
    """The seeds in bracket order for ``size`` places (a power of two).

    Consecutive pairs are the first round's encounters; the higher seed comes
    first in each (``seed_order(8) == (1, 8, 4, 5, 2, 7, 3, 6)``)."""
    if size < 1 or size & (size - 1):
        raise PairingError(f"a bracket has a power of two of places, got {size!r}")
    order = [1]
    places = 1
    while places < size:
        places *= 2
        order = [s for seed in order for s in (seed, places + 1 - seed)]
    return tuple(order)


def first_round(players: int) -> tuple[tuple[int, int | None], ...]:
    """The first round's encounters in bracket order as (higher seed, lower
    seed), the lower seed None for a BYE. Empty for a field of one."""
    size = bracket_size(players)
    if size == 1:
        return ()
    order = seed_order(size)
    pairs: list[tuple[int, int | None]] = []
    for i in range(0, size, 2):
        high, low = order[i], order[i + 1]
        pairs.append((high, low if low <= players else None))
    return tuple(pairs)


def round_name(round_number: int, rounds: int) -> str:
    """A round's name by the players it starts with: "Final", "Semi-finals",
    "Quarter-finals", else "Round of N" (the names TCEC's viewer shows)."""
    remaining = 2 ** (rounds - round_number + 1)
    return {2: "Final", 4: "Semi-finals", 8: "Quarter-finals"}.get(
        remaining, f"Round of {remaining}")
