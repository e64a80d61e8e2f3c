"""Encounter lengths, tiebreaks, BYEs and disqualifications, worked by hand.

The rule is cutechess-cli's ``needMoreGames`` (knockouttournament.cpp), in
half-points, with g = games per encounter, the leader credited with every
game in progress (2 half-points each):

  (a) leader + in-progress points <= g                      -> more games
  (b) minDiff = 1 (odd g) or 3 (even g); |diff| + in-progress points >= minDiff -> no more
  (c) minDiff == 1 or the (in-progress-credited) diff == 0   -> more
  (d) otherwise more iff the number of games started is odd (complete the pair)

Results below are from the higher seed's side (W/D/L), P1 the higher seed.
"""

from __future__ import annotations

import pytest

from tcecd.domain import Result
from tcecd.errors import ConfigError, StateError
from tcecd.formats.knockout import (
    CupGame,
    Decision,
    KnockoutSettings,
    build_cup,
    need_more_games,
    next_games,
)

from .helpers import play, players, result_for, sequence


def two(games: int, *results: str, cap: int | None = None, tc: str | None = None) -> list[str]:
    """A two-player cup (just the final): the results actually played."""
    p = play(2, KnockoutSettings(games=games, tiebreak_max_games=cap, tiebreak_time_control=tc),
             sequence(*results))
    return [_from_high(g) for g in p.games]


def _from_high(g: CupGame) -> str:
    assert g.result is not None
    high_white = g.white == "P1"
    if g.result is Result.DRAW:
        return "D"
    return "W" if (g.result is Result.WHITE_WINS) == high_white else "L"


def final(games: int, *results: str, cap: int | None = None):  # type: ignore[no-untyped-def]
    p = play(2, KnockoutSettings(games=games, tiebreak_max_games=cap), sequence(*results))
    e = p.cup.rounds[0].encounters[0]
    assert e.decided
    return e.outcome


@pytest.mark.parametrize(("games", "results", "played", "reason"), [
    # g=2: W -> 2 half-points: (a) 2 <= 2, more. W D -> 3-1: (a) no, (b) diff 2 < 3,
    # (d) 2 started, even -> done: 1.5-0.5.
    (2, "WD", "WD", "P1 wins 1.5-0.5"),
    (2, "WW", "WW", "P1 wins 2-0"),
    # g=2: W L -> 2-2: (a) more: tiebreak game 3. W -> 4-2: (b) diff 2 < 3, (d) 3 started,
    # odd -> game 4 (the pair is completed). D -> 5-3: diff 2, 4 started -> done.
    (2, "WLWD", "WLWD", "P1 wins 2.5-1.5 after 2 tiebreak games"),
    # ... and 1-1 in the tiebreak pair -> another pair: W L W L L W L L -> P2 wins.
    (2, "WLWLLL", "WLWLLL", "P2 wins 4-2 after 4 tiebreak games"),
    # g=4: W W -> 4-0: (a) 4 <= 4, more. W W W -> 6-0: (b) diff 6 >= 3 -> done after 3.
    (4, "WWW", "WWW", "P1 wins 3-0"),
    # g=4: W W D -> 5-1: (a) 5 > 4, (b) diff 4 >= 3 -> done after 3 (2.5-0.5).
    (4, "WWD", "WWD", "P1 wins 2.5-0.5"),
    # g=4: W D D -> 4-2: (a) 4 <= 4 -> game 4; D -> 5-3: (b) 2 < 3, (d) 4 started -> done.
    (4, "WDDD", "WDDD", "P1 wins 2.5-1.5"),
    # g=1: W -> 2 > 1, diff 2 >= 1 -> done.
    (1, "W", "W", "P1 wins 1-0"),
    # g=1: D -> 1-1: (a) 1 <= 1 -> game 2 (tiebreak). D -> 2-2: (c) minDiff 1 -> game 3.
    # L -> 2-4: done.
    (1, "DDL", "DDL", "P2 wins 2-1 after 2 tiebreak games"),
    # g=3: W W -> 4-0: (a) 4 > 3, diff 4 >= 1 -> done after 2 of 3.
    (3, "WW", "WW", "P1 wins 2-0"),
    # g=3: D D D -> 3-3: (a) 3 <= 3 -> one tiebreak game; W -> 5-3 done.
    (3, "DDDW", "DDDW", "P1 wins 2.5-1.5 after 1 tiebreak game"),
    # g=3: W L D -> 3-3 -> game 4; D -> 4-4 (c) -> game 5; L -> 4-6.
    (3, "WLDDL", "WLDDL", "P2 wins 3-2 after 2 tiebreak games"),
    # g=3: W D -> 3-1: (a) 3 <= 3 -> game 3; L -> 3-3 -> game 4 ...
    (3, "WDLW", "WDLW", "P1 wins 2.5-1.5 after 1 tiebreak game"),
])
def test_lengths_by_hand(games: int, results: str, played: str, reason: str) -> None:
    assert "".join(two(games, *results)) == played
    outcome = final(games, *results)
    assert outcome.reason == reason
    tiebreak = len(played) > games
    assert outcome.decision is (Decision.TIEBREAK if tiebreak else Decision.SCORE)


def test_colours_alternate_higher_seed_white_first() -> None:
    p = play(2, KnockoutSettings(games=2), sequence("W", "L", "D", "D", "W", "D"))
    assert [(g.white, g.black) for g in p.games] == [("P1", "P2"), ("P2", "P1")] * 3
    # Openings: one per pair, both games of a pair share it.
    e = p.cup.rounds[0].encounters[0]
    assert [eg.opening for eg in e.games] == [0, 0, 1, 1, 2, 2]
    assert [eg.tiebreak for eg in e.games] == [False, False, True, True, True, True]


def test_higher_seed_is_white_first_from_the_lower_place() -> None:
    # 4 players: 1-4 and 2-3. P4 beats P1, P2 beats P3: the final has P4 in the
    # upper place and P2 in the lower; P2 is the higher seed and White first.
    outcome = {(1, 4): "L", (2, 3): "W"}
    p = play(4, KnockoutSettings(games=2),
             lambda h, lo, i: outcome.get((h, lo), "W"))
    fin = p.cup.rounds[1].encounters[0]
    assert (fin.upper, fin.lower, fin.high) == ("P4", "P2", "P2")
    assert (fin.games[0].game.white, fin.games[1].game.white) == ("P2", "P4")


def test_tiebreak_games_carry_the_tiebreak_time_control() -> None:
    s = KnockoutSettings(games=2, tiebreak_time_control="60+1")
    cup = build_cup(players(2), s, [
        CupGame(1, 1, "P1", "P2", Result.WHITE_WINS), CupGame(1, 2, "P2", "P1", Result.WHITE_WINS)])
    new = next_games(cup)
    assert [(n.number, n.index, n.tiebreak, n.time_control) for n in new] == [
        (3, 3, True, "60+1"), (4, 4, True, "60+1")]
    first = next_games(build_cup(players(2), s, []))
    assert [(n.tiebreak, n.time_control) for n in first] == [(False, None), (False, None)]


def test_the_other_tiebreak_game_still_running() -> None:
    # g=2, 1-1 after the regular pair: a tiebreak pair of two games at once
    # (concurrency 2): with one in progress, (a) 2+2 > 2, (b) diff 0+2 < 3,
    # (d) 3 started -> the second starts too.
    s = KnockoutSettings(games=2)
    done = [CupGame(1, 1, "P1", "P2", Result.WHITE_WINS),
            CupGame(1, 2, "P2", "P1", Result.WHITE_WINS)]
    new = next_games(build_cup(players(2), s, done), limit=2)
    assert [n.number for n in new] == [3, 4]
    # Game 3 ends 1-0 for P1 (1.5-0.5 would need game 4 to be a draw or a win)
    # while game 4 is still running: nothing new, no outcome yet.
    games = [*done, CupGame(1, 3, "P1", "P2", Result.WHITE_WINS), CupGame(1, 4, "P2", "P1")]
    cup = build_cup(players(2), s, games)
    assert next_games(cup, limit=2) == ()
    assert not cup.rounds[0].encounters[0].decided
    assert not cup.finished
    # Game 4 drawn: 1.5-0.5 in the pair, 2.5-1.5 in all: decided.
    games[-1] = CupGame(1, 4, "P2", "P1", Result.DRAW)
    cup = build_cup(players(2), s, games)
    assert cup.champion == "P1"
    assert cup.rounds[0].encounters[0].outcome.reason == (  # type: ignore[union-attr]
        "P1 wins 2.5-1.5 after 2 tiebreak games")


@pytest.mark.parametrize(("games", "finished", "running", "third"), [
    # g=2 with 2 running: (a) 0+4 > 2, (b) 4 >= 3 -> no third game.
    (2, "", 2, False),
    # g=4 with 2 running: (a) 0+4 <= 4 -> a third game.
    (4, "", 2, True),
    # g=4 with 3 running: (a) 6 > 4, (b) 6 >= 3 -> no fourth.
    (4, "", 3, False),
    # g=4, game 1 won by P1, 2 running: (a) 2+4 > 4, (b) 2+4 >= 3 -> no fourth.
    (4, "W", 2, False),
    # g=4, games 1-2 split, game 3 running: (a) 2+2 <= 4 -> the fourth.
    (4, "WL", 1, True),
    # g=3 with 1 running: (a) 0+2 <= 3 -> a second game.
    (3, "", 1, True),
    # g=3 with 2 running: (a) 4 > 3, (b) 4 >= 1 -> no third.
    (3, "", 2, False),
])
def test_games_in_progress_count_for_the_leader(games: int, finished: str, running: int,
                                                  third: bool) -> None:
    s = KnockoutSettings(games=games)
    listed: list[CupGame] = []
    for i, r in enumerate(finished + "." * running, start=1):
        white, black = ("P1", "P2") if i % 2 else ("P2", "P1")
        listed.append(CupGame(1, i, white, black,
                              None if r == "." else result_for(white, black, r)))
    new = next_games(build_cup(players(2), s, listed))
    assert bool(new) is third
    assert len(new) <= 1  # one more at most: the new game counts as in progress at once


def test_all_needed_games_start_together() -> None:
    # With enough free slots, an encounter gets every game it can need now:
    # g=4 -> 3 (a 3-0 would decide), g=2 -> 2, g=5 -> 3 (3 wins = 6 > 5).
    for games, expected in ((4, 3), (2, 2), (5, 3), (1, 1), (6, 4)):
        cup = build_cup(players(2), KnockoutSettings(games=games), [])
        assert len(next_games(cup)) == expected, games
        assert len(next_games(cup, limit=1)) == 1


def test_max_games_reached_the_higher_seed_advances() -> None:
    # g=2 and at most 2 tiebreak games: W L W L -> 2-2 after 4 games -> P1 (seed 1).
    assert "".join(two(2, "W", "L", "W", "L", cap=2)) == "WLWL"
    outcome = final(2, "W", "L", "W", "L", cap=2)
    assert outcome.winner == "P1"
    assert outcome.decision is Decision.SEED
    assert outcome.reason == "2-2 tied after 2 tiebreak games: P1 advances as the higher seed"
    # g=1, at most 3 tiebreak games: D D D D -> 2-2 after 4 -> P1.
    outcome = final(1, "D", "D", "D", "D", cap=3)
    assert (outcome.winner, outcome.decision, outcome.winner_half) == ("P1", Decision.SEED, 4)
    # Decided before the cap: no seed decision.
    assert final(2, "W", "L", "W", "D", cap=4).decision is Decision.TIEBREAK


def test_max_games_when_the_higher_seed_is_in_the_lower_place() -> None:
    # 4 players, g=2, cap 2. Round 1: P4 beats P1, P2 beats P3. Final P4 (upper) v
    # P2 (lower): every game drawn -> 2-2 after the tiebreak pair -> P2, the higher seed.
    outcome = {(1, 4): "L", (2, 3): "W", (2, 4): "D"}
    p = play(4, KnockoutSettings(games=2, tiebreak_max_games=2),
             lambda h, lo, i: outcome[(h, lo)])
    fin = p.cup.rounds[1].encounters[0]
    assert fin.started == 4
    assert p.cup.champion == "P2"
    assert fin.outcome is not None
    assert fin.outcome.decision is Decision.SEED


def test_byes() -> None:
    # 3 players: 1-BYE, 2-3; P1 plays no game in round 1.
    p = play(3, KnockoutSettings(games=2), sequence("W", "W"))
    r1 = p.cup.rounds[0].encounters
    assert (r1[0].upper, r1[0].lower, r1[0].games) == ("P1", None, ())
    assert r1[0].outcome is not None
    assert r1[0].outcome.decision is Decision.BYE
    assert [(g.round, g.white, g.black) for g in p.games] == [
        (1, "P2", "P3"), (1, "P3", "P2"), (2, "P1", "P2"), (2, "P2", "P1")]
    assert p.cup.champion == "P1"


def test_disqualified_engine_loses_at_once() -> None:
    s = KnockoutSettings(games=2)
    # P2 won game 1, then is disqualified in round 1: P1 advances at once, 0-1.
    g1 = CupGame(1, 1, "P1", "P2", Result.BLACK_WINS)
    cup = build_cup(players(2), s, [g1], {"P2": 1})
    e = cup.rounds[0].encounters[0]
    assert e.outcome is not None
    assert e.decided
    assert (e.outcome.winner, e.outcome.decision) == ("P1", Decision.DISQUALIFIED)
    assert e.outcome.reason == "P2 was disqualified: P1 advances (0-1)"
    assert next_games(cup) == ()
    assert cup.champion == "P1"


def test_disqualification_with_a_game_running() -> None:
    # 4 players, g=2, concurrency 2. P3 is disqualified in round 1 while game 2 of
    # its encounter (with P2) runs: the outcome is known, no new game for it, but
    # the round waits for the running game.
    s = KnockoutSettings(games=2)
    games = [CupGame(1, 1, "P1", "P4", Result.WHITE_WINS), CupGame(1, 2, "P4", "P1",
                                                                  Result.BLACK_WINS),
             CupGame(1, 3, "P2", "P3", Result.BLACK_WINS), CupGame(1, 4, "P3", "P2")]
    cup = build_cup(players(4), s, games, {"P3": 1})
    e = cup.rounds[0].encounters[1]
    assert e.outcome is not None
    assert e.outcome.winner == "P2"
    assert not e.decided
    assert next_games(cup) == ()
    assert len(cup.rounds) == 1
    games[-1] = CupGame(1, 4, "P3", "P2", Result.WHITE_WINS)  # P3 wins it: changes nothing
    cup = build_cup(players(4), s, games, {"P3": 1})
    assert [(n.round, n.white, n.black) for n in next_games(cup)] == [
        (2, "P1", "P2"), (2, "P2", "P1")]


def test_disqualified_after_winning_its_encounter_never_advances() -> None:
    # P1 beat P4 2-0 in round 1 but is disqualified in round 1 (its round not over):
    # P4 advances. Disqualified in round 2 instead: round 1 stands, P1 loses the final.
    s = KnockoutSettings(games=2)
    games = [CupGame(1, 1, "P1", "P4", Result.WHITE_WINS), CupGame(1, 2, "P4", "P1",
                                                                  Result.BLACK_WINS),
             CupGame(1, 3, "P2", "P3", Result.WHITE_WINS), CupGame(1, 4, "P3", "P2",
                                                                  Result.BLACK_WINS)]
    cup = build_cup(players(4), s, games, {"P1": 1})
    assert [n.white for n in next_games(cup)] == ["P2", "P4"]
    cup = build_cup(players(4), s, games, {"P1": 2})
    assert cup.rounds[0].encounters[0].outcome.winner == "P1"  # type: ignore[union-attr]
    assert cup.finished
    assert cup.champion == "P2"
    assert cup.rounds[1].encounters[0].outcome.decision is Decision.DISQUALIFIED  # type: ignore[union-attr]


def test_both_disqualified_the_leader_advances_and_loses_next() -> None:
    s = KnockoutSettings(games=2)
    games = [CupGame(1, 1, "P1", "P4", Result.WHITE_WINS), CupGame(1, 2, "P4", "P1",
                                                                  Result.BLACK_WINS),
             CupGame(1, 3, "P2", "P3", Result.BLACK_WINS)]
    cup = build_cup(players(4), s, games, {"P2": 1, "P3": 1})
    e = cup.rounds[0].encounters[1]
    assert e.outcome is not None
    assert e.outcome.winner == "P3"
    assert cup.finished
    assert cup.champion == "P1"


def test_games_the_rules_cannot_have_scheduled_are_refused() -> None:
    s = KnockoutSettings(games=2)
    w = Result.WHITE_WINS
    with pytest.raises(StateError, match="not an encounter of round 1"):
        build_cup(players(4), s, [CupGame(1, 1, "P1", "P2", w)])
    with pytest.raises(StateError, match="expected P1 White and P4 Black"):
        build_cup(players(4), s, [CupGame(1, 1, "P4", "P1", w)])
    with pytest.raises(StateError, match=r"expected game 1\.1"):
        build_cup(players(4), s, [CupGame(1, 2, "P1", "P4", w)])
    with pytest.raises(StateError, match="round 1 is not over"):
        build_cup(players(4), s, [CupGame(1, 1, "P1", "P4", w), CupGame(2, 1, "P1", "P2")])
    two_zero = [CupGame(1, 1, "P1", "P2", w), CupGame(1, 2, "P2", "P1", Result.BLACK_WINS)]
    with pytest.raises(StateError, match="game 3 of the encounter was not needed"):
        build_cup(players(2), s, [*two_zero, CupGame(1, 3, "P1", "P2")])
    with pytest.raises(StateError, match="the cup has rounds 1-1"):
        build_cup(players(2), s, [CupGame(2, 1, "P1", "P2")])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"games": 0}, "pairing.games: expected an integer >= 1, got 0"),
    ({"games": 2, "tiebreak_max_games": 3}, "must be even when pairing.games is even"),
    ({"games": 2, "tiebreak_max_games": 0}, "pairing.tiebreak.max_games: expected an integer"),
    ({"games": 2, "tiebreak_time_control": " "}, "pairing.tiebreak.time_control"),
])
def test_settings_are_checked(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        KnockoutSettings(**kwargs)  # type: ignore[arg-type]
    KnockoutSettings(games=3, tiebreak_max_games=3)  # odd games: any cap


def test_need_more_games_is_cutechess_rule() -> None:
    # Spot checks of the transcription (half-points): see the module docstring.
    assert need_more_games(2, 0, 0, 0, 0)
    assert need_more_games(2, 0, 0, 1, 1)  # (a) 2 <= 2
    assert not need_more_games(2, 0, 0, 2, 2)  # (b) 4 >= 3
    assert need_more_games(2, 4, 2, 0, 3)  # (d) 3 started
    assert not need_more_games(2, 5, 3, 0, 4)  # (d) 4 started
    assert need_more_games(1, 2, 2, 0, 2)  # (c) odd and tied
    assert not need_more_games(1, 2, 0, 0, 1)


def test_one_player_is_a_cup_without_games() -> None:
    cup = build_cup(["Solo"], KnockoutSettings(), [])
    assert cup.finished
    assert cup.champion == "Solo"
    assert next_games(cup) == ()


def test_find_a_stored_game() -> None:
    # On resume the runner restarts a stored, unfinished game: its opening slot and
    # tiebreak flag come from the fold.
    s = KnockoutSettings(games=2, tiebreak_time_control="30+1")
    games = [CupGame(1, 1, "P1", "P2", Result.WHITE_WINS),
             CupGame(1, 2, "P2", "P1", Result.WHITE_WINS), CupGame(1, 3, "P1", "P2")]
    cup = build_cup(players(2), s, games)
    e, eg = cup.find(1, 3)
    assert (eg.index, eg.tiebreak, eg.opening, e.outcome) == (3, True, 1, None)
    with pytest.raises(StateError, match=r"knockout game 1\.4 is not in the cup's schedule"):
        cup.find(1, 4)
