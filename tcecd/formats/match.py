"""``tcecd play``'s matches and tournaments as an event format.

Engines meet in pairings: ``round-robin`` (all against all) or ``gauntlet``
(the first engine against each other one), as fastchess and cutechess-cli.
Each pairing plays ``rounds`` rounds of ``games`` games; the games of a
round share one opening (round r uses opening r of the book, the same for
every pairing) and alternate colours, so with ``games=2`` each opening is
played once with each colour and its bias cancels out. Playing order: round
by round, pairing by pairing. An event round is one such round: its games
(``ScheduledGame.pair_index`` the pairing, ``leg`` the game's place in it).

Rounds are scheduled ahead of play only as far as ``lookahead`` games (about
twice the concurrency), so a match of ten thousand games keeps a short
schedule, and an SPRT that decides (:class:`~tcecd.runner.stats.Sprt`, on
the first pairing's pentanomial or W/D/L counts, :class:`Tally`) leaves at
most that many scheduled games unplayed: the format is then done, no game
starts, the running ones finish and count.

:class:`Tally` is the one count of a pairing's results (fastchess's
statistics block is printed from it, the SPRT reads it). Pure.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from tcecd.domain import Color, GameId, PlayerId, Result
from tcecd.event.state import EventState
from tcecd.formats.base import Done, FormatSettings, Plan, Play, Schedule
from tcecd.game.record import GameRecord, GameSummary
from tcecd.game.rules import GameRules
from tcecd.pairing.base import Pair, RoundPairing, ScheduledGame, Standing
from tcecd.runner.stats import (
    Estimate,
    Pentanomial,
    Sprt,
    estimate_pentanomial,
    estimate_wdl,
)

#: The registry names (``FormatSettings.system``) of the two schedules.
SCHEDULES = {"match-round-robin": "round-robin", "match-gauntlet": "gauntlet"}


def match_pairings(players: list[PlayerId], tournament: str) -> list[tuple[PlayerId, PlayerId]]:
    """Who meets whom: all pairs (round-robin, in the players' order) or the
    first player against each other one (gauntlet)."""
    if tournament == "gauntlet":
        return [(players[0], other) for other in players[1:]]
    return list(itertools.combinations(players, 2))


def round_games(
    round_no: int, pairs: list[tuple[PlayerId, PlayerId]], games: int
) -> tuple[ScheduledGame, ...]:
    """Round ``round_no``'s games in playing order: in a pairing (a, b), game k
    (0-based) has ``a`` White when k is even; with an odd number of games per
    round the first colour also alternates from round to round, so colours
    even out over the rounds."""
    out: list[ScheduledGame] = []
    flip = (round_no - 1) % 2 if games % 2 else 0
    for index, (a, b) in enumerate(pairs):
        for k in range(games):
            white, black = (a, b) if (k + flip) % 2 == 0 else (b, a)
            out.append(ScheduledGame(len(out) + 1, white, black, index, k + 1))
    return tuple(out)


def _fmt(value: float) -> str:
    return f"{value or 0.0:.2f}"  # no "-0.00"


def _ratio(a: int, b: int) -> str:
    """``a/b`` with two decimals; ``inf`` or ``nan`` when ``b`` is 0 (as fastchess)."""
    if b == 0:
        return "nan" if a == 0 else "inf"
    return f"{a / b:.2f}"


@dataclass
class Tally:
    """Results of ``first`` against ``second``: W/D/L and the pentanomial counts
    (pairs of games of one round with the same opening and colours reversed)."""

    first: str
    second: str
    paired: bool = True  # games per round even: the pentanomial is the statistic
    wins: int = 0
    losses: int = 0
    draws: int = 0
    penta: Pentanomial = field(default_factory=Pentanomial)
    #: first half-points of pairs whose partner game is not finished yet
    pending: dict[tuple[int, int], int] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def add(self, half_points: int, round_: int, slot: int, pair_complete: bool) -> None:
        """Count a game that gave ``first`` 0, 1 or 2 half-points (``slot``:
        0-based place in the round's games of the pairing)."""
        if half_points == 2:
            self.wins += 1
        elif half_points == 0:
            self.losses += 1
        else:
            self.draws += 1
        if not pair_complete:
            return
        key = (round_, slot // 2)
        if key in self.pending:
            partner = self.pending.pop(key)
            # Order within the pair only matters for DD against WL: both one point.
            self.penta = self.penta.add(partner, half_points)
        else:
            self.pending[key] = half_points

    def estimate(self) -> Estimate | None:
        if self.paired:
            return estimate_pentanomial(self.penta)
        return estimate_wdl(self.wins, self.draws, self.losses)

    def counts(self) -> tuple[int, ...]:
        """What the SPRT counts: pentanomial pairs, or (L, D, W) games."""
        return self.penta.counts() if self.paired else (self.losses, self.draws, self.wins)

    def score_line(self) -> str:
        """cutechess-cli's ``Score of A vs B: W - L - D  [ratio] N``."""
        points = self.wins + self.draws / 2
        ratio = points / self.games if self.games else 0.0
        return (
            f"Score of {self.first} vs {self.second}: {self.wins} - {self.losses} - "
            f"{self.draws}  [{ratio:.3f}] {self.games}"
        )

    def report(self, header: str) -> list[str]:
        """fastchess's statistics block (without its SPRT line)."""
        lines = [f"Results of {self.first} vs {self.second} ({header}):"]
        estimate = self.estimate()
        if estimate is None:
            lines.append("Elo: n/a (no complete game pair yet)")
        else:
            lines.append(
                f"Elo: {_fmt(estimate.elo)} +/- {_fmt(estimate.elo_error)}, "
                f"nElo: {_fmt(estimate.nelo)} +/- {_fmt(estimate.nelo_error)}"
            )
            los_line = (
                f"LOS: {estimate.los * 100:.2f} %, "
                f"DrawRatio: {estimate.draw_ratio * 100:.2f} %"
            )
            if self.paired:
                p = self.penta
                los_line += f", PairsRatio: {_ratio(p.ww + p.wd, p.ld + p.ll)}"
            lines.append(los_line)
        points = self.wins + self.draws / 2
        percent = points / self.games * 100 if self.games else 0.0
        lines.append(
            f"Games: {self.games}, Wins: {self.wins}, Losses: {self.losses}, "
            f"Draws: {self.draws}, Points: {points:.1f} ({percent:.2f} %)"
        )
        if self.paired:
            p = self.penta
            counts = ", ".join(str(c) for c in p.counts())
            lines.append(f"Ptnml(0-2): [{counts}], WL/DD Ratio: {_ratio(p.wl, p.dd)}")
        return lines


def count_game(
    tallies: dict[tuple[str, str], Tally], game: GameSummary, games: int
) -> Tally | None:
    """Count one finished game in its pairing's tally (``games``: games per
    round of a pairing; None: an unfinished result, or no pairing of these
    players)."""
    if game.result is Result.UNFINISHED:
        return None
    for (a, b), tally in tallies.items():
        if {a, b} == {game.white, game.black}:
            first = Color.WHITE if game.white == a else Color.BLACK
            # The game's 0-based place among the pairing's games of its round.
            slot = (game.game_id.number - 1) % games
            # The last game of a round with an odd number of games has no partner.
            complete = slot // 2 * 2 + 1 < games
            tally.add(game.result.half_points(first), game.game_id.round, slot, complete)
            return tally
    return None


@dataclass(frozen=True)
class MatchSettings:
    """A match's schedule (``FormatSettings.extra``)."""

    tournament: str = "round-robin"
    games: int = 2
    rounds: int = 1
    sprt: Sprt | None = None
    lookahead: int = 4


class MatchFormat:
    """``tcecd play``'s schedule (see the module docstring)."""

    def __init__(self, settings: FormatSettings) -> None:
        self.settings = settings
        extra = dict(settings.extra)
        self.name = settings.system
        self.match = MatchSettings(
            tournament=SCHEDULES[settings.system],
            games=int(extra.get("games", 2)),
            rounds=int(extra.get("rounds", settings.rounds or 1)),
            sprt=extra.get("sprt"),
            lookahead=max(1, int(extra.get("lookahead", 4))),
        )
        # The SPRT's tally, folded over the results in commit order as they come
        # (a cache of a pure function of the state: the results so far).
        self._counted = 0
        self._voided = 0  # EventState.voided when last counted
        self._tally: Tally | None = None
        self._decided: str | None = None

    def _pairs(self, state: EventState) -> list[tuple[PlayerId, PlayerId]]:
        players = [p.id for p in sorted(state.players, key=lambda p: p.seed)]
        return match_pairings(players, self.match.tournament)

    def total_rounds(self, state: EventState) -> int | None:
        return self.match.rounds

    def sprt_decision(self, state: EventState) -> str | None:
        """``"H0"``/``"H1"`` once the SPRT has decided on the results so far."""
        sprt = self.match.sprt
        if sprt is None:
            return None
        if self._tally is None:
            (a, b), *_ = self._pairs(state)
            self._tally = Tally(a, b, paired=self.match.games % 2 == 0)
        results = state.results
        if len(results) < self._counted or state.voided != self._voided:
            # Another state, or a result the operator voided: count again.
            self._voided = state.voided
            self._counted, self._decided = 0, None
            (a, b), *_ = self._pairs(state)
            self._tally = Tally(a, b, paired=self.match.games % 2 == 0)
        new = len(results) - self._counted
        if new:
            tallies = {(self._tally.first, self._tally.second): self._tally}
            # The newest results are the last ones (a dict keeps commit order).
            ordered = cast(dict[GameId, GameSummary], results)
            latest = list(itertools.islice(reversed(ordered.values()), new))
            for game in reversed(latest):
                count_game(tallies, game, self.match.games)
                if self._decided is None:
                    self._decided = sprt.decision(sprt.llr(self._tally.counts()))
            self._counted = len(results)
        return self._decided

    def plan(self, state: EventState) -> Plan:
        if self.sprt_decision(state) is not None:
            return Done()
        scheduled = len(state.schedule)
        if scheduled < self.match.rounds and len(state.pending()) < self.match.lookahead:
            round_no = scheduled + 1
            pairs = self._pairs(state)
            return Schedule(
                RoundPairing(
                    round_no, None, (), tuple(Pair(a, b) for a, b in pairs),
                    round_games(round_no, pairs, self.match.games),
                )
            )  # fmt: skip
        if scheduled >= self.match.rounds and not state.pending():
            return Done()
        return Play()

    def round_over(self, state: EventState, round_no: int) -> bool:
        return False  # no standings per round: the statistics are the sink's

    def decided_from(self, state: EventState, gid: GameId) -> str | None:
        """Nothing: a match's schedule never reads a result, and the SPRT
        counts again after a voided one (:meth:`sprt_decision`); once it has
        decided, the match is over."""
        return None

    def standings(self, state: EventState) -> tuple[Standing, ...]:
        """Points per engine over all its games, ranked (ties: the engines' order)."""
        points: Counter[str] = Counter()
        games: Counter[str] = Counter()
        for g in state.results.values():
            if g.result is Result.UNFINISHED:
                continue
            for color, pid in ((Color.WHITE, g.white), (Color.BLACK, g.black)):
                points[pid] += g.result.half_points(color)
                games[pid] += 1
        seeds = {p.id: p.seed for p in state.players}
        order = sorted(seeds, key=lambda p: (-points[p], seeds[p]))
        return tuple(
            Standing(rank=i, id=p, score_half=points[p], byes=0, games=games[p], tiebreaks=())
            for i, p in enumerate(order, start=1)
        )

    def opening_index(self, state: EventState, gid: GameId) -> int:
        return gid.round - 1

    def game_rules(self, state: EventState, gid: GameId, rules: GameRules) -> GameRules:
        return rules

    def bracket(self, state: EventState) -> dict[str, Any] | None:
        return None

    def record_tags(self, state: EventState, record: GameRecord) -> tuple[tuple[str, str], ...]:
        return ()

    def viewer_files(self, state: EventState, event: str, slug: str) -> dict[str, Any]:
        from tcecd.outputs.tcec_json import tournament_json

        return {"tournament.json": tournament_json(event, slug)}


def ordinal(gid: GameId, games_per_round: int) -> int:
    """A match game's 1-based number over the whole match (``Finished game N``)."""
    return (gid.round - 1) * games_per_round + gid.number


def tallies_for(pairs: Iterable[tuple[str, str]], games: int) -> dict[tuple[str, str], Tally]:
    """An empty tally per pairing (``games``: per round of a pairing)."""
    return {(a, b): Tally(a, b, paired=games % 2 == 0) for a, b in pairs}
