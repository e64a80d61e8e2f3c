"""The round-based formats: every round paired by a pairing system.

TCEC Swiss, the FIDE Dutch (2017, 2012) and Dubov systems, the integer
program and the round-robin (:mod:`tcecd.pairing.registry`) share one shape:
a fixed number of rounds; each round is paired from the finished ones once
the round before it is over, and its games are the pairing's. This format
turns a pairing system into an :class:`~tcecd.formats.base.EventFormat`.
Pure (pairing may take seconds: the runner calls :meth:`RoundsFormat.plan`
in a worker thread).
"""

from __future__ import annotations

from typing import Any

from tcecd.domain import GameId
from tcecd.errors import StateError
from tcecd.event.state import EventState
from tcecd.formats.base import Done, FormatSettings, Plan, Play, Schedule
from tcecd.game.record import GameRecord
from tcecd.game.rules import GameRules
from tcecd.pairing.base import RoundContext, Standing


class RoundsFormat:
    """A pairing system's rounds (see the module docstring)."""

    def __init__(self, settings: FormatSettings) -> None:
        from tcecd.pairing.registry import SystemOptions, canonical_name, get_system

        self.settings = settings
        self.name = canonical_name(settings.system)
        self.system = get_system(self.name, SystemOptions(time_limit_s=settings.time_limit_s))
        rules = settings.extra.get("rules") or {}
        from tcecd.pairing.points import event_point_system

        #: Scores and standings follow the event's point system (standard: 1-0.5-0).
        self.points = event_point_system(rules.get("points"), rules.get("acceleration"))

    def total_rounds(self, state: EventState) -> int | None:
        if self.settings.rounds is not None:
            return self.settings.rounds
        return self.system.rounds_for(len(state.players))

    def plan(self, state: EventState) -> Plan:
        rounds = self.total_rounds(state)
        if rounds is None:
            raise StateError(f"{self.name}: the number of rounds is not set")
        paired = state.rounds
        if paired and not state.round_done(paired[-1]):
            return Play()
        history = state.history()
        if len(history) != len(paired):
            raise StateError(f"round {len(history) + 1} is unfinished")
        if len(history) >= rounds:
            return Done()
        pairing = self.system.pair(
            state.players, history, double=self.settings.double, context=self.context(state)
        )
        return Schedule(pairing)

    def context(self, state: EventState) -> RoundContext:
        """What every round is paired with: the rounds, and the event's pairing
        rules (forbidden pairs, point system, virtual points) when it has any."""
        rounds = self.total_rounds(state)
        assert rounds is not None
        rules = self.settings.extra.get("rules")
        if not rules:
            return RoundContext(total_rounds=rounds)
        from tcecd.pairing.points import event_context

        return event_context(
            state.players, rounds, rules["forbidden_pairs"], rules["points"],
            rules["acceleration"],
        )  # fmt: skip

    def round_over(self, state: EventState, round_no: int) -> bool:
        return state.round_done(round_no)

    def standings(self, state: EventState) -> tuple[Standing, ...]:
        """Live standings: every game finished so far (the final ones once the
        event is over), ranked by score, BYEs and the configured tiebreaks."""
        from tcecd.pairing.standings import standings

        return tuple(
            standings(
                state.players,
                state.records_so_far(),
                double=self.settings.double,
                tiebreaks=self.settings.tiebreaks,
                points=self.points,
            )
        )

    def opening_index(self, state: EventState, gid: GameId) -> int:
        """Openings are taken in order: one per game in single rounds, one per
        pair in double rounds (both legs of a pair share it)."""
        double = self.settings.double
        before = 0
        for r in state.rounds:
            if r >= gid.round:
                break
            p = state.schedule[r]
            before += len(p.pairs) if double else len(p.games)
        pairing = state.schedule[gid.round]
        game = next(g for g in pairing.games if g.number == gid.number)
        if double:
            first_leg = [g for g in pairing.games if g.leg == 1]
            position = next(i for i, g in enumerate(first_leg) if g.pair_index == game.pair_index)
        else:
            position = gid.number - 1
        return before + position

    def game_rules(self, state: EventState, gid: GameId, rules: GameRules) -> GameRules:
        return rules

    def bracket(self, state: EventState) -> dict[str, Any] | None:
        return None

    def record_tags(self, state: EventState, record: GameRecord) -> tuple[tuple[str, str], ...]:
        return ()

    def viewer_files(self, state: EventState, event: str, slug: str) -> dict[str, Any]:
        from tcecd.outputs.tcec_json import tournament_json

        return {"tournament.json": tournament_json(event, slug)}
