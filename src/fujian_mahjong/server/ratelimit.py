"""A small in-process sliding-window rate limiter (login attempts per name and per address,
registrations per address). One server process owns its tables and its logins; several
processes behind a balancer would each limit on their own (docs/economy.md)."""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable


class RateLimiter:
    """At most ``limit`` hits per key within ``window_s`` seconds.

    Memory is bounded: at most ``max_keys`` keys are remembered (the least recently used
    are forgotten first), so a flood of distinct names cannot exhaust the server."""

    def __init__(
        self,
        limit: int,
        window_s: float,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 50_000,
    ) -> None:
        if limit < 1 or window_s <= 0:
            raise ValueError("limit must be >= 1 and window_s > 0")
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self.max_keys = max_keys
        self._hits: OrderedDict[str, deque[float]] = OrderedDict()

    def _live(self, key: str) -> deque[float] | None:
        q = self._hits.get(key)
        if q is None:
            return None
        cutoff = self.clock() - self.window_s
        while q and q[0] <= cutoff:
            q.popleft()
        if not q:
            del self._hits[key]
            return None
        return q

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may try again (0 when it may now)."""
        q = self._live(key)
        if q is None or len(q) < self.limit:
            return 0.0
        return max(0.0, q[0] + self.window_s - self.clock())

    def hit(self, key: str) -> None:
        q = self._live(key)
        if q is None:
            q = self._hits[key] = deque()
        q.append(self.clock())
        self._hits.move_to_end(key)
        while len(self._hits) > self.max_keys:
            self._hits.popitem(last=False)

    def reset(self, key: str) -> None:
        self._hits.pop(key, None)
