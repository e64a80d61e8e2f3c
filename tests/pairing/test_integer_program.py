"""The integer-program system (tcecd/pairing/integer_program) against the spec.

Hand-worked rounds with the reasoning written out; the optimum and the
tie-break checked against a brute-force enumeration written from the spec
(tests/pairing/ip_oracle.py) on random small events; the hard constraints on
random larger events; the time limit.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcecd.domain import Result
from tcecd.errors import PairingError
from tcecd.pairing.base import (
    Bye,
    ByeKind,
    PlayedGame,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
)
from tcecd.pairing.integer_program import IntegerProgram, explain, explain_round
from tcecd.pairing.registry import SystemOptions, get_system

from .helpers import field
from .ip_oracle import allowed, brute_force, coefficients, pair_value

RESULTS = (Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS)


def record(
    pairing: RoundPairing, results: Sequence[Result], unplayed: Sequence[bool] = ()
) -> RoundRecord:
    flags = list(unplayed) or [True] * len(results)
    return RoundRecord(
        round=pairing.round,
        byes=pairing.byes,
        removed_history_rounds=(),
        games=tuple(
            PlayedGame(g.white, g.black, r, played)
            for g, r, played in zip(pairing.games, results, flags, strict=True)
        ),
        requested_byes=pairing.requested_byes,
    )


def boards(pairing: RoundPairing, players: Sequence[Player]) -> list[tuple[int, int]]:
    seed = {p.id: p.seed for p in players}
    return [(seed[p.first], seed[p.second]) for p in pairing.pairs]


def unpaired(pairing: RoundPairing, players: Sequence[Player]) -> list[int]:
    seed = {p.id: p.seed for p in players}
    return sorted(seed[i] for i in pairing.byes)


SYSTEM = IntegerProgram()


# -- hand-worked rounds ---------------------------------------------------------------


def test_round_one_pairs_by_pairing_number_lower_number_white() -> None:
    # Everybody on 0 with both colours open: any perfect matching is worth 2 x 50.
    # Boards sort by pairing number (equal scores); the smallest list starts with
    # P1's board as (1, 2) (P1 white), then (3, 4).
    pairing = SYSTEM.pair(field(4), [], double=False)
    assert boards(pairing, field(4)) == [(1, 2), (3, 4)]
    assert pairing.bye is None
    assert [(g.white, g.black) for g in pairing.games] == [("P1", "P2"), ("P3", "P4")]


def test_a_solve_writes_nothing_to_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    # HiGHS logs to the process's own stdout (fd 1, not sys.stdout), which carries
    # `tcecd simulate`'s JSON and the daemon's output: not one byte of it from
    # the solver (highspy 1.16.0 prints its banner before output_flag can be set).
    SYSTEM.pair(field(6), [], double=False)
    assert capfd.readouterr().out == ""


def test_round_two_forced_colours_and_score_difference() -> None:
    # Round 1: P1-P2 1-0, P3-P4 1/2. P1 and P3 (W-B = +1) may only have black,
    # P2 and P4 (-1) only white (spec 8); 1-2 and 3-4 have met. The one perfect
    # pairing: P4-P1 and P2-P3, worth 100 - 5 x (1/2 + 1/2) = 95; any single pair
    # is worth at most 50. Board order: P4-P1 (higher score 1) before P2-P3 (1/2).
    players = field(4)
    first = SYSTEM.pair(players, [], double=False)
    history = [record(first, [Result.WHITE_WINS, Result.DRAW])]
    pairing = SYSTEM.pair(players, history, double=False)
    assert boards(pairing, players) == [(4, 1), (2, 3)]
    assert explain_round(players, history).objective == 95


def test_three_players_the_bye_and_the_sat_out_bonus() -> None:
    # Round 1: one pair only; the smallest list is [(1, 2)], so P3 sits out.
    players = field(3)
    first = SYSTEM.pair(players, [], double=False)
    assert boards(first, players) == [(1, 2)]
    assert first.bye == "P3"
    # Round 2 after P1 beat P2: P1 (+1) only black, P2 (-1) only white, P3 has not
    # played (both colours). P2-P1 met. P2-P3 is worth 50 + 30 (U_3) - 5 x 1 = 75,
    # P3-P1 50 + 30 - 0 = 80: P3 (white) plays P1, P2 has the bye.
    history = [record(first, [Result.WHITE_WINS])]
    pairing = SYSTEM.pair(players, history, double=False)
    assert boards(pairing, players) == [(3, 1)]
    assert pairing.bye == "P2"
    expl = explain_round(players, history)
    assert (expl.objective, expl.pairs, expl.unpaired_before) == (80, 1, 1)


def test_several_players_unpaired_when_the_colour_rules_block_every_game() -> None:
    # Six players, white wins every game: R1 1-2 3-4 5-6; R2 4-1 2-5 6-3;
    # R3 1-6 3-2 5-4 (the system's own pairings, checked below). Then P1, P3, P5
    # stand at W-B +1 (black only), P2, P4, P6 at -1 (white only), and each of
    # P2, P4, P6 has met all of P1, P3, P5: no game is allowed in round 4.
    players = field(6)
    history: list[RoundRecord] = []
    expected = [[(1, 2), (3, 4), (5, 6)], [(4, 1), (2, 5), (6, 3)], [(1, 6), (3, 2), (5, 4)]]
    for want in expected:
        pairing = SYSTEM.pair(players, history, double=False)
        assert boards(pairing, players) == want
        history.append(record(pairing, [Result.WHITE_WINS] * 3))
    pairing = SYSTEM.pair(players, history, double=False)
    assert pairing.pairs == ()
    assert pairing.games == ()
    # All six are the round's pairing-allocated byes (a set in the record).
    assert pairing.byes == {f"P{i}" for i in range(1, 7)}
    assert pairing.requested_byes == ()
    # Each scores a win, and they are received BYEs in the standings' tally.
    from tcecd.pairing.tally import tally

    history.append(record(pairing, []))
    totals = tally(players, history, double=False)
    assert [totals[f"P{i}"].byes for i in range(1, 7)] == [1] * 6


def test_requested_byes_are_left_out_and_absent_players_stay_out() -> None:
    players = field(5)
    context = RoundContext(requested_byes=(Bye("P1", ByeKind.HALF),))
    pairing = SYSTEM.pair(players, [], double=False, context=context)
    # P2..P5 on 0, all colours open: (2, 3), (4, 5); P1 is not paired, nobody else sits out.
    assert boards(pairing, players) == [(2, 3), (4, 5)]
    assert pairing.bye is None
    assert pairing.requested_byes == context.requested_byes


def test_a_record_replayed_as_its_own_context_pairs_the_same() -> None:
    # A finished round replayed as the context of its re-pairing may echo its
    # pairing-allocated byes as U entries (older records held the further ones
    # so): they are the system's own output, not requests. Round 4 of the
    # blocked six-player event above: all six U.
    players = field(6)
    history: list[RoundRecord] = []
    for _ in range(3):
        pairing = SYSTEM.pair(players, history, double=False)
        history.append(record(pairing, [Result.WHITE_WINS] * 3))
    fourth = SYSTEM.pair(players, history, double=False)
    assert len(fourth.byes) == 6
    echoed = RoundContext(requested_byes=tuple(Bye(p, ByeKind.PAIRING) for p in fourth.byes))
    assert SYSTEM.pair(players, history, double=False, context=echoed) == fourth


def test_double_round_reverses_the_second_game() -> None:
    pairing = SYSTEM.pair(field(4), [], double=True)
    assert [(g.white, g.black, g.leg, g.pair_index) for g in pairing.games] == [
        ("P1", "P2", 1, 0),
        ("P3", "P4", 1, 1),
        ("P2", "P1", 2, 0),
        ("P4", "P3", 2, 1),
    ]


def test_explain_renders_terms_and_status() -> None:
    players = field(4)
    first = SYSTEM.pair(players, [], double=False)
    history = [record(first, [Result.WHITE_WINS, Result.DRAW])]
    text = explain(players, history)
    assert "round 2: integer program, optimal (proven)" in text
    assert "objective 95 = 50 x 2 pairs" in text
    assert "- 5 x 1 score difference" in text
    assert "1. P4 (4, 0.5) - P1 (1, 1): value 47.5" in text
    assert "P1 (1, W-B +1): no white: 8: strong preference" in text


def test_registered_with_its_time_limit() -> None:
    system = get_system("integer-program", SystemOptions(time_limit_s=3.0))
    assert isinstance(system, IntegerProgram)
    assert system.time_limit_s == 3.0
    assert system.rounds_for(10) is None


# -- the optimum and the tie-break against brute force ----------------------------------


def play_random(
    players: Sequence[Player], rounds: int, rng: random.Random, *, absences: bool
) -> list[RoundRecord]:
    """Pair ``rounds`` rounds with the system, random results, sometimes an
    unplayed forfeit or a requested bye."""
    history: list[RoundRecord] = []
    for _ in range(rounds):
        away: tuple[Bye, ...] = ()
        if absences and rng.random() < 0.3:
            away = (Bye(rng.choice(players).id, rng.choice([ByeKind.HALF, ByeKind.ZERO])),)
        pairing = SYSTEM.pair(
            players, history, double=False, context=RoundContext(requested_byes=away)
        )
        results = [rng.choice(RESULTS) for _ in pairing.games]
        played = [rng.random() > 0.1 for _ in pairing.games]
        history.append(record(pairing, results, played))
    return history


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(min_value=2, max_value=8),
    rounds=st.integers(min_value=0, max_value=4),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_optimum_and_tie_break_match_brute_force(n: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    players = field(n)
    history = play_random(players, rounds, rng, absences=True)
    context = RoundContext()
    if rng.random() < 0.3:
        context = RoundContext(requested_byes=(Bye(f"P{rng.randint(1, n)}", ByeKind.ZERO),))
    want = brute_force(players, history, context)
    got = SYSTEM.pair(players, history, double=False, context=context)
    assert explain_round(players, history, context).objective == want.objective
    assert boards(got, players) == want.boards
    assert unpaired(got, players) == want.unpaired


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1])
def test_ten_players_match_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    players = field(10)
    for rounds in (0, 2, 4):
        history = play_random(players, rounds, random.Random(rng.random()), absences=False)
        want = brute_force(players, history)
        got = SYSTEM.pair(players, history, double=False)
        assert explain_round(players, history).objective == want.objective
        assert boards(got, players) == want.boards


def test_history_beyond_two_gives_the_l_term() -> None:
    # A TRF may hold a history this system never makes: P1 with W, W, B, W, W
    # (W-B = +3) against P2..P6 (one game a round, the others idle). Now P1 can only
    # take black (spec 6: white would make +4), which brings it to +2: L_1 = 1,
    # 20 points. P7 and P8 have not played; P1 meets one of them.
    colours = "WWBWW"
    history = [
        RoundRecord(
            round=r,
            bye=None,
            removed_history_rounds=(),
            games=(
                PlayedGame("P1", f"P{r + 1}", Result.DRAW)
                if c == "W"
                else PlayedGame(f"P{r + 1}", "P1", Result.DRAW),
            ),
        )
        for r, c in enumerate(colours, start=1)
    ]
    players = field(8)
    want = brute_force(players, history)
    got = SYSTEM.pair(players, history, double=False)
    expl = explain_round(players, history)
    assert expl.l_terms == 1
    assert expl.objective == want.objective
    assert boards(got, players) == want.boards


# -- hard constraints on random events --------------------------------------------------


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(min_value=9, max_value=24),
    rounds=st.integers(min_value=1, max_value=6),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_every_hard_constraint_holds(n: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    players = field(n)
    history = play_random(players, rounds - 1, rng, absences=True)
    away = (Bye(f"P{rng.randint(1, n)}", ByeKind.HALF),) if rng.random() < 0.5 else ()
    context = RoundContext(requested_byes=away)
    pairing = SYSTEM.pair(players, history, double=False, context=context)
    data, met = coefficients(players, history, context)
    seen: list[str] = []
    for pair in pairing.pairs:
        seen += [pair.first, pair.second]
        assert frozenset((pair.first, pair.second)) not in met  # 2
        assert allowed(data[pair.first], "W")  # 3-8
        assert allowed(data[pair.second], "B")
    assert len(seen) == len(set(seen))  # 1: at most one game each
    left = [p for p in data if p not in seen]  # present, unpaired: pairing-allocated byes
    assert sorted(unpaired(pairing, players)) == sorted(int(p[1:]) for p in left)
    assert not any(b.player in seen for b in away)
    # Board order: higher score DESC, then lower pairing number ASC.
    keys = [
        (
            -max(data[p.first].score, data[p.second].score),
            min(data[x].seed for x in (p.first, p.second)),
        )
        for p in pairing.pairs
    ]
    assert keys == sorted(keys)


# -- determinism and the time limit ------------------------------------------------------


def test_same_round_same_output() -> None:
    rng = random.Random(7)
    players = field(16)
    history = play_random(players, 3, rng, absences=False)
    first = SYSTEM.pair(players, history, double=False)
    again = IntegerProgram().pair(players, history, double=False)
    assert first == again


def test_a_round_not_proven_optimal_in_time_is_an_error_naming_the_round() -> None:
    players = field(60)
    history = play_random(players, 1, random.Random(3), absences=False)
    hurried = IntegerProgram(SystemOptions(time_limit_s=1e-6))
    with pytest.raises(PairingError, match=r"^round 2: the integer program was not solved"):
        hurried.pair(players, history, double=False)
    assert "time limit" in explain(players, history, options=SystemOptions(time_limit_s=1e-6))


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(min_value=11, max_value=24),
    rounds=st.integers(min_value=0, max_value=4),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_optimum_matches_networkx_on_larger_fields(n: int, rounds: int, seed: int) -> None:
    # Too many pairings to enumerate: the optimum is checked against networkx's
    # maximum-weight matching (Edmonds' blossom algorithm) on the spec's pair values,
    # computed by the oracle (each pair at its better allowed colouring).
    import networkx as nx

    rng = random.Random(seed)
    players = field(n)
    history = play_random(players, rounds, rng, absences=True)
    data, met = coefficients(players, history, RoundContext())
    graph = nx.Graph()
    ids = sorted(data)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            if frozenset((a, b)) in met:
                continue
            values = [
                pair_value(data[w], data[k])
                for w, k in ((a, b), (b, a))
                if allowed(data[w], "W") and allowed(data[k], "B")
            ]
            if values and max(values) > 0:
                graph.add_edge(a, b, weight=int(2 * max(values)))
    matching = nx.max_weight_matching(graph)
    want = sum(graph[a][b]["weight"] for a, b in matching)
    assert explain_round(players, history).objective * 2 == want


def test_a_game_worth_nothing_still_counts_for_the_tie_break() -> None:
    # P1 won ten games (colours W, B, W, ...: balanced, black last, so white now)
    # against P5..P14, who are absent this round; P2..P4 have not played. A game of
    # P1 is worth 50 - 5 x 10 = 0, any other 50. Optimal pairings are worth 50:
    # [(2, 3)] alone, or with P1's game worth 0 added, e.g. [(1, 2), (3, 4)] (P1's
    # board first: the higher score). The smallest list is [(1, 2), (3, 4)].
    players = field(14)
    history = [
        RoundRecord(
            round=r,
            bye=None,
            removed_history_rounds=(),
            games=(
                PlayedGame("P1", f"P{r + 4}", Result.WHITE_WINS)
                if r % 2
                else PlayedGame(f"P{r + 4}", "P1", Result.BLACK_WINS),
            ),
        )
        for r in range(1, 11)
    ]
    away = RoundContext(requested_byes=tuple(Bye(f"P{i}", ByeKind.ZERO) for i in range(5, 15)))
    want = brute_force(players, history, away)
    assert (want.objective, want.boards) == (50, [(1, 2), (3, 4)])
    pairing = SYSTEM.pair(players, history, double=False, context=away)
    assert boards(pairing, players) == [(1, 2), (3, 4)]
