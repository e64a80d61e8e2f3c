"""Properties of the queue policy over random message sequences (hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tcecd.bus.payloads import Kind, Message
from tcecd.bus.queue import OutQueue

ops = st.lists(
    st.tuples(st.sampled_from(list(Kind)), st.integers(0, 3)), min_size=0, max_size=80)


@given(ops, st.integers(1, 12))
def test_policy(seq: list[tuple[Kind, int]], limit: int) -> None:
    q = OutQueue(limit)
    sent: list[Message] = []
    for i, (kind, topic) in enumerate(seq):
        q.push(Message(f"{kind.value}/{topic}", str(i).encode(), 1, kind is not Kind.LIVE, kind))
    while (m := q.pop()) is not None:
        sent.append(m)
    order = [int(m.payload) for m in sent]
    # Order is preserved.
    assert order == sorted(order)
    # Every essential message goes out.
    essential = [i for i, (k, _) in enumerate(seq) if k is Kind.ESSENTIAL]
    assert [int(m.payload) for m in sent if m.kind is Kind.ESSENTIAL] == essential
    # Snapshots are coalesced: at most one per topic, and only ever the newest.
    newest: dict[int, int] = {}
    for i, (k, t) in enumerate(seq):
        if k is Kind.SNAPSHOT:
            newest[t] = i
    snaps = [m for m in sent if m.kind is Kind.SNAPSHOT]
    assert len({m.topic for m in snaps}) == len(snaps)
    assert {int(m.payload) for m in snaps} <= set(newest.values())
    # With room for everything, only superseded snapshots are dropped.
    lives = [i for i, (k, _) in enumerate(seq) if k is Kind.LIVE]
    if len(essential) + len(newest) + len(lives) <= limit:
        assert sorted(order) == sorted([*essential, *newest.values(), *lives])
    # Nothing is invented or duplicated, and the drop counter adds up.
    assert len(sent) == len(set(order))
    assert q.dropped == len(seq) - len(sent)
