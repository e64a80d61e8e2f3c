"""The MQTT payloads' schemas (docs/events.md) for the stream's consumers. Pure.

Whoever can publish on the broker (an anonymous client of an embedded broker,
a page open on the same host through its websockets listener) can put any
payload on tcecd's topics, and a retained one stays there for every later
viewer. A consumer (``tcecd web``'s page model and TCEC feed, ``tcecd
watch``) checks each payload here before it uses it: :func:`check` says
whether a payload is a well-typed document of the kind its topic carries.
A bad one is skipped and counted, never raised: one stranger's message must
not stop a viewer or reach a browser with the wrong types (a ``score`` that is
a string of HTML).

The models are pydantic's, in strict mode (no coercion: ``"1"`` is not an
int, ``true`` not a number), with the documented fields typed and optional (a
newer daemon may add fields, an older one may lack one added within schema 1)
and unknown fields allowed, as docs/events.md promises. Strings and lists are
bounded so that one document cannot make a consumer hold megabytes per field.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from tcecd.bus.payloads import SCHEMA

#: Payloads larger than this are skipped unread (a 300-ply game's ``end`` with
#: its PGN is about 100 kB; a 64-engine TCEC crosstable about 250 kB).
MAX_PAYLOAD = 2 * 1024 * 1024

Name = Annotated[str, Field(max_length=256)]
Text = Annotated[str, Field(max_length=4096)]
Fen = Annotated[str, Field(max_length=128)]
San = Annotated[str, Field(max_length=16)]
Int = int
Num = float  # strict mode still takes an int for a float


class _Doc(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow", frozen=True)


class _Common(_Doc):
    schema_: Literal[1] = Field(alias="schema")
    type: Name
    event: Name | None = None
    ts: Name | None = None


class Status(_Common):
    state: Literal["online", "offline"] | None = None
    daemon: dict[str, Any] | None = None


class _Player(_Doc):
    id: Name
    name: Name | None = None
    seed: Int | None = None
    rating: Num | None = None


class Event(_Common):
    name: Name | None = None
    site: Name | None = None
    system: Name | None = None
    double: bool | None = None
    rounds: Int | None = None
    time_control: Name | None = None
    run_id: Name | None = None
    players: Annotated[list[_Player], Field(max_length=10_000)] = []


class _Pair(_Doc):
    first: Name
    second: Name


class _PairedGame(_Doc):
    game: Name
    number: Int
    white: Name
    black: Name
    pair_index: Int | None = None
    leg: Int | None = None


class Pairing(_Common):
    round: Int
    bye: Name | None = None
    removed_history_rounds: list[Int] = []
    pairs: Annotated[list[_Pair], Field(max_length=10_000)] = []
    games: Annotated[list[_PairedGame], Field(max_length=10_000)] = []


class _ScheduledGame(_Doc):
    game: Name
    round: Int | None = None
    white: Name
    black: Name
    result: Name | None = None
    termination: Name | None = None


class Schedule(_Common):
    games: Annotated[list[_ScheduledGame], Field(max_length=100_000)] = []


class _Opening(_Doc):
    name: Name | None = None
    eco: Name | None = None
    fen: Fen | None = None
    moves: Annotated[list[Name], Field(max_length=1000)] = []
    index: Int | None = None


class _StartFields(_Doc):
    game: Name | None = None
    round: Int | None = None
    number: Int | None = None
    white: Name | None = None
    black: Name | None = None
    opening: _Opening | None = None
    fen: Fen | None = None
    time_control: Name | None = None
    start_time: Name | None = None
    white_clock_ms: Int | None = None
    black_clock_ms: Int | None = None


class Start(_Common, _StartFields):
    game: Name
    white: Name
    black: Name


class _Eval(_Doc):
    cp: Int | None = None
    mate: Int | None = None
    text: Name | None = None


class _MoveFields(_Doc):
    ply: Int
    color: Literal["white", "black"] | None = None
    san: San
    uci: Annotated[str, Field(max_length=8)]
    fen: Fen
    book: bool | None = None
    move_time_ms: Int | None = None
    clock_left_ms: Int | None = None
    eval: _Eval | None = None
    depth: Int | None = None
    seldepth: Int | None = None
    nodes: Int | None = None
    nps: Int | None = None
    tbhits: Int | None = None
    hashfull: Int | None = None
    pv: Annotated[list[San], Field(max_length=1000)] = []
    ponder: San | None = None
    r50: Int | None = None
    rd: Int | None = None
    rr: Int | None = None
    white_clock_ms: Int | None = None
    black_clock_ms: Int | None = None


class Move(_Common, _MoveFields):
    game: Name


class Live(_Common):
    game: Name
    white: Name | None = None
    black: Name | None = None
    start: _StartFields | None = None
    fen: Fen | None = None
    moves: Annotated[list[San], Field(max_length=10_000)] = []
    last: _MoveFields | None = None
    white_clock_ms: Int | None = None
    black_clock_ms: Int | None = None


class End(_Common):
    game: Name
    round: Int | None = None
    number: Int | None = None
    white: Name
    black: Name
    result: Literal["1-0", "0-1", "1/2-1/2", "*"]
    termination: Name | None = None
    termination_detail: Text | None = None
    start_time: Name | None = None
    end_time: Name | None = None
    duration_ms: Int | None = None
    plies: Int | None = None
    final_fen: Fen | None = None
    white_clock_ms: Int | None = None
    black_clock_ms: Int | None = None
    last: _MoveFields | None = None
    pgn: Annotated[str, Field(max_length=MAX_PAYLOAD)] | None = None


class Fault(_Common):
    engine: Name
    game: Name | None = None
    kind: Name | None = None
    detail: Text | None = None
    strikes: Int | None = None


class Disqualified(_Common):
    engine: Name
    reason: Text | None = None
    round: Int | None = None


class EngineState(_Common):
    engine: Name
    strikes: Int | None = None
    disqualified: bool | None = None
    reason: Text | None = None


class _Standing(_Doc):
    rank: Int
    id: Name
    score: Num
    score_half: Int | None = None
    byes: Int | None = None
    games: Int | None = None
    tiebreaks: Annotated[dict[Name, Num], Field(max_length=64)] = {}


class Standings(_Common):
    after_round: Int | None = None
    final: bool | None = None
    rows: Annotated[list[_Standing], Field(max_length=10_000)] = []


class _SimpleResult(_Doc):
    game: Name | None = None
    color: Literal["white", "black"] | None = None
    result: Literal["1", "=", "0"]


class _SimpleRow(_Standing):
    strikes: Int | None = None
    disqualified: bool | None = None
    results: dict[Name, Annotated[list[_SimpleResult], Field(max_length=1000)]] = {}


class _TcecScore(_Doc):
    Game: Int | None = None
    Result: Num | None = None
    Winner: Name | None = None


class _TcecH2h(_Doc):
    H2h: Num | None = None
    Text: Name | None = None
    Scores: Annotated[list[_TcecScore], Field(max_length=1000)] = []


class _TcecRow(_Doc):
    Rank: Int | None = None
    Abbreviation: Name | None = None
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
    Results: dict[Name, _TcecH2h] = {}


class _TcecCrosstable(_Doc):
    Event: Name | None = None
    Type: Name | None = None
    Order: Annotated[list[Name], Field(max_length=10_000)]
    Table: dict[Name, _TcecRow]


class Crosstable(_Common):
    format: Literal["simple", "tcec"]
    order: Annotated[list[Name], Field(max_length=10_000)] = []
    table: dict[Name, _SimpleRow] = {}
    crosstable: _TcecCrosstable | None = None


class _ForecastPlayer(_Doc):
    id: Name
    name: Name | None = None
    score: Num | None = None
    expected_score: Num | None = None
    expected_place: Num | None = None
    top: Num | None = None
    places: Annotated[list[Num], Field(max_length=10_000)] = []
    rating: Num | None = None
    prior_rating: Num | None = None


class Forecast(_Common):
    after_round: Int | None = None
    after_game: Int | None = None
    total_rounds: Int | None = None
    simulations: Int | None = None
    seed: Int | None = None
    top: Int | None = None
    model: dict[Name, Name | Num | None] | None = None
    players: Annotated[list[_ForecastPlayer], Field(max_length=10_000)] = []


class Finished(_Common):
    winner: Name | None = None
    rows: Annotated[list[_Standing], Field(max_length=10_000)] = []


class Kibitzer(_Common):
    kibitzer: Int
    engine: Name | None = None
    game: Name | None = None
    ply: Int | None = None
    depth: Int | None = None
    seldepth: Int | None = None
    nodes: Int | None = None
    nps: Int | None = None
    tbhits: Int | None = None


#: The document a topic (the levels below ``<prefix>/<event>``) carries, and its ``type``.
_BY_TOPIC: dict[str, tuple[str, type[_Doc]]] = {
    "status": ("status", Status),
    "event": ("event", Event),
    "schedule": ("schedule", Schedule),
    "round/pairing": ("pairing", Pairing),
    "game/start": ("start", Start),
    "game/move": ("move", Move),
    "game/live": ("live", Live),
    "game/end": ("end", End),
    "engine/fault": ("fault", Fault),
    "engine/disqualified": ("disqualified", Disqualified),
    "engine/state": ("engine", EngineState),
    "standings": ("standings", Standings),
    "crosstable": ("crosstable", Crosstable),
    "forecast": ("forecast", Forecast),
    "finished": ("finished", Finished),
    "kibitzer": ("kibitzer", Kibitzer),
}

_ADAPTERS = {key: (kind, TypeAdapter(model)) for key, (kind, model) in _BY_TOPIC.items()}


def topic_kind(rest: list[str]) -> str | None:
    """The key of :data:`_BY_TOPIC` for the topic levels below ``<prefix>/<event>``
    (``["game", "1.1", "move"]`` -> ``"game/move"``); None for a topic tcecd does
    not publish."""
    match rest:
        case [name] if name in ("status", "event", "schedule", "standings", "crosstable",
                                "forecast", "finished"):
            return name
        case ["round", n, "pairing"] if n.isdigit():
            return "round/pairing"
        case ["kibitzer", n] if n.isdigit():
            return "kibitzer"
        case ["game", _gid, "start" | "move" | "live" | "end" as kind]:
            return f"game/{kind}"
        case ["engine", _seg, "fault" | "disqualified" | "state" as kind]:
            return f"engine/{kind}"
    return None


def parse(rest: list[str], payload: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """``(document, None)`` for a well-typed payload on the topic levels
    ``rest`` (see :func:`check`) and ``(None, reason)`` for one to skip.
    ``(None, None)``: nothing to read, nothing wrong: an empty payload (a
    retained document deleted), or a topic tcecd does not publish (a newer
    daemon's, or the stale-state sweep's marker), which docs/events.md tells
    consumers to ignore."""
    if not payload or topic_kind(rest) is None:
        return None, None
    if len(payload) > MAX_PAYLOAD:
        return None, f"{len(payload)} bytes (at most {MAX_PAYLOAD})"
    try:
        doc = json.loads(payload)
    except ValueError:
        return None, "not JSON"
    reason = check(rest, doc)
    return (doc, None) if reason is None else (None, reason)


def check(rest: list[str], doc: Any) -> str | None:
    """Why ``doc`` (a decoded payload on the topic levels ``rest`` below
    ``<prefix>/<event>``) is not the document docs/events.md describes there;
    None when it is. Another schema version is not one either: its fields may
    have other types (docs/events.md), so a consumer of version 1 skips it."""
    key = topic_kind(rest)
    if key is None:
        return f"a topic tcecd does not publish ({'/'.join(rest)!r})"
    if not isinstance(doc, dict):
        return "not a JSON object"
    if doc.get("schema") != SCHEMA:
        return f"schema {doc.get('schema')!r}, not {SCHEMA}"
    kind, adapter = _ADAPTERS[key]
    if doc.get("type") != kind:
        return f"type {doc.get('type')!r} on a {kind!r} topic"
    try:
        adapter.validate_python(doc)
    except ValidationError as exc:
        err = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(x) for x in err["loc"])
        return f"{where}: {err['msg']}"
    return None
