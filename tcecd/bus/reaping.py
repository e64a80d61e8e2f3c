"""Cancelling a background task that drives an MQTT client, and reaping it.

On Python 3.11 ``asyncio.wait_for`` can swallow a cancellation that arrives as
the future it waits for completes (fixed in 3.12), and aiomqtt 2 waits for its
CONNACK and SUBACK with it. A client task in a reconnect loop then goes on
after a single ``cancel()``, and a plain ``await asyncio.wait([task])`` waits
for ever. :func:`cancel_and_reap` cancels again until the task has ended.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

#: How long to wait for the task before cancelling it again.
RETRY_S = 0.5


async def cancel_and_reap(task: asyncio.Task[None], retry_s: float = RETRY_S) -> None:
    """Cancel ``task`` and wait until it ends, cancelling it again every
    ``retry_s`` (a lost cancellation). ``asyncio.wait``, not ``await task``:
    the task's own CancelledError is expected, but a cancellation of the caller
    still propagates."""
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=retry_s)


def cancelling() -> bool:
    """Whether the current task has a cancellation pending. aiomqtt 2's
    ``Client.__aexit__`` waits for the disconnect with its own timeout and may
    raise :class:`aiomqtt.MqttError` instead of the CancelledError it was
    interrupted by; a loop that retries on MqttError checks this first."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def stop_when(
    stop: asyncio.Event, tasks: Sequence[asyncio.Task[None]], limit_s: float = 5.0
) -> bool:
    """Wait until ``stop`` is set or one of ``tasks`` ends, then cancel and reap
    them all (:func:`cancel_and_reap`: a lost cancellation is repeated), for at
    most ``limit_s``. Re-raises the first error a task ended with. False when
    some task outlived the limit (the caller then exits without it)."""
    waiter = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED)
    finally:
        # (also when the caller is cancelled: its CancelledError goes on afterwards)
        waiter.cancel()
        stopped = await _reap_within(tasks, limit_s)
    if not stopped:
        return False
    for task in tasks:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
    return True


async def _reap_within(tasks: Sequence[asyncio.Task[None]], limit_s: float) -> bool:
    """:func:`cancel_and_reap` every task, for at most ``limit_s`` in all."""
    try:
        async with asyncio.timeout(limit_s):
            for task in tasks:
                await cancel_and_reap(task)
    except TimeoutError:
        return False
    return True
