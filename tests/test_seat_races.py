"""A seat for silver is given only within the table's bounds as they are when the seat is
written (R11; docs/economy.md, "Minimum balance"): the balance read before the seat's
transaction may be stale by the time it commits — a guest registered meanwhile, or a penalty
at the table just left committed meanwhile. Each race is made certain, not likely: the read
is held (``Finisher.can_sit`` waits after it) until the other request has committed.

In-process on the fake clock (tests/inproc.py), on SQLite and on PostgreSQL (row locks)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from fujian_mahjong.server import accounts, economy
from fujian_mahjong.server import finisher as fin
from tests.inproc import Client, Harness, running
from tests.test_house_economy import account, audit, bearer, silver


def _hold_can_sit(
    monkeypatch: pytest.MonkeyPatch, table: int | None, until: Callable[[], Awaitable[Any]]
) -> None:
    """``Finisher.can_sit`` at ``table`` (None: at any): its read as before, then it waits
    for ``until``."""
    orig = fin.Finisher.can_sit

    async def can_sit(self: fin.Finisher, player_id: int) -> str | None:
        why = await orig(self, player_id)
        if table is None or self.t.id == table:
            await until()
        return why

    monkeypatch.setattr(fin.Finisher, "can_sit", can_sit)


def _registration_held(
    h: Harness, monkeypatch: pytest.MonkeyPatch, name: str, hdr: dict[str, str]
) -> tuple[asyncio.Future[Any], threading.Event]:
    """A guest's registration under way, held before its transaction until ``read`` is set
    (its password is hashed in a thread, which waits for it)."""
    read = threading.Event()
    hasher = accounts.HASHER

    class Held:
        def hash(self, password: str) -> str:
            assert read.wait(timeout=60), "the other request never read"
            return hasher.hash(password)

    monkeypatch.setattr(accounts, "HASHER", Held())
    body = {"name": name, "password": "long enough"}
    return asyncio.ensure_future(h.http.post("/api/accounts", json=body, headers=hdr)), read


def test_a_guest_registering_while_quick_matching_is_refused_the_room(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R11: a guest quick-matches into a room with a minimum (60,000 by default in the
    senior room) while registering (10,000 granted): whichever commits first, the account
    never holds a seat for silver below the room's minimum — here the registration commits
    between the quick match's read (a guest: no minimum) and its seat, and the seat is
    refused as a fresh account's would be."""

    async def main() -> None:
        async with running(tmp_path, db_url=db_url) as h:
            g = (await h.http.post("/api/guests", json={"name": "sneaky"})).json()
            hdr = {"Authorization": f"Bearer {g['token']}"}
            # the registration waits, before its transaction, for the quick match's read of
            # the balance (a guest's: no minimum)
            registering, read = _registration_held(h, monkeypatch, "sneaky", hdr)

            async def registered() -> None:
                read.set()
                await registering

            _hold_can_sit(monkeypatch, None, registered)
            qm = await h.http.post(
                "/api/quickmatch", json={"room": "fuzhou-tcy:senior"}, headers=hdr
            )
            reg = await registering
            assert reg.status_code == 201  # the registration went first
            assert qm.status_code == 409, qm.text
            assert qm.json()["code"] == "balance_too_low"
            assert "60000" in qm.json()["detail"]
            await h.settle()
            # no seat anywhere: no table holds the new account
            for t in h.lobby.tables.values():
                assert all(s.player_id != g["player_id"] for s in t.seats)
            await audit(h)

    asyncio.run(main())


def test_a_join_beside_an_escape_is_refused_below_the_minimum(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R9/R11: Alice leaves table X mid-hand (its escape penalty takes 80,000 of her 100,000)
    while, on a second connection, she joins table Y (minimum 50,000). Y's read of her
    balance is held until X's void, penalty and close have committed: the seat's own
    transaction sees 20,000 and refuses it (``insufficient_silver``), as it refuses anyone
    holding 20,000."""

    async def main() -> None:
        async with running(tmp_path, db_url=db_url) as h:
            a = await account(h, "alice")
            b = await account(h, "bobby")
            c = await account(h, "carol")
            async with h.store.write() as s:
                await economy.admin_adjust(s, a.player_id, 90_000, "prize")
                await economy.admin_adjust(s, b.player_id, 90_000, "prize")
            x = await h.table(a, private=True, stake=1000, base=10, cap=100, hands=8, bots=2)
            code = (await h.http.get(f"/api/tables/{x}", headers=bearer(a))).json()["code"]
            await h.seat(a, x)
            await b.send({"type": "join", "table": code})
            await h.ready(a, b)
            for _ in range(10):
                if a.last("state"):
                    break
                await h.advance(1.0)
            assert a.last("state") is not None and not a.errors() and not b.errors()
            y = await h.table(c, stake=100, cap=500, min_balance=50_000, hands=1)
            a2 = Client(h, a.name, a.token, a.player_id)
            await a2.send({"type": "hello", "token": a.token})

            # table X's close (its void, penalty and status committed), as an event
            closed = asyncio.Event()
            tx = h.lobby.tables[x]
            forget = tx.on_close

            def on_close(t: Any) -> None:
                if forget is not None:
                    forget(t)
                closed.set()

            tx.on_close = on_close

            async def x_closed() -> None:
                await asyncio.wait_for(closed.wait(), timeout=60)

            _hold_can_sit(monkeypatch, y, x_closed)
            await asyncio.gather(
                h.dispatcher.handle(a2.conn, json.dumps({"type": "join", "table": y})),
                h.dispatcher.handle(a.conn, '{"type": "leave"}'),
            )
            await h.settle()
            assert await silver(h, a) == 20_000  # the escape penalty (R9) was charged
            assert [m["code"] for m in a2.of_type("error")] == ["insufficient_silver"]
            assert not a2.of_type("seated")
            assert all(s.player_id != a.player_id for s in h.lobby.tables[y].seats)
            await audit(h)

    asyncio.run(main())


def test_a_guest_registered_while_its_seat_is_written_sits_as_the_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same race where the room's bounds let the new account sit (the novice room):
    the seat read "a guest" before its transaction and the registration committed before
    the seat; the seat is the account's, and the table counts it as one (its practice rule,
    its silver) — not as the guest it was when read."""

    async def main() -> None:
        async with running(tmp_path) as h:
            g = (await h.http.post("/api/guests", json={"name": "quick"})).json()
            hdr = {"Authorization": f"Bearer {g['token']}"}
            registering, read = _registration_held(h, monkeypatch, "quick", hdr)
            orig = fin.Finisher.has_account
            held = [True]

            async def has_account(self: fin.Finisher, player_id: int) -> bool:
                found = await orig(self, player_id)  # read: still a guest
                if held[0]:
                    held[0] = False
                    read.set()
                    await registering  # the registration commits before the seat
                return found

            monkeypatch.setattr(fin.Finisher, "has_account", has_account)
            qm = await h.http.post(
                "/api/quickmatch", json={"room": "fuzhou-tcy:novice"}, headers=hdr
            )
            assert (await registering).status_code == 201
            assert qm.status_code == 200, qm.text
            await h.settle()
            t = h.lobby.tables[qm.json()["table"]]
            seat = next(s for s in t.seats if s.player_id == g["player_id"])
            assert seat.account is True

    asyncio.run(main())
