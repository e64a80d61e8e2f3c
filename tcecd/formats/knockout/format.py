"""The knockout cup as an event format (:class:`~tcecd.formats.base.EventFormat`).

The pure cup (:mod:`tcecd.formats.knockout.cup`) is a fold over the cup's
games; this adapter builds it from the event state (the stored schedule, the
results, the disqualifications) and answers the runner's questions with it:
the games to schedule next (a round's next games, each stored before it is
played; counted as in progress until it ends, as cutechess-cli counts its
running games), who ranks where, each game's opening slot and rules (tiebreak
games at their own time control), and the bracket for MQTT and TCEC's viewer.

A round's schedule is stored as a :class:`~tcecd.pairing.base.RoundPairing`:
its ``pairs`` are the round's encounters (BYEs left out), in bracket order,
and each game's ``pair_index`` its encounter among them, ``leg`` its place in
the encounter (1, 2, ...). A round grows as its encounters need games; the
games already stored never change (the store refuses it). Pure.
"""

from __future__ import annotations

from typing import Any

from tcecd.domain import GameId, PlayerId
from tcecd.event.state import EventState, apply
from tcecd.events import GameFinished
from tcecd.formats.base import Done, FormatSettings, Plan, Play, Schedule
from tcecd.formats.knockout.bracket import round_count
from tcecd.formats.knockout.cup import Cup, build_cup, next_games, standings
from tcecd.formats.knockout.documents import (
    bracket_document,
    eventcrosstable_json,
    tournament_json,
)
from tcecd.formats.knockout.encounter import CupGame, KnockoutSettings
from tcecd.game.record import GameRecord
from tcecd.game.rules import GameRules
from tcecd.game.timecontrol import TimeControl
from tcecd.pairing.base import Pair, RoundPairing, ScheduledGame, Standing


def knockout_settings(settings: FormatSettings) -> KnockoutSettings:
    """The cup's rules from the format settings (``pairing.games``, ``pairing.tiebreak``)."""
    extra = settings.extra
    return KnockoutSettings(
        games=int(extra.get("games", 2)),
        tiebreak_time_control=extra.get("tiebreak_time_control"),
        tiebreak_max_games=extra.get("tiebreak_max_games"),
    )


class KnockoutFormat:
    """A knockout cup (see the module docstring)."""

    name = "knockout"

    def __init__(self, settings: FormatSettings) -> None:
        self.settings = settings
        self.cup_settings = knockout_settings(settings)
        tc = self.cup_settings.tiebreak_time_control
        self._tiebreak_tc = None if tc is None else TimeControl.parse(tc)

    def cup(self, state: EventState) -> Cup:
        """The cup as the state holds it."""
        players = [p.id for p in sorted(state.players, key=lambda p: p.seed)]
        games = [
            CupGame(
                r, g.number, g.white, g.black,
                None if (done := state.results.get(GameId(r, g.number))) is None
                else done.result,
            )
            for r in state.rounds
            for g in state.schedule[r].games
        ]  # fmt: skip
        out: dict[PlayerId, int] = {e: r for e, (r, _) in state.disqualified.items()}
        for engine, (r, _) in state.withdrawn.items():
            # Withdrawn by the operator: out from that round on, as a disqualification.
            out[engine] = min(r, out.get(engine, r))
        return build_cup(players, self.cup_settings, games, out)

    def total_rounds(self, state: EventState) -> int | None:
        return round_count(len(state.players))

    def plan(self, state: EventState) -> Plan:
        cup = self.cup(state)
        new = next_games(cup)
        if not new:
            return Done() if cup.finished and not state.pending() else Play()
        round_no = new[0].round
        current = cup.rounds[round_no - 1]
        encounters = [e for e in current.encounters if e.lower is not None]
        pair_of = {e.index: i for i, e in enumerate(encounters)}
        old = state.schedule.get(round_no)
        games = list(old.games) if old is not None else []
        for g in new:
            if g.round != round_no:
                break
            games.append(ScheduledGame(g.number, g.white, g.black, pair_of[g.encounter], g.index))
        pairs = tuple(Pair(e.upper, e.lower) for e in encounters if e.lower is not None)
        return Schedule(RoundPairing(round_no, None, (), pairs, tuple(games)))

    def round_over(self, state: EventState, round_no: int) -> bool:
        cup = self.cup(state)
        if round_no > len(cup.rounds):
            return False
        return cup.rounds[round_no - 1].over and not any(
            r == round_no for r, _ in state.pending()
        )

    def standings(self, state: EventState) -> tuple[Standing, ...]:
        return standings(self.cup(state))

    def decided_from(self, state: EventState, gid: GameId) -> str | None:
        """An encounter's games are read together (who leads, whether a
        tiebreak is needed, who advances): a result stands once a later game of
        its encounter has finished, a tiebreak game was scheduled from it, or
        either engine was drawn into a later round."""
        pairing = state.schedule[gid.round]
        game = next(g for g in pairing.games if g.number == gid.number)
        after = [g for g in pairing.games
                 if g.pair_index == game.pair_index and g.number > gid.number]  # fmt: skip
        for g in after:
            if GameId(gid.round, g.number) in state.results:
                return f"game {gid.round}.{g.number} of its encounter has finished since"
        if any(g.leg > self.cup_settings.games for g in after):
            return "its encounter's tiebreak games were scheduled from its result"
        players = {game.white, game.black}
        for r in state.rounds:
            if r > gid.round and any(
                players & {g.white, g.black} for g in state.schedule[r].games
            ):
                return f"round {r} of the cup was drawn from its encounter's result"
        return None

    def opening_index(self, state: EventState, gid: GameId) -> int:
        _, game = self.cup(state).find(gid.round, gid.number)
        return game.opening

    def game_rules(self, state: EventState, gid: GameId, rules: GameRules) -> GameRules:
        if self._tiebreak_tc is None:
            return rules
        _, game = self.cup(state).find(gid.round, gid.number)
        return rules.with_time_control(self._tiebreak_tc) if game.tiebreak else rules

    def bracket(self, state: EventState) -> dict[str, Any] | None:
        return bracket_document(self.cup(state))

    def record_tags(self, state: EventState, record: GameRecord) -> tuple[tuple[str, str], ...]:
        """The game that decides its encounter says so: ``[Encounter "ab-d1
        advances: tied 2-2 after 2 tiebreak games: ab-d1 advances as the higher
        seed"]`` (the reason the bracket gives too)."""
        after = apply(state, GameFinished(record, ""))
        encounter, _ = self.cup(after).find(record.game_id.round, record.game_id.number)
        outcome = encounter.outcome
        if outcome is None or not encounter.decided:
            return ()
        return (("Encounter", f"{outcome.winner} advances: {outcome.reason}"),)

    def viewer_files(self, state: EventState, event: str, slug: str) -> dict[str, Any]:
        """``tournament.json`` with a non-zero ``cup`` (TCEC's viewer then shows
        the bracket) and ``Eventcrosstable.json``, the bracket it draws."""
        names = {p.id: p.name for p in state.players}
        return {
            "tournament.json": tournament_json(event, slug),
            "Eventcrosstable.json": eventcrosstable_json(self.cup(state), names),
        }
