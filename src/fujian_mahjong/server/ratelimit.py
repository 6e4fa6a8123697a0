"""A small in-process sliding-window rate limiter (login attempts per name and per address,
registrations per address). With several processes (``--redis``, server/cluster/) every
hit is also broadcast to the limiter of the same name in every other process (``set_hub``),
so a limit holds across the whole cluster (docs/deploy.md)."""

from __future__ import annotations

import sys
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable

# several processes: where hits go (name, "hit" | "reset", key); None with one process
_hub: Callable[[str, str, str], None] | None = None
# every limiter by name: the file and line that made it, the same in every process
_named: dict[str, weakref.WeakSet[RateLimiter]] = {}


def set_hub(hub: Callable[[str, str, str], None] | None) -> None:
    """Send every hit and reset to ``hub`` as well (server/cluster/), or stop (None)."""
    global _hub
    _hub = hub


def apply_remote(name: str, op: str, key: str) -> None:
    """A hit (or a reset) another process's limiter ``name`` counted: count it here too."""
    for lim in list(_named.get(name, ())):
        if op == "hit":
            lim._hit(key)
        elif op == "reset":
            lim._hits.pop(key, None)


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
        caller = sys._getframe(1)
        self.name = f"{caller.f_code.co_filename.rsplit('/', 1)[-1]}:{caller.f_lineno}"
        _named.setdefault(self.name, weakref.WeakSet()).add(self)

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
        self._hit(key)
        if _hub is not None:
            _hub(self.name, "hit", key)

    def _hit(self, key: str) -> None:
        q = self._live(key)
        if q is None:
            q = self._hits[key] = deque()
        q.append(self.clock())
        self._hits.move_to_end(key)
        while len(self._hits) > self.max_keys:
            self._hits.popitem(last=False)

    def reset(self, key: str) -> None:
        self._hits.pop(key, None)
        if _hub is not None:
            _hub(self.name, "reset", key)
