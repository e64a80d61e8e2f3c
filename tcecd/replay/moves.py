"""Turning a PGN game back into the values the live stream carries.

TCEC (cutechess) and tcecd write one comment per move of comma-terminated
``key=value`` fields (tcec-formats.md, "PGN"), e.g.::

    {d=32, sd=51, pd=Nf3, mt=62093, tl=3391049, s=77158000, n=4790982640,
     pv=Nf3 d5 Bg2, tb=null, h=84.3, ph=0.0, wv=0.27, R50=48, Rd=-11,
     Rr=-1000, mb=+0+0+0+0+0,}

and book moves carry ``{book, mb=...,}``. :func:`parse_move_comment` reads
one such comment (pure, no board needed); :func:`move_records` and
:func:`game_record` rebuild the :class:`~tcecd.game.record.MoveRecord` and
:class:`~tcecd.game.record.GameRecord` values a live game produced, so that a
replay publishes exactly what the live event published.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import chess
import chess.pgn

from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.fen import fen
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score

# Standard PGN commands ([%clk 0:56:31], [%eval 0.27]) may sit beside the fields.
_COMMAND = re.compile(r"\[%[^\]]*\]")


@dataclass(frozen=True, slots=True)
class MoveComment:
    """The fields of one move comment; None where the comment lacks a field."""

    book: bool = False
    depth: int | None = None
    seldepth: int | None = None
    # pd: the move the engine pondered on *before* this move (its previous
    # expectation, as TCEC's cutechess writes it), not the reply it expects now.
    pondered_san: str | None = None
    move_time_ms: int | None = None
    clock_left_ms: int | None = None
    nps: int | None = None
    nodes: int | None = None
    pv_san: tuple[str, ...] = ()
    tbhits: int | None = None
    hashfull: int | None = None  # permille (the comment's h is percent)
    score: Score | None = None
    r50: int | None = None
    rd: int | None = None
    rr: int | None = None


def parse_score(text: str) -> Score:
    """Parse a ``wv`` value: pawns (``0.27``, ``-1.5``) or mate (``M7``, ``-M3``).

    Raises ``ValueError`` quoting the value when it is neither.
    """
    t = text.strip()
    sign = 1
    if t[:1] in "+-" and t[1:2] in ("M", "#"):
        sign = -1 if t[0] == "-" else 1
        t = t[1:]
    if t[:1] in ("M", "#"):
        try:
            return Score(mate=sign * int(t[1:]))
        except ValueError:
            raise ValueError(f"invalid evaluation: {text!r}") from None
    try:
        return Score(cp=round(float(t) * 100))
    except ValueError:
        raise ValueError(f"invalid evaluation: {text!r}") from None


def _int(key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"invalid {key}: {value!r} (expected an integer)") from None


def _int_or_null(key: str, value: str) -> int | None:
    return None if value in ("null", "") else _int(key, value)


def parse_move_comment(text: str) -> MoveComment:
    """Parse a TCEC move comment into its fields.

    Unknown keys (``ph``, ``mb``, anything a newer writer adds) are ignored;
    a known key with a value of the wrong kind raises ``ValueError`` naming
    the key and quoting the value. An empty or free-text comment gives an
    empty :class:`MoveComment`.
    """
    fields: dict[str, object] = {}
    body = _COMMAND.sub("", text)
    for part in body.split(","):
        item = part.strip()
        if not item:
            continue
        if item == "book":
            fields["book"] = True
            continue
        key, sep, value = item.partition("=")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "d":
            fields["depth"] = _int(key, value)
        elif key == "sd":
            fields["seldepth"] = _int(key, value)
        elif key == "pd":
            fields["pondered_san"] = value or None
        elif key == "mt":
            fields["move_time_ms"] = _int(key, value)
        elif key == "tl":
            fields["clock_left_ms"] = _int(key, value)
        elif key == "s":
            fields["nps"] = _int(key, value)
        elif key == "n":
            fields["nodes"] = _int(key, value)
        elif key == "pv":
            fields["pv_san"] = tuple(value.split())
        elif key == "tb":
            fields["tbhits"] = _int_or_null(key, value)
        elif key == "h":
            try:
                fields["hashfull"] = round(float(value) * 10)
            except ValueError:
                raise ValueError(f"invalid h: {value!r} (expected a percentage)") from None
        elif key == "wv":
            fields["score"] = parse_score(value)
        elif key == "R50":
            fields["r50"] = _int(key, value)
        elif key == "Rd":
            fields["rd"] = _int(key, value)
        elif key == "Rr":
            fields["rr"] = _int(key, value)
    return MoveComment(**fields)  # type: ignore[arg-type]


def move_records(game: chess.pgn.Game) -> tuple[MoveRecord, ...]:
    """The main line of ``game`` as move records, comments parsed.

    Raises ``ValueError`` naming the ply when a comment is malformed.
    """
    board = game.board()
    plies: list[tuple[chess.Move, Color, str, str, MoveComment]] = []
    for ply, node in enumerate(game.mainline(), start=1):
        move = node.move
        color = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
        san = board.san(move)
        board.push(move)
        try:
            c = parse_move_comment(node.comment)
        except ValueError as exc:
            raise ValueError(f"ply {ply} ({san}): {exc}") from None
        plies.append((move, color, san, fen(board), c))
    records: list[MoveRecord] = []
    for index, (move, color, san, fen_after, c) in enumerate(plies):
        ply = index + 1
        # The reply an engine expected after this move is what its next
        # move's pd says it pondered on; after its last move, the second move
        # of its PV (what `bestmove ... ponder` gives, and what tcecd records).
        later = plies[index + 2][4] if index + 2 < len(plies) else None
        if later is not None and not later.book:
            ponder = later.pondered_san
        else:
            ponder = c.pv_san[1] if len(c.pv_san) > 1 else None
        records.append(
            MoveRecord(
                ply=ply,
                color=color,
                uci=move.uci(),
                san=san,
                fen_after=fen_after,
                book=c.book,
                move_time_ms=c.move_time_ms,
                clock_left_ms=c.clock_left_ms,
                depth=c.depth,
                seldepth=c.seldepth,
                nodes=c.nodes,
                nps=c.nps,
                score=c.score,
                pv_san=c.pv_san,
                ponder_san=None if c.book else ponder,
                tbhits=c.tbhits,
                hashfull=c.hashfull,
                r50=c.r50,
                rd=c.rd,
                rr=c.rr,
            )
        )
    return tuple(records)


def parse_engine_options(comment: str) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Parse the first comment of a TCEC game into (white, black) options:
    ``WhiteEngineOptions: Protocol=uci; Threads=1;, BlackEngineOptions: ...``."""
    result: list[tuple[tuple[str, str], ...]] = []
    for side in ("WhiteEngineOptions:", "BlackEngineOptions:"):
        start = comment.find(side)
        if start < 0:
            result.append(())
            continue
        text = comment[start + len(side) :]
        end = text.find("EngineOptions:")
        if end >= 0:
            text = text[:end]
            text = text[: text.rfind(",")] if "," in text else text
        pairs: list[tuple[str, str]] = []
        for item in text.split(";"):
            name, sep, value = item.strip().partition("=")
            if sep and name:
                pairs.append((name.strip(), value.strip()))
        result.append(tuple(pairs))
    return result[0], result[1]


def iso_utc(text: str) -> str:
    """Normalise a PGN time tag to ISO 8601 UTC: cutechess writes
    ``2026-11-22T03:59:43.149 UTC``, tcecd writes ``...149Z``."""
    t = text.strip()
    if t.endswith(" UTC"):
        t = t[:-4] + "Z"
    return t


def parse_duration_ms(text: str) -> int:
    """``GameDuration`` (``hh:mm:ss``, optionally with fractional seconds) in ms;
    0 when absent or unreadable (it is informational only)."""
    parts = text.strip().split(":")
    if len(parts) != 3:
        return 0
    try:
        h, m, s = int(parts[0]), int(parts[1]), float(parts[2])
    except ValueError:
        return 0
    return round((h * 3600 + m * 60 + s) * 1000)


def parse_time_control_ms(text: str) -> int | None:
    """Each side's starting clock in ms from a PGN ``TimeControl`` tag
    (``"40/7200:3600+30"`` -> 7,200,000); None without a clock or when the
    tag is unreadable (it only seeds the clocks shown before the first move)."""
    from tcecd.game.timecontrol import TimeControl

    try:
        tc = TimeControl.parse(text)
    except ValueError:
        return None
    return tc.stages[0].base_ms if tc.stages else None


def duration_between_ms(start: str, end: str) -> int | None:
    """Milliseconds between two ISO 8601 UTC times (``GameStartTime`` and
    ``GameEndTime`` carry milliseconds, ``GameDuration`` only seconds);
    None when either is missing or unreadable."""
    from datetime import datetime

    try:
        a = datetime.fromisoformat(iso_utc(start).replace("Z", "+00:00"))
        b = datetime.fromisoformat(iso_utc(end).replace("Z", "+00:00"))
    except ValueError:
        return None
    ms = round((b - a).total_seconds() * 1000)
    return ms if ms >= 0 else None


def termination_of(headers: chess.pgn.Headers) -> Termination:
    """The :class:`Termination` of a game from its ``Termination`` tag
    (cutechess vocabulary); games without the tag ended normally."""
    value = headers.get("Termination", "normal").strip().lower()
    for member in Termination:
        if member.value == value:
            return member
    return Termination.NORMAL


def _elo(headers: chess.pgn.Headers, tag: str) -> int | None:
    try:
        return int(headers.get(tag, ""))
    except ValueError:
        return None


_KNOWN_TAGS = frozenset(
    {
        "Event", "Site", "Date", "Round", "White", "Black", "Result", "FEN", "SetUp",
        "TimeControl", "Termination", "TerminationDetails", "GameStartTime",
        "GameEndTime", "GameDuration", "Opening", "ECO", "WhiteElo", "BlackElo",
        "PlyCount",
    }
)  # fmt: skip


def game_record(game: chess.pgn.Game, game_id: GameId) -> GameRecord:
    """Rebuild the :class:`GameRecord` a live game produced from its PGN."""
    h = game.headers
    moves = move_records(game)
    fen = h.get("FEN")
    # A Chess960 game (its Variant tag, or Chess960 castling rights: python-chess's
    # reading, which made the moves above) starts from a Chess960 opening.
    chess960 = game.board().chess960
    opening = Opening(
        name=h.get("Opening"),
        fen=fen,
        moves=tuple(m.uci for m in moves if m.book),
        eco=h.get("ECO"),
        chess960=chess960,
    )
    white_opts, black_opts = parse_engine_options(game.comment)
    time_control = h.get("TimeControl") or h.get("WhiteTimeControl") or "-"
    # A Chess960 game's Variant tag is the opening's to write (pgn.writer.position_tags).
    known = _KNOWN_TAGS | {"Variant"} if chess960 else _KNOWN_TAGS
    extra = tuple((k, v) for k, v in h.items() if k not in known)
    return GameRecord(
        game_id=game_id,
        event=h.get("Event", "?"),
        site=h.get("Site", "?"),
        white=h.get("White", "?"),
        black=h.get("Black", "?"),
        result=Result.from_pgn(h.get("Result", "*")),
        termination=termination_of(h),
        termination_detail=h.get("TerminationDetails", ""),
        start_time=iso_utc(h.get("GameStartTime", "")),
        end_time=iso_utc(h.get("GameEndTime", "")),
        duration_ms=(
            duration_between_ms(h.get("GameStartTime", ""), h.get("GameEndTime", ""))
            or parse_duration_ms(h.get("GameDuration", ""))
        ),
        time_control=time_control,
        opening=opening,
        moves=moves,
        white_options=white_opts,
        black_options=black_opts,
        white_elo=_elo(h, "WhiteElo"),
        black_elo=_elo(h, "BlackElo"),
        extra_tags=extra,
    )
