"""A first-in first-out buffer with one consumer task that waits for it to fill: the table
actor's command queue (server/table.py) and each socket's outgoing messages
(server/conn.py's ``QueueTransport``).

A deque and one waiting future, not an ``asyncio.Queue``: both are written on every
decision, and the queue's own bookkeeping (its getters, its unfinished-task count, its
``join`` event, a future per wait) cost more than the item (docs/architecture.md, "CPU per
decision"). One consumer only: a second waiter would replace the first."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

__all__ = ["Mailbox"]

T = TypeVar("T")


class Mailbox(Generic[T]):
    __slots__ = ("_waiter", "items")

    def __init__(self) -> None:
        self.items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None  # the consumer, waiting

    def __len__(self) -> int:
        return len(self.items)

    def put(self, item: T) -> None:
        self.items.append(item)
        w = self._waiter
        if w is not None:
            self._waiter = None
            if not w.done():
                w.set_result(None)

    async def wait(self) -> None:
        """Until something is in the box (returns at once when something is)."""
        if self.items:
            return
        w = self._waiter = asyncio.get_running_loop().create_future()
        await w

    async def get(self) -> T:
        await self.wait()
        return self.items.popleft()
