"""One encounter of the cup: the mini-match between two engines, and when it ends.

An encounter is ``games`` games (default 2) with paired openings: game ``i``
plays the encounter's opening ``(i + 1) // 2``, the higher seed White in the
odd games and Black in the even ones, so each opening is played twice with the
colours reversed whenever both games of its pair are played. (cutechess-cli
also alternates the colours game by game, but starts with the engine of the
upper bracket place, which in later rounds need not be the higher seed.)

It ends as soon as it is decided, by the rule of cutechess-cli's knockout
(:func:`need_more_games`). Games beyond ``games`` are tiebreak games: they are
played at the tiebreak time control when the config gives one, and after
``tiebreak_max_games`` of them an encounter still undecided goes to the higher
seed (:attr:`Decision.SEED`).

Faults and forfeits count as the results they are. A disqualified engine loses
its encounter at once (:attr:`Decision.DISQUALIFIED`), whatever the score, and
no further game of it is scheduled; games of it still being played change
nothing. The alternative, forfeiting its remaining games one by one until the
rule above is satisfied, would write empty games into the PGN (up to two
tiebreak pairs when the disqualified engine led) to reach the same winner;
deciding at once gives the runner a plain answer and the bracket a plain
reason. A disqualification counts from the round it happened in: an engine
disqualified in round ``d`` loses every encounter of round ``d`` and later
(the one it is playing, or the one it already won but whose round is not over:
a disqualified engine never advances), while earlier rounds stand. When both
engines of an encounter are disqualified, the games decide as if neither were
(the leader, else the higher seed), and the winner loses its next encounter.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from tcecd.domain import Color, PlayerId, Result
from tcecd.errors import ConfigError


@dataclass(frozen=True, slots=True)
class KnockoutSettings:
    """The cup's rules: ``games`` per encounter, and the optional tiebreak
    (its time control, carried to each tiebreak game, and the most tiebreak
    games an encounter may have before the higher seed advances).

    ``tiebreak_max_games`` must be even when ``games`` is: tiebreak games then
    come in pairs (the rule below completes a pair unless one side leads by
    1.5 points), and a cap inside a pair would cut a pair in half."""

    games: int = 2
    tiebreak_time_control: str | None = None
    tiebreak_max_games: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 1:
            raise ConfigError(f"pairing.games: expected an integer >= 1, got {self.games!r}")
        cap = self.tiebreak_max_games
        if cap is not None:
            if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
                raise ConfigError(
                    f"pairing.tiebreak.max_games: expected an integer >= 1, got {cap!r}")
            if self.games % 2 == 0 and cap % 2:
                raise ConfigError(
                    f"pairing.tiebreak.max_games: must be even when pairing.games is even "
                    f"(tiebreak games come in pairs), got {cap!r} with games {self.games!r}")
        tc = self.tiebreak_time_control
        if tc is not None and (not isinstance(tc, str) or not tc.strip()):
            raise ConfigError(f"pairing.tiebreak.time_control: expected a time control, got {tc!r}")

    @property
    def max_games(self) -> int | None:
        """The most games an encounter can have (None: no cap)."""
        if self.tiebreak_max_games is None:
            return None
        return self.games + self.tiebreak_max_games


def need_more_games(games: int, first: int, second: int, in_progress: int, started: int) -> bool:
    """cutechess-cli's ``KnockoutTournament::needMoreGames``, transcribed.

    ``games`` is the number of games per encounter; ``first`` and ``second``
    the two sides' scores in half-points over the finished games;
    ``in_progress`` the games started but not finished; ``started`` all games
    started (finished + in progress). True when another game must start now.

    The leader is given every point of the games in progress: if even that
    leaves it at most half the scheduled points, more games are needed. Else
    the lead must reach ``minDiff`` (half a point for an odd ``games``, 1.5
    points for an even one), again counting the games in progress for the
    leader. Short of it: with an odd ``games`` or a tie, one more game; with an
    even ``games`` a pair is completed (a game more when ``started`` is odd),
    and a completed pair with a 1-point lead decides.

    Every game gives its two sides 2 half-points in all, so the difference of
    the scores is always even: cutechess's "1.5 points" (``minDiff`` 3) takes a
    2-point lead in practice. A pair is cut short only by a 2-point lead (4
    games: 2.5-0.5 after 3), never in a tiebreak that starts level.
    """
    lead_score = max(first, second) + 2 * in_progress
    if lead_score <= games:
        return True
    min_diff = 3 if games % 2 == 0 else 1
    max_diff = abs(first - second) + 2 * in_progress
    if max_diff >= min_diff:
        return False
    if min_diff == 1 or max_diff == 0:
        return True
    return started % 2 != 0


class Decision(enum.Enum):
    """How an encounter was decided (the ``decision`` of the bracket document)."""

    SCORE = "score"  # within the scheduled games
    TIEBREAK = "tiebreak"  # on score, in tiebreak games
    SEED = "seed"  # still tied after the most tiebreak games: the higher seed
    BYE = "bye"  # no opponent
    DISQUALIFIED = "disqualified"  # an engine was disqualified


@dataclass(frozen=True, slots=True)
class Outcome:
    """Who advanced and why. ``loser`` is None after a BYE; the scores are
    the half-points of the encounter's finished games."""

    winner: PlayerId
    loser: PlayerId | None
    decision: Decision
    winner_half: int
    loser_half: int
    reason: str


@dataclass(frozen=True, slots=True)
class CupGame:
    """A game of the cup as the runner stores it and as the PGN gives it.

    ``round`` and ``number`` are the PGN Round tag ``R.G`` (R the knockout
    round, G the game's place in the round's playing order); ``result`` is
    None (or ``*``) while the game is scheduled or being played.
    ``time_control`` is only read by :func:`~tcecd.formats.knockout.verify.verify_cup`.
    """

    round: int
    number: int
    white: PlayerId
    black: PlayerId
    result: Result | None = None
    time_control: str | None = None

    @property
    def finished(self) -> bool:
        return self.result is not None and self.result is not Result.UNFINISHED

    @property
    def tag(self) -> str:
        return f"{self.round}.{self.number}"


@dataclass(frozen=True, slots=True)
class EncounterGame:
    """A game in its encounter: ``index`` is its place there (1-based),
    ``tiebreak`` whether it is beyond the scheduled ``games``, ``opening`` the
    cup-wide opening slot (0-based; the index ``select_opening`` takes)."""

    game: CupGame
    index: int
    tiebreak: bool
    opening: int


@dataclass(frozen=True, slots=True)
class Encounter:
    """An encounter of a round, its games so far, and what follows from them.

    ``upper``/``lower`` are the two bracket places in order (``lower`` None:
    a BYE; only in the first round); the seeds are the players' seeds.
    ``upper_out``/``lower_out`` say whether that engine is disqualified (in
    this round or before)."""

    round: int
    index: int
    upper: PlayerId
    upper_seed: int
    lower: PlayerId | None
    lower_seed: int | None
    settings: KnockoutSettings
    games: tuple[EncounterGame, ...] = ()
    upper_out: bool = False
    lower_out: bool = False

    # -- who is who --------------------------------------------------------------------

    @property
    def high(self) -> PlayerId:
        """The higher seed (White in the odd games)."""
        if self.lower is None or self.lower_seed is None or self.upper_seed < self.lower_seed:
            return self.upper
        return self.lower

    @property
    def low(self) -> PlayerId | None:
        """The lower seed (None for a BYE)."""
        return self.lower if self.high == self.upper else self.upper

    def colours(self, index: int) -> tuple[PlayerId, PlayerId]:
        """(White, Black) of the encounter's game ``index`` (1-based)."""
        low = self.low
        if low is None:
            raise ValueError(f"encounter {self.round}/{self.index + 1} is a BYE")
        return (self.high, low) if index % 2 else (low, self.high)

    # -- the score ---------------------------------------------------------------------

    def half_points(self, player: PlayerId) -> int:
        """``player``'s half-points over the encounter's finished games."""
        total = 0
        for g in self.games:
            if g.game.finished and g.game.result is not None:
                colour = Color.WHITE if g.game.white == player else Color.BLACK
                total += g.game.result.half_points(colour)
        return total

    @property
    def started(self) -> int:
        return len(self.games)

    @property
    def in_progress(self) -> int:
        """Games scheduled or being played (cutechess counts started games;
        tcecd schedules a game only when it can start it)."""
        return sum(1 for g in self.games if not g.game.finished)

    def _rule(self, in_progress: int) -> bool:
        return need_more_games(self.settings.games, self.half_points(self.upper),
                               self.half_points(self.lower) if self.lower is not None else 0,
                               in_progress, self.started)

    # -- what next ---------------------------------------------------------------------

    @property
    def needs_game(self) -> bool:
        """Another game must be scheduled now (the games scheduled and not
        finished counting as in progress, as cutechess counts its running ones)."""
        if self.lower is None or self.upper_out or self.lower_out:
            return False
        cap = self.settings.max_games
        if cap is not None and self.started >= cap:
            return False
        return self._rule(self.in_progress)

    @property
    def outcome(self) -> Outcome | None:
        """Who advanced, or None while the encounter is undecided or any of
        its games is unfinished (a disqualification decides at once)."""
        if self.lower is None:
            return Outcome(self.upper, None, Decision.BYE, 0, 0, f"{self.upper} has a BYE")
        up, lo = self.half_points(self.upper), self.half_points(self.lower)
        if self.upper_out != self.lower_out:
            winner, loser = (self.lower, self.upper) if self.upper_out else (self.upper, self.lower)
            return self._outcome(winner, loser, Decision.DISQUALIFIED,
                                 f"{loser} was disqualified: {winner} advances")
        if self.upper_out and self.lower_out:
            winner = self._leader(up, lo) or self.high
            loser = self.lower if winner == self.upper else self.upper
            return self._outcome(winner, loser, Decision.DISQUALIFIED,
                                 f"both were disqualified: {winner} advances on the games "
                                 "and loses its next encounter")
        if self.in_progress:
            return None
        tiebreaks = self.started - self.settings.games
        after = f"after {tiebreaks} tiebreak game{'s' if tiebreaks > 1 else ''}"
        if self._rule(0):
            cap = self.settings.max_games
            if cap is None or self.started < cap:
                return None
            leader = self._leader(up, lo)
            if leader is not None:  # unreachable with a valid cap (see KnockoutSettings)
                loser = self.lower if leader == self.upper else self.upper
                return self._outcome(leader, loser, Decision.TIEBREAK, f"{leader} wins {after}")
            low = self.low
            assert low is not None
            return self._outcome(self.high, low, Decision.SEED,
                                 f"tied {after}: {self.high} advances as the higher seed")
        # The rule wants no more games and none is unfinished: one side leads.
        leader = self._leader(up, lo)
        assert leader is not None
        loser = self.lower if leader == self.upper else self.upper
        if tiebreaks > 0:
            return self._outcome(leader, loser, Decision.TIEBREAK, f"{leader} wins {after}")
        return self._outcome(leader, loser, Decision.SCORE, f"{leader} wins")

    def _leader(self, up: int, lo: int) -> PlayerId | None:
        if up == lo:
            return None
        return self.upper if up > lo else self.lower

    def _outcome(self, winner: PlayerId, loser: PlayerId, decision: Decision,
                 why: str) -> Outcome:
        """The outcome; its reason is ``why`` with the score, winner first
        (``"A wins 2.5-1.5 after 2 tiebreak games"``)."""
        w, lo = self.half_points(winner), self.half_points(loser)
        score = f"{points_text(w)}-{points_text(lo)}"
        if " wins" in why:
            reason = why.replace(" wins", f" wins {score}", 1)
        elif why.startswith("tied"):
            reason = f"{score} {why}"
        else:
            reason = f"{why} ({score})"
        return Outcome(winner, loser, decision, w, lo, reason)

    @property
    def decided(self) -> bool:
        """An outcome is known and no game of the encounter is unfinished."""
        return self.outcome is not None and not self.in_progress


def points_text(half: int) -> str:
    """Half-points as TCEC writes points: ``3``, ``2.5``."""
    return str(half // 2) if half % 2 == 0 else f"{half / 2:.1f}"
