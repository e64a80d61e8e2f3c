"""What a replay takes from the event config, when one is given.

Without ``--config`` everything comes from the PGN (seeds from round 1,
single/double from the games, the default tiebreaks, no MQTT settings). With
it, the config's players and seeds, round format, tiebreaks, broker and rules
(forbidden pairs, point system, accelerated rounds) are used, so a replay
pairs, ranks and publishes exactly as the live event did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tcecd.pairing.base import NO_CONTEXT, Player, RoundContext, RoundRecord, Standing
from tcecd.pairing.points import PointSystem

if TYPE_CHECKING:
    from tcecd.bus.settings import MqttSettings
    from tcecd.config.event import EventConfig
    from tcecd.replay.event import ReplayedEvent


def players_from_config(config: EventConfig) -> tuple[Player, ...]:
    """The config's engines as players with their seeds.

    Seeds are what the config's seeding method gives (explicit order, rating,
    group); random seeding without a recorded RNG seed cannot be reproduced
    from the config, so it returns ``()`` and the caller infers seeds from the
    PGN's round 1 instead.
    """
    seeding = config.pairing.seeding
    method = config.seeding_method
    if method == "random" and seeding.seed is None:
        return ()
    from tcecd.pairing.seeding import seed_players

    entries = [(e.name, e.name, e.rating) for e in config.engines]
    return seed_players(entries, method, groups=seeding.groups, rng_seed=seeding.seed)


def rules_from_config(
    config: EventConfig, players: Sequence[Player], source: Path | str
) -> RoundContext:
    """The config's rules (:meth:`EventConfig.pairing_context`) for ``players``
    (the seeded engines; none when the seeds cannot be known, which only
    Baku's groups need: then a :class:`ConfigError` naming ``source``)."""
    if not players and config.pairing.acceleration == "baku":
        from tcecd.errors import ConfigError

        raise ConfigError(
            f"{source}: pairing.acceleration 'baku' needs the seeds, and random seeding "
            "without a recorded seed cannot give them"
        )
    return config.pairing_context(players)


@dataclass(frozen=True)
class ReplayContext:
    """The config-derived settings of a replay (all optional)."""

    players: tuple[Player, ...] | None = None
    double: bool | None = None
    tiebreaks: tuple[str, ...] | None = None
    rounds: int | None = None  # the planned number of rounds
    mqtt: MqttSettings | None = None
    config_path: Path | None = None
    #: The pairing system's registry name; None without a config: the PGN's
    #: PairingSystem tag, else TCEC Swiss (tcecd.replay.event.rebuild_from_pgn).
    system: str | None = None
    time_limit_s: float = 10.0
    #: the event's rules (``pairing.forbidden_pairs``, ``points``,
    #: ``acceleration``) as every round is paired with them
    rules: RoundContext = NO_CONTEXT
    #: a knockout cup's ``games`` and ``tiebreak`` (tcecd.formats.knockout), and the
    #: event's time control (what its regular games are played at)
    knockout: dict[str, object] | None = None
    time_control: str | None = None

    @classmethod
    def from_config(cls, path: Path | None) -> ReplayContext:
        """Load ``path`` (an event YAML) or return the empty context."""
        if path is None:
            return cls()
        from tcecd.config.event_file import load_event

        config = load_event(path)
        players = players_from_config(config)
        rules = rules_from_config(config, players, path)
        return cls(
            players=players or None,
            double=config.pairing.double,
            tiebreaks=tuple(config.pairing.tiebreaks),
            rounds=config.rounds,
            mqtt=config.mqtt_settings(),
            config_path=path,
            system=config.pairing.system,
            time_limit_s=config.pairing.time_limit_s,
            rules=rules,
            knockout=(
                dict(config.format_settings().extra)
                if config.pairing.system == "knockout" else None
            ),
            time_control=config.time_control_value().pgn_tag(),
        )

    @property
    def points(self) -> PointSystem:
        """The event's point system (the standard one without a config)."""
        return self.rules.points

    def standings(
        self, replayed: ReplayedEvent, rounds: Sequence[RoundRecord]
    ) -> tuple[Standing, ...]:
        """Standings of ``replayed.players`` after ``rounds``."""
        from tcecd.pairing.standings import standings

        if self.tiebreaks is None:
            return standings(
                replayed.players, rounds, double=replayed.double, points=self.points
            )
        return standings(
            replayed.players,
            rounds,
            double=replayed.double,
            tiebreaks=self.tiebreaks,
            points=self.points,
        )

    def describe(self, replayed: ReplayedEvent) -> str:
        """A short summary of what was rebuilt and where each fact came from."""
        rounds = len(replayed.rounds)
        games = len(replayed.games)
        fmt = "double" if replayed.double else "single"
        fmt_src = "inferred" if replayed.double_inferred else "given"
        seed_src = {
            "round 1": "inferred from round 1",
            "pgn": "from the PGN's seed tags",
        }.get(replayed.seeds_from, "from the config")
        byes = sum(len(r.byes) for r in replayed.rounds)
        lines = [
            f"{replayed.event}: {len(replayed.players)} players (seeds {seed_src}), "
            f"{rounds} complete {fmt} rounds ({fmt_src}), {games} games, {byes} BYEs",
        ]
        if replayed.partial is not None:
            lines.append(
                f"round {replayed.partial.round} unfinished: "
                f"{len(replayed.partial.games)} games played"
            )
        removed = sorted({n for r in replayed.rounds for n in r.removed_history_rounds})
        if removed:
            lines.append(
                "encounter history rounds removed by the rules: " + ", ".join(map(str, removed))
            )
        return "\n".join(lines)
