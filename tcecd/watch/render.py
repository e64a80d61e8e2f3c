"""Text frames for ``tcecd watch``: an :class:`~tcecd.watch.model.EventView` -> lines. Pure.

Plain text plus Unicode chess glyphs (no colours), so frames can be compared
in tests and piped to files (``--once``, or stdout not a terminal). On a
terminal the command shows the same content laid out and coloured with rich
(:mod:`tcecd.watch.screen`), built from the helpers here.
"""

from __future__ import annotations

from typing import Any

import chess

from tcecd.watch.bracket import EncounterRow, bracket_rows, bracket_title, place_label
from tcecd.watch.model import EventView, GameView, ticking_clocks

BOARD_WIDTH = 21  # "8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜" plus margin


def clock(ms: int | None) -> str:
    """``3725000`` -> ``"1:02:05"``; under ten minutes mm:ss.t, ``83450`` ->
    ``"01:23.4"`` (tenths cut, not rounded: a clock never shows more time than
    is left); None -> ``"-:--:--"``."""
    if ms is None:
        return "-:--:--"
    ms = max(ms, 0)
    if ms < 600_000:
        return f"{ms // 60_000:02d}:{ms // 1000 % 60:02d}.{ms // 100 % 10}"
    s = ms // 1000
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def count(n: int | None) -> str:
    """Human node counts: ``4790982640`` -> ``"4.79G"``."""
    if n is None:
        return "-"
    for unit, size in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if n >= size:
            return f"{n / size:.2f}{unit}"
    return str(n)


def board_lines(fen: str | None) -> list[str]:
    """The position, White at the bottom, ranks and files labelled."""
    try:
        board = chess.Board(fen) if fen else chess.Board()
    except ValueError:
        return [f"(bad FEN: {fen})"]
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            piece = board.piece_at(chess.square(file, rank))
            cells.append(piece.unicode_symbol() if piece else "·")
        lines.append(f"{rank + 1} " + " ".join(cells))
    lines.append("  a b c d e f g h")
    return lines


def _eval_text(last: dict[str, Any] | None) -> str:
    if not last:
        return "-"
    ev = last.get("eval")
    if last.get("book"):
        return "book"
    if not ev:
        return "-"
    text = str(ev.get("text", "-"))
    if ev.get("cp") is not None and ev["cp"] >= 0:
        text = "+" + text
    return text


def _start(fen: str | None) -> tuple[int, bool]:
    """(full-move number, White to move) of a start position."""
    try:
        board = chess.Board(fen) if fen else chess.Board()
    except ValueError:
        return 1, True
    return board.fullmove_number, board.turn == chess.WHITE


def move_number(fen_after: str | None, san: str) -> str:
    """``"20. g3"`` or ``"19... Nc6"``, read from the position after the move
    (exact for games that start from any FEN)."""
    try:
        board = chess.Board(fen_after) if fen_after else None
    except ValueError:
        board = None
    if board is None:
        return san
    if board.turn == chess.BLACK:  # White just moved
        return f"{board.fullmove_number}. {san}"
    return f"{board.fullmove_number - 1}... {san}"


def _moves_text(moves: list[str], start_fen: str | None, width: int, rows: int) -> list[str]:
    """Numbered moves from the game's start position, the last ones that fit
    in ``rows`` lines of ``width``."""
    number, white = _start(start_fen)
    tokens = []
    for i, san in enumerate(moves):
        if white:
            tokens.append(f"{number}. {san}")
        else:
            tokens.append(f"{number}... {san}" if i == 0 else san)
            number += 1
        white = not white
    lines: list[str] = []
    current = ""
    for tok in tokens:
        if current and len(current) + 1 + len(tok) > width:
            lines.append(current)
            current = tok
        else:
            current = f"{current} {tok}".strip()
    if current:
        lines.append(current)
    return lines[-rows:]


def pv_text(fen: str | None, sans: list[str]) -> str:
    """A PV as numbered SAN from the position ``fen`` (``"12. Nf3 d5"``,
    ``"11... Nc6 12. Nf3"``)."""
    number, white = _start(fen)
    out = []
    for i, san in enumerate(sans):
        if white:
            out.append(f"{number}. {san}")
        else:
            out.append(f"{number}... {san}" if i == 0 else san)
            number += 1
        white = not white
    return " ".join(out)


def kibitzer_line(doc: dict[str, Any], width: int = 56, *, numbered: bool = True) -> str:
    """One kibitzer's report on one line: ``"K1 Stockfish +0.25 d22/30 1.20M:
    12. Nf3 d5 ..."`` (its evaluation from White's point of view); without
    ``numbered``, no ``K1`` and no evaluation (shown beside it)."""
    n = doc.get("kibitzer")
    number = n + 1 if isinstance(n, int) else "?"
    depth = doc.get("depth")
    sel = doc.get("seldepth")
    head = (f"K{number} {doc.get('engine', '?')} {_eval_text(doc)}" if numbered
            else str(doc.get("engine", "?")))
    head += (f" d{depth if depth is not None else '-'}/{sel if sel is not None else '-'}"
             f" {count(doc.get('nodes'))}")
    line = f"{head}: {pv_text(doc.get('fen'), [str(m) for m in doc.get('pv') or []]) or '-'}"
    return line if len(line) <= width else line[: width - 1] + "…"


def result_text(view: EventView, game: str) -> str:
    """A finished game's result with its reason (``1/2-1/2 (TCEC draw rule)``);
    ``...`` while it runs, ``""`` before it starts."""
    res = view.result_of(game)
    if res is None:
        return "..." if game in view.games else ""
    reason = view.reason_of(game)
    return f"{res} ({reason})" if reason else res


def clocks_now(view: EventView, g: GameView, now: float | None) -> tuple[int | None, int | None]:
    """The clocks to show: ticking while the daemon is online and the game runs."""
    return ticking_clocks(g, now if view.status == "online" else None)


def opening_text(g: GameView) -> str:
    """The game's opening, and ``(Chess960)`` for a Chess960 game whose
    opening's name does not say so."""
    text = g.opening or "-"
    if g.chess960 and "960" not in text:
        text += " (Chess960)"
    return text


def game_lines(view: EventView, g: GameView, now: float | None = None) -> list[str]:
    """Board on the left; players, clocks, evaluation, PV and moves on the right.
    ``now`` (epoch seconds): count the side to move's clock down."""
    last = g.last or {}
    white, black = view.player_name(g.white), view.player_name(g.black)
    status = result_text(view, g.game) if g.result else "playing"
    white_ms, black_ms = clocks_now(view, g, now)
    info = [
        f"Game {g.game}: {white} - {black}  [{status}]",
        f"Opening: {opening_text(g)}",
        f"White {white:<16} {clock(white_ms)}",
        f"Black {black:<16} {clock(black_ms)}",
    ]
    if last:
        played = move_number(last.get("fen"), str(last.get("san", "?")))
        info.append(f"Last: {played}  eval {_eval_text(last)}"
                    f"  d {last.get('depth') or '-'}/{last.get('seldepth') or '-'}")
        nps = last.get("nps")
        info.append(f"Nodes {count(last.get('nodes'))}  speed {count(nps)}"
                    f"{'nps' if nps else ''}  tb {count(last.get('tbhits'))}")
        pv = " ".join(last.get("pv") or [])
        info.append(f"PV: {pv[:56] or '-'}")
    else:
        info += ["Last: -", "", ""]
    info += [kibitzer_line(k) for k in view.kibitzers_of(g.game)]
    info += _moves_text(g.moves, g.start_fen, 56, max(2, 9 - len(info) + 4))
    board = board_lines(g.fen)
    rows = max(len(board), len(info))
    board += [""] * (rows - len(board))
    info += [""] * (rows - len(info))
    return [f"{b:<{BOARD_WIDTH}} {i}".rstrip() for b, i in zip(board, info, strict=True)]


def pairing_lines(view: EventView) -> list[str]:
    rnd = view.current_round
    if rnd is None:
        return ["Pairings: -"]
    p = view.pairings[rnd]
    total = (view.meta or {}).get("rounds")
    lines = [f"Round {rnd}{f'/{total}' if total else ''} pairings"]
    for g in p.get("games", []):
        res = result_text(view, str(g.get("game")))
        lines.append(f"  {g.get('game', '?'):<6} {view.player_name(g['white']):<18}"
                     f" - {view.player_name(g['black']):<18} {res}".rstrip())
    if p.get("bye"):
        lines.append(f"  BYE: {view.player_name(p['bye'])}")
    if p.get("removed_history_rounds"):
        removed = ", ".join(str(r) for r in p["removed_history_rounds"])
        lines.append(f"  history removed: round(s) {removed}")
    return lines


def encounter_score(e: EncounterRow) -> str:
    """``1.5-0.5`` once the encounter's round has started (a BYE: none)."""
    if e.status not in ("playing", "decided") or not (e.upper.score or e.lower.score):
        return ""
    return f"{e.upper.score or '0'}-{e.lower.score or '0'}"


def encounter_outcome(e: EncounterRow) -> str:
    """``-> Delta 4`` (who advanced), ``playing`` or ""."""
    if e.winner:
        return f"-> {e.winner}"
    return "playing" if e.playing else ""


def bracket_lines(view: EventView) -> list[str]:
    """A knockout cup's bracket (nothing for other events): per round its
    encounters, one line each (places with seeds, points, the games from the
    upper place's side, who advanced), and the reason under a decision the
    points do not explain."""
    rounds = bracket_rows(view)
    if not rounds:
        return []
    lines = [bracket_title(view)]
    for r in rounds:
        lines.append(f"{r.name} ({r.status})")
        for e in r.encounters:
            lines.append(f"  {place_label(e.upper):<22} {encounter_score(e):^9} "
                         f"{place_label(e.lower):<22} {e.marks:<9} "
                         f"{encounter_outcome(e)}".rstrip())
            if e.note:
                lines.append(f"      {e.note}")
    return lines


def standings_title(st: dict[str, Any]) -> str:
    """``Final standings``, ``Standings after round 3``, or during round 1 (the
    standings after round 0) ``Standings before round 1``."""
    if st.get("final"):
        return "Final standings"
    after = st.get("after_round")
    if after == 0:
        return "Standings before round 1"
    return f"Standings after round {after}"


#: Column labels of the tiebreaks: FIDE's abbreviations (Tie-Break Regulations, C.07),
#: so that a standings table of the default three fits 80 columns with long names.
TIEBREAK_LABELS = {
    "black-games": "BPG",
    "sonneborn-berger": "SB",
    "buchholz": "BH",
    "buchholz-cut1": "BH-C1",
    "wins": "WIN",
    "direct-encounter": "DE",
}


def tiebreak_label(name: str) -> str:
    """A tiebreak's column label (its own name when it has no short one)."""
    return TIEBREAK_LABELS.get(name, name)


def tiebreak_legend(names: list[str]) -> str:
    """``BPG black-games, SB sonneborn-berger, WIN wins`` for the labels shown."""
    return ", ".join(f"{TIEBREAK_LABELS[n]} {n}" for n in names if n in TIEBREAK_LABELS)


def standings_lines(view: EventView) -> list[str]:
    st = view.standings
    if not st:
        return ["Standings: -"]
    title = standings_title(st)
    lines = [title]
    rows = st.get("rows", [])
    legend = tiebreak_legend(list((rows[0].get("tiebreaks") or {}) if rows else []))
    for row in rows:
        pid = str(row.get("id"))
        tbs = "  ".join(
            f"{tiebreak_label(k)} {v:g}" for k, v in (row.get("tiebreaks") or {}).items()
        )
        eng = view.engines.get(pid, {})
        flag = " DQ" if eng.get("disqualified") else (
            f" strikes {eng['strikes']}" if eng.get("strikes") else "")
        lines.append(f"  {row.get('rank', '?'):>2}. {view.player_name(pid):<18}"
                     f" {row.get('score', 0):>5g} / {row.get('games', 0):<3} {tbs}{flag}".rstrip())
    if legend:
        lines.append(f"  ({legend})")
    return lines


def forecast_lines(view: EventView, *, players: int = 8, places: int = 4) -> list[str]:
    """The forecast section (empty when the daemon publishes none): the
    ``players`` best expected places, with P(place) for the first ``places``
    places. Either frame layout can call it."""
    if not view.forecast:
        return []
    from tcecd.forecast.text import forecast_lines as table

    return table(view.forecast, places=places, players=players)


def render(view: EventView | None, *, source: str = "", now: float | None = None) -> str:
    """One frame for ``view`` (None: still waiting for data); ``now`` (epoch
    seconds) makes the running game's clock tick (None: as last reported)."""
    if view is None:
        return f"tcecd watch: waiting for an event on {source or 'the broker'} ...\n"
    head = f"{view.name or view.slug}  [{view.status or 'status unknown'}]"
    meta = view.meta or {}
    if meta:
        head += f"  {meta.get('system', '')} {meta.get('time_control', '')}".rstrip()
    lines = [head, "=" * min(len(head), 78)]
    g = view.current_game
    if g is not None:
        lines += game_lines(view, g, now)
    else:
        lines.append("No game yet.")
    lines.append("")
    lines += pairing_lines(view)
    if view.bracket:
        lines += ["", *bracket_lines(view)]
    lines.append("")
    lines += standings_lines(view)
    if view.forecast:
        lines += ["", *forecast_lines(view)]
    if view.finished:
        winner = view.player_name(str(view.finished.get("winner")))
        lines += ["", f"Event finished. Winner: {winner}"]
    if view.faults:
        lines += ["", "Recent engine faults:"]
        for f in view.faults:
            what = f.get("kind") or f.get("type")
            who = view.player_name(str(f.get("engine")))
            detail = f.get("detail") or f.get("reason") or ""
            lines.append(f"  {who}: {what} {detail} (game {f.get('game') or '-'})")
    footer = rejected_note(view)
    if footer:
        lines += ["", footer]
    return "\n".join(lines) + "\n"


def rejected_note(view: EventView) -> str:
    """The footer telling how many messages broke the schema and were skipped
    (issue 28: a bad message is counted, never a crash), with the last reason."""
    if not view.rejected:
        return ""
    n = view.rejected
    return (f"{n} malformed message{'s' if n != 1 else ''} skipped "
            f"(last: {view.last_rejected})")
