"""The outbox: messages that must reach subscribers, kept in the event state until
the broker acknowledged them. Pure values and rules; the store keeps the rows
(:mod:`tcecd.store.sqlite`), the publisher sends them and reports the PUBACKs.

Which messages (docs/events.md, "Delivery"): every game's ``end`` (its
result and PGN), every round's ``pairing``, the ``standings`` after each round
and at the end, and ``finished``. The daemon writes them in the same store
transaction as the game, pairing or end of event they announce (the standings
after a round in their own, right after the round), so that a SIGKILL at any
moment leaves either both or neither; at start-up it adds the rows a crash
(or an older tcecd, or a run without MQTT) left out. The publisher marks a row
acknowledged once ``publish`` at QoS 1 returned, i.e. once the broker's PUBACK
came back; everything else is sent again on the next connection and the next
start. Delivery is therefore at least once: a subscriber may see a message
twice, never zero times.

Moves, live snapshots, status, schedule and crosstable are not in the outbox:
moves are best effort, and the retained snapshots are re-published in full on
every start and every reconnect.

Topics are stored relative to the event root (``game/1.1/end``), so a
changed ``topic_prefix`` on resume sends the rest under the new root.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from tcecd.bus.payloads import Message


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """One must-deliver message as the store keeps it.

    ``key`` names what it announces (unique per event): ``end 1.1``,
    ``pairing 3``, ``standings 2``, ``standings final``, ``finished``.
    ``topic`` is relative to the event root."""

    key: str
    topic: str
    payload: bytes
    qos: int
    retain: bool

    def message(self, root: str, outbox_id: int) -> OutboxMessage:
        """The message to publish under ``root``, tagged with its row id."""
        return OutboxMessage(f"{root}/{self.topic}", self.payload, self.qos, self.retain,
                             outbox_id=outbox_id)


#: An outbox row as the store gives it: (row id, message).
OutboxRow = tuple[int, OutboxEntry]


@dataclass(frozen=True, slots=True)
class OutboxMessage(Message):
    """A :class:`Message` that has an outbox row (``outbox_id``) to acknowledge
    once the broker has it. The queue treats it as any essential message."""

    outbox_id: int = 0


def outbox_key(topic: str, msg: Message) -> str | None:
    """The outbox key of ``msg`` (``topic`` relative to the event root), or None
    when it is not a must-deliver message."""
    levels = topic.split("/")
    if not msg.payload:
        return None  # an empty payload only clears a retained topic
    if len(levels) == 3 and levels[0] == "game" and levels[2] == "end":
        return f"end {levels[1]}"
    if len(levels) == 3 and levels[0] == "round" and levels[2] == "pairing":
        return f"pairing {levels[1]}"
    if levels == ["standings"]:
        doc = json.loads(msg.payload)
        return "standings final" if doc.get("final") else f"standings {doc['after_round']}"
    if levels == ["finished"]:
        return "finished"
    return None


def entries_of(root: str, messages: list[Message]) -> list[OutboxEntry]:
    """The must-deliver ones among ``messages`` (all under ``root``), in order."""
    out: list[OutboxEntry] = []
    prefix = root + "/"
    for msg in messages:
        if not msg.topic.startswith(prefix):
            continue
        topic = msg.topic[len(prefix):]
        key = outbox_key(topic, msg)
        if key is not None:
            out.append(OutboxEntry(key, topic, msg.payload, msg.qos, msg.retain))
    return out
