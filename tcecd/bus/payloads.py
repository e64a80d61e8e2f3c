"""Domain events -> MQTT messages (topic + versioned JSON payload). Pure.

Nothing here touches the network, the wall clock or files: the caller passes
the timestamp (``ts``, UTC ISO 8601) and gets :class:`Message` values back. The
topic tree and every payload field are documented in ``docs/events.md``; bump
:data:`SCHEMA` on any incompatible change.

:class:`Projection` folds the event stream into the few retained documents
that need more than one event (the schedule so far, the live snapshot of a
running game, a simple crosstable, each engine's strikes). Module-level
:func:`messages_for` is the convenience for one event with a fresh projection.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tcecd.domain import Color, GameId, Result
from tcecd.events import (
    BracketUpdated,
    CommandAnswered,
    ConcurrencyChanged,
    DomainEvent,
    EngineDisqualified,
    EngineFault,
    EngineReplaced,
    EngineWithdrawn,
    EventFinished,
    EventPaused,
    EventStarted,
    ForecastUpdated,
    GameAdjudicationOrdered,
    GameFinished,
    GameReplayed,
    GameRestartOrdered,
    GameStarted,
    KibitzerReport,
    MovePlayed,
    RoundPaired,
    StandingsUpdated,
)
from tcecd.forecast.forecast import Forecast
from tcecd.game.record import GameRecord, GameSummary, MoveRecord, Opening, Score
from tcecd.pairing.base import Standing

#: The operator's console's events (tcecd.control).
_CONSOLE_EVENTS = (
    CommandAnswered, EventPaused, EngineWithdrawn, EngineReplaced, ConcurrencyChanged,
    GameAdjudicationOrdered,
)

#: Payload schema version, carried as ``"schema"`` in every payload.
SCHEMA = 1


class Kind(enum.Enum):
    """How the publisher's queue treats a message (see docs/events.md, "Delivery").

    ESSENTIAL messages (status, metadata, pairings, results, standings, faults)
    are never dropped. LIVE messages (one per move) may be dropped, oldest
    first, when the queue is full. SNAPSHOT messages (a retained document that
    a newer one fully replaces) are coalesced: only the newest queued one per
    topic is kept.
    """

    ESSENTIAL = "essential"
    LIVE = "live"
    SNAPSHOT = "snapshot"


@dataclass(frozen=True, slots=True)
class Message:
    """One MQTT publication. ``payload`` is UTF-8 JSON, or empty to clear a
    retained topic."""

    topic: str
    payload: bytes
    qos: int
    retain: bool
    kind: Kind = Kind.ESSENTIAL

    def json(self) -> Any:
        """The decoded payload (None for an empty one)."""
        return json.loads(self.payload) if self.payload else None


_SEGMENT_BAD = re.compile(r"[^A-Za-z0-9._-]+")


def topic_segment(name: str) -> str:
    """A name made safe as one topic level: runs of anything but letters,
    digits, ``.``, ``_`` and ``-`` become ``_`` (no ``/``, ``+``, ``#``).
    Payloads always carry the real name."""
    seg = _SEGMENT_BAD.sub("_", name.strip()).strip("_")
    return seg or "_"


def slugify(event_name: str) -> str:
    """The event's topic slug: lower case, ``-`` for runs of other characters
    (``"TCEC Swiss 7"`` -> ``"tcec-swiss-7"``)."""
    slug = re.sub(r"[^a-z0-9]+", "-", event_name.lower()).strip("-")
    return slug or "event"


def encode(doc: Mapping[str, Any]) -> bytes:
    """Compact, deterministic JSON (keys in insertion order, UTF-8)."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()


def _score(score: Score | None) -> dict[str, Any] | None:
    if score is None:
        return None
    return {"cp": score.cp, "mate": score.mate, "text": score.pgn()}


def _opening(op: Opening) -> dict[str, Any]:
    return {"name": op.name, "eco": op.eco, "fen": op.fen, "moves": list(op.moves),
            "index": op.index, "chess960": op.chess960}


def _move(m: MoveRecord) -> dict[str, Any]:
    return {
        "ply": m.ply,
        "color": m.color.value,
        "san": m.san,
        "uci": m.uci,
        "fen": m.fen_after,
        "book": m.book,
        "move_time_ms": m.move_time_ms,
        "clock_left_ms": m.clock_left_ms,
        "eval": _score(m.score),
        "depth": m.depth,
        "seldepth": m.seldepth,
        "nodes": m.nodes,
        "nps": m.nps,
        "tbhits": m.tbhits,
        "hashfull": m.hashfull,
        "pv": list(m.pv_san),
        "ponder": m.ponder_san,
        "r50": m.r50,
        "rd": m.rd,
        "rr": m.rr,
    }


def _standing(s: Standing) -> dict[str, Any]:
    return {
        "rank": s.rank,
        "id": s.id,
        "score": s.score,
        "score_half": s.score_half,
        "byes": s.byes,
        "games": s.games,
        "tiebreaks": dict(s.tiebreaks),
    }


def forecast_fields(f: Forecast) -> dict[str, Any]:
    """The ``forecast`` payload's fields (docs/events.md, "forecast"):
    probabilities rounded to 4 decimals, scores and ratings to 2."""
    return {
        "after_round": f.after_round,
        "after_game": f.after_game,
        "total_rounds": f.total_rounds,
        "simulations": f.simulations,
        "seed": f.seed,
        "top": f.top,
        "model": {
            "kind": "elo-draw",
            "draw_rate": round(f.model.draw_rate, 4),
            "white_advantage": f.model.white_advantage,
            "prior_sd": f.prior_sd,
            "games": f.model.games,
        },
        "players": [
            {
                "id": p.id,
                "name": p.name,
                "score": p.score,
                "expected_score": round(p.expected_score, 2),
                "expected_place": round(p.expected_place, 2),
                "top": round(p.top, 4),
                "places": [round(x, 4) for x in p.places],
                "rating": round(p.rating, 1),
                "prior_rating": round(p.prior_rating, 1),
            }
            for p in f.players
        ],
    }


def kibitzer_fields(r: KibitzerReport) -> dict[str, Any]:
    """The ``kibitzer`` payload's fields (docs/events.md, "kibitzer/<n>"): the
    evaluation and WDL from White's point of view."""
    return {
        "kibitzer": r.kibitzer,
        "engine": r.engine,
        "desc": r.desc,
        "game": str(r.game_id),
        "ply": r.ply,
        "fen": r.fen,
        "eval": _score(r.score),
        "depth": r.depth,
        "seldepth": r.seldepth,
        "nodes": r.nodes,
        "nps": r.nps,
        "tbhits": r.tbhits,
        "hashfull": r.hashfull,
        "time_ms": r.time_ms,
        "wdl": None if r.wdl is None else list(r.wdl),
        "pv": list(r.pv_san),
        "pv_uci": list(r.pv_uci),
    }


_RESULT_TEXT = {2: "1", 1: "=", 0: "0"}


@dataclass
class _Live:
    """What the projection remembers of a running game."""

    start: dict[str, Any]
    moves_san: list[str] = field(default_factory=list)
    last: dict[str, Any] | None = None
    white_clock_ms: int | None = None
    black_clock_ms: int | None = None


class Projection:
    """Turns the domain-event stream into messages under ``root``
    (``<prefix>/<event-slug>``). Keeps only what multi-event documents need."""

    def __init__(self, root: str, event_name: str | None = None, *,
                 run_id: str | None = None) -> None:
        self.root = root.rstrip("/")
        self.event_name = event_name
        #: Identity of a freshly started event instance (``event`` document); None on a resume.
        self.run_id = run_id
        self.schedule: dict[str, dict[str, Any]] = {}  # "r.g" -> entry, playing order
        self.results: list[tuple[str, str, str, Result]] = []  # (game, white, black, result)
        self.strikes: dict[str, int] = {}
        self.disqualified: dict[str, str] = {}
        self.live: dict[str, _Live] = {}
        self.external_crosstable = False

    # -- helpers ---------------------------------------------------------------

    def topic(self, *levels: str) -> str:
        return "/".join((self.root, *levels))

    def _doc(self, type_: str, ts: str, **fields: Any) -> dict[str, Any]:
        return {"schema": SCHEMA, "type": type_, "event": self.event_name, "ts": ts, **fields}

    def _msg(
        self, levels: tuple[str, ...], doc: Mapping[str, Any] | None, *, qos: int = 1,
        retain: bool = True, kind: Kind = Kind.ESSENTIAL,
    ) -> Message:
        payload = b"" if doc is None else encode(doc)
        return Message(self.topic(*levels), payload, qos, retain, kind)

    def status(self, online: bool, ts: str, info: Mapping[str, Any] | None = None) -> Message:
        """The retained ``status`` message (also the Last Will when offline)."""
        doc = self._doc("status", ts, state="online" if online else "offline",
                        daemon=dict(info or {}))
        return self._msg(("status",), doc)

    def schedule_message(self, ts: str) -> Message:
        doc = self._doc("schedule", ts, games=list(self.schedule.values()))
        return self._msg(("schedule",), doc)

    def crosstable_message(self, standings: tuple[Standing, ...], ts: str) -> Message:
        """A simple crosstable: rows in rank order, each with the results
        against every opponent (``"1"``, ``"="``, ``"0"`` per game, from the
        row player's point of view)."""
        rows: dict[str, dict[str, Any]] = {}
        for s in standings:
            rows[s.id] = {**_standing(s), "strikes": self.strikes.get(s.id, 0),
                          "disqualified": s.id in self.disqualified, "results": {}}
        for game, white, black, result in self.results:
            if result is Result.UNFINISHED:
                continue
            for me, opp, color in ((white, black, "white"), (black, white, "black")):
                if me not in rows:
                    continue
                half = result.half_points(Color(color))
                rows[me]["results"].setdefault(opp, []).append(
                    {"game": game, "color": color, "result": _RESULT_TEXT[half]}
                )
        doc = self._doc("crosstable", ts, format="simple", order=[s.id for s in standings],
                        table=rows)
        return self._msg(("crosstable",), doc)

    def external_crosstable_message(self, table: Mapping[str, Any], ts: str) -> Message:
        """Wraps a daemon-built TCEC-format crosstable (tcec-formats.md) and
        stops the projection from publishing its simple one from then on."""
        self.external_crosstable = True
        doc = self._doc("crosstable", ts, format="tcec", crosstable=dict(table))
        return self._msg(("crosstable",), doc)

    def _engine_state(self, engine: str, ts: str) -> Message:
        doc = self._doc("engine", ts, engine=engine, strikes=self.strikes.get(engine, 0),
                        disqualified=engine in self.disqualified,
                        reason=self.disqualified.get(engine))
        return self._msg(("engine", topic_segment(engine), "state"), doc)

    def _live_message(self, gid: str, ts: str) -> Message:
        live = self.live[gid]
        last = live.last or {}
        doc = self._doc(
            "live", ts, game=gid, white=live.start["white"], black=live.start["black"],
            start=live.start, fen=last.get("fen", live.start["fen"]),
            moves=list(live.moves_san), last=live.last,
            white_clock_ms=live.white_clock_ms, black_clock_ms=live.black_clock_ms,
        )
        # QoS 0: a lost snapshot is replaced by the next move's one.
        return self._msg(("game", gid, "live"), doc, qos=0, kind=Kind.SNAPSHOT)

    def restore_finished(self, rec: GameRecord | GameSummary) -> None:
        """Record a game that finished before a resume, without publishing it
        again: the next ``schedule`` and simple ``crosstable`` include it."""
        gid = str(rec.game_id)
        self.results = [r for r in self.results if r[0] != gid]
        self.results.append((gid, rec.white, rec.black, rec.result))
        entry = self.schedule.setdefault(gid, {"game": gid, "round": rec.game_id.round,
                                               "white": rec.white, "black": rec.black})
        entry.update(result=rec.result.value, termination=rec.termination.value)

    # -- the mapping -------------------------------------------------------------

    def messages_for(self, event: DomainEvent, ts: str) -> list[Message]:
        """The messages one event produces, in publishing order."""
        if isinstance(event, EventStarted):
            self.event_name = event.event
            doc = self._doc(
                "event", ts, name=event.event, site=event.site, system=event.system,
                double=event.double, rounds=event.rounds, time_control=event.time_control,
                variant=event.variant, run_id=self.run_id,
                players=[{"id": p.id, "name": p.name, "seed": p.seed, "rating": p.rating}
                         for p in event.players],
            )
            return [self._msg(("event",), doc)]
        if isinstance(event, RoundPaired):
            p = event.pairing
            games = []
            for g in p.games:
                gid = str(GameId(p.round, g.number))
                games.append({"game": gid, "number": g.number, "white": g.white,
                              "black": g.black, "pair_index": g.pair_index, "leg": g.leg})
                self.schedule.setdefault(gid, {"game": gid, "round": p.round, "white": g.white,
                                               "black": g.black, "result": None,
                                               "termination": None})
            byes = sorted(p.byes)
            doc = self._doc("pairing", ts, round=p.round, bye=byes[0] if byes else None,
                            byes=byes,
                            removed_history_rounds=list(p.removed_history_rounds),
                            pairs=[{"first": x.first, "second": x.second} for x in p.pairs],
                            games=games)
            return [self._msg(("round", str(p.round), "pairing"), doc), self.schedule_message(ts)]
        if isinstance(event, GameStarted):
            gid = str(event.game_id)
            start = {"game": gid, "round": event.game_id.round, "number": event.game_id.number,
                     "white": event.white, "black": event.black,
                     "opening": _opening(event.opening), "fen": event.opening.fen,
                     "variant": "chess960" if event.opening.chess960 else "standard",
                     "time_control": event.time_control, "start_time": event.start_time,
                     "white_clock_ms": event.white_clock_ms,
                     "black_clock_ms": event.black_clock_ms,
                     # The PGN tags as the daemon's live files show them (one writer:
                     # tcecd.pgn.writer.start_tags); null when the event has none.
                     "headers": dict(event.headers) or None}
            self.live[gid] = _Live(start, white_clock_ms=event.white_clock_ms,
                                   black_clock_ms=event.black_clock_ms)
            return [self._msg(("game", gid, "start"), self._doc("start", ts, **start)),
                    self._live_message(gid, ts)]
        if isinstance(event, MovePlayed):
            gid = str(event.game_id)
            move = _move(event.move)
            doc = self._doc("move", ts, game=gid, **move, white_clock_ms=event.white_clock_ms,
                            black_clock_ms=event.black_clock_ms)
            out = [self._msg(("game", gid, "move"), doc, qos=0, retain=False, kind=Kind.LIVE)]
            live = self.live.get(gid)
            if live is not None:
                live.moves_san.append(event.move.san)
                live.last = move
                live.white_clock_ms = event.white_clock_ms
                live.black_clock_ms = event.black_clock_ms
                out.append(self._live_message(gid, ts))
            return out
        if isinstance(event, GameRestartOrdered):
            # The operator restarted the game: a finished one's result is void
            # (its retained end goes), a running one starts again.
            gid = str(event.game_id)
            cleared: list[Message] = []
            if event.voided:
                self.results = [r for r in self.results if r[0] != gid]
                entry = self.schedule.get(gid)
                if entry is not None:
                    entry.update(result=None, termination=None)
                cleared += [self._msg(("game", gid, "end"), None), self.schedule_message(ts)]
            if self.live.pop(gid, None) is not None:
                cleared.append(self._msg(("game", gid, "live"), None, kind=Kind.SNAPSHOT))
            return cleared
        if isinstance(event, GameFinished):
            rec = event.record
            gid = str(rec.game_id)
            final_fen = rec.moves[-1].fen_after if rec.moves else rec.opening.fen
            clocks: dict[Color, int | None] = {Color.WHITE: None, Color.BLACK: None}
            for m in rec.moves:
                clocks[m.color] = m.clock_left_ms
            doc = self._doc(
                "end", ts, game=gid, round=rec.game_id.round, number=rec.game_id.number,
                white=rec.white, black=rec.black, result=rec.result.value,
                termination=rec.termination.value, termination_detail=rec.termination_detail,
                start_time=rec.start_time, end_time=rec.end_time, duration_ms=rec.duration_ms,
                plies=len(rec.moves), final_fen=final_fen,
                white_clock_ms=clocks[Color.WHITE], black_clock_ms=clocks[Color.BLACK],
                last=_move(rec.moves[-1]) if rec.moves else None, pgn=event.pgn,
            )
            self.restore_finished(rec)
            out = [self._msg(("game", gid, "end"), doc), self.schedule_message(ts)]
            if self.live.pop(gid, None) is not None:
                # Clear the retained live snapshot: the game is over.
                out.append(self._msg(("game", gid, "live"), None, kind=Kind.SNAPSHOT))
            return out
        if isinstance(event, EngineFault):
            self.strikes[event.engine] = event.strikes
            doc = self._doc("fault", ts, engine=event.engine,
                            game=None if event.game_id is None else str(event.game_id),
                            kind=event.kind, detail=event.detail, strikes=event.strikes)
            return [self._msg(("engine", topic_segment(event.engine), "fault"), doc, retain=False),
                    self._engine_state(event.engine, ts)]
        if isinstance(event, EngineDisqualified):
            self.disqualified[event.engine] = event.reason
            doc = self._doc("disqualified", ts, engine=event.engine, reason=event.reason,
                            round=event.round)
            return [self._msg(("engine", topic_segment(event.engine), "disqualified"), doc,
                              retain=False),
                    self._engine_state(event.engine, ts)]
        if isinstance(event, StandingsUpdated):
            doc = self._doc("standings", ts, after_round=event.after_round, final=False,
                            rows=[_standing(s) for s in event.standings])
            out = [self._msg(("standings",), doc)]
            if not self.external_crosstable:
                out.append(self.crosstable_message(event.standings, ts))
            return out
        if isinstance(event, GameReplayed):
            return []  # its faults went out as `fault` messages; a fresh `start` follows
        if isinstance(event, BracketUpdated):
            doc = self._doc("bracket", ts, **event.bracket)
            return [self._msg(("bracket",), doc, kind=Kind.SNAPSHOT)]
        if isinstance(event, ForecastUpdated):
            doc = self._doc("forecast", ts, **forecast_fields(event.forecast))
            return [self._msg(("forecast",), doc, kind=Kind.SNAPSHOT)]
        if isinstance(event, KibitzerReport):
            doc = self._doc("kibitzer", ts, **kibitzer_fields(event))
            # Retained, QoS 0: a lost report is replaced by the next, a second later.
            return [self._msg(("kibitzer", str(event.kibitzer)), doc, qos=0, kind=Kind.SNAPSHOT)]
        if isinstance(event, EventFinished):
            rounds = max((e["round"] for e in self.schedule.values()), default=0)
            rows = [_standing(s) for s in event.standings]
            doc = self._doc("standings", ts, after_round=rounds, final=True, rows=rows)
            fin = self._doc("finished", ts, winner=rows[0]["id"] if rows else None, rows=rows)
            out = [self._msg(("standings",), doc), self._msg(("finished",), fin)]
            if not self.external_crosstable:
                out.append(self.crosstable_message(event.standings, ts))
            return out
        if isinstance(event, _CONSOLE_EVENTS):
            # The console's documents (reply, audit, console state) are the MQTT
            # sink's (tcecd.daemon.sinks.mqtt): they read the event state.
            return []
        raise TypeError(f"not a domain event: {event!r}")


def messages_for(event: DomainEvent, prefix: str, ts: str = "") -> list[Message]:
    """The messages of one event under ``prefix`` with a fresh projection
    (so the schedule holds only what this event says)."""
    return Projection(prefix).messages_for(event, ts)
