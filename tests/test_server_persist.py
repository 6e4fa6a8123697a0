"""Persistence on SQLite and on PostgreSQL (issue 11 item 8): one human and three bots play
a whole match; SIGKILL mid-hand, restart, reconnect and finish, and the log verifies with
`fjmj replay` with no event lost or stored twice."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fujian_mahjong.tiles import parse
from tests.test_server_support import Client, Server, fetch_log, play, spy, verify_with_cli


def test_one_human_and_three_bots_play_a_whole_match(db_url: str, tmp_path: Path) -> None:
    server = Server(tmp_path, db=db_url).start()
    try:
        g = server.guest("solo")
        t = server.table(g["token"], bots=3, hands=2, turn_seconds=30)

        async def main() -> tuple[Client, list[dict], dict]:
            c = await Client(server.ws_url, g["token"]).connect()
            await c.hello_join(t["id"], ready=True)
            ends = [await play(c)]
            await c.send({"type": "next"})  # the next hand only when every human is ready
            ends.append(await play(c))
            me = await c.expect("match_end")
            await c.close()
            return c, ends, me

        c, ends, me = asyncio.run(main())
        assert [e["number"] for e in ends] == [0, 1]
        assert ends[1]["match_over"] and me["hands_played"] == 2
        # totals are the sums of each hand's payments (R10, R9)
        pays = [e["score"]["payments"] for e in ends]
        assert me["totals"] == [a + b for a, b in zip(*pays, strict=True)]
        logs = {e["hand"]: fetch_log(server, e["hand"]) for e in ends}
        assert spy(c, logs, c.seat, 30) > 5
        for e in ends:
            verify_with_cli(server, e["hand"], tmp_path)
        info = server.get(f"/api/tables/{t['id']}").json()
        assert info["status"] == "closed"
    finally:
        server.stop()


def test_sigkill_mid_hand_then_restart_reconnect_and_finish(db_url: str, tmp_path: Path) -> None:
    server = Server(tmp_path, db=db_url).start()
    g = [server.guest("a"), server.guest("b")]

    async def first(table: int) -> tuple[int, list[Client]]:
        cs = [await Client(server.ws_url, x["token"]).connect() for x in g]
        for c in cs:
            await c.hello_join(table, ready=True)
        # the humans act until one of them has acted three times; then the server dies
        # without warning (waiting for both could wait for the other's deadline)
        tasks = [asyncio.create_task(play(c, stop_after=3)) for c in cs]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        await asyncio.sleep(0.2)
        hand = cs[0].states()[-1]["hand"]
        return hand, cs

    try:
        for _ in range(5):
            t = server.table(g[0]["token"], bots=2, hands=1, turn_seconds=30)
            hand_id, before = asyncio.run(first(t["id"]))
            if server.get(f"/api/tables/{t['id']}").json()["status"] == "playing":
                break  # (a bot may have won already: then another table)
    finally:
        server.kill()  # SIGKILL: no shutdown code runs
    server.start()  # same data dir / database: every unfinished hand is restored

    async def second() -> tuple[list[Client], list[dict]]:
        cs = [await Client(server.ws_url, x["token"]).connect() for x in g]
        for c in cs:
            await c.hello_join(t["id"])
        # a seat not asked in an open claim window gets its state when the window closes
        ends = await asyncio.gather(*(play(c) for c in cs))
        for c in cs:
            await c.close()
        return cs, [c.states()[0] for c in cs] + list(ends)

    try:
        after, got = asyncio.run(second())
        resumed = got[:2]
        ends = got[2:]
        assert all(s["hand"] == hand_id for s in resumed)
        assert all(e["hand"] == hand_id for e in ends)
        events = fetch_log(server, hand_id)
        # the resumed view continues what the seat saw before the crash
        for old, new, st in zip(before, after, resumed, strict=True):
            seen = [s["view"] for s in old.states()]
            assert len(st["view"]["discards"][0]) >= len(seen[-1]["discards"][0])
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
        assert len(acts) >= 6
    finally:
        server.stop()
