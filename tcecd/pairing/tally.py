"""Per-player running totals of an event, as the TCEC Swiss rules count them.

Shared by the pairing systems (scores, BYEs, WGD, encounter history) and the
standings (tiebreaks), so both always agree on what a round record means:

* scores are counted in the units of the event's point system
  (:class:`~tcecd.pairing.points.PointSystem`; half-points in the standard
  one, where a game scores 2 / 1 / 0 and everything below is as C.04.1 says);
* a game scores what the point system gives its result and colour, whether
  it was played or forfeited without being played (then a forfeit win or
  loss);
* each pairing-allocated BYE (``RoundRecord.byes``) scores the system's
  pairing-allocated bye for every game of the round (a win, in a double round
  two) and counts as one received BYE;
* a requested bye scores what its kind gives (full, half or zero point bye,
  for every game of the round) and is not a received BYE (``Tally.requested``
  counts them);
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
from tcecd.pairing.base import Player, RoundRecord
from tcecd.pairing.points import NO_ACCELERATION, STANDARD, Acceleration, PointSystem


@dataclass(slots=True)
class Tally:
    """One player's totals over the given rounds; ``score`` and the points
    in ``results`` are in units of the event's point system (half-points in
    the standard one)."""

    score: int = 0
    byes: int = 0
    #: rounds not played for a requested bye or an absence (any kind)
    requested: int = 0
    white: int = 0
    black: int = 0
    wins: int = 0
    games: int = 0
    #: one entry per game: (opponent, units this player scored)
    results: list[tuple[PlayerId, int]] = field(default_factory=list)

    @property
    def wgd(self) -> int:
        """White game difference: games played with white minus with black."""
        return self.white - self.black


def bye_half_points(double: bool) -> int:
    """A BYE is a win for every game the round would have given the player
    (standard points: half-points)."""
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


class RunningTally:
    """The totals of every player, brought up to date one finished round at a
    time (:meth:`add`), so that a caller pairing round after round (the
    forecast's simulations, :mod:`tcecd.pairing.session`) never re-tallies the
    whole history. :func:`tally` is this, fed the whole history at once.

    Each record is validated before it changes anything, so a rejected
    record leaves the totals as they were.
    """

    __slots__ = ("_scores", "double", "points", "rounds", "totals")

    def __init__(
        self, players: Sequence[Player], *, double: bool, points: PointSystem = STANDARD
    ) -> None:
        self.double = double
        self.points = points
        # What a game gives (white, black): [played][white wins, draw, black wins].
        self._scores = tuple(
            tuple(
                (points.game(result, Color.WHITE, played), points.game(result, Color.BLACK, played))
                for result in (Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS)
            )
            for played in (False, True)
        )
        #: rounds added so far (the next record must be round ``rounds + 1``)
        self.rounds = 0
        self.totals: dict[PlayerId, Tally] = {p.id: Tally() for p in players}

    def copy(self) -> RunningTally:
        """An independent copy (the results lists are copied too)."""
        other = RunningTally((), double=self.double, points=self.points)
        other.rounds = self.rounds
        other.totals = {
            pid: Tally(t.score, t.byes, t.requested, t.white, t.black, t.wins, t.games,
                       list(t.results))
            for pid, t in self.totals.items()
        }
        return other

    def add(self, record: RoundRecord) -> None:
        """Count round ``rounds + 1``; :class:`PairingError` for a bad record."""
        self.count(record, self.check(record))

    def check(self, record: RoundRecord) -> list[tuple[int, int]]:
        """Validate round ``rounds + 1`` without counting it; return the
        (white, black) units of each game, for :meth:`count`."""
        totals = self.totals
        where = f"round {record.round}"
        expected = self.rounds + 1
        if record.round != expected:
            raise PairingError(f"{where}: expected round {expected} (rounds must be 1, 2, ...)")
        per_round = 2 if self.double else 1
        # Validate first (unknown players, a player twice, unfinished games).
        seen: dict[PlayerId, tuple[PlayerId, int]] = {}
        for bye in sorted(record.byes):
            if bye not in totals:
                raise PairingError(f"{where}: unknown BYE player {bye!r}")
            seen[bye] = ("", per_round)
        for absent in record.requested_byes:
            if absent.player not in totals:
                raise PairingError(f"{where}: unknown bye player {absent.player!r}")
            if absent.player in seen:
                raise PairingError(f"{where}: {absent.player!r} has two byes")
            seen[absent.player] = ("", per_round)
        halves: list[tuple[int, int]] = []
        for game in record.games:
            white, black, result = game.white, game.black, game.result
            if white not in totals:
                raise PairingError(f"{where}: unknown player {white!r}")
            if black not in totals:
                raise PairingError(f"{where}: unknown player {black!r}")
            if white == black:
                raise PairingError(f"{where}: {white!r} plays itself")
            # Identity tests, not a dict keyed by the enum: Enum hashing is a
            # Python-level call, and forecasts add millions of games.
            scores = self._scores[game.played]
            if result is _WHITE_WINS:
                halves.append(scores[0])
            elif result is _DRAW:
                halves.append(scores[1])
            elif result is _BLACK_WINS:
                halves.append(scores[2])
            else:
                raise PairingError(f"{where}: game {white!r}-{black!r} has no result ('*')")
            # Single rounds: one game per player; double rounds: two, against
            # the same opponent.
            prev_opp, count = seen.get(white, (black, 0))
            if prev_opp != black or count >= per_round:
                raise PairingError(f"{where}: {white!r} is paired more than once")
            seen[white] = (black, count + 1)
            prev_opp, count = seen.get(black, (white, 0))
            if prev_opp != white or count >= per_round:
                raise PairingError(f"{where}: {black!r} is paired more than once")
            seen[black] = (white, count + 1)
        return halves

    def count(self, record: RoundRecord, halves: list[tuple[int, int]]) -> None:
        """Count a record :meth:`check` accepted (``halves`` is what it returned)."""
        totals = self.totals
        per_round = 2 if self.double else 1
        points = self.points
        self.rounds += 1
        for bye in record.byes:
            t = totals[bye]
            t.score += points.pairing_bye * per_round
            t.byes += 1
        for absent in record.requested_byes:
            t = totals[absent.player]
            t.score += points.bye(absent.kind) * per_round
            t.requested += 1
        for game, (white_units, black_units) in zip(record.games, halves, strict=True):
            w = totals[game.white]
            b = totals[game.black]
            w.score += white_units
            b.score += black_units
            w.games += 1
            b.games += 1
            w.results.append((game.black, white_units))
            b.results.append((game.white, black_units))
            if game.result is _WHITE_WINS:
                w.wins += 1
            elif game.result is _BLACK_WINS:
                b.wins += 1
            if game.played:
                w.white += 1
                b.black += 1


    def count_games(
        self,
        ids: Sequence[PlayerId],
        bye: int,
        games: Sequence[tuple[int, int]],
        white_halves: Sequence[int],
    ) -> None:
        """Count round ``rounds + 1`` given by player indices (positions in
        ``ids``), as :meth:`count` counts the same record: the BYE (-1 if
        none) and the games ``(white, black)``, every one played, with
        white's half-points (0, 1 or 2). Not validated: for a caller counting
        rounds it paired itself (the forecast's simulations). Standard
        points only (the systems with such sessions, TCEC Swiss, take no
        other)."""
        assert self.points == STANDARD
        totals = self.totals
        self.rounds += 1
        if bye != -1:
            t = totals[ids[bye]]
            t.score += bye_half_points(self.double)
            t.byes += 1
        for (white, black), white_half in zip(games, white_halves, strict=True):
            w = totals[ids[white]]
            b = totals[ids[black]]
            black_half = 2 - white_half
            w.score += white_half
            b.score += black_half
            w.games += 1
            b.games += 1
            w.results.append((ids[black], white_half))
            b.results.append((ids[white], black_half))
            if white_half == 2:
                w.wins += 1
            elif black_half == 2:
                b.wins += 1
            w.white += 1
            b.black += 1

_WHITE_WINS = Result.WHITE_WINS
_DRAW = Result.DRAW
_BLACK_WINS = Result.BLACK_WINS


def tally(
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    *,
    double: bool,
    points: PointSystem = STANDARD,
) -> dict[PlayerId, Tally]:
    """Totals for every player over ``history`` (rounds 1..len(history)),
    scored by ``points``."""
    running = RunningTally(players, double=double, points=points)
    for record in history:
        running.add(record)
    return running.totals


def check_removed(record: RoundRecord, removed: set[int]) -> None:
    """Add the history rounds ``record`` removed (STEP 3) to ``removed``, the
    rounds removed before it; :class:`PairingError` for a round that is not
    an earlier one or was already removed."""
    for r in record.removed_history_rounds:
        if not 1 <= r < record.round:
            raise PairingError(
                f"round {record.round}: removed history round {r} is not an earlier round"
            )
        if r in removed:
            raise PairingError(f"round {record.round}: history round {r} was already removed")
        removed.add(r)


def removed_rounds(history: Sequence[RoundRecord]) -> set[int]:
    """The history rounds removed so far (the union over the records, STEP 3)."""
    removed: set[int] = set()
    for record in history:
        check_removed(record, removed)
    return removed


def pairing_scores(
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    *,
    double: bool,
    points: PointSystem = STANDARD,
    acceleration: Acceleration = NO_ACCELERATION,
) -> dict[PlayerId, list[int]]:
    """Every player's score *for pairing* before each round, in ``points``'
    units: entry ``r`` (0-based) is the score after rounds ``1..r`` plus the
    virtual points of round ``r + 1`` (TRF ``XXA``, FIDE C.04.5), for ``r`` in
    ``0..len(history)``; the last entry is the round being paired. What the
    FIDE systems build score groups and brackets from, and compare to tell
    floats (bbpPairings does so: a float of an accelerated round compares the
    accelerated scores). The records are validated on the way."""
    running = RunningTally(players, double=double, points=points)
    virtual = acceleration.by_player()

    def extra(pid: PlayerId, round_number: int) -> int:
        row = virtual.get(pid, ())
        return row[round_number - 1] if round_number <= len(row) else 0

    scores: dict[PlayerId, list[int]] = {p.id: [extra(p.id, 1)] for p in players}
    for record in history:
        running.add(record)
        following = record.round + 1
        for pid, t in running.totals.items():
            scores[pid].append(t.score + extra(pid, following))
    return scores
