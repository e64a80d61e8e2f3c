"""TCEC's viewer files and socket.io pushes, rebuilt from the MQTT stream.

TCEC's own viewer (../shared/specs/tcec-formats.md, "What TCEC's web viewer
reads") loads ``live.pgn``, ``schedule.json``, ``crosstable.json``,
``tournament.json`` and ``crash.json`` over HTTP (a cup's ``Eventcrosstable.json``
too), and the first two kibitzers' ``data.json``, ``liveeval.json``,
``data1.json`` and ``liveeval1.json``, and then follows socket.io pushes
(``pgn``, ``schedule``, ``crosstable``, ``tournament``, ``crash``, ``bracket``;
``liveeval``, ``livechart``, ``liveeval1``, ``livechart1`` from the
``kibitzer/<n>`` messages, with the daemon's builders,
:mod:`tcecd.outputs.tcec_kibitzer`). :class:`TcecFeed` keeps those documents up
to date from the event's MQTT messages (checked beforehand against
docs/events.md: :func:`tcecd.bus.inbound.parse`), with the builders the daemon
uses for its own files (:mod:`tcecd.outputs.tcec_json`,
:class:`tcecd.daemon.live.LiveGame`, :mod:`tcecd.formats.knockout.documents`),
so the page served by ``tcecd web`` and the files in the daemon's state
directory agree. Pure: messages in, documents out.

Finished games are rebuilt from the PGN of their ``end`` message
(:func:`tcecd.replay.moves.game_record`); the running game's live document
from its ``start`` and ``move`` messages: its PGN tags are the ``start``
message's ``headers`` (the daemon's own, from the one writer,
:func:`tcecd.pgn.writer.start_tags`), or for an older daemon's message that
lacks them, the same function fed with what the stream says (then without an
engine's own time control, which only the daemon knows). Its engine options
are not in the stream, so the running game's ``WhiteEngineOptions`` and
``BlackEngineOptions`` are empty until it ends.

A knockout cup's ``tournament.json`` has a non-zero ``cup`` and its
``Eventcrosstable.json`` (the ``bracket`` push) is built from the retained
``bracket`` document: it carries the whole cup, which
:func:`tcecd.formats.knockout.cup_from_bracket` folds back, and the daemon's
function writes the file from it.

The live game document is built lazily: a ``move`` only notes its record, and
the document (board work per ply: from/to squares, FEN, PGN text) is brought
up to date when it is read (``docs["pgn"]``, :meth:`TcecFeed.live_pgn`), i.e.
when TCEC's viewer asks for it or is connected to be pushed it. A ``tcecd
web`` followed only by its own pages does none of that work, and a finished
game's document is not replayed from its PGN move by move unless read (and
then reuses the plies already built from the stream when they agree).
"""

from __future__ import annotations

import copy
import io
from typing import Any

import chess
import chess.pgn

from tcecd.daemon.live import LiveGame
from tcecd.domain import Color, GameId, PlayerId, Result, Termination
from tcecd.errors import TcecdError
from tcecd.events import KibitzerReport
from tcecd.formats.knockout import Cup, cup_from_bracket, eventcrosstable_json
from tcecd.formats.knockout import tournament_json as cup_tournament_json
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.outputs import tcec_json
from tcecd.outputs.tcec_kibitzer import FILES as KIBITZER_FILES
from tcecd.outputs.tcec_kibitzer import KibitzerDocuments
from tcecd.pairing.base import Pair, Player, RoundPairing, ScheduledGame, Standing
from tcecd.pgn.writer import start_tags

JsonDict = dict[str, Any]

#: Plies a ``pgn`` push carries when the game did not change (TCEC's server.js).
NUM_MOVES_TO_SEND = 2

#: The viewer files served over HTTP (name -> socket.io event of the same data).
FILES = {
    "schedule.json": "schedule",
    "crosstable.json": "crosstable",
    "tournament.json": "tournament",
    "crash.json": "crash",
    "Eventcrosstable.json": "bracket",
    "data.json": "liveeval",
    "liveeval.json": "livechart",
    "data1.json": "liveeval1",
    "liveeval1.json": "livechart1",
}
#: The socket.io events of kibitzer 0 and 1: (current search, history).
KIBITZER_EVENTS = tuple((FILES[data], FILES[chart]) for data, chart in KIBITZER_FILES)


def kibitzer_report(doc: JsonDict) -> KibitzerReport:
    """A ``kibitzer`` payload (docs/events.md, checked) as the daemon's
    :class:`KibitzerReport`."""
    ev = doc.get("eval") or {}
    score = None
    if ev.get("cp") is not None or ev.get("mate") is not None:
        score = Score(cp=ev.get("cp"), mate=ev.get("mate"))
    wdl = doc.get("wdl")
    return KibitzerReport(
        kibitzer=int(doc["kibitzer"]),
        engine=str(doc["engine"]),
        desc=str(doc.get("desc") or ""),
        game_id=GameId.parse(str(doc["game"])),
        ply=int(doc["ply"]),
        fen=str(doc["fen"]),
        score=score,
        depth=doc.get("depth"),
        seldepth=doc.get("seldepth"),
        nodes=doc.get("nodes"),
        nps=doc.get("nps"),
        tbhits=doc.get("tbhits"),
        hashfull=doc.get("hashfull"),
        time_ms=doc.get("time_ms"),
        wdl=None if wdl is None else (int(wdl[0]), int(wdl[1]), int(wdl[2])),
        pv_san=tuple(str(m) for m in doc.get("pv") or ()),
        pv_uci=tuple(str(m) for m in doc.get("pv_uci") or ()),
    )


def move_record(doc: JsonDict) -> MoveRecord:
    """A ``move`` payload (docs/events.md) as the daemon's :class:`MoveRecord`."""
    ev = doc.get("eval") or {}
    score = None
    if ev.get("cp") is not None or ev.get("mate") is not None:
        score = Score(cp=ev.get("cp"), mate=ev.get("mate"))
    return MoveRecord(
        ply=int(doc["ply"]),
        color=Color.WHITE if doc.get("color") == "white" else Color.BLACK,
        uci=str(doc["uci"]),
        san=str(doc["san"]),
        fen_after=str(doc["fen"]),
        book=bool(doc.get("book")),
        move_time_ms=doc.get("move_time_ms"),
        clock_left_ms=doc.get("clock_left_ms"),
        depth=doc.get("depth"),
        seldepth=doc.get("seldepth"),
        nodes=doc.get("nodes"),
        nps=doc.get("nps"),
        score=score,
        pv_san=tuple(doc.get("pv") or ()),
        ponder_san=doc.get("ponder"),
        tbhits=doc.get("tbhits"),
        hashfull=doc.get("hashfull"),
        r50=doc.get("r50"),
        rd=doc.get("rd"),
        rr=doc.get("rr"),
    )


def delta_pgn(doc: JsonDict, previous_headers: JsonDict | None, users: int) -> JsonDict:
    """The ``pgn`` push for ``doc`` (a live game JSON document), as TCEC's
    server.js sends it: the whole game when ``Headers`` changed since the last
    push (``gameChanged: 1``, ``lastMoveLoaded`` = all plies), else only the last
    :data:`NUM_MOVES_TO_SEND` plies with ``lastMoveLoaded`` = the index of the
    first one sent and ``totalSent``; ``Round`` is the Round tag times 100
    (``"2.1"`` -> 210) and ``Users`` the connected viewers."""
    out = copy.copy(doc)
    moves = list(doc.get("Moves", []))
    headers = doc.get("Headers", {})
    out["Users"] = users
    try:
        out["Round"] = round(float(headers.get("Round", "0")) * 100)
    except ValueError:
        out["Round"] = 0
    out["numMovesToSend"] = NUM_MOVES_TO_SEND
    if previous_headers is not None and previous_headers != headers:
        out["gameChanged"] = 1
        out["lastMoveLoaded"] = len(moves)
        out["Moves"] = moves
        return out
    out["gameChanged"] = 0
    if len(moves) > NUM_MOVES_TO_SEND:
        out["Moves"] = moves[-NUM_MOVES_TO_SEND:]
        out["lastMoveLoaded"] = len(moves) - NUM_MOVES_TO_SEND
    else:
        out["Moves"] = moves
        out["lastMoveLoaded"] = len(moves)
    out["totalSent"] = min(NUM_MOVES_TO_SEND, len(moves))
    return out


class TcecFeed:
    """The TCEC documents of one event; ``apply`` returns the names of the
    socket.io events whose data changed (``pgn``, ``schedule``, ...)."""

    def __init__(self) -> None:
        self.name = "event"
        self.slug = "event"
        self.site: str | None = None
        self.system: str | None = None
        self.run_id: str | None = None
        self.players: dict[str, Player] = {}
        self.pairings: dict[int, RoundPairing] = {}
        self.records: dict[GameId, GameRecord] = {}
        self.running: dict[GameId, str] = {}  # game -> start time
        self._live: LiveGame | None = None  # the live document's game, built up to ...
        self._built: list[MoveRecord] = []  # ... these plies (what was added to it)
        self._pending: list[MoveRecord] = []  # plies still to add to it
        self._finished: tuple[GameRecord, str] | None = None  # its final state, if not built
        self._pgn_stale = False  # docs["pgn"] to be rebuilt when read
        self.live_id: str | None = None
        self.standings: list[Standing] = []
        self.strikes: dict[PlayerId, int] = {}
        self.tcec_crosstable: JsonDict | None = None
        self.kibitzers = [KibitzerDocuments() for _ in KIBITZER_EVENTS]
        #: A knockout cup as its last ``bracket`` document describes it.
        self.cup: Cup | None = None
        self._docs: dict[str, Any] = {}

    @property
    def docs(self) -> dict[str, Any]:
        """The documents by socket.io event name (``pgn``: the live game JSON)."""
        if self._pgn_stale:
            self._pgn_stale = False
            live = self.live
            if live is not None:
                self._docs["pgn"] = live.document()
        return self._docs

    @property
    def live(self) -> LiveGame | None:
        """The live (or last finished) game, brought up to date."""
        if self._finished is not None:
            record, pgn = self._finished
            self._finished = None
            self._live = LiveGame.finished(record, pgn, known=self._live, known_moves=self._built)
            self._built, self._pending = list(record.moves), []
        if self._live is not None and self._pending:
            pending, self._pending = self._pending, []
            for i, move in enumerate(pending):
                try:
                    self._live.add(move)
                except (KeyError, ValueError):  # a ply that does not fit: the end PGN mends it
                    self._pending = []
                    break
                self._built.append(pending[i])
        return self._live

    def _plies(self) -> int:
        return len(self._built) + len(self._pending)

    # -- input --------------------------------------------------------------------------

    def apply(self, rest: list[str], doc: JsonDict | None, *,
              end: GameRecord | None = None) -> list[str]:  # fmt: skip
        """One message: its topic levels below the event's root and its payload,
        decoded and checked (:func:`tcecd.bus.inbound.parse`; None: a retained
        document deleted). ``end``: a ``game/<id>/end`` message's game, parsed
        beforehand (:func:`end_record`, e.g. in a worker thread); else it is
        parsed here."""
        if doc is None:
            return []
        match rest:
            case ["event"]:
                if doc.get("run_id") and self.run_id and doc.get("run_id") != self.run_id:
                    self.__init__()  # type: ignore[misc]  # a new instance of the event
                self.run_id = doc.get("run_id") or self.run_id
                self.name = str(doc.get("name") or self.name)
                self.slug = _slug(self.name)
                self.site = doc.get("site") or self.site
                self.system = doc.get("system") or self.system
                for p in doc.get("players", []):
                    pid = PlayerId(str(p["id"]))
                    self.players[pid] = Player(pid, str(p.get("name") or pid),
                                               int(p.get("seed") or 0), p.get("rating"))
                return self._rebuild("tournament", "schedule", "crosstable", "crash", "bracket")
            case ["bracket"]:
                try:
                    self.cup = cup_from_bracket(doc)
                except (TcecdError, KeyError, TypeError, ValueError):
                    return []  # a bracket no cup can have made: the last good one stays
                return self._rebuild("tournament", "bracket")
            case ["round", n, "pairing"] if n.isdigit():
                self.pairings[int(n)] = _pairing(doc)
                return self._rebuild("schedule")
            case ["game", gid, "start"]:
                return self._start(gid, doc)
            case ["game", gid, "move"]:
                return self._move(gid, doc)
            case ["game", gid, "end"]:
                return self._end(gid, doc, end)
            case ["standings"]:
                self.standings = [
                    Standing(int(r["rank"]), PlayerId(str(r["id"])), int(r["score_half"]),
                             int(r.get("byes", 0)), int(r.get("games", 0)),
                             tuple((k, float(v)) for k, v in (r.get("tiebreaks") or {}).items()))
                    for r in doc.get("rows", [])
                ]
                return self._rebuild("crosstable")
            case ["crosstable"]:
                if doc.get("format") == "tcec" and isinstance(doc.get("crosstable"), dict):
                    self.tcec_crosstable = doc["crosstable"]
                return self._rebuild("crosstable")
            case ["engine", _seg, "state"]:
                self.strikes[PlayerId(str(doc.get("engine")))] = int(doc.get("strikes") or 0)
                return self._rebuild("crosstable")
            case ["kibitzer", n] if n.isdigit() and int(n) < len(self.kibitzers):
                return self._kibitzer(int(n), doc)
        return []

    def _kibitzer(self, n: int, doc: JsonDict) -> list[str]:
        """A kibitzer's report (checked): its ``liveeval`` (current search) and
        ``livechart`` (the game's history) documents."""
        try:
            report = kibitzer_report(doc)
        except (ValueError, KeyError, TypeError):
            return []
        docs = self.kibitzers[n]
        if report is None or not docs.add(report):
            return []
        current, chart = KIBITZER_EVENTS[n]
        self._docs[current] = docs.data()
        self._docs[chart] = docs.history()
        return [current, chart]

    def _start(self, gid: str, doc: JsonDict) -> list[str]:
        try:
            game_id = GameId.parse(gid)
        except ValueError:
            return []
        start = str(doc.get("start_time") or doc.get("ts") or "")
        self.running[game_id] = start
        op = doc.get("opening") or {}
        opening = Opening(op.get("name"), doc.get("fen") or op.get("fen"),
                          tuple(op.get("moves") or ()), op.get("eco"),
                          chess960=doc.get("variant") == "chess960")
        self._live = LiveGame(self._headers(game_id, doc, opening, start), opening)
        self._built, self._pending, self._finished = [], [], None
        self.live_id = gid
        return [*self._rebuild("schedule"), self._pgn_changed()]

    def _move(self, gid: str, doc: JsonDict) -> list[str]:
        if self._live is None or self._finished is not None or self.live_id != gid:
            return []
        if doc.get("ply") != self._plies() + 1 and self._plies():
            return []  # a gap (a dropped QoS 0 update) or a repeat: the end PGN mends it
        try:
            self._pending.append(move_record(doc))
        except (KeyError, ValueError, TypeError):
            return []
        return [self._pgn_changed()]

    def _end(self, gid: str, doc: JsonDict, parsed: GameRecord | None) -> list[str]:
        try:
            game_id = GameId.parse(gid)
        except ValueError:
            return []
        pgn = str(doc.get("pgn") or "")
        record = parsed if parsed is not None else end_record(gid, pgn)
        if record is None:
            return []
        self.records[game_id] = record
        self.running.pop(game_id, None)
        changed = self._rebuild("schedule", "crash", "crosstable")
        if self.live_id in (None, gid) or not self.running:
            if self.live_id != gid:
                self._live, self._built, self._pending = None, [], []
            self._finished = (record, pgn)
            self.live_id = gid
            changed.append(self._pgn_changed())
        return changed

    def _headers(self, game_id: GameId, doc: JsonDict, opening: Opening,
                 start: str) -> dict[str, str]:  # fmt: skip
        """The running game's PGN tags (Result ``*``, no Termination while it
        runs): the ``start`` message's ``headers``, which the daemon made with
        :func:`~tcecd.pgn.writer.start_tags`; else (a daemon from before
        ``headers``) that function's tags from what the stream says."""
        headers = doc.get("headers")
        if isinstance(headers, dict) and headers:
            return {str(k): str(v) for k, v in headers.items()}
        white, black = str(doc.get("white")), str(doc.get("black"))
        return dict(start_tags(
            event=self.name, site=self.site or "?", game_id=game_id,
            white=self._name(white), black=self._name(black), start_time=start,
            time_control=str(doc.get("time_control") or "-"), opening=opening,
            white_elo=self._rating(white), black_elo=self._rating(black)))

    def _rating(self, pid: str) -> int | None:
        p = self.players.get(PlayerId(pid))
        return None if p is None or p.rating is None else round(p.rating)

    def _name(self, pid: str) -> str:
        p = self.players.get(PlayerId(pid))
        return p.name if p is not None else pid

    # -- output -------------------------------------------------------------------------

    def _rebuild(self, *names: str) -> list[str]:
        changed = []
        for name in names:
            value = getattr(self, f"_build_{name}")()
            if value is not None and value != self._docs.get(name):
                self._docs[name] = value
                changed.append(name)
        return changed

    def _pgn_changed(self) -> str:
        """The live game changed (a start, a ply, an end): ``pgn`` is rebuilt when read."""
        self._pgn_stale = True
        return "pgn"

    def _ordered(self) -> list[RoundPairing]:
        return [self.pairings[r] for r in sorted(self.pairings)]

    def _names(self) -> dict[PlayerId, str]:
        return {pid: p.name for pid, p in self.players.items()}

    @property
    def is_cup(self) -> bool:
        """A knockout cup (its ``event`` document says so, or a bracket came)."""
        return self.system == "knockout" or self.cup is not None

    def _build_tournament(self) -> JsonDict:
        if self.is_cup:  # a non-zero ``cup``: TCEC's viewer shows the bracket
            return cup_tournament_json(self.name, self.slug)
        return tcec_json.tournament_json(self.name, self.slug)

    def _build_bracket(self) -> JsonDict | None:
        """A cup's ``Eventcrosstable.json``, as the daemon writes it."""
        return None if self.cup is None else eventcrosstable_json(self.cup, self._names())

    def _build_schedule(self) -> list[JsonDict]:
        return tcec_json.schedule_json(self._ordered(), self.records, names=self._names(),
                                       running=self.running)

    def _build_crash(self) -> list[JsonDict]:
        return tcec_json.crash_json(self._ordered(), self.records, names=self._names())

    def _build_crosstable(self) -> JsonDict | None:
        if self.tcec_crosstable is not None:
            return self.tcec_crosstable
        if not self.standings or any(s.id not in self.players for s in self.standings):
            return None
        games = []
        ordinal = 0
        for pairing in self._ordered():
            for g in pairing.games:
                ordinal += 1
                rec = self.records.get(GameId(pairing.round, g.number))
                if rec is not None and rec.result is not Result.UNFINISHED:
                    played = rec.termination is not Termination.FORFEIT
                    games.append(tcec_json.CrossGame(ordinal, g.white, g.black, rec.result,
                                                     played=played))
        return tcec_json.crosstable_json(self.name, list(self.players.values()), games,
                                         self.standings, strikes=self.strikes)

    def live_pgn(self) -> str | None:
        """``live.pgn`` as the daemon writes it: the live game JSON (TCEC's
        ``live.pgn`` holds that document; docs/web.md, "TCEC's viewer")."""
        live = self.live
        return None if live is None else live.document_text()


def end_record(gid: str, pgn: str) -> GameRecord | None:
    """The finished game of an ``end`` message's PGN (None if unreadable). Pure,
    and the feed's costliest step (the whole game's PGN is parsed): ``tcecd web``
    runs it in a worker thread."""
    from tcecd.replay.moves import game_record

    try:
        game = chess.pgn.read_game(io.StringIO(pgn))
        return None if game is None else game_record(game, GameId.parse(gid))
    except (ValueError, KeyError):
        return None


def end_pgn(rest: list[str], doc: JsonDict | None) -> tuple[str, str] | None:
    """``(game id, PGN)`` if ``rest``/``doc`` is a ``game/<id>/end`` message."""
    if len(rest) != 3 or rest[0] != "game" or rest[2] != "end":
        return None
    pgn = doc.get("pgn") if doc is not None else None
    return (rest[1], pgn) if isinstance(pgn, str) else None


def _pairing(doc: JsonDict) -> RoundPairing:
    pairs = tuple(Pair(PlayerId(str(p["first"])), PlayerId(str(p["second"])))
                  for p in doc.get("pairs", []))
    games = tuple(
        ScheduledGame(int(g["number"]), PlayerId(str(g["white"])), PlayerId(str(g["black"])),
                      int(g.get("pair_index", 0)), int(g.get("leg", 1)))
        for g in doc.get("games", [])
    )
    bye = doc.get("bye")
    byes = [PlayerId(str(b)) for b in doc.get("byes") or ([bye] if bye else [])]
    return RoundPairing(int(doc["round"]), byes,
                        tuple(doc.get("removed_history_rounds") or ()), pairs, games)


def _slug(name: str) -> str:
    from tcecd.bus.payloads import slugify

    return slugify(name)
