"""A knockout cup's bracket as the viewers show it: the ``bracket`` document -> rows. Pure.

The retained ``bracket`` document (docs/events.md) names engines by id and
gives each encounter its places, scores, games and outcome. :func:`bracket_rows`
turns it into what ``tcecd watch`` (:mod:`tcecd.watch.render`,
:mod:`tcecd.watch.screen`) and ``tcecd web``'s page (:mod:`tcecd.web.model`)
show, so the three say the same: per round its name and state, per encounter
both places (seed, name, points, who advanced, disqualified), the games as
marks from the upper place's side (``1`` won, ``=`` drawn, ``0`` lost, ``*``
not finished; the tiebreak games after a ``|``), and the reason of a decision
that the points alone do not explain (a tie broken by seed or in tiebreak
games, a disqualification).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from tcecd.watch.model import EventView

#: A place not known yet (its encounter's round has not started).
UNKNOWN = "?"
#: The place a top seed's BYE leaves empty.
BYE = "BYE"


@dataclass(frozen=True, slots=True)
class Place:
    """One place of an encounter: an engine, a BYE or a place not known yet
    (``seed`` None for both)."""

    name: str
    seed: int | None = None
    score: str = ""  # points over the encounter's finished games ("1.5"), "" before
    won: bool = False
    lost: bool = False
    disqualified: bool = False


@dataclass(frozen=True, slots=True)
class EncounterRow:
    """One encounter as shown."""

    number: int
    status: str  # bye, waiting, playing, decided (docs/events.md)
    upper: Place
    lower: Place
    marks: str  # the games from the upper place's side: "1= | =="
    winner: str | None  # the name of who advanced
    note: str  # why, when the points do not say it; else ""

    @property
    def playing(self) -> bool:
        return self.status == "playing"


@dataclass(frozen=True, slots=True)
class RoundRows:
    """A round: its name (``Quarter-finals``), state and encounters."""

    number: int
    name: str
    status: str  # waiting, playing, finished
    encounters: tuple[EncounterRow, ...]


def points(value: Any) -> str:
    """A score as a short number (``2``, ``1.5``); "" when unknown."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    return f"{value:g}"


def _mark(game: dict[str, Any], upper: str | None) -> str:
    result = game.get("result")
    if result == "1/2-1/2":
        return "="
    if result not in ("1-0", "0-1"):
        return "*"
    white_won = result == "1-0"
    return "1" if white_won == (game.get("white") == upper) else "0"


def _marks(games: list[dict[str, Any]], upper: str | None) -> str:
    regular = "".join(_mark(g, upper) for g in games if not g.get("tiebreak"))
    tiebreak = "".join(_mark(g, upper) for g in games if g.get("tiebreak"))
    return f"{regular} | {tiebreak}" if tiebreak else regular


def _place(view: EventView, doc: dict[str, Any] | None, winner: str | None,
           empty: str) -> Place:  # fmt: skip
    if doc is None:
        return Place(empty)
    pid = str(doc.get("id"))
    return Place(view.player_name(pid), doc.get("seed"), points(doc.get("score")),
                 won=winner is not None and winner == pid,
                 lost=winner is not None and winner != pid,
                 disqualified=bool(doc.get("disqualified")))


def bracket_rows(view: EventView) -> tuple[RoundRows, ...]:
    """Every round of the view's bracket (none without a ``bracket`` document)."""
    doc = view.bracket
    if not doc:
        return ()
    out: list[RoundRows] = []
    for r in doc.get("rounds", []):
        rows: list[EncounterRow] = []
        for e in r.get("encounters", []):
            places = list(e.get("players") or [None, None])[:2]
            places += [None] * (2 - len(places))
            status = str(e.get("status") or "")
            winner = e.get("winner")
            upper_doc, lower_doc = places
            upper = _place(view, upper_doc, winner, UNKNOWN)
            if status == "bye":  # no games: no points to show
                upper = replace(upper, score="")
            # An empty lower place is a BYE once the round is drawn, else not known yet.
            lower = _place(view, lower_doc, winner, BYE if status == "bye" else UNKNOWN)
            decision = e.get("decision")
            note = str(e.get("reason") or "") if decision in (
                "seed", "tiebreak", "disqualified") else ""
            rows.append(EncounterRow(
                number=int(e.get("encounter") or len(rows) + 1), status=status,
                upper=upper, lower=lower,
                marks=_marks(list(e.get("games") or []),
                             None if upper_doc is None else str(upper_doc.get("id"))),
                winner=None if winner is None else view.player_name(str(winner)),
                note=note))
        out.append(RoundRows(int(r.get("round") or len(out) + 1), str(r.get("name") or ""),
                             str(r.get("status") or ""), tuple(rows)))
    return tuple(out)


def bracket_title(view: EventView) -> str:
    """``Bracket: 7 engines, 2 games an encounter, tiebreak 30+1 (at most 2 games)``
    and, once the cup is over, its champion."""
    doc = view.bracket or {}
    parts = [f"{doc.get('players', '?')} engines"]
    games = doc.get("games")
    if games is not None:
        parts.append(f"{games} game{'s' if games != 1 else ''} an encounter")
    tb = doc.get("tiebreak") or {}
    if tb.get("time_control") or tb.get("max_games"):
        cap = f" (at most {tb['max_games']} games)" if tb.get("max_games") else ""
        parts.append(f"tiebreak {tb.get('time_control') or 'at the same time control'}{cap}")
    title = "Bracket: " + ", ".join(parts)
    champion = doc.get("champion")
    if champion:
        title += f"; champion {view.player_name(str(champion))}"
    return title


def place_label(place: Place) -> str:
    """``(4) Delta 4``, ``BYE``, ``?``."""
    return place.name if place.seed is None else f"({place.seed}) {place.name}"
