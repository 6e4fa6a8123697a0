"""Faults are survived (docs/architecture.md): a store that fails its next commits — an
injected fault on SQLite and PostgreSQL, and a real full disk (RLIMIT_FSIZE) — tells the
players, answers health 503, shows nothing it has not committed, and finishes the hand by
itself once the store recovers; the log then verifies (R12). In-process, fake clock."""

from __future__ import annotations

import asyncio
import resource
from pathlib import Path
from typing import Any

from fujian_mahjong.engine import replay
from tests.inproc import Client, Harness, running


def _pick(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return (
        next((a for a in legal if a["type"] == "win"), None)
        or next((a for a in legal if a["type"] == "discard"), None)
        or next((a for a in legal if a["type"] == "pass"), legal[0])
    )


async def _step(h: Harness, me: Client, acted: list[int]) -> None:
    """One step of a naive player: act on a new state, else let 0.3 s pass."""
    st = me.state
    if me.legal and st is not None and st["seq"] != acted[0]:
        acted[0] = st["seq"]
        await me.act(_pick(me.legal))
    else:
        await h.advance(0.3)


async def _stored_events(h: Harness, hand: int) -> int:
    from fujian_mahjong.server.store import get_hand_events

    async with h.store.sessions() as s:
        return len(await get_hand_events(s, hand))


async def _hand_with_a_fault(h: Harness, fail: int) -> None:
    me = await h.guest("me")
    tid = await h.table(me, bots=3)
    await h.seat(me, tid)
    await h.ready(me)
    acted = [-1]
    for _ in range(6):  # a few decisions into the hand (a fixed seed: the same every run)
        await _step(h, me, acted)
    assert not me.of_type("hand_end")
    hand = me.state["hand"] if me.state else me.of_type("hand_start")[-1]["hand"]
    table = h.lobby.tables[tid]
    # commit before send: whenever a message reaches the client, every event of the hand
    # is in the store (the actor's count of persisted events covers the game's)
    unsaved = _unsaved_spy(me, table)
    h.faults.fail(fail)
    # play on: the next commit fails; the actor stops where it is
    while not me.of_type("status"):
        await _step(h, me, acted)
    assert me.of_type("status")[0]["store"] == "failing"
    assert "cannot save" in me.of_type("status")[0]["message"]
    assert table.degraded
    r = await h.http.get("/api/health")
    assert r.status_code == 503 and r.json()["status"] == "degraded"
    # nothing about an uncommitted event was shown: every message after the fault is the
    # status notice, and the store holds every event a message could have come from
    committed = await _stored_events(h, hand)
    assert len(table.hand.game.events) > committed  # the failed step is still waiting
    assert unsaved == [m for m in unsaved if '"type":"status"' in m]
    before_status = me.of_type("status")[0]["seq"]
    # while failing, no timer fires into the broken store: time passes, nothing new is shown
    n = len(me.messages)
    await h.advance(0.05)
    assert all(m["type"] == "status" for m in me.messages[n:])
    # the retries (back-off 0.1, 0.2, 0.4 ... s) use up the failures; then it continues
    for _ in range(400):
        if not table.degraded:
            break
        await h.advance(0.5)
    assert not table.degraded, "the table did not recover"
    assert h.faults.failed == fail
    assert me.of_type("status")[-1]["store"] == "ok"
    assert (await h.http.get("/api/health")).status_code == 200
    assert unsaved == [m for m in unsaved if '"type":"status"' in m]
    # every state shown after the fault came after the recovery notice
    ok_seq = me.of_type("status")[-1]["seq"]
    assert all(
        m["seq"] > ok_seq for m in me.messages if m["type"] == "state" and m["seq"] > before_status
    )
    for _ in range(3000):
        if me.of_type("hand_end"):
            break
        await _step(h, me, acted)
    assert unsaved == [m for m in unsaved if '"type":"status"' in m]
    end = me.of_type("hand_end")[-1]
    assert end["hand"] == hand
    r = await h.http.get(f"/api/hands/{hand}/log", params={"format": "json"})
    assert r.status_code == 200
    replay(r.json())  # verifies the seed commitment and every event (R12)


def test_store_failing_then_recovering_sqlite_and_postgresql(tmp_path: Path, db_url: str) -> None:
    async def main() -> None:
        async with running(tmp_path, db_url=db_url) as h:
            await _hand_with_a_fault(h, fail=4)

    asyncio.run(main())


def test_rest_write_on_a_failing_store_is_503_with_a_code(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            h.faults.fail(1)
            r = await h.http.post("/api/guests", json={"name": "x"})
            assert r.status_code == 503
            assert r.json()["code"] == "store_unavailable"
            assert (await h.http.get("/api/health")).status_code == 503
            r = await h.http.post("/api/guests", json={"name": "x"})
            assert r.status_code == 200
            assert (await h.http.get("/api/health")).status_code == 200

    asyncio.run(main())


def test_a_database_that_refuses_connections_is_503_with_a_code(tmp_path: Path) -> None:
    """A driver's bare ``OSError`` (asyncpg: the server refused the connection) on a REST
    read and a REST write: 503 with ``store_unavailable`` and Retry-After, never a 500;
    nothing was created, and the same requests succeed once the database answers."""

    async def main() -> None:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            auth = {"Authorization": f"Bearer {me.token}"}
            real = h.store.sessions

            def refused() -> Any:
                raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")

            h.store.sessions = refused
            r = await h.http.post("/api/tables", json={"profile": "fuzhou-tcy"}, headers=auth)
            assert r.status_code == 503, r.text
            assert r.json()["code"] == "store_unavailable" and r.headers["Retry-After"] == "5"
            r = await h.http.get("/api/me", headers=auth)
            assert r.status_code == 503, r.text
            h.store.sessions = real
            assert h.lobby.tables == {}
            r = await h.http.post("/api/tables", json={"profile": "fuzhou-tcy"}, headers=auth)
            assert r.status_code == 200, r.text
            assert (await h.http.get("/api/me", headers=auth)).status_code == 200

    asyncio.run(main())


def test_a_real_full_disk(tmp_path: Path) -> None:
    """SQLite on a file that may not grow (RLIMIT_FSIZE): the disk is 'full' for a while."""

    async def main() -> None:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            tid = await h.table(me, bots=3)
            await h.seat(me, tid)
            await h.ready(me)
            acted = [-1]
            for _ in range(4):
                await _step(h, me, acted)
            db = tmp_path / "fjmj.sqlite3"
            soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
            size = db.stat().st_size
            table = h.lobby.tables[tid]
            import signal

            old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
            try:
                for _ in range(200):
                    if table.degraded:
                        break
                    await _step(h, me, acted)
                assert table.degraded, "the full disk was never met"
                assert me.of_type("status")[-1]["store"] == "failing"
                assert (await h.http.get("/api/health")).status_code == 503
            finally:
                resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
                signal.signal(signal.SIGXFSZ, old)
            for _ in range(400):
                if not table.degraded:
                    break
                await h.advance(0.5)
            assert not table.degraded
            for _ in range(3000):
                if me.of_type("hand_end"):
                    break
                await _step(h, me, acted)
            hand = me.of_type("hand_end")[-1]["hand"]
            r = await h.http.get(f"/api/hands/{hand}/log", params={"format": "json"})
            replay(r.json())

    asyncio.run(main())


async def _our_turn(h: Harness) -> tuple[Client, int]:
    """A human with three bots, seed "inproc": the dealer (us, seat 0) acts first."""
    me = await h.guest("me")
    tid = await h.table(me, bots=3)
    await h.seat(me, tid)
    await h.ready(me)
    await h.advance(0.6)
    return me, tid


def _unsaved_spy(c: Client, table: Any) -> list[str]:
    """Messages sent to ``c`` about events the store did not hold: a claim pause's notice
    (a discard, an added kong) before its event is stored, anything else while the hand
    holds any event the store does not (the draw after a discard is stored when the pause
    ends, and nothing shows it before: server/table.py)."""
    unsaved: list[str] = []
    send = c.rec.send

    def checked(text: str) -> bool:
        hs = table.hand
        if hs is not None:
            events = hs.game.events
            need = len(events)
            if '"type":"discard"' in text or '"type":"added_kong"' in text:
                need = 1 + max(
                    i for i, e in enumerate(events) if e.get("type") in ("discard", "kong")
                )
            if hs.persisted < need:
                unsaved.append(text[:80])
        return send(text)

    c.rec.send = checked  # type: ignore[method-assign]
    return unsaved


def test_nothing_is_decided_or_shown_while_the_store_fails(tmp_path: Path) -> None:
    """Commit before send, while degraded too: a discard whose commit fails is shown to
    nobody, however long the pause after it lasts; the same act again (a double tap) and
    any other act are answered ``store_unavailable`` and apply nothing (before, the
    second tap made the table send its current, unsaved state — the discard, then the next
    seat's draw to act on — while the store was down). When the store is back, the
    discard is shown once and play goes on."""

    async def main() -> None:
        async with running(tmp_path) as h:
            me, tid = await _our_turn(h)
            st = me.state
            assert st is not None and st["view"]["phase"] == "turn" and me.legal
            table = h.lobby.tables[tid]
            unsaved = _unsaved_spy(me, table)
            tap = {"type": "act", "seq": st["seq"], "action": _pick(me.legal)}
            h.faults.fail(10**6)
            await me.send(tap)
            assert table.degraded and me.errors() == ["store_unavailable"]  # not saved
            events = len(table.hand.game.events)
            await h.advance(3.0)  # long past the claim pause
            await me.send(tap)
            assert me.errors() == ["store_unavailable"] * 2
            assert len(table.hand.game.events) == events  # nothing more decided
            # only the status notice and the refusals went out meanwhile
            quiet = ('"type":"status"', '"type":"error"')
            assert all(any(q in m for q in quiet) for m in unsaved), unsaved
            assert not me.of_type("discard")  # the unsaved discard was shown to nobody
            h.faults.fail(0)
            await h.advance(6.0)  # the retry (back-off up to 5 s) commits
            assert not table.degraded
            ours = [d for d in me.of_type("discard") if d["seat"] == 0]
            assert me.of_type("discard")[0]["seat"] == 0 and len(ours) == 1  # shown once
            assert all(any(q in m for q in quiet) for m in unsaved), unsaved

    asyncio.run(main())


def test_a_player_who_drops_while_the_store_fails_is_not_made_the_leaver(
    tmp_path: Path,
) -> None:
    """docs/architecture.md, "Faults": nobody is made a leaver by the server's fault. A
    player whose socket closes while the table cannot save gets no grace period until the
    store is back (before, one started at the disconnect and ran out inside a long outage:
    the hand void, the escape penalty on the player); then the full grace period."""

    async def main() -> None:
        async with running(tmp_path) as h:
            me, tid = await _our_turn(h)
            table = h.lobby.tables[tid]
            assert me.legal
            h.faults.fail(10**6)
            await me.act(_pick(me.legal))
            assert table.degraded
            await me.disconnect()
            grace = h.settings.grace_s
            await h.advance(grace + 30.0)  # an outage longer than the grace period
            assert table.status == "playing" and table.pending_leave is None
            assert table.seats[0].player_id == me.player_id
            assert ("grace", 0) not in table.sched.timers
            h.faults.fail(0)
            await h.advance(6.0)  # the store is back: the grace period starts now
            assert not table.degraded and table.status == "playing"
            assert ("grace", 0) in table.sched.timers
            back = Client(h, me.name, me.token, me.player_id)  # it comes back in time
            await back.send({"type": "hello", "token": me.token})
            await h.seat(back, tid)
            assert not back.errors() and back.state is not None

    asyncio.run(main())


def test_a_rejoin_that_meets_a_database_fault_is_answered_unavailable(tmp_path: Path) -> None:
    """A reconnect's ``join`` (or its ``hello``) whose token check meets a database blip is
    answered ``unavailable``, which the client makes again after its back-off (web/js/net.js),
    and the join made again takes the seat back. It was answered ``store_unavailable``, which
    no client makes again: the socket stayed open at no table until the grace period made
    its player the leaver of a hand the server had failed (R11)."""
    from sqlalchemy.exc import OperationalError

    async def main() -> None:
        async with running(tmp_path, grace_s=30.0) as h:
            me, tid = await h.alone_with_bots("me", hands=4)
            await h.advance(2)
            t = h.lobby.tables[tid]
            await me.disconnect()
            again = Client(h, "me", me.token, me.player_id)
            await again.send({"type": "hello", "token": me.token})
            real = h.store.player_for_token
            calls = 0

            async def blip(token: str) -> Any:
                nonlocal calls
                calls += 1
                if calls == 1:
                    raise OperationalError("SELECT", None, Exception("connection lost"))
                return await real(token)

            h.store.player_for_token = blip  # type: ignore[method-assign]
            n = len(again.messages)
            await again.send({"type": "join", "table": tid, "as": "player"})
            answers = [(m["type"], m.get("code")) for m in again.messages[n:]]
            assert answers == [("error", "unavailable")], answers
            # the hello before it, met by the blip: the same (the client connects again)
            calls = 0
            fresh = Client(h, "me", me.token, me.player_id)
            await fresh.send({"type": "hello", "token": me.token})
            answers = [(m["type"], m.get("code")) for m in fresh.messages]
            assert answers == [("error", "unavailable")], answers
            n = len(again.messages)
            # the client's join made again: seated, the hand going on
            await again.send({"type": "join", "table": tid, "as": "player"})
            assert any(m["type"] == "seated" for m in again.messages[n:])
            await h.advance(31)
            assert t.status == "playing" and t.seats[0].conn is not None
            assert not any(m["type"] in ("match_end", "hand_void") for m in again.messages)

    asyncio.run(main())


def test_after_a_fault_on_a_discards_notice_the_notice_goes_out_before_what_follows(
    tmp_path: Path,
) -> None:
    """The commit of a discard's notice (the claim pause's first commit) fails for longer
    than the pause. When the store is back, the discard goes out first and its pause runs,
    then the next state, as without the fault. The recovery sent every seat the current
    state first, the next draw already made: the discarder saw the game move on before
    its discard was shown, which says when nobody could claim it (R12)."""
    from fujian_mahjong.server.deals import FixedDeals

    async def main() -> None:
        # seed "b": we deal, and nobody can claim our 3p (so the next draw follows at once)
        async with running(tmp_path, deals=FixedDeals("b")) as h:
            me, tid = await h.alone_with_bots("me")
            await h.advance(3)
            discard = {"type": "discard", "tile": "3p"}
            assert discard in me.legal, me.legal
            me.new()
            h.faults.fail(3)  # the notice's commit and its first retries
            await me.act(discard)
            await h.advance(3.0)
            seen = [
                m["type"] if m["type"] != "status" else f"status {m['store']}"
                for m in me.new()
                if m["type"] in ("state", "discard", "status")
            ]
            assert "status ok" in seen, seen
            after = seen[seen.index("status ok") + 1 :]
            assert after and after[0] == "discard", seen
            assert h.lobby.tables[tid].status == "playing"

    asyncio.run(main())
