"""A small in-process sliding-window rate limiter (login attempts per name and per address,
registrations per address). With several processes (``--redis``, server/cluster/) every
hit is also broadcast to the limiter of the same name in every other process (``set_hub``),
so a limit holds across the whole cluster (docs/deploy.md). ``FairTurn``: one turn at a
time, round robin over the keys that wait (the reviews' worker, server/web_api.py)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sys
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable

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

    Memory is bounded: a key whose hits have all left the window is forgotten at the next
    hit of any key (the keys are kept in the order of their last hit, so the expired ones
    are at the front: docs/architecture.md, "Memory"), and at most ``max_keys`` keys are
    remembered (the least recently used are forgotten first), so a flood of distinct names
    cannot exhaust the server."""

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
        now = self.clock()
        q.append(now)
        self._hits.move_to_end(key)
        # the keys whose last hit has left the window (the oldest first) say nothing any more
        cutoff = now - self.window_s
        while self._hits:
            first = next(iter(self._hits))
            if self._hits[first][-1] > cutoff:
                break
            del self._hits[first]
        while len(self._hits) > self.max_keys:
            self._hits.popitem(last=False)

    def __len__(self) -> int:
        """Keys remembered now (bounded: see the class's docstring)."""
        return len(self._hits)

    def reset(self, key: str) -> None:
        self._hits.pop(key, None)
        if _hub is not None:
            _hub(self.name, "reset", key)


class FairTurn:
    """One turn at a time, handed out fairly over keys (players, or addresses): the next
    turn goes to the waiting key that had one least recently (a key that never had one
    first, in the order they came), so a key with many waiters gets one turn, then every
    other waiting key gets one before its next (docs/deploy.md, "Fair under load"). A
    waiter that goes away (cancelled) leaves its place, and a turn it was just handed
    passes on. ``acquire()`` without a key waits under the key ``""``."""

    def __init__(self, remember: int = 4096) -> None:
        self._waiting: dict[str, deque[tuple[int, asyncio.Future[None]]]] = {}
        self._held = False
        self._n = itertools.count()
        # when each key last had the turn (the most recent ``remember`` keys)
        self._served: OrderedDict[str, int] = OrderedDict()
        self._remember = remember

    def locked(self) -> bool:
        return self._held

    def waiting(self) -> int:
        return sum(len(q) for q in self._waiting.values())

    def _grant(self, key: str) -> None:
        self._served[key] = next(self._n)
        self._served.move_to_end(key)
        while len(self._served) > self._remember:
            self._served.popitem(last=False)

    async def acquire(self, key: str = "") -> None:
        if not self._held and not self._waiting:
            self._held = True
            self._grant(key)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (next(self._n), fut)
        self._waiting.setdefault(key, deque()).append(entry)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()  # handed the turn as it went away: the next one has it
            else:
                q = self._waiting.get(key)
                if q is not None and entry in q:
                    q.remove(entry)
                    if not q:
                        del self._waiting[key]
            raise

    def release(self) -> None:
        """End the current turn: the waiting key served least recently gets the next."""
        while self._waiting:
            key = min(
                self._waiting, key=lambda k: (self._served.get(k, -1), self._waiting[k][0][0])
            )
            q = self._waiting[key]
            _, fut = q.popleft()
            if not q:
                del self._waiting[key]
            if not fut.done():
                fut.set_result(None)  # the turn passes on (still held)
                self._grant(key)
                return
        self._held = False

    @contextlib.asynccontextmanager
    async def hold(self, key: str = "") -> AsyncIterator[None]:
        await self.acquire(key)
        try:
            yield
        finally:
            self.release()
