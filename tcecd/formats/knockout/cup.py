"""The whole cup as a fold over its games: rounds, encounters, what to play next.

:func:`build_cup` turns the field (player ids in seed order), the settings,
the games so far and the disqualifications into a :class:`Cup`: every round
started so far with its encounters and their games. The runner's loop is

    cup = build_cup(players, settings, games, disqualified)
    for game in next_games(cup, limit=free_slots): schedule it

after every finished game (and on resume, from the stored games: the stored
schedule stays authoritative). Nothing here reads a clock or a file.

Playing order and numbering follow cutechess-cli's ``nextPair``: each new game
goes to the first encounter of the current round, in bracket order, that
still needs one (games scheduled and not finished counting as in progress),
and takes the next number of the round (the ``G`` of the Round tag ``R.G``).
A round starts when the previous one is over: every encounter decided and no
game of the round unfinished. The next round pairs the winners in bracket
order (the winners of encounters 1 and 2 meet, then 3 and 4, ...).

Openings: each game pair of an encounter (its games 1-2, 3-4, ...) takes the
next opening slot of the cup, in the order the pairs start (round by round,
in each round by game number), and both games of the pair play it. So slot
``k`` is the ``k``-th pair started in the cup: no two encounters of the cup
share an opening unless the book has fewer openings than the cup has pairs
(``select_opening`` cycles then); a round's regular games take one slot per
encounter and pair (16 for the first round of a 32-engine cup of 2-game encounters).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from tcecd.domain import PlayerId
from tcecd.errors import StateError
from tcecd.formats.knockout.bracket import first_round, round_count
from tcecd.formats.knockout.encounter import (
    CupGame,
    Encounter,
    EncounterGame,
    KnockoutSettings,
)
from tcecd.pairing.base import Standing


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game to schedule: its Round tag ``round.number``, the players, the
    encounter (0-based, bracket order) and the game's place in it (1-based),
    whether it is a tiebreak game (play it at the tiebreak time control) and
    its opening slot (the index for ``tcecd.game.openings.select_opening``)."""

    round: int
    number: int
    white: PlayerId
    black: PlayerId
    encounter: int
    index: int
    tiebreak: bool
    opening: int
    time_control: str | None = None  # the tiebreak time control, for tiebreak games

    def as_game(self) -> CupGame:
        """The stored form (no result yet)."""
        return CupGame(self.round, self.number, self.white, self.black)


@dataclass(frozen=True, slots=True)
class CupRound:
    """A round that has started: its encounters in bracket order."""

    number: int
    encounters: tuple[Encounter, ...]

    @property
    def games(self) -> int:
        """Games scheduled in the round so far."""
        return sum(e.started for e in self.encounters)

    @property
    def over(self) -> bool:
        """Every encounter decided and no game of the round unfinished."""
        return all(e.decided for e in self.encounters)


@dataclass(frozen=True, slots=True)
class Cup:
    """The cup as its games make it. ``rounds`` are the rounds started so far
    (the last is the current one); ``total_rounds`` the bracket's."""

    players: tuple[PlayerId, ...]
    settings: KnockoutSettings
    rounds: tuple[CupRound, ...]
    total_rounds: int
    disqualified: tuple[tuple[PlayerId, int], ...] = ()

    def seed(self, player: PlayerId) -> int:
        return self.players.index(player) + 1

    @property
    def finished(self) -> bool:
        """The final is decided (a field of one: at once)."""
        if self.total_rounds == 0:
            return True
        return len(self.rounds) == self.total_rounds and self.rounds[-1].over

    @property
    def champion(self) -> PlayerId | None:
        if self.total_rounds == 0:
            return self.players[0]
        if not self.finished:
            return None
        outcome = self.rounds[-1].encounters[0].outcome
        assert outcome is not None
        return outcome.winner

    def find(self, round_no: int, number: int) -> tuple[Encounter, EncounterGame]:
        """The game ``round_no.number`` and its encounter: its opening slot and
        tiebreak flag (to restart a stored game on resume), and the encounter's
        outcome once the game has decided it (its reason belongs in the PGN)."""
        if 1 <= round_no <= len(self.rounds):
            for e in self.rounds[round_no - 1].encounters:
                for eg in e.games:
                    if eg.game.number == number:
                        return e, eg
        raise StateError(f"knockout game {round_no}.{number} is not in the cup's schedule")

    @property
    def openings_used(self) -> int:
        """Opening slots taken so far (game pairs started)."""
        return sum(1 for r in self.rounds for e in r.encounters for g in e.games if g.index % 2)


def _encounter(settings: KnockoutSettings, round_no: int, index: int,
               upper: tuple[PlayerId, int], lower: tuple[PlayerId, int] | None,
               disqualified: Mapping[PlayerId, int]) -> Encounter:
    def out(p: PlayerId | None) -> bool:
        d = None if p is None else disqualified.get(p)
        return d is not None and d <= round_no

    return Encounter(
        round=round_no, index=index, upper=upper[0], upper_seed=upper[1],
        lower=None if lower is None else lower[0],
        lower_seed=None if lower is None else lower[1], settings=settings,
        upper_out=out(upper[0]), lower_out=out(None if lower is None else lower[0]))


def first_round_encounters(players: Sequence[PlayerId], settings: KnockoutSettings,
                           disqualified: Mapping[PlayerId, int] | None = None
                           ) -> tuple[Encounter, ...]:
    """Round 1's encounters in bracket order (no games)."""
    dq = disqualified or {}
    return tuple(
        _encounter(settings, 1, i, (players[high - 1], high),
                   None if low is None else (players[low - 1], low), dq)
        for i, (high, low) in enumerate(first_round(len(players))))


def next_round_encounters(previous: CupRound, players: Sequence[PlayerId],
                          settings: KnockoutSettings,
                          disqualified: Mapping[PlayerId, int] | None = None
                          ) -> tuple[Encounter, ...]:
    """The next round's encounters: the winners of ``previous`` paired in
    bracket order (encounters 1 and 2 feed the next round's first, ...).
    ``previous`` must be over."""
    if not previous.over:
        raise StateError(f"knockout round {previous.number} is not over")
    winners: list[tuple[PlayerId, int]] = []
    for e in previous.encounters:
        outcome = e.outcome
        assert outcome is not None
        winners.append((outcome.winner, players.index(outcome.winner) + 1))
    dq = disqualified or {}
    return tuple(
        _encounter(settings, previous.number + 1, i // 2, winners[i], winners[i + 1], dq)
        for i in range(0, len(winners), 2))


def build_cup(players: Sequence[PlayerId], settings: KnockoutSettings,
              games: Iterable[CupGame],
              disqualified: Mapping[PlayerId, int] | None = None) -> Cup:
    """Fold the cup's games (any order) into a :class:`Cup`.

    ``players`` are the ids in seed order (seed 1 first). ``disqualified``
    maps an engine to the knockout round in which it was disqualified.
    Raises :class:`~tcecd.errors.StateError` for games the rules cannot have
    scheduled: a round that starts before the previous one is over, a game
    between engines that are not an encounter of its round, wrong colours, a
    number used twice or skipped, a game its encounter could not need.
    """
    return fold(players, settings, games, disqualified, None)


def _problem(problems: list[str] | None, text: str) -> None:
    """Raise (``problems`` None: the runner's state) or note (``verify_cup``)."""
    if problems is None:
        raise StateError(text)
    problems.append(text)


def fold(players: Sequence[PlayerId], settings: KnockoutSettings, games: Iterable[CupGame],
         disqualified: Mapping[PlayerId, int] | None, problems: list[str] | None) -> Cup:
    """:func:`build_cup`, noting each deviation in ``problems`` (and going on
    where it can) instead of raising when ``problems`` is a list."""
    field = tuple(players)
    if len(set(field)) != len(field):
        raise StateError(f"knockout field: a player is listed twice: {list(field)!r}")
    dq = dict(disqualified or {})
    total = round_count(len(field))
    by_round: dict[int, list[CupGame]] = {}
    for g in games:
        if 1 <= g.round <= total:
            by_round.setdefault(g.round, []).append(g)
        else:
            _problem(problems, f"knockout game {g.tag}: the cup has rounds 1-{total}")

    rounds: list[CupRound] = []
    slot = 0
    encounters = first_round_encounters(field, settings, dq) if total else ()
    for number in range(1, total + 1):
        round_games = sorted(by_round.get(number, []), key=lambda g: g.number)
        current, slot = _with_games(number, encounters, round_games, settings, slot, problems)
        rounds.append(current)
        if not current.over or number == total:
            later = [r for r in by_round if r > number]
            if later:
                _problem(problems, f"knockout game {by_round[min(later)][0].tag}: round "
                                   f"{number} is not over ({_undecided(current)})")
            break
        encounters = next_round_encounters(current, field, settings, dq)
    return Cup(field, settings, tuple(rounds), total, tuple(sorted(dq.items())))


def _undecided(r: CupRound) -> str:
    """The encounters of ``r`` still open, for a message."""
    return ", ".join(f"{e.upper}-{e.lower} needs more games" if e.outcome is None
                     else f"{e.upper}-{e.lower} has a game unfinished"
                     for e in r.encounters if not e.decided)


def _with_games(number: int, encounters: tuple[Encounter, ...], games: list[CupGame],
                settings: KnockoutSettings, slot: int,
                problems: list[str] | None) -> tuple[CupRound, int]:
    """The round with its games added in number order; checks each as the
    rules would have scheduled it. Returns the round and the next opening slot."""
    by_pair = {frozenset((e.upper, e.lower)): i for i, e in enumerate(encounters)
               if e.lower is not None}
    current = list(encounters)
    for expected, g in enumerate(games, start=1):
        if g.number != expected:
            _problem(problems, f"knockout game {g.tag}: expected game {number}.{expected} "
                               "(games are numbered 1, 2, ... in each round)")
        i = by_pair.get(frozenset((g.white, g.black)))
        if i is None:
            pairs = ", ".join(f"{e.upper}-{e.lower}" for e in encounters if e.lower)
            _problem(problems, f"knockout game {g.tag} ({g.white}-{g.black}) is not an "
                               f"encounter of round {number} ({pairs})")
            continue
        e = current[i]
        index = e.started + 1
        if not _needed_then(e):
            cap = settings.max_games
            why = (f"it had had its {cap} games" if cap is not None and e.started >= cap
                   else "the encounter was decided")
            _problem(problems, f"knockout game {g.tag} ({g.white}-{g.black}): game {index} "
                               f"of the encounter was not needed: {why}")
        if (g.white, g.black) != e.colours(index):
            w, b = e.colours(index)
            _problem(problems, f"knockout game {g.tag}: expected {w} White and {b} Black "
                               f"in game {index} of the encounter")
        current[i], slot = _add(e, g, index, settings, slot)
    return CupRound(number, tuple(current)), slot


def _needed_then(e: Encounter) -> bool:
    """Could the rules have scheduled another game of ``e`` (its games so far
    being the earlier ones)?

    When the game was scheduled, some earlier games may still have been in
    progress, which the rule counts as won by the leader. That assumption is
    the most decisive one: whatever those games' real results, a game the rule
    wanted with them in progress it also wants with them finished (in
    :func:`need_more_games` every test that says "no more games" only gets
    harder to pass when the in-progress points are shared out). So asking the
    rule with every earlier game finished accepts every schedule the rule can
    make at any concurrency, and rejects a game it could never want. While an
    earlier game is unfinished the question waits for its result. The
    disqualification of an engine is left out: games scheduled before it stand.
    """
    if any(not g.game.finished for g in e.games):
        return True
    return replace(e, upper_out=False, lower_out=False).needs_game


def _add(e: Encounter, g: CupGame, index: int, settings: KnockoutSettings,
         slot: int) -> tuple[Encounter, int]:
    if index % 2:
        opening, slot = slot, slot + 1
    else:
        opening = e.games[index - 2].opening
    eg = EncounterGame(g, index, index > settings.games, opening)
    return replace(e, games=(*e.games, eg)), slot


def next_games(cup: Cup, limit: int | None = None) -> tuple[NewGame, ...]:
    """The games to schedule now, in playing order (at most ``limit``).

    Pass the runner's free concurrency slots as ``limit`` and ask again after
    every finished game: the games scheduled and not finished count as in
    progress, exactly as cutechess-cli counts its running games, so no game
    is started that the encounter cannot need. (Without ``limit`` every game
    wanted now is returned; queued games that do not start at once would then
    count as in progress without being so.) When the current round is over,
    the next round's first games are returned; nothing once the cup is over.
    """
    if cup.finished or (limit is not None and limit <= 0):
        return ()
    current = cup.rounds[-1]
    if current.over:  # only when the next round could not be built: not reachable
        return ()
    encounters = list(current.encounters)
    slot = cup.openings_used
    number = current.games
    out: list[NewGame] = []
    tb_tc = cup.settings.tiebreak_time_control
    while limit is None or len(out) < limit:
        i = next((k for k, e in enumerate(encounters) if e.needs_game), None)
        if i is None:
            break
        e = encounters[i]
        index = e.started + 1
        number += 1
        white, black = e.colours(index)
        game = CupGame(current.number, number, white, black)
        encounters[i], slot = _add(e, game, index, cup.settings, slot)
        added = encounters[i].games[-1]
        out.append(NewGame(current.number, number, white, black, i, index, added.tiebreak,
                           added.opening, tb_tc if added.tiebreak else None))
    return tuple(out)


def standings(cup: Cup) -> tuple[Standing, ...]:
    """The standings: the winner, the runner-up, then by the round each engine
    went out in (later is better), ties by seed.

    Every row's single tiebreak is ``rounds-won`` (encounters won, a BYE
    included), the order's key. During the cup the engines still in come
    before those out in the same round. ``score_half`` and ``games`` count
    the finished games, ``byes`` the BYE received.
    """
    won = dict.fromkeys(cup.players, 0)
    alive = set(cup.players)
    score = dict.fromkeys(cup.players, 0)
    played = dict.fromkeys(cup.players, 0)
    byes = dict.fromkeys(cup.players, 0)
    for r in cup.rounds:
        for e in r.encounters:
            for p in (e.upper, e.lower):
                if p is not None:
                    score[p] += e.half_points(p)
                    played[p] += sum(1 for g in e.games if g.game.finished)
            outcome = e.outcome if e.decided else None
            if outcome is None:
                continue
            won[outcome.winner] += 1
            if outcome.loser is None:
                byes[outcome.winner] += 1
            else:
                alive.discard(outcome.loser)
    order = sorted(cup.players, key=lambda p: (-won[p], p not in alive, cup.seed(p)))
    return tuple(
        Standing(rank=i, id=p, score_half=score[p], byes=byes[p], games=played[p],
                 tiebreaks=(("rounds-won", float(won[p])),))
        for i, p in enumerate(order, start=1))
