"""The knockout cup (``pairing: {system: knockout, ...}``): a pure core.

* :mod:`.bracket`: the bracket's size and the standard seeded draw (BYEs to the top seeds).
* :mod:`.encounter`: the settings, one encounter, and when it ends (cutechess-cli's rule).
* :mod:`.cup`: the cup as a fold over its games; which games to schedule next; standings.
* :mod:`.verify`: a cup checked from its PGN (``tcecd replay --verify``).
* :mod:`.documents`: the MQTT ``bracket`` document and TCEC's ``Eventcrosstable.json``.

No asyncio, files or clock: values in, values out.
"""

from tcecd.formats.knockout.bracket import bracket_size, first_round, round_count, seed_order
from tcecd.formats.knockout.cup import (
    Cup,
    CupRound,
    NewGame,
    build_cup,
    next_games,
    next_round_encounters,
    standings,
)
from tcecd.formats.knockout.documents import (
    bracket_document,
    cup_from_bracket,
    eventcrosstable_json,
    game_ordinals,
    tournament_json,
)
from tcecd.formats.knockout.encounter import (
    CupGame,
    Decision,
    Encounter,
    EncounterGame,
    KnockoutSettings,
    Outcome,
    need_more_games,
)
from tcecd.formats.knockout.verify import games_from_headers, verify_cup

__all__ = [
    "Cup",
    "CupGame",
    "CupRound",
    "Decision",
    "Encounter",
    "EncounterGame",
    "KnockoutSettings",
    "NewGame",
    "Outcome",
    "bracket_document",
    "bracket_size",
    "build_cup",
    "cup_from_bracket",
    "eventcrosstable_json",
    "first_round",
    "game_ordinals",
    "games_from_headers",
    "need_more_games",
    "next_games",
    "next_round_encounters",
    "round_count",
    "seed_order",
    "standings",
    "tournament_json",
    "verify_cup",
]
