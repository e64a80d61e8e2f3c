"""The round being paired (:class:`Round`) and one bracket's pairing in it,
as C.1, C.12 and C.13 ask for it (``../shared/seeds/fide-dutch-system-2012.txt``):

* C.1: the players of a bracket with no possible opponent in it, moved down
  at once (:func:`c1`);
* a bracket's pairing above the lowest (C.2-C.10, then C.14: :func:`pairing`)
  and the lowest bracket's, everybody paired but the bye (:func:`lowest`).

The procedure itself is
:class:`~tcecd.pairing.dutch2012.bracket.BracketProcedure`; the backtracking
between brackets is :mod:`~tcecd.pairing.dutch2012.c12` and
:mod:`~tcecd.pairing.dutch2012.backtrack`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tcecd.domain import PlayerId
from tcecd.pairing.dutch2012.bracket import Bracket, BracketProcedure, Outcome
from tcecd.pairing.dutch2012.colours import Preference
from tcecd.pairing.dutch2012.criteria import compatible
from tcecd.pairing.dutch2012.state import PlayerState, a2_key


def first(outcomes: Iterator[Outcome]) -> Outcome | None:
    """The first pairing a procedure reaches (None: it reaches none)."""
    return next(outcomes, None)


class Round:
    """The facts of the round being paired, shared by every bracket."""

    def __init__(
        self,
        field: Sequence[PlayerState],
        prefs: dict[PlayerId, Preference],
        *,
        even_round: bool,
        top_scorer_above: int | None,
    ) -> None:
        self.field = field
        self.prefs = prefs
        self.even_round = even_round
        #: last round: scores (half-points) above this are top scorers (A.10)
        self.top_scorer_above = top_scorer_above

    def bracket(
        self,
        residents: Sequence[PlayerState],
        movers: Sequence[PlayerState],
        *,
        lowest: bool,
        merged: bool = False,
    ) -> Bracket:
        players = tuple(sorted([*residents, *movers], key=a2_key))
        return Bracket(
            merged=merged,
            players=players,
            movers=frozenset(p.id for p in movers),
            prefs=self.prefs,
            lowest=lowest,
            even_round=self.even_round,
            top_scorer_above=self.top_scorer_above,
        )

    def incompatible(self, bracket: Bracket) -> list[PlayerState]:
        """C.1: players with no opponent in the bracket under B.1 (and B.2,
        except when pairing top scorers)."""
        return [
            a
            for a in bracket.players
            if not any(
                compatible(a, b, self.prefs, self.top_scorer_above)
                for b in bracket.players
                if b is not a
            )
        ]

def c1(
    rnd: Round, residents: Sequence[PlayerState], movers: Sequence[PlayerState]
) -> tuple[list[PlayerState], list[PlayerState], list[PlayerState]]:
    """C.1: (residents, movers) still in the bracket, and the incompatible
    players moved down at once."""
    stuck = rnd.incompatible(rnd.bracket(residents, movers, lowest=False))
    stuck_ids = {p.id for p in stuck}
    return (
        [p for p in residents if p.id not in stuck_ids],
        [p for p in movers if p.id not in stuck_ids],
        stuck,
    )

def pairing(
    rnd: Round, residents: Sequence[PlayerState], movers: Sequence[PlayerState], p1: int
) -> tuple[Outcome, tuple[int, bool]]:
    """A bracket's pairing (not the lowest): C.2-C.10, then C.14 if needed; and
    how good it is for C.12: how many moved-down players it pairs, and whether
    it makes ``p1`` pairs."""
    bracket = rnd.bracket(residents, movers, lowest=False)
    out = first(BracketProcedure(bracket).outcomes())
    assert out is not None  # C.14.a ends with the whole bracket moved down
    paired = sum(1 for a, b in out.pairs if a.id in bracket.movers or b.id in bracket.movers)
    return out, (paired, len(out.pairs) >= p1)


def lowest(
    rnd: Round,
    residents: Sequence[PlayerState],
    movers: Sequence[PlayerState],
    *,
    m1_zero: bool = True,
    merged: bool = False,
    every_mover: bool = False,
) -> Outcome | None:
    """The lowest bracket's pairing: everybody paired but at most the bye.
    ``m1_zero``: C.14.b2 may leave every moved-down player unpaired;
    ``every_mover``: no C.14 at all (M1 = M0: every moved-down player paired,
    as far as the bracket is heterogeneous); ``merged``:
    brackets joined by C.13, "treated as a heterogeneous score bracket with the
    latest added score bracket as S1": ``movers`` are that bracket's players
    (with those moved down into it). As JaVaFo 1.4 pairs them: heterogeneous
    when they are fewer than half (A.3: M1 from M0 down; within each, B.2 in
    force before it is dropped, and B.3 first: the bye's score, then the
    smallest score differences), else one bracket of unequal scores with S1
    the highest players, B.3 first (lowest bye, smallest score differences)."""
    bracket = rnd.bracket(residents, movers, lowest=True, merged=merged)
    procedure = BracketProcedure(bracket, m1_zero=m1_zero, reduce=not every_mover)
    return first(procedure.outcomes())
