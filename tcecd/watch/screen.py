"""The terminal screen of ``tcecd watch``: an :class:`~tcecd.watch.model.EventView`
laid out and coloured with rich. Pure (``now`` is passed in).

Every string from a payload goes into a :class:`~rich.text.Text` (never a plain
``str`` cell, which rich reads as markup: a name ``[blink]...`` or ``[link=...]``
must show as written; issue 28). The view-model has already replaced control
characters.

The content is the plain frame's (:mod:`tcecd.watch.render`, whose helpers it
uses): the board (light and dark squares), players and clocks (the side to
move's clock highlighted and ticking), the last move with evaluation, depth,
nodes, speed and PV, the moves, the round's pairings with results (draws with
their reason), the standings, a knockout cup's bracket, the winner and the latest
engine faults.
"""

from __future__ import annotations

from typing import Any

import chess
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from tcecd.watch.bracket import Place, bracket_rows, bracket_title, place_label
from tcecd.watch.model import EventView, GameView
from tcecd.watch.render import (
    _eval_text,
    _moves_text,
    clock,
    clocks_now,
    count,
    encounter_outcome,
    encounter_score,
    kibitzer_line,
    move_number,
    opening_text,
    rejected_note,
    result_text,
    standings_title,
    tiebreak_label,
    tiebreak_legend,
)

_LIGHT, _DARK = "on #b0a080", "on #806040"


def board(fen: str | None) -> Text:
    """The position with coloured squares, White at the bottom."""
    try:
        b = chess.Board(fen) if fen else chess.Board()
    except ValueError:
        return Text(f"(bad FEN: {fen})", style="red")
    out = Text()
    for rank in range(7, -1, -1):
        out.append(f"{rank + 1} ", style="dim")
        for file in range(8):
            piece = b.piece_at(chess.square(file, rank))
            square = _LIGHT if (rank + file) % 2 else _DARK
            glyph = chess.UNICODE_PIECE_SYMBOLS[piece.symbol().lower()] if piece else " "
            colour = "bold white" if piece and piece.color == chess.WHITE else "bold black"
            out.append(f"{glyph} ", style=f"{colour} {square}")
        out.append("\n")
    out.append("  a b c d e f g h", style="dim")
    return out


def _result_style(res: str) -> str:
    if res.startswith("1/2"):
        return "yellow"
    if res.startswith(("1-0", "0-1")):
        return "bold"
    return "cyan" if res == "..." else ""


def game_panel(view: EventView, g: GameView, now: float | None) -> RenderableType:
    """Board on the left; players, clocks and the engine's output on the right."""
    last = g.last or {}
    white, black = view.player_name(g.white), view.player_name(g.black)
    white_ms, black_ms = clocks_now(view, g, now)
    running = g.result is None
    white_moves = g.side_to_move_white()
    info = Table.grid(padding=(0, 1))
    info.add_column()
    info.add_column()
    info.add_column(justify="right")
    status = Text("playing", style="cyan") if running else Text(
        result_text(view, g.game), style=_result_style(g.result or ""))
    # The players have rows of their own (at 80 columns the pair here was cut in two).
    info.add_row(Text(f"Game {g.game}", style="bold"), "", status)
    info.add_row("Opening", Text(opening_text(g)), "")
    for label, name, ms, to_move in (("White", white, white_ms, white_moves),
                                     ("Black", black, black_ms, not white_moves)):
        low = ms is not None and ms < 60_000
        style = ("bold red" if low else "bold green") if running and to_move else "dim"
        info.add_row(label, Text(name), Text(clock(ms), style=style))
    if last:
        played = move_number(last.get("fen"), str(last.get("san", "?")))
        info.add_row("Last", Text(played, style="bold"),
                     Text(_eval_text(last), style=_eval_style(last)))
        info.add_row("Depth", Text(f"{last.get('depth') or '-'}/{last.get('seldepth') or '-'}"),
                     Text(f"nodes {count(last.get('nodes'))}"))
        nps = last.get("nps")
        info.add_row("Speed", Text(f"{count(nps)}{'nps' if nps else ''}"),
                     Text(f"tb {count(last.get('tbhits'))}"))
        info.add_row("PV", Text(" ".join(last.get("pv") or [])[:60] or "-", style="dim"), "")
    for kib in view.kibitzers_of(g.game):
        # Beside the players' line: the kibitzer's evaluation (White's view) and PV.
        info.add_row(f"Kib {kib.get('kibitzer', 0) + 1}",
                     Text(kibitzer_line(kib, 56, numbered=False), style="dim"),
                     Text(_eval_text(kib), style=_eval_style(kib)))
    moves = "\n".join(_moves_text(g.moves, g.start_fen, 60, 6))
    grid = Table.grid(padding=(0, 3))
    grid.add_column()
    grid.add_column()
    grid.add_row(board(g.fen), Group(info, Text(moves, style="dim")))
    return grid


class _Forecast:
    """The forecast table with as many ``P(place)`` columns (at most four) as the
    width leaves room for: a row never wraps into the next."""

    def __init__(self, view: EventView) -> None:
        self.view = view

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from tcecd.watch.render import forecast_lines

        for places in (4, 3, 2, 1, 0):
            lines = forecast_lines(self.view, places=places)
            if max((len(line) for line in lines[1:]), default=0) <= options.max_width:
                break
        yield Text("\n".join(lines), style="cyan")


class _Beside:
    """Two renderables side by side, ``gap`` columns apart, when both fit the width
    at their natural widths; else one above the other (at 80 columns the round's
    pairings and the standings no longer squeeze their names into a few letters)."""

    def __init__(self, left: RenderableType, right: RenderableType, gap: int = 4) -> None:
        self.left, self.right, self.gap = left, right, gap

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        left = Measurement.get(console, options, self.left).maximum
        right = Measurement.get(console, options, self.right).maximum
        if left + self.gap + right <= options.max_width:
            grid = Table.grid(padding=(0, self.gap))
            grid.add_column()
            grid.add_column()
            grid.add_row(self.left, self.right)
            yield grid
        else:
            yield self.left
            yield Text("")
            yield self.right


def _eval_style(last: dict[str, Any]) -> str:
    ev = last.get("eval") or {}
    cp, mate = ev.get("cp"), ev.get("mate")
    if mate is not None:
        return "bold magenta"
    if cp is None:
        return "dim"
    return "green" if cp > 50 else "red" if cp < -50 else ""


def pairings_table(view: EventView) -> RenderableType:
    rnd = view.current_round
    if rnd is None:
        return Text("Pairings: -", style="dim")
    p = view.pairings[rnd]
    total = (view.meta or {}).get("rounds")
    table = Table(title=f"Round {rnd}{f'/{total}' if total else ''} pairings", title_justify="left",
                  box=None, show_header=False, pad_edge=False, title_style="bold")
    for _ in range(4):
        table.add_column()
    for g in p.get("games", []):
        gid = str(g.get("game", "?"))
        res = result_text(view, gid)
        table.add_row(Text(gid), Text(view.player_name(g["white"])),
                      Text(view.player_name(g["black"])), Text(res, style=_result_style(res)))
    if p.get("bye"):
        table.add_row("BYE", Text(view.player_name(p["bye"])), "", "")
    return table


def standings_table(view: EventView) -> RenderableType:
    st = view.standings
    if not st:
        return Text("Standings: -", style="dim")
    table = Table(title=standings_title(st), title_justify="left", box=None, pad_edge=False,
                  title_style="bold", header_style="dim")
    table.add_column("#", justify="right")
    table.add_column("engine")
    table.add_column("score", justify="right")
    table.add_column("games", justify="right")
    rows = st.get("rows", [])
    names = [k for k in (rows[0].get("tiebreaks") or {})] if rows else []
    for name in names:
        # FIDE's short names (BPG, SB, WIN ...): a column as wide as its numbers.
        table.add_column(Text(tiebreak_label(name)), justify="right", style="dim")
    legend = tiebreak_legend(names)
    if legend:
        table.caption, table.caption_justify, table.caption_style = legend, "left", "dim"
    for row in rows:
        pid = str(row.get("id"))
        eng = view.engines.get(pid, {})
        flag = Text(" DQ", style="bold red") if eng.get("disqualified") else Text(
            f" strikes {eng['strikes']}", style="yellow") if eng.get("strikes") else Text("")
        tbs = row.get("tiebreaks") or {}
        table.add_row(Text(str(row.get("rank", "?"))), Text(view.player_name(pid)) + flag,
                      Text(f"{row.get('score', 0):g}"), Text(str(row.get("games", 0))),
                      *(Text(f"{tbs.get(n, 0):g}") for n in names))
    return table


def _place_style(p: Place) -> str:
    if p.disqualified:
        return "strike red"
    return "bold green" if p.won else "dim" if p.lost else ""


def bracket_table(view: EventView) -> RenderableType:
    """A knockout cup's bracket, laid out as :func:`~tcecd.watch.render.bracket_lines`:
    who advanced in green, who went out dimmed, a disqualified engine struck
    through in red, running encounters in cyan."""
    out = Text(bracket_title(view), style="bold")
    for r in bracket_rows(view):
        out.append(f"\n{r.name} ({r.status})", style="bold")
        for e in r.encounters:
            out.append("\n  ")
            out.append(f"{place_label(e.upper):<22}", style=_place_style(e.upper))
            out.append(f" {encounter_score(e):^9} ")
            out.append(f"{place_label(e.lower):<22}", style=_place_style(e.lower))
            out.append(f" {e.marks:<9} ", style="dim")
            out.append(encounter_outcome(e), style="cyan" if e.playing else "green")
            if e.note:
                out.append(f"\n      {e.note}", style="dim")
    return out


def screen(view: EventView | None, *, source: str = "", now: float | None = None,
           note: str = "") -> RenderableType:
    """The whole screen for ``view`` (None: still waiting for data)."""
    if view is None:
        parts: list[RenderableType] = [
            Text(f"tcecd watch: waiting for an event on {source or 'the broker'} ...")]
    else:
        meta = view.meta or {}
        head = Text(view.name or view.slug, style="bold")
        status = view.status or "status unknown"
        head.append(f"  [{status}]", style="green" if status == "online" else "red")
        head.append(f"  {meta.get('system', '')} {meta.get('time_control', '')}".rstrip(),
                    style="dim")
        parts = [head]
        g = view.current_game
        parts.append(game_panel(view, g, now) if g is not None else Text("No game yet."))
        parts += [Text(""), _Beside(pairings_table(view), standings_table(view))]
        if view.bracket:
            parts += [Text(""), bracket_table(view)]
        if view.forecast:
            parts += [Text(""), _Forecast(view)]
        if view.finished:
            winner = view.player_name(str(view.finished.get("winner")))
            parts.append(Text(f"Event finished. Winner: {winner}", style="bold green"))
        if view.faults:
            parts.append(Text("Recent engine faults:", style="bold yellow"))
            for f in view.faults:
                what = f.get("kind") or f.get("type")
                who = view.player_name(str(f.get("engine")))
                detail = f.get("detail") or f.get("reason") or ""
                parts.append(Text(f"  {who}: {what} {detail} (game {f.get('game') or '-'})",
                                  style="yellow"))
    footer = rejected_note(view) if view is not None else ""
    if footer:
        parts.append(Text(footer, style="yellow"))
    if note:
        parts.append(Text(note, style="red"))
    return Group(*parts)
