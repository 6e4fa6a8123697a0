"""Event-loop lag: how late the server's event loop wakes a task that asked to sleep.

Every table, socket and timer of a process shares one asyncio loop, so anything that holds
the loop (a long synchronous step, a garbage collection, a big JSON encoding) delays every
message of every table at once. ``LoopLag`` is a small periodic task on that loop: it asks to
wake every ``interval_s`` and records how much later than asked it actually woke. It keeps

* the last ``window`` samples (a ring buffer: ``interval_s × window`` seconds, one minute by
  default) for the recent p50/p99/max shown in ``GET /api/metrics``, and
* a cumulative histogram since start (``BUCKETS_MS``, counts per bucket) that a benchmark
  differences between two readings to get the lag over exactly its own measurement;
* the garbage collector's pauses per generation (count, total and longest), through
  ``gc.callbacks``.

It reads the loop's own monotonic clock, never a table's ``Clock``: it measures the process,
not a game, and tests never depend on it (no test waits for real time to pass). Its figures
are the operator's only (``/api/metrics``, behind the operator token, snapshot like the
other counters; and ``/metrics`` in the Prometheus format, server/metrics.py).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import gc
import time
from typing import Any

# upper edges of the histogram's buckets, in ms (a last bucket takes everything above)
BUCKETS_MS: tuple[float, ...] = (
    0.5, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100,
    125, 150, 200, 250, 300, 400, 500, 750, 1000, 2000, 5000,
)  # fmt: skip


def percentile(xs: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``xs``; 0.0 when empty."""
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


def histogram_percentile(counts: list[int], p: float) -> float:
    """The ``p``-th percentile of a histogram over ``BUCKETS_MS`` (the upper edge of the
    bucket it falls in, ms; the last, open bucket reads as twice the last edge)."""
    total = sum(counts)
    if total <= 0:
        return 0.0
    rank = p / 100 * total
    seen = 0
    for i, c in enumerate(counts):
        seen += c
        if seen >= rank and c:
            return BUCKETS_MS[i] if i < len(BUCKETS_MS) else 2 * BUCKETS_MS[-1]
    return 2 * BUCKETS_MS[-1]


class LoopLag:
    """A periodic task measuring how late the running loop wakes it (see the module)."""

    def __init__(self, interval_s: float = 0.02, window: int = 3000) -> None:
        self.interval_s = interval_s
        self._ring: list[float] = []
        self._window = window
        self._next = 0  # where the ring's next sample goes once it is full
        self.counts = [0] * (len(BUCKETS_MS) + 1)
        self.max_ms = 0.0
        self.sum_ms = 0.0  # every sample's lag added up (the Prometheus histogram's sum)
        self.samples = 0
        self._task: asyncio.Task[None] | None = None
        # the garbage collector's pauses (one cause of lag): per generation, how many, how
        # long in all and the longest (ms)
        self.gc_count = [0, 0, 0]
        self.gc_total_ms = [0.0, 0.0, 0.0]
        self.gc_max_ms = [0.0, 0.0, 0.0]
        self._gc_t0 = 0.0

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_t0 = time.perf_counter()
            return
        g = int(info.get("generation", 0))
        if 0 <= g <= 2 and self._gc_t0:
            ms = (time.perf_counter() - self._gc_t0) * 1000.0
            self.gc_count[g] += 1
            self.gc_total_ms[g] += ms
            self.gc_max_ms[g] = max(self.gc_max_ms[g], ms)

    def start(self) -> None:
        """Start measuring on the running loop (idempotent)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="looplag")
            gc.callbacks.append(self._gc)

    async def stop(self) -> None:
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        # time.monotonic, not loop.time(): uvloop's loop time counts whole milliseconds
        while True:
            asked = time.monotonic() + self.interval_s
            await asyncio.sleep(self.interval_s)
            self.record(max(0.0, time.monotonic() - asked) * 1000.0)

    def record(self, lag_ms: float) -> None:
        """One sample: the loop woke this task ``lag_ms`` late."""
        self.samples += 1
        self.sum_ms += lag_ms
        self.max_ms = max(self.max_ms, lag_ms)
        self.counts[bisect.bisect_left(BUCKETS_MS, lag_ms)] += 1
        if len(self._ring) < self._window:
            self._ring.append(lag_ms)
        else:
            self._ring[self._next] = lag_ms
            self._next = (self._next + 1) % self._window

    def snapshot(self) -> dict[str, Any]:
        """The recent window's p50/p99/max (ms), the largest lag since start, and the
        cumulative histogram (``loop_lag_buckets_ms``: the buckets' upper edges)."""
        recent = list(self._ring)
        return {
            "loop_lag_p50_ms": round(percentile(recent, 50), 3),
            "loop_lag_p99_ms": round(percentile(recent, 99), 3),
            "loop_lag_max_ms": round(max(recent, default=0.0), 3),
            "loop_lag_max_ever_ms": round(self.max_ms, 3),
            "loop_lag_samples": self.samples,
            "loop_lag_window_s": round(self.interval_s * self._window, 3),
            "loop_lag_buckets_ms": list(BUCKETS_MS),
            "loop_lag_counts": list(self.counts),
            "gc_collections": list(self.gc_count),
            "gc_pause_total_ms": [round(x, 3) for x in self.gc_total_ms],
            "gc_pause_max_ms": [round(x, 3) for x in self.gc_max_ms],
        }
