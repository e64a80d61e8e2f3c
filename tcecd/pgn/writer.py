"""The TCEC-style PGN writer: a :class:`GameRecord` in, PGN text out (pure).

The layout follows the PGNs TCEC's cutechess fork writes (see
../shared/data/tcec-swiss-samples and tcec-formats.md):

- the Seven Tag Roster, then every other tag in alphabetical order (cutechess
  sorts them): ``ECO``, ``FEN``, ``GameDuration``, ``GameEndTime``,
  ``GameStartTime``, ``Opening``, ``PlyCount``, ``SetUp``, ``Termination``,
  ``TerminationDetails``, ``TimeControl``, ``WhiteElo``... ;
- a first comment listing each engine's options;
- one move per line, book moves as ``{book, mb=+0+0+0+0+0,}`` and engine moves
  with the comma-terminated ``key=value`` comment (:func:`move_comment`) plus the
  standard ``[%eval ...]`` and ``[%clk ...]`` annotations python-chess reads;
- the last move's comment ends with the result description
  (``White mates``, ``White wins by adjudication: TCEC resign rule``,
  ``Adjudication: TCEC draw rule``...), then the result token and a blank line.

The moves are replayed from the opening's start position, so an illegal move
in a record is a :class:`~tcecd.errors.PgnError` instead of a corrupt file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import chess

from tcecd.domain import Color, Result, Termination
from tcecd.errors import PgnError
from tcecd.game.material import material_balance
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score

_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")


def _escape_tag(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _escape_comment(text: str) -> str:
    # A PGN comment ends at the first "}"; nothing else needs escaping.
    return text.replace("}", ")").replace("\n", " ")


def _hms(ms: int) -> str:
    """Milliseconds as ``hh:mm:ss`` (``GameDuration``), floored to the second."""
    seconds = max(0, ms) // 1000
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _clk(ms: int) -> str:
    """Milliseconds as the ``[%clk h:mm:ss.t]`` value, floored to the tenth.

    Whole seconds would show ``0:00:00`` on every move of a fast game; python-chess
    (``GameNode.clock()``) and lichess read a decimal fraction of the seconds. A
    zero tenth is left out (``0:59:58``), as python-chess writes it.
    """
    tenths = max(0, ms) // 100
    seconds, tenth = divmod(tenths, 10)
    text = f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{text}.{tenth}" if tenth else text


def _eval(score: Score) -> str:
    """The ``[%eval ...]`` value: pawns with two decimals or ``#n``/``#-n``."""
    if score.mate is not None:
        return f"#{score.mate}"
    assert score.cp is not None
    return f"{score.cp / 100:.2f}"


def _utc(timestamp: str) -> str:
    """``2026-11-22T03:59:43.149Z`` as cutechess writes it: ``... UTC``."""
    if timestamp.endswith("Z"):
        return timestamp[:-1] + " UTC"
    return timestamp


def _date(timestamp: str) -> str:
    """The PGN ``Date`` tag (``YYYY.MM.DD``) of an ISO 8601 timestamp."""
    day = timestamp[:10]
    parts = day.split("-")
    if len(parts) == 3 and all(part.isdigit() for part in parts):
        return ".".join(parts)
    return "????.??.??"


def move_comment(
    move: MoveRecord,
    *,
    pd: str | None = None,
    ph: float | None = None,
    mb: str | None = None,
) -> str:
    """The TCEC comment body of one ply, without braces.

    Book plies: ``book, mb=...,``. Engine plies: ``d, sd, pd, mt, tl, s, n,
    pv, tb, h, ph, wv, R50, Rd, Rr, mb`` as ``key=value, `` with a trailing
    comma; a field the engine did not report is left out, except ``tb`` which
    is ``null`` (tcec-formats.md). ``pd`` (the move the engine pondered on)
    and ``ph`` (ponder-hit rate, percent) depend on the game so far and are
    passed by :func:`game_pgn`; ``mb`` defaults to the balance of
    ``move.fen_after``. ``h`` is the hash fill in percent (UCI reports permille).
    """
    if mb is None:
        mb = material_balance(chess.Board(move.fen_after))
    if move.book:
        return f"book, mb={mb},"
    fields: list[tuple[str, object]] = [
        ("d", move.depth),
        ("sd", move.seldepth),
        ("pd", pd),
        ("mt", move.move_time_ms),
        ("tl", move.clock_left_ms),
        ("s", move.nps),
        ("n", move.nodes),
        ("pv", " ".join(move.pv_san) if move.pv_san else None),
        ("tb", "null" if move.tbhits is None else move.tbhits),
        ("h", None if move.hashfull is None else f"{move.hashfull / 10:.1f}"),
        ("ph", None if ph is None else f"{ph:.1f}"),
        ("wv", None if move.score is None else move.score.pgn()),
        ("R50", move.r50),
        ("Rd", move.rd),
        ("Rr", move.rr),
        ("mb", mb),
    ]
    return "".join(f"{key}={value}, " for key, value in fields if value is not None).rstrip(" ")


def result_description(result: Result, termination: Termination, detail: str) -> str:
    """The human end-of-game text cutechess appends to the last comment.

    Adjudications are worded as in TCEC's PGNs (``White wins by adjudication:
    TCEC resign rule``, ``Adjudication: TCEC draw rule``); every other ending
    uses the detail text (``White mates``, ``Black loses on time``...).
    """
    if termination is Termination.ADJUDICATION:
        winner = result.winner
        if winner is None:
            return f"Adjudication: {detail}" if detail else "Draw by adjudication"
        name = "White" if winner is Color.WHITE else "Black"
        return f"{name} wins by adjudication" + (f": {detail}" if detail else "")
    if detail:
        return detail
    defaults = {
        Result.WHITE_WINS: "White wins",
        Result.BLACK_WINS: "Black wins",
        Result.DRAW: "Drawn game",
        Result.UNFINISHED: "No result",
    }
    return defaults[result]


def _options_text(label: str, options: Sequence[tuple[str, str]]) -> str:
    body = "".join(f" {name}={value};" for name, value in options)
    return f"{label}:{body}"


def position_tags(opening: Opening) -> dict[str, str]:
    """The tags that say where a game starts: ``FEN`` and ``SetUp`` for a start
    other than the standard position, and ``Variant`` for a Chess960 game,
    which always has its ``FEN`` (as cutechess writes it: its reader, and TCEC's
    viewer, know a Chess960 start position only from the tag)."""
    from tcecd.game.chess960 import PGN_VARIANT

    tags: dict[str, str] = {}
    fen = opening.fen
    if opening.chess960:
        tags["Variant"] = PGN_VARIANT
        fen = fen or chess.STARTING_FEN
    if fen is not None and (opening.chess960 or fen != chess.STARTING_FEN):
        tags["FEN"] = fen
        tags["SetUp"] = "1"
    return tags


def start_tags(
    *,
    event: str,
    site: str,
    game_id: object,
    white: str,
    black: str,
    start_time: str,
    time_control: str,
    opening: Opening,
    white_elo: int | None = None,
    black_elo: int | None = None,
    extra_tags: Sequence[tuple[str, str]] = (),
) -> list[tuple[str, str]]:
    """The PGN tags of a game as known when it starts, in the writer's order
    (the Seven Tag Roster with ``Result "*"``, then the rest sorted): what
    ``live.pgn``/``live.json`` show while it runs (no ``Termination``: TCEC's
    viewer reads one as "finished"). :func:`game_tags` adds the end to the
    same tags, so the live and the final headers cannot drift apart."""
    roster = {
        "Event": event,
        "Site": site,
        "Date": _date(start_time),
        "Round": str(game_id),
        "White": white,
        "Black": black,
        "Result": Result.UNFINISHED.value,
    }
    other: dict[str, str] = {
        "GameStartTime": _utc(start_time),
        "TimeControl": time_control,
        **position_tags(opening),
    }
    if opening.name:
        other["Opening"] = opening.name
    if opening.eco:
        other["ECO"] = opening.eco
    if white_elo is not None:
        other["WhiteElo"] = str(white_elo)
    if black_elo is not None:
        other["BlackElo"] = str(black_elo)
    for name, value in extra_tags:
        if name not in roster:
            other[name] = value
    return [*roster.items(), *sorted(other.items())]


def game_tags(record: GameRecord) -> list[tuple[str, str]]:
    """The complete PGN tags of a finished game: :func:`start_tags` with the
    result and the end (``GameEndTime``, ``GameDuration``, ``PlyCount``,
    ``Termination``, ``TerminationDetails``)."""
    tags = dict(
        start_tags(
            event=record.event,
            site=record.site,
            game_id=record.game_id,
            white=record.white,
            black=record.black,
            start_time=record.start_time,
            time_control=record.time_control,
            opening=record.opening,
            white_elo=record.white_elo,
            black_elo=record.black_elo,
            extra_tags=record.extra_tags,
        )
    )
    tags["Result"] = record.result.value
    end = {
        "GameEndTime": _utc(record.end_time),
        "GameDuration": _hms(record.duration_ms),
        "PlyCount": str(len(record.moves)),
        "Termination": record.termination.value,
    }
    if record.termination_detail:
        end["TerminationDetails"] = record.termination_detail
    other = {k: v for k, v in tags.items() if k not in _ROSTER}
    other.update(end)
    return [(k, tags[k]) for k in _ROSTER] + sorted(other.items())


class _PonderStats:
    """``(pd, ph)`` for each ply in turn, as TCEC's cutechess computes them.

    ``MoveRecord.ponder_san`` is the reply an engine expected after its move
    (``bestmove ... ponder X``); TCEC's ``pd`` on an engine's move is the
    move it pondered on before it, i.e. its previous expectation. ``ph`` is the
    share (percent, truncated to one decimal as cutechess prints it) of the
    engine's earlier moves whose expected reply the opponent then played; a
    move without an expectation counts as a miss; 0.0 before any. Incremental,
    so the live PGN of a running game costs one ply per move.
    """

    def __init__(self) -> None:
        self._last_ponder: dict[Color, str | None] = {Color.WHITE: None, Color.BLACK: None}
        self._hits = {Color.WHITE: 0, Color.BLACK: 0}
        self._tries = {Color.WHITE: 0, Color.BLACK: 0}
        self._previous: MoveRecord | None = None

    def push(self, move: MoveRecord) -> tuple[str | None, float]:
        prev = self._previous
        if prev is not None and not prev.book:
            # The previous engine move is judged now that its reply is known.
            self._tries[prev.color] += 1
            if prev.ponder_san is not None and move.san == prev.ponder_san:
                self._hits[prev.color] += 1
        color = move.color
        tries = self._tries[color]
        rate = (self._hits[color] * 1000 // tries) / 10 if tries else 0.0
        stat = (self._last_ponder[color], rate)
        self._last_ponder[color] = None if move.book else move.ponder_san
        self._previous = move
        return stat


class _Movetext:
    """The movetext lines of a game, one ply at a time (:func:`game_pgn` and
    :class:`LivePgn` share it): replays each move from the start position (an
    illegal one is a :class:`PgnError`), numbers it, and writes its SAN (the
    record's) and its TCEC comment with the standard ``[%eval]``/``[%clk]``
    annotations."""

    def __init__(self, opening: Opening, label: object) -> None:
        self.board = opening.start_board()
        self.label = label
        self.lines: list[str] = []
        self._stats = _PonderStats()

    def add(self, move: MoveRecord, ending: str = "") -> None:
        board = self.board
        try:
            parsed = chess.Move.from_uci(move.uci)
        except ValueError:
            parsed = chess.Move.null()
        if not parsed or not board.is_legal(parsed):
            raise PgnError(
                f"game {self.label}: illegal move {move.uci!r} at ply {move.ply} "
                f"in {board.fen()!r}"
            )
        if board.turn == chess.WHITE:
            prefix = f"{board.fullmove_number}. "
        elif not self.lines:
            prefix = f"{board.fullmove_number}... "
        else:
            prefix = ""
        # The record's SAN: every record is made with it (python-chess's, by the
        # runner, the PGN reader or the opening), and computing it again (the
        # check and mate suffix: a move generation) was most of the writer's time.
        san = move.san
        board.push(parsed)

        pd, ph = self._stats.push(move)
        body = move_comment(move, pd=pd, ph=ph, mb=material_balance(board))
        if ending:
            body += f" {ending}"
        annotations = []
        if not move.book and move.score is not None:
            annotations.append(f"[%eval {_eval(move.score)}]")
        if move.clock_left_ms is not None:
            annotations.append(f"[%clk {_clk(move.clock_left_ms)}]")
        if annotations:
            body += " " + " ".join(annotations)
        self.lines.append(f"{prefix}{san} {{{_escape_comment(body)}}}")


def _options_comment(
    white: Sequence[tuple[str, str]], black: Sequence[tuple[str, str]]
) -> str:
    options = (
        _options_text("WhiteEngineOptions", white)
        + ", "
        + _options_text("BlackEngineOptions", black)
    )
    return "{" + _escape_comment(options) + "}"


def game_pgn(record: GameRecord) -> str:
    """The complete PGN text of a game: tags, the options comment, the moves
    with their TCEC comments, the result, and a blank line.

    A game with no moves (a forfeit) is valid too: tags, the options comment,
    the result description as a comment, and the result.
    """
    lines = [f'[{name} "{_escape_tag(value)}"]' for name, value in game_tags(record)]
    lines.append("")
    lines.append(_options_comment(record.white_options, record.black_options))

    description = result_description(record.result, record.termination, record.termination_detail)
    movetext = _Movetext(record.opening, record.game_id)
    last = len(record.moves) - 1
    for index, move in enumerate(record.moves):
        movetext.add(move, description if index == last else "")
    lines += movetext.lines

    if not record.moves:
        lines.append("{" + _escape_comment(description) + "}")
    lines.append(record.result.value)
    return "\n".join(lines) + "\n\n"


def forfeit_pgn(record: GameRecord) -> str:
    """The PGN of a game that was not played (``Termination "forfeit"``, no
    moves): same layout as :func:`game_pgn`, checked to have no moves."""
    if record.moves:
        raise ValueError(f"game {record.game_id}: a forfeited game has no moves")
    if record.termination is not Termination.FORFEIT:
        raise ValueError(f"game {record.game_id}: termination is {record.termination.value!r}")
    return game_pgn(record)


class LivePgn:
    """The PGN of the game being played, as TCEC's ``live.pgn``: the tags known so
    far (``Result "*"``, no termination: the viewer reads either as "finished"),
    the options comment and the moves so far, in the layout of :func:`game_pgn`.
    Built a ply at a time; :meth:`text` joins what is there."""

    def __init__(
        self,
        headers: Mapping[str, str],
        white_options: Sequence[tuple[str, str]],
        black_options: Sequence[tuple[str, str]],
        opening: Opening,
    ) -> None:
        self._head = [f'[{name} "{_escape_tag(value)}"]' for name, value in headers.items()]
        self._head += ["", _options_comment(white_options, black_options)]
        self._moves = _Movetext(opening, headers.get("Round", "?"))

    def add(self, move: MoveRecord) -> None:
        self._moves.add(move)

    def text(self) -> str:
        return "\n".join([*self._head, *self._moves.lines, "*"]) + "\n\n"
