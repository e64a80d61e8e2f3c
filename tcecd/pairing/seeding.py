"""Seeding procedures (rule text, "Seeding"; tcec-swiss.md, "Players, seeds, scores").

Every player gets a unique seed 1..P (1 = top seed). The seed fixes the first
round (seed2-seed1, seed4-seed3, ...) and breaks score ties in every later
pairing order. Methods:

``explicit``
    the order given;
``rating``
    highest rating first; equal ratings keep the order given;
``group``
    the rule text's group seeding: players by strength (rating when every
    player has one, else the order given) split into an even number of groups,
    stronger groups one player larger when the split is uneven; seeds then
    pick the strongest unseeded player of group A, B, C, ... in turn. Default
    number of groups ``round_to_even(P / 7)``, at least 2;
``random``
    a shuffle with :class:`random.Random` seeded by ``rng_seed`` (which the
    caller records, so the seeding replays identically).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from tcecd.domain import PlayerId
from tcecd.errors import ConfigError
from tcecd.pairing.base import Player

#: The seeding methods, with a one-line meaning each.
SEEDING_METHODS: dict[str, str] = {
    "explicit": "the order given",
    "rating": "highest rating first (ties: the order given)",
    "group": "TCEC group seeding (even number of groups, default round_to_even(P/7))",
    "random": "seeded random order (the RNG seed is recorded)",
}

Entry = tuple[PlayerId, str, int | None]


def round_to_even(x: float) -> int:
    """The even integer nearest to ``x``; halfway cases go up (3.0 -> 4)."""
    return 2 * math.floor(x / 2 + 0.5)


def default_groups(players: int) -> int:
    """``round_to_even(P / 7)``, at least 2 (group size about 7)."""
    return max(2, round_to_even(players / 7))


def group_order(count: int, groups: int) -> list[int]:
    """Indices (0 = strongest) in seed order, per the rule text's script.

    Groups take ``ceil(remaining / groups_left)`` players each, so stronger
    groups are the larger ones; seeds then cycle A, B, C, ... taking each
    group's strongest unseeded player.
    """
    members: list[list[int]] = []
    start = 0
    for g in range(groups):
        size = math.ceil((count - start) / (groups - g))
        members.append(list(range(start, start + size)))
        start += size
    order: list[int] = []
    rank = 0
    while len(order) < count:
        for group in members:
            if rank < len(group):
                order.append(group[rank])
        rank += 1
    return order


def _by_strength(entries: Sequence[Entry], method: str) -> list[Entry]:
    """Strongest first: by rating DESC (stable), which needs every rating."""
    missing = [pid for pid, _, rating in entries if rating is None]
    if missing:
        raise ConfigError(
            f"{method} seeding needs a rating for every player: {missing[0]!r} has none"
        )
    return sorted(entries, key=lambda e: -(e[2] or 0))


def seed_players(
    entries: Sequence[Entry],
    method: str,
    *,
    groups: int | None = None,
    rng_seed: int | None = None,
) -> tuple[Player, ...]:
    """Assign seeds 1..P to ``entries`` ((id, name, rating|None), in the given
    order) with ``method``; return the players in seed order."""
    ids = [e[0] for e in entries]
    if len(set(ids)) != len(ids):
        dup = next(pid for pid in ids if ids.count(pid) > 1)
        raise ConfigError(f"duplicate player id: {dup!r}")
    if groups is not None and method != "group":
        raise ConfigError(f"groups={groups!r} only applies to group seeding, not {method!r}")
    if method == "explicit":
        ordered = list(entries)
    elif method == "rating":
        ordered = _by_strength(entries, method)
    elif method == "group":
        if all(e[2] is None for e in entries):
            strength = list(entries)  # no ratings: the order given is the strength order
        else:
            strength = _by_strength(entries, method)
        count = len(strength)
        if count < 2 and groups is None:
            return _numbered(strength)  # a lone player: nothing to group
        n_groups = default_groups(count) if groups is None else groups
        if n_groups < 2 or n_groups % 2:
            raise ConfigError(f"group seeding needs an even number of groups >= 2, not {n_groups}")
        if n_groups > count:
            raise ConfigError(f"group seeding: {n_groups} groups for only {count} players")
        ordered = [strength[i] for i in group_order(count, n_groups)]
    elif method == "random":
        if rng_seed is None:
            raise ConfigError("random seeding needs an RNG seed (it is recorded to replay)")
        ordered = list(entries)
        random.Random(rng_seed).shuffle(ordered)
    else:
        known = ", ".join(SEEDING_METHODS)
        raise ConfigError(f"unknown seeding method: {method!r} (known: {known})")
    return _numbered(ordered)


def _numbered(ordered: Sequence[Entry]) -> tuple[Player, ...]:
    """Seeds 1..P in the given order."""
    return tuple(
        Player(id=pid, name=name, seed=seed, rating=rating)
        for seed, (pid, name, rating) in enumerate(ordered, start=1)
    )
