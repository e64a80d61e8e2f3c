"""Write a :class:`TrfEvent` as TRF-2016 text that JaVaFo, bbpPairings and
:func:`tcecd.trf.parse_trf` read back.

The file holds the ``012`` name line, one ``001`` line per player in pairing
number order (sex, federation, FIDE id and birth date blank; points from the
finished rounds under the event's point system, never with virtual points;
rank by points, then pairing number), then ``XXR`` (when the total is known)
and ``XXC``, then the event's rules (:class:`~tcecd.pairing.base.RoundContext`):
one ``XXP a b`` line per forbidden pair; the point system, when not the
standard one, as JaVaFo's ``XXS`` (every code) and, when bbpPairings' lines
can say it exactly, as ``BBW``-``BBU`` too; and one ``XXA NNNN pp.p ...``
line per player with virtual points (bbpPairings' columns). The round to
pair's requested byes are written in its column (``0000 - H``), as TRF-2016
does; every pairing-allocated bye of a round as ``0000 - U``. A player with
no game or bye in a finished round is written as absent (``0000 - Z``).
Names longer than the 33 columns of the field are cut.

TRF-2016 holds one game per player and round: a double round (two games per
pair) cannot be written and is a :class:`TrfError`, as is an unplayed game
without a winner (a forfeit has a winner).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from tcecd.domain import Color, PlayerId, Result
from tcecd.errors import TrfError
from tcecd.pairing.base import Bye, ByeKind, Player, RoundContext, RoundPairing, RoundRecord
from tcecd.pairing.points import BB_CODES, MAX_VALUE, XXS_CODES, PointSystem
from tcecd.trf import model
from tcecd.trf.model import TrfEvent

_BYE_CODE = {kind: kind.value for kind in ByeKind}
_PLAYED_CODE = {2: "1", 1: "=", 0: "0"}
_FORFEIT_CODE = {2: "+", 0: "-"}
#: The XXS codes that name one outcome each (the whole system, written in full).
_XXS_SINGLE = [code for code, names in XXS_CODES.items() if len(names) == 1]


def _width(span: tuple[int, int]) -> int:
    return span[1] - span[0] + 1


def format_trf(event: TrfEvent) -> str:
    """The TRF-2016 text of ``event`` (``\\n`` line ends, final newline)."""
    seeds = {p.id: p.seed for p in event.players}
    if sorted(seeds.values()) != list(range(1, len(event.players) + 1)):
        raise TrfError("cannot write TRF: pairing numbers (seeds) must be 1..N, each once")
    total = event.context.total_rounds
    if total is not None and total < len(event.rounds):
        raise TrfError(
            f"cannot write TRF: XXR {total} is less than the {len(event.rounds)} finished rounds"
        )
    points = event.context.points
    blocks: dict[PlayerId, list[str]] = {p.id: [] for p in event.players}
    score = {p.id: 0 for p in event.players}
    for record in event.rounds:
        entries = _round_entries(record, seeds, points)
        for pid, (text, units) in entries.items():
            blocks[pid].append(text)
            score[pid] += units
        for pid in blocks:
            if pid not in entries:
                blocks[pid].append(_bye_block(ByeKind.ZERO))
                score[pid] += points.zero_bye
    upcoming = _bye_entries(event.context.requested_byes, len(event.rounds) + 1, seeds, points)
    for pid, (text, _) in upcoming.items():
        blocks[pid].append(text)
    order = sorted(event.players, key=lambda p: (-score[p.id], p.seed))
    rank = {p.id: i for i, p in enumerate(order, start=1)}
    lines: list[str] = []
    if event.name:
        lines.append(f"012 {_one_line(event.name)}")
    for p in event.players:
        name = _one_line(p.name)[: _width(model.NAME)]
        rating = "" if p.rating is None else str(p.rating)
        title = p.title or ""
        head = (
            f"001 {p.seed:4d} {'':1}{title:>3.3} {name:<33} {rating:>4} {'':3} {'':>11} "
            f"{'':10} {_points_field(points.fraction(score[p.id]), p.seed)} {rank[p.id]:4d}"
        )
        lines.append((head + "".join("  " + b for b in blocks[p.id])).rstrip())
    if event.context.total_rounds is not None:
        lines.append(f"XXR {event.context.total_rounds}")
    lines.append("XXC " + ("white1" if event.context.first_colour is Color.WHITE else "black1"))
    lines += _rule_lines(event.context, seeds)
    return "\n".join(lines) + "\n"


def _points_field(value: Fraction, what: object) -> str:
    """A value in a 4-column ``pp.p`` field."""
    if value > MAX_VALUE:
        raise TrfError(
            f"cannot write TRF: {what}: {float(value):.1f} points do not fit the 4-column "
            "points field (at most 99.9)"
        )
    return f"{float(value):4.1f}"


def _rule_lines(context: RoundContext, seeds: dict[PlayerId, int]) -> list[str]:
    """``XXP``, ``XXS``/``BB?`` and ``XXA`` lines for the event's rules."""
    lines: list[str] = []
    for pair in context.forbidden_pairs:
        for pid in pair:
            if pid not in seeds:
                raise TrfError(f"cannot write TRF: forbidden pair with unknown player {pid!r}")
    numbered = sorted(sorted(seeds[pid] for pid in pair) for pair in context.forbidden_pairs)
    lines += [f"XXP {a} {b}" for a, b in numbered]
    points = context.points
    if not points.is_standard:
        values = points.values()
        lines.append(
            "XXS "
            + " ".join(f"{code}={_text(values[XXS_CODES[code][0]])}" for code in _XXS_SINGLE)
        )
        lines += _bb_lines(points)
    for pid, _ in context.acceleration.table:
        if pid not in seeds:
            raise TrfError(f"cannot write TRF: virtual points of unknown player {pid!r}")
    for pid, row in sorted(context.acceleration.table, key=lambda item: seeds[item[0]]):
        fields = " ".join(_points_field(points.fraction(v), f"XXA {seeds[pid]}") for v in row)
        lines.append(f"XXA {seeds[pid]:4d} {fields}".rstrip())
    return lines


def _text(value: Fraction) -> str:
    return f"{float(value):.1f}"


def _bb_lines(points: PointSystem) -> list[str]:
    """bbpPairings' lines, when they say the system exactly (each of them
    sets several outcomes to one value); none otherwise (bbpPairings then
    refuses the file's scores rather than pairing by another system)."""
    values = points.values()
    lines: list[str] = []
    for code, names in BB_CODES.items():
        group = {values[name] for name in names}
        if len(group) != 1:
            return []
        lines.append(f"{code} {_points_field(group.pop(), code)}")
    return lines


def _one_line(text: str) -> str:
    """``text`` without line breaks, which would split a TRF line."""
    return " ".join(text.splitlines())


def _bye_block(kind: ByeKind) -> str:
    return f"0000 - {_BYE_CODE[kind]}"


def _bye_entries(
    byes: Iterable[Bye], rnd: int, seeds: dict[PlayerId, int], points: PointSystem
) -> dict[PlayerId, tuple[str, int]]:
    entries: dict[PlayerId, tuple[str, int]] = {}
    for bye in byes:
        if bye.player not in seeds:
            raise TrfError(f"cannot write TRF: round {rnd}: unknown bye player {bye.player!r}")
        if bye.player in entries:
            raise TrfError(f"cannot write TRF: round {rnd}: {bye.player!r} has two byes")
        entries[bye.player] = (_bye_block(bye.kind), points.bye(bye.kind))
    return entries


def _round_entries(
    record: RoundRecord, seeds: dict[PlayerId, int], points: PointSystem
) -> dict[PlayerId, tuple[str, int]]:
    """Each player's block in a finished round and the units it scores."""
    rnd = record.round
    byes = list(record.requested_byes)
    byes += [Bye(pid, ByeKind.PAIRING) for pid in sorted(record.byes)]
    entries = _bye_entries(byes, rnd, seeds, points)
    for game in record.games:
        if game.result is Result.UNFINISHED:
            raise TrfError(
                f"cannot write TRF: round {rnd}: game {game.white!r}-{game.black!r} has no result"
            )
        if not game.played and game.result is Result.DRAW:
            raise TrfError(
                f"cannot write TRF: round {rnd}: unplayed game {game.white!r}-{game.black!r} "
                "is a draw (a forfeit has a winner)"
            )
        for pid, opp, colour in (
            (game.white, game.black, Color.WHITE),
            (game.black, game.white, Color.BLACK),
        ):
            if pid not in seeds or opp not in seeds:
                raise TrfError(f"cannot write TRF: round {rnd}: unknown player in game {game!r}")
            if pid in entries:
                raise TrfError(
                    f"cannot write TRF: round {rnd}: {pid!r} has more than one game or bye "
                    "(TRF-2016 holds one game per player and round: no double rounds)"
                )
            half = game.result.half_points(colour)
            code = (_PLAYED_CODE if game.played else _FORFEIT_CODE)[half]
            letter = "w" if colour is Color.WHITE else "b"
            entries[pid] = (
                f"{seeds[opp]:4d} {letter} {code}",
                points.game(game.result, colour, game.played),
            )
    return entries


def format_pairing(pairing: RoundPairing, players: Sequence[Player]) -> str:
    """A paired round as JaVaFo's and bbpPairings' ``-p`` output: the number
    of lines that follow, then ``white black`` pairing numbers per board in
    board order (the first game of each pair: double rounds list the pair
    once), then each pairing-allocated bye as ``N 0`` by pairing number (the
    integer-program model can leave several players unpaired: its spec's output)."""
    seeds = {p.id: p.seed for p in players}
    lines = [f"{seeds[g.white]} {seeds[g.black]}" for g in pairing.games if g.leg == 1]
    for player in sorted(pairing.byes, key=lambda pid: seeds[pid]):
        lines.append(f"{seeds[player]} 0")
    return "\n".join([str(len(lines)), *lines]) + "\n"
