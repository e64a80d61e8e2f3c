"""Stopping the tasks that drive an MQTT client (tcecd.bus.reaping), as
``tcecd watch`` does on Ctrl-C: a cancellation lost once (Python 3.11's
``asyncio.wait_for`` inside aiomqtt) or turned into an MqttError (aiomqtt's
``Client.__aexit__``) must not keep the process alive."""

from __future__ import annotations

import asyncio
import time

import aiomqtt
import pytest

from tcecd.bus.reaping import cancelling, stop_when


async def _swallows_one_cancellation() -> None:
    lost = False
    while True:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if lost:
                raise
            lost = True  # as wait_for does when its future completes at the same time


async def _retries_on_mqtt_errors() -> None:
    """A reconnect loop whose client raises MqttError when cancelled."""
    while True:
        try:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                raise aiomqtt.MqttError("Operation timed out") from None
        except aiomqtt.MqttError as exc:
            if cancelling():
                raise asyncio.CancelledError from exc
        await asyncio.sleep(0.01)


async def test_a_lost_cancellation_is_repeated_and_the_tasks_end() -> None:
    stop = asyncio.Event()
    tasks = [asyncio.create_task(_swallows_one_cancellation()),
             asyncio.create_task(_retries_on_mqtt_errors())]
    asyncio.get_running_loop().call_later(0.05, stop.set)
    assert await stop_when(stop, tasks, limit_s=5)
    assert all(t.cancelled() for t in tasks)


async def test_a_task_that_never_stops_is_given_up_after_the_limit() -> None:
    released = False

    async def stubborn() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if released:
                    raise

    stop = asyncio.Event()
    stop.set()
    task = asyncio.create_task(stubborn())
    started = time.monotonic()
    assert not await stop_when(stop, [task], limit_s=0.3)
    assert time.monotonic() - started < 3
    assert not task.done()
    released = True  # leave nothing behind for the loop's teardown
    task.cancel()
    await asyncio.wait([task])


async def test_a_task_error_ends_the_wait_and_is_raised() -> None:
    async def fails() -> None:
        await asyncio.sleep(0.01)
        raise RuntimeError("drawer broke")

    other = asyncio.create_task(asyncio.sleep(3600))
    with pytest.raises(RuntimeError, match="drawer broke"):
        await stop_when(asyncio.Event(), [asyncio.create_task(fails()), other], limit_s=5)
    assert other.cancelled()
