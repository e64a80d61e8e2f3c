"""Running the forecast's simulations in worker processes.

The pairing system is pure Python, so threads cannot use a second core (the
GIL); processes can. The chunks of :mod:`tcecd.forecast.montecarlo` are
independently seeded, so the result is the same with any number of workers.
Workers are started with ``spawn`` (never ``fork``: the daemon has threads and
an event loop) and run at the lowest CPU priority (``os.nice(19)``): on a
machine playing games, the engines come first.
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


def _lower_priority() -> None:
    with contextlib.suppress(OSError):  # not permitted: run at normal priority
        os.nice(19)


def make_pool(workers: int, *, low_priority: bool = True) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes, at the lowest CPU priority
    unless ``low_priority`` is False (the speed bench)."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_lower_priority if low_priority else None,
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
