"""A leaver's void hand counts against the leaver (R11 逃跑; docs/economy.md, "Leaving
mid-hand"), at a practice table too: otherwise a player alone with bots leaves each hand
that looks bad, for free, and keeps only the good ones in its levels and skill rating. The
leaver's 积分 go down by 8 × base (R11's penalty in points, floored at 0), its skill rating
places it last; nobody else's rating moves.

In-process on the fake clock (tests/inproc.py), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import select, update

from fujian_mahjong.server import rating
from fujian_mahjong.server.store.economy_models import (
    Account,
    ProfileStatRow,
    SettlementRow,
    SkillRow,
)
from tests.inproc import Client, Harness, running
from tests.test_house_economy import account, audit, bearer, silver

BASE = 2


async def _in_a_hand(h: Harness, c: Client, table: int) -> None:
    await h.seat(c, table)
    await c.send({"type": "ready"})
    for _ in range(20):
        if c.of_type("state"):
            return
        await h.advance(1.0)
    raise AssertionError("no hand started")


async def _standing(h: Harness, pid: int) -> tuple[int, int | None, tuple[float, int]]:
    """(积分, the profile's 积分, (skill mu, hands rated): a player never rated is at
    openskill's start)."""
    async with h.store.sessions() as s:
        acct = (await s.execute(select(Account.rating).where(Account.player_id == pid))).one()
        prof = (
            await s.execute(
                select(ProfileStatRow.rating).where(
                    ProfileStatRow.player_id == pid, ProfileStatRow.profile == "fuzhou-tcy"
                )
            )
        ).first()
        sk = (
            await s.execute(
                select(SkillRow.mu, SkillRow.hands).where(
                    SkillRow.player_id == pid, SkillRow.profile == "fuzhou-tcy"
                )
            )
        ).first()
    return (
        int(acct[0]),
        None if prof is None else int(prof[0]),
        (rating.MU, 0) if sk is None else (float(sk[0]), int(sk[1])),
    )


async def _set_levels(h: Harness, pid: int, points: int) -> None:
    async with h.store.write() as s:
        await s.execute(update(Account).where(Account.player_id == pid).values(rating=points))
        s.add(ProfileStatRow(player_id=pid, profile="fuzhou-tcy", rating=points, hands=0, wins=0))


def test_leaving_a_practice_hand_costs_levels_and_skill(db_url: str, tmp_path: Path) -> None:
    """练习 (one account, three bots): leaving is free in silver, but not in levels (−8 ×
    base 积分, on the account and its profile) nor in the skill rating (last place)."""

    async def main() -> None:
        async with running(tmp_path, db_url=db_url) as h:
            a = await account(h, "alice")
            await _set_levels(h, a.player_id, 100)
            t = await h.table(a, private=True, stake=10, base=BASE, bots=3, hands=8)
            assert (await h.http.get(f"/api/tables/{t}", headers=bearer(a))).json()["practice"]
            await _in_a_hand(h, a, t)
            await a.send({"type": "leave"})
            await h.settle()
            assert await silver(h, a) == 10_000  # practice: no escape penalty
            levels, profile, skill = await _standing(h, a.player_id)
            assert (levels, profile) == (100 - 8 * BASE, 100 - 8 * BASE)
            assert skill[0] < rating.MU and skill[1] == 1
            async with h.store.sessions() as s:
                detail = (await s.execute(select(SettlementRow.detail))).scalar_one()
            assert detail["practice"] and detail["penalty"] == 0
            assert (detail["rating_before"], detail["rating_after"]) == (100, 100 - 8 * BASE)
            assert detail["skill"][0]["change"] <= 0 and detail["skill"][1:] == [None] * 3
            await audit(h)

    asyncio.run(main())


def test_a_leave_moves_only_the_leavers_rating(db_url: str, tmp_path: Path) -> None:
    """Two accounts and two bots: the one who leaves pays the escape penalty (R11), loses 8 ×
    base 积分 (floored at 0) and places last for the skill rating; the one who stayed keeps
    its 积分 and its skill rating as they were (nobody gains by another's leave)."""

    async def main() -> None:
        async with running(tmp_path, db_url=db_url) as h:
            a = await account(h, "alice")
            b = await account(h, "bobby")
            await _set_levels(h, a.player_id, 5)
            t = await h.table(a, private=True, stake=10, base=BASE, bots=2, hands=8)
            code = (await h.http.get(f"/api/tables/{t}", headers=bearer(a))).json()["code"]
            await b.send({"type": "join", "table": code})
            await b.send({"type": "ready"})
            await _in_a_hand(h, a, t)
            before_b = await _standing(h, b.player_id)
            await a.send({"type": "leave"})
            await h.settle()
            assert await silver(h, a) == 10_000 - 8 * BASE * 10  # R11's escape penalty
            levels, profile, skill = await _standing(h, a.player_id)
            assert (levels, profile) == (0, 0)  # 5 − 16, floored at 0
            assert skill[0] < rating.MU
            assert await _standing(h, b.player_id) == before_b
            async with h.store.sessions() as s:
                rows = await s.execute(select(SkillRow).where(SkillRow.player_id == b.player_id))
                assert rows.first() is None  # not even a row made for it by another's leave
            await audit(h)

    asyncio.run(main())
