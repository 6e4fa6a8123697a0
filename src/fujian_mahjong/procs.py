"""Worker processes that never outlive the process that started them.

A ``ProcessPoolExecutor`` worker waits on its call queue for the next job; its own copy of
that queue holds the write end too, so when the parent dies without shutting the pool down
(SIGKILL, the OOM killer, a crash) the worker never sees end-of-file and waits for ever —
an idle process of ~85 MB per pool, left behind by every killed ``fjmj serve`` or
``fjmj simulate``. ``watch_parent`` is the pools' initializer (or part of it): a daemon
thread in the worker that ends the worker once its parent is gone."""

from __future__ import annotations

import os
import threading
import time

WATCH_INTERVAL_S = 0.5


def _watch(parent: int) -> None:
    while True:
        time.sleep(WATCH_INTERVAL_S)
        if os.getppid() != parent:  # re-parented: the process that started us is gone
            os._exit(0)


def watch_parent() -> None:
    """In a worker process: exit as soon as the parent process has died."""
    threading.Thread(target=_watch, args=(os.getppid(),), daemon=True, name="watch-parent").start()
