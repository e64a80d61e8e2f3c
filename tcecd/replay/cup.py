"""``tcecd replay`` of a knockout cup: its PGN checked against the cup's rules.

A cup is not a Swiss: its rounds are encounters of a seeded bracket that end
as soon as they are decided. The games are read from the PGN's tags alone
(``Round``, ``White``, ``Black``, ``Result``, ``TimeControl``) and folded by
the same code the runner schedules with (:func:`tcecd.formats.knockout.verify.verify_cup`):
the bracket and who advanced, each encounter's length, the colours, the
numbering and the tiebreak time controls. The seeds and the cup's rules come
from the event config (``--config``). Reading the PGN does no I/O beyond the
file; the result is a value the command prints.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess.pgn

from tcecd.errors import PgnError
from tcecd.formats.knockout import build_cup, standings, verify_cup
from tcecd.formats.knockout.encounter import CupGame, KnockoutSettings
from tcecd.formats.knockout.verify import games_from_headers
from tcecd.pairing.base import Player, Standing


@dataclass(frozen=True)
class CupReplay:
    """A cup read from its PGN: its games, the deviations, the standings, and
    what the operator's console did (accepted as recorded facts)."""

    games: tuple[CupGame, ...]
    deviations: tuple[str, ...]
    standings: tuple[Standing, ...]
    finished: bool
    operator_notes: tuple[str, ...] = ()


def _headers(path: Path) -> Iterator[dict[str, str]]:
    """Each game's tags, read without its moves (a game at a time)."""
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as handle:
            while (headers := chess.pgn.read_headers(handle)) is not None:
                yield dict(headers)
    except OSError as exc:
        raise PgnError(f"{path}: cannot read the PGN: {exc.strerror}") from None


def replay_cup(
    path: Path,
    players: tuple[Player, ...],
    settings: KnockoutSettings,
    *,
    time_control: str | None = None,
) -> CupReplay:
    """Read and check the cup of ``path`` (``players``: the seeded field).

    What the operator's console did is taken as recorded: a game played again
    with a ``Restarted`` tag replaces the earlier one with its ``Round``; an
    engine whose game is a forfeit because it withdrew (or was disqualified)
    is out of the cup from that round on, as the runner had it."""
    notes: list[str] = []
    tags, out = _operator_facts(list(_headers(path)), notes)
    games, problems = games_from_headers(tags)
    by_seed = [p.id for p in sorted(players, key=lambda p: p.seed)]
    known = set(by_seed)
    for g in games:
        for name in (g.white, g.black):
            if name not in known:
                raise PgnError(f"{path.name}: game {g.tag}: {name!r} is not an engine of the cup")
    deviations = [*problems, *verify_cup(by_seed, games, settings, disqualified=out,
                                         time_control=time_control)]  # fmt: skip
    try:
        cup = build_cup(by_seed, settings, games, out)
    except Exception:  # a schedule the rules could not make: the deviations say why
        return CupReplay(tuple(games), tuple(deviations), (), False, tuple(notes))
    return CupReplay(tuple(games), tuple(deviations), standings(cup), cup.finished,
                     tuple(notes))


def _operator_facts(
    headers: list[dict[str, str]], notes: list[str]
) -> tuple[list[dict[str, str]], dict[str, int]]:
    """The games that count (a ``Restarted`` game replaces the earlier one with
    its ``Round``) and the engines out of the cup, by the round of their first
    forfeit (``TerminationDetails "X withdrew"`` or ``"X disqualified"``)."""
    from tcecd.domain import GameId, Result
    from tcecd.replay.games import OperatorFacts, ReplayedGame

    facts = OperatorFacts(notes=notes)
    kept: list[dict[str, str]] = []
    where: dict[str, int] = {}
    out: dict[str, int] = {}
    for n, tags in enumerate(headers, start=1):
        round_tag = tags.get("Round", "")
        earlier = where.get(round_tag) if "Restarted" in tags else None
        try:
            gid = GameId.parse(round_tag)
            result = Result.from_pgn(tags.get("Result", "*"))
        except ValueError:
            kept.append(tags)  # (games_from_headers reports it)
            continue
        game = ReplayedGame(n, gid.round, gid.number, tags.get("White", "?"),
                            tags.get("Black", "?"), result, tags.get("Termination", ""),
                            tags.get("TerminationDetails", ""), None)  # fmt: skip
        replaced = None
        if earlier is not None:
            old = kept[earlier]
            replaced = dataclasses.replace(
                game, result=Result.from_pgn(old.get("Result", "*")),
                termination=old.get("Termination", ""),
                detail=old.get("TerminationDetails", ""))  # fmt: skip
        facts.read(game, tags, (), replaces=replaced)
        if game.termination.strip().lower() == "forfeit":
            for suffix in (" withdrew", " disqualified"):
                for part in game.detail.split("; "):
                    if part.endswith(suffix):
                        out.setdefault(part[: -len(suffix)], gid.round)
        if earlier is not None:
            kept[earlier] = tags
        else:
            where[round_tag] = len(kept)
            kept.append(tags)
    return kept, out


def cup_report(replayed: CupReplay, players: tuple[Player, ...]) -> str:
    """The cup's standings as ``tcecd run`` prints them."""
    from tcecd.outputs.text import cup_table

    out = io.StringIO()
    state = "finished" if replayed.finished else "in progress"
    print(f"knockout cup, {len(replayed.games)} games ({state})", file=out)
    print(cup_table(replayed.standings, players), file=out, end="")
    return out.getvalue()
