"""One WebSocket connection: an outgoing queue drained by its own task, so that a table actor
never waits on a slow client, and the per-connection table stream counter (``seq``)."""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fujian_mahjong.server.table import TableActor

# a client that does not read its messages is dropped rather than buffered without bound
MAX_QUEUED = 2_000


class Conn:
    """A client connection. ``send`` is non-blocking; ``writer`` drains the queue."""

    _next_id = 0

    def __init__(self, bad_limit: int = 20) -> None:
        Conn._next_id += 1
        self.id = Conn._next_id
        self.player_id: int | None = None
        self.token: str | None = None  # checked again at every join (revoked: refused)
        self.addr = "?"  # the client's address (table lookups are rate limited per address)
        self.name = ""
        self.table: TableActor | None = None
        self.seat: int | None = None  # None: spectator (or not at a table)
        self.spectator = False
        self.seq = 0  # the table stream: +1 per message
        self.state_seq = 0  # seq of the last `state` sent
        self.state_key = -1  # the table's decision point that state showed
        self.last_view: dict[str, Any] | None = None
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False
        self.close_reason = ""
        self.bad: deque[float] = deque()
        self.bad_limit = bad_limit

    # ------------------------------------------------------------------ sending

    def send(self, msg: dict[str, Any], stream: bool = True) -> None:
        """Queue one message; table-stream messages get the next ``seq``."""
        if self.closed:
            return
        if stream:
            self.seq += 1
            msg["seq"] = self.seq
            if msg.get("type") == "state":
                self.state_seq = self.seq
        if self.queue.qsize() >= MAX_QUEUED:
            self.close("too many unread messages")
            return
        self.queue.put_nowait(json.dumps(msg, ensure_ascii=False, separators=(",", ":")))

    def error(self, code: str, message: str) -> bool:
        """Send an error; True when this connection has now sent too many bad messages
        (more than ``bad_limit`` within a minute) and must be closed."""
        self.send({"type": "error", "code": code, "message": message}, stream=False)
        now = time.monotonic()
        self.bad.append(now)
        while self.bad and now - self.bad[0] > 60.0:
            self.bad.popleft()
        if len(self.bad) >= self.bad_limit:
            self.close("too many bad messages")
            return True
        return False

    def close(self, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.close_reason = reason
            self.queue.put_nowait(None)
