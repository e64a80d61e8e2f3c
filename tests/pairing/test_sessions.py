"""Pairing sessions (round after round, running totals) pair exactly as the
system does from the whole history, and as the code before them did.

Three references:

* ``TcecSwiss().pair(players, history)`` from scratch, for every round of
  random simulated events (the session is fed the rounds one by one);
* the literal networkx pairer of ``reference.py`` (STEP 4 candidate by
  candidate, a fresh maximum matching for each) on the smaller fields;
* ``data/reference_events.json``: whole events and forecast counts written by
  main at ee11053, before sessions and the bitset matcher existed (see
  ``data/make_reference_events.py`` for how it was produced). Each stored round
  must be paired again from the stored rounds before it, and the forecast
  counts for the stored seeds must not change.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, Result
from tcecd.errors import PairingError
from tcecd.forecast.model import fit_model
from tcecd.forecast.montecarlo import EventSnapshot, simulate
from tcecd.pairing.base import PlayedGame, Player, RoundPairing, RoundRecord
from tcecd.pairing.matching import PairingGraph, ViabilityMatcher
from tcecd.pairing.registry import get_system
from tcecd.pairing.session import HistorySession, open_session
from tcecd.pairing.simulation import SimulatedEvent, simulate_event
from tcecd.pairing.tally import tally
from tcecd.pairing.tcec_swiss import TcecSwiss, TcecSwissSession
from tests.pairing.graphs import nx_graph, random_graph
from tests.pairing.reference import ColourBlock, reference_pair

DATA = Path(__file__).parent / "data" / "reference_events.json"


def _load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def _key(p: RoundPairing) -> tuple[str | None, tuple[int, ...], list[tuple[str, str]]]:
    return p.bye, p.removed_history_rounds, [(g.white, g.black) for g in p.games]


def _record(r: int, raw: dict[str, Any]) -> RoundRecord:
    games = []
    for text in raw["games"].split():
        pair, result = text.split(":")
        white, black = pair.split("-")
        games.append(PlayedGame(white, black, Result.from_pgn(result)))
    return RoundRecord(r, raw["bye"], tuple(raw["removed"]), tuple(games))


@pytest.mark.parametrize("number", range(6))
def test_stored_events_are_paired_again_round_by_round(number: int) -> None:
    event = _load()["events"][number]
    players = tuple(Player(pid, name, seed, rating) for pid, name, seed, rating in event["players"])
    double = event["double"]
    records = [_record(i, raw) for i, raw in enumerate(event["rounds"], start=1)]
    session = TcecSwiss().session(players, [], double=double)
    for i, record in enumerate(records):
        stored = (record.bye, record.removed_history_rounds,
                  [(g.white, g.black) for g in record.games])
        assert _key(TcecSwiss().pair(players, records[:i], double=double)) == stored
        assert _key(session.pair()) == stored
        session.record(record)
    assert session.totals == tally(players, records, double=double)


def test_stored_events_include_removals_byes_and_double_rounds() -> None:
    events = _load()["events"]
    assert sum(len(r["removed"]) for e in events for r in e["rounds"]) >= 20
    assert any(r["bye"] for e in events for r in e["rounds"])
    assert any(e["double"] for e in events)


@pytest.mark.parametrize("number", range(5))
def test_forecast_counts_for_fixed_seeds_are_unchanged(number: int) -> None:
    case = _load()["forecasts"][number]
    ev = simulate_event(case["players"], case["played"], seed=case["event_seed"],
                        double=case["double"], system=case["system"])
    snap = EventSnapshot(case["system"], ev.players, case["double"], ev.rounds, case["rounds"])
    counts = simulate(snap, fit_model(snap.players, snap.games_so_far()),
                      case["simulations"], case["seed"])
    assert counts.places == case["places"]
    assert counts.score_half == case["score_half"]


@st.composite
def simulated_events(
    draw: st.DrawFn, draw_rates: tuple[float, ...] = (0.0, 0.5, 0.9, 1.0)
) -> tuple[SimulatedEvent, bool] | None:
    """A simulated TCEC Swiss event of 2-30 players and 1-30 rounds and whether
    its rounds are double; None when the colour rule alone blocked a round
    (tested elsewhere)."""
    double = draw(st.booleans())
    try:
        event = simulate_event(
            draw(st.integers(2, 30)), draw(st.integers(1, 30)), double=double,
            seed=draw(st.integers(0, 2**32 - 1)), draw_rate=draw(st.sampled_from(draw_rates)),
        )  # fmt: skip
    except PairingError:
        return None
    return event, double


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(simulated_events())
def test_sessions_pair_as_the_system_from_scratch(
    simulated: tuple[SimulatedEvent, bool] | None,
) -> None:
    if simulated is None:
        return
    ev, double = simulated
    players, records = ev.players, list(ev.rounds)
    n = len(players)
    session = TcecSwiss().session(players, [], double=double)
    halfway = None
    for i, record in enumerate(records):
        scratch = TcecSwiss().pair(players, records[:i], double=double)
        assert session.pair() == scratch
        assert _key(scratch) == (record.bye, record.removed_history_rounds,
                                 [(g.white, g.black) for g in record.games])
        if n <= 10:
            assert _key(scratch) == reference_pair(players, records[:i], double=double)
        session.record(record)
        if i == len(records) // 2:
            halfway = session.copy()
    # A copy goes on from where it was taken, on its own.
    if halfway is not None:
        start = len(records) // 2 + 1
        for i in range(start, len(records)):
            assert halfway.pair() == TcecSwiss().pair(players, records[:i], double=double)
            halfway.record(records[i])
        assert halfway.totals == session.totals == tally(players, records, double=double)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(simulated_events(draw_rates=(0.0, 0.5, 1.0)))
def test_pairing_and_recording_in_indices_is_pair_and_record(
    simulated: tuple[SimulatedEvent, bool] | None,
) -> None:
    # The forecast's path (pair_games / record_games) against pair / record:
    # the same round every time, and the same state after recording it.
    if simulated is None:
        return
    ev, double = simulated
    players, records = ev.players, list(ev.rounds)
    ids = [p.id for p in players]
    objects = TcecSwiss().session(players, [], double=double)
    indexed = TcecSwiss().session(players, [], double=double)
    for record in records:
        pairing = objects.pair()
        paired = indexed.pair_games()
        assert paired.round == pairing.round
        assert (ids[paired.bye] if paired.bye != -1 else None) == pairing.bye
        assert paired.removed_history_rounds == pairing.removed_history_rounds
        assert [(ids[w], ids[b]) for w, b in paired.games] == [
            (g.white, g.black) for g in pairing.games
        ]
        objects.record(record)
        indexed.record_games(
            paired, [g.result.half_points(Color.WHITE) for g in record.games]
        )
        assert indexed.totals == objects.totals
        assert indexed.rounds == objects.rounds
        for name in ("_met", "_in_force", "_removed"):
            assert getattr(indexed, name) == getattr(objects, name)
    # A round from another state is refused.
    try:
        stale = indexed.pair_games()
    except PairingError:
        return  # the colour rule alone blocks the next round
    indexed.record_games(stale, [1] * len(stale.games))
    with pytest.raises(PairingError, match="expected round"):
        indexed.record_games(stale, [1] * len(stale.games))
    with pytest.raises(PairingError, match="results for"):
        indexed.record_games(indexed.pair_games(), [])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 11), rounds=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_forfeits_and_draws_against_the_literal_reference(n: int, rounds: int, seed: int) -> None:
    # Results and forfeits at random (forfeits give no colour but are encounters).
    rng = random.Random(seed)
    players = tuple(Player(f"P{i}", f"P{i}", i) for i in range(1, n + 1))
    session = TcecSwissSession(players, [], double=False)
    history: list[RoundRecord] = []
    for _ in range(rounds):
        try:
            expected = reference_pair(players, history, double=False)
        except ColourBlock:
            with pytest.raises(PairingError):
                session.pair()
            return
        pairing = session.pair()
        assert _key(pairing) == expected
        games = tuple(
            PlayedGame(g.white, g.black, rng.choice(list(Result)[:3]), rng.random() > 0.15)
            for g in pairing.games
        )
        record = RoundRecord(pairing.round, pairing.bye, pairing.removed_history_rounds, games)
        history.append(record)
        session.record(record)


def _bad_records(players: tuple[Player, ...]) -> list[tuple[RoundRecord, str]]:
    a, b, c, d = (p.id for p in players[:4])
    win = Result.WHITE_WINS
    return [
        (RoundRecord(3, None, (), ()), "round 3: expected round 2"),
        (RoundRecord(2, None, (), (PlayedGame(a, "X", win),)), "unknown player 'X'"),
        (RoundRecord(2, None, (), (PlayedGame(a, b, Result.UNFINISHED),)), "has no result"),
        (RoundRecord(2, None, (), (PlayedGame(a, b, win), PlayedGame(a, c, win))),
         "paired more than once"),
        (RoundRecord(2, None, (2,), (PlayedGame(a, b, win),)), "not an earlier round"),
        (RoundRecord(2, "X", (), (PlayedGame(c, d, win),)), "unknown BYE player 'X'"),
    ]


@pytest.mark.parametrize("case", range(6))
def test_a_bad_record_is_refused_and_changes_nothing(case: int) -> None:
    players = tuple(Player(f"P{i}", f"P{i}", i) for i in range(1, 7))
    first = TcecSwiss().pair(players, [], double=False)
    round_one = RoundRecord(1, None, (), tuple(
        PlayedGame(g.white, g.black, Result.DRAW) for g in first.games))
    bad, message = _bad_records(players)[case]
    sessions: list[TcecSwissSession | HistorySession] = [
        TcecSwiss().session(players, [round_one], double=False)
    ]
    if "earlier round" not in message:
        # The generic session checks what tally checks; removed history rounds
        # are TCEC Swiss's own record, checked by its session (and pair).
        sessions.append(HistorySession(TcecSwiss(), players, [round_one], double=False))
    for session in sessions:
        before = session.pair()
        with pytest.raises(PairingError, match=message):
            session.record(bad)
        assert session.rounds == 1
        assert session.pair() == before
    # The same record refused the same way when the system reads the history.
    with pytest.raises(PairingError, match=message):
        TcecSwiss().pair(players, [round_one, bad], double=False)


def test_systems_without_a_session_get_the_history_one() -> None:
    ev = simulate_event(9, 4, seed=3, system="dutch-2012")
    system = get_system("dutch-2012")
    session = open_session(system, ev.players, ev.rounds[:2], double=False)
    assert isinstance(session, HistorySession)
    assert session.pair() == system.pair(ev.players, ev.rounds[:2], double=False)
    session.record(ev.rounds[2])
    assert session.totals == tally(ev.players, ev.rounds[:3], double=False)
    assert isinstance(open_session(TcecSwiss(), ev.players, (), double=False), TcecSwissSession)


# -- the matcher's STEP 4 step against networkx --------------------------------


def _perfect(graph: PairingGraph, nodes: list[int]) -> bool:
    g = nx_graph(graph, nodes)
    return 2 * len(nx.max_weight_matching(g, maxcardinality=True)) == len(nodes)


def _check_step4(graph: PairingGraph, order: list[int], short_paths: bool) -> int:
    """Pair the graph off step by step, checking each step against networkx;
    return how many edges the matcher dropped as in no perfect matching."""
    matcher = ViabilityMatcher(graph, order)
    matcher.use_short_paths = short_paths
    if matcher.maximize():
        return 0
    dropped: set[tuple[int, int]] = set()
    while matcher.active:
        u = matcher.active[0]
        rest = matcher.active[1:]
        # STEP 4 literally: the first candidate in order that the rule allows
        # and that leaves the others a perfect matching.
        expected = next(
            v for v in rest if graph.edge(u, v) and _perfect(graph, [x for x in rest if x != v])
        )
        assert matcher.pair_first(u) == expected
        assert matcher.active == [x for x in rest if x != expected]
        # The matching it keeps is a perfect one of the rest, on allowed edges.
        for x in matcher.active:
            assert matcher.match[matcher.match[x]] == x
            assert graph.edge(x, matcher.match[x])
        # The edges it dropped (matcher.adj against the graph's) are in no
        # perfect matching of the rest, and the adjacency stays symmetric.
        active = matcher.active
        for i, x in enumerate(active):
            for y in active[i + 1:]:
                kept = bool(matcher.adj[x] >> y & 1)
                assert kept == bool(matcher.adj[y] >> x & 1)
                if graph.edge(x, y) and not kept:
                    dropped.add((x, y))
                    assert not _perfect(graph, [z for z in active if z not in (x, y)])
                else:
                    assert kept == graph.edge(x, y)
    return len(dropped)


@pytest.mark.parametrize("short_paths", [True, False])
@settings(max_examples=80, deadline=None)
@given(n=st.integers(0, 16), density=st.floats(0.1, 1.0), seed=st.integers(0, 2**32 - 1))
def test_pair_first_is_step4(short_paths: bool, n: int, density: float, seed: int) -> None:
    rng = random.Random(seed)
    order = list(range(n))
    rng.shuffle(order)
    _check_step4(random_graph(rng, n, density), order, short_paths)


@pytest.mark.parametrize("short_paths", [True, False])
def test_pair_first_on_blossom_heavy_graphs(short_paths: bool) -> None:
    rng = random.Random(20261123)
    dropped = 0
    for _ in range(12):
        n = rng.choice([20, 24, 30])
        order = list(range(n))
        rng.shuffle(order)
        dropped += _check_step4(
            random_graph(rng, n, rng.choice([0.12, 0.2, 0.3])), order, short_paths
        )
    assert dropped > 0  # the pruning after a full search is exercised


@pytest.mark.parametrize("short_paths", [True, False])
def test_pair_first_by_an_augmenting_path_of_five(short_paths: bool) -> None:
    # u = 0, first candidate 1; with M = 0-2, 1-3, 4-5, 6-7 the rest keeps a
    # perfect matching only through 2 - 4 = 5 - 6 = 7 - 3 (no shorter path).
    edges = {(0, 1), (0, 2), (1, 3), (4, 5), (6, 7), (2, 4), (5, 6), (7, 3)}
    n = 8
    forbidden = [
        {y for y in range(n) if y != x and (x, y) not in edges and (y, x) not in edges}
        for x in range(n)
    ]
    graph = PairingGraph(forbidden, [0] * n)
    matcher = ViabilityMatcher(graph, list(range(n)))
    matcher.use_short_paths = short_paths
    matcher.match = [2, 3, 0, 1, 5, 4, 7, 6]
    found: list[bool] = []
    five = matcher._path_of_five

    def spy(root: int, t: int) -> bool:
        found.append(five(root, t))
        return found[-1]

    matcher._path_of_five = spy  # type: ignore[method-assign]
    assert matcher.pair_first(0) == 1
    assert found == ([True] if short_paths else [])
    assert sorted((x, matcher.match[x]) for x in matcher.active) == [
        (2, 4), (3, 7), (4, 2), (5, 6), (6, 5), (7, 3)]
