"""JSON (de)serialisation of the values the store keeps.

Pure functions between the frozen domain values (:class:`~tcecd.game.record.GameRecord`,
:class:`~tcecd.pairing.base.RoundPairing`, :class:`~tcecd.pairing.base.Player`) and
plain JSON-ready dicts. The store writes these as TEXT columns, so the layout
here is the on-disk format: change it only together with ``SCHEMA_VERSION`` in
:mod:`tcecd.store.sqlite`.
"""

from __future__ import annotations

from typing import Any

from tcecd.domain import Color, GameId, Result, Termination
from tcecd.errors import StateError
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.pairing.base import Pair, Player, RoundPairing, ScheduledGame

JsonDict = dict[str, Any]


def player_to_dict(p: Player) -> JsonDict:
    return {"id": p.id, "name": p.name, "seed": p.seed, "rating": p.rating}


def player_from_dict(d: JsonDict) -> Player:
    return Player(id=d["id"], name=d["name"], seed=int(d["seed"]), rating=d.get("rating"))


def pairing_to_dict(p: RoundPairing) -> JsonDict:
    """A round with at most one pairing-allocated bye keeps the layout of
    every earlier store (``"bye"``: the id or null); one with several (the
    integer program) has ``"byes"``, a sorted list, instead."""
    byes: JsonDict = (
        {"byes": sorted(p.byes)} if len(p.byes) > 1 else {"bye": next(iter(p.byes), None)}
    )
    return {
        "round": p.round,
        **byes,
        "removed_history_rounds": list(p.removed_history_rounds),
        "pairs": [[pair.first, pair.second] for pair in p.pairs],
        "games": [[g.number, g.white, g.black, g.pair_index, g.leg] for g in p.games],
    }


def pairing_from_dict(d: JsonDict) -> RoundPairing:
    return RoundPairing(
        round=int(d["round"]),
        byes=d["byes"] if "byes" in d else d["bye"],
        removed_history_rounds=tuple(int(r) for r in d["removed_history_rounds"]),
        pairs=tuple(Pair(first=a, second=b) for a, b in d["pairs"]),
        games=tuple(
            ScheduledGame(number=n, white=w, black=b, pair_index=i, leg=leg)
            for n, w, b, i, leg in d["games"]
        ),
    )


def _score_to(s: Score | None) -> list[int | None] | None:
    return None if s is None else [s.cp, s.mate]


def _score_from(v: list[int | None] | None) -> Score | None:
    return None if v is None else Score(cp=v[0], mate=v[1])


_MOVE_FIELDS = (
    "move_time_ms", "clock_left_ms", "depth", "seldepth", "nodes", "nps",
    "ponder_san", "tbhits", "hashfull", "r50", "rd", "rr",
)  # fmt: skip


def move_to_dict(m: MoveRecord) -> JsonDict:
    d: JsonDict = {
        "ply": m.ply,
        "color": m.color.value,
        "uci": m.uci,
        "san": m.san,
        "fen": m.fen_after,
    }
    if m.book:
        d["book"] = True
    if m.score is not None:
        d["score"] = _score_to(m.score)
    if m.pv_san:
        d["pv"] = list(m.pv_san)
    for name in _MOVE_FIELDS:
        value = getattr(m, name)
        if value is not None:
            d[name] = value
    return d


def move_from_dict(d: JsonDict) -> MoveRecord:
    reported: dict[str, Any] = {name: d.get(name) for name in _MOVE_FIELDS}
    return MoveRecord(
        ply=int(d["ply"]),
        color=Color(d["color"]),
        uci=d["uci"],
        san=d["san"],
        fen_after=d["fen"],
        book=bool(d.get("book", False)),
        score=_score_from(d.get("score")),
        pv_san=tuple(d.get("pv", ())),
        **reported,
    )


def opening_to_dict(o: Opening) -> JsonDict:
    d: JsonDict = {
        "name": o.name, "fen": o.fen, "moves": list(o.moves), "eco": o.eco, "index": o.index,
    }  # fmt: skip
    if o.chess960:
        # Only when set (added within schema version 1): a standard game's
        # record reads as it did before Chess960 existed.
        d["chess960"] = True
    return d


def opening_from_dict(d: JsonDict) -> Opening:
    return Opening(
        name=d.get("name"),
        fen=d.get("fen"),
        moves=tuple(d.get("moves", ())),
        eco=d.get("eco"),
        index=d.get("index"),
        chess960=d.get("chess960", False) is True,
    )


def _pairs(items: tuple[tuple[str, str], ...]) -> list[list[str]]:
    return [[k, v] for k, v in items]


def _unpairs(items: list[list[str]]) -> tuple[tuple[str, str], ...]:
    return tuple((k, v) for k, v in items)


def record_to_dict(r: GameRecord) -> JsonDict:
    """A finished game as a JSON-ready dict (every field, moves included)."""
    return {
        "game_id": str(r.game_id),
        "event": r.event,
        "site": r.site,
        "white": r.white,
        "black": r.black,
        "result": r.result.value,
        "termination": r.termination.value,
        "termination_detail": r.termination_detail,
        "start_time": r.start_time,
        "end_time": r.end_time,
        "duration_ms": r.duration_ms,
        "time_control": r.time_control,
        "opening": opening_to_dict(r.opening),
        "moves": [move_to_dict(m) for m in r.moves],
        "white_options": _pairs(r.white_options),
        "black_options": _pairs(r.black_options),
        "white_elo": r.white_elo,
        "black_elo": r.black_elo,
        "extra_tags": _pairs(r.extra_tags),
    }


def record_from_dict(d: JsonDict) -> GameRecord:
    """Inverse of :func:`record_to_dict`; a malformed dict is a :class:`StateError`."""
    try:
        return GameRecord(
            game_id=GameId.parse(d["game_id"]),
            event=d["event"],
            site=d["site"],
            white=d["white"],
            black=d["black"],
            result=Result.from_pgn(d["result"]),
            termination=Termination(d["termination"]),
            termination_detail=d["termination_detail"],
            start_time=d["start_time"],
            end_time=d["end_time"],
            duration_ms=int(d["duration_ms"]),
            time_control=d["time_control"],
            opening=opening_from_dict(d["opening"]),
            moves=tuple(move_from_dict(m) for m in d["moves"]),
            white_options=_unpairs(d.get("white_options", [])),
            black_options=_unpairs(d.get("black_options", [])),
            white_elo=d.get("white_elo"),
            black_elo=d.get("black_elo"),
            extra_tags=_unpairs(d.get("extra_tags", [])),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise StateError(f"stored game record is malformed: {exc!r}") from None
