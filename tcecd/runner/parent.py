"""A Python child that ends itself when its parent dies.

multiprocessing's spawn workers (the forecast's, :mod:`tcecd.forecast.parallel`)
cannot be exec'd under ``setpriv --pdeathsig`` as engines are
(:mod:`tcecd.runner.reaper`), and a worker blocked on its call queue never sees its
parent go: SIGKILL the daemon and the worker, with multiprocessing's resource
tracker waiting for it, stays for good. Kept apart from the reaper so that a worker
imports nothing but the standard library for it.
"""

from __future__ import annotations

import os
import threading
import time

#: Seconds between a worker's checks that its parent still runs.
PARENT_POLL_S = 0.2


def die_with_parent(parent: int) -> None:
    """End this process (``os._exit``) once ``parent`` is no longer its parent, that
    is, once the daemon died and this child was handed to init or a subreaper.

    A daemon thread polls ``getppid`` every :data:`PARENT_POLL_S`: a parent-death
    signal (``PR_SET_PDEATHSIG``) would fire when the *thread* that started the child
    ends, and multiprocessing starts workers from whichever thread submits work (here
    a thread of the event loop's default executor), so it could kill a worker of a
    daemon still running. A ``parent`` already gone ends the process at once."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="tcecd-parent-watch", daemon=True).start()
