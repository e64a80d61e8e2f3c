"""The brackets of one round, paired from the highest score down, and the
backtracking between them (``../shared/seeds/fide-dutch-system-2012.txt``):

* C.1: a player of a bracket who has no possible opponent in it is moved
  down at once (:func:`~tcecd.pairing.dutch2012.brackets.c1`);
* C.12: the previous bracket is paired again to send down another set of
  players of the same size and scores (never while already backtracking;
  :mod:`~tcecd.pairing.dutch2012.c12`);
* C.13: the lowest bracket must pair everybody but the bye; the penultimate
  bracket is asked for other pairings, then the two lowest are joined, and
  so on upwards (:data:`_C13_STEPS`).

One bracket's own procedure (C.2-C.10, C.14) is
:class:`~tcecd.pairing.dutch2012.bracket.BracketProcedure`; the round around
it (A.2 order, the bye, colours, boards) is
:class:`~tcecd.pairing.dutch2012.system.Dutch2012`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tcecd.domain import PlayerId
from tcecd.errors import PairingError
from tcecd.pairing.dutch2012.bracket import BracketProcedure, Outcome, scores_of
from tcecd.pairing.dutch2012.brackets import Round, c1, first, lowest, pairing
from tcecd.pairing.dutch2012.c12 import Tried, c12, c12_lowest, movers_left
from tcecd.pairing.dutch2012.criteria import compatible
from tcecd.pairing.dutch2012.state import PlayerState, a2_key
from tcecd.pairing.dutch2012.values import LowerP1, b3_cost, heterogeneous


def pair_brackets(
    rnd: Round, groups: list[list[PlayerState]], round_number: int
) -> list[Outcome]:
    """Pair every bracket from the top (C.1, C.12), then the lowest (C.13)."""
    if not groups:
        return [Outcome((), ())]
    chosen: list[Outcome] = []
    #: per bracket: (residents after C.1, moved-down players) and the C.1 pushes
    inputs: list[tuple[list[PlayerState], list[PlayerState]]] = []
    pushed: list[list[PlayerState]] = []
    carry: list[PlayerState] = []
    #: per bracket whose C.12 set C.13 gives back (:func:`_c13_restores`):
    #: the previous bracket's first pairing and this bracket as it was with it
    before_c12: dict[int, _BeforeC12] = {}
    for k in range(len(groups) - 1):
        residents, movers, push = c1(rnd, groups[k], carry)
        p1 = (len(residents) + len(movers)) // 2
        out, quality = pairing(rnd, residents, movers, p1)
        # C.1/C.12: a moved-down player without an opponent here, a heterogeneous
        # bracket that cannot pair all its moved-down players, or a bracket that
        # cannot make its P1 pairs: the previous bracket may move down another set.
        moved_on = any(p in carry for p in push)  # C.1 moved a moved-down player on
        stuck = moved_on or not quality[1]
        if k > 0 and carry and (stuck or movers_left(residents, movers, quality)):
            tried = Tried(
                paired=quality[0],
                movers=len(movers),
                full=quality[1],
                pairs=len(out.pairs),
                moved=scores_of([*out.floaters, *push]),
                moved_on=moved_on,
            )
            alt = c12(rnd, groups[k], inputs[k - 1], pushed[k - 1], chosen[k - 1], tried, p1)
            if alt is not None:
                # The previous bracket is paired again, for this one: C.13 keeps
                # whatever C.12 gave it before (the fresh round ae3b8fca87ad).
                before_c12.pop(k - 1, None)
                if _c13_restores(carry, push, alt):
                    before_c12[k] = _BeforeC12(chosen[k - 1], (residents, movers), push, out)
                prev, residents, movers, push, out = alt
                chosen[k - 1] = prev
        chosen.append(out)
        inputs.append((residents, movers))
        pushed.append(push)
        carry = [*out.floaters, *push]
    if len(groups) > 1 and carry:
        lowest_c12 = c12_lowest(rnd, groups[-1], inputs[-1], pushed[-1], chosen[-1], carry)
        if lowest_c12 is not None:
            chosen[-1], carry = lowest_c12
    return _c13(rnd, groups, chosen, inputs, pushed, carry, round_number, before_c12)


@dataclass(frozen=True, slots=True)
class _BeforeC12:
    """A bracket before C.12 changed the previous bracket's pairing: that
    pairing, and this bracket's input (residents, moved-down players), C.1's
    pushes and pairing with it."""

    prev_out: Outcome
    bracket_input: tuple[list[PlayerState], list[PlayerState]]
    pushed: list[PlayerState]
    out: Outcome


def _c13_restores(
    carry: Sequence[PlayerState],
    push: Sequence[PlayerState],
    alt: tuple[Outcome, list[PlayerState], list[PlayerState], list[PlayerState], Outcome],
) -> bool:
    """Whether C.13, once it asks this bracket again as the penultimate one
    (the lowest already joined), gives the previous bracket back its first
    pairing: C.12's other set of players (``alt``: the previous bracket's
    pairing, this bracket's residents, moved-down players, C.1's pushes and
    pairing with it) moves no player on through this bracket (C.1), and
    either does not bring it its P1 pairs (it pairs more moved-down players,
    as JaVaFo 1.4 reads "P1 pairings", not all of P1), or only kept in it a
    resident C.1 had moved on with the first set (``push``: C.1 moved only
    residents on, none of the players moved down from ``carry``).

    C.12 took the other set for this bracket's pairing; C.13's "another
    pairing in the penultimate score bracket" gives that pairing up, and
    JaVaFo 1.4 then pairs with the first set again. The fresh 15-player
    rounds 38f80b049ed4, 47006bad6dad and 9ca932e3f315 (the other set pairs
    three of P1 = 4), 24169cb94d38, a1f195c9aba6 and dc670fbf2900 (C.1 moved
    a resident on with the first set: 10, 2, 5); where the other set made
    the P1 pairs without a resident so moved on, JaVaFo 1.4 keeps it (the
    case files 111dfc868d09, bef4372397a5, eccf474f4e03, seed 1561 round 7),
    and where C.1 moves a player on with it too (the fresh round
    0a21c2e892ff, 1 moved on; 7b395f91c8e0, a883c80b619f). Nor once C.12
    has paired this bracket again for the one below (:func:`pair_brackets`
    drops the record then): JaVaFo 1.4 keeps the set in the fresh round
    ae3b8fca87ad and gives both back in 7c03b82045da, of the same shape."""
    _prev, residents, movers, alt_push, after = alt
    if alt_push:
        return False
    alt_full = len(after.pairs) >= (len(residents) + len(movers)) // 2
    residents_moved_on = bool(push) and not any(p in carry for p in push)
    return not alt_full or residents_moved_on


@dataclass(frozen=True, slots=True)
class _C13Step:
    """One attempt of C.13: the lowest bracket as it is (``penultimate`` None),
    or another pairing of the penultimate bracket ("same P1": moving down as
    many players; "any": C.14 included; neither leaves all of its own
    moved-down players unpaired); ``keep_movers``: the lowest bracket must
    pair a moved-down player (no M1 = 0), and a "same P1" penultimate bracket
    keeps its M1 too (C.14.b2 only after the lowest's M1 = 0); ``same_scores``:
    the penultimate bracket's other pairing moves down players with the
    scores of those it moved down before; ``every_mover``: a heterogeneous
    lowest bracket (not joined) pairs every moved-down player (no C.14.b2),
    and a "same P1" penultimate bracket may lower its own P1 to find such
    floaters."""

    penultimate: str | None
    keep_movers: bool
    same_scores: bool = False
    every_mover: bool = False


@dataclass(frozen=True, slots=True)
class _Asked:
    """What C.13 asks the penultimate bracket again with: its input
    (residents, moved-down players), the players C.1 moved on through it, the
    pairing it gave, the lowest bracket's own players and the brackets C.13
    joined to them."""

    pen_input: tuple[list[PlayerState], list[PlayerState]]
    pen_pushed: list[PlayerState]
    pen_out: Outcome
    residents: Sequence[PlayerState]
    joined: Sequence[PlayerState]


#: C.13's attempts in order, before the two lowest brackets are joined (JaVaFo
#: 1.4's reading of "reduce M1" and "P becomes zero": docs/pairing.md); then
#: :data:`_C13_AGAIN`.
_C13_STEPS = (
    # Before "reduce M1": the lowest bracket with every moved-down player
    # paired, as it is, then with the penultimate bracket's other floaters of
    # the same scores (the fresh round e590b01a6f61: JaVaFo 1.4 pairs 12-13
    # for 11-13 above and gives the bye to 10, 1 point, where M1 = 1 gave it
    # to 9, 1.5, moved down; docs/pairing.md).
    _C13Step(None, keep_movers=True, every_mover=True),
    _C13Step("same P1", keep_movers=True, same_scores=True, every_mover=True),
    # "Reduce M1 as shown in C.14.b2": C.3 to C.10 again at each M1, D.3's
    # other sets of moved-down players (C.8.b) included, down to M1 = 1.
    _C13Step(None, keep_movers=True),
    # C.12's "another set of players of the same size and with the same
    # scores": C.13 asks so first, else the lowest's M1 = 0 comes before
    # other floaters (seed 1970, round 5).
    _C13Step("same P1", keep_movers=True, same_scores=True),
    _C13Step(None, keep_movers=False),
)

#: C.13's last attempts: the penultimate bracket asked for another pairing
#: with which the lowest can be paired at all, keeping its P1 (seed 779 round
#: 10), then any (:func:`_c13_again`).
_C13_AGAIN = (
    _C13Step("same P1", keep_movers=False),
    _C13Step("any", keep_movers=False),
)


def _c13(
    rnd: Round,
    groups: list[list[PlayerState]],
    chosen: list[Outcome],
    inputs: list[tuple[list[PlayerState], list[PlayerState]]],
    pushed: list[list[PlayerState]],
    carry: list[PlayerState],
    round_number: int,
    before_c12: dict[int, _BeforeC12],
) -> list[Outcome]:
    """The lowest bracket, and C.13 when it cannot be paired.

    C.13 first lowers M1 of a heterogeneous lowest bracket (C.14.b2). As JaVaFo
    1.4 reads it, the penultimate bracket is asked before that for other
    floaters of the same scores with which the lowest pairs every moved-down
    player (the fresh round e590b01a6f61); and lowering M1 stops while a
    moved-down player is still paired: before
    pairing the lowest bracket as homogeneous (M1 = 0, a moved-down player
    left for the bye), the penultimate bracket is asked for a pairing that lets
    the lowest one pair its moved-down players; then M1 = 0; then a pairing
    of the penultimate bracket keeping its P1 with which the lowest can be
    paired at all (M1 = 0 allowed; seed 779 round 10); then any; then the
    two lowest brackets are joined, and so on upwards. "Reduce M1 as shown in
    C.14.b2" runs C.3 to C.10 again at each M1, D.3's other sets of
    moved-down players (C.8.b) included, before the penultimate bracket is
    asked for floaters that pair fewer (the C.13 sample's a9236b415e37, where
    no other floaters pair them all; JaVaFo 1.4 asks it first in the dutch9
    forecast round 3ace259062ad, a departure: test_departures.py).
    At P1 = M1 the penultimate bracket asked again lowers P1 (C.14.b1) or M1
    (C.14.b2): :func:`_c13_again`. A penultimate bracket asked after the
    lowest was joined may first get back the players the bracket above moved
    down before C.12 (:func:`_c13_restores`).
    """
    last = start = len(groups) - 1  # the lowest bracket is groups[start:] (joined by C.13)
    while True:
        undo = before_c12.get(start - 1) if start < last else None
        if undo is not None:
            # C.13 asks again, as the penultimate one, a bracket whose C.12 set
            # it gives back (_c13_restores): the bracket above gets back its
            # first pairing, and this bracket its first moved-down players.
            pen = start - 1
            chosen[pen - 1], chosen[pen] = undo.prev_out, undo.out
            inputs[pen], pushed[pen] = undo.bracket_input, undo.pushed
        joined = [p for g in groups[start:-1] for p in g]
        movers_in = [*chosen[start - 1].floaters, *pushed[start - 1]] if start > 0 else []
        # A merged bracket's S1: the latest added score bracket (with the players
        # moved down into it); the brackets joined before it are its S2 with the lowest.
        residents = [p for g in groups[start + 1 :] for p in g] if start < last else groups[-1]
        movers = [*movers_in, *groups[start]] if start < last else movers_in
        pen = start - 1
        asked = None
        if start > 0:
            asked = _Asked(inputs[pen], pushed[pen], chosen[pen], groups[-1], joined)
        hetero = heterogeneous(len(movers), len(residents) + len(movers))
        for step in _C13_STEPS:
            if step.every_mover and (start < last or not hetero):
                # Only for a heterogeneous lowest bracket (A.3), not joined yet: a
                # joined one lowers its M1 at once (seed 1936 round 9).
                continue
            if step.penultimate is None:
                out = lowest(
                    rnd,
                    residents,
                    movers,
                    m1_zero=not step.keep_movers,
                    merged=start < last,
                    every_mover=step.every_mover,
                )
                if out is not None:
                    return [*chosen[:start], out]
            elif asked is not None:
                # C.13: another pairing of the penultimate bracket for the lowest one.
                again = _c13_penultimate(rnd, asked, step)
                if again is not None:
                    return [*chosen[:pen], *again]
        if asked is not None:
            again = _c13_again(rnd, asked, failed_on_bye=failed_on_the_bye(rnd, residents, movers))
            if again is not None:
                return [*chosen[:pen], *again]
        if start == 0:
            raise PairingError(
                f"round {round_number}: no pairing satisfies the absolute criteria B.1 and B.2"
            )
        # C.13: no pairing of the penultimate bracket helps: join the two lowest.
        start = pen


def _c13_again(rnd: Round, asked: _Asked, *, failed_on_bye: bool) -> tuple[Outcome, Outcome] | None:
    """C.13's last attempts (:data:`_C13_AGAIN`): another pairing of the
    penultimate bracket with which the lowest can be paired, and the lowest's.

    When the penultimate bracket reaches P1 = M1 > 1 with its remainder
    reached, C.14.b1 would lower P1 and C.14.b2 lowers M1. As JaVaFo 1.4
    pairs it, P1 is lowered (and M1 with it) when C.1 moved a moved-down
    player on through the penultimate bracket (seeds 80 round 9, 2037 round
    11); and, while P1 is still P0 (as many moved-down players as pairs:
    :attr:`LowerP1.AT_P0`), after a lowest bracket that failed on the bye
    alone (:func:`failed_on_the_bye`; but M1 where that gives the bye to a
    player of the same score with a smaller B.3 cost of the pairs: seed 3870
    round 6) and whenever that gives the bye to a
    lower scored player than lowering M1 does, one of its own players (B.3:
    the bye's score as low as possible; seed 670 round 8 and three rounds of
    the C.13 sample); else M1 (seeds 460 round 7, 534 round 8, ...). Where
    C.14.b1 brought P1 down to M1 first (P0 > M0), JaVaFo 1.4 lowers M1 (the
    fresh 15-player round cc3228f7193f and seven more; docs/pairing.md)."""

    #: whether a search of first_again got to where AT_P0 and NEVER part: if
    #: none did, the other would find the same pairings again
    decided: list[bool] = []

    def first_again(lower_p1: LowerP1) -> tuple[Outcome, Outcome] | None:
        for step in _C13_AGAIN:
            again = _c13_penultimate(rnd, asked, step, lower_p1=lower_p1, decided=decided)
            if again is not None:
                return again
        return None

    # A moved-down player that C.1 moved on through the penultimate bracket
    # (he had no opponent there, so it could never pair every player moved
    # down into it): as JaVaFo 1.4 pairs it, P1 is lowered then (seeds 80
    # round 9 and 2037 round 11, four rounds of the C.13 sample; in none of
    # the 30 reference rounds where it lowers M1 instead was a player moved
    # on so), also where C.14.b1 lowered P1 to M1 before (seed 2037 round
    # 11: P0 = 3, M0 = 2).
    pen_residents, pen_movers = asked.pen_input
    at_p0 = (len(pen_residents) + len(pen_movers)) // 2 == len(pen_movers)
    if asked.pen_pushed:
        return first_again(LowerP1.ALWAYS)
    if failed_on_bye:
        lowered = first_again(LowerP1.AT_P0)
        if lowered is not None and any(decided):
            # ... unless lowering M1 instead (P1 kept) gives the bye to a player
            # of the same score with smaller score differences (B.3): the
            # random tournament seed 3870 round 6, where only the top scorer
            # may have the bye (B.1b) and JaVaFo 1.4 pairs 4-6, 3-8 and 5-9
            # rather than 4-8, 3-9 and 6-5; three fresh rounds agree.
            kept = first_again(LowerP1.NEVER)
            if (
                kept is not None
                and _bye_score(kept[1]) == _bye_score(lowered[1])
                and _pairs_cost(kept) < _pairs_cost(lowered)
            ):
                return kept
        return lowered
    again = first_again(LowerP1.NEVER)
    # Lowering P1 acts only at P1 = M1 = P0 > 1 (two moved-down players at
    # least), and is taken only for a lower bye. (``at_p0`` is AT_P0's own
    # condition, P0 = M0, checked here only to spare a search that could not
    # give another pairing.)
    if (
        again is None
        or not at_p0
        or len(pen_movers) < 2
        or not again[1].floaters
        or not any(decided)
    ):
        return again
    lowered = first_again(LowerP1.AT_P0)
    if lowered is not None:
        bye, other = _bye_score(again[1]), _bye_score(lowered[1])
        # ... and only when that bye is one of the penultimate bracket's own
        # players, moved down by the lowered P1 (the fresh round 932eabcbcc7c:
        # a player of the joined lowest bracket, 3 points, would take the bye
        # from 5, 4 points, moved down into the penultimate bracket; JaVaFo
        # 1.4 lowers M1 and gives it to 5).
        own = {p.id for p in pen_residents}
        if bye is not None and other is not None and other < bye and any(
            p.id in own for p in lowered[1].floaters
        ):
            return lowered
    return again


def _pairs_cost(outcomes: tuple[Outcome, Outcome]) -> int:
    """B.3's measure (:func:`~tcecd.pairing.dutch2012.values.b3_cost`) of the
    pairs of the penultimate and lowest brackets' pairings."""
    return sum(b3_cost(a, b) for out in outcomes for a, b in out.pairs)


def _bye_score(lowest: Outcome) -> int | None:
    """The score of the lowest bracket's unpaired player (the bye), if any."""
    return min((p.score for p in lowest.floaters), default=None)


def _c13_penultimate(
    rnd: Round,
    asked: _Asked,
    step: _C13Step,
    *,
    lower_p1: LowerP1 = LowerP1.NEVER,
    decided: list[bool] | None = None,
) -> tuple[Outcome, Outcome] | None:
    """C.13: the first other pairing of the penultimate bracket (in the order of
    its own procedure, C.14 included unless ``step`` keeps P1) with which the
    lowest bracket can be paired (as ``step`` says); that pairing and the
    lowest bracket's. ``lower_p1``: when C.14.b1 lowers P1 at P1 = M1
    (:func:`_c13_again`); ``decided`` gets whether the search got to where
    :attr:`LowerP1.AT_P0` and :attr:`LowerP1.NEVER` part."""
    pen_input, pen_pushed, pen_out = asked.pen_input, asked.pen_pushed, asked.pen_out
    residents, joined = asked.residents, asked.joined
    keep_movers = step.keep_movers
    tried = frozenset(p.id for p in pen_out.floaters)
    whole = len(pen_input[0]) + len(pen_input[1])
    lowest_for: dict[frozenset[PlayerId], Outcome | None] = {}

    def accept(floaters: tuple[PlayerState, ...]) -> bool:
        ids = frozenset(p.id for p in floaters)
        if ids == tried:
            return False
        if step.same_scores and scores_of(floaters) != scores_of(pen_out.floaters):
            return False
        if ids not in lowest_for:
            # The players the penultimate bracket moves down are the lowest
            # bracket's moved-down players (A.3). If P becomes zero there, the
            # two lowest are joined, the penultimate one (all moved down) the
            # latest added: "a heterogeneous score bracket with the latest added
            # score bracket as S1". A lowest bracket already joined by C.13 is
            # paired the same way, the brackets joined before being its residents
            # (seeds 811 round 4, 422 round 6: JaVaFo 1.4 pairs it so).
            merged = bool(joined) or (bool(floaters) and len(floaters) == whole)
            # So is a lowest bracket of which at least half now came from above
            # (A.3): B.3's least cost, the bye's score with the pairs' differences
            # (the C.13 sample's round 48c215433ae5, once P1 is lowered there).
            movers_in = len(floaters) + len(pen_pushed)
            merged = merged or (movers_in > 0 and movers_in >= len(residents))
            # Keeping the moved-down players paired before M1 = 0 is for a
            # lowest bracket C.13 has not joined yet: a joined one lowers its
            # M1 at once, as C.13's first sentence says (seed 1936 round 9:
            # JaVaFo 1.4 gives the bye to 8, moved down into the joined
            # bracket, before it takes the penultimate's later pairing that
            # moves down 10, whom the joined bracket could pair).
            lowest_for[ids] = lowest(
                rnd,
                [*joined, *residents],
                [*floaters, *pen_pushed],
                m1_zero=not keep_movers or bool(joined),
                merged=merged,
                every_mover=step.every_mover,
            )
        return lowest_for[ids] is not None

    pen_bracket = rnd.bracket(*pen_input, lowest=False)
    # Keeping the moved-down players paired, the penultimate bracket keeps its P1.
    size = len(pen_out.floaters) if step.penultimate == "same P1" else None
    # Before the lowest bracket's M1 = 0, the penultimate bracket's other
    # pairing keeps its own M1 as well (no C.14.b2 there): leaving one of its
    # own moved-down players unpaired is no "pairing which will allow" the
    # lowest one to pair its moved-down players (C.13; seed 1444, round 5).
    # And it never leaves all of them unpaired (C.14.b2 stops at M1 = 1, no
    # M1 = 0): a heterogeneous bracket's P is M1 (C.3.a), and "if in the
    # penultimate score bracket P becomes zero" the two lowest are joined
    # (seed 2037 round 10: JaVaFo 1.4 joins the 5-point bracket, where its
    # pairing 6-8 moving on 3, moved down into it, would have done).
    procedure = BracketProcedure(
        pen_bracket,
        reduce=step.every_mover or not (keep_movers and step.penultimate == "same P1"),
        accept=accept,
        floaters=size,
        m1_zero=False,
        lower_p1=lower_p1,
    )
    alt = first(procedure.outcomes())
    if decided is not None:
        decided.append(procedure.at_p0_asked)
    if alt is None:
        return None
    low = lowest_for[frozenset(p.id for p in alt.floaters)]
    assert low is not None
    return alt, low

def failed_on_the_bye(
    rnd: Round, residents: Sequence[PlayerState], movers: Sequence[PlayerState]
) -> bool:
    """Whether the lowest bracket (C.13), three players with its moved-down
    players as S1, failed on the bye alone: its highest moved-down player
    (D.3's first set with M1 = P0 = 1) has a possible opponent among its
    residents, and that pair leaves only the bye, whom B.1b refuses.

    As JaVaFo 1.4 pairs it, C.13 then asks the penultimate bracket for
    another pairing with C.14.b1 ("if the pairing procedure has got to the
    remainder") lowering P1 at P1 = M1 = P0, not M1 (C.14.b2). Thirteen
    rounds of the C.13 sample and the dutch9 forecast decide it (c79fa2c9953e,
    dbac8ab7609c, 86f7417d2cd0, ...), with the lowest bracket as it was or
    joined by C.13 (its latest added bracket as S1). Where the lowest bracket
    is bigger (seeds 2191 round 7, 460 round 7) or its highest moved-down
    player has no opponent there (the sample's 0dba3d7c1d92), JaVaFo 1.4
    lowers M1: docs/pairing.md, "Compared with JaVaFo 1.4"."""
    if len(residents) + len(movers) != 3 or not movers:
        return False
    top = min(movers, key=a2_key)
    return any(compatible(top, r, rnd.prefs, rnd.top_scorer_above) for r in residents)
