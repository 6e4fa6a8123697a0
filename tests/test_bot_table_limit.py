"""Bot-only tables per player (``bot_tables_per_player``, ``fjmj serve
--bot-tables-per-player``; docs/protocol.md): a table with a bot at every seat starts at
once and plays at the server's cost, so a player may keep only so many going; the next one
is refused with 409 ``too_many_tables`` and nothing is made, whether it is asked for
at once or by adding a bot to the last free seat. Tables with a seat for a human
are not counted, and a bot-only table that has ended frees its place. In-process on a fake
clock (tests/inproc.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.inproc import running


def test_bot_only_tables_are_limited_per_player(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, bot_tables_per_player=2) as h:
            a, b = await h.guest("ann"), await h.guest("bob")
            auth = {"Authorization": f"Bearer {a.token}"}
            first = await h.table(a, bots=4, hands=1)
            await h.table(a, bots=4, hands=1)
            three = await h.table(a, bots=3, hands=1)  # a seat for a human: not counted
            before = set(h.lobby.tables)
            r = await h.http.post("/api/tables", json={"bots": 4}, headers=auth)
            assert r.status_code == 409, r.text
            assert r.json()["code"] == "too_many_tables"
            assert set(h.lobby.tables) == before  # nothing made
            # nor by filling the last seat of a table with a bot
            r = await h.http.post(f"/api/tables/{three}/bots", headers=auth)
            assert r.status_code == 409, r.text
            assert r.json()["code"] == "too_many_tables"
            assert sum(s.bot for s in h.lobby.tables[three].seats) == 3
            await h.table(b, bots=4, hands=1)  # another player's own count
            # the first table's one hand ends: its place is free again
            await h.advance(600.0)  # bots at full pace: one hand takes well under a minute
            assert first not in h.lobby.tables or h.lobby.tables[first].status == "closed"
            await h.table(a, bots=4, hands=1)

    asyncio.run(main())


def test_requests_at_the_same_moment_cannot_pass_the_limit_together(tmp_path: Path) -> None:
    """Twelve ``POST /api/tables`` for bot-only tables at once: two are made, the rest
    409 ``too_many_tables``; four last bots added at once to another player's tables: two. Before, each request
    counted the tables that existed, then waited on the store to make its own: all twelve
    were made (30 of 30 in a helper's repro against a limit of 10)."""

    async def main() -> None:
        async with running(tmp_path, bot_tables_per_player=2) as h:
            a = await h.guest("ann")
            auth = {"Authorization": f"Bearer {a.token}"}
            made = await asyncio.gather(
                *(
                    h.http.post("/api/tables", json={"bots": 4, "hands": 4}, headers=auth)
                    for _ in range(12)
                )
            )
            codes = sorted(r.status_code for r in made)
            assert codes == [200] * 2 + [409] * 10, codes
            assert {r.json()["code"] for r in made if r.status_code == 409} == {"too_many_tables"}
            assert h.lobby.bot_tables_of(a.player_id) == 2
            assert not h.lobby.bot_tables_making  # nothing left counted
            # another player's four tables with three bots, each completed by its last bot at
            # the same moment: two of them
            b = await h.guest("bob")
            threes = [await h.table(b, bots=3, hands=4) for _ in range(4)]
            added = await asyncio.gather(
                *(
                    h.http.post(
                        f"/api/tables/{t}/bots", headers={"Authorization": f"Bearer {b.token}"}
                    )
                    for t in threes
                )
            )
            assert sorted(r.status_code for r in added) == [200, 200, 409, 409]
            assert h.lobby.bot_tables_of(b.player_id) == 2
            assert not h.lobby.bot_tables_making

    asyncio.run(main())
