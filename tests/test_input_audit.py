"""Requests a hostile or hurried client can send (a helper's audit of every REST endpoint and
WebSocket message), each answered with a clear refusal that changes nothing:

- a seated player who joins its own table again as a spectator (its seat would be left with
  no connection and no grace period: never a leaver, R11's escape penalty dodged, and the
  table waiting for its 准备 for ever);

In-process on the fake clock (tests/inproc.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.inproc import running
from tests.test_house_economy import account, bearer, silver


def test_a_seated_player_cannot_turn_spectator_to_dodge_the_escape_penalty(
    tmp_path: Path,
) -> None:
    """R11: mid-hand, alice's socket asks to watch her own table: ``not_now``, her seat
    keeps its connection. She then leaves, as a leaver: the hand is void, she pays the
    escape penalty (8 × base × stake), the match ends and the table closes."""

    async def main() -> None:
        async with running(tmp_path, grace_s=10.0) as h:
            a, b = await account(h, "alice"), await account(h, "bobby")
            r = await h.http.post(
                "/api/tables",
                json={"stake": 5, "bots": 2, "hands": 2, "turn_seconds": 60},
                headers=bearer(a),
            )
            tid = int(r.json()["id"])
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.ready(a, b)
            await h.advance(5.0)
            t = h.lobby.tables[tid]
            seat = t.seat_of(a.player_id)
            assert seat is not None and t.status == "playing"
            before = await silver(h, a)
            await a.send({"type": "join", "table": tid, "as": "spectator"})
            assert a.errors() == ["not_now"]
            assert t.seats[seat].conn is a.conn and a.conn.seat == seat  # nothing changed
            await a.send({"type": "leave"})
            await a.disconnect()
            await h.advance(30.0)
            assert b.of_type("hand_void") and b.last("hand_void")["leaver"] == seat
            assert b.of_type("match_end") and t.status == "closed"
            assert before - await silver(h, a) == 8 * 1 * 5  # the escape penalty, no fee set

    asyncio.run(main())
