"""Stopping the simulator's worker processes never hangs (sim/simulate.py, ``_terminate``).

A worker stopped (Ctrl-C, SIGTERM) while it sends a result leaves half a message in the
executor's results pipe; the executor's manager thread then waits for the rest, and
``shutdown(wait=True)`` — like the interpreter's exit — joins that thread. The half message
is written here on purpose, so the situation is the same every run."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import struct
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import SimpleNamespace

import pytest

from fujian_mahjong.sim.simulate import WorkerDied, _parallel, _terminate, _worker_init


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


class _KilledAfterFirstResult:
    """A pool whose worker was killed (SIGKILL) just after the first result came in: that
    result is delivered, and the next submit finds the pool broken — the order the manager
    thread and the simulator's loop ran in about one run in twenty under load."""

    submitted = 0

    def __init__(self, *_a: object, **_k: object) -> None:
        dead = SimpleNamespace(
            exitcode=-signal.SIGKILL,
            join=lambda timeout=None: None,
            is_alive=lambda: False,
            terminate=lambda: None,
            kill=lambda: None,
        )
        self._processes = {4242: dead}

    def submit(self, _fn: object, _arg: object) -> Future[list[object]]:
        type(self).submitted += 1
        if type(self).submitted > 4:  # the four chunks of one worker's first round went out
            raise BrokenProcessPool("A child process terminated abruptly")
        f: Future[list[object]] = Future()
        f.set_result([])
        return f

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def test_a_worker_killed_after_its_result_came_in_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _KilledAfterFirstResult)
    chunks = _parallel("fuzhou-tcy", "s", 10**6, ("heuristic",) * 4, 1, 10, None)
    with pytest.raises(WorkerDied, match=r"^worker process 4242 was killed by SIGKILL"):
        next(chunks)
