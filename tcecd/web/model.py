"""The web page's state: the MQTT stream as page sections, snapshots and deltas. Pure.

The stream is interpreted once, by ``tcecd watch``'s view-model
(:class:`tcecd.watch.model.Watcher` / :class:`~tcecd.watch.model.EventView`);
:class:`PageModel` feeds it every message and adds what a web page shows and
the terminal does not: every move's evaluation and depth (the evaluation
graph), the crosstable and the forecast. From that it builds *sections*
(plain JSON values: ``event``, ``game``, ``round``, ``standings``,
``bracket`` (a knockout cup's), ``crosstable``, ``engines``, ``forecast``)
and, per message, the protocol
messages for the browsers (docs/web.md):

* ``{"t": "snapshot", "seq": n, "sections": {...}}`` on connect;
* ``{"t": "delta", "seq": n, "sections": {<changed sections only>}}``;
* ``{"t": "move", "seq": n, "game": id, "head": {...}, "move": {...}}`` when the
  followed game got exactly one more ply (the page appends it; a delta with
  the whole ``game`` section otherwise).

The *followed* game is the running game the page shows: it stays the same
until it ends (two games may run at once with ``concurrency`` > 1), then the
running game updated last, else the game that ended last.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.pgn

from tcecd.bus.inbound import InvalidPayload, UnknownPayload, parse, printable
from tcecd.outputs.tcec_json import abbreviations
from tcecd.watch.bracket import Place, bracket_rows
from tcecd.watch.model import EventView, GameView, Watcher
from tcecd.watch.render import move_number

JsonDict = dict[str, Any]

SECTIONS = ("event", "game", "round", "standings", "bracket", "crosstable", "engines",
            "forecast", "kibitzers", "console")
#: Commands of the audit log the page shows (newest first).
AUDIT_ROWS = 20


@dataclass
class _Extra:
    """Per event: what the watch model does not keep."""

    run_id: str | None = None
    moves: dict[str, list[JsonDict]] = field(default_factory=dict)  # game -> per-ply summaries
    crosstable: JsonDict | None = None
    forecast: JsonDict | None = None
    clock_ts: dict[str, str] = field(default_factory=dict)  # game -> ts its clocks were read
    audit: JsonDict | None = None  # the console's audit log
    console: JsonDict | None = None  # what the console decided


def move_summary(doc: JsonDict) -> JsonDict:
    """A ``move`` payload as one entry of the page's move list (what the list,
    the graph and the info line need)."""
    ev = doc.get("eval") or {}
    return {
        "ply": doc.get("ply"),
        "san": doc.get("san"),
        "uci": doc.get("uci"),
        "book": bool(doc.get("book")),
        "eval": ev.get("text"),
        "cp": ev.get("cp"),
        "mate": ev.get("mate"),
        "depth": doc.get("depth"),
        "seldepth": doc.get("seldepth"),
        "nodes": doc.get("nodes"),
        "nps": doc.get("nps"),
        "mt": doc.get("move_time_ms"),
    }


def _pgn_summaries(pgn: str) -> list[JsonDict]:
    """Per-ply summaries from a finished game's PGN (its move comments)."""
    from tcecd.replay.moves import move_records

    game = chess.pgn.read_game(io.StringIO(pgn))
    if game is None:
        return []
    out = []
    for m in move_records(game):
        score = m.score
        out.append({
            "ply": m.ply, "san": m.san, "uci": m.uci, "book": m.book,
            "eval": None if score is None else score.pgn(),
            "cp": None if score is None else score.cp,
            "mate": None if score is None else score.mate,
            "depth": m.depth, "seldepth": m.seldepth, "nodes": m.nodes, "nps": m.nps,
            "mt": m.move_time_ms,
        })
    return out


def _sans_summaries(sans: list[str], known: list[JsonDict]) -> list[JsonDict]:
    """The move list of a snapshot (SAN only), keeping what is known per ply."""
    by_ply = {m.get("ply"): m for m in known}
    out = []
    for ply, san in enumerate(sans, start=1):
        m = by_ply.get(ply)
        out.append(m if m is not None and m.get("san") == san else {"ply": ply, "san": san})
    return out


def _turn(fen: str | None, moves: int) -> str:
    if fen:
        parts = fen.split()
        if len(parts) > 1:
            return parts[1]
    return "w" if moves % 2 == 0 else "b"


class PageModel:
    """See the module docstring. ``apply(topic, payload)`` returns the protocol
    messages to send to every connected page (possibly none)."""

    def __init__(self, prefix: str = "tcecd", event: str | None = None) -> None:
        self.watcher = Watcher(prefix, event)
        #: The topic prefix's levels (the page always follows a given prefix).
        self.prefix: list[str] = prefix.strip("/").split("/")
        self.extras: dict[str, _Extra] = {}
        self.followed: str | None = None
        self.seq = 0
        self.sections: JsonDict = dict.fromkeys(SECTIONS)
        self._slug: str | None = None
        #: Messages skipped because their payload is not what docs/events.md
        #: describes on their topic (:mod:`tcecd.bus.inbound`), and why the last one was.
        self.skipped = 0
        self.skip_reason: str | None = None
        #: The last message :meth:`apply` took, checked: (event slug, topic levels
        #: below it, the document or None for a deleted one); None when it was
        #: skipped or ignored. ``tcecd web`` hands it on to TCEC's feed.
        self.accepted: tuple[str, list[str], JsonDict | None] | None = None

    # -- input --------------------------------------------------------------------------

    def apply(self, topic: str, payload: bytes) -> list[JsonDict]:
        self.accepted = None
        levels = topic.split("/")
        n = len(self.prefix)
        if levels[:n] != self.prefix or len(levels) < n + 2:
            return []
        slug, rest = levels[n], levels[n + 1:]
        if self.watcher.event is not None and slug != self.watcher.event:
            return []
        try:
            doc = parse(rest, payload)
        except UnknownPayload:
            # A topic tcecd does not publish, another schema version: ignored
            # (docs/events.md), not counted.
            return []
        except InvalidPayload as exc:
            # A stranger's (or a broken) message: skipped, so that only the
            # documented types reach the pages, the TCEC feed and the watch model.
            self.skipped += 1
            self.skip_reason = printable(f"{'/'.join(levels)}: {exc}")
            return []
        self.accepted = (slug, rest, doc)
        extra = self.extras.setdefault(slug, _Extra())
        changed = self._apply_extra(extra, rest, doc, payload)
        changed = self.watcher.apply(topic, payload, checked=doc) or changed
        view = self.watcher.views.get(slug)
        if view is not None and view.run_id != extra.run_id:
            if extra.run_id is not None:  # another instance of the event: forget the old one
                extra = self.extras[slug] = _Extra()
                self.followed = None
            extra.run_id = view.run_id
        if view is not None and rest[:1] == ["game"] and len(rest) == 3 and doc:
            self._track_moves(view, extra, rest[1], rest[2], doc)
        if not changed:
            return []
        return self._diff(rest)

    def _apply_extra(self, extra: _Extra, rest: list[str], doc: JsonDict | None,
                     payload: bytes) -> bool:  # fmt: skip
        """Topics the watch model leaves out: the crosstable and the forecast."""
        if rest == ["crosstable"]:
            extra.crosstable = doc if doc or not payload else extra.crosstable
            return True
        if rest == ["forecast"]:
            extra.forecast = doc if doc or not payload else extra.forecast
            return True
        if rest in (["audit"], ["console"]):
            setattr(extra, rest[0], doc)
            return True
        return False

    def _track_moves(self, view: EventView, extra: _Extra, gid: str, kind: str,
                     doc: JsonDict) -> None:  # fmt: skip
        moves = extra.moves.setdefault(gid, [])
        if kind == "move":
            if doc.get("ply") == len(moves) + 1:
                moves.append(move_summary(doc))
            elif isinstance(doc.get("ply"), int) and doc["ply"] <= len(moves):
                moves[doc["ply"] - 1] = move_summary(doc)  # a repeat (resume): same ply
            extra.clock_ts[gid] = str(doc.get("ts") or "")
        elif kind == "live":
            g = view.games.get(gid)
            if g is not None and len(g.moves) != len(moves):
                extra.moves[gid] = _sans_summaries(g.moves, moves)
                last = doc.get("last")
                if isinstance(last, dict) and extra.moves[gid]:
                    extra.moves[gid][-1] = move_summary(last)
            last = doc.get("last")
            extra.clock_ts[gid] = str((last or {}).get("ts") or doc.get("ts") or "")
        elif kind == "start":
            extra.clock_ts.setdefault(gid, str(doc.get("start_time") or doc.get("ts") or ""))
        elif kind == "end":
            pgn = doc.get("pgn")
            plies = doc.get("plies")
            lacking = len(moves) != plies or any(
                m.get("eval") is None and not m.get("book") for m in moves)
            if isinstance(pgn, str) and lacking:
                # A PGN this reader cannot take: keep what the moves said.
                with contextlib.suppress(ValueError, KeyError):
                    extra.moves[gid] = _pgn_summaries(pgn) or moves

    # -- output -------------------------------------------------------------------------

    def snapshot(self) -> JsonDict:
        return {"t": "snapshot", "seq": self.seq, "sections": dict(self.sections)}

    def _diff(self, rest: list[str]) -> list[JsonDict]:
        old_game = self.sections["game"]
        if rest[:1] == ["game"] and rest[-1:] in (["move"], ["live"]):
            names: tuple[str, ...] = ("game",)
        elif rest[:1] == ["kibitzer"]:
            names = ("kibitzers",)
        else:
            names = SECTIONS
        changed: JsonDict = {}
        for name in names:
            value = getattr(self, f"_section_{name}")()
            if value != self.sections[name]:
                self.sections[name] = value
                changed[name] = value
        if not changed:
            return []
        self.seq += 1
        new_game = changed.get("game")
        if (list(changed) == ["game"] and old_game is not None and new_game is not None
                and old_game["id"] == new_game["id"]
                and len(new_game["moves"]) == len(old_game["moves"]) + 1
                and new_game["moves"][:-1] == old_game["moves"]):
            head = {k: v for k, v in new_game.items() if k != "moves"}
            return [{"t": "move", "seq": self.seq, "game": new_game["id"], "head": head,
                     "move": new_game["moves"][-1]}]
        return [{"t": "delta", "seq": self.seq, "sections": changed}]

    @property
    def view(self) -> EventView | None:
        return self.watcher.selected

    def _extra(self) -> _Extra:
        v = self.view
        return self.extras.get(v.slug, _Extra()) if v is not None else _Extra()

    def _followed(self, view: EventView) -> GameView | None:
        g = view.games.get(self.followed) if self.followed else None
        if g is not None and g.result is None:
            return g
        g = view.current_game
        if g is not None and (g.result is None or self.followed not in view.games):
            self.followed = g.game
        return view.games.get(self.followed) if self.followed else g

    def _section_event(self) -> JsonDict | None:
        v = self.view
        if v is None:
            return None
        meta = v.meta or {}
        fin = v.finished
        return {
            "slug": v.slug, "name": v.name, "status": v.status, "status_ts": v.status_ts,
            "site": meta.get("site"), "system": meta.get("system"),
            "rounds": meta.get("rounds"), "double": meta.get("double"),
            "time_control": meta.get("time_control"), "run_id": v.run_id,
            "finished": None if fin is None else {
                "winner": v.player_name(str(fin.get("winner"))) if fin.get("winner") else None},
        }

    def _section_game(self) -> JsonDict | None:
        v = self.view
        if v is None:
            return None
        g = self._followed(v)
        if g is None:
            return None
        extra = self._extra()
        moves = extra.moves.get(g.game, [])
        last = g.last or {}
        ev = last.get("eval") or {}
        rnd = g.game.split(".")[0]
        return {
            "id": g.game, "round": int(rnd) if rnd.isdigit() else None,
            "white": {"id": g.white, "name": v.player_name(g.white)},
            "black": {"id": g.black, "name": v.player_name(g.black)},
            "opening": g.opening, "start_fen": g.start_fen, "fen": g.fen,
            "chess960": g.chess960,
            "turn": _turn(g.fen, len(g.moves)),
            "white_clock_ms": g.white_clock_ms, "black_clock_ms": g.black_clock_ms,
            "clock_ts": extra.clock_ts.get(g.game) or None,
            "result": g.result, "termination": g.termination,
            "last": None if not last else {
                "ply": last.get("ply"), "san": last.get("san"), "uci": last.get("uci"),
                # Numbered as in the PGN ("49. Rxd4", "24... Nc6"), from its position.
                "label": move_number(last.get("fen"), str(last.get("san") or "?")),
                "eval": ev.get("text"), "depth": last.get("depth"),
                "seldepth": last.get("seldepth"), "nodes": last.get("nodes"),
                "nps": last.get("nps"), "tbhits": last.get("tbhits"),
                "pv": last.get("pv") or [], "book": bool(last.get("book")),
            },
            "moves": list(moves),  # a copy: the diff compares with the last one sent
        }

    def _section_round(self) -> JsonDict | None:
        v = self.view
        if v is None or v.current_round is None:
            return None
        r = v.current_round
        doc = v.pairings[r]
        games = []
        for entry in doc.get("games", []):
            gid = str(entry.get("game"))
            gv = v.games.get(gid)
            term = None
            for s in v.schedule:
                if s.get("game") == gid:
                    term = s.get("termination")
            games.append({
                "game": gid, "white": v.player_name(str(entry.get("white"))),
                "black": v.player_name(str(entry.get("black"))), "result": v.result_of(gid),
                "termination": term,
                "running": gv is not None and gv.result is None,
            })
        bye = doc.get("bye")
        return {"round": r, "rounds": (v.meta or {}).get("rounds"),
                "bye": v.player_name(str(bye)) if bye else None, "games": games}

    def _section_standings(self) -> JsonDict | None:
        v = self.view
        if v is None or v.standings is None:
            return None
        rows = []
        names: list[str] = []
        for row in v.standings.get("rows", []):
            pid = str(row.get("id"))
            tb = row.get("tiebreaks") or {}
            names = names or list(tb)
            eng = v.engines.get(v.player_name(pid)) or v.engines.get(pid) or {}
            rows.append({
                "rank": row.get("rank"), "id": pid, "name": v.player_name(pid),
                "score": row.get("score"), "games": row.get("games"), "byes": row.get("byes"),
                "tiebreaks": tb, "strikes": eng.get("strikes", 0),
                "disqualified": bool(eng.get("disqualified")),
            })
        return {"after_round": v.standings.get("after_round"),
                "final": bool(v.standings.get("final")), "tiebreaks": names, "rows": rows}

    def _section_bracket(self) -> JsonDict | None:
        """A knockout cup's bracket (docs/events.md, ``bracket``), as ``tcecd
        watch`` shows it (:func:`tcecd.watch.bracket.bracket_rows`): rounds in
        order, each encounter's two places (name, seed, points, who advanced),
        its games as marks from the upper place's side and the reason of a
        decision the points do not explain."""
        v = self.view
        if v is None or not v.bracket:
            return None
        doc = v.bracket
        tb = doc.get("tiebreak") or {}

        def place(p: Place) -> JsonDict:
            return {"name": p.name, "seed": p.seed, "score": p.score, "won": p.won,
                    "lost": p.lost, "disqualified": p.disqualified}

        champion = doc.get("champion")
        return {
            "players": doc.get("players"), "games": doc.get("games"),
            "tiebreak_time_control": tb.get("time_control"),
            "tiebreak_max_games": tb.get("max_games"),
            "status": doc.get("status"),
            "champion": v.player_name(str(champion)) if champion else None,
            "rounds": [
                {"round": r.number, "name": r.name, "status": r.status, "encounters": [
                    {"encounter": e.number, "status": e.status,
                     "places": [place(e.upper), place(e.lower)], "marks": e.marks,
                     "winner": e.winner, "note": e.note}
                    for e in r.encounters]}
                for r in bracket_rows(v)
            ],
        }

    def _section_crosstable(self) -> JsonDict | None:
        v = self.view
        doc = self._extra().crosstable
        if v is None or not doc:
            return None
        rows: list[tuple[str, JsonDict]] = []
        cells: dict[str, dict[str, str]] = {}
        if doc.get("format") == "tcec" and isinstance(doc.get("crosstable"), dict):
            ct = doc["crosstable"]
            table = ct.get("Table", {})
            for name in ct.get("Order", []):
                row = table.get(name, {})
                rows.append((name, {"rank": row.get("Rank"), "score": row.get("Score")}))
                cells[name] = {opp: str(r.get("Text", ""))
                               for opp, r in (row.get("Results") or {}).items()}
        else:
            table = doc.get("table", {})
            for pid in doc.get("order", []):
                row = table.get(pid, {})
                name = v.player_name(pid)
                rows.append((name, {"rank": row.get("rank"), "score": row.get("score")}))
                cells[name] = {
                    v.player_name(opp): "".join(str(x.get("result", "")) for x in res)
                    for opp, res in (row.get("results") or {}).items()
                }
        # The column heads: unique, recognisable short names (the page shows the
        # whole name on hover), the same as crosstable.json's Abbreviation.
        abbr = abbreviations([name for name, _ in rows])
        players = [{"name": name, "abbr": abbr[name], **row} for name, row in rows]
        return {"players": players, "cells": cells}

    def _section_engines(self) -> JsonDict | None:
        v = self.view
        if v is None:
            return None
        engines = [
            {"name": v.player_name(str(d.get("engine"))), "strikes": d.get("strikes", 0),
             "disqualified": bool(d.get("disqualified")), "reason": d.get("reason")}
            for d in v.engines.values()
        ]
        faults = [
            {"ts": f.get("ts"), "type": f.get("type"),
             "engine": v.player_name(str(f.get("engine"))), "game": f.get("game"),
             "kind": f.get("kind") or "disqualified",
             "detail": f.get("detail") or f.get("reason"), "strikes": f.get("strikes")}
            for f in v.faults
        ]
        return {"engines": engines, "faults": faults}

    def _section_forecast(self) -> JsonDict | None:
        """The ``forecast`` document (docs/events.md): one row per engine in
        order of expected place, with what the page's table shows."""
        doc = self._extra().forecast
        if not doc:
            return None
        return {
            "after_round": doc.get("after_round"), "after_game": doc.get("after_game"),
            "total_rounds": doc.get("total_rounds"), "simulations": doc.get("simulations"),
            "top": doc.get("top"),
            "players": [
                {"name": p.get("name") or p.get("id"), "score": p.get("score"),
                 "expected_score": p.get("expected_score"),
                 "expected_place": p.get("expected_place"), "top": p.get("top"),
                 "places": p.get("places") or []}
                for p in doc.get("players", [])
            ],
        }

    def _section_kibitzers(self) -> list[JsonDict] | None:
        """The kibitzers' latest reports on the followed game (evaluation from
        White's point of view, the PV numbered from the analysed position)."""
        from tcecd.watch.render import pv_text

        v = self.view
        g = self._followed(v) if v is not None else None
        if v is None or g is None:
            return None
        out = []
        for doc in v.kibitzers_of(g.game):
            ev = doc.get("eval") or {}
            out.append({
                "n": doc.get("kibitzer"), "engine": doc.get("engine"), "desc": doc.get("desc"),
                "game": doc.get("game"), "ply": doc.get("ply"), "eval": ev.get("text"),
                "cp": ev.get("cp"), "mate": ev.get("mate"), "depth": doc.get("depth"),
                "seldepth": doc.get("seldepth"), "nodes": doc.get("nodes"),
                "nps": doc.get("nps"), "tbhits": doc.get("tbhits"), "wdl": doc.get("wdl"),
                "pv": pv_text(doc.get("fen"), [str(m) for m in doc.get("pv") or []]),
            })
        return out or None

    def _section_console(self) -> JsonDict | None:
        """The operator's console: paused or not, withdrawn and replaced engines,
        and the latest commands of its audit log (docs/running.md)."""
        import json

        extra = self._extra()
        state, audit = extra.console, extra.audit
        if state is None and audit is None:
            return None
        state = state or {}
        rows = []
        for e in reversed((audit or {}).get("entries", [])[-AUDIT_ROWS:]):
            args = json.dumps(e.get("args") or {}, separators=(",", ":"), ensure_ascii=False)
            note = e.get("error") if not e.get("ok") else json.dumps(
                e.get("effect") or {}, separators=(",", ":"), ensure_ascii=False)
            if e.get("command") == "status":
                note = ""
            rows.append(printable({"seq": e.get("seq"), "received": e.get("received"),
                                   "command": e.get("command"), "args": args[:200],
                                   "ok": bool(e.get("ok")), "note": (note or "")[:200]}))
        return {
            "paused": bool(state.get("paused")),
            "concurrency": state.get("concurrency"),
            "withdrawn": printable([{"engine": k, "round": v.get("round"),
                                     "reason": v.get("reason")}
                                    for k, v in (state.get("withdrawn") or {}).items()]),
            "replaced": printable([{"engine": k, "command": " ".join(v.get("command") or [])}
                                   for k, v in (state.get("replaced") or {}).items()]),
            "audit": rows,
        }
