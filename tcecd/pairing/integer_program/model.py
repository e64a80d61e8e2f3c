"""The integer-program model of one round: its data, its allowed games, its objective.

Model: ``../shared/seeds/swiss-integer-program-model.md`` (the seed), with the
decisions of ``../shared/specs/integer-program.md`` (the spec) where the seed's
algebra and its prose disagree. This module is pure: it turns the players, the
finished rounds and the round's context into the seed's coefficient variables
and into the list of games the hard constraints allow, each with its objective
weight. :mod:`tcecd.pairing.integer_program.solver` hands that to HiGHS.

Why an edge list is the seed's model. The seed's slot variables ``X_ij``,
``Y_j`` and colour variables ``C_ik`` describe a set of pairs with colours; the
spec allows the equivalent edge formulation. A *directed* game ``y_ab`` (a
white, b black) stands for ``x_ab`` and ``C_aW = C_bB = 1``: ``C_iW = sum_b
y_ib``, ``C_iB = sum_a y_ai``, ``C_iN = 1 - C_iW - C_iB``, every player in at
most one game (spec 1, 3, 4). Every other hard constraint only ever forbids a
colour to a player (spec 5 to 8: ``C_ik = 0``, or a bound that one colour
breaks) or a pair (spec 2), so it is applied by leaving those directed games
out; what is left is exactly the seed's feasible set. Each game's weight is its
share of the seed's objective, so a pairing's objective is the sum over its
games. A pair's two colourings never interact with any other pair, so each pair
keeps only its better orientation (the lower pairing number white on a tie, as
the spec's tie-break wants) and the solver sees one variable per pair.

Units: the seed's objective has a half-integral term (``5 |S_a - S_b|`` with
half-point scores), so weights are kept as integers in *half-units* (twice the
seed's objective): 100 per pair, 60 per paired player with ``U_i = 1``, 40 per
``L_i``, 2 per ``M_i`` and -5 per half-point of score difference. Under another
point system (``RoundContext.points``) scores count in that system's units of
``1/unit`` point and the objective is scaled by ``unit`` instead of 2 (every
weight above times ``unit / 2``, which is exact: they are all even), so it stays
integral: -5 per unit of score difference. ``S_i`` includes the round's virtual
points when rounds are accelerated, and forbidden pairs are left out as pairs
that met are (spec 2).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from tcecd.domain import Color, PlayerId
from tcecd.pairing.base import (
    NO_CONTEXT,
    Bye,
    ByeKind,
    Player,
    RoundContext,
    RoundRecord,
    absent_players,
)
from tcecd.pairing.tally import check_players, pairing_scores

#: The seed's objective weights, doubled (half-units; see the module docstring).
PAIR_WEIGHT = 100  # 50 * Y_j
UNPAIRED_BEFORE_WEIGHT = 60  # 30 * U_i X_ij
L_WEIGHT = 40  # 20 * L_i
M_WEIGHT = 2  # 1 * M_i
SCORE_DIFF_WEIGHT = 5  # 5 * |S_a - S_b| with S in points = 5 per half-point, doubled

#: Spec 6: the colour difference of a paired player stays within +-2.
COLOUR_DIFF_LIMIT = 2


class Why(enum.Enum):
    """Why a colour is closed to a player (the spec's constraint numbers)."""

    THREE_IN_A_ROW = "5: last two games had this colour"
    DIFFERENCE = "6: colour difference would leave -2..+2"
    ALTERNATE = "7: balanced colours alternate"
    STRONG = "8: strong preference for the other colour"


@dataclass(frozen=True, slots=True)
class PlayerData:
    """The seed's coefficients of one present player.

    ``score_half`` is ``S_i`` in units of the point system (half-points in the
    standard one; BYE points and virtual points included), ``white``
    and ``black`` are ``W_i`` and ``B_i``, ``last`` the colours of the played
    rounds, most recent last; ``unpaired_before`` is ``U_i``; ``closed`` maps
    each colour the player may not get to the reason (spec 5-8).
    """

    player: Player
    score_half: int
    white: int
    black: int
    last: tuple[Color, ...]
    unpaired_before: bool
    closed: tuple[tuple[Color, Why], ...]

    @property
    def diff(self) -> int:
        """``W_i - B_i``."""
        return self.white - self.black

    def may_have(self, colour: Color) -> bool:
        return all(c is not colour for c, _ in self.closed)


@dataclass(frozen=True, slots=True)
class Game:
    """An allowed game: ``white`` (index into the players) plays ``black``.

    ``weight`` is the game's share of the objective in the model's units
    (half-units in the standard point system);
    ``unpaired_before``, ``l_terms``, ``m_terms`` (0..2 each) and
    ``score_diff_half`` are its terms, for ``--explain``.
    """

    white: int
    black: int
    weight: int
    unpaired_before: int
    l_terms: int
    m_terms: int
    score_diff_half: int


@dataclass(frozen=True, slots=True)
class RoundModel:
    """One round's model: the present players (sorted by pairing number; the
    requested byes left out) and every allowed pair, once, with its colours,
    sorted by (white's pairing number, black's pairing number): the order the
    spec's tie-break compares boards in, so a game's index is its rank."""

    round: int
    players: tuple[PlayerData, ...]
    games: tuple[Game, ...]
    #: The point system's units per point: the objective counts in ``1/unit``
    #: of the seed's (2, half-units, in the standard system).
    unit: int = 2

    def board_key(self, game: Game) -> tuple[int, int]:
        """The spec's board order: the higher score of the two DESC, then the
        lower pairing number of the two ASC."""
        a, b = self.players[game.white], self.players[game.black]
        return (-max(a.score_half, b.score_half), min(a.player.seed, b.player.seed))

    def seeds(self, game: Game) -> tuple[int, int]:
        """(white's pairing number, black's pairing number): what the tie-break compares."""
        return (self.players[game.white].player.seed, self.players[game.black].player.seed)


def round_colours(
    players: Sequence[Player], history: Sequence[RoundRecord]
) -> dict[PlayerId, list[Color]]:
    """Each player's colour in every round it played, oldest first.

    A round's colour is the colour of the player's first *played* game in it: in
    a double round the first game, as the FIDE systems here count a double round
    (one encounter whose colours the system allocates; the return game only
    reverses them). A BYE, a requested bye or a forfeit never played gives no
    colour (spec, "Data of a round").
    """
    colours: dict[PlayerId, list[Color]] = {p.id: [] for p in players}
    for record in history:
        seen: set[PlayerId] = set()
        for game in record.games:
            if not game.played:
                continue
            for pid, colour in ((game.white, Color.WHITE), (game.black, Color.BLACK)):
                if pid not in seen:
                    seen.add(pid)
                    colours[pid].append(colour)
    return colours


def pairing_byes(record: RoundRecord) -> set[PlayerId]:
    """Players the pairing left unpaired in ``record`` (its pairing-allocated byes)."""
    return set(record.byes)


def closed_colours(diff: int, last: Sequence[Color]) -> tuple[tuple[Color, Why], ...]:
    """The colours spec 5-8 close to a player with colour difference ``diff`` and
    round colours ``last`` (oldest first), with the first reason for each."""
    closed: dict[Color, Why] = {}

    def close(colour: Color, why: Why) -> None:
        closed.setdefault(colour, why)

    # 5. No colour three times in a row (R_ik = 0).
    if len(last) >= 2 and last[-1] is last[-2]:
        close(last[-1], Why.THREE_IN_A_ROW)
    # 6. -2 <= W - B + C_W - C_B <= 2 for a paired player.
    if diff + 1 > COLOUR_DIFF_LIMIT:
        close(Color.WHITE, Why.DIFFERENCE)
    if diff - 1 < -COLOUR_DIFF_LIMIT:
        close(Color.BLACK, Why.DIFFERENCE)
    # 7. Balanced players who have played alternate (T_ik = 0 for the last colour).
    if diff == 0 and last:
        close(last[-1], Why.ALTERNATE)
    # 8. Strong preferences: W - B = 1 + 2 C_W - C_B <= 2 closes white;
    #    W - B = -1 + C_W - 2 C_B >= -2 closes black.
    if diff == 1:
        close(Color.WHITE, Why.STRONG)
    if diff == -1:
        close(Color.BLACK, Why.STRONG)
    return tuple(sorted(closed.items(), key=lambda item: item[0] is Color.BLACK))


def present_players(
    players: Sequence[Player], context: RoundContext, round_number: int
) -> list[Player]:
    """The players to pair: all but the round's requested byes and absences.

    A pairing-allocated bye (``U``) among them is this system's own output
    echoed back (a finished round's record replayed as the context of its
    re-pairing, as ``tcecd replay --verify`` does): it is not an input, the
    system decides those byes itself, so it is skipped."""
    away = absent_players(round_number, requested(context), {p.id for p in players})
    return [p for p in players if p.id not in away]


def requested(context: RoundContext) -> tuple[Bye, ...]:
    """The round's requested byes and absences (H, F, Z), without echoed U byes."""
    return tuple(b for b in context.requested_byes if b.kind is not ByeKind.PAIRING)


def build_model(
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    *,
    double: bool,
    context: RoundContext = NO_CONTEXT,
) -> RoundModel:
    """The model of round ``len(history) + 1``: coefficients and allowed games."""
    round_number = len(history) + 1
    check_players(players)
    # S_i: scores (and virtual points) by the point system; validates the records too.
    scores = pairing_scores(
        players,
        history,
        double=double,
        points=context.points,
        acceleration=context.acceleration,
    )
    present = sorted(present_players(players, context, round_number), key=lambda p: p.seed)
    colours = round_colours(players, history)
    before = pairing_byes(history[-1]) if history else set()
    met: set[frozenset[PlayerId]] = set(context.forbidden_pairs)  # never paired, as spec 2
    for record in history:
        for game in record.games:
            if game.played:  # an unplayed forfeit is no encounter (spec, P_mn)
                met.add(frozenset((game.white, game.black)))

    data: list[PlayerData] = []
    for p in present:
        last = tuple(colours[p.id])
        white = sum(1 for c in last if c is Color.WHITE)
        black = len(last) - white
        data.append(
            PlayerData(
                player=p,
                score_half=scores[p.id][len(history)],
                white=white,
                black=black,
                last=last,
                unpaired_before=p.id in before,
                closed=closed_colours(white - black, last),
            )
        )

    unit = context.points.unit
    games: list[Game] = []
    for a, pa in enumerate(data):
        for b in range(a + 1, len(data)):
            pb = data[b]
            if frozenset((pa.player.id, pb.player.id)) in met:
                continue
            options = [
                game_terms(pw, pk, w, k, unit)
                for pw, pk, w, k in ((pa, pb, a, b), (pb, pa, b, a))
                if pw.may_have(Color.WHITE) and pk.may_have(Color.BLACK)
            ]
            if options:
                # The pair's colours: the orientation worth more; on a tie the lower
                # pairing number (``a``, listed first) gets white, which is what the
                # spec's tie-break picks, since a pair's colours touch no other pair.
                games.append(max(options, key=lambda g: g.weight))
    games.sort(key=lambda g: (data[g.white].player.seed, data[g.black].player.seed))
    return RoundModel(round=round_number, players=tuple(data), games=tuple(games), unit=unit)


def game_terms(white: PlayerData, black: PlayerData, w: int, b: int, unit: int = 2) -> Game:
    """The objective terms of ``white`` playing ``black`` (spec, "Objective"),
    in units of ``1/unit`` of the seed's objective (module docstring)."""
    unpaired = int(white.unpaired_before) + int(black.unpaired_before)
    after_white = white.diff + 1
    after_black = black.diff - 1
    # L_i / M_i: a paired player whose colour difference ends the round at +2 / -2.
    l_terms = int(after_white == COLOUR_DIFF_LIMIT) + int(after_black == COLOUR_DIFF_LIMIT)
    m_terms = int(after_white == -COLOUR_DIFF_LIMIT) + int(after_black == -COLOUR_DIFF_LIMIT)
    diff = abs(white.score_half - black.score_half)
    weight = (
        PAIR_WEIGHT * unit // 2
        + UNPAIRED_BEFORE_WEIGHT * unit // 2 * unpaired
        + L_WEIGHT * unit // 2 * l_terms
        + M_WEIGHT * unit // 2 * m_terms
        - SCORE_DIFF_WEIGHT * diff
    )
    return Game(
        white=w,
        black=b,
        weight=weight,
        unpaired_before=unpaired,
        l_terms=l_terms,
        m_terms=m_terms,
        score_diff_half=diff,
    )
