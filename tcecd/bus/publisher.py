"""The resilient MQTT publisher: non-blocking for the daemon, patient with the broker.

Usage (the daemon)::

    async with Publisher(settings, event="TCEC Swiss 7", log=log) as pub:
        pub.publish(GameStarted(...))      # never awaits the broker, never raises on it
        ...
        await pub.flush(5.0)                # best effort, at shutdown

The publisher owns one background task (named ``mqtt-publisher``). It connects
with a Last Will that marks the daemon ``offline`` (retained), publishes
``online``, and then sends its queue in order. When the broker is down, slow
or restarted, messages wait in a bounded :class:`~tcecd.bus.queue.OutQueue`
(move updates may be dropped, results and standings never), the task
reconnects with jittered exponential backoff, and after every reconnect it
re-publishes the latest message of every retained topic first, so a broker
restarted without persistence gets the whole retained state back.

A *fresh* event (``fresh_event=True``: the daemon has just created its state,
this is not a resume) may reuse the topic root of an earlier event with the
same name. Before anything else on its first successful connection the
publisher then deletes the retained messages still under ``<root>/#`` (the
earlier event's pairings, results, ``finished`` ...), so that no viewer ever
mixes the two events; see :meth:`Publisher._clear_stale`. A fresh event's
``event`` document also carries a new ``run_id`` that viewers use to notice a
new event instance. On a resume nothing is cleared: the retained state is the
event's own.

The first failure to reach the broker is logged once as a warning; the task
keeps retrying quietly until it succeeds.

Messages that must reach subscribers (results, pairings, standings; see
:mod:`tcecd.bus.outbox`) come from the daemon's state with the id of their
outbox row (:meth:`Publisher.publish` with ``stored``, and
:meth:`Publisher.publish_stored` at start-up). Once the broker acknowledged
one (``publish`` at QoS 1 returns after the PUBACK), the publisher reports its
id through ``on_acked`` (in a worker thread, batched), so the state knows what
the broker has. At the end of a run :meth:`Publisher.settle` waits a bounded
time for the rest, retrying the broker every second meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import ssl
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import aiomqtt
import structlog

from tcecd import __version__
from tcecd.bus.outbox import OutboxEntry, OutboxMessage, entries_of
from tcecd.bus.payloads import Kind, Message, Projection, encode, slugify
from tcecd.bus.queue import OutQueue
from tcecd.bus.reaping import cancel_and_reap
from tcecd.bus.settings import MqttSettings
from tcecd.events import DomainEvent
from tcecd.game.record import GameRecord, GameSummary
from tcecd.wallclock import utc_now

#: Seconds to wait for a CONNACK or a PUBACK before treating the broker as gone.
_OP_TIMEOUT_S = 5.0
#: Longest wait for the retained burst of ``<root>/#`` when clearing stale state.
_SWEEP_TIMEOUT_S = 10.0
#: Longest pause between connection attempts while :meth:`Publisher.settle` waits.
_SETTLE_RETRY_S = 1.0
#: Acknowledged outbox ids are written to the state in batches of at most this
#: many (and whenever the queue runs empty): fewer fsyncs, at worst a re-send.
_ACK_BATCH = 64

#: An outbox row as the daemon's state gives it: (row id, message).
StoredRow = tuple[int, OutboxEntry]


class Publisher:
    """Publishes domain events to MQTT; see the module docstring.

    ``event`` is the event's name; its slug (:func:`~tcecd.bus.payloads.slugify`)
    is the second topic level: every topic is ``<topic_prefix>/<slug>/...``.
    ``daemon_info`` goes into the ``status`` payload (pid, host, config ...).
    ``clock`` returns the ``ts`` stamped on payloads (tests pass a fixed one).
    ``fresh_event`` says that the daemon has just created the event's state (not
    a resume): stale retained messages under the root are cleared on the first
    connection and the ``event`` document gets a new ``run_id``.
    ``on_acked`` records outbox ids the broker acknowledged (a blocking call,
    run in a worker thread; the daemon passes its store's ``ack_outbox``).
    """

    def __init__(
        self,
        settings: MqttSettings,
        *,
        event: str = "event",
        log: Any = None,
        daemon_info: Mapping[str, Any] | None = None,
        clock: Callable[[], str] = utc_now,
        backoff_initial_s: float = 0.5,
        backoff_max_s: float = 30.0,
        close_timeout_s: float = 2.0,
        fresh_event: bool = False,
        run_id: str | None = None,
        on_acked: Callable[[Sequence[int]], None] | None = None,
    ) -> None:
        self.settings = settings
        self.slug = slugify(event)
        self.root = f"{settings.topic_prefix}/{self.slug}"
        self._log: Any = log if log is not None else structlog.get_logger("tcecd.bus")
        self._info = {"version": __version__, **dict(daemon_info or {})}
        self._clock = clock
        self._backoff = (backoff_initial_s, backoff_max_s)
        self._close_timeout_s = close_timeout_s
        #: Identity of this event instance: the caller's (the daemon keeps one per
        #: event in its state, so a resume publishes the same id), else a new one
        #: on a fresh start and None on a resume.
        self.run_id: str | None = (
            run_id if run_id is not None else uuid.uuid4().hex if fresh_event else None
        )
        self._projection = Projection(self.root, event, run_id=self.run_id)
        self._sweep_pending = fresh_event
        #: Stale retained topics of an earlier event deleted at the first connection.
        self.cleared: list[str] = []
        self._queue = OutQueue(settings.queue_limit)
        self._retained: dict[str, Message] = {}
        self._wakeup = asyncio.Event()
        self._idle = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: Set when the publisher closes: the background task stops even if a
        #: cancellation was lost (see :meth:`__aexit__`).
        self._closing = False
        self._ssl: ssl.SSLContext | None = None
        self._connected = False
        self._failed = False  # the latest connection attempt failed (or the connection died)
        self._warned_over_limit = False
        #: Number of successful connections so far (1 after the first connect).
        self.connections = 0
        #: Number of connection attempts so far (successful or not).
        self.attempts = 0
        self._on_acked = on_acked
        self._unacked: set[int] = set()  # outbox ids queued or in flight
        self._acks: list[int] = []  # outbox ids acknowledged, not yet reported
        self._hurry = asyncio.Event()  # settle(): retry the broker every second
        self._warned_acks = False

    # -- public API -------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while a connection to the broker is up."""
        return self._connected

    @property
    def pending(self) -> int:
        """Messages queued and not yet acknowledged by the broker."""
        return len(self._queue)

    @property
    def undelivered(self) -> int:
        """Outbox messages (results, pairings, standings) not yet acknowledged."""
        return len(self._unacked)

    @property
    def dropped(self) -> int:
        """Move updates / stale snapshots dropped or coalesced by the queue policy."""
        return self._queue.dropped

    def publish(self, event: DomainEvent, stored: Sequence[StoredRow] = ()) -> None:
        """Map ``event`` to its messages and queue them. Never blocks, never
        raises because of the broker (a non-event is a TypeError: a bug).

        ``stored`` are the outbox rows the daemon committed for this event
        (made by :meth:`outbox_entries`): they are sent in place of the
        messages with the same key, and acknowledged to the state once the
        broker has them."""
        rows = {entry.key: (row_id, entry) for row_id, entry in stored}
        for msg in self._projection.messages_for(event, self._clock()):
            if rows:
                mine = entries_of(self.root, [msg])
                row = rows.pop(mine[0].key, None) if mine else None
                if row is not None:
                    self._queue_stored(*row)
                    continue
            if msg.qos and msg.qos != self.settings.qos:
                msg = dataclasses.replace(msg, qos=self.settings.qos)
            self.publish_raw(msg)
        for row in rows.values():  # (not made by outbox_entries for this event)
            self._queue_stored(*row)

    def outbox_entries(self, event: DomainEvent) -> list[OutboxEntry]:
        """The must-deliver messages ``event`` maps to, for the daemon to commit
        with what they announce (see :mod:`tcecd.bus.outbox`). Publishes nothing
        and leaves the publisher's own view of the event unchanged."""
        scratch = Projection(self.root, self._projection.event_name, run_id=self.run_id)
        # Only what the must-deliver documents read: the schedule (the final
        # standings' round count); no simple crosstable (not in the outbox).
        scratch.schedule = {k: dict(v) for k, v in self._projection.schedule.items()}
        scratch.external_crosstable = True
        msgs = scratch.messages_for(event, self._clock())
        return [
            dataclasses.replace(e, qos=self.settings.qos) if e.qos else e
            for e in entries_of(self.root, msgs)
        ]

    def publish_stored(self, rows: Iterable[StoredRow]) -> None:
        """Queue outbox rows as they are (at start-up: those the broker never
        acknowledged in an earlier run), in the order given."""
        for row_id, entry in rows:
            self._queue_stored(row_id, entry)

    def _queue_stored(self, row_id: int, entry: OutboxEntry) -> None:
        self._unacked.add(row_id)
        self.publish_raw(entry.message(self.root, row_id))

    def restore_finished(self, records: Iterable[GameRecord | GameSummary]) -> None:
        """On resume: tell the publisher which games already finished (in
        playing order), so the retained ``schedule`` and simple crosstable it
        publishes next include their results. Publishes nothing by itself (the
        broker still holds their retained ``end`` messages)."""
        for rec in records:
            self._projection.restore_finished(rec)

    def publish_crosstable(self, table: Mapping[str, Any]) -> None:
        """Publish a daemon-built TCEC-format crosstable (tcec-formats.md) on
        ``<root>/crosstable``; from then on it replaces the simple one the
        publisher derives from standings."""
        self.publish_raw(self._projection.external_crosstable_message(table, self._clock()))

    def publish_raw(self, msg: Message) -> None:
        """Queue a ready-made message (topic under :attr:`root` by convention)."""
        self._queue.push(msg)
        if self._queue.over_limit and not self._warned_over_limit:
            self._warned_over_limit = True
            self._log.warning("mqtt queue over its limit; only essential messages left",
                              limit=self._queue.limit, queued=len(self._queue))
        self._idle.clear()
        self._wakeup.set()

    def message(self, levels: tuple[str, ...], doc: Mapping[str, Any], *, retain: bool = True,
                qos: int | None = None) -> Message:
        """Build an essential message under :attr:`root` with the common fields
        (``schema``, ``type`` must be in ``doc``, ``event``, ``ts``) filled in."""
        full = {"schema": 1, "event": self._projection.event_name, "ts": self._clock(), **doc}
        return Message("/".join((self.root, *levels)), encode(full),
                       self.settings.qos if qos is None else qos, retain, Kind.ESSENTIAL)

    async def settle(self, timeout_s: float) -> int:
        """At the end of a run: wait up to ``timeout_s`` until everything queued
        is delivered, trying the broker again every second meanwhile (not after
        the usual back-off). Returns the outbox messages still unacknowledged
        (0: every result, pairing and standings reached the broker)."""
        self._hurry.set()
        if timeout_s > 0:
            await self.flush(timeout_s)
        return len(self._unacked)

    async def flush(self, timeout_s: float) -> bool:
        """Wait until the queue is empty and acknowledged, at most ``timeout_s``.
        True if everything went out."""
        if not len(self._queue) and self._idle.is_set():
            return True
        try:
            async with asyncio.timeout(timeout_s):
                while len(self._queue) or not self._idle.is_set():
                    await self._idle.wait()
                    if len(self._queue):
                        self._idle.clear()
                        self._wakeup.set()
        except TimeoutError:
            return False
        return True

    # -- lifecycle ----------------------------------------------------------------------

    async def __aenter__(self) -> Publisher:
        # Bad TLS files are a configuration error: report them now, not in the task.
        self._ssl = await asyncio.to_thread(self.settings.ssl_context)
        warning = self.settings.plain_password_warning()
        if warning is not None:
            self._log.warning(warning)
        self._task = asyncio.create_task(self._run(), name="mqtt-publisher")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        # Say goodbye properly (a clean disconnect does not fire the Last Will).
        self.publish_raw(self._status(online=False))
        # Also while the first connection is still being made: a run that ends
        # within moments (resuming a finished event) must still get its messages
        # out. Only a broker already known to be unreachable is not waited for.
        if self._connected or not self._failed:
            await self.flush(self._close_timeout_s)
        task, self._task = self._task, None
        self._closing = True
        if task is not None:
            # Cancelled again until it ends (a lost cancellation: tcecd.bus.reaping);
            # ``_closing`` also ends its loop after the current connection attempt.
            await cancel_and_reap(task)
        await self._save_acks()

    # -- the background task ----------------------------------------------------------------

    def _status(self, online: bool) -> Message:
        msg = self._projection.status(online, self._clock(), self._info)
        return Message(msg.topic, msg.payload, self.settings.qos, True, Kind.ESSENTIAL)

    def _client(self) -> aiomqtt.Client:
        s = self.settings
        ctx = self._ssl
        will = self._status(online=False)
        return aiomqtt.Client(
            s.host, s.port, username=s.username, password=s.password, identifier=s.client_id,
            will=aiomqtt.Will(will.topic, will.payload, will.qos, retain=True),
            tls_context=ctx, tls_insecure=s.tls_insecure if ctx is not None else None,
            timeout=_OP_TIMEOUT_S, keepalive=15,
        )

    async def _run(self) -> None:
        delay, max_delay = self._backoff
        warned = False
        while True:
            if self._closing:
                return
            self.attempts += 1
            try:
                async with self._client() as client:
                    self._connected, self._failed = True, False
                    self.connections += 1
                    delay = self._backoff[0]
                    if warned or self.connections > 1:
                        self._log.info("mqtt connected", url=self.settings.redacted_url(),
                                       queued=len(self._queue))
                    warned = False
                    await self._serve(client)
            except (aiomqtt.MqttError, OSError, ssl.SSLError) as exc:
                if not warned:
                    warned = True
                    what = "lost" if self._connected else "unreachable"
                    self._log.warning(f"mqtt broker {what}; queueing and retrying in background",
                                      url=self.settings.redacted_url(), error=str(exc),
                                      queued=len(self._queue))
                else:
                    self._log.debug("mqtt connect failed", error=str(exc))
            except Exception:
                # A bug or an unexpected library error must not end publishing for
                # the rest of the event: log it in full and reconnect.
                self._log.exception("mqtt publisher error; reconnecting")
            finally:
                self._connected, self._failed = False, True
            pause = delay * random.uniform(0.5, 1.0)
            if self._hurry.is_set():
                await asyncio.sleep(min(pause, _SETTLE_RETRY_S))
            else:  # settle() cuts a long back-off short
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(pause):
                        await self._hurry.wait()
            delay = min(delay * 2, max_delay)

    async def _serve(self, client: aiomqtt.Client) -> None:
        """Clear stale retained state (fresh event, once), send online status,
        re-publish retained state, then drain the queue until the connection
        dies (raises MqttError)."""
        if self._sweep_pending:
            await self._clear_stale(client)
            self._sweep_pending = False
        watch = asyncio.ensure_future(anext(aiter(client.messages)))
        try:
            await self._send(client, self._status(online=True), watch)
            status_topic = self._projection.topic("status")
            for old in list(self._retained.values()):
                if old.topic != status_topic:
                    await self._send(client, old, watch)
            while True:
                msg = self._queue.pop()
                if msg is None:
                    await self._save_acks()
                    if len(self._queue):
                        continue
                    self._idle.set()
                    self._wakeup.clear()
                    waiter = asyncio.ensure_future(self._wakeup.wait())
                    try:
                        await asyncio.wait({waiter, watch}, return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        waiter.cancel()
                    if watch.done():
                        watch.result()  # raises the disconnection error
                        watch = asyncio.ensure_future(anext(aiter(client.messages)))
                    continue
                try:
                    await self._send(client, msg, watch)
                except BaseException:
                    self._queue.push_front(msg)
                    raise
        finally:
            watch.cancel()
            await asyncio.wait([watch])  # reap it without swallowing our own cancellation
            if not watch.cancelled():
                watch.exception()  # mark a disconnection error as retrieved

    async def _send(self, client: aiomqtt.Client, msg: Message,
                    watch: asyncio.Future[aiomqtt.Message]) -> None:
        """Publish one message, failing fast if the connection drops meanwhile."""
        send = asyncio.ensure_future(
            client.publish(msg.topic, msg.payload, qos=msg.qos, retain=msg.retain)
        )
        try:
            both: list[asyncio.Future[Any]] = [send, watch]
            await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not send.done():
                send.cancel()
        if not send.done() or send.cancelled():
            watch.result()  # the connection dropped: raise its error
            raise aiomqtt.MqttError("publish interrupted")
        send.result()
        if msg.retain:
            if msg.payload:
                self._retained[msg.topic] = msg
            else:
                self._retained.pop(msg.topic, None)
        if isinstance(msg, OutboxMessage) and msg.outbox_id in self._unacked:
            # At QoS 1 the publish returned on the broker's PUBACK: it has it.
            self._unacked.discard(msg.outbox_id)
            self._acks.append(msg.outbox_id)
            if len(self._acks) >= _ACK_BATCH:
                await self._save_acks()

    async def _save_acks(self) -> None:
        """Report the acknowledged outbox ids (in a worker thread: a store commit).
        On failure they are kept for the next try (at worst sent again)."""
        if not self._acks:
            return
        ids, self._acks = self._acks, []
        if self._on_acked is None:
            return
        try:
            await asyncio.to_thread(self._on_acked, ids)
        except Exception as exc:
            self._acks[:0] = ids
            if not self._warned_acks:  # once: the next store commit will say more
                self._warned_acks = True
                self._log.warning("mqtt: could not record delivered messages in the state; "
                                  "they may be sent again", error=str(exc), ids=len(ids))

    async def _clear_stale(self, client: aiomqtt.Client) -> None:
        """Delete every retained message under ``<root>/#`` (an earlier event's).

        Subscribes to ``<root>/#``, publishes a marker to its own non-retained
        topic ``<root>/_sweep/<id>`` and collects the topics that arrive with the
        retain flag until the marker comes back (a broker sends a subscription's
        retained messages before anything published later; the same barrier as
        ``tcecd watch --once``). Then unsubscribes and publishes an empty retained
        payload to each (the MQTT way to delete a retained message). Runs before
        this connection publishes anything, so nothing of this event is lost. A
        dropped connection raises MqttError (the next connection tries again); a
        marker that never returns (publishing denied) ends the wait after
        :data:`_SWEEP_TIMEOUT_S` with a warning and clears what arrived."""
        sub = f"{self.root}/#"
        marker = f"{self.root}/_sweep/{uuid.uuid4().hex}"
        stale: list[str] = []
        messages = aiter(client.messages)
        await client.subscribe(sub, qos=1)
        try:
            await client.publish(marker, b"sweep", qos=1)
            async with asyncio.timeout(_SWEEP_TIMEOUT_S):
                while True:
                    m = await anext(messages)
                    topic = str(m.topic)
                    if topic == marker:
                        break
                    # (Only under the root: amqtt, the embedded fallback, also sends
                    # a new client retained messages of other clients' filters.)
                    mine = topic.startswith(self.root + "/")
                    if m.retain and m.payload and mine and topic not in stale:
                        stale.append(topic)
        except TimeoutError:
            self._log.warning("mqtt: the retained state of the topic root did not arrive in "
                              "time; stale retained messages may remain", root=self.root,
                              found=len(stale))
        # (On any other error the connection is going away; a clean session forgets
        # the subscription by itself.)
        await client.unsubscribe(sub)
        while len(client.messages):  # drop what arrived between the marker and UNSUBACK
            await anext(messages)
        for topic in stale:
            await client.publish(topic, b"", qos=self.settings.qos, retain=True)
        self.cleared.extend(stale)
        if stale:
            self._log.info("mqtt: cleared the retained messages of an earlier event "
                           "with the same topic root", root=self.root, topics=len(stale))
