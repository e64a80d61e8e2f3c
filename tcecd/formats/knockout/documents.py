"""What the cup publishes: the bracket document and TCEC's cup files (pure).

* :func:`bracket_document`: the body of the retained MQTT document
  ``<prefix>/<event>/bracket`` (docs/events.md, "bracket"), the whole bracket
  as it stands: every round, encounter, engine, seed, score, game and winner,
  with the reason of each decision.
* :func:`eventcrosstable_json`: TCEC's ``Eventcrosstable.json``, which TCEC's
  viewer (tcecgui) reads for its bracket when ``tournament.json`` has a
  non-zero ``cup`` (``create_cup`` and ``create_bracket`` in its js/game.js;
  TCEC writes it with dist/js/crosscupnew.js from the cup's PGN). The facts
  each field follows are listed in docs/web.md, "TCEC's viewer and cups".
* :func:`tournament_json`: ``tournament.json`` for a cup.
* :func:`cup_from_bracket`: the cup a bracket document describes (what a
  consumer of the MQTT stream, ``tcecd web``'s TCEC feed, builds TCEC's files
  from: the document carries the field, the settings, every game and its result
  and the disqualifications, and the same fold makes the same cup).

Names: the bracket document refers to player ids (as every payload does; the
``event`` document maps them to names); TCEC's files carry engine names
(``names``: id -> name; an id stands for itself when missing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tcecd.domain import Color, PlayerId, Result
from tcecd.errors import StateError
from tcecd.formats.knockout.bracket import bracket_size, round_name
from tcecd.formats.knockout.cup import Cup, build_cup
from tcecd.formats.knockout.encounter import CupGame, Encounter, KnockoutSettings, points_text

JsonDict = dict[str, Any]

#: ``tournament.json``'s ``cup``: any value from 1 to 5 makes TCEC's viewer number
#: the bracket's places as our draw does (1-8, 4-5, 2-7, 3-6); 6 and above switch
#: it to cutechess-cli's order (1-5, 3-7, 2-6, 4-8), used from TCEC's Cup 6 on.
VIEWER_CUP = 1

#: The name of a BYE in TCEC's files (the viewer shows it in the bracket's place).
BYE_NAME = "BYE"


def _points(half: int) -> float | int:
    """Half-points as a JSON number of points, as JavaScript prints them (2, 1.5)."""
    return half // 2 if half % 2 == 0 else half / 2


def _slots(cup: Cup) -> list[list[tuple[PlayerId | None, PlayerId | None]]]:
    """Every round's places (upper, lower) in bracket order, as far as they are
    known: started rounds from their encounters, later ones from the winners
    decided so far (None: not known yet)."""
    size = bracket_size(len(cup.players))
    slots: list[list[tuple[PlayerId | None, PlayerId | None]]] = []
    winners: list[PlayerId | None] = []
    for r in range(1, cup.total_rounds + 1):
        places: list[tuple[PlayerId | None, PlayerId | None]]
        if r <= len(cup.rounds):
            places = [(e.upper, e.lower) for e in cup.rounds[r - 1].encounters]
            winners = [e.outcome.winner if e.decided and e.outcome else None
                       for e in cup.rounds[r - 1].encounters]
        else:
            places = [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]
            winners = [None] * len(places)
        slots.append(places)
    assert not slots or len(slots[0]) == size // 2
    return slots


def _status(e: Encounter) -> str:
    if e.lower is None:
        return "bye"
    return "decided" if e.decided else "playing"


def bracket_document(cup: Cup) -> JsonDict:
    """The bracket as it stands (the MQTT ``bracket`` payload without the
    common ``schema``/``type``/``event``/``ts`` fields)."""
    settings = cup.settings
    tiebreak = None
    if settings.tiebreak_time_control is not None or settings.tiebreak_max_games is not None:
        tiebreak = {"time_control": settings.tiebreak_time_control,
                    "max_games": settings.tiebreak_max_games}
    dq = dict(cup.disqualified)
    rounds: list[JsonDict] = []
    for r, places in enumerate(_slots(cup), start=1):
        started = r <= len(cup.rounds)
        encounters: list[JsonDict] = []
        for i, (upper, lower) in enumerate(places):
            e = cup.rounds[r - 1].encounters[i] if started else None
            players: list[JsonDict | None] = []
            for p in (upper, lower):
                if p is None:
                    players.append(None)
                    continue
                players.append({
                    "id": p, "seed": cup.seed(p),
                    "score": _points(e.half_points(p)) if e is not None else None,
                    "disqualified": p in dq and dq[p] <= r})
            doc: JsonDict = {"encounter": i + 1, "players": players}
            if e is None:
                doc.update(status="waiting", games=[], winner=None, decision=None, reason=None)
            else:
                outcome = e.outcome if e.decided else None
                doc.update(
                    status=_status(e),
                    games=[{"game": eg.game.tag, "white": eg.game.white,
                            "black": eg.game.black,
                            "result": eg.game.result.value if eg.game.finished
                            and eg.game.result else None,
                            "tiebreak": eg.tiebreak, "opening": eg.opening}
                           for eg in e.games],
                    winner=outcome.winner if outcome else None,
                    decision=outcome.decision.value if outcome else None,
                    reason=outcome.reason if outcome else None)
            encounters.append(doc)
        status = ("finished" if started and cup.rounds[r - 1].over
                  else "playing" if started else "waiting")
        rounds.append({"round": r, "name": round_name(r, cup.total_rounds), "status": status,
                       "encounters": encounters})
    return {
        "system": "knockout",
        "games": settings.games,
        "tiebreak": tiebreak,
        "players": len(cup.players),
        "size": bracket_size(len(cup.players)),
        "status": "finished" if cup.finished else "playing",
        "round": len(cup.rounds),
        "champion": cup.champion,
        "rounds": rounds,
    }


def cup_from_bracket(doc: Mapping[str, Any]) -> Cup:
    """The cup :func:`bracket_document` described: ``bracket_document(cup_from_bracket(
    bracket_document(cup)))`` is ``bracket_document(cup)``, and the TCEC files
    made from either cup are the same.

    The field in seed order comes from the first round's places (every engine
    has one: the BYEs are the only empty places); the settings from ``games``
    and ``tiebreak``; the games and results from every encounter; an engine's
    disqualification from the first round in which its place says so (a place
    is marked from that round on, which is all the fold asks of it). Raises
    :class:`~tcecd.errors.StateError` (or the settings' ``ConfigError``) for a
    document no cup can have made, and ``KeyError``/``TypeError``/``ValueError``
    for one without the documented fields: check it first
    (:func:`tcecd.bus.inbound.check_document`).
    """
    rounds = doc["rounds"]
    tiebreak = doc.get("tiebreak") or {}
    settings = KnockoutSettings(games=doc["games"],
                                tiebreak_time_control=tiebreak.get("time_control"),
                                tiebreak_max_games=tiebreak.get("max_games"))
    by_seed: dict[int, PlayerId] = {}
    for e in rounds[0]["encounters"] if rounds else ():
        for p in e["players"]:
            if p is not None:
                by_seed[p["seed"]] = PlayerId(p["id"])
    if not rounds and doc.get("champion"):
        by_seed[1] = PlayerId(doc["champion"])  # a field of one: no round
    count = doc["players"]
    if sorted(by_seed) != list(range(1, count + 1)):
        raise StateError(f"bracket: the first round's seeds {sorted(by_seed)} are not "
                         f"1-{count}")
    games: list[CupGame] = []
    disqualified: dict[PlayerId, int] = {}
    for r in rounds:
        for e in r["encounters"]:
            for p in e["players"]:
                if p is not None and p.get("disqualified"):
                    disqualified.setdefault(PlayerId(p["id"]), r["round"])
            for g in e["games"]:
                round_no, number = (int(x) for x in g["game"].split("."))
                result = g.get("result")
                games.append(CupGame(round_no, number, PlayerId(g["white"]),
                                     PlayerId(g["black"]),
                                     None if result in (None, "*") else Result(result)))
    players = [by_seed[seed] for seed in range(1, count + 1)]
    return build_cup(players, settings, games, disqualified)


def game_ordinals(cup: Cup) -> dict[tuple[int, int], int]:
    """(round, number) -> the game's 1-based place in the whole cup's playing
    order (``Game`` of TCEC's ``schedule.json``: round 1's games, then round 2's)."""
    out: dict[tuple[int, int], int] = {}
    before = 0
    for r in cup.rounds:
        for n in range(1, r.games + 1):
            out[(r.number, n)] = before + n
        before += r.games
    return out


def _viewer_scores(e: Encounter) -> tuple[Any, Any]:
    """The two ``origscore`` values the viewer shows and compares (upper, lower).

    The viewer marks and advances the side whose value is greater (``>``).
    When the winner does not lead on points (a BYE, a tie broken by seed, a
    disqualification) both are written as strings, the loser's with a leading
    space: strings compare character by character, every score beats a
    leading space, and HTML does not show it. A BYE shows ``-`` for the seed.
    """
    up = e.half_points(e.upper)
    lo = e.half_points(e.lower) if e.lower is not None else 0
    outcome = e.outcome if e.decided else None
    if outcome is None:
        return _points(up), _points(lo)
    if outcome.loser is None:
        return "-", " "
    upper_won = outcome.winner == e.upper
    if (up > lo) == upper_won and up != lo:
        return _points(up), _points(lo)
    texts = [points_text(up), points_text(lo)]
    loser = 1 if upper_won else 0
    texts[loser] = " " + texts[loser]
    return texts[0], texts[1]


def eventcrosstable_json(cup: Cup, names: Mapping[PlayerId, str] | None = None,
                         faults: Mapping[str, PlayerId] | None = None) -> JsonDict:
    """TCEC's ``Eventcrosstable.json`` for the cup as it stands.

    ``faults``: game tag ``"R.G"`` -> the engine at fault (crash, illegal
    move, time loss, stall; TCEC counts these as crashes), for ``Crashes``.
    """
    names = names or {}
    faults = faults or {}

    def name(p: PlayerId | None) -> str:
        return BYE_NAME if p is None else names.get(p, p)

    ordinals = game_ordinals(cup)
    table: dict[str, JsonDict] = {}
    matchresults: list[list[JsonDict]] = []
    played = sorted(
        (e for r in cup.rounds for e in r.encounters if e.games),
        key=lambda e: ordinals[(e.games[0].game.round, e.games[0].game.number)])
    for n, e in enumerate(played, start=1):
        assert e.lower is not None
        outcome = e.outcome if e.decided else None
        up, lo = e.half_points(e.upper), e.half_points(e.lower)
        if outcome is not None:
            first = outcome.winner
        elif up != lo:
            first = e.upper if up > lo else e.lower
        else:
            first = e.high
        second = e.lower if first == e.upper else e.upper
        done = [eg.game for eg in e.games if eg.game.finished and eg.game.result is not None]
        text = ""
        for g in done:
            assert g.result is not None
            half = g.result.half_points(Color.WHITE if g.white == first else Color.BLACK)
            text += {2: "1", 1: "=", 0: "0"}[half]
        crashes = [sum(1 for g in done if faults.get(g.tag) == p) for p in (first, second)]
        table[f"Match {n}"] = {
            "Engines": " v ".join(sorted((name(e.upper), name(e.lower)))),
            "Winner": name(first),
            "Runner": name(second),
            "Games": len(done),
            "Points": f"{points_text(e.half_points(first))}-{points_text(e.half_points(second))}",
            "Crashes": f"{crashes[0]}-{crashes[1]}",
            "Score": text,
            "Gamesno": ",".join(str(ordinals[(g.round, g.number)]) for g in done),
        }
        scores = _viewer_scores(e)
        matchresults.append([
            {"name": name(p), "lead": _lead(e, p), "score": s, "manual": 0, "origscore": s}
            for p, s in ((e.upper, scores[0]), (e.lower, scores[1]))])

    teams = []
    for e in cup.rounds[0].encounters if cup.rounds else ():
        flag = 1 if e.decided else -1
        teams.append([
            {"name": name(e.upper), "seed": e.upper_seed, "winner": flag},
            {"name": name(e.lower), "seed": e.lower_seed or bracket_size(len(cup.players))
             + 1 - e.upper_seed, "winner": flag}])
    for e in (e for e in (cup.rounds[0].encounters if cup.rounds else ()) if e.lower is None):
        scores = _viewer_scores(e)
        matchresults.append([
            {"name": name(e.upper), "lead": -1, "score": scores[0], "manual": 0,
             "origscore": scores[0]},
            {"name": BYE_NAME, "lead": -1, "score": scores[1], "manual": 0,
             "origscore": scores[1]}])

    results: list[list[list[Any]]] = []
    for r, places in enumerate(_slots(cup), start=1):
        row: list[list[Any]] = []
        for i in range(len(places)):
            row.append(_finished_pair(
                cup.rounds[r - 1].encounters[i] if r <= len(cup.rounds) else None))
        if r == cup.total_rounds:
            row.append([0, 0])  # the viewer's third-place match: tcecd's cups have none
        results.append(row)
    return {"EventTable": table, "teams": teams, "results": [results],
            "matchresults": matchresults}


def _lead(e: Encounter, p: PlayerId) -> int:
    """TCEC's ``lead``: -1 once decided, else 1 for the leader, 0 for the other."""
    if e.decided:
        return -1
    other = e.lower if p == e.upper else e.upper
    return 1 if other is not None and e.half_points(p) > e.half_points(other) else 0


def _finished_pair(e: Encounter | None) -> list[Any]:
    """An entry of ``results``: the viewer only asks whether both values are
    there and one is non-zero (finished). Decided: the points, upper first
    (1 for the winner, 0 for the loser when both scored nothing: a BYE, a
    disqualification before any game); else ``[0, 0]``."""
    if e is None or not e.decided:
        return [0, 0]
    outcome = e.outcome
    assert outcome is not None
    up = e.half_points(e.upper)
    lo = e.half_points(e.lower) if e.lower is not None else 0
    if up == lo == 0:
        return [1, 0] if outcome.winner == e.upper else [0, 1]
    return [_points(up), _points(lo)]


def tournament_json(event: str, slug: str) -> JsonDict:
    """``tournament.json`` for a cup: a non-zero ``cup`` makes TCEC's viewer
    fetch ``Eventcrosstable.json`` and show the bracket instead of the
    standings and crosstable; ``link`` as for every event."""
    return {"name": event, "cup": VIEWER_CUP, "link": f"event={slug}"}
