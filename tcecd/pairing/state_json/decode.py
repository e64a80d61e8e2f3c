"""Reading the event document (:mod:`tcecd.pairing.state_json`): every value
checked, every error one line naming the source and the JSON path."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tcecd.domain import Color, PlayerId, Result
from tcecd.errors import PairingError
from tcecd.pairing.base import (
    Bye,
    ByeKind,
    PlayedGame,
    Player,
    RoundContext,
    RoundRecord,
)
from tcecd.pairing.points import (
    OUTCOMES,
    STANDARD,
    Acceleration,
    ForbiddenPairs,
    PointSystem,
    acceleration_from_points,
    exact,
    forbidden_pairs,
    parse_points,
)
from tcecd.pairing.tally import removed_rounds, tally

#: The document is four levels deep; deeper nesting is refused before parsing
#: (``json.loads`` recurses once per level and would end in a RecursionError).
MAX_JSON_DEPTH = 32
_SPECIAL = re.compile(r'["\[\]{}]')


def json_depth_over(text: str, limit: int) -> bool:
    """True when the JSON text nests arrays/objects more than ``limit`` deep
    (brackets inside strings do not count). One pass, linear in the text;
    malformed text (an unterminated string) is left to the parser."""
    depth = 0
    pos = 0
    while (match := _SPECIAL.search(text, pos)) is not None:
        char, pos = match.group(), match.end()
        if char == '"':
            # Skip to the closing quote: one not preceded by an odd run of backslashes.
            while True:
                end = text.find('"', pos)
                if end < 0:
                    return False
                run = end
                while run > pos and text[run - 1] == "\\":
                    run -= 1
                pos = end + 1
                if (end - run) % 2 == 0:
                    break
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class EventJsonError(PairingError):
    """An event document is malformed (the message names the JSON path)."""


@dataclass(frozen=True, slots=True)
class EventState:
    """A whole event document as read: the system it names (None: not named),
    players in seed order, double rounds or not, finished rounds, and the
    context of the round to pair next."""

    system: str | None
    players: tuple[Player, ...]
    double: bool
    rounds: tuple[RoundRecord, ...]
    context: RoundContext


class _Reader:
    """Typed access to parsed JSON that names the path of every bad value."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, message: str) -> EventJsonError:
        return EventJsonError(f"{self.source}: {path}: {message}")

    def obj(self, value: Any, path: str, allowed: Sequence[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {_kind(value)}")
        for key in value:
            if key not in allowed:
                raise self.fail(f"{path}.{key}", f"unknown key {key!r}")
        return value

    def array(self, value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected an array, got {_kind(value)}")
        return value

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(path, f"expected a non-empty string, got {value!r}")
        return value

    def integer(self, value: Any, path: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"expected an integer, got {value!r}")
        return value

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"expected true or false, got {value!r}")
        return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), f"{value!r}"
    )


def load_event_json(
    text: str, source_name: str
) -> tuple[tuple[Player, ...], bool, tuple[RoundRecord, ...]]:
    """Parse and check an event document: (players in seed order, double, rounds).

    Raises :class:`EventJsonError` (a :class:`PairingError`) with a one-line
    message naming ``source_name`` and the JSON path of the bad value.
    """
    state = load_event_state(text, source_name)
    return state.players, state.double, state.rounds


def load_event_state(text: str, source_name: str) -> EventState:
    """Parse and check a whole event document (:class:`EventState`), with the
    system it names and the context of the round to pair next; errors as
    :func:`load_event_json`."""
    from tcecd.pairing.registry import NAMES, canonical_name

    rd = _Reader(source_name)
    if json_depth_over(text, MAX_JSON_DEPTH):
        raise EventJsonError(
            f"{source_name}: nested more than {MAX_JSON_DEPTH} levels deep; not an event document"
        )
    try:
        raw = json.loads(text)
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise EventJsonError(f"{source_name}: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise EventJsonError(
            f"{source_name}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError:  # Python refuses integers of over 4300 digits
        raise EventJsonError(f"{source_name}: a number with too many digits") from None
    top = rd.obj(raw, "$", ("system", "double", "players", "rounds", "standings", "context"))
    system: str | None = None
    if "system" in top:
        if top["system"] not in NAMES:
            raise rd.fail(
                "$.system",
                f"unsupported system {top['system']!r} (known: {', '.join(NAMES)})",
            )
        system = canonical_name(top["system"])
    double = rd.boolean(top.get("double", False), "$.double")
    if "players" not in top:
        raise rd.fail("$", "missing key 'players'")
    players = _load_players(rd, top["players"])
    known = {p.id for p in players}
    rounds = _load_rounds(rd, top.get("rounds", []), players, double)
    context = RoundContext()
    if "context" in top:
        keys = (
            "total_rounds",
            "first_colour",
            "requested_byes",
            "forbidden_pairs",
            "points",
            "acceleration",
        )
        obj = rd.obj(top["context"], "$.context", keys)
        total_raw = obj.get("total_rounds")
        total = None if total_raw is None else rd.integer(total_raw, "$.context.total_rounds")
        if total is not None and total < len(rounds):
            raise rd.fail(
                "$.context.total_rounds",
                f"{total} rounds, but the document has {len(rounds)} finished round(s)",
            )
        colour_raw = obj.get("first_colour", Color.WHITE.value)
        if colour_raw not in (Color.WHITE.value, Color.BLACK.value):
            raise rd.fail(
                "$.context.first_colour", f"expected 'white' or 'black', got {colour_raw!r}"
            )
        byes = _load_byes(rd, obj.get("requested_byes", []), "$.context.requested_byes", known)
        points, acceleration = _load_points(rd, obj, known)
        context = RoundContext(
            total_rounds=total,
            requested_byes=byes,
            first_colour=Color(colour_raw),
            forbidden_pairs=_load_forbidden(rd, obj.get("forbidden_pairs", []), known),
            points=points,
            acceleration=acceleration,
        )
    return EventState(system, players, double, rounds, context)


def _load_forbidden(rd: _Reader, value: Any, known: set[str]) -> ForbiddenPairs:
    """``[[id, id], ...]``: players who must not meet (each a known player)."""
    path = "$.context.forbidden_pairs"
    groups: list[list[str]] = []
    for j, item in enumerate(rd.array(value, path)):
        pair = rd.array(item, f"{path}[{j}]")
        if len(pair) != 2:
            raise rd.fail(f"{path}[{j}]", f"expected two players, got {len(pair)}")
        ids = [rd.string(pid, f"{path}[{j}][{k}]") for k, pid in enumerate(pair)]
        for k, pid in enumerate(ids):
            if pid not in known:
                raise rd.fail(f"{path}[{j}][{k}]", f"unknown player {pid!r}")
        if ids[0] == ids[1]:
            raise rd.fail(f"{path}[{j}]", f"{ids[0]!r} is paired with itself")
        groups.append(ids)
    return forbidden_pairs(groups)


def _load_points(
    rd: _Reader, obj: dict[str, Any], known: set[str]
) -> tuple[PointSystem, Acceleration]:
    """The context's ``"points"`` and ``"acceleration"`` (in a common unit)."""
    points = STANDARD
    if "points" in obj:
        raw = rd.obj(obj["points"], "$.context.points", (*OUTCOMES, "win", "draw", "loss"))
        try:
            points = parse_points(raw) if raw else STANDARD
        except ValueError as exc:
            raise rd.fail("$.context.points", str(exc)) from None
    virtual: dict[str, list[Fraction]] = {}
    if "acceleration" in obj:
        path = "$.context.acceleration"
        raw_acc = obj["acceleration"]
        if not isinstance(raw_acc, dict):
            raise rd.fail(path, f"expected an object, got {_kind(raw_acc)}")
        for pid, row in raw_acc.items():
            if pid not in known:
                raise rd.fail(f"{path}.{pid}", f"unknown player {pid!r}")
            values: list[Fraction] = []
            for k, item in enumerate(rd.array(row, f"{path}.{pid}")):
                try:
                    values.append(exact(item))
                except ValueError as exc:
                    raise rd.fail(f"{path}.{pid}[{k}]", str(exc)) from None
            virtual[pid] = values
    return acceleration_from_points(virtual, points)


def _load_byes(
    rd: _Reader, value: Any, path: str, known: set[str], *, allocated: bool = False
) -> tuple[Bye, ...]:
    """Requested byes: ``[{"player": id, "kind": "H"|"F"|"Z"}]``, each player once.
    ``allocated``: a finished round's record may also hold kind ``U``, the further
    pairing-allocated byes of a system that leaves several players unpaired (the
    integer-program model); a round to pair may not ask for one."""
    byes: list[Bye] = []
    for j, item in enumerate(rd.array(value, path)):
        obj = rd.obj(item, f"{path}[{j}]", ("player", "kind"))
        for key in ("player", "kind"):
            if key not in obj:
                raise rd.fail(f"{path}[{j}]", f"missing key {key!r}")
        pid = rd.string(obj["player"], f"{path}[{j}].player")
        if pid not in known:
            raise rd.fail(f"{path}[{j}].player", f"unknown player {pid!r}")
        if any(b.player == pid for b in byes):
            raise rd.fail(f"{path}[{j}].player", f"{pid!r} has two requested byes")
        kinds = {k.value: k for k in ByeKind if allocated or k is not ByeKind.PAIRING}
        if obj["kind"] not in kinds:
            expected = "'U', 'H', 'F' or 'Z'" if allocated else "'H', 'F' or 'Z'"
            raise rd.fail(f"{path}[{j}].kind", f"expected {expected}, got {obj['kind']!r}")
        byes.append(Bye(pid, kinds[obj["kind"]]))
    return tuple(byes)


def _load_players(rd: _Reader, value: Any) -> tuple[Player, ...]:
    items = rd.array(value, "$.players")
    if not items:
        raise rd.fail("$.players", "no players")
    players: list[Player] = []
    ids: set[str] = set()
    seeds: set[int] = set()
    for i, item in enumerate(items):
        path = f"$.players[{i}]"
        obj = rd.obj(item, path, ("id", "name", "seed", "rating", "title"))
        for key in ("id", "seed"):
            if key not in obj:
                raise rd.fail(path, f"missing key {key!r}")
        pid = rd.string(obj["id"], f"{path}.id")
        if pid in ids:
            raise rd.fail(f"{path}.id", f"duplicate player id {pid!r}")
        name = rd.string(obj.get("name", pid), f"{path}.name")
        seed = rd.integer(obj["seed"], f"{path}.seed")
        if not 1 <= seed <= len(items):
            raise rd.fail(f"{path}.seed", f"seed {seed} is not in 1..{len(items)}")
        if seed in seeds:
            raise rd.fail(f"{path}.seed", f"duplicate seed {seed}")
        rating_raw = obj.get("rating")
        rating = None if rating_raw is None else rd.integer(rating_raw, f"{path}.rating")
        title_raw = obj.get("title")
        title = None if title_raw is None else rd.string(title_raw, f"{path}.title")
        ids.add(pid)
        seeds.add(seed)
        players.append(Player(id=pid, name=name, seed=seed, rating=rating, title=title))
    return tuple(sorted(players, key=lambda p: p.seed))


def _load_rounds(
    rd: _Reader, value: Any, players: Sequence[Player], double: bool
) -> tuple[RoundRecord, ...]:
    known = {p.id for p in players}
    records: list[RoundRecord] = []
    for i, item in enumerate(rd.array(value, "$.rounds")):
        path = f"$.rounds[{i}]"
        obj = rd.obj(
            item,
            path,
            ("round", "bye", "byes", "removed_history_rounds", "games", "pairs",
             "requested_byes"),
        )
        for key in ("round", "games"):
            if key not in obj:
                raise rd.fail(path, f"missing key {key!r}")
        number = rd.integer(obj["round"], f"{path}.round")
        if number != i + 1:
            raise rd.fail(f"{path}.round", f"expected round {i + 1}, got {number}")
        byes: list[PlayerId] = []
        if obj.get("bye") is not None:
            byes.append(rd.string(obj["bye"], f"{path}.bye"))
            if byes[0] not in known:
                raise rd.fail(f"{path}.bye", f"unknown player {byes[0]!r}")
        for j, raw_bye in enumerate(rd.array(obj.get("byes", []), f"{path}.byes")):
            pid = rd.string(raw_bye, f"{path}.byes[{j}]")
            if pid not in known:
                raise rd.fail(f"{path}.byes[{j}]", f"unknown player {pid!r}")
            if pid in byes:
                raise rd.fail(f"{path}.byes[{j}]", f"{pid!r} has two byes")
            byes.append(pid)
        removed = tuple(
            rd.integer(r, f"{path}.removed_history_rounds[{j}]")
            for j, r in enumerate(
                rd.array(obj.get("removed_history_rounds", []), f"{path}.removed_history_rounds")
            )
        )
        games = tuple(
            _load_game(rd, g, f"{path}.games[{j}]", known)
            for j, g in enumerate(rd.array(obj["games"], f"{path}.games"))
        )
        requested = _load_byes(
            rd, obj.get("requested_byes", []), f"{path}.requested_byes", known, allocated=True
        )
        for j, b in enumerate(requested):
            if b.player in byes:
                raise rd.fail(
                    f"{path}.requested_byes[{j}].player", f"{b.player!r} has two byes"
                )
        record = RoundRecord(
            round=number,
            byes=byes,
            removed_history_rounds=removed,
            games=games,
            requested_byes=requested,
        )
        _check_round(rd, path, record, players, double)
        records.append(record)
    try:
        removed_rounds(records)
        tally(players, records, double=double)
    except PairingError as exc:
        raise rd.fail("$.rounds", str(exc)) from None
    return tuple(records)


def _load_game(rd: _Reader, value: Any, path: str, known: set[str]) -> PlayedGame:
    obj = rd.obj(value, path, ("white", "black", "result", "played"))
    for key in ("white", "black", "result"):
        if key not in obj:
            raise rd.fail(path, f"missing key {key!r}")
    white = rd.string(obj["white"], f"{path}.white")
    black = rd.string(obj["black"], f"{path}.black")
    for key, pid in (("white", white), ("black", black)):
        if pid not in known:
            raise rd.fail(f"{path}.{key}", f"unknown player {pid!r}")
    if white == black:
        raise rd.fail(path, f"{white!r} plays itself")
    result_text = obj["result"]
    try:
        result = Result.from_pgn(result_text) if isinstance(result_text, str) else None
    except ValueError:
        result = None
    if result is None or result is Result.UNFINISHED:
        raise rd.fail(
            f"{path}.result", f"invalid result {result_text!r} (expected 1-0, 0-1 or 1/2-1/2)"
        )
    played = rd.boolean(obj.get("played", True), f"{path}.played")
    return PlayedGame(white=white, black=black, result=result, played=played)


def _check_round(
    rd: _Reader, path: str, record: RoundRecord, players: Sequence[Player], double: bool
) -> None:
    """Every player exactly once: in a game (twice against the same opponent
    with reversed colours in a double round), as the BYE or with a requested bye."""
    legs = 2 if double else 1
    games_of: dict[PlayerId, list[int]] = {}
    for j, g in enumerate(record.games):
        for pid in (g.white, g.black):
            games_of.setdefault(pid, []).append(j)
            if len(games_of[pid]) > legs:
                raise rd.fail(f"{path}.games[{j}]", f"{pid!r} plays more than {legs} game(s)")
    requested = {b.player for b in record.requested_byes}
    for p in players:
        count = len(games_of.get(p.id, []))
        if p.id in requested:
            if count:
                raise rd.fail(f"{path}.requested_byes", f"player {p.id!r} has a bye and plays")
        elif p.id in record.byes:
            if count:
                key = "bye" if len(record.byes) == 1 else "byes"
                raise rd.fail(f"{path}.{key}", f"BYE player {p.id!r} also plays")
        elif count == 0:
            raise rd.fail(f"{path}.games", f"player {p.id!r} is not paired in this round")
        elif count != legs:
            # A double round with one of a pair's two games missing.
            raise rd.fail(
                f"{path}.games",
                f"player {p.id!r} plays {count} game(s); a double round needs {legs}",
            )
    if double:
        for pid, (j1, j2) in games_of.items():
            g1, g2 = record.games[j1], record.games[j2]
            if (g1.white, g1.black) != (g2.black, g2.white):
                raise rd.fail(
                    f"{path}.games[{j2}]",
                    f"{pid!r}: a double round's two games must be one pair with reversed colours",
                )
