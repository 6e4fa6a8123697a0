"""The table server's time (a seam): ``now()`` in seconds and ``call_later``.

The real clock reads the event loop's monotonic time and schedules on the loop; the fake one
advances only when told (``advance``), so a test reaches a deadline, a grace period or the end
of a claim pause exactly, without sleeping (docs/architecture.md)."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""
        ...

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        """Run ``fn`` (a plain callable, not a coroutine) ``delay`` seconds from now."""
        ...


class LoopClock:
    """The event loop's clock (``loop.time()``, ``loop.call_later``)."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(max(0.0, delay), fn)


class _FakeTimer:
    __slots__ = ("cancelled", "fn", "when")

    def __init__(self, when: float, fn: Callable[[], None]) -> None:
        self.when = when
        self.fn = fn
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that stands still until ``advance`` moves it; due callbacks then run in the
    order of their times (ties: the order they were scheduled)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.t = start
        self._heap: list[tuple[float, int, _FakeTimer]] = []
        self._n = itertools.count()

    def now(self) -> float:
        return self.t

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        timer = _FakeTimer(self.t + max(0.0, delay), fn)
        heapq.heappush(self._heap, (timer.when, next(self._n), timer))
        return timer

    def pending(self) -> list[float]:
        """The delays from now of the callbacks still due (for tests' assertions)."""
        return sorted(w - self.t for w, _, tm in self._heap if not tm.cancelled)

    def next_due(self) -> float | None:
        live = [w for w, _, tm in self._heap if not tm.cancelled]
        return min(live) - self.t if live else None

    def advance(self, seconds: float) -> int:
        """Move time forward, running every callback that falls due; returns how many ran."""
        end = self.t + max(0.0, seconds)
        ran = 0
        while self._heap and self._heap[0][0] <= end:
            when, _, timer = heapq.heappop(self._heap)
            if timer.cancelled:
                continue
            self.t = max(self.t, when)
            timer.fn()
            ran += 1
        self.t = end
        return ran
