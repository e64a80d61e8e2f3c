"""Round-robin by the Berger tables (registry name ``round-robin``).

The schedule is FIDE's (Handbook C.05, Annex 1, "Berger Tables for
Round-Robin Tournaments"), the one TCEC's leagues play and cutechess's
``-bergerschedule`` follows. Players are numbered by their pairing number
(``Player.seed``, 1..P); an odd field plays the table of P + 1, and the
player who meets the dummy number P + 1 has the round's BYE.

The table rule, for n players (n even), as the Annex builds it:

* round 1: ``1 - n``, ``2 - (n-1)``, ..., ``n/2 - (n/2+1)``, the first named
  has white;
* each next round keeps the boards in place and replaces every number ``x``
  other than n by ``x + n/2`` (counted 1..n-1, modulo n-1); on the board of
  n the colours are reversed, so n alternates white and black (n is black in
  round 1, white in round 2, ...).

This reproduces the published tables (checked by hand for 4, 6 and 8 players
in ``tests/pairing/test_round_robin.py``). Every pair meets once in the
n - 1 rounds of a cycle.

Cycles: rounds 1..n-1 are the first cycle; an event with more rounds plays
further cycles, every second one with the colours reversed (a double
round-robin: each pair plays both colours). ``context.total_rounds``, when
given, must be a whole number of cycles. ``double=True`` is tcecd's double
round: each pair plays two games in the round, the second with colours
reversed (``games``: every board's first game, then every reversed game).

No requested byes: a round-robin plays every game of its table, so a round
given requested byes fails with :class:`PairingError` (an absent engine's
game is a forfeit the arbiter records, not a pairing change). The colour
drawn by lot (``context.first_colour``) is not used: in FIDE round-robins the
lot draws pairing numbers and the table fixes the colours.
"""

from __future__ import annotations

from collections.abc import Sequence

from tcecd.errors import PairingError
from tcecd.pairing.base import (
    NO_CONTEXT,
    Pair,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
    board_order_games,
)
from tcecd.pairing.registry import SystemOptions, check_rules
from tcecd.pairing.tally import check_players, tally


def table_size(players: int) -> int:
    """The Berger table an event of ``players`` plays: P, or P + 1 for an odd P."""
    return players + players % 2


def berger_round(n: int, round_number: int) -> list[tuple[int, int]]:
    """Round ``round_number`` (1..n-1) of the Berger table for ``n`` (even)
    numbers: (white, black) per board, in board order (module docstring)."""
    if n < 2 or n % 2:
        raise ValueError(f"a Berger table needs an even number of players, got {n}")
    if not 1 <= round_number <= n - 1:
        raise ValueError(f"round {round_number} is not in 1..{n - 1}")
    boards = [(i, n + 1 - i) for i in range(1, n // 2 + 1)]
    for _ in range(round_number - 1):
        boards = [_next_board(white, black, n) for white, black in boards]
    return boards


def _next_board(white: int, black: int, n: int) -> tuple[int, int]:
    """One board of the next round: numbers other than n advance by n/2 (mod
    n - 1, counted 1..n-1); the board of n reverses its colours."""

    def advance(x: int) -> int:
        return x if x == n else (x - 1 + n // 2) % (n - 1) + 1

    if n in (white, black):
        return advance(black), advance(white)
    return advance(white), advance(black)


def cycle_position(n: int, round_number: int) -> tuple[int, int]:
    """(cycle index from 0, round within the cycle from 1) of an event round."""
    cycle_rounds = n - 1
    return (round_number - 1) // cycle_rounds, (round_number - 1) % cycle_rounds + 1


class RoundRobin:
    """Berger-table round-robin (a :class:`~tcecd.pairing.base.PairingSystem`)."""

    name = "round-robin"

    def __init__(self, options: SystemOptions | None = None) -> None:
        """The round-robin takes no options."""

    def rounds_for(self, players: int) -> int | None:
        """The rounds of one cycle: P - 1 for an even field, P for an odd one."""
        return table_size(players) - 1

    def pair(
        self,
        players: Sequence[Player],
        history: Sequence[RoundRecord],
        *,
        double: bool,
        context: RoundContext = NO_CONTEXT,
    ) -> RoundPairing:
        """Round ``len(history) + 1`` of the table; :class:`PairingError` for
        requested byes, pairing numbers that are not 1..P, or a number of rounds
        that is not whole cycles."""
        round_number = len(history) + 1
        where = f"round {round_number}"
        try:
            check_rules(self.name, context)
        except PairingError as exc:
            raise PairingError(f"{where}: {exc}") from None
        if context.requested_byes:
            raise PairingError(
                f"{where}: a round-robin has no requested byes "
                f"({', '.join(repr(b.player) for b in context.requested_byes)}); "
                "record an absent player's game as a forfeit instead"
            )
        check_players(players)
        if len(players) < 2:
            raise PairingError(f"{where}: a round-robin needs at least 2 players")
        seeds = sorted(p.seed for p in players)
        if seeds != list(range(1, len(players) + 1)):
            raise PairingError(
                f"{where}: round-robin pairing numbers must be 1..{len(players)}, got {seeds}"
            )
        tally(players, history, double=double, points=context.points)  # validates the rounds
        n = table_size(len(players))
        cycle_rounds = n - 1
        total = context.total_rounds
        if total is not None and (total < 1 or total % cycle_rounds):
            raise PairingError(
                f"{where}: a round-robin of {len(players)} players plays whole cycles of "
                f"{cycle_rounds} rounds; {total} rounds is not a multiple"
            )
        if total is not None and round_number > total:
            raise PairingError(f"{where}: the event has only {total} rounds")

        cycle, within = cycle_position(n, round_number)
        by_number = {p.seed: p for p in players}
        bye: Player | None = None
        pairs: list[Pair] = []
        for white, black in berger_round(n, within):
            if cycle % 2:  # every second cycle reverses the colours
                white, black = black, white
            if n not in by_number and n in (white, black):  # the dummy of an odd field
                bye = by_number[black if white == n else white]
                continue
            pairs.append(Pair(by_number[white].id, by_number[black].id))

        games = board_order_games(pairs, double=double)
        return RoundPairing(
            round=round_number,
            byes=(bye.id,) if bye is not None else (),
            removed_history_rounds=(),
            pairs=tuple(pairs),
            games=tuple(games),
        )
