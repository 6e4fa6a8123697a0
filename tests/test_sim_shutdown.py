"""Stopping the simulator's worker processes never hangs (sim/simulate.py, ``_terminate``).

A worker stopped (Ctrl-C, SIGTERM) while it sends a result leaves half a message in the
executor's results pipe; the executor's manager thread then waits for the rest, and
``shutdown(wait=True)`` — like the interpreter's exit — joins that thread. The half message
is written here on purpose, so the situation is the same every run."""

from __future__ import annotations

import os
import struct
import threading
from concurrent.futures import ProcessPoolExecutor

from fujian_mahjong.sim.simulate import _terminate, _worker_init


def _square(x: int) -> int:
    return x * x


def test_shutdown_after_a_half_sent_result_returns() -> None:
    ex = ProcessPoolExecutor(max_workers=2, initializer=_worker_init)
    assert ex.submit(_square, 3).result(timeout=30) == 9  # the manager thread is running
    seen = dict(ex._processes)
    # a message announcing 1,000 bytes of which one arrives: the manager thread now waits
    writer = ex._result_queue._writer  # type: ignore[attr-defined]
    os.write(writer.fileno(), struct.pack("!i", 1000) + b"x")
    done = threading.Event()

    def stop() -> None:
        _terminate(ex, seen)
        ex.shutdown(wait=True, cancel_futures=True)
        done.set()

    t = threading.Thread(target=stop, daemon=True)
    t.start()
    t.join(timeout=20)
    assert done.is_set(), "shutdown hung behind a half-sent result"
    assert not any(p.is_alive() for p in seen.values())
