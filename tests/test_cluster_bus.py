"""The cluster's Redis bus in-process (server/cluster/bus.py), against ``fakeredis``.

- every message class survives encode → decode, field by field; ``decode`` is the only way
  back and refuses what it does not know (an unknown kind, a missing or extra field, a
  string where a number goes);
- frames are signed: another secret, a changed byte, or a frame signed for another
  process's channel is refused; a frame replayed off Redis is dropped;
- nothing carries a bearer token (a client's frame names the authenticated player; a
  logout carries the token's digest);
- two processes' buses: messages arrive in order and batched, broadcasts reach the others
  only, a forged frame is dropped and counted;
- an outage (the fake server disconnected): the bus goes down, what is posted meanwhile is
  dropped, the event loop keeps turning, and the bus comes back by itself when Redis does.

The same bus under real Redis outages, with real processes: tests/test_cluster_outage.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest

fakeredis = pytest.importorskip("fakeredis")

from fujian_mahjong.server.cluster import bus as B  # noqa: E402

SECRET = b"k" * 32
EVERY = [
    B.ToSocket(7, '{"type":"pong"}', 12, 41),
    B.ToSocket(7, "x", None, 0),
    B.CloseSocket(7, 1012, "moved"),
    B.FromSocket(9, 3, "阿明", "10.0.0.1", '{"type":"act","seq":4}'),
    B.FromSocket(9, None, "", "?", "{}"),
    B.SocketGone(9),
    B.Call(1, "add_bot", "KXQRM", 3, "10.0.0.1", ["heuristic"]),
    B.Call(2, "reserve", 17, 3, "", ["fuzhou-tcy:novice", "阿明"]),
    B.Reply(1, "ok", {"bots": 1}),
    B.Reply(2, "room", [503, "busy", "try again"]),
    B.Probe(5),
    B.RateHit("table_misses", "hit", "10.0.0.1"),
    B.Logout(3, 4001, "logged out", B.token_digest("secret-token")),
    B.Logout(3, 4001, "logged out", None),
]


def test_every_message_survives_encode_and_decode() -> None:
    frame = B.encode(SECRET, "fjmj:to:b", "a", 1, EVERY)
    src, counter, got = B.decode(SECRET, "fjmj:to:b", frame)
    assert (src, counter) == ("a", 1)
    assert got == EVERY
    assert [type(m) for m in got] == [type(m) for m in EVERY]
    assert set(B.KINDS) == {c.kind for c in map(type, EVERY)}  # each kind tested


def test_no_bearer_token_crosses_the_bus() -> None:
    for cls in B.KINDS.values():
        assert "token" not in {f.name for f in dataclasses.fields(cls)} or cls is B.Logout
    frame = B.encode(SECRET, "c", "a", 1, EVERY)
    assert "secret-token" not in frame
    assert B.token_digest("secret-token") in frame


@pytest.mark.parametrize(
    "tamper",
    [
        lambda f: B.encode(b"another secret", "fjmj:to:b", "a", 1, EVERY[:1]),
        lambda f: f.replace('"cid":7', '"cid":8'),
        lambda f: f[:-10],
        lambda f: "0" * 64 + f[64:],
        lambda f: f[64:],
        lambda f: B.encode(SECRET, "fjmj:to:c", "a", 1, EVERY[:1]),  # another channel's
    ],
    ids=["other-secret", "changed", "truncated", "zero-mac", "unsigned", "other-channel"],
)
def test_a_frame_not_signed_for_this_channel_is_refused(tamper: Any) -> None:
    frame = B.encode(SECRET, "fjmj:to:b", "a", 1, EVERY[:1])
    with pytest.raises(B.BusError):
        B.decode(SECRET, "fjmj:to:b", tamper(frame))


def _signed(body: Any, channel: str = "ch") -> str:
    text = json.dumps(body, separators=(",", ":"))
    return B._mac(SECRET, channel, text) + text


@pytest.mark.parametrize(
    "body",
    [
        [],
        {"n": "a", "i": 1},
        {"n": "a", "i": "1", "m": []},
        {"n": "a", "i": True, "m": []},
        {"n": "a", "i": 1, "m": [{"k": "zz"}]},
        {"n": "a", "i": 1, "m": [{"k": "g"}]},
        {"n": "a", "i": 1, "m": [{"k": "g", "cid": 1, "extra": 2}]},
        {"n": "a", "i": 1, "m": [{"k": "g", "cid": "1"}]},
        {"n": "a", "i": 1, "m": [["f", "a", 1, 2, "n", "t", "addr", "{}"]]},  # the old lists
    ],
)
def test_decode_refuses_what_it_does_not_know(body: Any) -> None:
    with pytest.raises(B.BusError):
        B.decode(SECRET, "ch", _signed(body))


# --------------------------------------------------------------------------- two buses


class Node:
    def __init__(self, server: Any, name: str, secret: bytes = SECRET) -> None:
        self.redis = fakeredis.FakeAsyncRedis(server=server)
        self.got: list[tuple[str, B.Message]] = []
        self.changes: list[bool] = []
        self.arrived = asyncio.Event()
        self.bus = B.Bus(
            self.redis, "t", name, secret, self._handle, self.changes.append, probe_s=0.05
        )

    def _handle(self, src: str, msg: B.Message) -> None:
        self.got.append((src, msg))
        self.arrived.set()

    async def until(self, n: int) -> None:
        while len(self.got) < n:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), 5)


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_messages_arrive_in_order_and_broadcasts_reach_the_others_only() -> None:
    async def main() -> None:
        server = fakeredis.FakeServer()
        a, b = Node(server, "a"), Node(server, "b")
        await a.bus.start()
        await b.bus.start()
        try:
            assert a.bus.ok and b.bus.ok
            for i in range(50):
                a.bus.post("b", B.SocketGone(i))
            a.bus.broadcast(B.RateHit("x", "hit", "k"))
            await b.until(51)
            gone = [m.cid for _, m in b.got if isinstance(m, B.SocketGone)]
            assert gone == list(range(50))
            assert all(src == "a" for src, _ in b.got)
            assert any(isinstance(m, B.RateHit) for _, m in b.got)
            await asyncio.sleep(0.1)
            assert a.got == []  # its own broadcast is not handed back
            # a message made when the batch leaves reads the state as it is then
            state = {"n": 1}
            a.bus.post("b", lambda: B.SocketGone(state["n"]))
            state["n"] = 2
            await b.until(52)
            assert b.got[-1] == ("a", B.SocketGone(2))
        finally:
            await a.bus.stop()
            await b.bus.stop()

    _run(main())


def test_a_forged_or_replayed_frame_is_dropped() -> None:
    async def main() -> None:
        server = fakeredis.FakeServer()
        a, b = Node(server, "a"), Node(server, "b")
        intruder = fakeredis.FakeAsyncRedis(server=server)
        await a.bus.start()
        await b.bus.start()
        try:
            ch = b.bus.channel("b")
            # a process without the secret: its frame names a player, it is not signed
            forged = B.encode(b"guessed", ch, "a", 10**9, [B.FromSocket(1, 1, "x", "?", "{}")])
            await intruder.publish(ch, forged)
            # a frame recorded off Redis and sent again
            real: list[str] = []
            ps = intruder.pubsub()
            await ps.subscribe(ch)
            a.bus.post("b", B.SocketGone(1))
            await b.until(1)
            while not real:
                m = await ps.get_message(timeout=1)
                if m and m["type"] == "message":
                    real.append(m["data"].decode())
            await intruder.publish(ch, real[0])
            a.bus.post("b", B.SocketGone(2))
            await b.until(2)
            await asyncio.sleep(0.1)
            assert [m for _, m in b.got] == [B.SocketGone(1), B.SocketGone(2)]
            assert b.bus.rejected == 2
            await ps.aclose()
        finally:
            await a.bus.stop()
            await b.bus.stop()

    _run(main())


def test_an_outage_takes_the_bus_down_and_it_comes_back_by_itself() -> None:
    async def main() -> None:
        server = fakeredis.FakeServer()
        a, b = Node(server, "a"), Node(server, "b")
        await a.bus.start()
        await b.bus.start()
        turns = 0
        stop = asyncio.Event()

        async def ticker() -> None:  # the event loop must keep turning meanwhile
            nonlocal turns
            while not stop.is_set():
                turns += 1
                await asyncio.sleep(0.01)

        tick = asyncio.create_task(ticker())
        try:
            server.connected = False
            while a.bus.ok or b.bus.ok:
                await asyncio.sleep(0.02)
            assert a.changes[-1] is False and b.changes[-1] is False
            before = turns
            a.bus.post("b", B.SocketGone(1))  # dropped: the bus is down
            await asyncio.sleep(0.5)
            assert turns - before >= 10, "the event loop stalled during the outage"
            assert not a.bus.ok
            server.connected = True
            while not (a.bus.ok and b.bus.ok):
                await asyncio.sleep(0.02)
            assert a.changes == [True, False, True]
            assert a.bus.failures == 1 and a.bus.last_outage_s > 0.4
            a.bus.post("b", B.SocketGone(2))
            await b.until(1)
            assert [m for _, m in b.got] == [B.SocketGone(2)]
        finally:
            stop.set()
            await tick
            await a.bus.stop()
            await b.bus.stop()

    _run(main())
