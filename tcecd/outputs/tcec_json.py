"""Builders of the TCEC-format JSON files (pure: values in, JSON-ready dicts out).

The formats are those TCEC's viewer polls (../shared/specs/tcec-formats.md):
``schedule.json`` (one entry per game in playing order), ``crosstable.json``
(standings, per-player counts and head-to-head results) and the live game JSON
(headers and every move of the game being played). Nothing here touches files
or the clock; :mod:`tcecd.outputs.files` writes the results atomically.

What TCEC's web viewer reads, and how (the spec's "What TCEC's web viewer
reads"), decides the details:

* unknown values are left out, never written as ``null`` (the viewer prints a
  null literally: ``6/null`` depth, ``0nps``);
* ``Start`` is ``"HH:MM:SS on YYYY.MM.DD"`` (UTC), as TCEC's cutechess writes it;
  the running game has ``Start``, ``Result "*"`` and ``Termination "in progress"``;
* a normal ending gets a ``Termination`` the viewer shows as normal: our PGN
  keeps the words of TCEC's PGNs (``TCEC resign rule``, ``TCEC max moves rule``),
  the viewer files say ``TCEC win rule`` and ``TCEC Adjudication``
  (:func:`viewer_termination`);
* ``Elo`` in the crosstable is the rating change over the event, as TCEC's
  cutechess computes it (K = 32 times score minus expected score, per game).

Choices where the format leaves room (documented in docs/running.md):

* ``Game`` is the game's 1-based ordinal in the whole event's playing order
  (TCEC numbers games that way); ``Round`` adds our ``"r.g"`` tag.
* A game forfeited because an engine was disqualified has ``Termination``
  ``"Canceled"`` (the TCEC word for a game voided by disqualification) and its
  forfeit ``Result``; ``Forfeit`` names the disqualified engine.
* ``Performance`` is the percentage score over games (BYEs excluded).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import chess

from tcecd.domain import Color, GameId, PlayerId, Result, Termination
from tcecd.game.fen import fen
from tcecd.game.material import fen_material_counts
from tcecd.game.record import GameRecord, GameSummary, MoveRecord
from tcecd.pairing.base import Player, RoundPairing, Standing

JsonDict = dict[str, Any]


#: Our PGN's adjudication words -> the words TCEC's viewer shows as a normal ending
#: (``TERMINATION_NORMALS`` of its js/game.js; the spec's "Terminations shown as normal").
_VIEWER_NORMAL = {
    "TCEC resign rule": "TCEC win rule",
    "TCEC max moves rule": "TCEC Adjudication",
}

#: K of the rating change TCEC's cutechess writes as the crosstable's ``Elo``.
ELO_K = 32


def viewer_termination(termination: Termination, detail: str) -> str:
    """The schedule's ``Termination`` cell for a finished game."""
    if termination is Termination.FORFEIT:
        return "Canceled"
    text = detail or termination.value
    return _VIEWER_NORMAL.get(text, text)


def viewer_start(timestamp: str) -> str:
    """``"2026-11-22T03:59:43.149Z"`` -> ``"03:59:43 on 2026.11.22"`` (the viewer's
    ``parse_date_time`` cannot read fractional seconds; TCEC writes this form)."""
    date, _, clock = timestamp.partition("T")
    return f"{clock[:8]} on {date.replace('-', '.')}"


def _without_none(doc: JsonDict) -> JsonDict:
    """Leave unknown values out: the viewer prints a null literally."""
    return {k: v for k, v in doc.items() if v is not None}


def _duration(ms: int) -> str:
    s = max(0, ms) // 1000
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def summary(game: GameRecord | GameSummary) -> GameSummary:
    """What the tables read of a finished game (a record is summarised)."""
    return game if isinstance(game, GameSummary) else GameSummary.of(game)


def final_fen(record: GameRecord) -> str:
    """The position the game ended in (the start position when no move was made)."""
    return GameSummary.of(record).final_fen


def schedule_json(
    pairings: Sequence[RoundPairing],
    finished: Mapping[GameId, GameRecord | GameSummary],
    *,
    names: Mapping[PlayerId, str] | None = None,
    running: Mapping[GameId, str] | None = None,
) -> list[JsonDict]:
    """``schedule.json``: every scheduled game in playing order; finished games
    carry their result, termination and summary, a running game (``running``:
    game -> its UTC start time) its start, ``"*"`` and ``"in progress"``, the
    others only the players."""
    names = names or {}
    running = running or {}
    out: list[JsonDict] = []
    ordinal = 0
    for pairing in pairings:
        for g in pairing.games:
            ordinal += 1
            gid = GameId(pairing.round, g.number)
            entry: JsonDict = {
                "Game": ordinal,
                "Round": str(gid),
                "White": names.get(g.white, g.white),
                "Black": names.get(g.black, g.black),
            }
            rec = finished.get(gid)
            if rec is not None:
                done = summary(rec)
                entry.update(
                    Start=viewer_start(done.start_time),
                    Result=done.result.value,
                    Termination=viewer_termination(done.termination, done.termination_detail),
                    Duration=_duration(done.duration_ms),
                    FinalFen=done.final_fen,
                    ECO=done.eco,
                    Opening=done.opening_name,
                    Moves=(done.plies + 1) // 2,
                    WhiteEv=done.white_eval,
                    BlackEv=done.black_eval,
                )
                if done.termination is Termination.FORFEIT:
                    entry["Forfeit"] = done.termination_detail
            elif gid in running:
                entry.update(
                    Start=viewer_start(running[gid]), Result="*", Termination="in progress"
                )
            out.append(_without_none(entry))
    return out


@dataclass(frozen=True, slots=True)
class CrossGame:
    """One finished game as the crosstable counts it."""

    ordinal: int  # 1-based position in the event's playing order
    white: PlayerId
    black: PlayerId
    result: Result
    played: bool


def expected_score(rating: int, opponent: int) -> float:
    """The Elo expectation of a player rated ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


_WORD = re.compile(r"[^\W_]+")


def _abbreviation(name: str, width: int) -> str:
    """``name``'s short form with ``width`` letters per word after the first:
    the first word's first three characters, then of each other word its first
    ``width`` letters, numbers kept whole (``ab-d1-noisy`` -> ``abd1n``,
    ``Stockfish 16`` -> ``Sto16``, ``sf-skill10`` -> ``sfs10``)."""
    words = _WORD.findall(name)
    if not words:
        return "Eng"
    out = [words[0][:3]]
    for word in words[1:]:
        letters = word.rstrip("0123456789")
        digits = word[len(letters):]
        out.append(letters[:width] + digits if letters else digits)
    return "".join(out)


def abbreviations(names: Sequence[str]) -> dict[str, str]:
    """A short name per player (the crosstable's column heads and TCEC's
    ``Abbreviation``): letters and digits only, unique even lower-cased (TCEC's
    viewer compares them so), recognisable: made of every word of the name
    (:func:`_abbreviation`), with more letters per word where two would be
    alike, and a number only where the names themselves do not differ (``Eng``,
    ``Eng2``; in sorted name order, so the same field always gets the same)."""
    out: dict[str, str] = {}
    taken: set[str] = set()  # the forms given, lower-cased
    pending = sorted(set(names))
    for width in (1, 2, 3, 4):
        forms = {name: _abbreviation(name, width) for name in pending}
        count: dict[str, int] = {}
        for form in forms.values():
            count[form.lower()] = count.get(form.lower(), 0) + 1
        pending = []
        for name, form in forms.items():
            if count[form.lower()] == 1 and form.lower() not in taken:
                out[name] = form
                taken.add(form.lower())
            else:
                pending.append(name)
        if not pending:
            return out
    for name in pending:
        base, n = _abbreviation(name, 4), 1
        form = base
        while form.lower() in taken:
            n += 1
            form = f"{base}{n}"
        taken.add(form.lower())
        out[name] = form
    return out


def crosstable_json(
    event: str,
    players: Sequence[Player],
    games: Sequence[CrossGame],
    standings: Sequence[Standing],
    *,
    strikes: Mapping[PlayerId, int] | None = None,
    kind: str = "Swiss",
) -> JsonDict:
    """``crosstable.json`` from the finished games and the standings.

    Scores are floats in points (BYE points included, as in the standings);
    ``Neustadtl`` is Sonneborn-Berger over the games (opponent's final score
    times the points taken from them); per-colour counts and ``Games`` count
    only games actually played (a forfeit has no colour).
    """
    strikes = strikes or {}
    by_id = {p.id: p for p in players}
    score = {s.id: s.score for s in standings}
    order = [s.id for s in sorted(standings, key=lambda s: s.rank)]
    rank = {s.id: s.rank for s in standings}
    rows: dict[PlayerId, JsonDict] = {}
    abbr = abbreviations([p.name for p in players])
    for pid in order:
        p = by_id[pid]
        rows[pid] = {
            "Rank": rank[pid],
            "Abbreviation": abbr[p.name],
            "Rating": p.rating,
            "Score": score[pid],
            "GamesAsWhite": 0,
            "GamesAsBlack": 0,
            "WinsAsWhite": 0,
            "WinsAsBlack": 0,
            "LossAsWhite": 0,
            "LossAsBlack": 0,
            "Games": 0,
            "Neustadtl": 0.0,
            "Strikes": strikes.get(pid, 0),
            "Performance": 0.0,
            "Elo": 0.0,
            "Results": {},
        }
    points: dict[PlayerId, float] = dict.fromkeys(rows, 0.0)
    for g in games:
        for me, opp, color in ((g.white, g.black, Color.WHITE), (g.black, g.white, Color.BLACK)):
            row = rows[me]
            got = g.result.half_points(color) / 2
            points[me] += got
            row["Games"] += 1
            if g.played:
                side = "White" if color is Color.WHITE else "Black"
                row[f"GamesAs{side}"] += 1
                if got == 1.0:
                    row[f"WinsAs{side}"] += 1
                elif got == 0.0:
                    row[f"LossAs{side}"] += 1
            row["Neustadtl"] += got * score.get(opp, 0.0)
            mine, theirs = by_id[me].rating, by_id[opp].rating
            if g.played and mine is not None and theirs is not None:
                row["Elo"] += ELO_K * (got - expected_score(mine, theirs))
            h2h = row["Results"].setdefault(
                by_id[opp].name, {"H2h": 0.0, "Text": "", "Scores": []}
            )
            h2h["H2h"] += got
            h2h["Text"] += {1.0: "1", 0.5: "=", 0.0: "0"}[got]
            winner = g.result.winner
            h2h["Scores"].append(
                {
                    "Game": g.ordinal,
                    "Result": got,
                    "Winner": "Draw" if winner is None else winner.value.capitalize(),
                }
            )
    for pid, row in rows.items():
        if row["Games"]:
            frac = points[pid] / row["Games"]
            row["Performance"] = round(100 * frac, 1)
        row["Elo"] = round(row["Elo"], 1)
        row["Neustadtl"] = round(row["Neustadtl"], 2)
        if row["Rating"] is None:
            del row["Rating"]  # unknown: left out, never null
    return {
        "Event": event,
        "Type": kind,
        "Order": [by_id[pid].name for pid in order],
        "Table": {by_id[pid].name: rows[pid] for pid in order},
    }


def live_move_json(board_before: chess.Board, move: MoveRecord) -> JsonDict:
    """One entry of the live game JSON ``Moves`` list. ``board_before`` is the
    position before ``move`` (not modified)."""
    mv = chess.Move.from_uci(move.uci)
    pv_moves: list[JsonDict] = []
    pv_board = board_before.copy(stack=False)
    # The runner's records carry the PV's moves (legal: it made them to write the
    # SAN); others are parsed from the SAN, a move generation each.
    known = move.pv_uci if len(move.pv_uci) == len(move.pv_san) else None
    for i, san in enumerate(move.pv_san):
        if known is not None:
            pv_move = chess.Move.from_uci(known[i])
        else:
            try:
                pv_move = pv_board.parse_san(san)
            except ValueError:
                break  # a PV that does not replay is shown as far as it goes
        pv_board.push(pv_move)
        pv_moves.append(
            {
                "m": san,
                "fen": fen(pv_board),
                "from": chess.square_name(pv_move.from_square),
                "to": chess.square_name(pv_move.to_square),
            }
        )
    # Unknown values are left out (a null prints as "null" or 0 in the viewer):
    # an xboard engine reports no nps, a book move no depth. ``pd``, ``h``,
    # ``ph`` and ``rem`` are not read by the viewer; ``pd`` and ``h`` stay for
    # other readers when known.
    return _without_none({
        "m": move.san,
        "from": chess.square_name(mv.from_square),
        "to": chess.square_name(mv.to_square),
        "book": move.book,
        "fen": move.fen_after,
        "d": move.depth,
        "sd": move.seldepth,
        "pd": move.ponder_san,
        "mt": move.move_time_ms,
        "tl": move.clock_left_ms,
        "s": move.nps,
        "n": move.nodes,
        "tb": move.tbhits,
        "h": None if move.hashfull is None else round(move.hashfull / 10, 1),
        "wv": None if move.score is None else move.score.pgn(),
        "pv": {"San": " ".join(move.pv_san), "Moves": pv_moves} if move.pv_san else None,
        "material": fen_material_counts(move.fen_after),
        "adjudication": _without_none(
            {"FiftyMoves": move.r50, "Draw": move.rd, "ResignOrWin": move.rr}
        ) or None,
    })


def live_game_json(
    headers: Mapping[str, str],
    white_options: Sequence[tuple[str, str]],
    black_options: Sequence[tuple[str, str]],
    moves: Sequence[JsonDict],
) -> JsonDict:
    """The live game JSON document: options, PGN headers and the moves so far."""
    return {
        "WhiteEngineOptions": [{"Name": k, "Value": v} for k, v in white_options],
        "BlackEngineOptions": [{"Name": k, "Value": v} for k, v in black_options],
        "Headers": dict(headers),
        "Moves": list(moves),
    }


#: Terminations that are an engine's fault (crash.json rows), with the action taken.
_FAULTS = {
    Termination.TIME_FORFEIT: "loses the game, one strike",
    Termination.ILLEGAL_MOVE: "loses the game, one strike",
    Termination.ABANDONED: "loses the game, one strike",
    Termination.STALLED: "loses the game, one strike",
    Termination.FORFEIT: "game canceled: engine disqualified",
}


def crash_json(
    pairings: Sequence[RoundPairing],
    finished: Mapping[GameId, GameRecord | GameSummary],
    *,
    names: Mapping[PlayerId, str] | None = None,
) -> list[JsonDict]:
    """``crash.json``: one row per game an engine fault decided, in playing order,
    with the keys the viewer's Crash tab reads (``gameno``, not ``Game``)."""
    names = names or {}
    rows: list[JsonDict] = []
    ordinal = 0
    for pairing in pairings:
        for g in pairing.games:
            ordinal += 1
            found = finished.get(GameId(pairing.round, g.number))
            if found is None or found.termination not in _FAULTS:
                continue
            rec = summary(found)
            rows.append(
                {
                    "gameno": ordinal,
                    "White": names.get(g.white, g.white),
                    "Black": names.get(g.black, g.black),
                    "Reason": rec.termination_detail or rec.termination.value,
                    "decision": viewer_termination(rec.termination, rec.termination_detail),
                    "action": _FAULTS[rec.termination],
                    "Result": rec.result.value,
                    "Log": "",
                }
            )
    return rows


def tournament_json(event: str, slug: str) -> JsonDict:
    """``tournament.json``: a Swiss (``cup`` 0, so the viewer keeps its Standings
    and Crosstable tabs) with ``link`` set, so game links read
    ``#<link>&game=N`` rather than ``#undefined&game=N``."""
    return {"name": event, "cup": 0, "link": f"event={slug}"}
