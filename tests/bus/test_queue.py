"""The outgoing queue's policy: moves dropped first, snapshots coalesced, essentials kept."""

from __future__ import annotations

from tcecd.bus.payloads import Kind, Message
from tcecd.bus.queue import OutQueue


def msg(topic: str, kind: Kind = Kind.ESSENTIAL, payload: bytes = b"x") -> Message:
    return Message(topic, payload, 0 if kind is Kind.LIVE else 1, kind is not Kind.LIVE, kind)


def drain(q: OutQueue) -> list[str]:
    out = []
    while (m := q.pop()) is not None:
        out.append(m.payload.decode() if m.kind is Kind.SNAPSHOT else m.topic)
    return out


def test_fifo_order() -> None:
    q = OutQueue(10)
    for t in ("a", "b", "c"):
        q.push(msg(t))
    assert len(q) == 3
    assert drain(q) == ["a", "b", "c"]
    assert q.pop() is None


def test_moves_are_dropped_oldest_first_when_full() -> None:
    q = OutQueue(3)
    q.push(msg("move1", Kind.LIVE))
    q.push(msg("end1"))
    q.push(msg("move2", Kind.LIVE))
    q.push(msg("standings"))  # 4 > 3: move1 goes
    assert drain(q) == ["end1", "move2", "standings"]
    assert q.dropped == 1


def test_essentials_are_never_dropped() -> None:
    q = OutQueue(2)
    for i in range(5):
        q.push(msg(f"end{i}"))
    assert q.over_limit
    assert drain(q) == [f"end{i}" for i in range(5)]
    assert q.dropped == 0


def test_snapshots_coalesce_per_topic() -> None:
    q = OutQueue(100)
    q.push(msg("g/1/live", Kind.SNAPSHOT, b"s1"))
    q.push(msg("g/1/end"))
    q.push(msg("g/2/live", Kind.SNAPSHOT, b"other"))
    q.push(msg("g/1/live", Kind.SNAPSHOT, b"s2"))
    assert drain(q) == ["g/1/end", "other", "s2"]
    assert q.dropped == 1


def test_push_front_resends_first_unless_superseded() -> None:
    q = OutQueue(10)
    q.push(msg("b"))
    q.push_front(msg("a"))
    assert drain(q) == ["a", "b"]
    q.push(msg("g/live", Kind.SNAPSHOT, b"new"))
    q.push_front(msg("g/live", Kind.SNAPSHOT, b"old"))  # a newer one is queued: skip
    assert drain(q) == ["new"]
