"""The stream's documents as strict pydantic models (docs/events.md,
"Payloads"): what :mod:`tcecd.bus.inbound` checks every message a consumer
reads against.

Strict mode (no coercion: ``"1"`` is no integer, ``true`` no number), the
documented fields typed (those a consumer may go without optional) and
unknown fields allowed (a newer daemon may add some within schema 1).
Strings and lists are bounded, so that one document cannot make a consumer
hold megabytes per field. Pure.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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


class SearchPart(_Part):
    """An engine's search figures (a move's, a kibitzer's)."""

    depth: Int | None = None
    seldepth: Int | None = None
    nodes: Int | None = None
    nps: Int | None = None
    tbhits: Int | None = None
    hashfull: Int | None = None


class MovePart(SearchPart):
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


class KibitzerDoc(_Doc, SearchPart):
    type: Literal["kibitzer"]
    kibitzer: Int
    engine: Str
    desc: Str | None = None
    game: GameId
    ply: Int
    fen: Str
    eval: Eval | None = None
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
