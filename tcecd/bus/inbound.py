"""What a consumer reads from the stream, checked against docs/events.md. Pure.

Anyone who can publish to the broker (an anonymous client of an embedded broker, a
viewer account the ACL forgot, a page open on the host that speaks MQTT over
websockets) can put any bytes on the event's topics, retained. Every consumer of
the stream (``tcecd watch``, ``tcecd web`` and its TCEC viewer feed, a bot) must
therefore check each message before it uses it, and skip a bad one instead of
failing on it (issue 28: a retained ``standings`` row with ``"rank": "x"`` made
``tcecd watch --once`` exit with a traceback). This module is that check, in one
place:

* :func:`parse` ``(levels, payload)``: the message on ``<prefix>/<event>/<levels>``
  as a JSON object that has the types docs/events.md gives its topic (``None`` for
  an empty payload: a retained message deleted). It raises
  :class:`UnknownPayload` for what this reader does not know (a topic outside the
  schema, another schema version: not an error, a newer daemon's) and
  :class:`InvalidPayload` for a message that breaks the schema: larger than
  :data:`MAX_PAYLOAD`, not JSON, not an object, a ``type`` other than its topic's,
  a field of the wrong type, a string or list longer than its bound, a game id
  or round that contradicts its topic, a number that is not finite.
* :func:`check_document` ``(doc_type, obj)``: the same check for an object
  already decoded.
* :func:`document_type` ``(levels)``: the document type a topic carries.
* :func:`printable` ``(value)``: a payload's strings made safe to print on a
  terminal or show on a page: control characters (C0, DEL, C1: ESC sequences,
  OSC title changes and hyperlinks, BEL, backspaces, carriage returns, new lines)
  and the Unicode bidirectional controls (which reorder what is shown: "Trojan
  Source") become U+FFFD, so a tampered name shows as tampered.

The models (:mod:`tcecd.bus.documents`) are pydantic's in strict mode, bounded,
unknown fields allowed. Only the ``daemon`` details of ``status`` are left
unchecked (nobody reads them). The returned document is the decoded object
itself: the check changes nothing, so a consumer reads what the daemon wrote.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from tcecd.bus.documents import MAX_PAYLOAD, MODELS
from tcecd.bus.payloads import SCHEMA
from tcecd.errors import BusError


class PayloadError(BusError):
    """A message a consumer does not use."""


class UnknownPayload(PayloadError):
    """A topic outside the schema, or another schema version: ignore it."""


class InvalidPayload(PayloadError):
    """A message that breaks the schema of its topic: skip it and count it."""


# -- the check ---------------------------------------------------------------------

_SINGLE = ("status", "event", "schedule", "standings", "bracket", "crosstable", "forecast",
           "finished", "audit", "console")


def document_type(levels: Sequence[str]) -> str | None:
    """The document type the topic ``<prefix>/<event>/<levels>`` carries
    (docs/events.md, "Topic tree"), or None for a topic outside the schema."""
    match list(levels):
        case [name] if name in _SINGLE:
            return name
        case ["round", n, "pairing"] if n.isdigit():
            return "pairing"
        case ["game", _gid, "start" | "move" | "live" | "end" as kind]:
            return kind
        case ["engine", _seg, "fault" | "disqualified" as kind]:
            return kind
        case ["engine", _seg, "state"]:
            return "engine"
        case ["kibitzer", n] if n.isdigit():
            return "kibitzer"
    return None


def _first_error(doc_type: str, exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in error["loc"]).replace("schema_", "schema")
    return f"{doc_type}: {where or '(document)'}: {error['msg']}"


def check_document(doc_type: str, obj: object) -> dict[str, Any]:
    """``obj`` (a decoded payload) if it is a ``doc_type`` document as
    docs/events.md describes it; else :class:`InvalidPayload` (another schema
    version: :class:`UnknownPayload`). The object is returned unchanged."""
    if not isinstance(obj, dict):
        raise InvalidPayload(f"{doc_type}: not a JSON object")
    if obj.get("schema") != SCHEMA:
        raise UnknownPayload(f"{doc_type}: schema {obj.get('schema')!r}, not {SCHEMA}")
    model = MODELS.get(doc_type)
    if model is None:
        raise UnknownPayload(f"unknown document type {doc_type!r}")
    if obj.get("type") != doc_type:
        raise InvalidPayload(f"{doc_type}: type {obj.get('type')!r} on a {doc_type!r} topic")
    try:
        model.model_validate(obj)
    except ValidationError as exc:
        raise InvalidPayload(_first_error(doc_type, exc)) from None
    return obj


def parse(levels: Sequence[str], payload: bytes) -> dict[str, Any] | None:
    """The payload of the message on ``<prefix>/<event>/<levels>``, checked
    (see the module docstring); None for an empty payload."""
    if not payload:
        return None
    doc_type = document_type(levels)
    if doc_type is None:
        raise UnknownPayload(f"topic {'/'.join(levels)!r} is not in the schema")
    if len(payload) > MAX_PAYLOAD:
        raise InvalidPayload(f"{doc_type}: {len(payload)} bytes (at most {MAX_PAYLOAD})")
    try:
        obj = json.loads(payload)
    except (ValueError, RecursionError):  # RecursionError: nested thousands deep
        raise InvalidPayload(f"{doc_type}: not JSON") from None
    if _too_deep(obj):
        raise InvalidPayload(f"{doc_type}: nested more than {MAX_DEPTH} levels deep")
    doc = check_document(doc_type, obj)
    _check_topic(doc_type, list(levels), doc)
    return doc


#: The deepest nesting a payload may have: the schema's deepest document (a TCEC
#: crosstable) is some eight levels deep; unknown fields are kept, and a reader
#: that walks them (:func:`printable`) must not run out of stack.
MAX_DEPTH = 32


def _too_deep(obj: object) -> bool:
    """Whether ``obj`` nests more than :data:`MAX_DEPTH` levels (iterative)."""
    stack: list[tuple[object, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                return True
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
    return False


def _check_topic(doc_type: str, levels: list[str], doc: dict[str, Any]) -> None:
    """The document names what its topic names: a message cannot pass for
    another game's or round's (readers key games and rounds by the topic; an
    engine's documents are read by their ``engine`` field, so an engine topic's
    name is not compared: a segment is a lossy form of the name)."""
    match levels:
        case ["round", n, "pairing"] if doc["round"] != int(n):
            raise InvalidPayload(f"pairing: round {doc['round']} on the topic of round {n}")
        case ["game", gid, _] if doc["game"] != gid:
            raise InvalidPayload(f"{doc_type}: game {doc['game']!r} on the topic of another")
        case ["kibitzer", n] if doc["kibitzer"] != int(n):
            raise InvalidPayload(f"kibitzer: {doc['kibitzer']} on the topic of kibitzer {n}")


# -- showing what a payload says -------------------------------------------------------

#: C0 controls, DEL, C1 controls, and the bidirectional formatting characters
#: (LRM/RLM/ALM, LRE..RLO, LRI..PDI): what a terminal or a page must not receive
#: from a stranger.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: What stands for a character taken out.
REPLACEMENT = "\ufffd"


def printable(value: Any) -> Any:
    """``value`` (a decoded payload, or any part of one) with every string's
    control and bidi characters replaced by U+FFFD, keys included; other values
    as they are. Depth-first: a payload is bounded by the broker's message size."""
    if isinstance(value, str):
        return _UNPRINTABLE.sub(REPLACEMENT, value)
    if isinstance(value, dict):
        return {printable(k): printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [printable(v) for v in value]
    return value


__all__ = [
    "MAX_PAYLOAD",
    "MODELS",
    "InvalidPayload",
    "PayloadError",
    "UnknownPayload",
    "check_document",
    "document_type",
    "parse",
    "printable",
]
