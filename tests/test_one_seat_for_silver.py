"""R11: silver is played for at one table at a time, and only by those who sat down as
accounts (docs/economy.md, "Sitting down").

- An account seated at a table played for silver may not take a seat at another (409-like
  ``already_seated`` over ``/ws``, as quick match refuses): each table checks its minimum
  balance against the whole balance, and an account at two could lose only what it has
  while winning at both. Tables for points only (stake 0) and guests are not limited.
- A guest holding a seat may not register (409 ``seated``) until it leaves: a guest sits
  down unchecked (it plays for points), and registered mid-match it played for silver at a
  table whose minimum balance it never met, its loss capped by the new account's grant.

In-process on the fake clock (tests/inproc.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import select

from fujian_mahjong.server import economy
from fujian_mahjong.server.store.models import SeatRow
from tests.inproc import Client, Harness, running
from tests.test_house_economy import account, bearer


async def _rich(h: Harness, name: str, silver: int) -> Client:
    c = await account(h, name)
    async with h.store.write() as s:
        await economy.admin_adjust(s, c.player_id, silver - 10_000, "test")
    return c


def test_an_account_sits_for_silver_at_one_table_at_a_time(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            names = ("alice", "bobby", "carol", "david")
            alice, bob, carol, dave = [await _rich(h, n, 100_000) for n in names]
            silver = {"bots": 2, "stake": 1000, "min_balance": 10_000, "cap": 10}
            t1 = await h.table(bob, **silver)
            t2 = await h.table(carol, **silver)
            free = await h.table(carol, bots=2, stake=0)  # for points only
            await h.seat(bob, t1)
            await h.seat(alice, t1)  # two accounts and two bots: for silver
            await h.seat(carol, t2)
            assert h.lobby.tables[t1].seat_of(alice.player_id) is not None

            async def socket() -> Client:  # another socket of alice's
                c = Client(h, alice.name, alice.token, alice.player_id)
                await c.send({"type": "hello", "token": alice.token})
                return c

            # the same account at a second table for silver: refused, nothing changed
            other = await socket()
            await h.seat(other, t2)
            assert other.errors() == ["already_seated"]
            assert f"table {t1}" in other.of_type("error")[-1]["message"]
            assert h.lobby.tables[t2].seat_of(alice.player_id) is None
            # a table for points only is not limited, nor is a guest
            await h.seat(other, free)
            assert h.lobby.tables[free].seat_of(alice.player_id) is not None
            g = await h.guest("gina")
            g2 = Client(h, g.name, g.token, g.player_id)  # its second socket
            await g2.send({"type": "hello", "token": g.token})
            for c in (g, g2):
                gt = await h.table(bob, **silver)
                await h.seat(dave, gt)  # for silver (two humans)
                await h.seat(c, gt)
                assert not c.errors()
                await dave.send({"type": "leave"})
            # once alice has left the first table, she may sit at the second
            await alice.send({"type": "leave"})
            assert h.lobby.tables[t1].seat_of(alice.player_id) is None
            await h.seat(alice, t2)
            assert not alice.errors()
            assert h.lobby.tables[t2].seat_of(alice.player_id) is not None
            # a practice table (练习: one human with bots, nothing moves) counts too: a second
            # human sitting down there would make it a table for silver, and its first player
            # would then be at two (a helper's repro: both tables settled for silver)
            practice = await h.table(dave, **silver)
            third = await socket()
            await h.seat(third, practice)
            assert third.errors() == ["already_seated"]
            assert h.lobby.tables[practice].seat_of(alice.player_id) is None
            # and from a practice table, as from any other
            await alice.send({"type": "leave"})  # from t2
            await h.seat(third, practice)
            assert third.errors() == ["already_seated"]  # the first refusal only
            assert h.lobby.tables[practice].seat_of(alice.player_id) is not None
            assert h.lobby.tables[practice].practice
            erin = await _rich(h, "erin", 100_000)
            t4 = await h.table(erin, **silver)
            await h.seat(erin, t4)
            fourth = await socket()
            await h.seat(fourth, t4)
            assert fourth.errors() == ["already_seated"]
            await h.seat(dave, practice)  # now for silver: alice plays at one table only
            assert not h.lobby.tables[practice].practice
            assert h.lobby.tables[t4].seat_of(alice.player_id) is None

    asyncio.run(main())


def test_a_seated_guest_registers_only_after_leaving(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            owner = await _rich(h, "owner", 2_000_000)
            tid = await h.table(owner, bots=2, hands=2, stake=100, min_balance=1_000_000)
            g = await h.guest("gina")
            await h.seat(owner, tid)
            await h.seat(g, tid)
            assert not g.errors()  # a guest plays for points and sits down unchecked
            await h.ready(owner, g)
            await h.advance(2.0)  # the hand is being played
            body = {"name": "gina2", "password": "long enough"}
            r = await h.http.post("/api/accounts", json=body, headers=bearer(g))
            assert r.status_code == 409 and r.json()["code"] == "seated", r.text
            assert f"table {tid}" in r.json()["detail"]
            me = (await h.http.get("/api/me", headers=bearer(g))).json()
            assert me["name"] == "gina" and me.get("silver") is None  # still a guest
            # it leaves (the match ends: R11), then registers; it never played for silver
            await g.send({"type": "leave"})
            await h.advance(1.0)
            r = await h.http.post("/api/accounts", json=body, headers=bearer(g))
            assert r.status_code == 201, r.text
            assert r.json()["player_id"] == g.player_id and r.json()["silver"] == 10_000

    asyncio.run(main())


def test_two_sit_downs_at_the_same_moment_take_one_seat(db_url: str, tmp_path: Path) -> None:
    """R11: one account's two sockets join two tables for silver at the same moment (on
    SQLite and on PostgreSQL, several connections). The check and the seat are one
    transaction, the account's row locked first: one join is seated, the other answered
    ``already_seated``, every time. Before, both checks read the seats before either was
    written, and both sat down."""

    async def main() -> None:
        async with running(tmp_path, db_url=db_url) as h:
            alice = await _rich(h, "alice", 100_000)
            silver = {"bots": 2, "stake": 1000, "min_balance": 10_000, "cap": 10}
            for round_ in range(4):
                tables = []
                for i in range(2):  # each with another account seated: for silver
                    other = await _rich(h, f"host{round_}{i}", 100_000)
                    tid = await h.table(other, **silver)
                    await h.seat(other, tid)
                    tables.append(tid)
                socks = []
                for _ in tables:
                    c = Client(h, alice.name, alice.token, alice.player_id)
                    await c.send({"type": "hello", "token": alice.token})
                    socks.append(c)
                await asyncio.gather(*(h.seat(c, t) for c, t in zip(socks, tables, strict=True)))
                held = [t for t in tables if h.lobby.tables[t].seat_of(alice.player_id) is not None]
                assert len(held) == 1, f"round {round_}: seated at {held}"
                refused = [c for c in socks if c.errors()]
                assert len(refused) == 1 and refused[0].errors() == ["already_seated"]
                async with h.store.sessions() as db:
                    rows = (
                        await db.execute(
                            select(SeatRow.table_id).where(SeatRow.player_id == alice.player_id)
                        )
                    ).all()
                assert [r[0] for r in rows] == held  # nothing written for the refused one
                seated = next(c for c in socks if not c.errors())
                await seated.send({"type": "leave"})

    asyncio.run(main())
