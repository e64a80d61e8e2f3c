"""C.12 (``../shared/seeds/fide-dutch-system-2012.txt``): when a bracket
cannot pair the players moved down into it, the previous bracket is paired
again to move down another set of players of the same size and scores
(never while already backtracking). Also in the lowest bracket, for a
moved-down player with no opponent there (C.1). As JaVaFo 1.4 reads the
text: docs/pairing.md, "Dutch 2012".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tcecd.domain import PlayerId
from tcecd.pairing.dutch2012.bracket import BracketProcedure, Outcome, floater_order, scores_of
from tcecd.pairing.dutch2012.brackets import Round, c1, first, lowest, pairing
from tcecd.pairing.dutch2012.criteria import may_meet
from tcecd.pairing.dutch2012.state import PlayerState
from tcecd.pairing.dutch2012.values import heterogeneous


def movers_left(
    residents: Sequence[PlayerState], movers: Sequence[PlayerState], quality: tuple[int, bool]
) -> bool:
    """Whether a heterogeneous bracket (A.3: fewer than half of it moved down)
    paired fewer moved-down players than it has: its procedure got to C.14.b2
    (lower M1), and C.12 comes before C.14 in the text. As JaVaFo 1.4 pairs it
    (the dutch9 forecast round a7088fd29c77: the 2.5-point bracket, 2, 7, 8
    with 1 and 4 moved down, can pair only one of them; the 3-point bracket
    pairs 6-1 instead of 6-3, and 3 and 4 moved down pair 8-3, 4 on to the
    bye). A bracket of which at least half moved down is treated as
    homogeneous: it has no M1 to lower (seed 593, round 7)."""
    return heterogeneous(len(movers), len(movers) + len(residents)) and quality[0] < len(movers)


def _another_set(prev_out: Outcome) -> Callable[[Sequence[PlayerState]], bool]:
    """C.12's "another set of players of the same size and with the same
    scores" than the previous bracket moved down in ``prev_out`` (the size is
    the procedure's ``floaters``)."""
    original = frozenset(p.id for p in prev_out.floaters)
    scores = scores_of(prev_out.floaters)

    def another(floaters: Sequence[PlayerState]) -> bool:
        return frozenset(p.id for p in floaters) != original and scores_of(floaters) == scores

    return another


#: a bracket after C.1 and its pairing: residents, movers, pushed down, outcome
_Next = tuple[list[PlayerState], list[PlayerState], list[PlayerState], Outcome]


@dataclass(frozen=True, slots=True)
class Tried:
    """How a bracket did with the players moved down into it: what another
    set from the previous bracket must beat (C.12)."""

    #: moved-down players it paired, and their number after C.1
    paired: int
    movers: int
    #: whether it made its P1 pairs (P1 after C.1), and how many pairs it made
    full: bool
    pairs: int
    #: the scores of the players it moves down (C.1's included)
    moved: tuple[int, ...]
    #: C.1 moved a moved-down player on through it
    moved_on: bool


def c12(
    rnd: Round,
    group: Sequence[PlayerState],
    prev_input: tuple[list[PlayerState], list[PlayerState]],
    prev_pushed: list[PlayerState],
    prev_out: Outcome,
    tried: Tried,
    p1: int,
) -> tuple[Outcome, list[PlayerState], list[PlayerState], list[PlayerState], Outcome] | None:
    """C.12: the first pairing of the previous bracket (in its procedure order)
    moving down another set of players of the same size and scores with which
    this bracket does better than it did (``tried``: moved-down players
    paired, P1 pairs made, the scores of the players it moves down; this
    bracket does not backtrack again meanwhile). "This now allows P1 pairings" is read as
    JaVaFo 1.4 reads it: a heterogeneous bracket's P is the number of
    moved-down players to pair (C.3.a), and pairing more of them counts even
    if not all; else P1 pairs where there were none; else, when C.1 moved a
    moved-down player on, as many pairs as the bracket with him has players
    for (his P1) and lower scored players moved down (B.3's order,
    :func:`floater_order`): seeds 710 round 11 and 873 round 6. When C.1
    moved a moved-down player on, pairing more moved-down players counts only
    with more pairs than before, or with the P1 pairs of the bracket with
    every player moved into it (seed 1202, round 9; seed 51, round 7, makes
    one pair where there was none). And where a moved-down player was left
    unpaired or moved on, a set is taken that makes the bracket's P1 pairs
    (:func:`_makes_p1`) where it made fewer, or more pairs than before."""
    another = _another_set(prev_out)
    found: dict[frozenset[PlayerId], _Next | None] = {}
    # A moved-down player left unpaired or moved on (C.1): "it is not possible
    # to pair them with P1 pairings".
    unpaired = tried.moved_on or tried.paired < tried.movers

    def accept(floaters: tuple[PlayerState, ...]) -> bool:
        ids = frozenset(p.id for p in floaters)
        if not another(floaters):
            return False
        if ids not in found:
            found[ids] = None
            carry = [*floaters, *prev_pushed]
            residents, movers, push = c1(rnd, group, carry)
            after, better = pairing(rnd, residents, movers, p1)
            full = len(after.pairs) >= (len(residents) + len(carry)) // 2
            # C.12 after C.1: more moved-down players paired is "P1 pairings" only
            # with more pairs, or the bracket's P1 with every player moved in
            # (seed 1202, round 9: 9-7 instead of 7-11 is no gain).
            more = not tried.moved_on or full or len(after.pairs) > tried.pairs
            if (
                (better > (tried.paired, tried.full) and more)
                or (
                    better == (tried.paired, tried.full)
                    and full
                    and floater_order(scores_of([*after.floaters, *push]))
                    < floater_order(tried.moved)
                )
                or (
                    unpaired
                    and better[0] >= tried.paired
                    and _makes_p1(group, floaters, residents, movers, push, after)
                    and (not tried.full or len(after.pairs) > tried.pairs)
                )
            ):
                found[ids] = (residents, movers, push, after)
        return found[ids] is not None

    prev_bracket = rnd.bracket(*prev_input, lowest=False)
    procedure = BracketProcedure(prev_bracket, accept=accept, floaters=len(prev_out.floaters))
    alt = first(procedure.outcomes())
    if alt is None:
        return None
    after = found[frozenset(p.id for p in alt.floaters)]
    assert after is not None
    return (alt, *after)


def _makes_p1(
    group: Sequence[PlayerState],
    floaters: Sequence[PlayerState],
    residents: Sequence[PlayerState],
    movers: Sequence[PlayerState],
    push: Sequence[PlayerState],
    after: Outcome,
) -> bool:
    """C.12's "this now allows P1 pairings to be made", as JaVaFo 1.4 reads it
    when a moved-down player was left unpaired or moved on: the bracket with
    the other set ``floaters`` makes its P1 pairs, P1 counting its players
    after C.1, and C.1 moves none of that set on (he would need C.12 again,
    which is not allowed while backtracking). A resident that C.1 moves on
    for colours alone (B.2: he has a possible opponent under B.1) still
    counts in P1.

    The fresh 15-player rounds a2cf9abbebde and a883c80b619f. In
    a2cf9abbebde the 4.5-point bracket, 6, 9, 14 with 5, 11 and 1 moved
    down, pairs 1-9 and 11-14 (P1 3) and leaves 5 unpaired; with 7 moved
    down instead of 11 (10-11 above instead of 7-10), C.1 moves 14 on (he
    has met 7) and the bracket makes its P1 of 2: 1-9, 7-6. In a883c80b619f
    C.1 moves 1 and 2 on through the 6.5-point bracket; with 9 moved down
    instead of 7 it makes three pairs (9-11, 3-6, 4-12) where it made two,
    as 11 has met 7 and not 9. In 0fbfadad2b28 (JaVaFo 1.4 keeps the first
    set) the other set makes two pairs of three: C.1 moves 10 on only for
    his colour (B.2) against 12. docs/pairing.md, "Dutch 2012"."""
    if any(p in floaters for p in push):
        return False
    everyone = [*residents, *movers, *push]
    by_colour = [
        p for p in push if p in group and any(may_meet(p, q) for q in everyone if q is not p)
    ]
    return len(after.pairs) >= (len(residents) + len(movers) + len(by_colour)) // 2


def c12_lowest(
    rnd: Round,
    group: Sequence[PlayerState],
    prev_input: tuple[list[PlayerState], list[PlayerState]],
    prev_pushed: list[PlayerState],
    prev_out: Outcome,
    carry: list[PlayerState],
) -> tuple[Outcome, list[PlayerState]] | None:
    """C.1 in the lowest bracket: a moved-down player with no opponent there
    "was moved down from a higher score bracket", so C.12 comes first, even
    though he could take the bye. As JaVaFo 1.4 pairs it, the previous
    bracket moves down another set of the same size and scores (the first
    in its procedure's order) with which every moved-down player has an
    opponent, the lowest bracket can be paired and its bye scores less
    (B.3). The fresh round d977645fefc5: 1 (11 points) has met 15 and 2 in
    the lowest bracket; 1-11 instead of 5-11 above gives 5-15 and the bye
    to 2 (10). Without the lower bye, 10 labelled-round tests fail
    (docs/pairing.md). None: the pairing stands."""

    def stuck(movers: Sequence[PlayerState]) -> bool:  # C.1, for a moved-down player
        ids = {p.id for p in movers}
        return any(p.id in ids for p in rnd.incompatible(rnd.bracket(group, movers, lowest=True)))

    if not stuck(carry):
        return None
    now = lowest(rnd, group, carry)
    if now is None or not now.floaters:
        return None  # C.13 takes over
    bye_now = min(p.score for p in now.floaters)
    another = _another_set(prev_out)

    def accept(floaters: tuple[PlayerState, ...]) -> bool:
        if not another(floaters):
            return False
        movers = [*floaters, *prev_pushed]
        if stuck(movers):
            return False
        low = lowest(rnd, group, movers)
        return low is not None and min((p.score for p in low.floaters), default=bye_now) < bye_now

    procedure = BracketProcedure(
        rnd.bracket(*prev_input, lowest=False), accept=accept, floaters=len(prev_out.floaters)
    )
    alt = first(procedure.outcomes())
    if alt is None:
        return None
    return alt, [*alt.floaters, *prev_pushed]
