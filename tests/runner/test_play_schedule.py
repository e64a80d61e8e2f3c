"""``tcecd play``'s schedule and tallies (tcecd.formats.match, tcecd.runner.match),
without engines, and a whole match through the event runner with a scripted player."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from tcecd.config.engines import EngineConfig
from tcecd.formats.match import Tally, match_pairings, round_games
from tcecd.game.record import Opening
from tcecd.game.timecontrol import TimeControl
from tcecd.pairing.base import ScheduledGame
from tcecd.runner.match import MatchResult, MatchSpec
from tcecd.runner.stats import Pentanomial, Sprt


def engines(*names: str) -> tuple[EngineConfig, ...]:
    return tuple(EngineConfig(name=n, command=("true",)) for n in names)


OPENINGS = (
    Opening(name="A", fen=None, moves=("e2e4",)),
    Opening(name="B", fen=None, moves=("d2d4",)),
)


def spec(**kw: object) -> MatchSpec:
    base: dict[str, object] = {
        "engines": engines("a", "b", "c"),
        "games": 2,
        "time_control": TimeControl(depth=1),
        "openings": OPENINGS,
    }
    base.update(kw)
    return MatchSpec(**base)  # type: ignore[arg-type]


def schedule(
    players: str, rounds: int, games: int, tournament: str = "round-robin"
) -> list[tuple[int, ScheduledGame]]:
    """The match's games as (round, game), in playing order."""
    pairs = match_pairings(list(players), tournament)
    return [(r, g) for r in range(1, rounds + 1) for g in round_games(r, pairs, games)]


def test_round_robin_of_three_two_rounds_of_two() -> None:
    jobs = schedule("abc", rounds=2, games=2)
    # 3 pairings x 2 rounds x 2 games, numbered in playing order in each round.
    assert [g.number for _, g in jobs] == list(range(1, 7)) * 2
    met = Counter(frozenset((g.white, g.black)) for _, g in jobs)
    assert met == {frozenset("ab"): 4, frozenset("ac"): 4, frozenset("bc"): 4}
    # Round by round (round r uses opening r for every pairing: MatchFormat.opening_index).
    assert [r for r, _ in jobs] == [1] * 6 + [2] * 6
    # Each opening of each pairing is played once with each colour.
    for k in range(0, 12, 2):
        (r1, first), (r2, second) = jobs[k], jobs[k + 1]
        assert (first.white, first.black) == (second.black, second.white)
        assert r1 == r2
        assert first.pair_index == second.pair_index


def test_gauntlet_plays_the_first_engine_against_each_other() -> None:
    jobs = schedule("abcd", rounds=1, games=2, tournament="gauntlet")
    assert len(jobs) == 3 * 2
    assert all("a" in (g.white, g.black) for _, g in jobs)
    assert Counter(g.white for _, g in jobs) == {"a": 3, "b": 1, "c": 1, "d": 1}


def test_odd_games_alternate_the_first_colour_by_round() -> None:
    """One game per round: the first engine is White in rounds 1 and 3, Black in 2 and 4."""
    jobs = schedule("ab", games=1, rounds=4)
    assert [g.white for _, g in jobs] == ["a", "b", "a", "b"]


def test_three_games_a_round_pair_only_the_first_two() -> None:
    """Games 1+2 of a round form a pair; game 3 has no partner (W/D/L only)."""
    result = MatchResult(games_per_round=3)
    tally = Tally("a", "b", paired=False)
    for slot, half in enumerate((2, 0, 1)):
        tally.add(half, 1, slot, pair_complete=slot // 2 * 2 + 1 < result.games_per_round)
    assert (tally.wins, tally.losses, tally.draws) == (1, 1, 1)
    assert tally.penta == Pentanomial(wl=1)
    assert tally.counts() == (1, 1, 1)  # the SPRT uses L, D, W here


def test_pairs_complete_in_any_order() -> None:
    """With concurrency the second game of a pair can finish first."""
    tally = Tally("a", "b")
    tally.add(2, 1, 1, True)  # round 1, game 2 finishes first: a won it
    tally.add(0, 2, 0, True)  # round 2, game 1: a lost
    assert tally.penta.pairs == 0
    tally.add(1, 1, 0, True)  # round 1, game 1: draw -> pair WD
    tally.add(0, 2, 1, True)  # round 2, game 2: a lost -> pair LL
    assert tally.penta == Pentanomial(wd=1, ll=1)
    assert tally.counts() == (1, 0, 0, 1, 0)


def test_report_block_by_hand() -> None:
    """fastchess's block for 3 wins, 1 draw in two pairs (WW, WD).

    Pairs 1.0 and 0.75: s = 0.875, var = (0.125² + 0.125²)/2 = 0.015625,
    s ± 1.96·sqrt(0.015625/2) = 0.875 ± 0.17324 -> top above 1: Elo error inf.
    Elo = 400·log10(7) = 338.04. nElo = 0.375/sqrt(2·0.015625) · 347.44 = 737.02;
    its error: 0.17324/0.17678 · 347.44 = 340.48. LOS = Φ(0.375/0.088388) = Φ(4.24)."""
    tally = Tally("a", "b", wins=3, draws=1, penta=Pentanomial(ww=1, wd=1))
    assert tally.report("depth 1") == [
        "Results of a vs b (depth 1):",
        "Elo: 338.04 +/- inf, nElo: 737.02 +/- 340.48",
        "LOS: 100.00 %, DrawRatio: 0.00 %, PairsRatio: inf",
        "Games: 4, Wins: 3, Losses: 0, Draws: 1, Points: 3.5 (87.50 %)",
        "Ptnml(0-2): [0, 0, 0, 1, 1], WL/DD Ratio: nan",
    ]
    result = MatchResult(tallies={("a", "b"): tally}, sprt=Sprt(0, 5))
    assert result.report()[-1].startswith("LLR: ")
    assert result.report()[-1].endswith(" (-2.94, 2.94) [0.00, 5.00]")




def test_concurrent_games_keep_the_rating_interval_and_whole_pgn_games(tmp_path: Path) -> None:
    """Two games at a time, finishing together, through the event runner (a
    scripted player: each game's White fails to start): the statistics come
    after every second game, and every game is in the PGN, whole."""
    from tcecd.runner import match as match_module

    lines: list[str] = []
    pgn = tmp_path / "games.pgn"
    the_spec = spec(engines=engines("a", "b"), rounds=4, concurrency=2, pgn_path=pgn,
                    rating_interval=2)  # fmt: skip

    class Scripted:
        name = "scripted"

        def use_engine_groups(self, groups: Any) -> None:
            pass

        async def aclose(self) -> None:
            pass

        async def play(self, job: Any, updates: Any, gate: Any) -> Any:
            from tcecd.domain import Color
            from tcecd.execution.job import GameResult
            from tcecd.runner.game import Fault, GameSetup, startup_outcome
            from tcecd.runner.session import FaultKind

            try:
                await gate.may_start()
            finally:
                gate.decided()
            await asyncio.sleep(0.01)  # the two running games end in the same turn of the loop
            fault = Fault(job.white.name, Color.WHITE, FaultKind.STARTUP, "test")
            setup = GameSetup(job.game_id, job.event, job.site, job.rules, None, job.opening)
            outcome = startup_outcome(setup, job.white, job.black, fault)
            return GameResult(outcome.record, ((job.white.name, "startup", "test"),))

    result = asyncio.run(
        match_module.run_match(the_spec, progress=lines.append, player=Scripted())
    )
    assert len(result.outcomes) == 8
    finished = [i for i, line in enumerate(lines) if line.startswith("Finished game")]
    blocks = [i for i, line in enumerate(lines) if line.startswith("Results of ")]
    # A block after the 2nd, 4th and 6th finished game (not after the 8th: the
    # summary follows), each before the next game is reported.
    assert len(blocks) == 3
    for k, block in zip((1, 3, 5), blocks, strict=True):
        assert finished[k] < block < finished[k + 1]
    text = pgn.read_text(encoding="utf-8")
    assert text.count('[Event "tcecd play"]') == 8
    assert text.count("\n\n[Event ") == 7  # each game ends with a blank line before the next
