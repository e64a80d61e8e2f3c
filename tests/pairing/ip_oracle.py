"""A brute-force oracle for the integer-program system, written from the spec.

``../shared/specs/integer-program.md`` read literally, sharing no code with
``tcecd/pairing/integer_program``: the seed's coefficients computed from the
records, every pairing (every partial matching of the present players, every
colouring of its pairs) enumerated, each checked against hard constraints 1-8
in the seed's own terms (C_iW, C_iB, C_iN), scored with the seed's objective,
and the spec's lexicographic tie-break applied by sorting. Only for small
fields (10 players: about 10^5 pairings).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from tcecd.domain import Color
from tcecd.pairing.base import ByeKind, Player, RoundContext, RoundRecord

#: The default round context (no requested byes, total rounds unknown).
NO_CONTEXT = RoundContext()


@dataclass
class Coefficients:
    """The seed's coefficient variables of one present player."""

    seed: int
    score: Fraction  # S_i, points
    white: int  # W_i
    black: int  # B_i
    colours: list[str]  # played colours, "W"/"B", oldest first (single rounds)
    unpaired_before: bool  # U_i


def coefficients(
    players: Sequence[Player], history: Sequence[RoundRecord], context: RoundContext
) -> tuple[dict[str, Coefficients], set[frozenset[str]]]:
    """S, W, B, colour sequence, U per present player; P as a set of met pairs.
    Single rounds only."""
    away = {b.player for b in context.requested_byes}
    data = {
        p.id: Coefficients(p.seed, Fraction(0), 0, 0, [], False)
        for p in players
        if p.id not in away
    }
    everyone = {p.id: Coefficients(p.seed, Fraction(0), 0, 0, [], False) for p in players}
    met: set[frozenset[str]] = set()
    for record in history:
        for pid in record.byes:
            everyone[pid].score += 1
        for bye in record.requested_byes:
            everyone[bye.player].score += {
                ByeKind.PAIRING: Fraction(1),
                ByeKind.FULL: Fraction(1),
                ByeKind.HALF: Fraction(1, 2),
                ByeKind.ZERO: Fraction(0),
            }[bye.kind]
        for game in record.games:
            w, b = everyone[game.white], everyone[game.black]
            if game.result.value == "1-0":
                w.score += 1
            elif game.result.value == "0-1":
                b.score += 1
            else:
                w.score += Fraction(1, 2)
                b.score += Fraction(1, 2)
            if game.played:
                w.white += 1
                w.colours.append("W")
                b.black += 1
                b.colours.append("B")
                met.add(frozenset((game.white, game.black)))
    if history:
        last = history[-1]
        for pid in last.byes:
            everyone[pid].unpaired_before = True
    for pid in data:
        data[pid] = everyone[pid]
    return data, met


def allowed(c: Coefficients, colour: str) -> bool:
    """Constraints 5-8 for a player given colour "W", "B" or "N"."""
    cw, cb = int(colour == "W"), int(colour == "B")
    diff = c.white - c.black
    # 5: R_ik = 0 when the last two games had colour k.
    if len(c.colours) >= 2 and c.colours[-1] == c.colours[-2] == colour:
        return False
    # 6: a paired player's colour difference stays in -2..2.
    if colour != "N" and not -2 <= diff + cw - cb <= 2:
        return False
    # 7: balanced players who have played alternate (T_ik).
    if diff == 0 and c.colours and c.colours[-1] == colour:
        return False
    # 8: strong preferences as the seed writes them.
    if diff == 1 and not diff + 2 * cw - cb <= 2:
        return False
    return not (diff == -1 and not diff + cw - 2 * cb >= -2)


def pair_value(white: Coefficients, black: Coefficients) -> Fraction:
    """The seed's objective terms of one game (white, black)."""
    value = Fraction(50)
    value += 30 * (int(white.unpaired_before) + int(black.unpaired_before))
    for after in (white.white - white.black + 1, black.white - black.black - 1):
        value += 20 if after == 2 else 1 if after == -2 else 0
    return value - 5 * abs(white.score - black.score)


@dataclass(frozen=True)
class Best:
    objective: Fraction
    boards: list[tuple[int, int]]  # (white seed, black seed) in board order
    unpaired: list[int]  # seeds


def brute_force(
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    context: RoundContext = NO_CONTEXT,
) -> Best:
    """The spec's answer for the next round, by enumerating every partial
    matching of the present players and every allowed colouring of its pairs."""
    data, met = coefficients(players, history, context)
    ids = sorted(data, key=lambda pid: data[pid].seed)
    # Every allowed game (constraints 2-8), with its objective share and board key.
    options: dict[tuple[str, str], list[tuple[Fraction, tuple[Fraction, int], tuple[int, int]]]]
    options = {}
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            if frozenset((a, b)) in met:
                continue  # 2: no rematch
            for w, k in ((a, b), (b, a)):
                cw, ck = data[w], data[k]
                if not (allowed(cw, "W") and allowed(ck, "B")):
                    continue
                value = pair_value(cw, ck)
                key = (-max(cw.score, ck.score), min(cw.seed, ck.seed))
                options.setdefault((a, b), []).append((value, key, (cw.seed, ck.seed)))

    best: list[Best] = []

    def visit(
        left: list[str],
        value: Fraction,
        games: list[tuple[tuple[Fraction, int], tuple[int, int]]],
        out: list[int],
    ) -> None:
        if not left:
            listed = [t for _, t in sorted(games)]
            if (
                not best
                or value > best[0].objective
                or (value == best[0].objective and listed < best[0].boards)
            ):
                best[:] = [Best(value, listed, sorted(out))]
            return
        first, rest = left[0], left[1:]
        visit(rest, value, games, [*out, data[first].seed])  # first unpaired
        for i, other in enumerate(rest):
            for v, key, seeds in options.get((first, other), []):
                visit(rest[:i] + rest[i + 1 :], value + v, [*games, (key, seeds)], out)

    visit(ids, Fraction(0), [], [])
    return best[0]


def colour_of(history: Sequence[RoundRecord], pid: str) -> list[Color]:
    """Played colours of ``pid``, oldest first (for property checks)."""
    out = []
    for record in history:
        for game in record.games:
            if game.played and pid in (game.white, game.black):
                out.append(Color.WHITE if game.white == pid else Color.BLACK)
    return out
