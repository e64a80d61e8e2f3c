"""The JSON document of ``tcecd simulate --json`` and ``tcecd pair``.

One format for an event so far (docs/pairing.md)::

    {"system": "tcec-swiss", "double": false,
     "players": [{"id": "P01", "name": "...", "seed": 1, "rating": 3500}, ...],
     "rounds": [{"round": 1, "bye": null, "removed_history_rounds": [],
                 "games": [{"white": "P02", "black": "P01", "result": "0-1"}, ...]}],
     "standings": [...]}

``"system"`` (when present) names a registered pairing system
(:mod:`tcecd.pairing.registry`; absent: ``"tcec-swiss"``); ``"double"``
defaults to false; ``"rounds"`` to none; ``"standings"`` is output only and
ignored on input. A game may carry ``"played": false`` (a forfeit that never
started). Rounds are finished rounds: numbered 1, 2, ... with every player
paired once (twice against the same opponent in a double round), given the
BYE or listed in the round's requested byes.

Fields the FIDE systems need, all optional so older documents still load (and
written only when set, so TCEC Swiss documents look as before): a player's
``"title"``; a round's ``"requested_byes": [{"player": "P03", "kind": "H"}]``
(kinds ``H``, ``F``, ``Z``: half-, full-, zero-point bye or absence); and the
round to pair next, ``"context": {"total_rounds": 9, "first_colour": "white",
"requested_byes": [...]}`` (:class:`~tcecd.pairing.base.RoundContext`), with
the event's rules when it has any: ``"forbidden_pairs": [["P01", "P02"]]``,
``"points": {"win_white": 3, ...}`` (points per outcome,
:data:`tcecd.pairing.points.OUTCOMES`; ``win``/``draw``/``loss`` set both
colours) and ``"acceleration": {"P01": [1, 1, 0.5]}`` (virtual points per
round, from round 1).

A round's pairing-allocated bye is ``"bye"`` (an id or null); a round with
several (the integer program may leave several players unpaired) has
``"byes"``, a list, instead. Older documents kept the further ones among the
``"requested_byes"`` with kind ``U``: they still load, as pairing-allocated
byes.

Every error names the source and the JSON path of the bad value, e.g.
``state.json: $.rounds[2].games[0].result: invalid result '2-0'``.
"""

from tcecd.pairing.state_json.decode import (
    MAX_JSON_DEPTH,
    EventJsonError,
    EventState,
    json_depth_over,
    load_event_json,
    load_event_state,
)
from tcecd.pairing.state_json.encode import (
    SYSTEM,
    acceleration_to_json,
    byes_to_json,
    context_to_json,
    dumps,
    event_to_json,
    forbidden_to_json,
    number,
    player_to_json,
    points_to_json,
    round_to_json,
    standing_to_json,
)

__all__ = [
    "MAX_JSON_DEPTH",
    "SYSTEM",
    "EventJsonError",
    "EventState",
    "acceleration_to_json",
    "byes_to_json",
    "context_to_json",
    "dumps",
    "event_to_json",
    "forbidden_to_json",
    "json_depth_over",
    "load_event_json",
    "load_event_state",
    "number",
    "player_to_json",
    "points_to_json",
    "round_to_json",
    "standing_to_json",
]
