"""The publisher's bounded outgoing queue and its drop policy. Pure.

Policy (docs/events.md, "Delivery"):

* SNAPSHOT messages (retained documents that the next one fully replaces, like
  a running game's live snapshot) are coalesced per topic: queueing a new one
  discards the older queued one for the same topic.
* When more than ``limit`` messages are queued, LIVE messages (move updates)
  are dropped, oldest first, then queued SNAPSHOTs, oldest first.
* ESSENTIAL messages (status, metadata, pairings, schedule, results,
  standings, faults) are never dropped: if the queue holds nothing else, it
  grows past ``limit`` (an event produces a bounded number of them) and
  :attr:`OutQueue.over_limit` tells the caller to warn.
"""

from __future__ import annotations

from collections import deque

from tcecd.bus.payloads import Kind, Message


class _Entry:
    __slots__ = ("alive", "msg")

    def __init__(self, msg: Message) -> None:
        self.msg = msg
        self.alive = True


class OutQueue:
    """FIFO of messages with coalescing and a bounded size (see module doc)."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"queue limit must be >= 1, got {limit!r}")
        self.limit = limit
        self._fifo: deque[_Entry] = deque()
        self._live: deque[_Entry] = deque()  # droppable LIVE entries, oldest first
        self._snaps: deque[_Entry] = deque()  # droppable SNAPSHOT entries, oldest first
        self._snap_by_topic: dict[str, _Entry] = {}
        self._alive = 0
        #: Messages dropped or coalesced away since creation.
        self.dropped = 0

    def __len__(self) -> int:
        return self._alive

    @property
    def over_limit(self) -> bool:
        return self._alive > self.limit

    def push(self, msg: Message) -> None:
        """Queue ``msg`` at the back, applying the coalescing and drop policy."""
        entry = _Entry(msg)
        if msg.kind is Kind.SNAPSHOT:
            old = self._snap_by_topic.get(msg.topic)
            if old is not None and old.alive:
                self._kill(old)
            self._snap_by_topic[msg.topic] = entry
            self._snaps.append(entry)
        elif msg.kind is Kind.LIVE:
            self._live.append(entry)
        self._fifo.append(entry)
        self._alive += 1
        while self._alive > self.limit and self._drop_one():
            pass

    def push_front(self, msg: Message) -> None:
        """Put back a message whose sending failed, to be sent first.

        It is not subject to dropping (it was already accepted), but a newer
        queued snapshot on the same topic still supersedes a SNAPSHOT."""
        if msg.kind is Kind.SNAPSHOT:
            newer = self._snap_by_topic.get(msg.topic)
            if newer is not None and newer.alive:
                return
        self._fifo.appendleft(_Entry(msg))
        self._alive += 1

    def pop(self) -> Message | None:
        """The oldest queued message, or None when empty."""
        while self._fifo:
            entry = self._fifo.popleft()
            if entry.alive:
                entry.alive = False
                self._alive -= 1
                if self._snap_by_topic.get(entry.msg.topic) is entry:
                    del self._snap_by_topic[entry.msg.topic]
                return entry.msg
        self._live.clear()
        self._snaps.clear()
        return None

    def _kill(self, entry: _Entry) -> None:
        entry.alive = False
        self._alive -= 1
        self.dropped += 1

    def _drop_one(self) -> bool:
        for pool in (self._live, self._snaps):
            while pool:
                entry = pool.popleft()
                if entry.alive:
                    self._kill(entry)
                    if self._snap_by_topic.get(entry.msg.topic) is entry:
                        del self._snap_by_topic[entry.msg.topic]
                    return True
        return False
