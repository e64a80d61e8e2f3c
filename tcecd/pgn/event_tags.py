"""The tags that make a game's PGN say which event it belongs to: enough for
``tcecd replay --verify`` to check an event from its PGN alone.

A PGN of a Dutch event replayed without its config was checked against the TCEC
Swiss rules ("FAILED: 9 deviations", issue 27): nothing in the games named the
system, and only TCEC Swiss fixes round 1 so that the seeds can be read back from
it. The daemon writes on every game:

- ``PairingSystem``: the pairing system's registry name (``tcec-swiss``,
  ``dutch-2017``, ...). No standard tag names a pairing system (the PGN standard's
  supplemental tags have none; ChessBase's ``EventType "swiss"`` does not say which
  Swiss), so the name says what it holds;
- ``EventRounds``: the event's number of rounds, the tag ChessBase writes for it (the
  FIDE systems' last-round rules need it; TRF's ``XXR``);
- ``WhiteSeed`` / ``BlackSeed``: each player's seed (the pairing number: the FIDE
  systems pair by it, and rating order with ties in config order cannot be re-made
  from ``WhiteElo``/``BlackElo``).

Readers ignore tags they do not know: TCEC's viewer (tcecgui's ``parse_pgn`` reads
every ``[Name "value"]`` pair into a dictionary and uses the names it knows),
pgn-extract (keeps them and reports nothing: ``tests/pgn``), python-chess.

Pure: values in, values out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from tcecd.domain import PlayerId
from tcecd.errors import PgnError
from tcecd.game.record import GameRecord

SYSTEM_TAG = "PairingSystem"
ROUNDS_TAG = "EventRounds"
WHITE_SEED_TAG = "WhiteSeed"
BLACK_SEED_TAG = "BlackSeed"
#: Every tag of this module (a record's own values for them are replaced).
TAGS = (SYSTEM_TAG, ROUNDS_TAG, WHITE_SEED_TAG, BLACK_SEED_TAG)


def with_event_tags(
    record: GameRecord, system: str, rounds: int, seeds: Mapping[PlayerId, int]
) -> GameRecord:
    """``record`` with the event's tags (module docstring) among its extra tags,
    replacing any it had (a game recovered from an earlier PGN)."""
    tags = [(SYSTEM_TAG, system), (ROUNDS_TAG, str(rounds))]
    for tag, player in ((WHITE_SEED_TAG, record.white), (BLACK_SEED_TAG, record.black)):
        if player in seeds:
            tags.append((tag, str(seeds[player])))
    kept = [(name, value) for name, value in record.extra_tags if name not in TAGS]
    # In the PGN's order (the writer sorts the tags after the roster), so that the
    # record read back from the PGN is this one.
    return dataclasses.replace(record, extra_tags=tuple(sorted(kept + tags)))


@dataclass
class EventTags:
    """What a PGN's games say of their event, gathered game by game
    (:meth:`add`): the system and number of rounds (None: no game says), each
    player's seed and rating (``WhiteElo``/``BlackElo``). Games that disagree are
    a :class:`PgnError` naming the game."""

    file: str
    system: str | None = None
    rounds: int | None = None
    seeds: dict[PlayerId, int] = field(default_factory=dict)
    ratings: dict[PlayerId, int] = field(default_factory=dict)

    def add(
        self, number: int, headers: Mapping[str, str], white: PlayerId, black: PlayerId
    ) -> None:
        """Take game ``number``'s tags (``white``/``black``: its players)."""
        system = headers.get(SYSTEM_TAG, "").strip()
        if system:
            if self.system is not None and system != self.system:
                raise self._error(number, f"{SYSTEM_TAG} {system!r} where earlier games "
                                  f"say {self.system!r}")  # fmt: skip
            self.system = system
        rounds = headers.get(ROUNDS_TAG, "").strip()
        if rounds:
            value = self._number(number, ROUNDS_TAG, rounds)
            if self.rounds is not None and value != self.rounds:
                raise self._error(number, f"{ROUNDS_TAG} {value} where earlier games say "
                                  f"{self.rounds}")  # fmt: skip
            self.rounds = value
        for player, seed_tag, elo_tag in ((white, WHITE_SEED_TAG, "WhiteElo"),
                                          (black, BLACK_SEED_TAG, "BlackElo")):  # fmt: skip
            text = headers.get(seed_tag, "").strip()
            if text:
                seed = self._number(number, seed_tag, text)
                known = self.seeds.setdefault(player, seed)
                if known != seed:
                    raise self._error(number, f"{seed_tag} {seed} for {player!r}, whose "
                                      f"seed is {known} in an earlier game")  # fmt: skip
            elo = headers.get(elo_tag, "").strip()
            if elo.isdigit():
                self.ratings.setdefault(player, int(elo))

    def seeded(self, players: set[PlayerId]) -> bool:
        """Whether every one of ``players`` has a seed, the seeds being 1..N."""
        return bool(players) and set(self.seeds) == players and sorted(
            self.seeds.values()
        ) == list(range(1, len(players) + 1))

    def _number(self, number: int, tag: str, text: str) -> int:
        if not text.isdigit() or int(text) < 1:
            raise self._error(number, f"{tag} {text!r} is not a positive whole number")
        return int(text)

    def _error(self, number: int, message: str) -> PgnError:
        return PgnError(f"{self.file}: game {number}: {message}")
