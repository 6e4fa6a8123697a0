"""Requests a hostile or hurried client can send (a helper's audit of every REST endpoint and
WebSocket message), each answered with a clear refusal that changes nothing:

- a seated player who joins its own table again as a spectator (its seat would be left with
  no connection and no grace period: never a leaver, R11's escape penalty dodged, and the
  table waiting for its 准备 for ever);
- a body of 100 MB, or one trickled a byte at a time (413 ``too_large`` before a byte is
  read, 408 ``body_timeout``: server/idle.py's ``BodyLimit``);
- a body that is not JSON (400 ``bad_request``, "body: not valid JSON", not a 422 whose
  "where" is a character's offset);
- one guest registered twice at the same moment (the second 409 ``already_registered``,
  not ``name_taken`` for a name nobody has);
- a guest leaving mid-hand where silver moves (the hand used to be void: an account's losing
  hand cancelled for free by its own guest; now a bot plays the seat to the end).

In-process on the fake clock (tests/inproc.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from fujian_mahjong.server.idle import BodyLimit
from fujian_mahjong.server.store.economy_models import SettlementRow
from fujian_mahjong.server.store.models import Player
from tests.inproc import Harness, running
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


async def _players(h: Harness) -> int:
    async with h.store.sessions() as s:
        return int(await s.scalar(select(func.count()).select_from(Player)) or 0)


def test_a_body_is_bounded_in_size_and_refused_before_it_is_read(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            before = await _players(h)
            big = b'{"name": "x", "pad": "' + b"y" * (200 * 1024) + b'"}'
            r = await h.http.post(
                "/api/guests", content=big, headers={"content-type": "application/json"}
            )
            assert r.status_code == 413 and r.json()["code"] == "too_large", r.text
            assert r.json()["detail"] == "body: more than 65536 bytes"

            async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted
                yield b'{"name": "x", "pad": "'
                for _ in range(100):
                    yield b"y" * 1024
                yield b'"}'

            r = await h.http.post(
                "/api/guests", content=chunks(), headers={"content-type": "application/json"}
            )
            assert r.status_code == 413 and r.json()["code"] == "too_large", r.text
            assert await _players(h) == before  # nothing made
            # a body within the bound is read and answered as before
            r = await h.http.post("/api/guests", json={"name": "fine"})
            assert r.status_code == 200 and r.json()["name"] == "fine"

    asyncio.run(main())


def test_a_body_trickled_in_is_cut_at_its_deadline() -> None:
    """The deadline is the middleware's own (0.2 s here): a body that never completes is
    answered 408 and the app never sees the request."""
    seen: list[Any] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope)

    async def main() -> None:
        first = True

        async def receive() -> dict[str, Any]:
            nonlocal first
            if first:
                first = False
                return {"type": "http.request", "body": b"{", "more_body": True}
            await asyncio.Event().wait()  # the next byte never comes
            raise AssertionError

        async def send(msg: dict[str, Any]) -> None:
            sent.append(msg)

        scope = {"type": "http", "method": "POST", "path": "/api/guests", "headers": []}
        await BodyLimit(app, timeout_s=0.2)(scope, receive, send)

    asyncio.run(main())
    assert not seen
    assert sent[0]["status"] == 408
    assert b'"code":"body_timeout"' in sent[1]["body"]


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b'{"name": "x"', "body: not valid JSON (at character 12)"),
        (b"\xff\xfe", "body: not valid JSON (at character 0)"),
        (b"[" * 20_000 + b"]" * 20_000, "body: not valid JSON"),
    ],
    ids=["cut-short", "not-text", "too-deep"],
)
def test_a_body_that_is_not_json_is_a_400(tmp_path: Path, body: bytes, detail: str) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            r = await h.http.post(
                "/api/guests", content=body, headers={"content-type": "application/json"}
            )
            assert r.status_code == 400, r.text
            assert r.json() == {"detail": detail, "code": "bad_request"}

    asyncio.run(main())


def test_one_guest_registered_twice_at_once(db_url: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, db_url=db_url) as h:
            g = await h.guest("gina")
            auth = {"Authorization": f"Bearer {g.token}"}
            rs = await asyncio.gather(
                *(
                    h.http.post(
                        "/api/accounts",
                        json={"name": f"name{i}", "password": "long enough"},
                        headers=auth,
                    )
                    for i in range(3)
                )
            )
            codes = sorted((r.status_code, r.json().get("code")) for r in rs)
            assert codes == [(201, None), (409, "already_registered"), (409, "already_registered")]
            # the names the refused ones asked for are free
            loser = next(i for i, r in enumerate(rs) if r.status_code == 409)
            body = {"name": f"name{loser}", "password": "long enough"}
            assert (await h.http.post("/api/accounts", json=body)).status_code == 201

    asyncio.run(main())


def test_a_guest_leaving_mid_hand_voids_nothing_where_silver_moves(tmp_path: Path) -> None:
    """R11, docs/economy.md "Leaving mid-hand": alice (an account) and her guest gina take a
    room table by quick match, with two house bots. Played out, the deal costs alice 24
    points to a house bot. With gina leaving a second before the end, the hand used to be
    void — nothing paid, no penalty (a guest has no silver): any losing hand cancelled for
    free. Now a bot plays gina's seat to the end, the hand is settled as it would have been,
    then the match ends with gina the leaver."""
    from fujian_mahjong.server.deals import FixedDeals
    from tests.test_house_economy import audit

    room = "fuzhou-tcy:novice"

    async def run(tmp: Path, leave_at: float | None) -> tuple[float, dict[str, Any], int]:
        async with running(tmp, deals=FixedDeals("s2", dealer=0)) as h:
            a = await account(h, "alice")
            g = await h.guest("gina")
            tg = await h.http.post("/api/quickmatch", json={"room": room}, headers=bearer(g))
            ta = await h.http.post("/api/quickmatch", json={"room": room}, headers=bearer(a))
            tid = tg.json()["table"]
            assert ta.json()["table"] == tid
            await h.seat(g, tid)
            await h.seat(a, tid)
            start = h.clock.now()
            for c in (a, g):
                await c.send({"type": "auto", "on": True})
            for _ in range(2000):
                if a.of_type("hand_end") or a.of_type("hand_void"):
                    break
                if leave_at is not None and h.clock.now() - start >= leave_at:
                    await g.send({"type": "leave"})
                    leave_at = None
                await h.advance(0.5)
            took = h.clock.now() - start
            assert not a.of_type("hand_void"), a.last("hand_void")
            end = a.last("hand_end")
            assert end is not None
            if tmp.name == "left":  # then the match ends, gina (seat 0) its leaver
                await h.advance(2.0)
                m = a.last("match_end")
                assert m is not None and m["leaver"] == 0, m
            await audit(h)
            return took, end, await silver(h, a)

    async def main() -> None:
        took, played, balance = await run(tmp_path / "played", None)
        payments = played["score"]["payments"]
        seat = next(i for i, s in enumerate(played["silver"]) if s is not None)
        change = played["silver"][seat]["change"]
        assert payments[seat] < 0 and change < 0  # alice loses this deal, to the house
        assert balance == 10_000 + change
        _, left, after = await run(tmp_path / "left", took - 1.0)
        assert left["score"]["payments"] == payments and after == balance  # paid as played

    asyncio.run(main())


def test_an_account_leaving_after_its_guest_pays_the_escape_penalty(tmp_path: Path) -> None:
    """R11: gina (a guest) leaves mid-hand at a room table (the hand plays on, a bot in her
    seat), then alice (the account) leaves in the same hand: the hand is void with alice the
    leaver, and she pays the escape penalty. Before, the void was charged to gina's seat —
    a guest pays nothing — and alice's leave was free after all (a reviewer's repro)."""
    from fujian_mahjong.server.deals import FixedDeals
    from tests.test_house_economy import audit

    async def main() -> None:
        async with running(tmp_path, deals=FixedDeals("s2", dealer=0)) as h:
            a = await account(h, "alice")
            g = await h.guest("gina")
            room = {"room": "fuzhou-tcy:novice"}
            tid = (await h.http.post("/api/quickmatch", json=room, headers=bearer(g))).json()[
                "table"
            ]
            await h.http.post("/api/quickmatch", json=room, headers=bearer(a))
            await h.seat(g, tid)
            await h.seat(a, tid)
            penalty = (await h.http.get(f"/api/tables/{tid}")).json()["escape_penalty"]
            for c in (a, g):
                await c.send({"type": "auto", "on": True})
            for _ in range(60):  # the room's wait, then its bots fill the table and it deals
                if a.of_type("hand_start"):
                    break
                await h.advance(0.5)
            await h.advance(5.0)  # the hand is being played
            assert a.of_type("hand_start") and not a.of_type("hand_end")
            await g.send({"type": "leave"})
            await h.advance(1.0)
            assert not a.of_type("hand_void")  # gina's leave voided nothing
            before = await silver(h, a)
            seat = h.lobby.tables[tid].seat_of(a.player_id)
            await a.send({"type": "leave"})
            await h.advance(1.0)
            async with h.store.sessions() as db:
                kind, detail = (
                    await db.execute(select(SettlementRow.kind, SettlementRow.detail))
                ).one()
            assert kind == "void" and detail["leaver"] == seat, detail
            assert detail["player_id"] == a.player_id
            assert before - await silver(h, a) == penalty
            await audit(h)

    asyncio.run(main())
