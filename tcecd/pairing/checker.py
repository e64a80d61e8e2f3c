"""Re-pair every finished round and list those the rules pair differently.

The checker mode of ``tcecd pair --check`` (JaVaFo's and bbpPairings' ``-c``):
round ``r`` is paired by the system from rounds ``1..r-1``, with the round's
own requested byes and the event's total rounds and first colour, and
compared with the round as recorded. Pure: records in, discrepancies out.

A round is compared as a set (a TRF has no board order): the same games with
the same colours, the same pairing-allocated byes (a set: the integer program
may leave several players unpaired) and, for TCEC Swiss, the same removed
history rounds. The event's rules (forbidden pairs, point system, virtual
points) come with the context. A game never played (a forfeit) is compared
without colours, as its colours count for nothing (C.04.1 "Basic rules";
a TRF may not even record them).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from tcecd.domain import PlayerId
from tcecd.errors import PairingError
from tcecd.pairing.base import (
    PairingSystem,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
)


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """A round whose recorded pairing is not the rules' one: what the rules
    give (or why they cannot pair it) and what the record holds, as texts of
    ``white-black`` games (player ids) and the bye."""

    round: int
    rules: str
    recorded: str

    def __str__(self) -> str:
        return f"round {self.round}: rules give {self.rules}; the event has {self.recorded}"


def _text(
    games: Sequence[tuple[PlayerId, PlayerId]], byes: Collection[PlayerId], removed: str
) -> str:
    parts = [" ".join(f"{w}-{b}" for w, b in games) or "no games"]
    if byes:
        parts.append(f"bye {' '.join(sorted(byes, key=_number_key))}")
    if removed:
        parts.append(removed)
    return ", ".join(parts)


def check_rounds(
    system: PairingSystem,
    players: Sequence[Player],
    rounds: Sequence[RoundRecord],
    *,
    double: bool,
    context: RoundContext,
) -> tuple[Discrepancy, ...]:
    """Every finished round the rules pair differently (empty: all agree).

    ``context`` is the event's (total rounds and first colour are used; its
    requested byes, for the round after the last, are not); each round gets
    the requested byes its record holds. Player ids are shown through
    ``str`` of the id (TRF ids are the pairing numbers).
    """
    found: list[Discrepancy] = []
    for index, record in enumerate(rounds):
        round_context = replace(context, requested_byes=record.requested_byes)
        recorded_games = [(g.white, g.black) for g in record.games]
        recorded = _text(recorded_games, record.byes, _removed(record.removed_history_rounds))
        try:
            pairing = system.pair(players, rounds[:index], double=double, context=round_context)
        except PairingError as exc:
            found.append(Discrepancy(record.round, f"no pairing ({exc})", recorded))
            continue
        if not _same(pairing, record):
            rules = _text(
                [(g.white, g.black) for g in pairing.games],
                pairing.byes,
                _removed(pairing.removed_history_rounds),
            )
            found.append(Discrepancy(record.round, rules, recorded))
    return tuple(found)


def _number_key(pid: PlayerId) -> tuple[int, str]:
    """TRF ids are pairing numbers: list them numerically, others by name."""
    return (int(pid), "") if pid.isdigit() else (0, pid)


def _removed(rounds: Sequence[int]) -> str:
    if not rounds:
        return ""
    return "history rounds removed " + ",".join(str(r) for r in rounds)


def _same(pairing: RoundPairing, record: RoundRecord) -> bool:
    """Same games (colours too, except for unplayed games), bye and removed rounds."""
    unplayed = {frozenset((g.white, g.black)) for g in record.games if not g.played}

    def key(white: PlayerId, black: PlayerId) -> tuple[PlayerId, ...]:
        if frozenset((white, black)) in unplayed:
            return tuple(sorted((white, black)))
        return (white, black)

    expected = sorted(key(g.white, g.black) for g in pairing.games)
    actual = sorted(key(g.white, g.black) for g in record.games)
    return (
        expected == actual
        and pairing.byes == record.byes
        and tuple(pairing.removed_history_rounds) == tuple(record.removed_history_rounds)
    )
