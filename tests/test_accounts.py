"""Accounts on the server (docs/economy.md, "Accounts (REST)"), against a real
``fjmj serve`` process over loopback (and, for rate limits and expired tokens, the same app
in-process with small limits): registration and login, the security refusals (wrong
password, another player's token, expired and revoked tokens, SQL-like and oversized names,
acting for another seat), the minimum balance to sit, silver in ``hand_end``, the escape
penalty, history, profile and leaderboard."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher
from sqlalchemy import insert

from fujian_mahjong.server.store import Token, hash_token
from fujian_mahjong.server.store.models import utcnow
from tests.test_economy_support import FJMJ, Client, EconServer, auth, register


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EconServer]:
    srv = EconServer(tmp_path_factory.mktemp("acc"))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def post(srv: EconServer, path: str, body: Any = None, token: str | None = None) -> httpx.Response:
    return httpx.post(srv.base + path, json=body, headers=auth(token) if token else {}, timeout=10)


def get(srv: EconServer, path: str, token: str | None = None) -> httpx.Response:
    return httpx.get(srv.base + path, headers=auth(token) if token else {}, timeout=10)


def admin(srv: EconServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [FJMJ, "admin", *args, "--data-dir", str(srv.data_dir)],
        capture_output=True,
        text=True,
        timeout=60,
    )


# --------------------------------------------------------------------------- accounts


def test_register_login_me_and_name_rules(server: EconServer) -> None:
    a = register(server.base, "Alice", "alice-secret")
    assert a["silver"] == 10_000 and "password" not in json.dumps(a)
    me = get(server, "/api/me", a["token"]).json()
    assert me == {
        "player_id": a["player_id"],
        "name": "Alice",
        "registered": True,
        "silver": 10_000,
        "rating": 0,
        "level": {"n": 1, "title_zh": "待业", "rank_zh": "麻袋", "next": 100},
    }
    r = post(server, "/api/login", {"name": "ALICE", "password": "alice-secret"})
    assert r.status_code == 200 and r.json()["player_id"] == a["player_id"]
    # `fjmj serve` stores argon2id at the library's recommended cost (the suite's in-process
    # servers use its lowest cost, tests/cheap_hash.py): never a cheap hash in the product
    import sqlite3

    with sqlite3.connect(server.data_dir / "fjmj.sqlite3") as db:
        (stored,) = db.execute(
            "select password_hash from players where id = ?", (a["player_id"],)
        ).fetchone()
    p = PasswordHasher()
    assert stored.startswith(
        f"$argon2id$v=19$m={p.memory_cost},t={p.time_cost},p={p.parallelism}$"
    ), stored
    assert (p.memory_cost, p.time_cost) >= (65536, 3)
    # names: unique whatever the case or width, 2-20 characters, no SQL-ish punctuation
    for name, code, needle in [
        ("alice", 409, "taken"),
        ("ＡＬＩＣＥ", 409, "taken"),
        ("x", 422, "2-20 characters"),
        ("y" * 21, 422, "2-20 characters"),
        ("z" * 60_000 + "!", 422, "name"),  # within the 64 KiB bound on a body
        ("x'; DROP TABLE players;--", 422, "2-20"),
        ("a' OR '1'='1", 422, "only letters"),
        ("bob\x00", 422, "only letters"),
    ]:
        r = post(server, "/api/accounts", {"name": name, "password": "long enough"})
        assert r.status_code == code, (name[:30], r.text)
        assert needle in r.json()["detail"] and len(r.json()["detail"]) < 200
    for pw in ("short", "p" * 129):
        r = post(server, "/api/accounts", {"name": "Pwtest", "password": pw})
        assert r.status_code == 422 and "password" in r.json()["detail"]
    # nothing of that was created, the players table is intact
    assert get(server, "/api/players/" + str(a["player_id"])).json()["name"] == "Alice"
    names = [p["name"] for p in get(server, "/api/leaderboard").json()["players"]]
    assert "Pwtest" not in names and not any("DROP" in n for n in names)
    # a Chinese name is fine
    assert register(server.base, "福州 玩家_1")["name"] == "福州 玩家_1"


def test_wrong_password_and_sql_like_login_change_nothing(server: EconServer) -> None:
    b = register(server.base, "Bobby", "bobby-secret")
    for name, pw in [
        ("Bobby", "wrong-password"),
        ("nobody-here", "bobby-secret"),
        ("Bobby' --", "x"),
        ("' OR 1=1 --", "' OR 1=1 --"),
    ]:
        r = post(server, "/api/login", {"name": name, "password": pw})
        assert r.status_code == 401 and r.json()["detail"] == "wrong name or password"
    assert get(server, "/api/me", b["token"]).json()["silver"] == 10_000


def test_guest_registers_and_keeps_its_player_id(server: EconServer) -> None:
    g = post(server, "/api/guests", {"name": "visitor"}).json()
    assert get(server, "/api/me", g["token"]).json()["silver"] is None
    r = post(server, "/api/accounts", {"name": "Visitor", "password": "visitor-pw"}, g["token"])
    assert r.status_code == 201 and r.json()["player_id"] == g["player_id"]
    me = get(server, "/api/me", g["token"]).json()  # the guest's token now is the account's
    assert me["registered"] and me["silver"] == 10_000 and me["name"] == "Visitor"
    again = post(server, "/api/accounts", {"name": "Other", "password": "visitor-pw"}, g["token"])
    assert again.status_code == 409


def test_logout_revokes_only_that_token(server: EconServer) -> None:
    c = register(server.base, "Carol", "carol-secret")
    d = register(server.base, "Dave", "dave-secret")
    second = post(server, "/api/login", {"name": "Carol", "password": "carol-secret"}).json()
    assert post(server, "/api/logout", None, c["token"]).json() == {"ok": True}
    r = get(server, "/api/me", c["token"])
    assert r.status_code == 401 and "revoked" in r.json()["detail"]
    assert get(server, "/api/me", second["token"]).json()["name"] == "Carol"
    assert get(server, "/api/me", d["token"]).json()["name"] == "Dave"  # another's untouched
    post(server, "/api/logout", {"all": True}, second["token"])
    assert get(server, "/api/me", second["token"]).status_code == 401
    assert post(server, "/api/logout", None, "not-a-token").status_code == 401


# --------------------------------------------------------------------------- at the table


def _table(server: EconServer, token: str, **kw: Any) -> dict[str, Any]:
    r = post(server, "/api/tables", {"hands": 2, "turn_seconds": 30, **kw}, token)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_minimum_balance_and_another_players_token(server: EconServer) -> None:
    e = register(server.base, "Erin", "erin-secret")
    f = register(server.base, "Frank", "frank-secret")
    rich = _table(server, e["token"], stake=1000, bots=3)  # needs 20 × 1000 = 20000
    bad = post(server, "/api/tables", {"stake": -1}, e["token"])
    assert bad.status_code == 422 and "stake" in bad.json()["detail"]

    async def go() -> None:
        async with Client(server.ws_url, e["token"]) as c:
            await c.send({"type": "join", "table": rich["id"], "as": "player"})
            err = await c.until("error")
            assert err["code"] == "insufficient_silver"
            assert "20000" in err["message"] and "10000" in err["message"]
            # a hello with another player's token on this connection is refused
            await c.send({"type": "hello", "token": f["token"]})
            assert (await c.until("error"))["code"] == "already_hello"

    asyncio.run(go())
    t = get(server, f"/api/tables/{rich['id']}").json()
    assert t["humans"] == 0 and t["seats_taken"] == 3


def test_two_humans_two_bots_silver_acting_for_another_seat(server: EconServer) -> None:
    """Two accounts and two bots: ``hand_end`` carries each seat's silver (its balance to
    that seat alone: docs/economy.md); only the humans' shares move (zero-sum between them, minus the fees); a client acting out of turn with
    the other seat's actions is refused and nothing changes."""
    g = register(server.base, "Grace", "grace-secret")
    h = register(server.base, "Heidi", "heidi-secret")
    t = _table(server, g["token"], stake=3, fee=2, bots=2)
    assert get(server, f"/api/tables/{t['code']}/stakes").json() == {
        "table": t["id"],
        "stakes": {"stake": 3, "base": 1, "fee": 2, "cap": 0, "min_balance": 60},
    }

    async def go() -> list[dict[str, Any]]:
        async with Client(server.ws_url, g["token"]) as cg, Client(server.ws_url, h["token"]) as ch:
            for c in (cg, ch):
                await c.send({"type": "join", "table": t["id"], "as": "player"})
                await c.until("seated")
            await cg.send({"type": "ready"})
            await ch.send({"type": "ready"})
            # the first state where exactly one of the two must act: the other tries its move
            refused = False
            ends: list[dict[str, Any]] = []

            async def loop(me: Client, other: Client) -> None:
                nonlocal refused
                while True:
                    m = await me.recv(60)
                    if m["type"] == "hand_end":
                        ends.append(m)
                        return
                    if m["type"] != "state" or m["deadline_ms"] is None:
                        continue
                    legal = m["view"]["legal_actions"]
                    if not legal:
                        continue
                    own_turn = [a for a in legal if a.get("type") == "discard"]
                    if not refused and own_turn:
                        refused = True
                        # on this seat's own turn (one seat only; a claim window may ask both
                        # humans) the other seat sends this seat's discard on its own last seq
                        await other.send(
                            {
                                "type": "act",
                                "seq": other.got[-1].get("seq", 0),
                                "action": own_turn[0],
                            }
                        )
                    pick = next((a for a in legal if a.get("type") == "win"), legal[0])
                    await me.send({"type": "act", "seq": m["seq"], "action": pick})

            await asyncio.gather(loop(cg, ch), loop(ch, cg))
            errors = [m for c in (cg, ch) for m in c.got if m["type"] == "error"]
            if refused:  # (a hand won at the opening gives no human turn to try it on)
                assert errors and errors[0]["code"] in ("not_your_turn", "stale", "illegal")
            return ends

    ends = asyncio.run(go())
    end = ends[0]
    # the same lines to both, but each one's balance only in its own copy
    public = [
        [x and {k: v for k, v in x.items() if k != "balance"} for x in e["silver"]] for e in ends
    ]
    assert public[0] == public[1]
    silver = end["silver"]
    human = [i for i, x in enumerate(silver) if x is not None]
    assert len(human) == 2 and all(silver[i] is None for i in range(4) if i not in human)
    assert sum(silver[i]["transfer"] for i in human) == 0  # zero-sum between the humans
    for i in human:
        assert silver[i]["fee"] == 2 and silver[i]["change"] == silver[i]["transfer"] - 2
    balances = {get(server, "/api/me", x["token"]).json()["silver"] for x in (g, h)}
    told = {x["balance"] for e in ends for x in e["silver"] if x is not None and "balance" in x}
    assert balances == told
    assert all(sum(x is not None and "balance" in x for x in e["silver"]) == 1 for e in ends)
    # history, profile, leaderboard
    for x in (g, h):
        hist = get(server, f"/api/players/{x['player_id']}/hands").json()
        assert len(hist["hands"]) == 1 and hist["hands"][0]["hand"] == end["hand"]
        assert hist["hands"][0]["balance_after"] is None  # a balance only for its owner
        own = get(server, f"/api/players/{x['player_id']}/hands", x["token"]).json()
        mine = get(server, "/api/me", x["token"]).json()["silver"]
        assert own["hands"][0]["balance_after"] == mine
        assert hist["hands"][0]["log_url"] == f"/api/hands/{end['hand']}/log"
        assert httpx.get(server.base + hist["hands"][0]["log_url"], timeout=10).status_code == 200
        prof = get(server, f"/api/players/{x['player_id']}").json()
        assert prof["hands"] == 1 and prof["profiles"][0]["profile"] == "fuzhou-tcy"
        assert "silver" not in prof and "password" not in json.dumps(prof)
    board = get(server, "/api/leaderboard?profile=fuzhou-tcy").json()["players"]
    assert {p["player_id"] for p in board} >= {g["player_id"], h["player_id"]}
    assert get(server, "/api/leaderboard?profile=nope").status_code == 422
    assert admin(server, "audit").returncode == 0


# --------------------------------------------------------------------------- in-process


def test_rate_limits_and_expired_tokens_in_process(tmp_path: Path) -> None:
    """Failed logins are limited per name (then even the right password waits) and per
    address; an expired token is refused; the starting grant is configurable."""
    from fujian_mahjong.server.app import create_app
    from fujian_mahjong.server.settings import Settings

    app = create_app(
        Settings(
            data_dir=tmp_path,
            login_fails_per_name=3,
            login_fails_per_address=5,
            starting_grant=777,
        )
    )

    async def go() -> None:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                made = []
                for name in ("Kim", "Lee"):
                    r = await c.post("/api/accounts", json={"name": name, "password": "pw-123456"})
                    assert r.status_code == 201
                    made.append(r.json())
                kim = made[0]
                assert kim["silver"] == 777  # the configured starting grant
                for _ in range(3):
                    r = await c.post("/api/login", json={"name": "Kim", "password": "nope-nope"})
                    assert r.status_code == 401
                r = await c.post("/api/login", json={"name": "Kim", "password": "pw-123456"})
                assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
                assert "too many failed logins" in r.json()["detail"]
                # the name limit does not block another name ...
                r = await c.post("/api/login", json={"name": "Lee", "password": "pw-123456"})
                assert r.status_code == 200
                # ... until the address has failed too often
                for _ in range(2):
                    await c.post("/api/login", json={"name": "Lee", "password": "nope-nope"})
                r = await c.post("/api/login", json={"name": "Lee", "password": "pw-123456"})
                assert r.status_code == 429
                # an expired token
                store = app.state.store
                async with store.write() as s:
                    await s.execute(
                        insert(Token).values(
                            token_hash=hash_token("old-token"),
                            player_id=kim["player_id"],
                            created_at=utcnow() - timedelta(days=40),
                            expires_at=utcnow() - timedelta(seconds=1),
                            revoked=False,
                        )
                    )
                r = await c.get("/api/me", headers=auth("old-token"))
                assert r.status_code == 401 and "expired" in r.json()["detail"]
                assert (await c.get("/api/me", headers=auth(kim["token"]))).status_code == 200

    asyncio.run(go())


def test_leaver_pays_the_escape_penalty(tmp_path: Path) -> None:
    """R11 逃跑: leaving mid-hand voids it and charges the leaver 8 × base × stake + fee;
    the other player pays nothing. In-process, on a fixed deal that no bot ends at the
    opening (the hand is still being played when the leave comes)."""
    from sqlalchemy import select

    from fujian_mahjong.server import economy
    from fujian_mahjong.server.store.economy_models import LedgerRow
    from tests.inproc import Client as WsClient
    from tests.inproc import running

    async def go() -> None:
        async with running(tmp_path) as h:
            accounts = []
            for name in ("Ivan", "Judy"):
                r = await h.http.post("/api/accounts", json={"name": name, "password": "pw-123456"})
                assert r.status_code == 201, r.text
                accounts.append(r.json())
            clients = []
            for acc in accounts:
                c = WsClient(h, acc["name"], acc["token"], acc["player_id"])
                await c.send({"type": "hello", "token": c.token})
                clients.append(c)
            ci, cj = clients
            tid = await h.table(ci, stake=5, base=2, fee=5, bots=2, hands=4)
            for c in clients:
                await h.seat(c, tid)
            await h.ready(ci, cj)
            await h.advance(1.0)
            assert ci.of_type("hand_start") and not ci.of_type("hand_end")
            await ci.send({"type": "leave"})
            void = cj.last("hand_void")
            assert void is not None, [m["type"] for m in cj.messages]
            leaver = void["leaver"]
            assert leaver == 0
            # what the leaver paid is public; its balance is its own (docs/economy.md)
            assert void["silver"][leaver] == {"change": -(8 * 2 * 5 + 5), "transfer": -80, "fee": 5}
            me_i = (await h.http.get("/api/me", headers=auth(ci.token))).json()
            me_j = (await h.http.get("/api/me", headers=auth(cj.token))).json()
            assert me_i["silver"] == 10_000 - 85 and me_j["silver"] == 10_000
            async with h.store.sessions() as s:
                rows = (
                    await s.execute(
                        select(LedgerRow.kind, LedgerRow.amount)
                        .where(LedgerRow.player_id == ci.player_id)
                        .order_by(LedgerRow.id)
                    )
                ).all()
                assert [tuple(r) for r in rows] == [
                    ("starting_grant", 10_000),
                    ("escape", -80),
                    ("fee", -5),
                ]
                report = await economy.audit(s)
                assert report.ok, report

    asyncio.run(go())
