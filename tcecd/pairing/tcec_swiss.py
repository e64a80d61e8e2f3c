"""The TCEC Swiss pairing system, step by step as the rule text names them.

Rules: ``../shared/seeds/tcec-swiss-system.txt`` (binding); open points settled in
``../shared/specs/tcec-swiss.md``. One call pairs one round from the players and
the finished rounds; it is a pure function (no I/O, no clock, no randomness),
so the same records always give the same round.

* STEP 1 -- pairing order: score DESC (BYE points included), seed ASC.
* STEP 2 -- BYE (odd field): among the players with the fewest BYEs, the one
  lowest in the pairing order. Chosen once, before STEP 3, never reconsidered.
* STEP 3 -- viability: the allowed-pair graph (not met in the encounter history
  still in force, ``|WGD(a) + WGD(b)| <= 2``) must have a perfect matching;
  otherwise the earliest round still in the history is removed, permanently,
  and the test repeats. If even an empty history does not help, the colour rule
  alone blocks the round: :class:`PairingError`, never a relaxation.
* STEP 4 -- greedy pairing: the first unpaired player in pairing order takes the
  highest-ranked unpaired partner that is allowed and keeps a perfect matching
  of the rest (:mod:`tcecd.pairing.matching`).
* STEP 5 -- colours. Single rounds: the greater WGD gets black; equal WGD, the
  higher score gets black; equal score, the 2112 pattern (first-of-pair white
  in rounds 2, 3, 6, 7, ...). Double rounds: first-of-pair black in the first
  game, white in the reversed one.
* Playing order: pairs by DESCending pairing order of their first-of-pair (the
  worst-performing pair first); double rounds play every first game, then
  every reversed game, in that same order.
"""

from __future__ import annotations

from collections.abc import Sequence

from tcecd.domain import PlayerId
from tcecd.errors import PairingError
from tcecd.pairing.base import (
    NO_CONTEXT,
    EventLengthSystem,
    Pair,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
    ScheduledGame,
)
from tcecd.pairing.matching import PairingGraph, ViabilityMatcher, mask_of
from tcecd.pairing.tally import (
    RunningTally,
    Tally,
    check_players,
    check_removed,
    removed_rounds,
)

#: The colour balancing bound of STEP 3: |WGD(a) + WGD(b)| <= 2.
WGD_LIMIT = 2


def pairing_order(players: Sequence[Player], totals: dict[PlayerId, Tally]) -> list[Player]:
    """STEP 1: score DESC, then seed ASC."""
    return sorted(players, key=lambda p: (-totals[p.id].score_half, p.seed))


def choose_bye(order: Sequence[Player], totals: dict[PlayerId, Tally]) -> Player:
    """STEP 2: order by BYEs DESC then pairing order ASC; the bottom player.

    That is the player lowest in the pairing order among those with the
    fewest BYEs received.
    """
    fewest = min(totals[p.id].byes for p in order)
    return [p for p in order if totals[p.id].byes == fewest][-1]


def first_of_pair_white(round_number: int) -> bool:
    """The 2112 pattern of STEP 5 for a pair with equal WGD and equal score:
    first-of-pair has white in rounds 2, 3, 6, 7, 10, 11, ... (round mod 4
    is 2 or 3); second-of-pair in rounds 1, 4, 5, 8, 9, 12, ..."""
    return round_number % 4 in (2, 3)


class TcecSwiss(EventLengthSystem):
    """The TCEC Swiss system (a :class:`~tcecd.pairing.base.PairingSystem`)."""

    name = "tcec-swiss"

    def pair(
        self,
        players: Sequence[Player],
        history: Sequence[RoundRecord],
        *,
        double: bool,
        context: RoundContext = NO_CONTEXT,
    ) -> RoundPairing:
        """Pair round ``len(history) + 1``; raise :class:`PairingError` when impossible.

        TCEC Swiss knows no requested byes (every engine plays every round but
        the BYE), nor a colour drawn by lot (STEP 5 settles round 1 too), so
        ``context`` may only carry the total number of rounds, which it ignores.

        The same code as a :meth:`session` (built from ``history``, then paired).
        """
        _check_context(len(history) + 1, context)
        return self.session(players, history, double=double).pair(context)

    def session(
        self, players: Sequence[Player], history: Sequence[RoundRecord], *, double: bool
    ) -> TcecSwissSession:
        """An incremental pairer starting after ``history``
        (:class:`~tcecd.pairing.session.PairingSession`)."""
        return TcecSwissSession(players, history, double=double)


class TcecSwissSession:
    """TCEC Swiss round after round: :meth:`pair` the next round, :meth:`record`
    it once finished, and so on (a :class:`~tcecd.pairing.session.PairingSession`).

    It keeps what the steps need up to date instead of re-reading the history:
    the totals (:class:`~tcecd.pairing.tally.RunningTally`: scores, BYEs, WGD,
    validated record by record), the history rounds removed so far, and for
    the encounter history still in force each round's encounters and, per
    player, the bitset of the players met in those rounds (the forbidden
    edges of the STEP 3 graph).
    """

    __slots__ = ("_in_force", "_index", "_met", "_removed", "double", "players", "tally")

    def __init__(
        self, players: Sequence[Player], history: Sequence[RoundRecord], *, double: bool
    ) -> None:
        check_players(players)
        self.players = tuple(players)
        self.double = double
        self.tally = RunningTally(players, double=double)
        self._index = {p.id: i for i, p in enumerate(self.players)}
        # The whole history's games are checked before its removed rounds, as
        # tally() and removed_rounds() always did (the first error reported
        # stays the same).
        for record in history:
            self.tally.add(record)
        self._removed = removed_rounds(history)
        index = self._index
        #: (round, encounters as player-index pairs) of the rounds still in force
        self._in_force: list[tuple[int, tuple[tuple[int, int], ...]]] = [
            (r.round, tuple((index[g.white], index[g.black]) for g in r.games))
            for r in history
            if r.round not in self._removed
        ]
        #: per player index: bitset of the players met in the rounds in force
        self._met = _met(self._in_force, len(self.players))

    @property
    def totals(self) -> dict[PlayerId, Tally]:
        return self.tally.totals

    @property
    def rounds(self) -> int:
        """Finished rounds recorded so far."""
        return self.tally.rounds

    def copy(self) -> TcecSwissSession:
        """An independent session in the same state."""
        other = TcecSwissSession.__new__(TcecSwissSession)
        other.players = self.players
        other.double = self.double
        other.tally = self.tally.copy()
        other._index = self._index
        other._removed = set(self._removed)
        other._in_force = list(self._in_force)
        other._met = list(self._met)
        return other

    def record(self, record: RoundRecord) -> None:
        """Add finished round ``rounds + 1`` (:class:`PairingError` for a bad
        record, which leaves the session unchanged)."""
        halves = self.tally.check(record)  # the games first, as tally() does
        removed = set(self._removed)
        check_removed(record, removed)
        self.tally.count(record, halves)
        index = self._index
        encounters = tuple((index[g.white], index[g.black]) for g in record.games)
        if record.removed_history_rounds:
            self._removed = removed
            self._in_force = [r for r in self._in_force if r[0] not in removed]
            self._met = _met(self._in_force, len(self.players))
        met = self._met
        for a, b in encounters:
            met[a] |= 1 << b
            met[b] |= 1 << a
        self._in_force.append((record.round, encounters))

    def pair(self, context: RoundContext = NO_CONTEXT) -> RoundPairing:
        """Pair round ``rounds + 1``; raise :class:`PairingError` when impossible."""
        round_number = self.tally.rounds + 1
        _check_context(round_number, context)
        players = self.players
        totals = self.tally.totals

        # STEP 1 and STEP 2.
        order = pairing_order(players, totals)
        bye: Player | None = choose_bye(order, totals) if len(order) % 2 else None
        index = self._index
        # The graph's vertices are the players' indices; the matcher visits
        # them in pairing order.
        vertices = [index[p.id] for p in order if p is not bye]
        members = mask_of(vertices)
        wgd = [totals[p.id].wgd for p in players]

        # STEP 3: the encounter history still in force, earliest round first.
        in_force = self._in_force
        newly_removed: list[int] = []
        graph = PairingGraph.from_masks(self._met, wgd, WGD_LIMIT, members)
        matcher = ViabilityMatcher(graph, vertices)
        exposed = matcher.maximize()
        while exposed:
            if len(newly_removed) == len(in_force):
                raise PairingError(
                    _colour_block_message(round_number, players, wgd, vertices, exposed)
                )
            newly_removed.append(in_force[len(newly_removed)][0])
            met = _met(in_force[len(newly_removed):], len(players))
            exposed = matcher.refresh(PairingGraph.from_masks(met, wgd, WGD_LIMIT, members))

        # STEP 4: greedy pairing in pairing order, keeping a perfect matching.
        formed: list[tuple[int, int]] = []
        while matcher.active:
            first = matcher.active[0]
            second = matcher.pair_first(first)
            if second is None:  # pragma: no cover - a perfect matching always offers the mate
                raise PairingError(
                    f"round {round_number}: internal error: no partner for {players[first].id!r}"
                )
            formed.append((first, second))

        pairs = tuple(Pair(players[a].id, players[b].id) for a, b in formed)
        score = [totals[p.id].score_half for p in players]
        games = _schedule(round_number, players, wgd, score, formed, self.double)
        return RoundPairing(
            round=round_number,
            bye=bye.id if bye is not None else None,
            removed_history_rounds=tuple(newly_removed),
            pairs=pairs,
            games=games,
        )


def _check_context(round_number: int, context: RoundContext) -> None:
    if context.requested_byes:
        raise PairingError(
            f"round {round_number}: TCEC Swiss has no requested byes "
            f"({', '.join(repr(b.player) for b in context.requested_byes)})"
        )


def _schedule(
    round_number: int,
    players: Sequence[Player],
    wgd: Sequence[int],
    score: Sequence[int],
    formed: Sequence[tuple[int, int]],
    double: bool,
) -> tuple[ScheduledGame, ...]:
    """STEP 5 colours and the playing order (``formed`` pairs player indices;
    ``wgd`` and ``score``, in half-points, are by player index)."""
    first_games: list[tuple[PlayerId, PlayerId, int]] = []
    for pair_index in reversed(range(len(formed))):  # worst-performing pair first
        a, b = formed[pair_index]
        if double:
            first_white = False  # first-of-pair has black in the first game
        else:
            first_white = _single_round_first_white(
                round_number, wgd[a], score[a], wgd[b], score[b]
            )
        if first_white:
            first_games.append((players[a].id, players[b].id, pair_index))
        else:
            first_games.append((players[b].id, players[a].id, pair_index))
    games = [
        ScheduledGame(number=n, white=w, black=b, pair_index=i, leg=1)
        for n, (w, b, i) in enumerate(first_games, start=1)
    ]
    if double:
        offset = len(games)
        games += [
            ScheduledGame(number=offset + n, white=b, black=w, pair_index=i, leg=2)
            for n, (w, b, i) in enumerate(first_games, start=1)
        ]
    return tuple(games)


def _single_round_first_white(
    round_number: int, first_wgd: int, first_score: int, second_wgd: int, second_score: int
) -> bool:
    """STEP 5, single rounds: does the first-of-pair get white?"""
    if first_wgd != second_wgd:
        return first_wgd < second_wgd  # the greater WGD gets black
    if first_score != second_score:
        return first_score < second_score  # the higher score gets black
    return first_of_pair_white(round_number)


def _met(rounds: Sequence[tuple[int, tuple[tuple[int, int], ...]]], n: int) -> list[int]:
    """Who may not meet whom: per player index, the bitset of the players met
    in ``rounds`` (both games of a double round are one encounter)."""
    met = [0] * n
    for _, encounters in rounds:
        for a, b in encounters:
            met[a] |= 1 << b
            met[b] |= 1 << a
    return met


def _colour_block_message(
    round_number: int,
    players: Sequence[Player],
    wgd: Sequence[int],
    vertices: Sequence[int],
    exposed: Sequence[int],
) -> str:
    """STEP 3 failure with an empty history: only the colour rule is left
    (``vertices``: the players being paired, ``exposed``: those left over)."""
    counts: dict[int, int] = {}
    for w in (wgd[x] for x in vertices):
        counts[w] = counts.get(w, 0) + 1
    spread = ", ".join(f"WGD {w:+d}: {counts[w]}" for w in sorted(counts))
    stuck = ", ".join(f"{players[x].id!r} (WGD {wgd[x]:+d})" for x in exposed)
    return (
        f"round {round_number}: no pairing possible even with the whole encounter history "
        f"removed: the colour rule |WGD(a) + WGD(b)| <= {WGD_LIMIT} leaves {stuck} "
        f"without a partner ({spread})"
    )
