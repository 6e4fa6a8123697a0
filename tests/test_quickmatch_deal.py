"""Quick match deals (docs/economy.md, "Rooms by stake and quick match"): 快速开始 seats
the player and the hand starts within the room's wait, bots filling the free seats — no
准备 and no 加机器人 at a room table. On the fake clock, never by sleeping."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fujian_mahjong.server.rooms import parse_config
from tests.inproc import Client, Harness, running

CONFIG = """
[server]
quickmatch_wait_s = 8

[[rooms]]
tier = "cheap"
stake = 2
base = 1
fee = 1
cap = 40
min_balance = 100
hands = 2
profiles = ["fuzhou-tcy"]
"""
ROOM = "fuzhou-tcy:cheap"


async def quick(h: Harness, c: Client) -> int:
    r = await h.http.post(
        "/api/quickmatch", json={"room": ROOM}, headers={"Authorization": f"Bearer {c.token}"}
    )
    assert r.status_code == 200, r.text
    return int(r.json()["table"])


def test_quickmatch_deals_after_the_wait_with_bots_and_no_ready(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, **parse_config(CONFIG)) as h:
            a, b = await h.guest("ann"), await h.guest("ben")
            tid = await quick(h, a)
            assert await quick(h, b) == tid
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.advance(7.0)  # within the wait: still waiting for humans
            assert not a.of_type("hand_start")
            assert a.errors() == [] and b.errors() == []
            await h.advance(1.5)  # the wait is over: bots fill, the hand starts at once
            assert a.of_type("hand_start") and b.of_type("hand_start")
            t = (await h.http.get(f"/api/tables/{tid}")).json()
            assert t["status"] == "playing" and t["bots"] == 2 and t["humans"] == 2
            levels = [s["bot_level"] for s in t["seats"]]
            assert levels == [None, None, "heuristic", "heuristic"]
            await h.advance(4.0)  # past the opening (docs/protocol.md): the first state
            assert [s["bot_level"] for s in a.last("state")["seats"]] == levels
            assert t["practice"] is False  # the bots play for the house
            # nobody adds or removes bots at a room table (the wait does it)
            for method in ("POST", "DELETE"):
                r = await h.http.request(
                    method,
                    f"/api/tables/{tid}/bots",
                    headers={"Authorization": f"Bearer {a.token}"},
                )
                assert r.status_code == 409 and r.json()["code"] == "room_table", r.text

    asyncio.run(main())


def test_quickmatch_full_of_humans_deals_at_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, **parse_config(CONFIG)) as h:
            cs = [await h.guest(f"p{i}") for i in range(4)]
            tids = {await quick(h, c) for c in cs}
            assert len(tids) == 1
            tid = tids.pop()
            for c in cs[:3]:
                await h.seat(c, tid)
            await h.settle()
            assert not cs[0].of_type("hand_start")
            await h.seat(cs[3], tid)  # the last human joins: the hand starts, nobody readied
            await h.settle()
            assert all(c.of_type("hand_start") for c in cs)
            t = (await h.http.get(f"/api/tables/{tid}")).json()
            assert t["bots"] == 0 and t["status"] == "playing"

    asyncio.run(main())


def test_quickmatch_player_joining_after_the_fill_starts_the_hand(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, **parse_config(CONFIG)) as h:
            a = await h.guest("ann")
            tid = await quick(h, a)
            await h.advance(8.5)  # bots fill while the player has not opened the table yet
            t = (await h.http.get(f"/api/tables/{tid}")).json()
            assert t["bots"] == 3 and t["status"] == "open"
            await h.seat(a, tid)  # coming in deals at once, without 准备
            await h.settle()
            assert a.of_type("hand_start")

    asyncio.run(main())


def test_quickmatch_seat_freed_after_the_fill_is_filled_again(tmp_path: Path) -> None:
    """One of two humans never opens the table: after the grace period their seat is
    freed, and a bot takes it within the next wait, so the other player gets a hand."""

    async def main() -> None:
        async with running(tmp_path, grace_s=20.0, **parse_config(CONFIG)) as h:
            a, b = await h.guest("ann"), await h.guest("ben")
            tid = await quick(h, a)
            assert await quick(h, b) == tid
            await h.seat(a, tid)
            await h.advance(8.5)
            assert not a.of_type("hand_start")  # ben's seat is kept for him
            await h.advance(30.0)  # ben never came: freed, then a bot fills it
            assert a.of_type("hand_start")
            t = (await h.http.get(f"/api/tables/{tid}")).json()
            assert t["bots"] == 3 and t["humans"] == 1

    asyncio.run(main())


async def _room_hand_ended(h: Harness) -> tuple[int, Client, Client]:
    """Two strangers at a room table, its first hand played by 托管 to its end."""
    a, b = await h.guest("ann"), await h.guest("ben")
    tid = await quick(h, a)
    assert await quick(h, b) == tid
    await h.seat(a, tid)
    await h.seat(b, tid)
    await h.advance(8.5)  # the wait: bots fill, the hand starts
    for c in (a, b):
        await c.send({"type": "auto", "on": True})
    for _ in range(600):
        if a.of_type("hand_end"):
            break
        await h.advance(0.5)
    assert a.of_type("hand_end") and not a.of_type("hand_end")[0]["match_over"]
    return tid, a, b


NEXT_15 = CONFIG.replace("[server]\n", "[server]\nnext_hand_s = 15\n")


def test_an_idle_stranger_does_not_hold_a_room_table_between_hands(tmp_path: Path) -> None:
    """Between two hands at a room table, one stranger presses 下一局 and the other stays
    connected and never does: ``next_hand_s`` after the hand's end the next hand is dealt to
    both (docs/protocol.md, ``ready``), not an hour later, not never. Before the wait is
    over it is not."""

    async def main() -> None:
        async with running(tmp_path, **parse_config(NEXT_15)) as h:
            assert h.settings.next_hand_s == 15
            tid, a, b = await _room_hand_ended(h)
            end = a.of_type("hand_end")[0]
            assert end["next_hand_ms"] == 15_000  # the page counts it down
            await a.send({"type": "ready"})  # ann wants the next hand; ben is idle
            await h.advance(10.0)
            assert len(a.of_type("hand_start")) == 1  # within the wait: still waiting
            await h.advance(5.5)
            assert len(a.of_type("hand_start")) == 2 and len(b.of_type("hand_start")) == 2
            t = (await h.http.get(f"/api/tables/{tid}")).json()
            assert t["status"] == "playing" and t["hands_played"] == 1
            assert a.errors() == [] and b.errors() == []

    asyncio.run(main())


def test_a_stranger_back_after_the_wait_is_dealt_the_next_hand(tmp_path: Path) -> None:
    """Ben's connection drops before the wait is over and comes back after it (within the
    grace): the next hand is dealt as he sits down again — the wait's one timer found him
    away, and nothing else would deal (the table held, his page counting down from 0)."""

    async def main() -> None:
        async with running(tmp_path, **parse_config(NEXT_15)) as h:
            tid, a, b = await _room_hand_ended(h)
            await a.send({"type": "ready"})
            await h.advance(10.0)
            await b.disconnect()
            await h.advance(7.0)  # the wait passes while he is away
            assert len(a.of_type("hand_start")) == 1
            back = Client(h, b.name, b.token, b.player_id)
            await back.send({"type": "hello", "token": back.token})
            await h.seat(back, tid)
            await h.advance(1.0)
            assert len(a.of_type("hand_start")) == 2 and back.of_type("hand_start")

    asyncio.run(main())


def test_a_room_table_restored_between_two_hands_deals_after_a_fresh_wait(
    tmp_path: Path,
) -> None:
    """A restart between two hands of a room table: its wait starts again (a fresh one),
    the end shown again says how long is left, and the next hand is dealt after it."""

    async def main() -> None:
        cfg = parse_config(NEXT_15)
        async with running(tmp_path, **cfg) as h:
            tid, a, b = await _room_hand_ended(h)
        async with running(tmp_path, **cfg) as h:
            await h.settle()
            assert h.lobby.tables[tid].status == "between"
            back = [Client(h, c.name, c.token, c.player_id) for c in (a, b)]
            for c in back:
                await c.send({"type": "hello", "token": c.token})
                await h.seat(c, tid)
            end = back[0].last("hand_end")
            assert end is not None and end["again"] is True
            assert 0 < end["next_hand_ms"] <= 15_000
            await h.advance(10.0)
            assert not back[0].of_type("hand_start")  # within the wait
            await h.advance(6.0)
            assert back[0].of_type("hand_start") and back[1].of_type("hand_start")

    asyncio.run(main())
