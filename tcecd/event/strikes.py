"""Strikes, disqualification and forfeits: the one home of these event rules.

Every engine fault (a crash, a stall, an illegal or malformed move, a time
forfeit, a failed start) is one strike for the engine that made it; an
engine whose strikes reach ``strikes.max`` is disqualified from the round
of that fault on, and its later games are forfeited, not played
(docs/game-rules.md, "Faults and strikes"). The daemon charges the faults
of each game it records (:func:`charge`), and so does ``tcecd run
--from-pgn`` when it rebuilds a state from a PGN (:mod:`tcecd.replay.recover`,
which reads the faults back from the games' terminations); both call the
same function, so the two cannot disagree on who is out. Pure.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from tcecd.domain import GameId, PlayerId, Result, Termination
from tcecd.game.record import GameRecord, Opening

#: (engine, kind, detail) of one engine fault, as the store keeps it.
FaultTuple = tuple[PlayerId, str, str]


@dataclass(frozen=True, slots=True)
class Charged:
    """What a game's faults cost: each offender's strikes after each fault,
    in order, and the engines disqualified by them (engine, reason)."""

    strikes: tuple[tuple[PlayerId, int], ...]
    disqualified: tuple[tuple[PlayerId, str], ...]


def charge(
    strikes: Mapping[PlayerId, int],
    disqualified: Collection[PlayerId],
    faults: Sequence[FaultTuple],
    strikes_max: int | None,
    *,
    note: str = "",
) -> Charged:
    """Charge ``faults`` (in order) to engines that have ``strikes`` so far;
    those reaching ``strikes_max`` (None: never) and not yet ``disqualified``
    are disqualified, with the reason ``"N strikes (last: KIND: DETAIL)"``
    (``note`` appended inside the parentheses, e.g. "restored from the PGN")."""
    counts = dict(strikes)
    after: list[tuple[PlayerId, int]] = []
    out: list[tuple[PlayerId, str]] = []
    for engine, kind, detail in faults:
        counts[engine] = counts.get(engine, 0) + 1
        after.append((engine, counts[engine]))
        if (
            strikes_max is not None
            and counts[engine] >= strikes_max
            and engine not in disqualified
            and engine not in (e for e, _ in out)
        ):
            extra = f"; {note}" if note else ""
            out.append((engine, f"{counts[engine]} strikes (last: {kind}: {detail}{extra})"))
    return Charged(tuple(after), tuple(out))


def forfeit_winner(
    white: PlayerId,
    black: PlayerId,
    out: Collection[PlayerId],
    withdrawn: Collection[PlayerId] = (),
) -> tuple[Result, str]:
    """The result and detail of a game not played because ``out`` (the
    engines disqualified or withdrawn) holds one or both of its players
    (``withdrawn``: those of them the operator withdrew)."""
    w_out, b_out = white in out, black in out

    def why(engine: PlayerId) -> str:
        return f"{engine} withdrew" if engine in withdrawn else f"{engine} disqualified"

    if w_out and b_out:
        if white in withdrawn or black in withdrawn:
            return Result.DRAW, f"{why(white)}; {why(black)}"
        return Result.DRAW, "both engines disqualified"
    if w_out:
        return Result.BLACK_WINS, why(white)
    return Result.WHITE_WINS, why(black)


def forfeit_record(
    *,
    game_id: GameId,
    event: str,
    site: str,
    white: PlayerId,
    black: PlayerId,
    out: Collection[PlayerId],
    opening: Opening,
    time_control: str,
    now: str,
    white_elo: int | None = None,
    black_elo: int | None = None,
    withdrawn: Collection[PlayerId] = (),
) -> GameRecord:
    """The record of a game forfeited because an engine is out (see
    :func:`forfeit_winner`): no moves, ``Termination "forfeit"``, stamped
    ``now`` (the caller reads the clock)."""
    result, detail = forfeit_winner(white, black, out, withdrawn)
    return GameRecord(
        game_id=game_id,
        event=event,
        site=site,
        white=white,
        black=black,
        result=result,
        termination=Termination.FORFEIT,
        termination_detail=detail,
        start_time=now,
        end_time=now,
        duration_ms=0,
        time_control=time_control,
        opening=opening,
        moves=(),
        white_elo=white_elo,
        black_elo=black_elo,
    )
