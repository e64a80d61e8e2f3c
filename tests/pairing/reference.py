"""A slow, literal TCEC Swiss pairer for the tests, built on networkx.

Written straight from the rule text, independently of tcecd.pairing's code:
its own tallies, a fresh networkx maximum matching for every viability
question (STEP 3 and every STEP 4 candidate), no incremental tricks. It is the
reference the fast implementation must agree with on every round.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from tcecd.pairing.base import Player, RoundRecord


class ColourBlock(Exception):
    """No perfect matching even with an empty encounter history."""


def _perfect(nodes: Sequence[str], allowed: set[frozenset[str]]) -> bool:
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(tuple(e) for e in allowed if e <= set(nodes))
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(nodes)


def reference_pair(
    players: Sequence[Player], history: Sequence[RoundRecord], *, double: bool
) -> tuple[str | None, tuple[int, ...], list[tuple[str, str]]]:
    """(BYE, newly removed history rounds, [(white, black)] in playing order)."""
    ids = [p.id for p in players]
    seed = {p.id: p.seed for p in players}
    score = dict.fromkeys(ids, 0)  # half-points
    byes = dict.fromkeys(ids, 0)
    wgd = dict.fromkeys(ids, 0)
    removed: set[int] = set()
    for record in history:
        removed |= set(record.removed_history_rounds)
        if record.bye is not None:
            score[record.bye] += 4 if double else 2
            byes[record.bye] += 1
        for g in record.games:
            white_half = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}[g.result.value]
            score[g.white] += white_half
            score[g.black] += 2 - white_half
            if g.played:
                wgd[g.white] += 1
                wgd[g.black] -= 1
    round_number = len(history) + 1

    # STEP 1: score DESC, seed ASC. STEP 2: BYEs DESC, pairing order ASC; bottom.
    order = sorted(ids, key=lambda p: (-score[p], seed[p]))
    bye = None
    if len(order) % 2:
        ranked = sorted(order, key=lambda p: (-byes[p], order.index(p)))
        bye = ranked[-1]
    pool = [p for p in order if p != bye]

    # STEP 3.
    in_force = [r for r in history if r.round not in removed]
    newly: list[int] = []

    def allowed_edges() -> set[frozenset[str]]:
        met = {frozenset((g.white, g.black)) for r in in_force for g in r.games}
        return {
            frozenset((a, b))
            for i, a in enumerate(pool)
            for b in pool[i + 1 :]
            if frozenset((a, b)) not in met and abs(wgd[a] + wgd[b]) <= 2
        }

    edges = allowed_edges()
    while not _perfect(pool, edges):
        if not in_force:
            raise ColourBlock(round_number)
        newly.append(in_force.pop(0).round)
        edges = allowed_edges()

    # STEP 4.
    pairs: list[tuple[str, str]] = []
    unpaired = list(pool)
    while unpaired:
        first = unpaired.pop(0)
        for second in unpaired:
            rest = [p for p in unpaired if p != second]
            if frozenset((first, second)) in edges and _perfect(rest, edges):
                pairs.append((first, second))
                unpaired.remove(second)
                break
        else:
            raise AssertionError("STEP 4 found no partner despite STEP 3")

    # STEP 5 and the playing order (worst first-of-pair first).
    games: list[tuple[str, str]] = []
    for first, second in reversed(pairs):
        if double:
            games.append((second, first))
            continue
        if wgd[first] != wgd[second]:
            first_white = wgd[first] < wgd[second]
        elif score[first] != score[second]:
            first_white = score[first] < score[second]
        else:
            first_white = round_number % 4 in (2, 3)
        games.append((first, second) if first_white else (second, first))
    if double:
        games += [(b, w) for w, b in games]
    return bye, tuple(newly), games
