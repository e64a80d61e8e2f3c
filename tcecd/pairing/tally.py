"""Per-player running totals of an event, as the TCEC Swiss rules count them.

Shared by the pairing system (scores, BYEs, WGD, encounter history) and the
standings (tiebreaks), so both always agree on what a round record means:

* a game scores 1 / 1/2 / 0 (kept here as 2 / 1 / 0 half-points) whether it
  was played or forfeited without being played;
* a BYE scores a win for every game of the round (2 half-points in a single
  round, 4 in a double round) and counts as one received BYE;
* a requested bye scores what its kind gives (:meth:`ByeKind.half_points`:
  full, half or zero points for every game of the round) and is not a
  received BYE (``Tally.requested`` counts them); a further pairing-allocated
  bye (kind ``PAIRING``, when a system leaves several players unpaired) scores
  and counts like ``bye``;
* only games actually played give a colour (``PlayedGame.played``), so a
  forfeit never moves a player's white game difference (WGD);
* every game, played or not, is an encounter.

The records are validated on the way (unknown players, a player twice in a
round, unfinished results), because a wrong record would silently change
every later pairing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tcecd.domain import Color, PlayerId, Result
from tcecd.errors import PairingError
from tcecd.pairing.base import ByeKind, Player, RoundRecord


@dataclass(slots=True)
class Tally:
    """One player's totals over the given rounds."""

    score_half: int = 0
    byes: int = 0
    #: rounds not played for a requested bye or an absence (any kind)
    requested: int = 0
    white: int = 0
    black: int = 0
    wins: int = 0
    games: int = 0
    #: one entry per game: (opponent, half-points this player scored)
    results: list[tuple[PlayerId, int]] = field(default_factory=list)

    @property
    def wgd(self) -> int:
        """White game difference: games played with white minus with black."""
        return self.white - self.black


#: Half-points of (white, black) per finished result (Result.half_points, looked up
#: once: forecasts tally thousands of simulated events).
_HALF_POINTS: dict[Result, tuple[int, int]] = {
    r: (r.half_points(Color.WHITE), r.half_points(Color.BLACK))
    for r in Result
    if r is not Result.UNFINISHED
}


def bye_half_points(double: bool) -> int:
    """A BYE is a win for every game the round would have given the player."""
    return 4 if double else 2


def check_players(players: Sequence[Player]) -> None:
    """Raise :class:`PairingError` unless ids and seeds are unique."""
    if not players:
        raise PairingError("the event has no players")
    ids: set[PlayerId] = set()
    seeds: set[int] = set()
    for p in players:
        if p.id in ids:
            raise PairingError(f"duplicate player id: {p.id!r}")
        if p.seed in seeds:
            raise PairingError(f"duplicate seed {p.seed} (player {p.id!r})")
        ids.add(p.id)
        seeds.add(p.seed)


def tally(
    players: Sequence[Player], history: Sequence[RoundRecord], *, double: bool
) -> dict[PlayerId, Tally]:
    """Totals for every player over ``history`` (rounds 1..len(history))."""
    totals = {p.id: Tally() for p in players}
    bye_points = bye_half_points(double)
    for expected, record in enumerate(history, start=1):
        where = f"round {record.round}"
        if record.round != expected:
            raise PairingError(f"{where}: expected round {expected} (rounds must be 1, 2, ...)")
        per_round = 2 if double else 1
        seen: dict[PlayerId, tuple[PlayerId, int]] = {}
        if record.bye is not None:
            if record.bye not in totals:
                raise PairingError(f"{where}: unknown BYE player {record.bye!r}")
            totals[record.bye].score_half += bye_points
            totals[record.bye].byes += 1
            seen[record.bye] = ("", per_round)
        for absent in record.requested_byes:
            if absent.player not in totals:
                raise PairingError(f"{where}: unknown bye player {absent.player!r}")
            if absent.player in seen:
                raise PairingError(f"{where}: {absent.player!r} has two byes")
            totals[absent.player].score_half += absent.kind.half_points(per_round)
            if absent.kind is ByeKind.PAIRING:
                # A further pairing-allocated bye (the integer-program system may
                # leave several players unpaired): a received BYE like ``bye``.
                totals[absent.player].byes += 1
            else:
                totals[absent.player].requested += 1
            seen[absent.player] = ("", per_round)
        for game in record.games:
            for pid in (game.white, game.black):
                if pid not in totals:
                    raise PairingError(f"{where}: unknown player {pid!r}")
            if game.white == game.black:
                raise PairingError(f"{where}: {game.white!r} plays itself")
            if game.result is Result.UNFINISHED:
                raise PairingError(
                    f"{where}: game {game.white!r}-{game.black!r} has no result ('*')"
                )
            for pid, opp in ((game.white, game.black), (game.black, game.white)):
                # Single rounds: one game per player; double rounds: two, against
                # the same opponent.
                prev_opp, count = seen.get(pid, (opp, 0))
                if prev_opp != opp or count >= per_round:
                    raise PairingError(f"{where}: {pid!r} is paired more than once")
                seen[pid] = (opp, count + 1)
            white_half, black_half = _HALF_POINTS[game.result]
            for pid, opp, half in (
                (game.white, game.black, white_half),
                (game.black, game.white, black_half),
            ):
                t = totals[pid]
                t.score_half += half
                t.games += 1
                t.results.append((opp, half))
                if half == 2:
                    t.wins += 1
            if game.played:
                totals[game.white].white += 1
                totals[game.black].black += 1
    return totals


def removed_rounds(history: Sequence[RoundRecord]) -> set[int]:
    """The history rounds removed so far (the union over the records, STEP 3)."""
    removed: set[int] = set()
    for record in history:
        for r in record.removed_history_rounds:
            if not 1 <= r < record.round:
                raise PairingError(
                    f"round {record.round}: removed history round {r} is not an earlier round"
                )
            if r in removed:
                raise PairingError(f"round {record.round}: history round {r} was already removed")
            removed.add(r)
    return removed
