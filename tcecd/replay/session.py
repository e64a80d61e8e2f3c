"""What a replay takes from the event config, when one is given.

Without ``--config`` everything comes from the PGN (seeds from round 1,
single/double from the games, the default tiebreaks, no MQTT settings). With
it, the config's players and seeds, round format, tiebreaks and broker are
used, so a replay ranks and publishes exactly as the live event did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tcecd.pairing.base import Player, RoundRecord, Standing

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

    @classmethod
    def from_config(cls, path: Path | None) -> ReplayContext:
        """Load ``path`` (an event YAML) or return the empty context."""
        if path is None:
            return cls()
        from tcecd.config.load import load_event

        config = load_event(path)
        players = players_from_config(config)
        return cls(
            players=players or None,
            double=config.pairing.double,
            tiebreaks=tuple(config.pairing.tiebreaks),
            rounds=config.rounds,
            mqtt=config.mqtt_settings(),
            config_path=path,
            system=config.pairing.system,
            time_limit_s=config.pairing.time_limit_s,
        )

    def standings(
        self, replayed: ReplayedEvent, rounds: Sequence[RoundRecord]
    ) -> tuple[Standing, ...]:
        """Standings of ``replayed.players`` after ``rounds``."""
        from tcecd.pairing.standings import standings

        if self.tiebreaks is None:
            return standings(replayed.players, rounds, double=replayed.double)
        return standings(
            replayed.players, rounds, double=replayed.double, tiebreaks=self.tiebreaks
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
        byes = sum(1 for r in replayed.rounds if r.bye is not None)
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
