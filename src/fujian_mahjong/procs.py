"""Worker processes that never outlive the process that started them, and pools stopped at
once.

A ``ProcessPoolExecutor`` worker waits on its call queue for the next job; its own copy of
that queue holds the write end too, so when the parent dies without shutting the pool down
(SIGKILL, the OOM killer, a crash) the worker never sees end-of-file and waits for ever —
an idle process of ~85 MB per pool, left behind by every killed ``fjmj serve`` or
``fjmj simulate``. ``watch_parent`` is the pools' initializer (or part of it): a daemon
thread in the worker that ends the worker once its parent is gone.

``kill_pool`` stops a pool whose worker is stuck (a bug, or a worker killed while it was
sending a long result: the executor's thread then waits for the rest of that message for
ever, and ``shutdown(wait=True)`` — like the interpreter's exit — joins that thread)."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

WATCH_INTERVAL_S = 0.5


def _watch(parent: int) -> None:
    while True:
        time.sleep(WATCH_INTERVAL_S)
        if os.getppid() != parent:  # re-parented: the process that started us is gone
            os._exit(0)


def watch_parent(parent: int | None = None) -> None:
    """In a worker process: exit as soon as ``parent`` (the pid the pool's owner passes as
    the initializer's argument; by default this process's parent now) has died."""
    pid = os.getppid() if parent is None else parent
    threading.Thread(target=_watch, args=(pid,), daemon=True, name="watch-parent").start()


def kill_pool(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now, without waiting (safe on an event loop): its workers killed
    (SIGKILL), this process's copy of the results pipe's write end closed — the last one
    open once the workers are gone, so the executor's thread, should it be waiting for the
    rest of a half-sent result, reads end-of-file and exits — and the pool shut down."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(Exception):
            proc.kill()
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        with contextlib.suppress(Exception):
            writer.close()
    pool.shutdown(wait=False, cancel_futures=True)
