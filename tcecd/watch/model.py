"""The view-model of ``tcecd watch``: the live event as the payloads describe it. Pure.

:class:`EventView` is fed ``(topic, payload)`` pairs in arrival order (retained
ones first, then live ones) and keeps what the screen shows: metadata and
daemon status, the current round's pairing, the standings, the running game
(position, clocks, last evaluation, PV, moves), a knockout cup's bracket and
recent engine faults. It is
tolerant: unknown topics and other schema versions are ignored (counted in
:attr:`EventView.ignored`), so a newer daemon never crashes an older viewer.

It trusts no payload (issue 28; anyone who may publish on the broker can write
these topics): each message is checked against docs/events.md by
:func:`tcecd.bus.inbound.parse`, and one that breaks it is skipped and counted
(:attr:`EventView.rejected`, the reason of the last in :attr:`EventView.last_rejected`,
both shown in the frame's footer) instead of failing later in a renderer. What
the view keeps of a payload has its control and bidi characters replaced
(:func:`tcecd.bus.inbound.printable`): nothing a stranger wrote reaches the
terminal as an escape sequence.

Two events may use the same topic root one after the other (same event name).
The view never mixes them: an empty retained payload (how the daemon deletes an
earlier event's retained state when a new one starts) removes what it held, and
an ``event`` document whose ``run_id`` differs from the one the view has seen
starts the view afresh (only the daemon status is kept).

:class:`Watcher` routes messages of several events (``<prefix>/<slug>/...``) to
one view each. Without a prefix it finds the events itself: a topic
``<prefix>/<slug>/event`` carrying an ``event`` document marks ``<prefix>/<slug>``
as an event's root (what arrived under it before is replayed from a bounded buffer).

Clocks tick: each clock report remembers when it was true (``GameView.clock_at``,
wall-clock seconds: the arrival time passed to :meth:`Watcher.apply`, or for a
retained message the daemon's ``ts``, which may be much older), so that a
renderer can count the side to move's clock down (:func:`ticking_clocks`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tcecd.bus.inbound import InvalidPayload, UnknownPayload, parse, printable
from tcecd.bus.payloads import SCHEMA, topic_segment

#: Faults kept for display.
MAX_FAULTS = 5
#: Messages kept, without a prefix, until their event's ``event`` document arrives.
MAX_PENDING = 5000


@dataclass
class GameView:
    """A game as the viewer knows it (running or finished)."""

    game: str
    white: str
    black: str
    fen: str | None = None  # None: the standard start position
    start_fen: str | None = None  # where the game (and its move list) starts
    moves: list[str] = field(default_factory=list)
    last: dict[str, Any] | None = None
    white_clock_ms: int | None = None
    black_clock_ms: int | None = None
    opening: str | None = None
    #: A Chess960 game (its ``start`` payload's ``variant``).
    chess960: bool = False
    result: str | None = None
    termination: str | None = None
    seq: int = 0  # arrival order of the latest update, to pick the current game
    clock_at: float | None = None  # when the clocks were as reported (epoch s; None: unknown)

    def side_to_move_white(self) -> bool:
        """True when White is to move in the current position."""
        fen = self.fen or self.start_fen
        return not fen or fen.split()[1:2] != ["b"]


def ticking_clocks(g: GameView, now: float | None) -> tuple[int | None, int | None]:
    """The clocks at wall-clock time ``now``: the side to move's counts down from
    its last report while the game runs (None ``now``: as reported)."""
    white, black = g.white_clock_ms, g.black_clock_ms
    if now is None or g.result is not None or g.clock_at is None:
        return white, black
    spent = max(0, int((now - g.clock_at) * 1000))
    if g.side_to_move_white():
        return (None if white is None else white - spent), black
    return white, (None if black is None else black - spent)


def _ts_epoch(doc: dict[str, Any]) -> float | None:
    """The payload's ``ts`` as epoch seconds (None if absent or malformed)."""
    ts = doc.get("ts")
    if not isinstance(ts, str):
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def is_event_document(payload: bytes) -> bool:
    """True for an ``event`` document of this schema (how a root is recognised)."""
    try:
        doc = json.loads(payload)
    except ValueError:
        return False
    return isinstance(doc, dict) and doc.get("schema") == SCHEMA and doc.get("type") == "event"


@dataclass
class EventView:
    """Everything shown for one event; see the module docstring."""

    slug: str
    name: str | None = None
    meta: dict[str, Any] | None = None
    status: str | None = None
    status_ts: str | None = None
    pairings: dict[int, dict[str, Any]] = field(default_factory=dict)
    schedule: list[dict[str, Any]] = field(default_factory=list)
    standings: dict[str, Any] | None = None
    #: the retained ``forecast`` document (docs/events.md), None until one arrives
    forecast: dict[str, Any] | None = None
    #: a knockout cup's retained ``bracket`` document (docs/events.md), else None
    bracket: dict[str, Any] | None = None
    games: dict[str, GameView] = field(default_factory=dict)
    engines: dict[str, dict[str, Any]] = field(default_factory=dict)
    faults: list[dict[str, Any]] = field(default_factory=list)
    finished: dict[str, Any] | None = None
    #: The latest ``kibitzer/<n>`` report of each kibitzer, by n.
    kibitzers: dict[int, dict[str, Any]] = field(default_factory=dict)
    run_id: str | None = None  # the event instance the view shows (``event`` document)
    ignored: int = 0
    #: Messages that broke the schema of their topic, skipped (see the module docstring).
    rejected: int = 0
    last_rejected: str | None = None
    seq: int = 0

    # -- queries ------------------------------------------------------------------------

    def player_name(self, pid: str) -> str:
        for p in (self.meta or {}).get("players", []):
            if p.get("id") == pid:
                return str(p.get("name") or pid)
        return pid

    @property
    def current_round(self) -> int | None:
        return max(self.pairings) if self.pairings else None

    @property
    def current_game(self) -> GameView | None:
        """The running game updated last, else the game that ended last."""
        running = [g for g in self.games.values() if g.result is None]
        pool = running or list(self.games.values())
        return max(pool, key=lambda g: g.seq) if pool else None

    def kibitzers_of(self, game: str) -> list[dict[str, Any]]:
        """The kibitzers' latest reports on ``game``, by kibitzer number."""
        return [self.kibitzers[n] for n in sorted(self.kibitzers)
                if self.kibitzers[n].get("game") == game]  # fmt: skip

    def result_of(self, game: str) -> str | None:
        g = self.games.get(game)
        if g is not None and g.result is not None:
            return g.result
        for entry in self.schedule:
            if entry.get("game") == game:
                return entry.get("result")
        return None

    def reason_of(self, game: str) -> str | None:
        """Why a finished game ended: its end message's detail ("TCEC draw rule"),
        else the schedule's termination ("adjudication")."""
        g = self.games.get(game)
        if g is not None and g.termination:
            return g.termination
        for entry in self.schedule:
            if entry.get("game") == game and entry.get("termination"):
                return str(entry["termination"])
        return None

    # -- updates ------------------------------------------------------------------------

    def apply(self, levels: list[str], payload: bytes, *, at: float | None = None,
              retained: bool = False, checked: dict[str, Any] | None = None) -> bool:
        """Apply one message (topic levels below ``<prefix>/<slug>``). Returns
        True when the view changed. ``at``: when it arrived (epoch seconds; the
        clocks tick from then, or from its ``ts`` if ``retained``). ``checked``:
        the payload already decoded and checked by :func:`tcecd.bus.inbound.parse`
        (``tcecd web`` checks each message once for all its readers)."""
        self.seq += 1
        self._at = at
        self._retained = retained
        doc: Any = None
        if not payload and levels[-1:] != ["live"]:
            return self._delete(levels)
        if payload:
            if checked is None:
                try:
                    checked = parse(levels, payload)
                except UnknownPayload:
                    self.ignored += 1
                    return False
                except InvalidPayload as exc:
                    self.rejected += 1
                    self.last_rejected = printable(str(exc))
                    return False
            assert checked is not None
            doc = printable(checked)
            if doc.get("event"):
                self.name = str(doc["event"])
        match levels:
            case ["status"] if doc:
                self.status, self.status_ts = doc.get("state"), doc.get("ts")
            case ["event"] if doc:
                run_id = doc.get("run_id")
                if run_id and run_id != self.run_id:
                    if self.run_id is not None:
                        self._reset()  # another instance of the event: forget the old one
                    self.run_id = str(run_id)
                self.meta = doc
                self.name = doc.get("name") or self.name
            case ["schedule"] if doc:
                self.schedule = list(doc.get("games", []))
            case ["round", n, "pairing"] if doc and n.isdigit():
                self.pairings[int(n)] = doc
            case ["standings"] if doc:
                self.standings = doc
            case ["bracket"] if doc:
                self.bracket = doc
            case ["forecast"] if doc:
                self.forecast = doc
            case ["finished"] if doc:
                self.finished = doc
            case ["game", gid, "start"] if doc:
                self._game(gid, doc, start=doc)
            case ["game", gid, "live"]:
                if doc:
                    self._game(gid, doc, start=doc.get("start") or {})
                    g = self.games[gid]
                    g.fen = doc.get("fen", g.fen)
                    g.moves = list(doc.get("moves", g.moves))
                    g.last = doc.get("last", g.last)
                    g.white_clock_ms = doc.get("white_clock_ms", g.white_clock_ms)
                    g.black_clock_ms = doc.get("black_clock_ms", g.black_clock_ms)
                    g.clock_at = self._clock_time(doc)
                else:
                    return False  # a cleared snapshot: the end message tells the rest
            case ["game", gid, "move"] if doc:
                g = self._game(gid, doc, start={})
                if doc.get("ply") == len(g.moves) + 1:
                    g.moves.append(str(doc.get("san")))
                # else: a gap (a dropped QoS 0 update); the next live snapshot
                # carries the whole move list again.
                g.fen = doc.get("fen", g.fen)
                g.last = doc
                g.white_clock_ms = doc.get("white_clock_ms", g.white_clock_ms)
                g.black_clock_ms = doc.get("black_clock_ms", g.black_clock_ms)
                g.clock_at = self._clock_time(doc)
            case ["game", gid, "end"] if doc:
                g = self._game(gid, doc, start={})
                g.result, g.termination = doc.get("result"), doc.get("termination_detail")
                g.fen = doc.get("final_fen", g.fen)
                g.last = doc.get("last") or g.last
                if doc.get("white_clock_ms") is not None:
                    g.white_clock_ms = doc["white_clock_ms"]
                if doc.get("black_clock_ms") is not None:
                    g.black_clock_ms = doc["black_clock_ms"]
            case ["engine", _seg, "state"] if doc:
                self.engines[str(doc.get("engine"))] = doc
            case ["engine", _seg, "fault" | "disqualified"] if doc:
                self.faults = [*self.faults, doc][-MAX_FAULTS:]
            case ["kibitzer", n] if doc and n.isdigit():
                self.kibitzers[int(n)] = doc
            case _:
                self.ignored += 1
                return False
        return True

    _at: float | None = None
    _retained: bool = False

    def _clock_time(self, doc: dict[str, Any]) -> float | None:
        """When the clocks in ``doc`` were true: the arrival time, or for a
        retained message its ``ts`` (never later than the arrival)."""
        at = self._at
        if at is None or not self._retained:
            return at
        ts = _ts_epoch(doc)
        return at if ts is None else min(ts, at)

    def _reset(self) -> None:
        """Forget everything but the daemon status (a new event instance began)."""
        keep = EventView(self.slug, status=self.status, status_ts=self.status_ts,
                         ignored=self.ignored, rejected=self.rejected,
                         last_rejected=self.last_rejected, seq=self.seq)
        self.__dict__.update(keep.__dict__)

    def _delete(self, levels: list[str]) -> bool:
        """An empty retained payload: the daemon deleted that retained document."""
        match levels:
            case ["status"]:
                self.status = self.status_ts = None
            case ["event"]:
                self.meta = None
            case ["schedule"]:
                self.schedule = []
            case ["round", n, "pairing"] if n.isdigit():
                self.pairings.pop(int(n), None)
            case ["standings"]:
                self.standings = None
            case ["bracket"]:
                self.bracket = None
            case ["forecast"]:
                self.forecast = None
            case ["finished"]:
                self.finished = None
            case ["game", gid, "start" | "end"]:
                self.games.pop(gid, None)
            case ["engine", seg, "state"]:
                self.engines = {k: v for k, v in self.engines.items() if topic_segment(k) != seg}
            case ["kibitzer", n] if n.isdigit():
                self.kibitzers.pop(int(n), None)
            case _:
                return False
        return True

    def _game(self, gid: str, doc: dict[str, Any], start: dict[str, Any]) -> GameView:
        g = self.games.get(gid)
        if g is None:
            g = GameView(gid, str(doc.get("white", "?")), str(doc.get("black", "?")))
            self.games[gid] = g
        if start:
            g.start_fen = start.get("fen")
            g.fen = g.fen if g.moves else start.get("fen")
            opening = start.get("opening") or {}
            g.opening = opening.get("name") or g.opening
            g.chess960 = start.get("variant") == "chess960"
            if g.white_clock_ms is None:
                g.white_clock_ms = start.get("white_clock_ms")
                g.black_clock_ms = start.get("black_clock_ms")
                g.clock_at = self._clock_time(start)
        g.seq = self.seq
        return g


class Watcher:
    """Routes ``<prefix>/<slug>/...`` messages to one :class:`EventView` per event.

    ``event`` (a slug) restricts it to one event; otherwise :attr:`selected`
    is the event that received the latest message. ``prefix=None`` finds the
    events' roots from their ``event`` documents (see the module docstring)."""

    def __init__(self, prefix: str | None = "tcecd", event: str | None = None) -> None:
        self.prefix: list[str] | None = (
            None if prefix is None else prefix.strip("/").split("/"))
        self.event = event
        self.views: dict[str, EventView] = {}
        #: Event roots found (prefix levels + slug), without a fixed prefix.
        self.roots: set[tuple[str, ...]] = set()
        self._pending: dict[str, tuple[bytes, float | None, bool]] = {}
        self._latest: str | None = None

    def apply(self, topic: str, payload: bytes, *, at: float | None = None,
              retained: bool = False, checked: dict[str, Any] | None = None) -> bool:
        """Route one message to its event's view (``checked``: see
        :meth:`EventView.apply`; only with a fixed prefix)."""
        levels = topic.split("/")
        if self.prefix is not None:
            n = len(self.prefix)
            if levels[:n] != self.prefix or len(levels) < n + 2:
                return False
            return self._route(levels[n], levels[n + 1:], payload, at, retained, checked)
        for cut in range(len(levels) - 1, 0, -1):
            if tuple(levels[:cut]) in self.roots:
                return self._route(levels[cut - 1], levels[cut:], payload, at, retained)
        if len(levels) >= 3 and levels[-1] == "event" and is_event_document(payload):
            root = tuple(levels[:-1])
            self.roots.add(root)
            changed = self._route(root[-1], ["event"], payload, at, retained)
            head = "/".join(root) + "/"
            for t in [t for t in self._pending if t.startswith(head)]:
                p, when, ret = self._pending.pop(t)
                changed = self._route(root[-1], t[len(head):].split("/"), p, when, ret) or changed
            return changed
        self._pending.pop(topic, None)
        self._pending[topic] = (payload, at, retained)
        while len(self._pending) > MAX_PENDING:
            del self._pending[next(iter(self._pending))]
        return False

    def _route(self, slug: str, rest: list[str], payload: bytes, at: float | None,
               retained: bool, checked: dict[str, Any] | None = None) -> bool:
        if self.event is not None and slug != self.event:
            return False
        view = self.views.get(slug)
        if view is None:  # (the slug comes from the topic: shown, so made printable)
            view = self.views[slug] = EventView(printable(slug))
        changed = view.apply(rest, payload, at=at, retained=retained, checked=checked)
        if changed:
            self._latest = slug
        return changed

    def prefix_of(self, slug: str) -> str | None:
        """The topic prefix an event was found under (or the fixed one)."""
        if self.prefix is not None:
            return "/".join(self.prefix)
        for root in self.roots:
            if root[-1] == slug:
                return "/".join(root[:-1])
        return None

    @property
    def selected(self) -> EventView | None:
        if self.event is not None:
            return self.views.get(self.event)
        return self.views.get(self._latest) if self._latest else None
