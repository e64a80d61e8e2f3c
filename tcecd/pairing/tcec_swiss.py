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
from tcecd.pairing.points import STANDARD
from tcecd.pairing.session import IndexedRound
from tcecd.pairing.tally import (
    RunningTally,
    Tally,
    check_players,
    check_removed,
    removed_rounds,
)

#: The colour balancing bound of STEP 3: |WGD(a) + WGD(b)| <= 2.
WGD_LIMIT = 2


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

    __slots__ = (
        "_by_seed", "_ids", "_in_force", "_index", "_met", "_removed", "double", "players",
        "tally",
    )

    def __init__(
        self, players: Sequence[Player], history: Sequence[RoundRecord], *, double: bool
    ) -> None:
        check_players(players)
        self.players = tuple(players)
        self.double = double
        self.tally = RunningTally(players, double=double)
        self._index = {p.id: i for i, p in enumerate(self.players)}
        #: player ids by index, and the indices by seed ASC (STEP 1's tiebreak)
        self._ids = tuple(p.id for p in self.players)
        self._by_seed = sorted(range(len(self.players)), key=lambda i: self.players[i].seed)
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
        other._ids = self._ids
        other._by_seed = self._by_seed
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
        bye, newly_removed, formed, first_legs = self._pair(round_number)
        players = self.players
        pairs = tuple(Pair(players[a].id, players[b].id) for a, b in formed)
        games = [
            ScheduledGame(number=n, white=players[w].id, black=players[b].id, pair_index=i, leg=1)
            for n, (w, b, i) in enumerate(first_legs, start=1)
        ]
        if self.double:
            # Every first game, then every reversed game, in the same order.
            offset = len(games)
            games += [
                ScheduledGame(
                    number=offset + n, white=players[b].id, black=players[w].id, pair_index=i,
                    leg=2,
                )
                for n, (w, b, i) in enumerate(first_legs, start=1)
            ]
        return RoundPairing(
            round=round_number,
            byes=(players[bye].id,) if bye != -1 else (),
            removed_history_rounds=newly_removed,
            pairs=pairs,
            games=tuple(games),
        )

    def pair_games(self, context: RoundContext = NO_CONTEXT) -> IndexedRound:
        """:meth:`pair` in player indices (positions in ``players``), for
        :meth:`record_games`: the same round, without building the pairs and
        games as objects (the forecast pairs and records millions of rounds)."""
        round_number = self.tally.rounds + 1
        _check_context(round_number, context)
        bye, newly_removed, _, first_legs = self._pair(round_number)
        games = tuple((w, b) for w, b, _ in first_legs)
        if self.double:
            games += tuple((b, w) for w, b in games)
        return IndexedRound(round_number, bye, newly_removed, games)

    def record_games(self, paired: IndexedRound, white_halves: Sequence[int]) -> None:
        """Record round ``rounds + 1`` as :meth:`record` would, from the
        :meth:`pair_games` of this session (or of a copy in the same state) and
        white's half-points (0, 1 or 2) of each of its games, in order; every
        game counts as played.

        The records :meth:`record` validates are read from outside; this one
        is this session's own pairing, so only its round number and the
        number of results are checked.
        """
        if paired.round != self.tally.rounds + 1:
            raise PairingError(
                f"round {paired.round}: expected round {self.tally.rounds + 1}"
            )
        games = paired.games
        if len(white_halves) != len(games):
            raise PairingError(
                f"round {paired.round}: {len(white_halves)} results for {len(games)} games"
            )
        self.tally.count_games(self._ids, paired.bye, games, white_halves)
        if paired.removed_history_rounds:
            removed = self._removed | set(paired.removed_history_rounds)
            self._removed = removed
            self._in_force = [r for r in self._in_force if r[0] not in removed]
            self._met = _met(self._in_force, len(self.players))
        met = self._met
        for a, b in games:
            met[a] |= 1 << b
            met[b] |= 1 << a
        self._in_force.append((paired.round, games))

    def _pair(
        self, round_number: int
    ) -> tuple[int, tuple[int, ...], list[tuple[int, int]], list[tuple[int, int, int]]]:
        """STEP 1 to STEP 5 in player indices: the BYE (-1 if none), the
        history rounds removed, the pairs formed (first-of-pair first, in
        STEP 4 order) and the first leg of every pair in playing order
        ``(white, black, pair index)``."""
        players = self.players
        ids = self._ids
        totals = self.tally.totals
        tallies = [totals[pid] for pid in ids]
        score = [t.score for t in tallies]
        wgd = [t.white - t.black for t in tallies]

        # STEP 1 (score DESC, seed ASC) and STEP 2, by player index.
        minus_score = [-x for x in score]
        order = sorted(self._by_seed, key=minus_score.__getitem__)  # stable: seed ASC kept
        bye = -1
        if len(order) % 2:
            byes = [t.byes for t in tallies]
            fewest = min(byes)
            bye = next(x for x in reversed(order) if byes[x] == fewest)
            order.remove(bye)
        # The graph's vertices are the players' indices; the matcher visits
        # them in pairing order.
        members = mask_of(order)

        # STEP 3: the encounter history still in force, earliest round first.
        in_force = self._in_force
        newly_removed: list[int] = []
        graph = PairingGraph.from_masks(self._met, wgd, WGD_LIMIT, order)
        matcher = ViabilityMatcher(graph, order, members)
        exposed = matcher.maximize()
        while exposed:
            if len(newly_removed) == len(in_force):
                raise PairingError(
                    _colour_block_message(round_number, players, wgd, order, exposed)
                )
            newly_removed.append(in_force[len(newly_removed)][0])
            met = _met(in_force[len(newly_removed):], len(players))
            exposed = matcher.refresh(PairingGraph.from_masks(met, wgd, WGD_LIMIT, order))

        # STEP 4: greedy pairing in pairing order, keeping a perfect matching.
        formed = matcher.pair_all()
        if formed is None:  # pragma: no cover - a perfect matching always offers the mate
            raise PairingError(
                f"round {round_number}: internal error: no partner for "
                f"{players[matcher.active[0]].id!r}"
            )
        return (bye, tuple(newly_removed), formed,
                _first_legs(round_number, wgd, score, formed, self.double))


def _check_context(round_number: int, context: RoundContext) -> None:
    if context.forbidden_pairs or context.acceleration or context.points != STANDARD:
        from tcecd.pairing.registry import check_rules

        try:
            check_rules(TcecSwiss.name, context)
        except PairingError as exc:
            raise PairingError(f"round {round_number}: {exc}") from None
    if context.requested_byes:
        raise PairingError(
            f"round {round_number}: TCEC Swiss has no requested byes "
            f"({', '.join(repr(b.player) for b in context.requested_byes)})"
        )


def _first_legs(
    round_number: int,
    wgd: Sequence[int],
    score: Sequence[int],
    formed: Sequence[tuple[int, int]],
    double: bool,
) -> list[tuple[int, int, int]]:
    """STEP 5 colours and the playing order: the first game of every pair
    ``(white, black, pair index)`` by player index, worst-performing pair
    first (``formed`` pairs player indices; ``wgd`` and ``score``, in
    half-points, are by player index). A double round plays these, then each
    reversed."""
    legs: list[tuple[int, int, int]] = []
    for pair_index in reversed(range(len(formed))):  # worst-performing pair first
        a, b = formed[pair_index]
        if double:
            first_white = False  # first-of-pair has black in the first game
        else:
            first_white = _single_round_first_white(
                round_number, wgd[a], score[a], wgd[b], score[b]
            )
        legs.append((a, b, pair_index) if first_white else (b, a, pair_index))
    return legs


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
