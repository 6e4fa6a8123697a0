"""R11: the minimum balance to sit is asked again between hands (docs/economy.md, "Between
hands"). An account that lost everything would otherwise play the rest of the match for
nothing: it pays only what it has (R11) and wins in full. So when a hand ends and the match
goes on, a seat whose account is now below the table's minimum ends the match — as leaving
between hands does, at no cost (R9) — and ``match_end`` names it in ``short``.

In-process on the fake clock (tests/inproc.py), on a stacked wall: the dealer may declare
天胡 at the deal (tests/test_audit_server.py's ``heaven_wall``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import func, select

from fujian_mahjong.server import economy
from fujian_mahjong.server.deals import StackedDeals
from fujian_mahjong.server.store.models import HandRow
from tests.inproc import Client, Harness, running
from tests.test_audit_server import heaven_wall
from tests.test_house_economy import account, audit, silver

# one hand at most costs stake × cap (+ fee): the table's floor for its minimum balance
STAKES = {"stake": 100, "cap": 10, "base": 1, "min_balance": 1000}


async def _with(h: Harness, name: str, balance: int) -> Client:
    c = await account(h, name)
    async with h.store.write() as s:
        await economy.admin_adjust(s, c.player_id, balance - 10_000, "test")
    return c


async def _hands(h: Harness, tid: int) -> int:
    async with h.store.sessions() as s:
        n = await s.scalar(select(func.count()).select_from(HandRow).where(HandRow.table_id == tid))
    return int(n or 0)


async def _table(h: Harness, dealer: Client, other: Client, **extra: object) -> int:
    """Two accounts (dealer first: seat 0) and two bots, for silver, three hands."""
    tid = await h.table(dealer, bots=2, hands=3, **{**STAKES, **extra})
    await h.seat(dealer, tid)
    await h.seat(other, tid)
    return tid


def test_an_account_below_the_minimum_after_a_hand_ends_the_match(tmp_path: Path) -> None:
    """R11, R9: seat 1 sits with exactly the minimum and pays for the dealer's 天胡: the
    match ends after that hand, at no cost, and nobody is a leaver."""

    async def main() -> None:
        async with running(tmp_path, deals=StackedDeals([heaven_wall()], dealer=0)) as h:
            anna, bo = await _with(h, "anna", 50_000), await _with(h, "bobo", 1000)
            tid = await _table(h, anna, bo)
            await h.ready(anna, bo)
            assert [a["type"] for a in anna.legal] == ["win", "pass"]
            await anna.send({"type": "act", "seq": anna.state["seq"], "action": {"type": "win"}})
            await h.advance(10.0)  # the claim pause, then the hand's end
            end = bo.last("hand_end")
            assert end["match_over"] is False  # the match had two hands to go
            assert end["silver"][1]["balance"] < 1000
            for c in (anna, bo):
                m = c.last("match_end")
                assert m["short"] == [1] and m["leaver"] is None and m["hands_played"] == 1
                assert c.last("table_closed")["reason"] == "short of silver"
                assert not c.of_type("hand_void")
            assert tid not in h.lobby.tables
            # leaving between hands costs nothing: no escape penalty, no further fee
            assert await silver(h, bo) == end["silver"][1]["balance"]
            assert await _hands(h, tid) == 1
            await audit(h)

    asyncio.run(main())


def test_the_minimum_is_asked_again_before_the_next_deal(tmp_path: Path) -> None:
    """R11: a balance that fell below the minimum after the hand's end (an operator's
    adjustment here; a restart can come between the hand's end and the next deal) is found
    before the next hand is dealt: no hand is dealt, the match ends."""

    async def main() -> None:
        async with running(tmp_path, deals=StackedDeals([heaven_wall()], dealer=0)) as h:
            anna, bo = await _with(h, "anna", 50_000), await _with(h, "bobo", 50_000)
            tid = await _table(h, anna, bo)
            await h.ready(anna, bo)
            await anna.send({"type": "act", "seq": anna.state["seq"], "action": {"type": "win"}})
            await h.advance(10.0)
            assert not bo.of_type("match_end")  # enough left: the match goes on
            async with h.store.write() as s:
                await economy.admin_adjust(s, bo.player_id, 999 - await silver(h, bo), "test")
            await h.ready(anna, bo)
            await h.advance(1.0)
            assert bo.last("match_end")["short"] == [1]
            assert await _hands(h, tid) == 1  # the second hand was never dealt
            await audit(h)

    asyncio.run(main())


def test_a_practice_table_and_a_table_for_points_go_on(tmp_path: Path) -> None:
    """Practice (练习: one account with bots, nothing moves) and a table for points only
    ask nothing between hands: their matches go on at any balance."""

    async def main() -> None:
        async with running(tmp_path, deals=StackedDeals([heaven_wall()], dealer=0)) as h:
            anna = await _with(h, "anna", 1000)
            practice = await h.table(anna, bots=3, hands=2, **STAKES)
            await h.seat(anna, practice)
            bo = await _with(h, "bobo", 0)
            cy = await _with(h, "cyan", 0)
            points = await _table(h, bo, cy, stake=0, min_balance=0)
            await h.ready(anna, bo, cy)
            for c in (anna, bo):  # each the dealer of its own table's 天胡
                await c.send({"type": "act", "seq": c.state["seq"], "action": {"type": "win"}})
            async with h.store.write() as s:  # below every minimum
                await economy.admin_adjust(s, anna.player_id, -1000, "test")
            await h.advance(10.0)
            await h.ready(anna, bo, cy)
            await h.advance(1.0)
            for c in (anna, bo, cy):
                assert c.of_type("hand_end") and not c.of_type("match_end")
            assert await _hands(h, practice) == 2 and await _hands(h, points) == 2

    asyncio.run(main())
