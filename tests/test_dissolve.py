"""解散房间: dissolving a private match by vote (docs/protocol.md, docs/economy.md;
server/social.py, economy.record_dissolution).

In-process (tests/inproc.py: the real app, a fake clock, a fixed deal seed), with two
registered accounts and two bots at a private table that has a stake and a fee: the vote of
every seated human ends the match, the hand in progress is void, nobody pays an escape
penalty or a fee (R11's rule for a void hand), and the ledger, the settlement and the match
history say so, with ``fjmj admin audit`` clean; a refusal and a timeout keep the match
going; public tables, spectators and votes out of turn are refused with a code."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fujian_mahjong.server import economy
from fujian_mahjong.server import visibility as vis
from fujian_mahjong.server.protocol import server_message
from fujian_mahjong.server.social import DISSOLVE_S, PROPOSE_COOLDOWN_S
from fujian_mahjong.server.store import HandRow, MatchRow
from fujian_mahjong.server.store.economy_models import LedgerRow, SettlementRow
from tests.inproc import Client, Harness, running

STAKES = {"stake": 10, "base": 1, "fee": 5}
GRANT = 10_000


async def account(h: Harness, name: str) -> Client:
    r = await h.http.post("/api/accounts", json={"name": name, "password": "long enough"})
    assert r.status_code == 201, r.text
    a = r.json()
    c = Client(h, a["name"], a["token"], a["player_id"])
    await c.send({"type": "hello", "token": c.token})
    return c


def bearer(c: Client) -> dict[str, str]:
    return {"Authorization": f"Bearer {c.token}"}


async def silver(h: Harness, c: Client) -> int:
    return int((await h.http.get("/api/me", headers=bearer(c))).json()["silver"])


async def two_humans_two_bots(
    h: Harness, private: bool = True, hands: int = 4
) -> tuple[int, Client, Client, Client]:
    """A table with stakes: accounts A (seat 0) and B (seat 1), bots at seats 2 and 3, a
    guest watching; the first hand is dealt."""
    a, b, s = await account(h, "Anna"), await account(h, "Bo"), await h.guest("看客")
    r = await h.http.post(
        "/api/tables",
        json={"profile": "fuzhou-tcy", "hands": hands, "private": private, **STAKES},
        headers=bearer(a),
    )
    assert r.status_code == 200, r.text
    tid, code = int(r.json()["id"]), r.json()["code"]
    await h.settle()
    await h.seat(a, tid)
    await h.seat(b, code)
    await h.seat(s, code, as_="spectator")
    for _ in range(2):
        r = await h.http.post(f"/api/tables/{tid}/bots", headers=bearer(a))
        assert r.status_code == 200, r.text
    await h.ready(a, b)
    assert a.of_type("hand_start") and h.lobby.find(tid).hand is not None
    for c in (a, b, s):
        c.new()
    return tid, a, b, s


async def agreed_inside_the_pause(h: Harness) -> tuple[int, Client, Client, Client]:
    """Two humans and two bots; both accept 解散 inside the pause after the deal: told at
    once, held back by the pause (no hand_void yet)."""
    tid, a, b, s = await two_humans_two_bots(h)
    t = h.lobby.find(tid)
    assert h.clock.now() < t.hand.hold_until  # the pause after the deal
    await a.send({"type": "dissolve", "accept": True})
    await b.send({"type": "dissolve", "accept": True})
    assert votes_of(s)[-1]["outcome"] == "dissolved"
    assert not s.of_type("hand_void")  # held back by the pause
    return tid, a, b, s


def votes_of(c: Client) -> list[dict[str, Any]]:
    return [m for m in c.messages if m["type"] == "dissolve"]


async def until_closed(h: Harness, *clients: Client, limit: float = 600.0) -> None:
    waited = 0.0
    while not all(c.of_type("table_closed") for c in clients):
        assert waited < limit, "the table did not close"
        await h.advance(0.25)
        waited += 0.25


async def audit(h: Harness) -> economy.AuditReport:
    async with h.store.sessions() as s:
        rep = await economy.audit(s)
    assert rep.ok, rep.problems
    assert rep.conserved()
    return rep


# ---------------------------------------------------------------------------- agreed


def test_a_vote_dissolves_a_private_match_without_penalty_or_fee(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            tid, a, b, s = await two_humans_two_bots(h)
            t = h.lobby.find(tid)
            hand_id = t.hand.id
            await a.send({"type": "dissolve", "accept": True})
            for c in (a, b, s):
                (m,) = votes_of(c)
                server_message.validate_python(m)
                assert m["votes"] == {"0": True, "1": None}  # bots have no vote
                assert m["deadline_ms"] == int(DISSOLVE_S * 1000)
                assert m["proposer"] == 0 and m["outcome"] is None and m["table"] == tid
            # a second accept by the proposer changes nothing; B's acceptance agrees it
            await a.send({"type": "dissolve", "accept": True})
            await b.send({"type": "dissolve", "accept": True})
            assert votes_of(s)[-1]["votes"] == {"0": True, "1": True}
            assert votes_of(s)[-1]["outcome"] == "dissolved"
            assert votes_of(s)[-1]["deadline_ms"] is None
            # no more votes once agreed
            await b.send({"type": "dissolve", "accept": False})
            assert b.errors() == ["not_now"]
            await until_closed(h, a, b, s)
            for c in (a, b, s):
                types = [m["type"] for m in c.messages]
                void = c.last("hand_void")
                end = c.last("match_end")
                assert void is not None and end is not None, types
                assert types.index("hand_void") < types.index("match_end")
                assert void["hand"] == hand_id and void["leaver"] is None and void["dissolved"]
                assert void["silver"] == [None] * 4  # nobody pays anything
                assert end["dissolved"] is True and end["leaver"] is None
                assert end["hands_played"] == 0 and end["totals"] == [0] * 4
                assert end["history"] == []
                assert c.last("table_closed")["reason"] == "dissolved"
                assert not c.of_type("hand_end")
            # no escape penalty, no fee: the balances are the grants
            assert await silver(h, a) == GRANT and await silver(h, b) == GRANT
            async with h.store.sessions() as db:
                kinds = (await db.execute(select(LedgerRow.kind))).scalars().all()
                assert sorted(kinds) == ["starting_grant", "starting_grant"]
                kind, detail = (
                    await db.execute(
                        select(SettlementRow.kind, SettlementRow.detail).where(
                            SettlementRow.hand_id == hand_id
                        )
                    )
                ).one()
                assert kind == "void" and detail["dissolved"] is True
                assert detail["votes"] == {"0": True, "1": True}
                assert detail["leaver"] is None and detail["penalty"] == detail["fee"] == 0
                assert (await db.get(HandRow, hand_id)).status == "void"
                match = (
                    await db.execute(select(MatchRow).where(MatchRow.table_id == tid))
                ).scalar_one()
                assert match.status == "dissolved" and match.leaver is None
            r = await h.http.get(f"/api/tables/{tid}", headers=bearer(a))
            assert r.json()["status"] == "closed"
            rep = await audit(h)
            assert rep.voids == 1 and rep.dissolved == 1 and rep.escapes_burned == 0
            assert rep.fees_burned == 0

    asyncio.run(main())


def test_dissolving_between_hands_keeps_the_hands_played(tmp_path: Path) -> None:
    """After a finished (settled, fee paid) hand the vote ends the match at once: the
    finished hand stands in the totals and the history, nothing else is charged."""

    async def main() -> None:
        async with running(tmp_path) as h:
            tid, a, b, s = await two_humans_two_bots(h)
            for c in (a, b):
                await c.send({"type": "auto", "on": True})
            for _ in range(4000):
                if a.of_type("hand_end"):
                    break
                await h.advance(0.5)
            end = a.last("hand_end")
            assert end is not None and not end["match_over"]
            assert h.lobby.find(tid).status == "between"
            # each seat's balance as its own hand_end said it
            after = [await silver(h, a), await silver(h, b)]
            told = [c.last("hand_end")["silver"][i]["balance"] for i, c in enumerate((a, b))]
            assert after == told
            await b.send({"type": "dissolve", "accept": True})
            await a.send({"type": "dissolve", "accept": True})
            for c in (a, b, s):
                m = c.last("match_end")
                assert m is not None and m["dissolved"] and m["hands_played"] == 1
                assert m["totals"] == end["totals"] and len(m["history"]) == 1
                assert c.of_type("hand_void") == []
                assert c.last("table_closed")["reason"] == "dissolved"
                # the match's silver, its one hand's lines (the balance to its seat only)
                hand = end["silver"]
                assert [x and x["change"] for x in m["silver"]] == [x and x["change"] for x in hand]
                assert [x and x["fees"] for x in m["silver"]][:2] == [STAKES["fee"]] * 2
            assert a.last("match_end")["silver"][0]["balance"] == after[0]
            assert "balance" not in a.last("match_end")["silver"][1]
            assert all(x is None or "balance" not in x for x in s.last("match_end")["silver"])
            assert [await silver(h, a), await silver(h, b)] == after
            rep = await audit(h)
            assert rep.hands == 1 and rep.voids == 0 and rep.fees_burned == 2 * STAKES["fee"]

    asyncio.run(main())


def test_inside_a_claim_pause_the_dissolution_waits_for_its_end(tmp_path: Path) -> None:
    """R12: agreed inside a pause or an open window, the hand is voided only when neither is
    open (as seat lists wait), so its moment depends on nothing hidden."""

    async def main() -> None:
        async with running(tmp_path) as h:
            tid, a, b, s = await two_humans_two_bots(h)
            t = h.lobby.find(tid)
            hold = t.hand.hold_until
            assert h.clock.now() < hold  # the pause after the deal
            await a.send({"type": "dissolve", "accept": True})
            await b.send({"type": "dissolve", "accept": True})
            assert votes_of(s)[-1]["outcome"] == "dissolved"
            assert not s.of_type("hand_void") and not s.of_type("match_end")
            while not s.of_type("hand_void"):
                before = h.clock.now()
                g = t.hand.game if t.hand is not None else None
                quiet = g is not None and vis.quiet(True, before, t.hand.hold_until, g.phase)
                await h.advance(0.25)
                if s.of_type("hand_void"):
                    # the previous check saw the table quiet at most a recheck ago
                    assert h.clock.now() >= hold
                else:
                    assert quiet or g is None
            await until_closed(h, a, b, s)
            assert s.last("match_end")["dissolved"]
            await audit(h)

    asyncio.run(main())


# ---------------------------------------------------------------------------- kept


def test_a_refusal_keeps_the_match(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            tid, a, b, s = await two_humans_two_bots(h)
            t = h.lobby.find(tid)
            hand_id = t.hand.id
            await a.send({"type": "dissolve", "accept": True})
            await b.send({"type": "dissolve", "accept": False})
            for c in (a, b, s):
                last = votes_of(c)[-1]
                assert last["outcome"] == "refused" and last["deadline_ms"] is None
                assert last["votes"] == {"0": True, "1": False}
            await h.advance(1.0)
            assert t.status == "playing" and t.hand is not None and t.hand.id == hand_id
            for c in (a, b, s):
                assert not c.of_type("hand_void") and not c.of_type("match_end")
            # the proposer waits before proposing again; the other may propose at once
            await a.send({"type": "dissolve", "accept": True})
            assert a.errors() == ["rate_limited"]
            await b.send({"type": "dissolve", "accept": True})
            assert votes_of(s)[-1]["proposer"] == 1 and votes_of(s)[-1]["outcome"] is None
            await a.send({"type": "dissolve", "accept": False})
            assert votes_of(s)[-1]["outcome"] == "refused"
            await h.advance(PROPOSE_COOLDOWN_S)
            n = len(votes_of(s))
            await a.send({"type": "dissolve", "accept": True})
            assert len(votes_of(s)) == n + 1 and votes_of(s)[-1]["outcome"] is None
            assert await silver(h, a) == GRANT and await silver(h, b) == GRANT
            await audit(h)

    asyncio.run(main())


def test_a_timeout_keeps_the_match(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            tid, a, b, s = await two_humans_two_bots(h, hands=8)
            t = h.lobby.find(tid)
            await b.send({"type": "dissolve", "accept": True})
            # a joining viewer is shown the open vote
            late = await h.guest("迟到")
            await h.seat(late, t.cfg.code, as_="spectator")
            shown = votes_of(late)
            assert len(shown) == 1 and shown[0]["votes"] == {"0": None, "1": True}
            await h.advance(DISSOLVE_S - 1)
            assert votes_of(s)[-1]["outcome"] is None
            await h.advance(1.0)
            for c in (a, b, s, late):
                last = votes_of(c)[-1]
                assert last["outcome"] == "expired" and last["votes"] == {"0": None, "1": True}
            assert t.status in ("playing", "between") and t.match is not None
            for c in (a, b, s):
                assert not c.of_type("match_end") and not c.of_type("hand_void")
            # an accept now proposes anew (the vote is over)
            await a.send({"type": "dissolve", "accept": True})
            assert votes_of(s)[-1]["outcome"] is None and votes_of(s)[-1]["proposer"] == 0
            await audit(h)

    asyncio.run(main())


# ---------------------------------------------------------------------------- refused


def test_public_tables_spectators_and_votes_out_of_turn_are_refused(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            _, a, _b, s = await two_humans_two_bots(h, private=False)
            await a.send({"type": "dissolve", "accept": True})
            assert a.errors() == ["not_private"]
            assert votes_of(s) == []

        async with running(tmp_path / "2") as h:
            tid, a, _b, s = await two_humans_two_bots(h)
            await s.send({"type": "dissolve", "accept": True})
            assert s.errors() == ["not_seated"]
            await a.send({"type": "dissolve", "accept": False})
            assert a.errors() == ["no_vote"]
            await a.send({"type": "dissolve", "accept": "yes"})
            assert a.errors()[-1] == "bad_message"
            assert votes_of(s) == [] and h.lobby.find(tid).status == "playing"

        # before the match: nothing to dissolve (leaving costs nothing)
        async with running(tmp_path / "3") as h:
            a = await account(h, "Anna")
            r = await h.http.post(
                "/api/tables", json={"profile": "fuzhou-tcy", "private": True}, headers=bearer(a)
            )
            await h.settle()
            await h.seat(a, int(r.json()["id"]))
            await a.send({"type": "dissolve", "accept": True})
            assert a.errors() == ["not_now"]

    asyncio.run(main())


def test_a_store_fault_during_the_dissolution_is_retried_once(tmp_path: Path) -> None:
    """The dissolution's write fails (a full disk): nothing is shown, the table retries, and
    the match is dissolved exactly once (one void, one match_end), the audit clean."""

    async def main() -> None:
        async with running(tmp_path) as h:
            tid, a, b, s = await two_humans_two_bots(h)
            t = h.lobby.find(tid)
            await h.advance(1.0)  # past the deal's pause
            await a.send({"type": "dissolve", "accept": True})
            while h.lobby.find(tid).hand is not None and vis.quiet(
                True, h.clock.now(), t.hand.hold_until, t.hand.game.phase
            ):
                await h.advance(0.25)
            h.faults.fail(2)
            await b.send({"type": "dissolve", "accept": True})
            assert h.faults.failed >= 1
            assert s.last("status")["store"] == "failing"
            assert not s.of_type("match_end")
            await until_closed(h, a, b, s)
            for c in (a, b, s):
                assert len(c.of_type("hand_void")) == 1 and len(c.of_type("match_end")) == 1
                assert c.last("match_end")["dissolved"]
            assert await silver(h, a) == GRANT and await silver(h, b) == GRANT
            rep = await audit(h)
            assert rep.dissolved == 1

    asyncio.run(main())


def test_a_vote_ends_on_time_while_the_store_fails(tmp_path: Path) -> None:
    """A store fault stops the table's timers (no deadline, no bot acts into a broken
    store), but not the vote's: it writes nothing, and it lapses when it said it would; the
    table goes on once the store answers."""

    async def main() -> None:
        async with running(tmp_path) as h:
            tid, a, b, s = await two_humans_two_bots(h, hands=8)
            t = h.lobby.find(tid)
            await b.send({"type": "dissolve", "accept": True})
            proposed = h.clock.now()
            h.faults.fail(10**6)
            # seat 0 (Anna, FixedDeals' dealer) does not discard: past the opening and her
            # turn's time the table plays for her, and that move's write fails
            await h.advance(t.cfg.turn_seconds + 5.0)
            assert t.degraded and s.last("status")["store"] == "failing"
            assert votes_of(s)[-1]["outcome"] is None
            await h.advance(proposed + DISSOLVE_S - h.clock.now())
            for c in (a, b, s):
                assert votes_of(c)[-1]["outcome"] == "expired"
            h.faults.fail(0)
            await h.advance(6.0)  # the table's next retry finds the store answering
            assert not t.degraded and s.last("status")["store"] == "ok"
            assert t.status in ("playing", "between") and not s.of_type("match_end")

    asyncio.run(main())


def test_a_seat_asked_in_an_open_window_does_not_hold_the_dissolution(tmp_path: Path) -> None:
    """Agreed while the dealer is asked in the opening's window A (天胡 or pass, R8): the
    client shows no prompt once the match is dissolved, so the table passes for the asked
    seat (an answer any player may give at once) and the hand is void straight away, not
    at the seat's deadline."""
    from tests.inproc import StackedDeals
    from tests.test_audit_server import heaven_wall

    turn = 30

    async def main() -> None:
        deals = StackedDeals([heaven_wall()], dealer=0)
        async with running(tmp_path, deals=deals) as h:
            a, b = await account(h, "Anna"), await account(h, "Bo")
            r = await h.http.post(
                "/api/tables",
                json={"profile": "fuzhou-tcy", "hands": 2, "private": True, "turn_seconds": turn},
                headers=bearer(a),
            )
            assert r.status_code == 200, r.text
            tid, code = int(r.json()["id"]), r.json()["code"]
            await h.settle()
            await h.seat(a, tid)
            await h.seat(b, code)
            for _ in range(2):
                assert (await h.http.post(f"/api/tables/{tid}/bots", headers=bearer(a))).is_success
            await h.ready(a, b)
            assert a.state and a.state["view"]["phase"] == "window_a"
            assert "win" in [x["type"] for x in a.legal]
            started = h.clock.now()
            await a.send({"type": "dissolve", "accept": True})
            await b.send({"type": "dissolve", "accept": True})
            await until_closed(h, a, b, limit=turn)
            assert h.clock.now() - started < 5, "the dissolution waited for the seat's deadline"
            assert a.last("match_end")["dissolved"] and b.of_type("hand_void")
            await audit(h)

    asyncio.run(main())
