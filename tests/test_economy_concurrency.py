"""Concurrency (docs/economy.md, R11): hands settling at the same time for the same player at
different tables never lose an update — real concurrent transactions on separate
connection pools, on SQLite (the write lock, busy wait) and on PostgreSQL (row locks,
``SELECT … FOR UPDATE``). The database is made by the Alembic migrations."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from fujian_mahjong.server import economy
from fujian_mahjong.server.economy import Stakes
from fujian_mahjong.server.store import make_engine, upgrade
from tests.test_economy_support import add_hand, add_player, add_table

PAUSE = 0.25  # each settlement holds its locks this long after reading the balances


class _Slow:
    """Injected into the test's sessions: the economy waits here with its locks held."""

    async def pause(self) -> None:
        await asyncio.sleep(PAUSE)


SLOW = _Slow()


async def _race(url: str, hands: int) -> None:
    await upgrade(url)
    setup = make_engine(url)
    sessions = async_sessionmaker(setup, expire_on_commit=False)
    async with sessions() as s, s.begin():
        p = await add_player(s, "shared", 10_000)
        others = [await add_player(s, f"o{i}", 10_000) for i in range(hands)]
        ids = []
        for o in others:
            tid, mid = await add_table(s, p, Stakes(stake=1, base=1, fee=5, cap=0, min_balance=0))
            # at table i the shared player loses 100 × (i + 1) points to another account
            ids.append(await add_hand(s, tid, mid, [p, o, None, None]))
    await setup.dispose()

    engines = [make_engine(url) for _ in range(hands)]

    async def settle(i: int) -> None:
        mk = async_sessionmaker(engines[i], expire_on_commit=False, info={"faults": SLOW})
        async with mk() as s, s.begin():
            pay = [-100 * (i + 1), 100 * (i + 1), 0, 0]
            await economy.settle_hand(s, ids[i], {"payments": pay}, {"winner": 1})

    try:
        t0 = time.monotonic()
        await asyncio.gather(*(settle(i) for i in range(hands)))
        elapsed = time.monotonic() - t0
    finally:
        for e in engines:
            await e.dispose()
    # the transactions really overlapped and were serialised by the locks
    assert elapsed >= hands * PAUSE * 0.9
    check = make_engine(url)
    try:
        async with async_sessionmaker(check)() as s:
            acc = await economy.account_of(s, p)
            rep = await economy.audit(s, replay_logs=False)
    finally:
        await check.dispose()
    assert acc is not None
    lost = sum(100 * (i + 1) + 5 for i in range(hands))
    assert acc[1] == 10_000 - lost  # no update lost
    assert rep.ok, rep.problems
    assert rep.hands == hands and rep.conserved()


@pytest.mark.parametrize("hands", [2, 5])
def test_concurrent_settlements_for_one_player(db_url: str, tmp_path: Path, hands: int) -> None:
    url = db_url or f"sqlite+aiosqlite:///{tmp_path / 'race.sqlite3'}"
    asyncio.run(_race(url, hands))


def test_concurrent_admin_changes_never_overdraw(db_url: str, tmp_path: Path) -> None:
    """Two operators removing silver at once: one succeeds, the other is refused (the
    balance is re-read under the lock), never a negative balance."""
    url = db_url or f"sqlite+aiosqlite:///{tmp_path / 'admin.sqlite3'}"

    async def go() -> None:
        await upgrade(url)
        e0 = make_engine(url)
        async with async_sessionmaker(e0)() as s, s.begin():
            p = await add_player(s, "victim", 1000)
        await e0.dispose()
        engines = [make_engine(url) for _ in range(2)]

        async def take(i: int) -> str:
            try:
                async with async_sessionmaker(engines[i], info={"faults": SLOW})() as s, s.begin():
                    await economy.admin_adjust(s, p, -700, f"operator {i}")
            except economy.EconomyError as e:
                return e.code
            return "ok"

        try:
            outcomes = sorted(await asyncio.gather(take(0), take(1)))
        finally:
            for e in engines:
                await e.dispose()
        assert outcomes == ["insufficient", "ok"]
        e1 = make_engine(url)
        async with async_sessionmaker(e1)() as s:
            acc = await economy.account_of(s, p)
            rep = await economy.audit(s, replay_logs=False)
        await e1.dispose()
        assert acc is not None and acc[1] == 300
        assert rep.ok, rep.problems

    asyncio.run(go())
