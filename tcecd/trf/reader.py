"""Read a TRF-2016 file (as JaVaFo and bbpPairings accept it) into a :class:`TrfEvent`.

What is read (docs/pairing.md, "TRF files"):

- ``012`` the tournament name; ``001`` player lines: start rank (the pairing
  number), title, name, rating, points, then one 10-column block per round:
  opponent's start rank (``0000`` for none), colour (``w``/``b``/``-``),
  result. Federation, FIDE id, birth date and rank are not read. The points
  must be what the results give under the file's point system, as
  bbpPairings checks them (a file of another point system, read as the
  standard one, would pair wrongly): they may also count the virtual points
  of the round to pair and the points of a bye requested for it, as both
  programs accept; blank points are not checked.
- Results with an opponent: ``1 = 0`` played, ``W D L`` played but unrated,
  ``+ -`` forfeits (never played: :class:`PlayedGame` ``played=False``; the
  colour, when given, is kept but counts for nothing). A double forfeit
  (``-`` against ``-``) is no game: both players get a zero-point bye.
- Results without an opponent: ``U`` the pairing-allocated bye, ``H``/``F``/``Z``
  requested half-/full-/zero-point byes; JaVaFo's older codes ``+`` (read as
  ``U``), ``=`` (``H``) and ``-`` (``Z``). A player with no entry in a finished
  round was absent: a zero-point bye. A round may have several
  pairing-allocated byes (the integer-program system leaves several players
  unpaired when its rules allow no better pairing).
- The last round column is the round to pair (not a finished round) when it
  holds neither a game nor a pairing-allocated bye: its ``H``/``F``/``Z``
  entries are that round's requested byes, as are JaVaFo's ``XXZ`` numbers.
- ``XXR n`` the total number of rounds, ``XXC white1|black1`` the colour of
  pairing number 1 in round 1 (without ``XXC``, inferred as bbpPairings does:
  from the first round with colours, the colour of the highest participant
  with one, reversed once per participant above it without one).
- The event's rules (:class:`~tcecd.pairing.base.RoundContext`; JaVaFo's and
  bbpPairings' TRF(x) extensions): ``XXP a b`` a forbidden pair (more numbers
  on one line: every two of them, as bbpPairings reads it); ``XXA NNNN pp.p
  pp.p ...`` the virtual points of pairing number ``NNNN`` in rounds 1, 2,
  ... (fixed 5-column blocks from column 10, a blank block is 0); the point
  system, from JaVaFo's ``XXS CODE=value ...`` (codes ``WW BW WD BD WL BL FW
  FL PAB FPB HPB ZPB W D L``) and bbpPairings' ``BBW BBD BBL BBZ BBF BBU``
  lines (:mod:`tcecd.pairing.points`).
- Every other line is ignored, other ``XX?`` and ``BB?`` codes included (as
  JaVaFo lets them pass).

Every error is a :class:`TrfError` of one line: ``SOURCE:LINE: FIELD: problem``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from tcecd.domain import Color, Result
from tcecd.errors import PairingError, TrfError
from tcecd.pairing.base import Bye, ByeKind, PlayedGame, Player, RoundContext, RoundRecord
from tcecd.pairing.points import (
    BB_CODES,
    XXS_CODES,
    PointSystem,
    acceleration_from_points,
    exact,
    forbidden_pairs,
    format_points,
    points_from_codes,
)
from tcecd.pairing.tally import tally
from tcecd.trf import model
from tcecd.trf.model import TrfEvent

#: Result codes a player may have against an opponent.
_GAME_RESULTS = frozenset("10=WDL+-")
#: Result codes without an opponent (TRF-2016, then JaVaFo's older codes).
_BYE_RESULTS: dict[str, ByeKind] = {
    "U": ByeKind.PAIRING,
    "H": ByeKind.HALF,
    "F": ByeKind.FULL,
    "Z": ByeKind.ZERO,
    "+": ByeKind.PAIRING,
    "=": ByeKind.HALF,
    "-": ByeKind.ZERO,
    " ": ByeKind.ZERO,
}
#: The two players' results that agree, and white's PGN result when the first
#: player has white.
_AGREEING: dict[tuple[str, str], Result] = {
    ("1", "0"): Result.WHITE_WINS,
    ("0", "1"): Result.BLACK_WINS,
    ("=", "="): Result.DRAW,
    ("W", "L"): Result.WHITE_WINS,
    ("L", "W"): Result.BLACK_WINS,
    ("D", "D"): Result.DRAW,
    ("+", "-"): Result.WHITE_WINS,
    ("-", "+"): Result.BLACK_WINS,
    ("-", "-"): Result.UNFINISHED,  # double forfeit: no game (two zero-point byes)
}


@dataclass(frozen=True, slots=True)
class _Entry:
    """One round block of a player line."""

    opponent: int  # 0: no opponent
    colour: str  # "w", "b", "-" or " "
    result: str
    text: str  # the block as written, for messages


@dataclass(slots=True)
class _PlayerLine:
    player: Player
    line: int
    entries: list[_Entry | None]
    #: the points column (None: blank)
    points: Fraction | None = None


@dataclass(slots=True)
class _Rules:
    """The extension lines, as read (checked against the players afterwards)."""

    forbidden: list[tuple[list[int], int]] = field(default_factory=list)  # (numbers, line)
    virtual: dict[int, tuple[list[Fraction], int]] = field(default_factory=dict)
    xxs: list[tuple[str, Fraction]] = field(default_factory=list)
    bb: list[tuple[str, Fraction]] = field(default_factory=list)


def _cols(line: str, span: tuple[int, int]) -> str:
    return line[span[0] - 1 : span[1]]


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, line: int, field: str, problem: str) -> TrfError:
        return TrfError(f"{self.source}:{line}: {field}: {problem}")

    def player_line(self, line: str, lineno: int) -> _PlayerLine:
        rank_text = _cols(line, model.START_RANK)
        if not rank_text.strip().isdigit() or int(rank_text) == 0:
            raise self.fail(lineno, "start rank", f"expected a pairing number, got {rank_text!r}")
        number = int(rank_text)
        title = _cols(line, model.TITLE).strip() or None
        name = _cols(line, model.NAME).strip() or str(number)
        rating_text = _cols(line, model.RATING).strip()
        if rating_text and not rating_text.isdigit():
            raise self.fail(lineno, "rating", f"expected a number, got {rating_text!r}")
        rating = int(rating_text) if rating_text and int(rating_text) > 0 else None
        points_text = _cols(line, model.POINTS).strip()
        points: Fraction | None = None
        if points_text:
            try:
                points = exact(points_text)
            except ValueError:
                raise self.fail(
                    lineno, "points", f"expected points such as 2.5, got {points_text!r}"
                ) from None
        entries: list[_Entry | None] = []
        start = model.FIRST_ROUND_COLUMN - 1
        while start < len(line.rstrip()):
            block = line[start : start + model.ROUND_WIDTH].ljust(model.ROUND_WIDTH)
            entries.append(self.entry(block, lineno, len(entries) + 1))
            start += model.ROUND_WIDTH
        player = Player(id=str(number), name=name, seed=number, rating=rating, title=title)
        return _PlayerLine(player, lineno, entries, points)

    def numbers(self, rest: str, lineno: int, code: str) -> list[int]:
        out: list[int] = []
        for token in rest.split():
            if not token.isdigit() or int(token) == 0:
                raise self.fail(lineno, code, f"expected pairing numbers, got {token!r}")
            out.append(int(token))
        return out

    def acceleration(self, line: str, lineno: int) -> tuple[int, list[Fraction]]:
        """An ``XXA`` line: the pairing number in columns 5-8, then the virtual
        points of rounds 1, 2, ... in 4-column fields from column 10, one
        blank column apart (bbpPairings' layout; a blank field is 0)."""
        number_text = line[4:8].strip()
        if not number_text.isdigit() or int(number_text) == 0:
            raise self.fail(
                lineno, "XXA", f"expected a pairing number in columns 5-8, got {line[4:8]!r}"
            )
        values: list[Fraction] = []
        start = 9
        body = line.rstrip()
        while start < len(body):
            text = body[start : start + 4].strip()
            columns = f"columns {start + 1}-{start + 4}"
            try:
                values.append(exact(text) if text else Fraction(0))
            except ValueError as exc:
                raise self.fail(
                    lineno, "XXA", f"round {len(values) + 1} ({columns}): {exc}"
                ) from None
            if body[start + 4 : start + 5].strip():
                raise self.fail(
                    lineno,
                    "XXA",
                    f"round {len(values)} ({columns}): expected 'pp.p' and a blank column, "
                    f"got {body[start : start + 5]!r}",
                )
            start += 5
        return int(number_text), values

    def point_value(self, text: str, lineno: int, code: str) -> Fraction:
        try:
            return exact(text)
        except ValueError as exc:
            raise self.fail(lineno, code, f"{exc}") from None

    def entry(self, block: str, lineno: int, rnd: int) -> _Entry | None:
        if not block.strip():
            return None
        shown = block[:8].strip()
        if block[4] != " " or block[6] != " " or block[8:].strip():
            raise self.fail(
                lineno, f"round {rnd}", f"expected 'NNNN c r' in the round's columns, got {shown!r}"
            )
        opp_text, colour, result = block[0:4], block[5], block[7]
        if not opp_text.strip().isdigit():
            raise self.fail(
                lineno, f"round {rnd} opponent", f"expected a start rank, got {opp_text.strip()!r}"
            )
        if colour not in "wb- ":
            raise self.fail(lineno, f"round {rnd} colour", f"expected w, b or -, got {colour!r}")
        opponent = int(opp_text)
        allowed = _BYE_RESULTS if opponent == 0 else _GAME_RESULTS
        if result not in allowed:
            what = "a bye" if opponent == 0 else "a game"
            raise self.fail(
                lineno, f"round {rnd} result", f"invalid result {result!r} for {what} ({shown!r})"
            )
        if opponent and colour in "- " and result not in "+-":
            raise self.fail(
                lineno, f"round {rnd} colour", f"a played game needs w or b, got {shown!r}"
            )
        return _Entry(opponent, colour, result, shown)


def parse_trf(text: str, source: str) -> TrfEvent:
    """Parse TRF-2016 ``text``; ``source`` names it in error messages.

    Raises :class:`TrfError` (one line: source, line number, field, bad value).
    """
    parser = _Parser(source)
    name: str | None = None
    lines: list[_PlayerLine] = []
    total_rounds: int | None = None
    xxr_line = 0
    first_colour: Color | None = None
    absent: list[tuple[int, int]] = []  # (pairing number, line) from XXZ
    rules = _Rules()
    for lineno, line in enumerate(text.splitlines(), start=1):
        code, rest = line[:3], line[3:].strip()
        if code == "012":
            name = rest or None
        elif code == "001":
            lines.append(parser.player_line(line, lineno))
        elif code == "XXR":
            if not rest.isdigit() or int(rest) == 0:
                raise parser.fail(lineno, "XXR", f"expected the number of rounds, got {rest!r}")
            total_rounds, xxr_line = int(rest), lineno
        elif code == "XXC":
            for token in rest.split():
                if token not in ("white1", "black1"):
                    raise parser.fail(
                        lineno, "XXC", f"unsupported value {token!r} (expected white1 or black1)"
                    )
                first_colour = Color.WHITE if token == "white1" else Color.BLACK
        elif code == "XXZ":
            for token in rest.split():
                if not token.isdigit():
                    raise parser.fail(lineno, "XXZ", f"expected pairing numbers, got {token!r}")
                absent.append((int(token), lineno))
        elif code == "XXP":
            numbers = parser.numbers(rest, lineno, "XXP")
            if len(numbers) < 2:
                raise parser.fail(
                    lineno, "XXP", f"expected two pairing numbers (a forbidden pair), got {rest!r}"
                )
            rules.forbidden.append((numbers, lineno))
        elif code == "XXA":
            number, values = parser.acceleration(line, lineno)
            if number in rules.virtual:
                raise parser.fail(
                    lineno,
                    "XXA",
                    f"a second XXA line for pairing number {number} "
                    f"(also on line {rules.virtual[number][1]})",
                )
            rules.virtual[number] = (values, lineno)
        elif code == "XXS":
            for token in rest.split():
                xxs_code, sep, value = token.partition("=")
                if not sep or xxs_code not in XXS_CODES:
                    known = " ".join(XXS_CODES)
                    raise parser.fail(
                        lineno, "XXS", f"expected CODE=points ({known}), got {token!r}"
                    )
                rules.xxs.append(
                    (xxs_code, parser.point_value(value, lineno, f"XXS {xxs_code}"))
                )
        elif code in BB_CODES:
            rules.bb.append((code, parser.point_value(rest, lineno, code)))
    if not lines:
        raise TrfError(f"{source}: no player lines (001)")
    by_number = _index_players(parser, lines)
    rounds, to_pair = _read_rounds(parser, by_number)
    requested = dict(to_pair)
    for number, lineno in absent:
        if number not in by_number:
            raise parser.fail(lineno, "XXZ", f"unknown pairing number {number}")
        requested.setdefault(number, ByeKind.ZERO)
    for numbers, lineno in rules.forbidden:
        for number in numbers:
            if number not in by_number:
                raise parser.fail(lineno, "XXP", f"unknown pairing number {number}")
    for number, (values, lineno) in rules.virtual.items():
        if number not in by_number:
            raise parser.fail(lineno, "XXA", f"unknown pairing number {number}")
        if total_rounds is not None and len(values) > total_rounds:
            raise parser.fail(
                lineno,
                "XXA",
                f"virtual points for {len(values)} rounds, but XXR is {total_rounds}",
            )
    points, acceleration = acceleration_from_points(
        {str(n): values for n, (values, _) in rules.virtual.items()},
        points_from_codes(rules.xxs, rules.bb),
    )
    if total_rounds is not None:
        pairing_next = bool(to_pair) or bool(absent)
        needed = len(rounds) + (1 if pairing_next else 0)
        if needed > total_rounds:
            raise parser.fail(
                xxr_line,
                "XXR",
                f"{total_rounds} rounds, but the file has {len(rounds)} finished round(s)"
                + (" and byes for the next" if pairing_next else ""),
            )
    context = RoundContext(
        total_rounds=total_rounds,
        requested_byes=tuple(Bye(str(n), requested[n]) for n in sorted(requested)),
        first_colour=first_colour or _inferred_first_colour(by_number, len(rounds)),
        forbidden_pairs=forbidden_pairs(
            [str(n) for n in numbers] for numbers, _ in rules.forbidden
        ),
        points=points,
        acceleration=acceleration,
    )
    players = tuple(by_number[n].player for n in sorted(by_number))
    _check_points(parser, by_number, players, rounds, context)
    return TrfEvent(name=name, players=players, rounds=rounds, context=context)


def _check_points(
    parser: _Parser,
    by_number: dict[int, _PlayerLine],
    players: tuple[Player, ...],
    rounds: tuple[RoundRecord, ...],
    context: RoundContext,
) -> None:
    """Every ``001`` points column against the results (module docstring):
    bbpPairings refuses a file whose scores do not follow its point system,
    and so does tcecd, naming the player and both numbers."""
    points: PointSystem = context.points
    try:
        totals = tally(players, rounds, double=False, points=points)
    except PairingError as exc:  # pragma: no cover - the rounds were read consistently
        raise TrfError(f"{parser.source}: {exc}") from None
    upcoming = {b.player: points.bye(b.kind) for b in context.requested_byes}
    following = len(rounds) + 1
    for number, pl in by_number.items():
        if pl.points is None:
            continue
        pid = pl.player.id
        score = totals[pid].score
        virtual = context.acceleration.virtual(pid, following)
        bye = upcoming.get(pid, 0)
        accepted = {score, score + virtual, score + bye, score + bye + virtual}
        if any(points.fraction(units) == pl.points for units in accepted):
            continue
        system = "" if points.is_standard else f" (points: {points.describe()})"
        raise parser.fail(
            pl.line,
            "points",
            f"player {number}'s score is {format_points(pl.points)}, but its results give "
            f"{points.text(score)}{system}",
        )


def _inferred_first_colour(by_number: dict[int, _PlayerLine], finished: int) -> Color:
    """The first colour a file without ``XXC`` implies (bbpPairings' README,
    "initial piece color"): in the first round where any colour is written,
    the highest participant's colour, or the next participant's reversed, and
    so on (participants alternate colours down the round-1 pairing)."""
    for rnd in range(1, finished + 1):
        column = [
            pl.entries[rnd - 1] if rnd <= len(pl.entries) else None
            for _, pl in sorted(by_number.items())
        ]
        participants = [e for e in column if e is not None and (e.opponent or e.result in "U+")]
        for k, entry in enumerate(participants):
            if entry.colour in "wb":
                colour = Color.WHITE if entry.colour == "w" else Color.BLACK
                return colour if k % 2 == 0 else colour.other
    return Color.WHITE


def _index_players(parser: _Parser, lines: list[_PlayerLine]) -> dict[int, _PlayerLine]:
    """Players by pairing number, which must be 1..N, each once."""
    by_number: dict[int, _PlayerLine] = {}
    for pl in lines:
        number = pl.player.seed
        if number in by_number:
            raise parser.fail(
                pl.line,
                "start rank",
                f"duplicate pairing number {number} (also on line {by_number[number].line})",
            )
        by_number[number] = pl
    for pl in lines:
        if pl.player.seed > len(lines):
            raise parser.fail(
                pl.line,
                "start rank",
                f"pairing number {pl.player.seed} with {len(lines)} players "
                f"(pairing numbers must be 1..{len(lines)})",
            )
    return by_number


def _read_rounds(
    parser: _Parser, by_number: dict[int, _PlayerLine]
) -> tuple[tuple[RoundRecord, ...], dict[int, ByeKind]]:
    """The finished rounds, and the requested byes of the round to pair."""
    columns = max(len(pl.entries) for pl in by_number.values())
    records: list[RoundRecord] = []
    to_pair: dict[int, ByeKind] = {}
    for rnd in range(1, columns + 1):
        column = {
            n: (pl.entries[rnd - 1] if rnd <= len(pl.entries) else None)
            for n, pl in by_number.items()
        }
        finished = any(
            e is not None and (e.opponent or _BYE_RESULTS[e.result] is ByeKind.PAIRING)
            for e in column.values()
        )
        if rnd == columns and not finished:
            to_pair = {n: _BYE_RESULTS[e.result] for n, e in column.items() if e is not None}
        else:
            records.append(_read_round(parser, by_number, rnd, column))
    return tuple(records), to_pair


def _read_round(
    parser: _Parser,
    by_number: dict[int, _PlayerLine],
    rnd: int,
    column: dict[int, _Entry | None],
) -> RoundRecord:
    allocated: list[int] = []  # pairing-allocated byes
    byes: dict[int, ByeKind] = {}
    games: list[tuple[int, PlayedGame]] = []
    for number in sorted(column):
        entry = column[number]
        lineno = by_number[number].line
        if entry is None:
            byes[number] = ByeKind.ZERO  # no entry in a finished round: absent
            continue
        if entry.opponent == 0:
            kind = _BYE_RESULTS[entry.result]
            if kind is ByeKind.PAIRING:
                allocated.append(number)
            else:
                byes[number] = kind
            continue
        opp = entry.opponent
        if opp not in by_number:
            raise parser.fail(lineno, f"round {rnd} opponent", f"unknown pairing number {opp}")
        if opp == number:
            raise parser.fail(lineno, f"round {rnd} opponent", f"player {number} plays itself")
        other = column[opp]
        if other is None or other.opponent != number:
            listed = "nothing" if other is None else repr(other.text)
            raise parser.fail(
                lineno,
                f"round {rnd} opponent",
                f"player {number} lists {entry.text!r} but player {opp} lists {listed}",
            )
        if opp < number:
            continue  # the pair was read with the lower number
        game = _game(parser, by_number[opp].line, rnd, number, entry, opp, other)
        if game is None:
            byes[number] = byes[opp] = ByeKind.ZERO
        else:
            games.append((number, game))
    return RoundRecord(
        round=rnd,
        byes=[str(n) for n in allocated],
        removed_history_rounds=(),
        games=tuple(g for _, g in sorted(games, key=lambda item: item[0])),
        requested_byes=tuple(Bye(str(n), byes[n]) for n in sorted(byes)),
    )


def _game(
    parser: _Parser, lineno: int, rnd: int, first: int, a: _Entry, second: int, b: _Entry
) -> PlayedGame | None:
    """The game of ``first`` (entry ``a``) and ``second`` (entry ``b``, on line
    ``lineno``, where disagreements are reported); None for a double forfeit."""
    both = f"player {first} has {a.text!r}, player {second} has {b.text!r}"
    result = _AGREEING.get((a.result, b.result))
    if result is None:
        raise parser.fail(lineno, f"round {rnd} result", f"results disagree: {both}")
    if result is Result.UNFINISHED:
        return None
    forfeit = a.result in "+-"
    colours = {(a.colour, b.colour)}
    if colours <= {("w", "b"), ("b", "w")}:
        first_white = a.colour == "w"
    elif forfeit and a.colour in "- " and b.colour in "- ":
        first_white = True  # a forfeit without colours: the lower number as white
    else:
        raise parser.fail(lineno, f"round {rnd} colour", f"colours disagree: {both}")
    if first_white:
        return PlayedGame(str(first), str(second), result, played=not forfeit)
    flipped = {
        Result.WHITE_WINS: Result.BLACK_WINS,
        Result.BLACK_WINS: Result.WHITE_WINS,
        Result.DRAW: Result.DRAW,
    }[result]
    return PlayedGame(str(second), str(first), flipped, played=not forfeit)
