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

import dataclasses
from typing import Any

from tcecd.domain import GameId, PlayerId
from tcecd.errors import StateError
from tcecd.event.state import EventState
from tcecd.formats.base import Done, FormatSettings, Plan, Play, Schedule
from tcecd.game.record import GameRecord
from tcecd.game.rules import GameRules
from tcecd.pairing.base import Bye, ByeKind, RoundContext, Standing

#: The systems under which a withdrawn engine is no longer paired (:meth:`RoundsFormat.absent`).
ABSENT_WHEN_WITHDRAWN = frozenset({"dutch-2017", "dutch-2012", "dubov", "integer-program"})
#: The systems that never read a result: a round-robin's Berger table fixes
#: every round from the field alone (:meth:`RoundsFormat.decided_from`).
RESULTS_NOT_READ = frozenset({"round-robin"})


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
        if paired and state.first_open is not None:
            # A round is being played: the last one, or (round-robin) an earlier
            # one the operator re-opened by voiding a faulted game's result.
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
        """What every round is paired with: the rounds, the event's pairing
        rules (forbidden pairs, point system, virtual points) when it has any,
        and the engines the operator withdrew (:meth:`absent`)."""
        rounds = self.total_rounds(state)
        assert rounds is not None
        rules = self.settings.extra.get("rules")
        if not rules:
            context = RoundContext(total_rounds=rounds)
        else:
            from tcecd.pairing.points import event_context

            context = event_context(
                state.players, rounds, rules["forbidden_pairs"], rules["points"],
                rules["acceleration"],
            )  # fmt: skip
        absent = self.absent(state)
        if absent:
            byes = tuple(Bye(engine, ByeKind.ZERO) for engine in absent)
            context = dataclasses.replace(
                context, requested_byes=(*context.requested_byes, *byes)
            )
        return context

    def absent(self, state: EventState) -> tuple[PlayerId, ...]:
        """The engines a round leaves out because the operator withdrew them:
        under the FIDE Swiss systems and the integer program a player who
        withdraws "will no longer be paired" (FIDE Dutch rules, 2012 text:
        ../shared/seeds/fide-dutch-system-2012.txt; FIDE Tournament Rules: the
        points scored stand), a zero-point absence every later round. TCEC
        Swiss and the round-robin know no absent player (every engine plays
        every round, the Berger table fixes the games): they pair a withdrawn
        engine and its games are forfeits, as after a disqualification
        (docs/running.md, "Withdrawing an engine")."""
        if self.name not in ABSENT_WHEN_WITHDRAWN:
            return ()
        return tuple(sorted(state.withdrawn))

    def round_over(self, state: EventState, round_no: int) -> bool:
        return state.round_done(round_no)

    def decided_from(self, state: EventState, gid: GameId) -> str | None:
        """A Swiss system pairs each round from the results before it: once
        the next round is paired, a result it read stands (FIDE's systems, like
        TCEC's, never re-pair a published round). Nothing follows from a
        round-robin's results: its Berger table fixed every round in advance,
        so a result may be voided while later rounds are played."""
        if self.name in RESULTS_NOT_READ:
            return None
        later = next((r for r in state.rounds if r > gid.round), None)
        if later is None:
            return None
        return (f"round {later} was paired from its result ({self.name} pairs every "
                "round from the results of the rounds before it)")  # fmt: skip

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
        """A round paired without withdrawn engines says which
        (``[Withdrawn "A, B"]``): ``tcecd replay --verify`` pairs it so."""
        pairing = state.schedule.get(record.game_id.round)
        if pairing is None:
            return ()
        gone = [b.player for b in pairing.requested_byes if b.player in state.withdrawn]
        return (("Withdrawn", ", ".join(gone)),) if gone else ()

    def viewer_files(self, state: EventState, event: str, slug: str) -> dict[str, Any]:
        from tcecd.outputs.tcec_json import tournament_json

        return {"tournament.json": tournament_json(event, slug)}
