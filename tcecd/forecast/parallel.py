"""Running the forecast's simulations in worker processes.

The pairing system is pure Python, so threads cannot use a second core (the
GIL); processes can. The chunks of :mod:`tcecd.forecast.montecarlo` are
independently seeded, so the result is the same with any number of workers.
Workers are started with ``spawn`` (never ``fork``: the daemon has threads and
an event loop) and run at the lowest CPU priority (``os.nice(19)``): on a
machine playing games, the engines come first. A worker ends itself when the
process that started it dies (:func:`tcecd.runner.parent.die_with_parent`): a
SIGKILLed daemon leaves no worker blocked on its queue for good, and then no
multiprocessing resource tracker either (it ends once every holder of its pipe is
gone). While an event runs, workers and tracker also carry the event's helper mark
(:func:`tcecd.runner.reaper.helper_environment`): the next start reaps any left.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor

from tcecd.forecast.model import EloModel
from tcecd.forecast.montecarlo import (
    Counts,
    EventSnapshot,
    chunk_seeds,
    chunk_sizes,
    simulate_chunk,
)
from tcecd.runner.parent import die_with_parent


def _start_worker(parent: int, low_priority: bool) -> None:
    """Each worker's initializer: die with ``parent``; the lowest CPU priority."""
    die_with_parent(parent)
    if low_priority:
        with contextlib.suppress(OSError):  # not permitted: run at normal priority
            os.nice(19)


def make_pool(workers: int, *, low_priority: bool = True) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes that die with this one, at the
    lowest CPU priority unless ``low_priority`` is False (the speed bench)."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(os.getpid(), low_priority),
    )


def simulate_in(pool: Executor, snap: EventSnapshot, model: EloModel, simulations: int,
                seed: int) -> Counts:
    """All chunks on ``pool``; the same counts as :func:`montecarlo.simulate`."""
    sizes = chunk_sizes(simulations)
    futures = [
        pool.submit(simulate_chunk, snap, model, size, ss)
        for size, ss in zip(sizes, chunk_seeds(seed, len(sizes)), strict=True)
    ]
    total = Counts(0, [[0] * len(snap.players) for _ in snap.players], [0] * len(snap.players))
    for fut in futures:
        total = total + fut.result()
    return total
