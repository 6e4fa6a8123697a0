"""REST and WebSocket hardening (the adversarial review): health without counters and the
operator's metrics behind a token; stakes shown and bounded, stored with their table in one
transaction; guests rate-limited and cleaned up; bad ids answered 4xx (never a 500 or a
dropped socket); a true OpenAPI (errors as sent, strict bodies, the API's own 405); a
revoked token ends its connections (4001); a private table's hands stay private.
In-process (tests/inproc.py), fake clock."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, update

from fujian_mahjong.server.store import HandRow, MatchRow, Player, Token
from tests.inproc import Client, Harness, running


def _bearer(c: Client | str) -> dict[str, str]:
    return {"Authorization": f"Bearer {c if isinstance(c, str) else c.token}"}


def _error_body(r: Any) -> None:
    """The usual one-line error: exactly ``{"detail", "code"}``, both strings."""
    body = r.json()
    assert set(body) == {"detail", "code"}, body
    assert isinstance(body["detail"], str) and isinstance(body["code"], str)
    assert "\n" not in body["detail"]


async def _account(h: Harness, name: str) -> Client:
    r = await h.http.post("/api/accounts", json={"name": name, "password": "long enough"})
    assert r.status_code == 201, r.text
    a = r.json()
    c = Client(h, a["name"], a["token"], a["player_id"])
    await c.send({"type": "hello", "token": c.token})
    return c


def _pick(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return (
        next((a for a in legal if a["type"] == "win"), None)
        or next((a for a in legal if a["type"] == "discard"), None)
        or next((a for a in legal if a["type"] == "pass"), legal[0])
    )


async def _play_to_end(h: Harness, me: Client) -> dict[str, Any]:
    acted = -1
    for _ in range(3000):
        if me.of_type("hand_end"):
            return me.of_type("hand_end")[-1]
        st = me.state
        if me.legal and st is not None and st["seq"] != acted:
            acted = st["seq"]
            await me.act(_pick(me.legal))
        else:
            await h.advance(0.3)
    raise AssertionError("the hand did not end")


# ------------------------------------------------------------------ 1. health and metrics


def test_health_has_no_counters(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            r = await h.http.get("/api/health")
            assert r.status_code == 200 and r.json() == {"ok": True, "status": "ok"}
            me = await h.guest("me")
            tid = await h.table(me, bots=3)
            await h.seat(me, tid)
            await h.ready(me)
            await h.advance(2.0)  # decisions applied, commits made
            assert (await h.http.get("/api/health")).json() == {"ok": True, "status": "ok"}
            # still 503 while the store cannot write, with the same two fields
            h.faults.fail(1)
            assert (await h.http.post("/api/guests", json={"name": "x"})).status_code == 503
            r = await h.http.get("/api/health")
            assert r.status_code == 503 and r.json() == {"ok": False, "status": "degraded"}

    asyncio.run(main())


def test_metrics_need_the_operator_token(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "off") as h:  # no operator token configured
            for headers in ({}, _bearer("anything"), _bearer("")):
                r = await h.http.get("/api/metrics", headers=headers)
                assert r.status_code == 404
                _error_body(r)
        async with running(tmp_path / "on", operator_token="op-secret-1") as h:
            for headers in ({}, _bearer("op-secret-2"), _bearer("op-secret-1x"), {"x": "y"}):
                r = await h.http.get("/api/metrics", headers=headers)
                assert r.status_code == 401 and r.json()["code"] == "unauthorized"
            r = await h.http.get("/api/metrics", headers=_bearer("op-secret-1"))
            assert r.status_code == 200
            m = r.json()
            assert m["tables"] == 0 and m["database"] == "sqlite" and m["snapshot_age_s"] == 0
            # a snapshot: what happens within the next 10 s does not show
            me = await h.guest("me")
            await h.seat(me, await h.table(me, bots=3))
            await h.ready(me)
            await h.advance(5.0)
            m2 = (await h.http.get("/api/metrics", headers=_bearer("op-secret-1"))).json()
            assert m2["tables"] == 0 and m2["commits"] == m["commits"]
            assert m2["snapshot_age_s"] == 5.0
            await h.advance(5.0)
            m3 = (await h.http.get("/api/metrics", headers=_bearer("op-secret-1"))).json()
            assert m3["tables"] == 1 and m3["commits"] > m["commits"]

    asyncio.run(main())


def test_serve_reads_the_operator_token_file(tmp_path: Path) -> None:
    import argparse

    import pytest

    from fujian_mahjong.cli.serve import OptionError, _settings

    f = tmp_path / "op.token"
    f.write_text("  operator-token-0123\n", encoding="utf-8")

    def args(path: Path) -> argparse.Namespace:
        return argparse.Namespace(
            data_dir=str(tmp_path), db=None, operator_token_file=str(path), guests_per_address=7
        )

    st: Any = _settings(args(f))
    assert st.operator_token == "operator-token-0123" and st.guests_per_address == 7
    assert "operator-token-0123" not in repr(st)
    f.write_text("short\n", encoding="utf-8")
    for bad in (f, tmp_path / "missing"):
        with pytest.raises(OptionError):
            _settings(args(bad))


# ------------------------------------------------------------------ 2. stakes


def test_stakes_are_listed_and_bounded(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            me = await h.guest("owner")
            r = await h.http.post(
                "/api/tables", json={"stake": 3, "fee": 2, "bots": 3}, headers=_bearer(me)
            )
            assert r.status_code == 200, r.text
            t = r.json()
            want = {"stake": 3, "base": 1, "fee": 2, "cap": 0, "min_balance": 60}
            assert t["stakes"] == want
            listed = {x["id"]: x for x in (await h.http.get("/api/tables")).json()}
            assert listed[t["id"]]["stakes"] == want
            for ref in (t["id"], t["code"]):
                assert (await h.http.get(f"/api/tables/{ref}")).json()["stakes"] == want
            # the fee: at most the stake by default; never 10^9
            for body in ({"stake": 3, "fee": 4}, {"fee": 10**9}, {"stake": 0, "fee": 1}):
                r = await h.http.post("/api/tables", json=body, headers=_bearer(me))
                assert r.status_code == 422 and r.json()["code"] == "fee_too_high", r.text
                _error_body(r)
            # the minimum balance: never below what one hand can cost (docs/economy.md):
            # stake × max(cap, 8 × base) + fee
            for body, floor in (
                ({"stake": 2, "cap": 50, "fee": 1}, 101),
                ({"stake": 5, "base": 3, "fee": 5}, 125),
                ({"stake": 0}, 0),
            ):
                if floor:
                    low = {**body, "min_balance": floor - 1}
                    r = await h.http.post("/api/tables", json=low, headers=_bearer(me))
                    assert r.status_code == 422 and r.json()["code"] == "min_balance_too_low"
                    assert str(floor) in r.json()["detail"]
                ok = {**body, "min_balance": floor}
                r = await h.http.post("/api/tables", json=ok, headers=_bearer(me))
                assert r.status_code == 200 and r.json()["stakes"]["min_balance"] == floor
            # the default is 20 × stake, raised to the floor when that is more
            r = await h.http.post("/api/tables", json={"stake": 1, "cap": 100}, headers=_bearer(me))
            assert r.json()["stakes"]["min_balance"] == 100
        # an operator may allow higher fees
        async with running(tmp_path / "fees", max_fee_ratio=3.0) as h:
            me = await h.guest("owner")
            r = await h.http.post("/api/tables", json={"stake": 2, "fee": 6}, headers=_bearer(me))
            assert r.status_code == 200 and r.json()["stakes"]["fee"] == 6
            r = await h.http.post("/api/tables", json={"stake": 2, "fee": 7}, headers=_bearer(me))
            assert r.status_code == 422

    asyncio.run(main())


def test_no_join_slips_in_before_the_stakes(tmp_path: Path, db_url: str) -> None:
    """The table and its stakes are one transaction, before the table takes any join: a
    join that comes the moment the table exists meets the minimum balance already."""

    async def main() -> None:
        async with running(tmp_path, db_url=db_url, starting_grant=10) as h:
            owner = await h.guest("owner")
            poor = await _account(h, "Poor")
            create = h.lobby.create

            async def create_then_join(*args: Any, **kw: Any) -> Any:
                actor = await create(*args, **kw)
                # the earliest a join can come: the table is in the lobby now
                await poor.send({"type": "join", "table": actor.id, "as": "player"})
                return actor

            h.lobby.create = create_then_join
            tid = await h.table(owner, stake=1)  # minimum 20 silver; Poor has 10
            assert poor.errors() == ["insufficient_silver"] and not poor.of_type("seated")
            info = (await h.http.get(f"/api/tables/{tid}")).json()
            assert info["humans"] == 0 and info["stakes"]["min_balance"] == 20

    asyncio.run(main())


# ------------------------------------------------------------------ 3. guests


def test_guests_are_rate_limited_per_address(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, guests_per_address=3) as h:
            for i in range(3):
                r = await h.http.post("/api/guests", json={"name": f"g{i}"})
                assert r.status_code == 200
            r = await h.http.post("/api/guests", json={"name": "one more"})
            assert r.status_code == 429 and r.json()["code"] == "rate_limited"
            assert int(r.headers["retry-after"]) > 0
            _error_body(r)

    asyncio.run(main())


def test_idle_guests_are_cleaned_up(tmp_path: Path, db_url: str) -> None:
    """Deleted: guests made long ago who can no longer log in (every token expired or
    revoked) and never sat anywhere. Kept: a guest with a live token, one seated at a
    table, one who made a table, one who played a hand (seat list only), a new one, an
    account. On SQLite and PostgreSQL."""

    async def main() -> None:
        async with running(tmp_path, db_url=db_url) as h:
            names = ["idle", "revoked", "live", "seated", "creator", "played", "new"]
            g = {n: await h.guest(n) for n in names}
            acc = await _account(h, "Account")
            other = await h.guest("other")
            tid = await h.table(other, bots=2)
            await h.seat(g["seated"], tid)
            await h.table(g["creator"], bots=3)
            now = datetime.now(UTC)
            old = now - timedelta(days=40)
            async with h.store.write() as s:
                await s.execute(
                    update(Player)
                    .where(Player.id.in_([c.player_id for c in (*g.values(), acc)]))
                    .values(created_at=old)
                )
                await s.execute(
                    update(Player)
                    .where(Player.id == g["new"].player_id)
                    .values(created_at=now - timedelta(days=1))
                )
                await s.execute(
                    update(Token)
                    .where(Token.player_id != g["live"].player_id)
                    .values(expires_at=now - timedelta(days=9))
                )
                await s.execute(
                    update(Token)
                    .where(Token.player_id == g["revoked"].player_id)
                    .values(revoked=True, expires_at=now + timedelta(days=9))
                )
                # "played": in a void hand's seat list, its seat long given up
                mid = (
                    await s.execute(
                        insert(MatchRow)
                        .values(
                            table_id=tid,
                            first_dealer=0,
                            seed="s",
                            status="over",
                            hands_played=1,
                            totals=[0, 0, 0, 0],
                            created_at=old,
                        )
                        .returning(MatchRow.id)
                    )
                ).scalar_one()
                await s.execute(
                    insert(HandRow).values(
                        match_id=mid,
                        table_id=tid,
                        number=0,
                        profile="fuzhou-tcy",
                        players=4,
                        dealer=0,
                        streak=0,
                        seed="s",
                        seed_sha256="0" * 64,
                        status="void",
                        seat_players=[None, g["played"].player_id, None, None],
                        created_at=old + timedelta(days=1),
                    )
                )
            assert await h.store.delete_idle_guests(30, now=now) == 2
            async with h.store.sessions() as s:
                left = {p.name for p in (await s.execute(Player.__table__.select())).all()}
                tokens = {t.player_id for t in (await s.execute(Token.__table__.select())).all()}
            assert left == {*names, "Account", "other"} - {"idle", "revoked"}
            assert g["idle"].player_id not in tokens  # their tokens went with them
            assert await h.store.delete_idle_guests(30, now=now) == 0
            # the deleted guest's token no longer opens anything
            r = await h.http.get("/api/me", headers=_bearer(g["idle"]))
            assert r.status_code == 401

    asyncio.run(main())


# ------------------------------------------------------------------ 4. bad ids

BIG = str(2**63)  # 9223372036854775808


def test_bad_ids_are_4xx_never_500(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            await h.table(me, bots=3)
            gets = [
                "/api/tables/²",
                "/api/tables/٣",
                f"/api/tables/{BIG}",
                "/api/tables/99999999999999999999999",
                "/api/tables/²/stakes",
                f"/api/tables/{BIG}/stakes",
                "/api/hands/²",
                *(f"/api/hands/{BIG}{tail}" for tail in ("", "/log", "/replay", "/summary")),
                f"/api/hands/{BIG}/review?seat=0",
                "/api/hands/2147483648/log",
                f"/api/players/{BIG}",
                f"/api/players/{BIG}/hands",
                "/api/players/²",
                "/api/players/0",
            ]
            for path in gets:
                for headers in ({}, _bearer(me)):
                    r = await h.http.get(path, headers=headers)
                    assert r.status_code in (404, 422), (path, r.status_code, r.text)
                    _error_body(r)
            for method in ("POST", "DELETE"):
                for ref in ("²", BIG):
                    r = await h.http.request(method, f"/api/tables/{ref}/bots", headers=_bearer(me))
                    assert r.status_code == 404, (method, ref, r.text)
                    _error_body(r)
            # a log's format is one of two (any other answered JSON Lines)
            for fmt in ("xml", "JSON", ""):
                r = await h.http.get("/api/hands/1/log", params={"format": fmt})
                assert r.status_code == 422 and "'jsonl' or 'json'" in r.json()["detail"], fmt
                _error_body(r)

    asyncio.run(main())


def test_a_bad_table_id_over_the_socket_is_an_error_not_a_drop(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            for ref in ("²", "١٢", BIG, 2**63, -1, 0):
                await me.send({"type": "join", "table": ref, "as": "player"})
                assert me.errors()[-1] == "no_table", ref
            await me.send({"type": "ping"})
            assert me.messages[-1] == {"type": "pong"} and me.rec.closed is None
            # an integer too long for Python's JSON reader is bad JSON, not a crash
            await h.dispatcher.handle(me.conn, '{"type": "join", "table": 1' + "0" * 5000 + "}")
            assert me.errors()[-1] == "bad_message" and me.rec.closed is None

    asyncio.run(main())


async def _asgi_socket(app: Any, frames: list[str]) -> list[dict[str, Any]]:
    """The app's ``/ws`` driven as an ASGI server drives it: connect, the frames, then the
    client goes away; every ASGI event the app sent."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    inbox.put_nowait({"type": "websocket.connect"})
    for f in frames:
        inbox.put_nowait({"type": "websocket.receive", "text": f})
    sent: list[dict[str, Any]] = []
    done = asyncio.Event()

    async def receive() -> dict[str, Any]:
        if inbox.empty():
            # the last frame is answered before the client goes away
            while sum(1 for e in sent if e["type"] == "websocket.send") < len(frames):
                await asyncio.sleep(0.01)
            done.set()
            return {"type": "websocket.disconnect", "code": 1000}
        return await inbox.get()

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    scope = {
        "type": "websocket",
        "asgi": {"version": "3.0"},
        "scheme": "ws",
        "path": "/ws",
        "raw_path": b"/ws",
        "root_path": "",
        "query_string": b"",
        "headers": [],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "subprotocols": [],
    }
    await asyncio.wait_for(app(scope, receive, send), 10)
    return sent


def test_a_bad_table_id_keeps_the_real_websocket_open(tmp_path: Path) -> None:
    async def main() -> list[dict[str, Any]]:
        async with running(tmp_path) as h:
            g = await h.guest("me")
            frames = [
                json.dumps({"type": "hello", "token": g.token}),
                json.dumps({"type": "join", "table": "²", "as": "player"}),
                json.dumps({"type": "join", "table": BIG, "as": "spectator"}),
                json.dumps({"type": "ping"}),
            ]
            return await _asgi_socket(h.app, frames)

    sent = asyncio.run(main())
    types = [e["type"] for e in sent]
    assert types == ["websocket.accept"] + ["websocket.send"] * 4, sent
    got = [json.loads(e["text"]) for e in sent[1:]]
    assert [m.get("code") or m["type"] for m in got] == ["welcome", "no_table", "no_table", "pong"]


# ------------------------------------------------------------------ 5. the OpenAPI is true


def test_errors_are_declared_as_sent_and_bodies_are_strict(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            doc = (await h.http.get("/openapi.json")).json()
            assert set(doc["components"]["schemas"]["ErrorOut"]["required"]) == {
                "detail",
                "code",
            }
            for path, ops in doc["paths"].items():
                for method, op in ops.items():
                    for status, resp in op["responses"].items():
                        if not status.startswith(("4", "5")) or path == "/api/health":
                            continue
                        ref = resp["content"]["application/json"]["schema"]["$ref"]
                        assert ref.endswith("/ErrorOut"), (method, path, status)
                    params = [p for p in op.get("parameters", []) if p["in"] == "path"]
                    if params or "requestBody" in op:
                        assert "422" in op["responses"], (method, path)
            assert "401" in doc["paths"]["/api/tables"]["post"]["responses"]
            assert "429" in doc["paths"]["/api/guests"]["post"]["responses"]
            me = await h.guest("me")
            # strict bodies: no strings, booleans or floats for integers, no "yes"
            for body in (
                {"stake": "10"},
                {"stake": True},
                {"stake": 2.0},
                {"hands": "8"},
                {"private": "yes"},
                {"private": 1},
            ):
                r = await h.http.post("/api/tables", json=body, headers=_bearer(me))
                assert r.status_code == 422 and r.json()["code"] == "bad_request", body
                _error_body(r)
            for path, body in (
                ("/api/guests", {"name": 5}),
                ("/api/accounts", {"name": "Some One", "password": 12345678}),
                ("/api/login", {"name": True, "password": "x"}),
                ("/api/logout", {"all": "yes"}),
            ):
                r = await h.http.post(path, json=body, headers=_bearer(me))
                assert r.status_code == 422, (path, r.text)
                _error_body(r)
            # every HTTPException carries a code: FastAPI's, Starlette's, ours
            for method, path in (
                ("GET", "/api/nope"),
                ("GET", "/api/me"),
                ("GET", "/api/hands/7"),
                ("POST", "/api/health"),
            ):
                r = await h.http.request(method, path)
                assert r.status_code in (401, 404, 405)
                _error_body(r)
            # OPTIONS on the API: its own 405 and Allow, never the static files'
            r = await h.http.options("/api/tables")
            assert r.status_code == 405 and r.headers["allow"] == "GET, POST"
            assert r.json()["code"] == "method_not_allowed"
            r = await h.http.options("/api/tables/1/bots")
            assert r.status_code == 405 and r.headers["allow"] == "POST, DELETE"
            r = await h.http.request("PUT", "/api/hands/1")
            assert r.status_code == 405 and r.headers["allow"] == "GET"

    asyncio.run(main())


# ------------------------------------------------------------------ 6. logout closes sockets


def test_logout_closes_the_tokens_sockets_with_4001(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            a = await _account(h, "Closer")
            r = await h.http.post("/api/login", json={"name": "Closer", "password": "long enough"})
            b = Client(h, a.name, r.json()["token"], a.player_id)  # a second token
            await b.send({"type": "hello", "token": b.token})
            other = await h.guest("other")
            tid = await h.table(a, bots=2)
            await h.seat(a, tid)
            assert h.lobby.tables[tid].seats[0].conn is a.conn
            # logout: the sockets of that token close (4001), the other token's stay open
            assert (await h.http.post("/api/logout", headers=_bearer(a))).status_code == 200
            await h.settle()
            assert a.rec.closed == (4001, "logged out")
            assert b.rec.closed is None and other.rec.closed is None
            # the seat is kept for the grace period, as for any lost connection
            seat = h.lobby.tables[tid].seats[0]
            assert seat.conn is None and seat.player_id == a.player_id
            # logout of every token closes the rest
            r = await h.http.post("/api/logout", json={"all": True}, headers=_bearer(b))
            assert r.status_code == 200
            assert b.rec.closed == (4001, "logged out") and other.rec.closed is None
            assert a.player_id not in h.dispatcher.by_player

    asyncio.run(main())


# ------------------------------------------------------------------ 7. private hands


def test_a_private_tables_hands_are_not_readable_by_id(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            owner, stranger = await h.guest("owner"), await h.guest("stranger")
            r = await h.http.post(
                "/api/tables",
                json={"private": True, "bots": 3, "hands": 1},
                headers=_bearer(owner),
            )
            tid, code = r.json()["id"], r.json()["code"]
            await h.seat(owner, tid)
            await h.ready(owner)
            await h.advance(0.5)
            hand = owner.of_type("hand_start")[-1]["hand"]
            missing = 10_000

            async def status(path: str, **kw: Any) -> int:
                return (await h.http.get(path, **kw)).status_code

            # during play: the metadata only for its players and with the code
            assert await status(f"/api/hands/{hand}", headers=_bearer(owner)) == 200
            assert await status(f"/api/hands/{hand}", params={"code": code}) == 200
            assert await status(f"/api/hands/{hand}", params={"code": code.lower()}) == 200
            for kw in ({}, {"headers": _bearer(stranger)}, {"params": {"code": "ZZZZZ"}}):
                r = await h.http.get(f"/api/hands/{hand}", **kw)
                gone = await h.http.get(f"/api/hands/{missing}", **kw)
                assert r.status_code == gone.status_code == 404
                assert r.json()["code"] == gone.json()["code"] == "no_hand"
                assert r.json()["detail"].replace(str(hand), "N") == gone.json()["detail"].replace(
                    str(missing), "N"
                )
            end = await _play_to_end(h, owner)
            assert end["hand"] == hand
            tails = ("", "/log", "/log?format=json", "/replay", "/review?seat=1", "/summary")
            for tail in tails:
                url = f"/api/hands/{hand}{tail}"
                assert await status(url, headers=_bearer(owner)) == 200, tail
                sep = "&" if "?" in tail else "?"
                assert await status(f"{url}{sep}code={code}") == 200, tail
                for kw in ({}, {"headers": _bearer(stranger)}):
                    r = await h.http.get(url, **kw)
                    assert r.status_code == 404 and r.json()["code"] == "no_hand", tail
            # nor listed on its player's profile to anyone else (it named who played whom
            # there, when, and for how much); the player sees it in their own
            pid = owner.player_id
            for kw in ({}, {"headers": _bearer(stranger)}):
                prof = (await h.http.get(f"/api/players/{pid}", **kw)).json()
                listed = (await h.http.get(f"/api/players/{pid}/hands", **kw)).json()
                assert prof["recent"] == [] and listed["hands"] == [], (prof["recent"], listed)
            prof = (await h.http.get(f"/api/players/{pid}", headers=_bearer(owner))).json()
            listed = (await h.http.get(f"/api/players/{pid}/hands", headers=_bearer(owner))).json()
            assert [x["hand"] for x in prof["recent"]] == [hand]
            assert [x["hand"] for x in listed["hands"]] == [hand]
            # wrong codes count as misses of the address (as table lookups do): then 429
            for _ in range(60):
                await h.http.get(f"/api/hands/{hand}", params={"code": "QQQQQ"})
            r = await h.http.get(f"/api/hands/{hand}/log", params={"code": code})
            assert r.status_code == 429 and r.json()["code"] == "rate_limited"
            # its players are not limited by their token, and a public table's hands stay
            # public
            assert await status(f"/api/hands/{hand}/log", headers=_bearer(owner)) == 200
            pub = await h.table(stranger, bots=3, hands=1)
            await h.seat(stranger, pub)
            await h.ready(stranger)
            pend = await _play_to_end(h, stranger)
            assert await status(f"/api/hands/{pend['hand']}/summary") == 200
            listed = (await h.http.get(f"/api/players/{stranger.player_id}/hands")).json()
            assert [x["hand"] for x in listed["hands"]] == [pend["hand"]]

    asyncio.run(main())


def test_a_guest_may_not_take_an_accounts_name(tmp_path: Path) -> None:
    """An account's name is its own (docs/economy.md, "Names"): a guest named as an account
    sat beside that account's players, in its name, at their tables and in their replays.
    409 ``name_taken`` whatever the case or width; other names, and guests' names among
    themselves, stay free."""

    async def main() -> None:
        async with running(tmp_path) as h:
            await _account(h, "Alice")
            for name in ("Alice", "ALICE", "ＡＬＩＣＥ", " alice "):
                r = await h.http.post("/api/guests", json={"name": name})
                assert r.status_code == 409 and r.json()["code"] == "name_taken", (name, r.text)
                _error_body(r)
            for name in ("Alice2", "guest", "guest"):
                r = await h.http.post("/api/guests", json={"name": name})
                assert r.status_code == 200, (name, r.text)
            # every guest without a name is "guest": no account may take it
            r = await h.http.post(
                "/api/accounts", json={"name": "Guest", "password": "long enough"}
            )
            assert r.status_code == 409 and r.json()["code"] == "name_taken", r.text
            assert (await h.http.post("/api/guests", json={})).status_code == 200

    asyncio.run(main())


def test_a_private_tables_hand_moves_no_totals_a_stranger_sees(tmp_path: Path) -> None:
    """docs/protocol.md, "Private tables' hands": a private table's hands are listed to the
    player only, and the totals a stranger reads (a profile's hands, wins and mean points,
    the leaderboard's hands) do not count them either — polled, they said when a private
    hand ended and what it was worth. The player themselves sees it counted."""
    from tests.test_table_support import guest, play, table

    async def main() -> None:
        async with running(tmp_path) as h:
            a, b, stranger = [await guest(h, n) for n in ("alice", "bob", "stranger")]
            tid = await table(h, a, bots=2, turn_seconds=30, private=True)
            code = (await h.http.get(f"/api/tables/{tid}", headers=_bearer(a))).json()["code"]
            await h.seat(a, tid)
            await b.send({"type": "join", "table": code, "as": "player"})
            await h.ready(a, b)
            await play(h, [a, b], until=lambda: bool(a.of_type("hand_end")))
            url = f"/api/players/{a.player_id}"
            theirs = (await h.http.get(url, headers=_bearer(stranger))).json()
            assert theirs["hands"] == 0 and theirs["profiles"] == [] and theirs["recent"] == []
            mine = (await h.http.get(url, headers=_bearer(a))).json()
            assert mine["hands"] == 1 and len(mine["recent"]) == 1

    asyncio.run(main())
