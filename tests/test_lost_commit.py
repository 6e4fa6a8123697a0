"""A commit whose acknowledgement is lost (docs/architecture.md, "Faults"): the database
committed, the connection dropped inside COMMIT, and the server was told it failed — which
PostgreSQL cannot rule out. The table retries the same write; the store finds it stored
(the same events, the same hand) and takes it as committed. Whichever write it was — a
plain append of events, a hand's end with its settlement, the next hand's row, the
match's row — the match
plays to its end, every hand's log verifies (R12), nothing is stored twice and the silver
is settled once a hand (R11: the audit's conservation law). Before, the retry's duplicate
key refused that table's writes, and those of every table sharing its transactions, for
good.

In-process on the fake clock with fixed deals (tests/inproc.py); the player plays by 托管
at a room table whose bots play for the house, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from fujian_mahjong.engine import replay
from fujian_mahjong.server.rooms import parse_config
from fujian_mahjong.server.store import MatchRow
from fujian_mahjong.server.store.economy_models import SettlementRow
from tests.inproc import Harness, running
from tests.test_house_economy import CONFIG, ROOM, account, audit, bearer, play_out


def _arm(h: Harness, which: str) -> None:
    """Lose the acknowledgement of the first write of this kind: ``events`` (a plain
    append, 30 events into the first hand), ``end`` (the first hand's end: its events,
    status, match record and settlement in one transaction), ``deal`` (the second hand's
    row), ``match`` (the match's row)."""
    store = h.store
    append, create, start = store.append_events, store.create_hand, store.create_match
    hands = [0]

    async def appending(
        hand_id: int, start: int, events: Any, finish: dict[str, Any] | None = None
    ) -> None:
        if not h.faults.lost and not h.faults.armed:
            if which == "events" and finish is None and start >= 30:
                h.faults.lose_ack()
            if which == "end" and finish is not None:
                h.faults.lose_ack()
        await append(hand_id, start, events, finish)

    async def creating(*args: Any, **kw: Any) -> int:
        hands[0] += 1
        if which == "deal" and hands[0] == 2 and not h.faults.lost:
            h.faults.lose_ack()
        return int(await create(*args, **kw))

    async def starting(*args: Any, **kw: Any) -> int:
        if which == "match" and not h.faults.lost:
            h.faults.lose_ack()
        return int(await start(*args, **kw))

    store.append_events = appending  # type: ignore[method-assign]
    store.create_hand = creating  # type: ignore[method-assign]
    store.create_match = starting  # type: ignore[method-assign]


@pytest.mark.parametrize("which", ["events", "end", "deal", "match"])
def test_a_lost_commit_acknowledgement_is_survived(which: str, db_url: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, db_url=db_url, **parse_config(CONFIG)) as h:
            a = await account(h, "alice")
            r = await h.http.post("/api/quickmatch", json={"room": ROOM}, headers=bearer(a))
            assert r.status_code == 200, r.text
            tid = r.json()["table"]
            await h.seat(a, tid)
            _arm(h, which)
            await h.advance(8.5)  # the room's wait: bots fill, the hand starts
            await play_out(h, a)
            assert h.faults.lost == 1, "the write was reached and its acknowledgement lost"
            # the table told the player the store failed, then recovered, and played on
            states = [m["store"] for m in a.of_type("status")]
            assert states[:1] == ["failing"] and states[-1] == "ok", states
            ends = a.of_type("hand_end")
            assert [e["number"] for e in ends] == [0, 1, 2]  # the room's three hands
            assert a.of_type("match_end")
            for e in ends:
                got = await h.http.get(f"/api/hands/{e['hand']}/log", params={"format": "json"})
                assert got.status_code == 200
                replay(got.json())  # every event once, in order; the seed verifies (R12)
            async with h.store.sessions() as s:
                settled = (
                    await s.execute(select(func.count()).select_from(SettlementRow))
                ).scalar()
            assert settled == 3  # one settlement a hand, none twice
            async with h.store.sessions() as s:
                matches = (
                    await s.execute(select(func.count()).where(MatchRow.table_id == tid))
                ).scalar()
            assert matches == 1  # not a second match of the same secret seed
            await audit(h)  # silver conserved, every transfer as the hands' payments say

    asyncio.run(main())


def test_the_store_sorts_a_retried_batch_out(db_url: str, tmp_path: Path) -> None:
    """``Store._in_doubt`` on its own, over three hands of one table: an append retried
    with more events than the lost commit held keeps only the new ones; an append whose
    events differ from the stored ones (not a retry: two writers) keeps its error; and an
    append of another hand in the same group commit goes through either way."""

    async def main() -> None:
        async with running(tmp_path, db_url=db_url) as h:
            me = await h.guest("me")
            tid = await h.table(me, bots=3)
            store = h.store
            match = await store.create_match(tid, 0, 4, "seed-m")
            hands = [
                await store.create_hand(match, tid, n, "fuzhou-tcy", 4, 0, 0, f"s{n}", "x", [])
                for n in range(3)
            ]

            def ev(k: int, tag: str = "") -> dict[str, Any]:
                return {"type": "draw", "seat": k % 4, "tile": "1m", "tag": tag}

            # a lost acknowledgement: events 0-3 of each hand are stored, the table told no
            for hid in hands:
                h.faults.lose_ack()
                with pytest.raises(OperationalError):
                    await store.append_events(hid, 0, [ev(k) for k in range(4)])
            assert h.faults.lost == 3
            # one group commit: a retry with two more (hand 0), a different event 2 (hand 1:
            # another writer), the next events of hand 2
            commits = store.commits
            results = await asyncio.gather(
                store.append_events(hands[0], 0, [ev(k) for k in range(6)]),
                store.append_events(hands[1], 0, [ev(0), ev(1), ev(2, "other"), ev(3)]),
                store.append_events(hands[2], 4, [ev(4), ev(5)]),
                return_exceptions=True,
            )
            assert results[0] is None and results[2] is None, results
            # the three went in one group commit (refused), then hands 0 and 2 in one more
            assert store.commits - commits == 1
            assert type(results[1]).__name__ == "IntegrityError", results
            from fujian_mahjong.server.store import get_hand_events

            async with store.sessions() as s:
                for hid, n in ((hands[0], 6), (hands[1], 4), (hands[2], 6)):
                    got = await get_hand_events(s, hid)
                    assert [e["seat"] for e in got] == [k % 4 for k in range(n)]
                    assert all(e.get("tag") == "" for e in got)  # hand 1's stored as it was

    asyncio.run(main())
