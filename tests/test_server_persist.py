"""Persistence on SQLite and on PostgreSQL (docs/architecture.md, "Persistence and crash
recovery").

In-process (tests/inproc.py, a fixed deal): one human and three bots play a whole match of
two hands; every message passes the spy and each hand's log verifies with `fjmj replay`.

A real `fjmj serve` process (the point here is the process dying): four humans play until
one of them has acted three times, never taking a win — with no bot at the table and every
human alive, nothing can end the hand, whatever the deal — then SIGKILL; after the restart
every human reconnects and the hand is finished; the log verifies with no event lost or
stored twice."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fujian_mahjong.server.deals import FixedDeals
from fujian_mahjong.tiles import parse
from tests.inproc import running
from tests.test_server_support import (
    Client,
    Server,
    fetch_log,
    play,
    spy,
    verify_with_cli,
)
from tests.test_table_support import fetch_log as fetch_log_inproc
from tests.test_table_support import guest, no_win, seat_of, table
from tests.test_table_support import play as play_inproc
from tests.test_table_support import spy as spy_inproc
from tests.test_table_support import verify_with_cli as verify_inproc


def test_one_human_and_three_bots_play_a_whole_match(db_url: str, tmp_path: Path) -> None:
    async def main() -> None:
        deals = FixedDeals("persist", dealer=0)
        async with running(tmp_path, db_url=db_url, deals=deals, operator_token="op") as h:
            r = await h.http.get("/api/metrics", headers={"Authorization": "Bearer op"})
            assert r.json()["database"] == ("postgresql" if db_url else "sqlite")
            me = await guest(h, "solo")
            tid = await table(h, me, bots=3, hands=2, turn_seconds=30)
            await h.seat(me, tid)
            await h.ready(me)
            await play_inproc(h, [me], until=lambda: len(me.of_type("hand_end")) == 1)
            assert not me.of_type("hand_start")[1:]  # the next hand only when I am ready
            await me.send({"type": "next"})
            await play_inproc(h, [me], until=lambda: bool(me.of_type("match_end")))
            ends = me.of_type("hand_end")
            m_end = me.last("match_end")
            assert m_end is not None
            assert [e["number"] for e in ends] == [0, 1]
            assert ends[1]["match_over"] and m_end["hands_played"] == 2
            # totals are the sums of each hand's payments (R10, R9)
            pays = [e["score"]["payments"] for e in ends]
            assert m_end["totals"] == [a + b for a, b in zip(*pays, strict=True)]
            logs = {e["hand"]: await fetch_log_inproc(h, e["hand"]) for e in ends}
            assert spy_inproc(me, logs, seat_of(me), 600) > 5
            for e in ends:
                await verify_inproc(h, e["hand"], tmp_path)
            info = (await h.http.get(f"/api/tables/{tid}")).json()
            assert info["status"] == "closed"

    asyncio.run(main())


async def _act_without_winning(c: Client, times: int) -> None:
    """Answer every state that asks something, never ending the hand, ``times`` times."""
    done = 0
    while done < times:
        m = await c.recv(60)
        if m["type"] == "state" and m["view"]["legal_actions"]:
            action = no_win(m["view"]["legal_actions"])
            await c.send({"type": "act", "seq": m["seq"], "action": action})
            done += 1


def test_sigkill_mid_hand_then_restart_reconnect_and_finish(db_url: str, tmp_path: Path) -> None:
    server = Server(tmp_path, db=db_url).start()
    try:
        g = [server.guest(f"p{i}") for i in range(4)]
        t = server.table(g[0]["token"], hands=1, turn_seconds=30)

        async def first() -> tuple[int, list[Client]]:
            cs = [await Client(server.ws_url, x["token"]).connect() for x in g]
            for c in cs:
                await c.hello_join(t["id"], ready=True)
            # the humans act until one of them has acted three times; then the server dies
            # without warning (waiting for all could wait for another's deadline)
            tasks = [asyncio.create_task(_act_without_winning(c, 3)) for c in cs]
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()
            for task in pending:
                task.cancel()
            hand = cs[0].states()[-1]["hand"]
            return hand, cs

        hand_id, before = asyncio.run(first())
        # nothing could have ended the hand: it is still being played
        assert server.get(f"/api/tables/{t['id']}").json()["status"] == "playing"
    finally:
        server.kill()  # SIGKILL: no shutdown code runs
    server.start()  # same data dir / database: every unfinished hand is restored

    async def second() -> tuple[list[Client], list[dict[str, Any]], list[dict[str, Any]]]:
        cs = [await Client(server.ws_url, x["token"]).connect() for x in g]
        for c in cs:
            await c.hello_join(t["id"])
        # a seat not asked in an open claim window gets its state when the window closes
        ends = await asyncio.gather(*(play(c) for c in cs))
        for c in cs:
            await c.close()
        return cs, [c.states()[0] for c in cs], [e for e in ends if e is not None]

    try:
        after, resumed, ends = asyncio.run(second())
        assert [c.seat for c in after] == [c.seat for c in before]
        assert all(s["hand"] == hand_id for s in resumed)
        assert len(ends) == 4 and all(e["hand"] == hand_id for e in ends)
        events = fetch_log(server, hand_id)
        # the resumed view continues what the seat saw before the crash
        for old, new, st in zip(before, after, resumed, strict=True):
            seen = [s["view"] for s in old.states()]
            for old_river, new_river in zip(
                seen[-1]["discards"], st["view"]["discards"], strict=True
            ):
                a, b = parse(old_river), parse(new_river)
                # the river only grows (its last tile may have been claimed since)
                assert b[: len(a)] == a or b[: len(a) - 1] == a[:-1]
            spy(new, {hand_id: events}, new.seat)
            spy(old, {hand_id: events}, old.seat)
        # no event lost or duplicated: the stored log replays exactly (R12)
        verify_with_cli(server, hand_id, tmp_path)
        acts = [e for e in events if e["type"] == "act"]
        assert len(acts) >= 3 + 3  # three acts of one seat before the kill, more after
    finally:
        server.stop()
