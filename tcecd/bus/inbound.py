"""What a consumer reads from the stream, checked against docs/events.md. Pure.

Anyone who can publish to the broker (an anonymous client of an embedded broker, a
viewer account the ACL forgot, a page open on the host that speaks MQTT over
websockets) can put any bytes on the event's topics, retained. Every consumer of
the stream (``tcecd watch``, ``tcecd web`` and its TCEC viewer feed, a bot) must
therefore check each message before it uses it, and skip a bad one instead of
failing on it (issue 28: a retained ``standings`` row with ``"rank": "x"`` made
``tcecd watch --once`` exit with a traceback). This module is that check, in one
place:

* :func:`parse` ``(levels, payload)``: the message on ``<prefix>/<event>/<levels>``
  as a JSON object that has the types docs/events.md gives its topic (``None`` for
  an empty payload: a retained message deleted). It raises
  :class:`UnknownPayload` for what this reader does not know (a topic outside the
  schema, another schema version: not an error, a newer daemon's) and
  :class:`InvalidPayload` for a message that breaks the schema: larger than
  :data:`MAX_PAYLOAD`, not JSON, not an object, a ``type`` other than its topic's,
  a field of the wrong type, a string or list longer than its bound, a game id
  or round that contradicts its topic, a number that is not finite.
* :func:`check_document` ``(doc_type, obj)``: the same check for an object
  already decoded.
* :func:`document_type` ``(levels)``: the document type a topic carries.
* :func:`printable` ``(value)``: a payload's strings made safe to print on a
  terminal or show on a page: control characters (C0, DEL, C1: ESC sequences,
  OSC title changes and hyperlinks, BEL, backspaces, carriage returns, new lines)
  and the Unicode bidirectional controls (which reorder what is shown: "Trojan
  Source") become U+FFFD, so a tampered name shows as tampered.

The models are pydantic's in strict mode (no coercion: ``"1"`` is no integer,
``true`` no number), the documented fields typed (those a consumer may go
without optional) and unknown fields allowed (a newer daemon may add some within
schema 1). Strings and lists are bounded, so that one document cannot make a
consumer hold megabytes per field. Only the ``daemon`` details of ``status`` are
left unchecked (nobody reads them). The returned document is the decoded object
itself: the check changes nothing, so a consumer reads what the daemon wrote.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tcecd.bus.payloads import SCHEMA
from tcecd.errors import BusError


class PayloadError(BusError):
    """A message a consumer does not use."""


class UnknownPayload(PayloadError):
    """A topic outside the schema, or another schema version: ignore it."""


class InvalidPayload(PayloadError):
    """A message that breaks the schema of its topic: skip it and count it."""


# -- the schema (docs/events.md, "Payloads") ----------------------------------------

#: Payloads larger than this are refused unread (a 300-ply game's ``end`` with its
#: PGN is about 100 kB; a 64-engine TCEC crosstable about 250 kB).
MAX_PAYLOAD = 2 * 1024 * 1024

#: Integers as the daemon writes them (times in ms, node counts): within 64 bits.
Int = Annotated[int, Field(strict=True, ge=-(2**63), lt=2**63)]
#: Numbers (scores, tiebreaks, probabilities): an integer or a finite float.
Num = Annotated[float, Field(allow_inf_nan=False)]
Bool = Annotated[bool, Field(strict=True)]
# Strings are bounded, so that one document cannot make a consumer hold megabytes
# per field: names and ids, free text (details, reasons), positions and moves.
Str = Annotated[str, Field(strict=True, max_length=256)]
Text = Annotated[str, Field(strict=True, max_length=4096)]
Fen = Annotated[str, Field(strict=True, max_length=128)]
San = Annotated[str, Field(strict=True, max_length=16)]
Uci = Annotated[str, Field(strict=True, max_length=8)]
#: A game id ``r.g`` (docs/events.md, "Topic tree").
GameId = Annotated[str, Field(strict=True, pattern=r"^[0-9]{1,9}\.[0-9]{1,9}$")]
#: A game's result as PGN writes it.
ResultText = Literal["1-0", "0-1", "1/2-1/2", "*"]
#: The longest list a document holds: a field's players, a round's games, moves.
MANY = 10_000


class _Part(BaseModel):
    """A part of a document: typed fields, unknown ones kept (a newer daemon)."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)


class _Doc(_Part):
    """The fields every payload carries."""

    schema_: Literal[1] = Field(alias="schema")
    event: Str | None = None
    ts: Str | None = None


class Player(_Part):
    id: Str
    name: Str | None = None
    seed: Int | None = None
    rating: Num | None = None


class StatusDoc(_Doc):
    type: Literal["status"]
    state: Literal["online", "offline"]
    daemon: dict[Str, Any] | None = None


class EventDoc(_Doc):
    type: Literal["event"]
    name: Str | None = None
    site: Str | None = None
    system: Str | None = None
    double: Bool | None = None
    rounds: Int | None = None
    time_control: Str | None = None
    run_id: Str | None = None
    players: Annotated[list[Player], Field(max_length=MANY)] = []


class ScheduleEntry(_Part):
    game: GameId
    round: Int
    white: Str
    black: Str
    result: ResultText | None = None
    termination: Str | None = None


class ScheduleDoc(_Doc):
    type: Literal["schedule"]
    games: Annotated[list[ScheduleEntry], Field(max_length=10 * MANY)]


class PairedGame(_Part):
    game: GameId
    number: Int
    white: Str
    black: Str
    pair_index: Int | None = None
    leg: Int | None = None


class Pair(_Part):
    first: Str
    second: Str


class PairingDoc(_Doc):
    type: Literal["pairing"]
    round: Int
    bye: Str | None = None
    byes: Annotated[list[Str], Field(max_length=MANY)] | None = None
    removed_history_rounds: Annotated[list[Int], Field(max_length=MANY)] = []
    pairs: Annotated[list[Pair], Field(max_length=MANY)] = []
    games: Annotated[list[PairedGame], Field(max_length=MANY)]


class OpeningPart(_Part):
    name: Str | None = None
    eco: Str | None = None
    fen: Fen | None = None
    moves: Annotated[list[Uci], Field(max_length=1000)] = []
    index: Int | None = None


class StartPart(_Part):
    """A ``start`` document's own fields (also the ``start`` of a ``live`` one)."""

    game: GameId
    round: Int | None = None
    number: Int | None = None
    white: Str
    black: Str
    opening: OpeningPart | None = None
    fen: Fen | None = None
    time_control: Str | None = None
    start_time: Str | None = None
    white_clock_ms: Int | None = None
    black_clock_ms: Int | None = None
    #: The game's PGN tags at its start, in the writer's order (added within
    #: schema 1: absent from an older daemon's).
    headers: Annotated[dict[Str, Text], Field(max_length=256)] | None = None


class StartDoc(_Doc, StartPart):
    type: Literal["start"]


class Eval(_Part):
    cp: Int | None = None
    mate: Int | None = None
    text: Str | None = None


class MovePart(_Part):
    """A move's fields (a ``move`` document; ``last`` of ``live`` and ``end``)."""

    ply: Int
    color: Literal["white", "black"] | None = None
    san: San
    uci: Uci | None = None
    fen: Fen | None = None
    book: Bool | None = None
    move_time_ms: Int | None = None
    clock_left_ms: Int | None = None
    eval: Eval | None = None
    depth: Int | None = None
    seldepth: Int | None = None
    nodes: Int | None = None
    nps: Int | None = None
    tbhits: Int | None = None
    hashfull: Int | None = None
    pv: Annotated[list[San], Field(max_length=1000)] | None = None
    ponder: San | None = None
    r50: Int | None = None
    rd: Int | None = None
    rr: Int | None = None


class MoveDoc(_Doc, MovePart):
    type: Literal["move"]
    game: GameId
    white_clock_ms: Int | None = None
    black_clock_ms: Int | None = None


class LiveDoc(_Doc):
    type: Literal["live"]
    game: GameId
    white: Str
    black: Str
    start: StartPart | None = None
    fen: Fen | None = None
    moves: Annotated[list[San], Field(max_length=MANY)] = []
    last: MovePart | None = None
    white_clock_ms: Int | None = None
    black_clock_ms: Int | None = None


class EndDoc(_Doc):
    type: Literal["end"]
    game: GameId
    round: Int | None = None
    number: Int | None = None
    white: Str
    black: Str
    result: ResultText
    termination: Str | None = None
    termination_detail: Text | None = None
    start_time: Str | None = None
    end_time: Str | None = None
    duration_ms: Int | None = None
    plies: Int | None = None
    final_fen: Fen | None = None
    white_clock_ms: Int | None = None
    black_clock_ms: Int | None = None
    last: MovePart | None = None
    pgn: Annotated[str, Field(strict=True, max_length=MAX_PAYLOAD)] | None = None


class FaultDoc(_Doc):
    type: Literal["fault"]
    engine: Str
    game: GameId | None = None
    kind: Str
    detail: Text | None = None
    strikes: Int | None = None


class DisqualifiedDoc(_Doc):
    type: Literal["disqualified"]
    engine: Str
    reason: Text | None = None
    round: Int | None = None


class EngineStateDoc(_Doc):
    type: Literal["engine"]
    engine: Str
    strikes: Int
    disqualified: Bool
    reason: Text | None = None


class StandingRow(_Part):
    rank: Int
    id: Str
    score: Num
    score_half: Int | None = None
    byes: Int | None = None
    games: Int
    tiebreaks: Annotated[dict[Str, Num], Field(max_length=64)] = {}


class StandingsDoc(_Doc):
    type: Literal["standings"]
    after_round: Int
    final: Bool = False
    rows: Annotated[list[StandingRow], Field(max_length=MANY)]


class CrossResult(_Part):
    game: GameId
    color: Literal["white", "black"]
    result: Literal["1", "=", "0"]


class CrossRow(StandingRow):
    strikes: Int | None = None
    disqualified: Bool | None = None
    results: dict[Str, Annotated[list[CrossResult], Field(max_length=1000)]] = {}


class TcecScore(_Part):
    Game: Int | None = None
    Result: Num | None = None
    Winner: Str | None = None


class TcecH2h(_Part):
    H2h: Num | None = None
    Text: Str | None = None
    Scores: Annotated[list[TcecScore], Field(max_length=1000)] = []


class TcecRow(_Part):
    """A row of TCEC's ``crosstable.json`` (../shared/specs/tcec-formats.md)."""

    Rank: Int | None = None
    Abbreviation: Str | None = None
    Rating: Num | None = None
    Score: Num | None = None
    GamesAsWhite: Int | None = None
    GamesAsBlack: Int | None = None
    WinsAsWhite: Int | None = None
    WinsAsBlack: Int | None = None
    LossAsWhite: Int | None = None
    LossAsBlack: Int | None = None
    Games: Int | None = None
    Neustadtl: Num | None = None
    Strikes: Int | None = None
    Performance: Num | None = None
    Elo: Num | None = None
    Results: dict[Str, TcecH2h] = {}


class TcecCrosstable(_Part):
    """TCEC's ``crosstable.json``, as TCEC's viewer reads it: ``Order`` names
    by rank, ``Table`` a row per name."""

    Event: Str | None = None
    Type: Str | None = None
    Order: Annotated[list[Str], Field(max_length=MANY)]
    Table: dict[Str, TcecRow]


class CrosstableDoc(_Doc):
    type: Literal["crosstable"]
    format: Literal["simple", "tcec"]
    order: Annotated[list[Str], Field(max_length=MANY)] | None = None
    table: dict[Str, CrossRow] | None = None
    #: TCEC's own format (``format: tcec``).
    crosstable: TcecCrosstable | None = None


class BracketPlayer(_Part):
    id: Str
    seed: Int
    score: Num | None = None
    disqualified: Bool = False


class BracketGame(_Part):
    game: GameId
    white: Str
    black: Str
    result: ResultText | None = None
    tiebreak: Bool = False
    opening: Int | None = None


class BracketEncounter(_Part):
    encounter: Int
    status: Str
    #: The two places, upper first (None: a BYE, or not known yet).
    players: Annotated[list[BracketPlayer | None], Field(min_length=2, max_length=2)]
    games: Annotated[list[BracketGame], Field(max_length=1000)] = []
    winner: Str | None = None
    decision: Str | None = None
    reason: Text | None = None


class BracketRound(_Part):
    round: Int
    name: Str
    status: Str
    encounters: Annotated[list[BracketEncounter], Field(max_length=MANY)]


class BracketTiebreak(_Part):
    time_control: Str | None = None
    max_games: Int | None = None


class BracketDoc(_Doc):
    type: Literal["bracket"]
    system: Str
    games: Int
    tiebreak: BracketTiebreak | None = None
    players: Int
    size: Int
    status: Str
    round: Int
    champion: Str | None = None
    rounds: Annotated[list[BracketRound], Field(max_length=64)]


class ForecastModel(_Part):
    kind: Str
    draw_rate: Num
    white_advantage: Num
    prior_sd: Num
    games: Int


class ForecastPlayer(_Part):
    id: Str
    name: Str
    score: Num
    expected_score: Num
    expected_place: Num
    top: Num
    places: Annotated[list[Num], Field(max_length=MANY)]
    rating: Num
    prior_rating: Num


class ForecastDoc(_Doc):
    type: Literal["forecast"]
    after_round: Int
    after_game: Int
    total_rounds: Int
    simulations: Int
    seed: Int | None = None
    top: Int
    model: ForecastModel
    players: Annotated[list[ForecastPlayer], Field(max_length=MANY)]


class KibitzerDoc(_Doc):
    type: Literal["kibitzer"]
    kibitzer: Int
    engine: Str
    desc: Str | None = None
    game: GameId
    ply: Int
    fen: Str
    eval: Eval | None = None
    depth: Int | None = None
    seldepth: Int | None = None
    nodes: Int | None = None
    nps: Int | None = None
    tbhits: Int | None = None
    hashfull: Int | None = None
    time_ms: Int | None = None
    wdl: Annotated[list[Int], Field(min_length=3, max_length=3)] | None = None
    pv: list[Str] = []
    pv_uci: list[Str] = []


class AuditEntry(_Part):
    """One command of the console's audit log (docs/events.md, "The console")."""

    seq: Int
    id: Str | None = None
    received: Str | None = None
    command: Str
    args: dict[Str, Any] = {}
    ok: Bool
    effect: dict[Str, Any] | None = None
    error: Str | None = None


class AuditDoc(_Doc):
    type: Literal["audit"]
    entries: Annotated[list[AuditEntry], Field(max_length=1000)]


class Withdrawal(_Part):
    round: Int | None = None
    reason: Str | None = None


class Replacement(_Part):
    command: list[Str] | None = None
    options: dict[Str, Str | Num | Bool] | None = None


class ConsoleDoc(_Doc):
    type: Literal["console"]
    paused: Bool
    concurrency: Int | None = None
    withdrawn: dict[Str, Withdrawal] = {}
    replaced: dict[Str, Replacement] = {}


class FinishedDoc(_Doc):
    type: Literal["finished"]
    winner: Str | None = None
    rows: Annotated[list[StandingRow], Field(max_length=MANY)] = []


#: The model of each document type (the payload's ``type``).
MODELS: dict[str, type[_Doc]] = {
    "status": StatusDoc,
    "event": EventDoc,
    "schedule": ScheduleDoc,
    "pairing": PairingDoc,
    "start": StartDoc,
    "move": MoveDoc,
    "live": LiveDoc,
    "end": EndDoc,
    "fault": FaultDoc,
    "disqualified": DisqualifiedDoc,
    "engine": EngineStateDoc,
    "standings": StandingsDoc,
    "bracket": BracketDoc,
    "crosstable": CrosstableDoc,
    "forecast": ForecastDoc,
    "kibitzer": KibitzerDoc,
    "finished": FinishedDoc,
    "audit": AuditDoc,
    "console": ConsoleDoc,
}

_SINGLE = ("status", "event", "schedule", "standings", "bracket", "crosstable", "forecast",
           "finished", "audit", "console")


def document_type(levels: Sequence[str]) -> str | None:
    """The document type the topic ``<prefix>/<event>/<levels>`` carries
    (docs/events.md, "Topic tree"), or None for a topic outside the schema."""
    match list(levels):
        case [name] if name in _SINGLE:
            return name
        case ["round", n, "pairing"] if n.isdigit():
            return "pairing"
        case ["game", _gid, "start" | "move" | "live" | "end" as kind]:
            return kind
        case ["engine", _seg, "fault" | "disqualified" as kind]:
            return kind
        case ["engine", _seg, "state"]:
            return "engine"
        case ["kibitzer", n] if n.isdigit():
            return "kibitzer"
    return None


def _first_error(doc_type: str, exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in error["loc"]).replace("schema_", "schema")
    return f"{doc_type}: {where or '(document)'}: {error['msg']}"


def check_document(doc_type: str, obj: object) -> dict[str, Any]:
    """``obj`` (a decoded payload) if it is a ``doc_type`` document as
    docs/events.md describes it; else :class:`InvalidPayload` (another schema
    version: :class:`UnknownPayload`). The object is returned unchanged."""
    if not isinstance(obj, dict):
        raise InvalidPayload(f"{doc_type}: not a JSON object")
    if obj.get("schema") != SCHEMA:
        raise UnknownPayload(f"{doc_type}: schema {obj.get('schema')!r}, not {SCHEMA}")
    model = MODELS.get(doc_type)
    if model is None:
        raise UnknownPayload(f"unknown document type {doc_type!r}")
    if obj.get("type") != doc_type:
        raise InvalidPayload(f"{doc_type}: type {obj.get('type')!r} on a {doc_type!r} topic")
    try:
        model.model_validate(obj)
    except ValidationError as exc:
        raise InvalidPayload(_first_error(doc_type, exc)) from None
    return obj


def parse(levels: Sequence[str], payload: bytes) -> dict[str, Any] | None:
    """The payload of the message on ``<prefix>/<event>/<levels>``, checked
    (see the module docstring); None for an empty payload."""
    if not payload:
        return None
    doc_type = document_type(levels)
    if doc_type is None:
        raise UnknownPayload(f"topic {'/'.join(levels)!r} is not in the schema")
    if len(payload) > MAX_PAYLOAD:
        raise InvalidPayload(f"{doc_type}: {len(payload)} bytes (at most {MAX_PAYLOAD})")
    try:
        obj = json.loads(payload)
    except (ValueError, RecursionError):  # RecursionError: nested thousands deep
        raise InvalidPayload(f"{doc_type}: not JSON") from None
    if _too_deep(obj):
        raise InvalidPayload(f"{doc_type}: nested more than {MAX_DEPTH} levels deep")
    doc = check_document(doc_type, obj)
    _check_topic(doc_type, list(levels), doc)
    return doc


#: The deepest nesting a payload may have: the schema's deepest document (a TCEC
#: crosstable) is some eight levels deep; unknown fields are kept, and a reader
#: that walks them (:func:`printable`) must not run out of stack.
MAX_DEPTH = 32


def _too_deep(obj: object) -> bool:
    """Whether ``obj`` nests more than :data:`MAX_DEPTH` levels (iterative)."""
    stack: list[tuple[object, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                return True
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
    return False


def _check_topic(doc_type: str, levels: list[str], doc: dict[str, Any]) -> None:
    """The document names what its topic names: a message cannot pass for
    another game's or round's (readers key games and rounds by the topic; an
    engine's documents are read by their ``engine`` field, so an engine topic's
    name is not compared: a segment is a lossy form of the name)."""
    match levels:
        case ["round", n, "pairing"] if doc["round"] != int(n):
            raise InvalidPayload(f"pairing: round {doc['round']} on the topic of round {n}")
        case ["game", gid, _] if doc["game"] != gid:
            raise InvalidPayload(f"{doc_type}: game {doc['game']!r} on the topic of another")
        case ["kibitzer", n] if doc["kibitzer"] != int(n):
            raise InvalidPayload(f"kibitzer: {doc['kibitzer']} on the topic of kibitzer {n}")


# -- showing what a payload says -------------------------------------------------------

#: C0 controls, DEL, C1 controls, and the bidirectional formatting characters
#: (LRM/RLM/ALM, LRE..RLO, LRI..PDI): what a terminal or a page must not receive
#: from a stranger.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: What stands for a character taken out.
REPLACEMENT = "\ufffd"


def printable(value: Any) -> Any:
    """``value`` (a decoded payload, or any part of one) with every string's
    control and bidi characters replaced by U+FFFD, keys included; other values
    as they are. Depth-first: a payload is bounded by the broker's message size."""
    if isinstance(value, str):
        return _UNPRINTABLE.sub(REPLACEMENT, value)
    if isinstance(value, dict):
        return {printable(k): printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [printable(v) for v in value]
    return value


__all__ = [
    "MAX_PAYLOAD",
    "MODELS",
    "InvalidPayload",
    "PayloadError",
    "UnknownPayload",
    "check_document",
    "document_type",
    "parse",
    "printable",
]
