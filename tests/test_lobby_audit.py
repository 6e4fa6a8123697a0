"""The lobby's money, audited (docs/economy.md): ``fjmj admin audit`` (``economy.audit``)
stays clean and silver is conserved after random sequences of quick matches, 救济金 relief
claims, admin changes, new days and private matches with 解散房间 votes — agreed (mid-hand,
inside a claim pause or between hands), refused or lapsed, some followed by a leaver — on
SQLite and on PostgreSQL (the ``db_url`` fixture; CI requires PostgreSQL).

In-process (tests/inproc.py: the real app, a fake clock, a fixed deal seed per example);
the helpers and the room configuration are tests/test_lobby_rooms.py's."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from fujian_mahjong.server.deals import FixedDeals
from fujian_mahjong.server.social import DISSOLVE_S
from fujian_mahjong.server.store import MatchRow
from fujian_mahjong.server.store.economy_models import SettlementRow
from tests.inproc import Client, Harness, running
from tests.test_lobby_rooms import (
    CHEAP,
    _fields,
    account,
    audit_ok,
    bearer,
    fresh_db,
    op_admin,
    op_broke,
    op_day,
    op_quick,
    op_relief,
    play_match,
    room_config,
    run_lobby_op,
)

# a private table's stakes (within the configuration's [tables] stake_max = 50)
PRIVATE = {"profile": "fuzhou-tcy", "hands": 2, "private": True, "stake": 3, "base": 1, "fee": 1}

op_dissolve = st.tuples(
    st.just("dissolve"),
    st.sampled_from([(0, 1), (1, 2), (2, 0)]),  # the two accounts seated
    st.integers(0, 25),  # seconds played (both under 托管) before the proposal
    st.sampled_from(["agree", "refuse", "expire"]),
    st.booleans(),  # who proposes: the first or the second
    st.booleans(),  # after a vote that keeps the match, the proposer then leaves mid-hand
)


# a vote that every seated human accepts, three seconds into the match
AGREED = ("dissolve", (0, 1), 3, "agree", False, False)

# hand_end messages each player has answered with ``ready`` (cleared per private match)
READIED: dict[int, int] = {}


async def keep_ready(h: Harness, clients: list[Client], seconds: float) -> None:
    """Let the fake clock run ``seconds`` with both players under 托管, ready for each
    next hand, so the match goes on by itself (mid-hand, pauses, between hands)."""
    for _ in range(round(seconds)):
        for c in clients:
            if c.of_type("table_closed"):
                continue
            ends = len(c.of_type("hand_end"))
            if ends > READIED.get(c.player_id, 0):
                READIED[c.player_id] = ends
                await c.send({"type": "ready"})
                await c.send({"type": "auto", "on": True})
        await h.advance(1.0)


async def private_match(h: Harness, accts: list[Client], op: tuple[Any, ...]) -> None:
    _, (i, j), delay, outcome, second_proposes, leaves = op
    a, b = accts[i], accts[j]
    r = await h.http.post("/api/tables", json=PRIVATE, headers=bearer(a))
    assert r.status_code == 200, r.text
    tid, code = int(r.json()["id"]), r.json()["code"]
    await h.settle()
    for c in (a, b):
        c.rec.messages.clear()
        c.read = 0
        READIED.pop(c.player_id, None)
    await h.seat(a, tid)
    await h.seat(b, code)
    if not (a.last("seated") and b.last("seated")):
        event("dissolve: a player's balance is below the table's minimum")
        for c in (a, b):
            if c.last("seated"):
                await c.send({"type": "leave"})
        return
    for _ in range(2):
        assert (await h.http.post(f"/api/tables/{tid}/bots", headers=bearer(a))).status_code == 200
    await h.ready(a, b)
    for c in (a, b):
        await c.send({"type": "auto", "on": True})
    await keep_ready(h, [a, b], delay)
    proposer, other = (b, a) if second_proposes else (a, b)
    before = len(proposer.errors())
    await proposer.send({"type": "dissolve", "accept": True})
    if len(proposer.errors()) > before:
        # the match is over already (two hands played), or it is being closed
        assert proposer.errors()[-1] in ("not_now", "not_joined", "table_closed")
        event(f"dissolve: refused with {proposer.errors()[-1]}")
    elif outcome == "agree":
        await other.send({"type": "dissolve", "accept": True})
        for _ in range(600):
            if proposer.of_type("table_closed"):
                break
            await h.advance(0.25)
        end = proposer.last("match_end")
        assert end is not None, proposer.messages[-5:]
        if end.get("dissolved"):
            event(f"dissolved with {'a hand void' if proposer.of_type('hand_void') else 'no hand'}")
        else:
            # agreed while the last hand's end was decided (a win held by the claim pause):
            # that hand ends and is settled as decided, and with it the match
            # (docs/protocol.md); nothing was voided
            assert end["hands_played"] == PRIVATE["hands"] and end["leaver"] is None, end
            assert not proposer.of_type("hand_void"), proposer.of_type("hand_void")
            event("dissolution agreed as the last hand ended: the match finished")
    else:
        if outcome == "refuse":
            await other.send({"type": "dissolve", "accept": False})
        else:
            await keep_ready(h, [a, b], DISSOLVE_S + 1)
        last = proposer.of_type("dissolve")[-1]
        assert last["outcome"] in ("refused", "expired") or proposer.of_type("match_end")
        event(f"vote {outcome}: the match goes on")
    if not (a.of_type("table_closed") and b.of_type("table_closed")):
        still = [c for c in (a, b) if not c.of_type("table_closed")]
        await play_match(h, still, proposer if leaves and proposer in still else None)
    await h.advance(200.0)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    ops=st.lists(
        st.one_of(op_dissolve, op_quick, op_relief, op_broke, op_admin, op_day),
        min_size=1,
        max_size=4,
    ),
    dissolve=op_dissolve,
    at=st.integers(0, 4),
    seed=st.text("abcdef", min_size=1, max_size=6),
)
# every run includes one agreed dissolution mid-match (the random ones may all be refused)
@example(ops=[("relief", 0)], dissolve=AGREED, at=0, seed="a")
def test_audit_clean_after_relief_dissolve_votes_and_quick_matches(
    db_url: str, ops: list[tuple[Any, ...]], dissolve: tuple[Any, ...], at: int, seed: str
) -> None:
    ops = [*ops[:at], dissolve, *ops[at:]]  # at least one private match with a vote

    async def main() -> None:
        tmp = Path(tempfile.mkdtemp(prefix="fjmj-lobby-audit-"))
        cfg = room_config()
        cfg["rooms"] = tuple(
            r if r.id != CHEAP else type(r)(**{**_fields(r), "hands": 1}) for r in cfg["rooms"]
        )
        async with (
            fresh_db(db_url, tmp) as url,
            running(tmp, db_url=url, deals=FixedDeals(seed, dealer=0), **cfg) as h,
        ):
            accts = [await account(h, f"p{i}") for i in range(3)]
            guest = await h.guest("g")
            for op in ops:
                if op[0] == "dissolve":
                    await private_match(h, accts, op)
                else:
                    await run_lobby_op(h, accts, guest, op)
            rep = await audit_ok(h)
            # every dissolved match is recorded, and each void hand it left charged nobody
            async with h.store.sessions() as s:
                matches = (
                    await s.execute(select(MatchRow.status).where(MatchRow.status == "dissolved"))
                ).all()
                notes = [
                    d
                    for (d,) in await s.execute(
                        select(SettlementRow.detail).where(SettlementRow.kind == "void")
                    )
                    if d.get("dissolved")
                ]
            assert rep.dissolved == len(notes) <= len(matches)
            if dissolve == AGREED and seed == "a":
                assert rep.dissolved >= 1 and matches  # the example above
            assert all(d["penalty"] == d["fee"] == 0 and d["leaver"] is None for d in notes)

    asyncio.run(main())
