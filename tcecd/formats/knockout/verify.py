"""Check a cup from its games, as ``tcecd replay --verify`` reads them from the PGN.

:func:`verify_cup` replays the games through the same fold the runner uses
(:func:`tcecd.formats.knockout.cup.fold`) and lists every deviation from the
rules: the bracket (each game between the two engines of an encounter of its
round; the first round from the seeds, later rounds from the winners, so who
advanced is checked), the colours, the numbering (``R.G``, 1, 2, ... in each
round, a round after the previous one is over), each encounter's length and
the time controls, and that the cup is finished.

Encounter lengths are checked game by game: each game must be one the rule
wants after the encounter's earlier games. That is exact at any concurrency:
a game scheduled while others were in progress is one the rule also wants
once they have finished (see ``cup._needed_then``), so the games of an
encounter are the same at every concurrency, and an encounter that stopped
early shows as an undecided encounter at the end. The order of games across
the encounters of a round depends on when games finished, which a PGN does
not record, so it is not checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tcecd.domain import GameId, PlayerId, Result
from tcecd.formats.knockout.cup import fold
from tcecd.formats.knockout.encounter import CupGame, KnockoutSettings


def games_from_headers(headers: Iterable[Mapping[str, str]]) -> tuple[list[CupGame], list[str]]:
    """The cup's games from PGN tag sections (``Round``, ``White``, ``Black``,
    ``Result``, optional ``TimeControl``), with a deviation for each game whose
    Round or Result cannot be read (that game is left out)."""
    games: list[CupGame] = []
    problems: list[str] = []
    for n, tags in enumerate(headers, start=1):
        where = f"PGN game {n}"
        try:
            gid = GameId.parse(tags.get("Round", ""))
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            continue
        try:
            result = Result.from_pgn(tags.get("Result", "*"))
        except ValueError as exc:
            problems.append(f"{where} ({gid}): {exc}")
            continue
        games.append(CupGame(gid.round, gid.number, tags.get("White", "?"),
                             tags.get("Black", "?"), result, tags.get("TimeControl")))
    return games, problems


def verify_cup(players_by_seed: Sequence[PlayerId], games: Sequence[CupGame],
               settings: KnockoutSettings, *,
               disqualified: Mapping[PlayerId, int] | None = None,
               time_control: str | None = None, finished: bool = True) -> list[str]:
    """Every deviation of ``games`` (in PGN order) from the cup's rules; empty
    when the cup was played as the rules say.

    ``players_by_seed``: the engines, seed 1 first. ``disqualified``: engine
    -> the knockout round it was disqualified in. ``time_control``: the
    regular time control (tiebreak games are checked against the settings'
    tiebreak one when it is set); a game's ``time_control`` None is not
    checked. ``finished``: the cup must be over (False for a cup in progress).
    """
    problems: list[str] = []
    seen: set[tuple[int, int]] = set()
    for g in games:
        if (g.round, g.number) in seen:
            problems.append(f"knockout game {g.tag}: the Round tag is used twice")
        seen.add((g.round, g.number))
        if not g.finished:
            problems.append(f"knockout game {g.tag} ({g.white}-{g.black}): no result")
    cup = fold(players_by_seed, settings, games, disqualified, problems)
    tb_tc = settings.tiebreak_time_control
    for r in cup.rounds:
        for e in r.encounters:
            for eg in e.games:
                expected = tb_tc if eg.tiebreak and tb_tc is not None else time_control
                actual = eg.game.time_control
                if expected is not None and actual is not None and actual != expected:
                    kind = "tiebreak game" if eg.tiebreak else "game"
                    problems.append(f"knockout game {eg.game.tag}: {kind} {eg.index} of the "
                                    f"encounter has time control {actual!r}, "
                                    f"expected {expected!r}")
    if finished and not cup.finished:
        open_ = [f"{e.upper}-{e.lower}" for r in cup.rounds for e in r.encounters
                 if not e.decided]
        where = (f"round {cup.rounds[-1].number}: {', '.join(open_)} undecided" if open_
                 else f"round {len(cup.rounds) + 1} has no game")
        problems.append(f"the cup is not finished ({where})")
    return problems
