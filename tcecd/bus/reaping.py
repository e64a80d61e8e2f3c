"""Cancelling a background task that drives an MQTT client, and reaping it.

On Python 3.11 ``asyncio.wait_for`` can swallow a cancellation that arrives as
the future it waits for completes (fixed in 3.12), and aiomqtt 2 waits for its
CONNACK and SUBACK with it. A client task in a reconnect loop then goes on
after a single ``cancel()``, and a plain ``await asyncio.wait([task])`` waits
for ever. :func:`cancel_and_reap` cancels again until the task has ended.
"""

from __future__ import annotations

import asyncio

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
