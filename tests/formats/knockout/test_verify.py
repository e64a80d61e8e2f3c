"""``verify_cup``: a cup checked from its PGN's tags (bracket, lengths, who advanced)."""

from __future__ import annotations

from dataclasses import replace

from tcecd.domain import Result
from tcecd.formats.knockout import CupGame, KnockoutSettings, games_from_headers, verify_cup

from .helpers import play, players

W, D, B = Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS
S = KnockoutSettings(games=2, tiebreak_time_control="30+1", tiebreak_max_games=2)


def cup4() -> list[CupGame]:
    """4 players, g=2, by hand: P1-P4 1-0 1/2 (P1 1.5-0.5); P2-P3 1-0 0-1, then the
    tiebreak pair 1/2 1/2 -> 2-2 after the cap -> P2 (seed); final P1-P2 2-0."""
    return [
        CupGame(1, 1, "P1", "P4", W, "60+1"), CupGame(1, 2, "P4", "P1", D, "60+1"),
        CupGame(1, 3, "P2", "P3", W, "60+1"), CupGame(1, 4, "P3", "P2", W, "60+1"),
        CupGame(1, 5, "P2", "P3", D, "30+1"), CupGame(1, 6, "P3", "P2", D, "30+1"),
        CupGame(2, 1, "P1", "P2", W, "60+1"), CupGame(2, 2, "P2", "P1", B, "60+1"),
    ]


def test_a_cup_played_by_the_rules_passes() -> None:
    assert verify_cup(players(4), cup4(), S, time_control="60+1") == []


def test_played_cups_pass() -> None:
    for n in (2, 3, 5, 7, 8):
        p = play(n, S, lambda h, lo, i: "WLD"[(h * 7 + lo + i) % 3], concurrency=3)
        assert verify_cup(players(n), p.games, S) == [], n


def test_the_wrong_engine_advanced() -> None:
    games = cup4()
    games[6:] = [CupGame(2, 1, "P1", "P3", W), CupGame(2, 2, "P3", "P1", B)]
    assert verify_cup(players(4), games, S) == [
        "knockout game 2.1 (P1-P3) is not an encounter of round 2 (P1-P2)",
        "knockout game 2.2 (P3-P1) is not an encounter of round 2 (P1-P2)",
        "the cup is not finished (round 2: P1-P2 undecided)",
    ]


def test_an_encounter_too_long_or_too_short() -> None:
    games = cup4()
    # P1 led 2-0 after the final's regular pair: a third game was not needed.
    extra = [*games, CupGame(2, 3, "P1", "P2", D)]
    assert verify_cup(players(4), extra, S) == [
        "knockout game 2.3 (P1-P2): game 3 of the encounter was not needed: "
        "the encounter was decided"]
    # Without the tiebreak pair, P2-P3 stopped at 1-1 and round 2 began too early.
    short = [g for g in games if not (g.round == 1 and g.number in (5, 6))]
    assert verify_cup(players(4), short, S) == [
        "knockout game 2.1: round 1 is not over (P2-P3 needs more games)",
        "the cup is not finished (round 1: P2-P3 undecided)"]
    # Past the cap of 2 tiebreak games (the encounter's 5th game).
    over = [*games[:6], CupGame(1, 7, "P2", "P3", D), *games[6:]]
    problems = verify_cup(players(4), over, S)
    assert problems[0] == ("knockout game 1.7 (P2-P3): game 5 of the encounter was not "
                           "needed: it had had its 4 games")


def test_colours_numbers_results_and_time_controls() -> None:
    games = cup4()
    games[1] = CupGame(1, 2, "P1", "P4", D, "60+1")
    games[3] = replace(games[3], number=5)
    games[4] = replace(games[4], time_control="60+1")
    games[7] = replace(games[7], result=Result.UNFINISHED)
    problems = verify_cup(players(4), games, S, time_control="60+1")
    assert "knockout game 1.2: expected P4 White and P1 Black in game 2 of the encounter" in (
        problems)
    assert "knockout game 1.5: the Round tag is used twice" in problems
    assert "knockout game 1.5: expected game 1.4 (games are numbered 1, 2, ... in each round)" in (
        problems)
    assert ("knockout game 1.5: tiebreak game 3 of the encounter has time control '60+1', "
            "expected '30+1'") in problems
    assert "knockout game 2.2 (P2-P1): no result" in problems
    assert problems[-1] == "the cup is not finished (round 2: P1-P2 undecided)"


def test_a_cup_in_progress_and_a_disqualification() -> None:
    assert verify_cup(players(4), cup4()[:3], S, finished=False) == []
    # P4 disqualified in round 1 after game 1: the encounter ends there.
    games = [g for g in cup4() if g.tag != "1.2"]
    games = [replace(g, number=g.number - 1) if g.round == 1 and g.number > 2 else g
             for g in games]
    assert verify_cup(players(4), games, S, disqualified={"P4": 1}) == []


def test_games_from_headers() -> None:
    headers = [
        {"Round": "1.1", "White": "P1", "Black": "P2", "Result": "1-0", "TimeControl": "60+1"},
        {"Round": "x", "White": "P1", "Black": "P2", "Result": "1-0"},
        {"Round": "1.2", "White": "P2", "Black": "P1", "Result": "2-0"},
    ]
    games, problems = games_from_headers(headers)
    assert games == [CupGame(1, 1, "P1", "P2", W, "60+1")]
    assert problems == [
        "PGN game 2: invalid round tag: 'x' (expected \"r.g\")",
        "PGN game 3 (1.2): invalid result: '2-0' (expected 1-0, 0-1, 1/2-1/2 or *)"]
