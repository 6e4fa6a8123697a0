"""One client connection: the per-connection table stream counter (``seq``) and a
``Transport`` that carries its messages (a seam).

A table actor never waits on a client: ``Conn.send`` is non-blocking. The WebSocket transport
queues the encoded message for a writer task of its own; the recording transport (tests)
keeps every message in memory, so a test reads exactly what a client would have received.

Messages are encoded with ``orjson`` (compact, UTF-8, the same text ``json.dumps(…,
ensure_ascii=False, separators=(",", ":"))`` writes but for a float's exponent, ``1e-7`` for
``1e-07``; about ten times faster). One message for several connections (``send_all``: a
table's public notices and broadcasts) is validated and encoded once, each connection's
``seq`` spliced onto the encoded text. Where ``FJMJ_CHECK_MESSAGES`` is set (the tests), each
message is first checked against its model in server/protocol.py."""

from __future__ import annotations

import json
import os
import time
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from fujian_mahjong.server.mailbox import Mailbox
from fujian_mahjong.server.protocol import server_message

if TYPE_CHECKING:
    from fujian_mahjong.server.ports import TableRef

_validate = server_message.validate_python

# Every outgoing message is checked against its model in server/protocol.py (the contract of
# docs/protocol.md) where ``FJMJ_CHECK_MESSAGES`` is set: the test suite (tests/conftest.py)
# and a debugging server; a message of the wrong shape is a bug, raised there. A production
# server skips the check on its hot path (docs/architecture.md, "CPU per decision").
CHECK = os.environ.get("FJMJ_CHECK_MESSAGES", "") not in ("", "0")

# a client that does not read its messages is dropped rather than buffered without bound
MAX_QUEUED = 2_000
# the close code a client is dropped with (policy violation); docs/protocol.md
CLOSE_POLICY = 1008
# answers to a race (``error(bad=False)``: an act on a state since replaced) that do not
# count as bad messages within a minute; past them they count again. A client that acts at
# once on every state meets a few a minute at most, and an act is work for a table's actor
RACES_PER_MINUTE = 100


def encode(msg: dict[str, Any]) -> str:
    """One message as compact JSON text (UTF-8 as is, no ASCII escapes).

    Every message has string keys but a few (a key that is a number is written as text, as
    ``json.dumps`` writes it): orjson's ``OPT_NON_STR_KEYS`` costs about a third more on
    every message, so it is asked for only when the plain call refuses one (the text is the
    same either way)."""
    try:
        return orjson.dumps(msg).decode()
    except orjson.JSONEncodeError:
        pass
    try:
        return orjson.dumps(msg, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:  # what orjson refuses (an int past 64 bits): the slow way
        return json.dumps(msg, ensure_ascii=False, separators=(",", ":"))


def send_all(conns: Iterable[Conn], msg: dict[str, Any]) -> None:
    """Send one table-stream message to several connections, as ``conn.send(dict(msg))``
    to each would — the same text, ``seq`` last — but validated and encoded once."""
    targets = [c for c in conns if not c.closed]
    if len(targets) < 2 or "seq" in msg:
        for c in targets:
            c.send(dict(msg))
        return
    if CHECK:
        _validate({**msg, "seq": 0})
    body = encode(msg)
    head = body[:-1] + ',"seq":'  # body is a JSON object: "{…}"
    state = msg.get("type") == "state"
    for c in targets:
        c.seq += 1
        if state:
            c.state_seq = c.seq
        c.deliver(f"{head}{c.seq}}}")


class Transport(Protocol):
    def send(self, text: str) -> bool:
        """Queue one encoded message; False when the client is too far behind to take it."""
        ...

    def close(self, code: int, reason: str) -> None:
        """Close the connection (after the messages already queued)."""
        ...


class QueueTransport:
    """The WebSocket side: a bounded buffer (``Mailbox``) drained by the socket's writer
    task (``server/routes/socket.py``); ``None`` in it closes the socket."""

    __slots__ = ("box", "close_code", "close_reason")

    def __init__(self) -> None:
        self.box: Mailbox[str | None] = Mailbox()
        self.close_code = CLOSE_POLICY
        self.close_reason = ""

    def send(self, text: str) -> bool:
        if len(self.box) >= MAX_QUEUED:
            return False
        self.box.put(text)
        return True

    def close(self, code: int, reason: str) -> None:
        self.close_code = code
        self.close_reason = reason
        self.box.put(None)


class RecordingTransport:
    """In memory (tests): every message as the client would decode it, in order."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.sizes: list[int] = []
        self.closed: tuple[int, str] | None = None

    def send(self, text: str) -> bool:
        self.messages.append(json.loads(text))
        self.sizes.append(len(text.encode("utf-8")))
        return True

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


class Conn:
    """A client connection. ``send`` is non-blocking; the transport delivers."""

    _next_id = 0

    def __init__(
        self,
        bad_limit: int = 20,
        transport: Transport | None = None,
        now: Any = time.monotonic,
    ) -> None:
        Conn._next_id += 1
        self.id = Conn._next_id
        self.transport: Transport = transport if transport is not None else QueueTransport()
        self._now = now  # for the bad-message window only (not a table's time)
        self.player_id: int | None = None
        self.token: str | None = None  # checked again at every join (revoked: refused)
        self.addr = "?"  # the client's address (table lookups are rate limited per address)
        self.name = ""
        self.table: TableRef | None = None
        self.seat: int | None = None  # None: spectator (or not at a table)
        self.spectator = False
        self.seq = 0  # the table stream: +1 per message
        self.state_seq = 0  # seq of the last `state` sent
        self.state_key = -1  # the table's decision point that state showed
        self.last_view: dict[str, Any] | None = None
        self.last_key = 0  # the decision point that view showed (a spectator's)
        # the next state carries the hand's public history (the client has just joined)
        self.history_due = False
        self.closed = False
        self.close_reason = ""
        self.bad: deque[float] = deque()
        self.bad_limit = bad_limit
        self.races: deque[float] = deque()  # the races answered within the last minute

    # ------------------------------------------------------------------ sending

    def send(self, msg: dict[str, Any], stream: bool = True) -> None:
        """Send one message; table-stream messages get the next ``seq``."""
        if self.closed:
            return
        if stream:
            self.seq += 1
            msg["seq"] = self.seq
            if msg.get("type") == "state":
                self.state_seq = self.seq
        if CHECK:  # its model (server/protocol.py): a message of the wrong shape is a bug
            _validate(msg)
        self.deliver(encode(msg))

    def deliver(self, text: str) -> None:
        """Hand one encoded (and validated) message to the transport."""
        if not self.transport.send(text):
            self.close("too many unread messages")

    def error(self, code: str, message: str, bad: bool = True) -> bool:
        """Send an error; True when this connection has now sent too many bad messages
        (more than ``bad_limit`` within a minute) and must be closed. ``bad=False``: the
        answer to a race the protocol expects, not to a bad message: it counts only past
        ``RACES_PER_MINUTE`` such answers within a minute."""
        self.send({"type": "error", "code": code, "message": message}, stream=False)
        now = float(self._now())
        if not bad:
            self.races.append(now)
            while self.races and now - self.races[0] > 60.0:
                self.races.popleft()
            if len(self.races) <= RACES_PER_MINUTE:
                return False
        self.bad.append(now)
        while self.bad and now - self.bad[0] > 60.0:
            self.bad.popleft()
        if len(self.bad) >= self.bad_limit:
            self.close("too many bad messages")
            return True
        return False

    def close(self, reason: str, code: int = CLOSE_POLICY) -> None:
        if not self.closed:
            self.closed = True
            self.close_reason = reason
            self.transport.close(code, reason)
