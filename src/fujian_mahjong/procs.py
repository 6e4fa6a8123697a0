"""Worker processes that never outlive the process that started them.

A ``ProcessPoolExecutor`` worker waits on its call queue for the next job; its own copy of
that queue holds the write end too, so when the parent dies without shutting the pool down
(SIGKILL, the OOM killer, a crash) the worker never sees end-of-file and waits for ever —
an idle process of ~85 MB per pool, left behind by every killed ``fjmj serve`` or
``fjmj simulate``. ``watch_parent`` is the pools' initializer (or part of it): a daemon
thread in the worker that ends the worker once its parent is gone.

``serve_jobs`` is the main loop of one process of the server's worker pool
(server/workers.py; docs/architecture.md, "The worker pool"): it lives here, away from the
server package, so that a worker starts without importing the server."""

from __future__ import annotations

import os
import signal
import threading
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

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


def serve_jobs(conn: Connection, parent: int) -> None:
    """A worker process's main loop: receive ``(fn, args)`` on ``conn``, answer ``(True,
    result)`` or ``(False, exception)`` (its traceback in a note), one job at a time, until
    ``None`` or end-of-file (the pool closed it, or its owner died). SIGINT is ignored: a
    Ctrl-C in the terminal reaches the whole process group, and the owner stops its workers
    itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent)  # a job that never ends never reads end-of-file
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        except Exception as e:  # the job's function could not be imported here
            _answer(conn, (False, _noted(e)))
            continue
        if job is None:
            return
        fn, args = job
        try:
            out: tuple[bool, Any] = (True, fn(*args))
        except Exception as e:
            out = (False, _noted(e))
        _answer(conn, out)


def _noted(e: Exception) -> Exception:
    e.add_note("in the worker process:\n" + "".join(traceback.format_exception(e)).rstrip())
    return e


def _answer(conn: Connection, out: tuple[bool, Any]) -> None:
    try:
        conn.send(out)
    except OSError:
        os._exit(0)  # the owner has gone
    except Exception as e:  # a result (or an exception) that cannot be pickled
        conn.send((False, RuntimeError(f"the worker's answer could not be sent back: {e!r}")))
