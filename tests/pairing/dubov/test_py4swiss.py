"""Differential test against py4swiss's Dubov engine (PyPI ``py4swiss``).

py4swiss says it follows the 2026 edition of the Dubov rules; tcecd follows
the 2018 text (``../shared/seeds/fide-dubov-system-C04041.txt``), and where
they part our text decides. Seeded random events are paired round by round
by tcecd; before each round py4swiss gets the same history as a TRF-2016
file (``tcecd.trf``) and pairs it too. A round must come out the same (pairs,
colours of the first game, bye) unless it is listed in :data:`KNOWN`.

Every listed difference is explained by one article where py4swiss reads
differently from our text: the test re-pairs the round with tcecd after
swapping that one article for py4swiss's reading (:data:`READINGS`) and
asserts that this reproduces py4swiss's round exactly, so each entry names
the article that decides it. The three readings, each checked by hand on
the first case listed for it (the reasoning is in ``test_rules.py``):

* C.6 (with D.1.b): our text sorts the containers of upfloater sets "along
  the lines described by criterion C.6": the lowest score of the set as high
  as possible, then the second lowest. py4swiss takes the highest score
  first (the order D.1.b's example happens to list them in), so it upfloats
  {3.5, 2} where we upfloat {3, 2.5}.
* D.2 (with B.4): the players shifted to equalise the subgroups are the
  larger subgroup's own colour seekers (D.2: "possible White (resp. Black)
  shifters" are the players with that preference). py4swiss also counts the
  player just shifted into that subgroup by B.4's first step and numbers
  them all by initial ranking, so it shifts a different player.
* B.0.4: the bye goes to the player who "has played the highest number of
  games"; a forfeit never played and a requested bye are no game played.
  py4swiss gives it to the lower-ranked player who played fewer games.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from py4swiss.engines import DubovEngine
from py4swiss.trf import TrfParser

from tcecd.errors import PairingError
from tcecd.pairing.base import Player, RoundContext, RoundRecord
from tcecd.pairing.dubov import bracket, system
from tcecd.pairing.dubov.facts import Facts
from tcecd.pairing.dubov.system import Dubov
from tcecd.trf.model import TrfEvent
from tcecd.trf.writer import format_trf

from .helpers import EventShape, context_for, play, seeded_players

Outcome = tuple[frozenset[tuple[str, str]], str | None]


def py4swiss_round(
    players: tuple[Player, ...],
    history: list[RoundRecord],
    context: RoundContext,
    tmp: Path,
) -> Outcome | None:
    """py4swiss's pairing of the next round (None: it finds none)."""
    text = format_trf(
        TrfEvent(name="diff", players=players, rounds=tuple(history), context=context)
    )
    # py4swiss checks each player's points against the round columns and
    # counts the round to pair's requested byes in them; tcecd's writer
    # (as JaVaFo expects) leaves them out, so they are added here.
    extra = {b.player: b.kind.half_points(1) for b in context.requested_byes}
    lines = []
    for line in text.split("\n"):
        pid = line[4:8].strip()
        if line.startswith("001 ") and extra.get(pid):
            points = float(line[80:84]) + extra[pid] / 2
            line = f"{line[:80]}{points:4.1f}{line[84:]}"
        lines.append(line)
    path = tmp / f"round{len(history) + 1}.trf"
    path.write_text("\n".join(lines), encoding="utf-8")
    try:
        found = DubovEngine.generate_pairings(TrfParser.parse(path))
    except Exception:  # py4swiss's own PairingError: no pairing
        return None
    games = frozenset((str(p.white), str(p.black)) for p in found if p.white and p.black)
    byes = [str(p.white or p.black) for p in found if not (p.white and p.black)]
    return games, byes[0] if byes else None


def tcecd_round(
    players: tuple[Player, ...], history: list[RoundRecord], context: RoundContext
) -> Outcome | None:
    try:
        pairing = Dubov().pair(players, history, double=False, context=context)
    except PairingError:
        return None
    return frozenset((p.first, p.second) for p in pairing.pairs), pairing.bye


# -- py4swiss's readings, one article at a time ---------------------------------


def _highest_first(scores: list[int]) -> tuple[int, ...]:
    return tuple(-s for s in sorted(scores, reverse=True))


def _whole_subgroup_by_ranking(large: list[Facts], moved_in: list[Facts]) -> list[Facts]:
    remaining = sorted(large, key=lambda p: p.rank)
    out: list[Facts] = []
    while remaining:
        out.append(remaining.pop((len(remaining) - 1) // 2))
    return out


def _fewest_games_first(player: Facts) -> tuple[int, int, int]:
    return (player.score, player.games_played, -player.rank)


READINGS: dict[str, tuple[object, str, Callable[..., object]]] = {
    "C.6": (bracket, "container_key", _highest_first),
    "D.2": (bracket, "equalising_pool", _whole_subgroup_by_ranking),
    "B.0.4": (system, "bye_key", _fewest_games_first),
}


@contextmanager
def reading(articles: tuple[str, ...]) -> Iterator[None]:
    with ExitStack() as stack:
        for article in articles:
            module, name, replacement = READINGS[article]
            original = getattr(module, name)
            setattr(module, name, replacement)
            stack.callback(setattr, module, name, original)
        yield


def explain(
    players: tuple[Player, ...],
    history: list[RoundRecord],
    context: RoundContext,
    theirs: Outcome | None,
) -> tuple[str, ...] | None:
    """The fewest articles whose py4swiss reading reproduces py4swiss's round."""
    single = [(a,) for a in READINGS]
    double = [(a, b) for i, a in enumerate(READINGS) for b in list(READINGS)[i + 1 :]]
    for articles in [*single, *double]:
        with reading(articles):
            if tcecd_round(players, history, context) == theirs:
                return articles
    return None


# -- the cases -------------------------------------------------------------------

#: Quick cases (every article below shows up at least once) ...
QUICK = (
    EventShape(16, 7, 0),
    EventShape(16, 7, 2),
    EventShape(11, 9, 8),
    EventShape(11, 9, 12),
    EventShape(11, 9, 3, forfeit_rate=0.05),
    EventShape(11, 9, 4, request_rate=0.07),
)
#: ... and more of the same kinds (marked slow).
MORE = (
    *(EventShape(16, 7, seed) for seed in (1, 3)),
    *(EventShape(11, 9, seed) for seed in (9, 10, 11, 13, 14, 15, 16)),
    *(EventShape(11, 9, seed, forfeit_rate=0.05) for seed in (0, 1, 2, 4, 5)),
    *(EventShape(11, 9, seed, request_rate=0.07) for seed in (0, 1, 2, 3, 5)),
    EventShape(30, 8, 0),
)

#: (event, round) -> the article that decides it, for every round where
#: py4swiss pairs differently; the module docstring says why our text wins.
KNOWN: dict[tuple[str, int], tuple[str, ...]] = {
    # Upfloaters for a scoregroup of two players who met: C.6 prefers the
    # set whose lowest score is highest.
    ("11p x 9r seed 12", 7): ("C.6",),
    # B.4's equalising shift: D.2's pool of possible shifters.
    ("16p x 7r seed 2", 7): ("D.2",),
    # The bye: B.0.4, the player who played more games (over the board).
    ("11p x 9r seed 1 +forfeits", 8): ("B.0.4",),
    ("11p x 9r seed 2 +forfeits", 3): ("B.0.4",),
    ("11p x 9r seed 3 +forfeits", 2): ("B.0.4",),
    ("11p x 9r seed 3 +forfeits", 4): ("B.0.4",),
    ("11p x 9r seed 5 +forfeits", 2): ("B.0.4",),
    ("11p x 9r seed 5 +forfeits", 5): ("B.0.4",),
    ("11p x 9r seed 1 +requested", 5): ("B.0.4",),
    ("11p x 9r seed 3 +requested", 8): ("B.0.4",),
    ("11p x 9r seed 4 +requested", 8): ("B.0.4",),
    ("11p x 9r seed 4 +requested", 9): ("B.0.4",),
}


def run_shape(shape: EventShape, tmp: Path) -> dict[int, tuple[str, ...] | None]:
    """Pair the whole event; the rounds that differ and what explains each."""
    rng = random.Random(shape.seed)
    players = seeded_players(shape, rng)
    history: list[RoundRecord] = []
    differences: dict[int, tuple[str, ...] | None] = {}
    for _ in range(shape.rounds):
        context = context_for(shape, players, rng)
        ours = tcecd_round(players, history, context)
        theirs = py4swiss_round(players, history, context, tmp)
        if ours != theirs:
            differences[len(history) + 1] = explain(players, history, context, theirs)
        if ours is None:
            break
        pairing = Dubov().pair(players, history, double=False, context=context)
        history.append(play(pairing, shape, rng))
    return differences


def check(shapes: tuple[EventShape, ...], tmp: Path) -> None:
    observed: dict[tuple[str, int], tuple[str, ...] | None] = {}
    rounds = 0
    for shape in shapes:
        rounds += shape.rounds
        for rnd, why in run_shape(shape, tmp).items():
            observed[(shape.label, rnd)] = why
    labels = {shape.label for shape in shapes}
    expected = {key: why for key, why in KNOWN.items() if key[0] in labels}
    report = "\n".join(
        f"  {event} round {rnd}: decided by {', '.join(why) if why else 'UNEXPLAINED'}"
        for (event, rnd), why in sorted(observed.items())
    )
    print(f"\n{len(observed)} of {rounds} rounds differ from py4swiss:\n{report}")
    assert observed == expected, report


def test_py4swiss_agrees_except_where_the_2018_text_decides(tmp_path: Path) -> None:
    check(QUICK, tmp_path)


@pytest.mark.slow
def test_py4swiss_agrees_on_more_events(tmp_path: Path) -> None:
    check(MORE, tmp_path)
