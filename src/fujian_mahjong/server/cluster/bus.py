"""The Redis bus between the processes of a cluster (docs/deploy.md, "Several processes").

Each process listens on one channel of its own (``{prefix}:to:{node}``) and on one
broadcast channel (``{prefix}:rl``). What travels is one typed message class per job (below;
the way lila-ws types its ``LilaOut`` messages), batched per event-loop turn into one signed
frame per channel::

    <hex HMAC-SHA256 of channel + body><body>
    body = {"n": sender node, "i": sender's frame counter, "m": [message, ...]}
    message = {"k": kind, ...its fields by name}

The HMAC key is the cluster's secret (``cluster_secret``: from the configuration, or made
once and kept in the database that every process of the cluster shares), so a process that
can reach Redis but not the database cannot forge a frame; the counter rises with every frame
of a sender, so a frame recorded off Redis cannot be replayed either. ``decode`` is the one
function that turns a frame back into messages: a frame that is not signed, not fresh or not
well formed is dropped whole (and counted).

The bus is *up* (``Bus.ok``) while a probe that this process sends itself through Redis comes
back in time, every ``probe_s``. A failed probe, publication or subscription takes it down;
it then subscribes again with a growing back-off (every wait an ``await``: the event loop
keeps serving HTTP, WebSockets and the tables of this process) until a probe comes back.
What was posted while it was down is dropped; ``on_change(ok)`` tells the cluster, which
resynchronises the sockets that depend on the bus (server/cluster/__init__.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = [
    "Bus",
    "BusError",
    "Call",
    "CloseSocket",
    "FromSocket",
    "Logout",
    "Message",
    "Probe",
    "RateHit",
    "Reply",
    "SocketGone",
    "ToSocket",
    "decode",
    "encode",
    "token_digest",
]

log = logging.getLogger("fjmj.cluster")

# how long one Redis command or probe may take before the bus counts as down
TIMEOUT_S = 2.0
# the back-off between two attempts to subscribe again (doubling, capped)
BACKOFF_MIN_S = 0.1
BACKOFF_MAX_S = 2.0
# messages queued for one process before ``post`` refuses (a proxy connection is dropped)
MAX_OUTBOX = 50_000
MAC_LEN = 64  # hex digits of a SHA-256 HMAC


class BusError(ValueError):
    """A frame or message that cannot be decoded (unsigned, stale, malformed)."""


# ---------------------------------------------------------------------------- messages


@dataclass(frozen=True, slots=True)
class ToSocket:
    """Owner → socket holder: one message of the table stream for the socket ``cid`` of the
    holder, as the owner's proxy connection encoded it; ``table`` and ``seq`` are that
    connection's table (None: at none) and stream counter after it."""

    kind: ClassVar[str] = "o"
    cid: int
    text: str
    table: int | None
    seq: int


@dataclass(frozen=True, slots=True)
class CloseSocket:
    """Owner → socket holder: close the socket ``cid`` (the owner closed its connection)."""

    kind: ClassVar[str] = "c"
    cid: int
    code: int
    reason: str


@dataclass(frozen=True, slots=True)
class FromSocket:
    """Socket holder → owner: a client's frame, with the player that the holder
    authenticated on that socket (its ``hello``); never the client's token."""

    kind: ClassVar[str] = "f"
    cid: int
    player_id: int | None
    name: str
    addr: str
    text: str


@dataclass(frozen=True, slots=True)
class SocketGone:
    """Socket holder → owner: the socket ``cid`` is gone (or now bound elsewhere)."""

    kind: ClassVar[str] = "g"
    cid: int


@dataclass(frozen=True, slots=True)
class Call:
    """A REST call for a table another process owns (``add_bot``, ``remove_bot``) or a
    quick match's seat (``reserve``); answered with a ``Reply`` of the same ``rid``."""

    kind: ClassVar[str] = "r"
    rid: int
    op: str
    ref: int | str
    player_id: int
    addr: str
    args: list[Any]


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to a ``Call``: ``outcome`` ``ok`` (``payload`` the result), ``error``
    ([code, message] of a TableError), ``room`` ([status, code, message] of a RoomError) or
    ``store`` (the owner cannot save now)."""

    kind: ClassVar[str] = "R"
    rid: int
    outcome: str
    payload: Any


@dataclass(frozen=True, slots=True)
class Probe:
    """A process's probe of the bus, sent to itself."""

    kind: ClassVar[str] = "p"
    n: int


@dataclass(frozen=True, slots=True)
class RateHit:
    """Broadcast: one hit of a rate limiter (server/ratelimit.py ``set_hub``)."""

    kind: ClassVar[str] = "h"
    name: str
    op: str
    key: str


@dataclass(frozen=True, slots=True)
class Logout:
    """Broadcast: a player's token (by its digest, ``token_digest``; None: every token) was
    revoked; every process closes that player's sockets opened with it."""

    kind: ClassVar[str] = "l"
    player_id: int
    code: int
    reason: str
    token: str | None


Message = ToSocket | CloseSocket | FromSocket | SocketGone | Call | Reply | Probe | RateHit | Logout
KINDS: dict[str, type[Any]] = {
    c.kind: c
    for c in (ToSocket, CloseSocket, FromSocket, SocketGone, Call, Reply, Probe, RateHit, Logout)
}
_FIELDS = {k: tuple(f.name for f in fields(c)) for k, c in KINDS.items()}
_INTS = {"cid", "code", "rid", "player_id", "seq", "n", "table"}


def token_digest(token: str | None) -> str | None:
    """What the bus carries of a bearer token: its SHA-256 (never the token)."""
    return None if token is None else hashlib.sha256(token.encode()).hexdigest()


def _message(obj: Any) -> Message:
    if not isinstance(obj, dict):
        raise BusError("a message is not an object")
    cls = KINDS.get(obj.get("k"))  # type: ignore[arg-type]
    if cls is None:
        raise BusError(f"unknown message kind {str(obj.get('k'))[:8]!r}")
    names = _FIELDS[cls.kind]
    if set(obj) != {"k", *names}:
        raise BusError(f"message {cls.kind!r}: fields {sorted(obj)}")
    for n in names:
        v = obj[n]
        if n in _INTS and not (v is None or (isinstance(v, int) and not isinstance(v, bool))):
            raise BusError(f"message {cls.kind!r}: {n} is not an integer")
    return cls(**{n: obj[n] for n in names})  # type: ignore[no-any-return]


def _mac(secret: bytes, channel: str, body: str) -> str:
    return hmac.new(secret, channel.encode() + b"\0" + body.encode(), hashlib.sha256).hexdigest()


def encode(secret: bytes, channel: str, node: str, counter: int, msgs: list[Message]) -> str:
    """One signed frame of ``msgs`` from ``node`` for ``channel``."""
    body = json.dumps(
        {
            "n": node,
            "i": counter,
            "m": [{"k": m.kind, **{n: getattr(m, n) for n in _FIELDS[m.kind]}} for m in msgs],
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return _mac(secret, channel, body) + body


def decode(secret: bytes, channel: str, frame: bytes | str) -> tuple[str, int, list[Message]]:
    """The sender, counter and messages of a frame received on ``channel``. BusError: not
    signed with ``secret`` for that channel, or malformed."""
    text = frame.decode() if isinstance(frame, bytes) else str(frame)
    mac, body = text[:MAC_LEN], text[MAC_LEN:]
    if not hmac.compare_digest(mac, _mac(secret, channel, body)):
        raise BusError("a frame not signed with the cluster's secret")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise BusError("a frame that is not JSON") from None
    if not isinstance(data, dict) or set(data) != {"n", "i", "m"}:
        raise BusError("a frame without sender, counter and messages")
    src, counter, items = data["n"], data["i"], data["m"]
    if not isinstance(src, str) or type(counter) is not int or not isinstance(items, list):
        raise BusError("a frame's sender, counter or messages of the wrong type")
    return src, counter, [_message(x) for x in items]


# ---------------------------------------------------------------------------- the bus


Handler = Callable[[str, Message], None]


class Bus:
    """This process's end of the bus: ``post`` / ``broadcast`` queue messages (sent in
    order, batched per event-loop turn); ``handler(src, message)`` gets every message for
    this process and every broadcast of the others; ``on_change(ok)`` hears the bus go down
    and come back."""

    def __init__(
        self,
        redis: Redis,
        prefix: str,
        node: str,
        secret: bytes,
        handler: Handler,
        on_change: Callable[[bool], None] = lambda _ok: None,
        probe_s: float = 0.5,
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.node = node
        self.secret = secret
        self.handler = handler
        self.on_change = on_change
        self.probe_s = probe_s
        self.ok = False
        self.down_since: float | None = time.monotonic()  # None: up
        self.failures = 0  # times the bus went down (metrics)
        self.rejected = 0  # frames dropped by ``decode`` (forged, replayed, malformed)
        self.last_outage_s = 0.0  # how long the last outage lasted
        self._pubsub: Any = None
        self._out: dict[str, list[Message | Callable[[], Message | None]]] = {}
        self._wake = asyncio.Event()
        self._counter = 0
        self._seen: dict[str, int] = {}
        self._probe_n = 0
        self._probe_back: dict[int, asyncio.Future[None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._reset = asyncio.Event()  # the reader must subscribe again
        # set by stop(): each loop ends at its next turn even where a client library
        # swallowed the cancellation (redis-py's get_message may return None instead)
        self._closing = False
        self._probes: set[asyncio.Task[bool]] = set()

    # ------------------------------------------------------------------ names

    def channel(self, node: str) -> str:
        return f"{self.prefix}:to:{node}"

    @property
    def broadcast_channel(self) -> str:
        return f"{self.prefix}:rl"

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Subscribe and start the loops (an exception: Redis cannot be reached now)."""
        await self._subscribe()
        loop = asyncio.get_running_loop()
        for coro in (self._reader(), self._flusher(), self._prober()):
            self._tasks.append(loop.create_task(coro))
        await self.probe()

    async def stop(self) -> None:
        self._closing = True
        self._wake.set()
        for t in [*self._tasks, *self._probes]:
            t.cancel()
        if self._tasks:
            # bounded (docs/deploy.md, "Stopping"): a loop ends at its next turn
            await asyncio.wait(self._tasks, timeout=TIMEOUT_S)
        self._tasks.clear()
        await self._drop_pubsub()

    async def _subscribe(self) -> None:
        ps = self.redis.pubsub(ignore_subscribe_messages=True)
        try:
            await asyncio.wait_for(
                ps.subscribe(self.channel(self.node), self.broadcast_channel), TIMEOUT_S
            )
        except BaseException:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ps.aclose(), TIMEOUT_S)
            raise
        self._pubsub = ps

    async def _drop_pubsub(self) -> None:
        ps, self._pubsub = self._pubsub, None
        if ps is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ps.aclose(), TIMEOUT_S)

    def _set(self, ok: bool, why: str = "") -> None:
        if ok == self.ok:
            return
        self.ok = ok
        now = time.monotonic()
        if ok:
            self.last_outage_s = now - (self.down_since or now)
            self.down_since = None
            if self.failures:
                log.warning("cluster: the redis bus is back (down %.1f s)", self.last_outage_s)
        else:
            self.down_since = now
            self.failures += 1
            self._out.clear()
            self._reset.set()
            log.warning("cluster: the redis bus is down: %s", why)
        try:
            self.on_change(ok)
        except Exception:
            log.exception("cluster: handling the bus's change failed")

    def fail(self, why: str) -> None:
        """The bus failed (a command of the cluster's own timed out or failed)."""
        self._set(False, why)

    # ------------------------------------------------------------------ probing

    async def probe(self) -> bool:
        """Send this process a probe through Redis and wait for it (the bus's state)."""
        self._probe_n += 1
        n = self._probe_n
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._probe_back[n] = fut
        try:
            frame = self._frame(self.channel(self.node), [Probe(n)])
            await asyncio.wait_for(self.redis.publish(self.channel(self.node), frame), TIMEOUT_S)
            await asyncio.wait_for(fut, TIMEOUT_S)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self._set(False, f"probe: {_line(e) or 'no answer in time'}")
            return False
        finally:
            self._probe_back.pop(n, None)
        self._set(True)
        return True

    async def _prober(self) -> None:
        while not self._closing:
            await asyncio.sleep(self.probe_s)
            if self._pubsub is not None:
                await self.probe()

    # ------------------------------------------------------------------ sending

    def post(self, node: str, msg: Message | Callable[[], Message | None]) -> bool:
        """Queue one message for another process (or a function making it when the batch
        is sent: it may read state as it is then; None: nothing to send). Dropped while the
        bus is down; False: too many queued for that process."""
        if not self.ok:
            return True
        box = self._out.setdefault(self.channel(node), [])
        if len(box) >= MAX_OUTBOX:
            return False
        box.append(msg)
        self._wake.set()
        return True

    def broadcast(self, msg: Message) -> None:
        """Queue one message for every other process."""
        if self.ok:
            self._out.setdefault(self.broadcast_channel, []).append(msg)
            self._wake.set()

    def _frame(self, channel: str, msgs: list[Message]) -> str:
        self._counter += 1
        return encode(self.secret, channel, self.node, self._counter, msgs)

    async def _flusher(self) -> None:
        while not self._closing:
            await self._wake.wait()
            self._wake.clear()
            if self._closing:
                return
            out, self._out = self._out, {}
            frames: list[tuple[str, str]] = []
            for ch, items in out.items():
                msgs = [m() if callable(m) else m for m in items]
                batch = [m for m in msgs if m is not None]
                if batch:
                    frames.append((ch, self._frame(ch, batch)))
            if not frames:
                continue
            try:
                async with self.redis.pipeline(transaction=False) as p:
                    for ch, frame in frames:
                        p.publish(ch, frame)
                    await asyncio.wait_for(p.execute(), TIMEOUT_S)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self._set(False, f"publish: {_line(e)}")

    # ------------------------------------------------------------------ receiving

    async def _reader(self) -> None:
        """Read this process's channel and the broadcast one; after a failure, subscribe
        again after a back-off (what was sent meanwhile is lost: ``on_change``)."""
        backoff = BACKOFF_MIN_S
        everyone = self.broadcast_channel
        while not self._closing:
            if self._reset.is_set() or self._pubsub is None:
                self._reset.clear()
                await self._drop_pubsub()
                try:
                    await self._subscribe()
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    self._set(False, f"subscribe: {_line(e)}")
                    await asyncio.sleep(backoff)
                    backoff = min(BACKOFF_MAX_S, backoff * 2)
                    continue
                backoff = BACKOFF_MIN_S
                # up only once a probe came back through the new subscription (the task is
                # kept: the loop holds tasks only weakly)
                probe = asyncio.get_running_loop().create_task(self.probe())
                self._probes.add(probe)
                probe.add_done_callback(self._probes.discard)
            try:
                m = await self._pubsub.get_message(timeout=min(1.0, self.probe_s))
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self._set(False, f"subscription: {_line(e)}")
                self._reset.set()
                await asyncio.sleep(backoff)
                backoff = min(BACKOFF_MAX_S, backoff * 2)
                continue
            if m is None or m.get("type") != "message":
                await asyncio.sleep(0)  # never a turn without a yield
                continue
            ch = m["channel"].decode() if isinstance(m["channel"], bytes) else str(m["channel"])
            try:
                src, counter, msgs = decode(self.secret, ch, m["data"])
                if src != self.node:  # a sender's frames on one channel: in its order
                    key = f"{ch} {src}"
                    if counter <= self._seen.get(key, -1):
                        raise BusError(f"a frame replayed (counter {counter} from {src[:40]})")
                    self._seen[key] = counter
            except BusError as e:
                self.rejected += 1
                log.warning("cluster: a bus frame dropped: %s", e)
                continue
            for msg in msgs:
                if isinstance(msg, Probe):
                    fut = self._probe_back.get(msg.n)
                    if src == self.node and fut is not None and not fut.done():
                        fut.set_result(None)
                    continue
                if ch == everyone and src == self.node:
                    continue
                try:
                    self.handler(src, msg)
                except Exception:
                    log.exception("cluster: handling a bus message failed")


def _line(e: BaseException) -> str:
    s = str(e)
    return f"{type(e).__name__}: {s.splitlines()[0][:200] if s else ''}"
