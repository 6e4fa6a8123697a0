"""Crash safety of the settlement (docs/economy.md, R11): the server is SIGKILLed right after
a hand ends — before its settlement commits (inside the transaction that stores the hand's
last events, marks it over and settles it) or right after that commit (before ``hand_end``
goes out). After a restart the hand is settled exactly once and the audit is clean — on
SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from fujian_mahjong.server import economy
from fujian_mahjong.server.settings import sqlite_url
from fujian_mahjong.server.store import HandRow, make_engine
from fujian_mahjong.server.store.economy_models import LedgerRow, SettlementRow
from tests.test_economy_support import Client, EconServer, auth, register


async def _db_facts(url: str, table_id: int, player_id: int) -> dict[str, Any]:
    engine = make_engine(url)
    try:
        async with async_sessionmaker(engine)() as s:
            hands = (
                await s.execute(
                    select(HandRow.id, HandRow.status).where(HandRow.table_id == table_id)
                )
            ).all()
            ids = [h for h, _ in hands]
            settled = (
                (
                    await s.execute(
                        select(SettlementRow.hand_id).where(SettlementRow.hand_id.in_(ids))
                    )
                )
                .scalars()
                .all()
            )
            hand_rows = (
                await s.execute(
                    select(func.count()).where(
                        LedgerRow.player_id == player_id, LedgerRow.kind == "hand"
                    )
                )
            ).scalar_one()
            rep = await economy.audit(s)
            acc = await economy.account_of(s, player_id)
    finally:
        await engine.dispose()
    return {
        "hands": dict(hands),
        "settled": list(settled),
        "hand_rows": hand_rows,
        "audit": rep.problems,
        "silver": acc[1] if acc else None,
    }


async def _play_until_end_or_drop(srv: EconServer, token: str, table: int) -> dict[str, Any] | None:
    with contextlib.suppress(Exception):
        async with Client(srv.ws_url, token) as c:
            await c.send({"type": "join", "table": table, "as": "player"})
            await c.until("seated")
            await c.send({"type": "ready"})
            return await c.play(("hand_end",), timeout=60)
    return None


@pytest.mark.parametrize("point", ["settle_before_commit", "settle_after_commit"])
def test_sigkill_around_the_settlement(db_url: str, tmp_path: Path, point: str) -> None:
    srv = EconServer(tmp_path, db=db_url)
    srv.start(crash_at=point)
    try:
        a = register(srv.base, "Crash", "crash-secret")
        r = httpx.post(
            srv.base + "/api/tables",
            json={"bots": 3, "hands": 2, "stake": 2, "fee": 1},
            headers=auth(a["token"]),
            timeout=10,
        )
        table = r.json()["id"]
        end = asyncio.run(_play_until_end_or_drop(srv, a["token"], table))
        assert end is None  # the server died before hand_end went out
        assert srv.wait_dead(30), "the server was not SIGKILLed at the crash point"
        url = db_url or sqlite_url(tmp_path)
        before = asyncio.run(_db_facts(url, table, a["player_id"]))
        [(hand_id, status)] = before["hands"].items()
        if point == "settle_before_commit":
            # nothing of the final transaction survived: not over, not settled
            assert status == "playing" and before["settled"] == [] and before["hand_rows"] == 0
        else:
            assert status == "over" and before["settled"] == [hand_id]
        srv.start()  # no crash point now
        end = asyncio.run(_play_until_end_or_drop(srv, a["token"], table))
        after = asyncio.run(_db_facts(url, table, a["player_id"]))
        # the restored table plays on: the player reconnects and a hand ends (the restored
        # one, or the next when the bots had finished it first)
        assert end is not None
        assert end["silver"][_seat(end, a)]["balance"] == after["silver"]
        assert after["hands"][hand_id] == "over"
        assert after["settled"].count(hand_id) == 1
        assert after["hand_rows"] == len(after["settled"])  # one hand row per settled hand
        assert after["audit"] == []
        me = httpx.get(srv.base + "/api/me", headers=auth(a["token"]), timeout=10).json()
        assert me["silver"] == after["silver"]
    finally:
        srv.stop()


def _seat(end: dict[str, Any], a: dict[str, Any]) -> int:
    for s in end.get("seats") or []:
        if s.get("player_id") == a["player_id"]:
            return int(s["seat"])
    return next(i for i, x in enumerate(end["silver"]) if x is not None)
