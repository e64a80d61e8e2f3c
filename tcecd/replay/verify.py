"""Comparing a round as played (the PGN) with the round the rules give.

Pure: takes the :class:`~tcecd.pairing.base.RoundPairing` the TCEC Swiss
pairing gives for a round (paired from the results before it) and the games
the PGN holds for that round, in playing order, and lists every difference as
a :class:`Deviation` a person can act on, one per game position (plus one for
the BYE), e.g.::

    round 3 game 2: rules give P05-x (white) vs P02-y (black); PGN has P02-y (white) vs P05-x (black) [colours swapped]
"""  # noqa: E501

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tcecd.domain import PlayerId
from tcecd.pairing.base import PlayedGame, RoundPairing, ScheduledGame


class DeviationKind(enum.Enum):
    """What differs between the rules and the PGN (the bracketed tag)."""

    COLOURS_SWAPPED = "colours swapped"
    WRONG_ORDER = "wrong order"
    WRONG_ORDER_COLOURS = "wrong order, colours swapped"
    WRONG_PAIR = "wrong pair"
    MISSING_GAME = "missing game"
    EXTRA_GAME = "extra game"
    WRONG_BYE = "wrong BYE"
    UNPAIRABLE = "no pairing under the rules"


@dataclass(frozen=True, slots=True)
class Deviation:
    """One difference between the rules and the PGN.

    ``game`` is the position in the round's playing order (None for the BYE
    or a round the rules cannot pair); ``expected`` and ``actual`` are the
    human texts of what the rules give and what the PGN has.
    """

    round: int
    game: int | None
    kind: DeviationKind
    expected: str
    actual: str

    def __str__(self) -> str:
        where = f"round {self.round}" + (f" game {self.game}" if self.game is not None else "")
        return f"{where}: rules give {self.expected}; PGN has {self.actual} [{self.kind.value}]"


def _game_text(white: PlayerId, black: PlayerId) -> str:
    return f"{white} (white) vs {black} (black)"


def _bye_text(players: Collection[PlayerId]) -> str:
    if not players:
        return "no BYE"
    return f"the BYE to {', '.join(sorted(players))}"


def _classify(
    number: int, actual: PlayedGame, expected_games: Sequence[ScheduledGame]
) -> DeviationKind:
    """Why ``actual`` (at ``number``) is not the expected game at that place."""
    here = expected_games[number - 1] if number <= len(expected_games) else None
    if here is not None and (here.white, here.black) == (actual.black, actual.white):
        return DeviationKind.COLOURS_SWAPPED
    same = [g for g in expected_games if (g.white, g.black) == (actual.white, actual.black)]
    if same:
        return DeviationKind.WRONG_ORDER
    reversed_ = [g for g in expected_games if (g.white, g.black) == (actual.black, actual.white)]
    if reversed_:
        return DeviationKind.WRONG_ORDER_COLOURS
    return DeviationKind.WRONG_PAIR


def compare_round(
    expected: RoundPairing,
    games: Sequence[PlayedGame],
    byes: Collection[PlayerId],
    *,
    complete: bool,
) -> list[Deviation]:
    """Every deviation of a played round from ``expected``.

    ``games`` are the round's games in PGN (playing) order; ``byes`` are the
    players the PGN leaves out (none in an even field; several only under
    the integer program). For an incomplete last round (``complete=False``)
    games not played yet are not deviations, and the BYE is checked only as
    far as the played games show it: the rules' BYE players must not have
    played.
    """
    r = expected.round
    deviations: list[Deviation] = []
    if complete and frozenset(byes) != expected.byes:
        deviations.append(
            Deviation(
                r, None, DeviationKind.WRONG_BYE, _bye_text(expected.byes), _bye_text(byes)
            )
        )
    elif not complete and expected.byes:
        played = {p for g in games for p in (g.white, g.black)}
        playing = sorted(expected.byes & played)
        if playing:
            deviations.append(
                Deviation(
                    r,
                    None,
                    DeviationKind.WRONG_BYE,
                    _bye_text(expected.byes),
                    f"{', '.join(playing)} playing",
                )
            )
    count = max(len(expected.games), len(games)) if complete else len(games)
    for number in range(1, count + 1):
        exp = expected.games[number - 1] if number <= len(expected.games) else None
        act = games[number - 1] if number <= len(games) else None
        if act is None:
            assert exp is not None
            deviations.append(
                Deviation(
                    r,
                    number,
                    DeviationKind.MISSING_GAME,
                    _game_text(exp.white, exp.black),
                    "no game",
                )
            )
            continue
        if exp is not None and (exp.white, exp.black) == (act.white, act.black):
            continue
        kind = DeviationKind.EXTRA_GAME if exp is None else _classify(number, act, expected.games)
        deviations.append(
            Deviation(
                r,
                number,
                kind,
                "no game" if exp is None else _game_text(exp.white, exp.black),
                _game_text(act.white, act.black),
            )
        )
    return deviations


def unpairable(round_: int, reason: str) -> Deviation:
    """The deviation for a round the PGN plays but the rules cannot pair."""
    return Deviation(round_, None, DeviationKind.UNPAIRABLE, f"no pairing ({reason})", "a round")
