"""Rooms by stake, quick match, 救济金 relief and the skill rating (docs/economy.md).

In-process (tests/inproc.py: the real app, a fake clock); the money parts on SQLite and on
PostgreSQL (the ``db_url`` fixture). Quick match fills a room's table with bots after the
wait and settles every hand at the room's stake and fee; a balance outside the room's bounds
is refused; relief is granted only below the threshold and only as often as configured per
day (on the server's clock); skill ratings move by placement and bots' ratings never move;
the audit stays clean (conservation with relief) over random sequences of quick matches,
relief claims and admin changes; ``fjmj serve --config`` reports a bad file in one line
with exit status 2."""

from __future__ import annotations

import asyncio
import contextlib
import math
import secrets
import subprocess
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.server import economy, rating
from fujian_mahjong.server.deals import FixedDeals
from fujian_mahjong.server.economy import Stakes, settle_amounts
from fujian_mahjong.server.rooms import (
    DEFAULT_TIERS,
    ConfigError,
    default_rooms,
    parse_config,
)
from fujian_mahjong.server.store import HandRow, head_revision
from fujian_mahjong.server.store.economy_models import (
    LedgerRow,
    ReliefClaim,
    SettlementRow,
    SkillRow,
)
from tests.conftest import PG_ADMIN_URL, _pg_exec
from tests.inproc import Client, Harness, running
from tests.test_economy_support import FJMJ, add_hand, add_player, add_table, schema_db

ROOM_KEYS = {
    "id",
    "name_zh",
    "name_en",
    "profile",
    "stake",
    "base",
    "fee",
    "cap",
    "min_balance",
    "max_balance",
    "playing",
}

# two rooms of fuzhou-tcy: a cheap one open to every balance below 20000, a dear one for
# balances of 5000 and more; one hand per match in the hypothesis run, two here
CONFIG = """
[server]
quickmatch_wait_s = 8

[relief]
threshold = 1000
amount = 700
per_day = 2
utc_offset_hours = 0

[tables]
stake_max = 50

[[rooms]]
tier = "cheap"
name_zh = "新手场"
name_en = "Novice"
stake = 2
base = 1
fee = 1
cap = 40
min_balance = 100
max_balance = 20000
hands = 2
profiles = ["fuzhou-tcy"]

[[rooms]]
tier = "dear"
name_zh = "高级场"
name_en = "Senior"
stake = 30
base = 2
fee = 20
cap = 60
min_balance = 5000
profiles = ["fuzhou-tcy"]
"""
CHEAP, DEAR = "fuzhou-tcy:cheap", "fuzhou-tcy:dear"


def bearer(c: Client | str) -> dict[str, str]:
    return {"Authorization": f"Bearer {c if isinstance(c, str) else c.token}"}


async def account(h: Harness, name: str) -> Client:
    r = await h.http.post("/api/accounts", json={"name": name, "password": "long enough"})
    assert r.status_code == 201, r.text
    a = r.json()
    c = Client(h, a["name"], a["token"], a["player_id"])
    await c.send({"type": "hello", "token": c.token})
    return c


async def adjust(h: Harness, c: Client, amount: int) -> int:
    async with h.store.write() as s:
        return await economy.admin_adjust(s, c.player_id, amount, "test")


async def silver(h: Harness, c: Client) -> int:
    r = await h.http.get("/api/me", headers=bearer(c))
    return int(r.json()["silver"])


async def audit_ok(h: Harness) -> economy.AuditReport:
    async with h.store.sessions() as s:
        rep = await economy.audit(s)
    assert rep.ok, rep.problems
    assert rep.conserved()
    return rep


async def quick(h: Harness, c: Client, room: str) -> Any:
    return await h.http.post("/api/quickmatch", json={"room": room}, headers=bearer(c))


async def play_match(h: Harness, clients: list[Client], leaver: Client | None = None) -> None:
    """Everyone joined and ready: the server plays for them (托管) until the match is over;
    between hands each is ready again. ``leaver`` leaves once the first hand is dealt."""
    for c in clients:
        await c.send({"type": "auto", "on": True})
    readied = {c.player_id: 0 for c in clients}
    for _ in range(3000):
        if all(c.of_type("table_closed") or c.of_type("match_end") for c in clients):
            return
        if leaver is not None and leaver.of_type("hand_start") and not leaver.of_type("left"):
            await leaver.send({"type": "leave"})
            clients = [c for c in clients if c is not leaver]
            continue
        for c in clients:
            ends = len(c.of_type("hand_end"))
            if ends > readied[c.player_id] and not c.of_type("match_end"):
                readied[c.player_id] = ends
                await c.send({"type": "ready"})
                await c.send({"type": "auto", "on": True})
        await h.advance(1.0)
    raise AssertionError("the match did not end")


def room_config(**over: Any) -> dict[str, Any]:
    cfg = parse_config(CONFIG)
    cfg.update(over)
    return cfg


# --------------------------------------------------------------------------- rooms listed


def test_default_rooms_are_valid_tables_of_every_profile() -> None:
    rooms = default_rooms()
    assert len(rooms) == len(DEFAULT_TIERS) * len(BUILTIN)
    assert {r.name_zh for r in rooms} == {"新手场", "初级场", "中级场", "高级场"}
    for r in rooms:
        # the same bounds as a table made by POST /api/tables (fee ratio 1, the floor)
        st_ = economy.make_stakes(
            r.stake, r.base, r.fee, r.cap, r.min_balance, profile=r.profile, max_fee_ratio=1.0
        )
        assert st_.min_balance == r.min_balance
        assert r.max_balance is None or r.max_balance >= r.min_balance
        assert r.escape_penalty == 8 * r.base * r.stake + r.fee
    assert parse_config("") == {}  # an empty file keeps every default


def test_rooms_listing_and_table_costs_shown_before_sitting(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            r = await h.http.get("/api/rooms")
            assert r.status_code == 200
            rooms = r.json()
            assert len(rooms) == len(DEFAULT_TIERS) * len(BUILTIN)
            for room in rooms:
                assert set(room) >= ROOM_KEYS
                assert room["escape_penalty"] == 8 * room["base"] * room["stake"] + room["fee"]
                assert room["playing"] == 0
            one = (await h.http.get("/api/rooms?profile=sanming")).json()
            assert {x["profile"] for x in one} == {"sanming"} and len(one) == 4
            bad = await h.http.get("/api/rooms?profile=nope")
            assert bad.status_code == 422 and bad.json()["code"] == "bad_profile"
            # a table's stake, fee and escape penalty before sitting down
            me = await h.guest("me")
            r = await h.http.post(
                "/api/tables", json={"stake": 7, "base": 2, "fee": 3}, headers=bearer(me)
            )
            assert r.status_code == 200 and r.json()["escape_penalty"] == 8 * 2 * 7 + 3
            tid = r.json()["id"]
            d = (await h.http.get(f"/api/tables/{tid}")).json()
            assert d["stakes"]["stake"] == 7 and d["escape_penalty"] == 115
            assert d["room"] is None

    asyncio.run(main())


# --------------------------------------------------------------------------- quick match


def test_quickmatch_fills_with_bots_and_settles_at_the_room_stakes(
    db_url: str, tmp_path: Path
) -> None:
    """Two accounts and a guest quick-match into one room: they share a waiting table;
    after the wait bots fill the free seat; every hand is settled at the room's stake, cap
    and fee; the humans' skill ratings move, the bots' are fixed; the audit is clean."""

    async def main() -> None:
        async with running(tmp_path, db_url=db_url, **room_config()) as h:
            a, b = await account(h, "alice"), await account(h, "bob")
            g = await h.guest("guest")
            r = await quick(h, a, CHEAP)
            assert r.status_code == 200, r.text
            tid = r.json()["table"]
            assert set(r.json()) == {"table"}
            assert (await quick(h, a, CHEAP)).json()["table"] == tid  # asked again: the same
            await h.advance(3.0)
            assert (await quick(h, b, CHEAP)).json()["table"] == tid  # the waiting humans
            assert (await quick(h, g, CHEAP)).json()["table"] == tid
            room = next(x for x in (await h.http.get("/api/rooms")).json() if x["id"] == CHEAP)
            assert room["playing"] == 3
            table = (await h.http.get(f"/api/tables/{tid}")).json()
            assert table["room"] == CHEAP and table["bots"] == 0 and table["humans"] == 3
            assert table["stakes"] == {
                "stake": 2,
                "base": 1,
                "fee": 1,
                "cap": 40,
                "min_balance": 100,
            }
            assert table["escape_penalty"] == 8 * 1 * 2 + 1
            for c in (a, b, g):
                await h.seat(c, tid)
                assert c.last("seated")["table"] == tid
            await h.ready(a, b, g)
            await h.advance(4.0)  # 7 s after the table was made: still waiting
            assert (await h.http.get(f"/api/tables/{tid}")).json()["bots"] == 0
            assert not a.of_type("hand_start")
            await h.advance(1.5)  # the wait (8 s) is over: a bot fills the last seat
            assert a.of_type("hand_start")
            table = (await h.http.get(f"/api/tables/{tid}")).json()
            assert table["bots"] == 1 and table["humans"] == 3
            await play_match(h, [a, b, g])
            ends = a.of_type("hand_end")
            assert len(ends) == 2  # the room's two hands
            async with h.store.sessions() as s:
                details = {
                    int(hid): d
                    for hid, d in await s.execute(
                        select(SettlementRow.hand_id, SettlementRow.detail)
                    )
                }
            for end in ends:
                d = details[end["hand"]]
                assert end["stakes"] == d["stakes"] == table["stakes"]
                acct = [p in (a.player_id, b.player_id) for p in d["seat_players"]]
                assert d["accounts"] == acct
                # the bot plays for the house account (docs/economy.md)
                house = [p is None for p in d["seat_players"]]
                assert d["house"] == house and not d["practice"]
                _adj, transfers, fees, _after = settle_amounts(
                    end["score"]["payments"],
                    acct,
                    house,
                    d["balances_before"],
                    Stakes(2, 1, 1, 40, 100),
                    40,
                )
                assert d["transfers"] == transfers
                assert d["fees"] == fees and sum(fees) == 2  # two accounts
                for seat, x in enumerate(end["silver"]):
                    if acct[seat]:
                        assert x["fee"] == 1 and x["change"] == x["transfer"] - 1
                    else:
                        assert x is None  # the guest and the bot hold no silver
                # skill: the humans (the guest too) rated, the bot not
                humans = [p is not None for p in d["seat_players"]]
                if len(set(end["score"]["payments"])) > 1:
                    assert [x is not None for x in end["skill"]] == humans
            async with h.store.sessions() as s:
                rated = {int(p) for p in (await s.execute(select(SkillRow.player_id))).scalars()}
            assert rated <= {a.player_id, b.player_id, g.player_id}
            assert (await h.http.get("/api/rooms")).json()[0]["playing"] == 0
            await audit_ok(h)

    asyncio.run(main())


def test_quickmatch_refusals_and_a_player_who_never_comes(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, **room_config(grace_s=30.0)) as h:
            a, b = await account(h, "alice"), await account(h, "bob")
            g = await h.guest("guest")
            # 10000 silver: above the cheap room's 20000? no; below the dear room's 5000? no
            r = await quick(h, a, "fuzhou-tcy:nope")
            assert r.status_code == 404 and r.json()["code"] == "no_room"
            r = await h.http.post("/api/quickmatch", json={"room": CHEAP})
            assert r.status_code == 401
            r = await h.http.post("/api/quickmatch", json={"room": 5}, headers=bearer(a))
            assert r.status_code == 422
            await adjust(h, a, 15_000)  # 25000: too rich for the cheap room
            r = await quick(h, a, CHEAP)
            assert r.status_code == 409 and r.json()["code"] == "balance_too_high"
            assert "20000" in r.json()["detail"]
            await adjust(h, b, -6_000)  # 4000: too poor for the dear room
            r = await quick(h, b, DEAR)
            assert r.status_code == 409 and r.json()["code"] == "balance_too_low"
            assert "5000" in r.json()["detail"]
            # a guest plays for points: never refused by the bounds
            r = await quick(h, g, DEAR)
            assert r.status_code == 200
            dear_table = r.json()["table"]
            # seated at one table, refused another
            r = await quick(h, g, CHEAP)
            assert r.status_code == 409 and r.json()["code"] == "already_seated"
            # the operator's bounds on a table's stake
            r = await h.http.post("/api/tables", json={"stake": 51}, headers=bearer(a))
            assert r.status_code == 422 and r.json()["code"] == "stake_out_of_bounds"
            # the guest never joins over /ws: bots fill the table after the wait, and the
            # seat is freed after the grace period; the table, left to bots, closes
            await h.advance(9.0)
            t = (await h.http.get(f"/api/tables/{dear_table}")).json()
            assert t["bots"] == 3 and t["humans"] == 1 and t["status"] == "open"
            await h.advance(25.0)
            t = (await h.http.get(f"/api/tables/{dear_table}")).json()
            assert t["status"] == "closed"
            assert all(x["playing"] == 0 for x in (await h.http.get("/api/rooms")).json())
            # free again: a new table of the cheap room
            r = await quick(h, g, CHEAP)
            assert r.status_code == 200 and r.json()["table"] != dear_table

    asyncio.run(main())


# --------------------------------------------------------------------------- relief


def test_relief_only_below_the_threshold_and_as_often_as_configured(
    db_url: str, tmp_path: Path
) -> None:
    async def main() -> None:
        async with running(tmp_path, db_url=db_url, **room_config()) as h:
            a = await account(h, "alice")
            g = await h.guest("guest")
            r = await h.http.post("/api/relief", headers=bearer(g))
            assert r.status_code == 403 and r.json()["code"] == "not_registered"
            assert (await h.http.post("/api/relief")).status_code == 401
            r = await h.http.post("/api/relief", headers=bearer(a))
            assert r.status_code == 409 and r.json()["code"] == "not_eligible"
            await adjust(h, a, -9_100)  # 900: below the threshold of 1000
            info = (await h.http.get("/api/relief", headers=bearer(a))).json()
            assert info["eligible"] and info["left_today"] == 2 and info["amount"] == 700
            r = await h.http.post("/api/relief", headers=bearer(a))
            assert r.status_code == 200 and r.json() == {"granted": 700, "balance": 1600}
            # 1600 is not below the threshold any more
            r = await h.http.post("/api/relief", headers=bearer(a))
            assert r.json()["code"] == "not_eligible"
            await adjust(h, a, -1_600)  # 0
            assert (await h.http.post("/api/relief", headers=bearer(a))).json()["balance"] == 700
            r = await h.http.post("/api/relief", headers=bearer(a))  # a third time today
            assert r.status_code == 429 and r.json()["code"] == "limit_reached"
            wait = int(r.headers["Retry-After"])
            # exactly the seconds to the next midnight (UTC + the operator's offset) on the
            # server's clock
            t = h.lobby.wall_time() + h.settings.relief_utc_offset_h * 3600.0
            assert wait == max(1, math.ceil(86400.0 - t % 86400.0))
            info = (await h.http.get("/api/relief", headers=bearer(a))).json()
            assert info["used_today"] == 2 and info["left_today"] == 0 and not info["eligible"]
            await h.advance(wait - 1)  # not yet the next day
            assert (await h.http.post("/api/relief", headers=bearer(a))).status_code == 429
            await h.advance(1)  # the next day on the server's clock
            r = await h.http.post("/api/relief", headers=bearer(a))
            assert r.status_code == 200 and r.json()["balance"] == 1400
            assert await silver(h, a) == 1400
            async with h.store.sessions() as s:
                rows = (
                    await s.execute(
                        select(LedgerRow.amount, LedgerRow.hand_id).where(
                            LedgerRow.kind == "relief"
                        )
                    )
                ).all()
                days = (await s.execute(select(func.count()).select_from(ReliefClaim))).scalar()
            assert rows == [(700, None)] * 3 and days == 2
            rep = await audit_ok(h)
            assert rep.relief == 2100
            assert rep.silver + rep.fees_burned + rep.escapes_burned == (
                rep.grants + rep.admin + rep.relief
            )

    asyncio.run(main())


def test_relief_audit_finds_a_claim_without_its_row(tmp_path: Path) -> None:
    async def main() -> None:
        engine, sessions = await schema_db(tmp_path / "r.sqlite3")
        try:
            async with sessions() as s, s.begin():
                pid = await add_player(s, "poor", 100)
                assert await economy.grant_relief(s, pid, 5, 1000, 300, 1) == (300, 400)
                with pytest.raises(economy.EconomyError) as e:
                    await economy.grant_relief(s, pid, 5, 1000, 300, 1)
                assert e.value.code == "limit_reached"
                assert await economy.grant_relief(s, pid, 6, 1000, 300, 1) == (300, 700)
                for off in ((0, 3), (300, 0)):  # relief turned off: nobody is eligible
                    with pytest.raises(economy.EconomyError) as e:
                        await economy.grant_relief(s, pid, 7, 1000, *off)
                    assert e.value.code == "not_eligible"
                guest = await add_player(s, "guest")
                with pytest.raises(economy.EconomyError) as e:
                    await economy.grant_relief(s, guest, 7, 1000, 300, 1)
                assert e.value.code == "no_account"
            async with sessions() as s:
                rep = await economy.audit(s)
                assert rep.ok and rep.relief == 600 and rep.conserved()
            async with sessions() as s, s.begin():
                await s.execute(
                    ReliefClaim.__table__.update().where(ReliefClaim.day == 6).values(times=2)
                )
            async with sessions() as s:
                rep = await economy.audit(s)
                assert not rep.ok and any("relief" in p for p in rep.problems)
        finally:
            await engine.dispose()

    asyncio.run(main())


# --------------------------------------------------------------------------- skill rating


def test_placements_share_ties_and_ratings_move_by_place() -> None:
    assert rating.placements([30, -10, -10, -10]) == [1, 2, 2, 2]
    assert rating.placements([5, 5, -10, 0]) == [1, 1, 4, 3]
    start = [(rating.MU, rating.SIGMA)] * 4
    after = rating.rate(start, [30, -10, -10, -10])
    assert after[0][0] > rating.MU and all(mu < rating.MU for mu, _ in after[1:])
    assert after[1] == after[2] == after[3]  # a shared place moves alike
    assert all(sg < rating.SIGMA for _, sg in after)  # every hand teaches something
    assert rating.rate(start, [0, 0, 0, 0]) == start  # all equal: nothing learned
    assert rating.display(rating.MU, rating.SIGMA) == 0
    assert rating.skill_json(30.0, 2.0) == {"rating": 960, "uncertainty": 2.0}


def test_bots_have_fixed_ratings_and_anchor_the_humans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A human who beats a strong bot gains more than one who beats a weak one; the bots'
    ratings come from fujian_mahjong.bots.BOT_RATINGS when it exists, and never move."""
    import fujian_mahjong.bots as bots

    monkeypatch.setattr(
        bots, "BOT_RATINGS", {"random": (5.0, 1.0), "strong": (35.0, 1.0)}, raising=False
    )
    assert rating.bot_rating("strong") == (35.0, 1.0)
    assert rating.bot_rating("heuristic") == rating.DEFAULT_BOT_RATINGS["heuristic"]
    assert rating.bot_rating("no-such-kind") == rating.DEFAULT_BOT_RATINGS["heuristic"]

    async def main() -> None:
        engine, sessions = await schema_db(tmp_path / "skill.sqlite3")
        try:
            async with sessions() as s, s.begin():
                h1 = await add_player(s, "h1", 10_000)
                h2 = await add_player(s, "h2", 10_000)
                tid, mid = await add_table(s, h1, Stakes(1, 1, 0, 0, 0))
                for pid, kind in ((h1, "strong"), (h2, "random")):
                    for _ in range(5):
                        hid = await add_hand(s, tid, mid, [pid, None, None, None])
                        await s.execute(
                            HandRow.__table__.update()
                            .where(HandRow.id == hid)
                            .values(bot_kinds=[None, kind, kind, kind])
                        )
                        d = await economy.settle_hand(
                            s, hid, {"payments": [30, -10, -10, -10]}, {"winner": 0}
                        )
                        assert d is not None
                        assert d["skill"][1:] == [None, None, None]  # bots: never rated
                        assert d["skill"][0]["change"] >= 0
            async with sessions() as s:
                rows = {
                    int(p): (mu, sg, n)
                    for p, mu, sg, n in await s.execute(
                        select(SkillRow.player_id, SkillRow.mu, SkillRow.sigma, SkillRow.hands)
                    )
                }
            assert set(rows) == {h1, h2}  # humans only
            assert rows[h1][2] == rows[h2][2] == 5
            assert rows[h1][0] > rows[h2][0] > rating.MU  # beating strong bots counts more
            assert rating.bot_rating("strong") == (35.0, 1.0)  # unchanged
            # losing to the bots moves a human down
            async with sessions() as s, s.begin():
                hid = await add_hand(s, tid, mid, [h2, None, None, None])
                await economy.settle_hand(s, hid, {"payments": [-30, 10, 10, 10]}, None)
            async with sessions() as s:
                mu = (
                    await s.execute(select(SkillRow.mu).where(SkillRow.player_id == h2))
                ).scalar_one()
            assert mu < rows[h2][0]
        finally:
            await engine.dispose()

    asyncio.run(main())


def test_profile_and_leaderboards(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, **room_config()) as h:
            a, b = await account(h, "alice"), await account(h, "bob")
            for c in (a, b):
                assert (await quick(h, c, CHEAP)).status_code == 200
            tid = (await quick(h, a, CHEAP)).json()["table"]
            for c in (a, b):
                await h.seat(c, tid)
            await h.ready(a, b)
            await h.advance(8.5)
            await play_match(h, [a, b])
            pub = (await h.http.get(f"/api/players/{a.player_id}")).json()
            assert "silver" not in pub
            own = (await h.http.get(f"/api/players/{a.player_id}", headers=bearer(a))).json()
            assert own["silver"] == await silver(h, a)
            other = (await h.http.get(f"/api/players/{a.player_id}", headers=bearer(b))).json()
            assert "silver" not in other
            assert pub["level"]["title_zh"] and pub["level"]["rank_zh"]
            assert set(pub["progress"]) == {"from", "next", "fraction"}
            assert 0 <= pub["progress"]["fraction"] <= 1
            assert pub["hands"] == 2
            prof = pub["profiles"][0]
            assert prof["profile"] == "fuzhou-tcy" and prof["hands"] == 2
            assert {"win_rate", "mean_points", "skill"} <= set(prof)
            assert set(prof["skill"]) == {"rating", "uncertainty"}
            assert prof["skill"]["uncertainty"] < rating.SIGMA
            assert pub["skill"] == prof["skill"]
            assert len(pub["recent"]) == 2 and pub["recent"][0]["balance_after"] is None
            for x in pub["recent"]:
                assert (await h.http.get(x["replay_url"])).status_code == 200
                assert (await h.http.get(x["log_url"])).status_code == 200
            # leaderboards, by skill and by level, paginated
            r = await h.http.get("/api/leaderboard?profile=fuzhou-tcy&by=skill&per_page=1")
            board = r.json()
            assert board["total"] == 2 and board["pages"] == 2 and len(board["players"]) == 1
            first = board["players"][0]
            r2 = await h.http.get("/api/leaderboard?profile=fuzhou-tcy&by=skill&per_page=1&page=2")
            second = r2.json()["players"][0]
            assert first["rank"] == 1 and second["rank"] == 2
            assert first["skill"]["rating"] >= second["skill"]["rating"]
            assert {first["player_id"], second["player_id"]} == {a.player_id, b.player_id}
            lv = (await h.http.get("/api/leaderboard?profile=fuzhou-tcy&by=level")).json()
            ratings = [p["rating"] for p in lv["players"]]
            assert ratings == sorted(ratings, reverse=True)
            r = await h.http.get("/api/leaderboard?by=skill")
            assert r.status_code == 422 and r.json()["code"] == "bad_profile"
            assert (await h.http.get("/api/leaderboard?by=luck")).status_code == 422
            assert (await h.http.get("/api/leaderboard?per_page=101")).status_code == 422

    asyncio.run(main())


# --------------------------------------------------------------------------- properties


@contextlib.asynccontextmanager
async def fresh_db(db_url: str, tmp: Path) -> AsyncIterator[str]:
    """A new empty database for one example: a SQLite file in ``tmp`` ("") or a new
    PostgreSQL database beside the fixture's (dropped after)."""
    if not db_url:
        yield ""
        return
    name = f"fjmj_rooms_{secrets.token_hex(5)}"
    await _pg_exec(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1)
    try:
        yield f"{base}/{name}"
    finally:
        await _pg_exec(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


op_quick = st.tuples(
    st.just("quick"),
    st.sampled_from([CHEAP, DEAR]),
    st.lists(st.integers(0, 2), min_size=1, max_size=3, unique=True),  # accounts
    st.booleans(),  # with the guest
    st.booleans(),  # the first of them leaves mid-hand
)
op_relief = st.tuples(st.just("relief"), st.integers(0, 2))
op_admin = st.tuples(st.just("admin"), st.integers(0, 2), st.integers(-12_000, 12_000))
op_day = st.tuples(st.just("day"))
# a balance below the relief threshold (1000), then a claim
op_broke = st.tuples(st.just("broke"), st.integers(0, 2), st.integers(0, 999))


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    ops=st.lists(
        st.one_of(op_quick, op_relief, op_broke, op_admin, op_day),
        min_size=2,
        max_size=6,
    ),
    seed=st.text("abcdef", min_size=1, max_size=6),
)
def test_audit_clean_after_quick_matches_relief_and_admin_changes(
    db_url: str, ops: list[tuple[Any, ...]], seed: str
) -> None:
    async def main() -> None:
        tmp = Path(tempfile.mkdtemp(prefix="fjmj-rooms-"))
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
                await run_lobby_op(h, accts, guest, op)
            await audit_ok(h)

    asyncio.run(main())


async def run_lobby_op(h: Harness, accts: list[Client], guest: Client, op: tuple[Any, ...]) -> None:
    """One step of the audit sequences (``op_quick``, ``op_relief``, ``op_broke``,
    ``op_admin``, ``op_day``), as a player would do it through the API."""
    if op[0] == "admin":
        with contextlib.suppress(economy.EconomyError):
            await adjust(h, accts[op[1]], op[2] or 1)
    elif op[0] == "broke":
        have = await silver(h, accts[op[1]])
        if have != op[2]:
            await adjust(h, accts[op[1]], op[2] - have)
        r = await h.http.post("/api/relief", headers=bearer(accts[op[1]]))
        assert r.status_code in (200, 429), r.text  # below the threshold
        event(f"relief {r.status_code}")
    elif op[0] == "relief":
        r = await h.http.post("/api/relief", headers=bearer(accts[op[1]]))
        assert r.status_code in (200, 409, 429), r.text
        event(f"relief {r.status_code}")
    elif op[0] == "day":
        await h.advance(86_400)
    else:
        _, room, who, with_guest, leaves = op
        players = [accts[i] for i in who] + ([guest] if with_guest else [])
        seated: list[Client] = []
        tid = None
        for c in players:
            r = await quick(h, c, room)
            assert r.status_code in (200, 409), r.text
            if r.status_code == 200:
                tid = r.json()["table"]
                seated.append(c)
        if tid is None:
            return
        for c in seated:
            c.rec.messages.clear()
            c.read = 0
            await h.seat(c, tid)
        await h.ready(*seated)
        await h.advance(8.5)
        await play_match(h, seated, seated[0] if leaves else None)
        event(f"quick match, {len(seated)} seated, leaver {leaves}")
        await h.advance(200.0)  # grace periods, closings


def _fields(r: Any) -> dict[str, Any]:
    import dataclasses

    return {f.name: getattr(r, f.name) for f in dataclasses.fields(r)}


# --------------------------------------------------------------------------- --config


def test_config_file_parsed_and_bad_ones_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fujian_mahjong.cli.main import main

    cfg = parse_config(CONFIG)
    assert cfg["quickmatch_wait_s"] == 8.0 and cfg["relief_per_day"] == 2
    assert [r.id for r in cfg["rooms"]] == [CHEAP, DEAR]
    assert cfg["rooms"][1].max_balance is None and cfg["table_stake_max"] == 50
    per = parse_config(
        '[[rooms]]\ntier = "x"\nstake = 2\n[rooms.profiles.sanming]\nstake = 3\n'
        '[rooms.profiles."fuzhou-tcy"]\n'
    )["rooms"]
    assert [(r.profile, r.stake) for r in per] == [("sanming", 3), ("fuzhou-tcy", 2)]
    assert per[0].min_balance == max(20 * 3, 8 * 3)  # the default minimum, as for a table
    bad = {
        "not toml": "rooms = [",
        "unknown section": "[rooms2]\n",
        "unknown key": '[[rooms]]\ntier = "x"\nstakes = 1\n',
        "no tier": "[[rooms]]\nstake = 1\n",
        "twice": '[[rooms]]\ntier = "x"\n[[rooms]]\ntier = "x"\n',
        "fee": '[[rooms]]\ntier = "x"\nstake = 1\nfee = 5\n',
        "floor": '[[rooms]]\ntier = "x"\nstake = 10\ncap = 100\nmin_balance = 5\n',
        "max below min": '[[rooms]]\ntier = "x"\nmin_balance = 500\nmax_balance = 100\n',
        "profile": '[[rooms]]\ntier = "x"\nprofiles = ["mars"]\n',
        "type": '[server]\nquickmatch_wait_s = "soon"\n',
        "server key": "[server]\nrooms = 1\n",
        "choice": '[server]\nclaim_window = "slow"\n',
        "relief": "[relief]\nper_day = -1\n",
        "bool": "[tables]\nstake_max = true\n",
    }
    for what, text in bad.items():
        with pytest.raises(ConfigError) as e:
            parse_config(text)
        assert "\n" not in str(e.value), what
        f = tmp_path / f"{what.replace(' ', '_')}.toml"
        f.write_text(text, encoding="utf-8")
        rc = main(["serve", "--config", str(f), "--data-dir", str(tmp_path)])
        err = capsys.readouterr().err
        assert rc == 2, (what, err)
        assert err.count("\n") == 1 and err.startswith("fjmj: error: serve: --config "), (what, err)
    rc = main(["serve", "--config", str(tmp_path / "missing.toml")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "cannot read it" in err


def test_fjmj_serve_config_bad_toml_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[rooms]]\ntier = "x"\nstake = 1\nfee = 2\n', encoding="utf-8")
    r = subprocess.run(
        [FJMJ, "serve", "--config", str(bad), "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fjmj: error: serve: --config "), lines
    assert "fee: at most" in lines[0], lines


# --------------------------------------------------------------------------- migration 0003


def test_migration_0003_keeps_the_ledger_and_allows_relief(db_url: str, tmp_path: Path) -> None:
    """A database at 0002 with ledger rows upgrades: the rows and their ids are kept, the
    kind ``relief`` is allowed and an unknown kind still refused; downgrading is refused
    while relief rows exist, and works without them."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError
    from sqlalchemy.ext.asyncio import async_sessionmaker

    from fujian_mahjong.server.store import make_engine, upgrade

    url = db_url or f"sqlite+aiosqlite:///{tmp_path / 'm.sqlite3'}"

    def downgrade(sync_conn: Any) -> None:
        cfg = Config()
        cfg.set_main_option(
            "script_location", str(Path(economy.__file__).resolve().parent / "migrations")
        )
        cfg.attributes["connection"] = sync_conn
        command.downgrade(cfg, "0002")

    async def main() -> None:
        await upgrade(url, "0002")
        engine = make_engine(url)
        try:
            async with engine.begin() as c:
                await c.execute(
                    text(
                        "INSERT INTO players (id, name, kind, created_at) "
                        "VALUES (7, 'old', 'registered', CURRENT_TIMESTAMP)"
                    )
                )
                await c.execute(
                    text(
                        "INSERT INTO accounts (player_id, name_key, silver, rating, created_at) "
                        "VALUES (7, 'old', 300, 0, CURRENT_TIMESTAMP)"
                    )
                )
                await c.execute(
                    text(
                        "INSERT INTO ledger (player_id, kind, amount, balance_after, "
                        "created_at) VALUES (7, 'starting_grant', 300, 300, CURRENT_TIMESTAMP)"
                    )
                )
        finally:
            await engine.dispose()
        await upgrade(url)
        engine = make_engine(url)
        sessions = async_sessionmaker(engine, expire_on_commit=False)
        try:
            async with engine.connect() as c:
                version = (
                    await c.execute(text("SELECT version_num FROM alembic_version"))
                ).scalar_one()
                rows = (await c.execute(text("SELECT id, kind, amount FROM ledger"))).all()
            assert version == head_revision() and [tuple(r) for r in rows] == [
                (1, "starting_grant", 300)
            ]
            async with sessions() as s, s.begin():
                assert await economy.grant_relief(s, 7, 1, 1000, 200, 1) == (200, 500)
            async with sessions() as s:
                rep = await economy.audit(s)
                assert rep.ok and rep.relief == 200 and rep.grants == 300
            with pytest.raises(IntegrityError):
                async with engine.begin() as c:
                    await c.execute(
                        text(
                            "INSERT INTO ledger (player_id, kind, amount, balance_after, "
                            "created_at) VALUES (7, 'gift', 1, 501, CURRENT_TIMESTAMP)"
                        )
                    )
            with pytest.raises(RuntimeError, match="relief row"):
                async with engine.begin() as c:
                    await c.run_sync(downgrade)
            async with engine.begin() as c:
                await c.execute(text("DELETE FROM ledger WHERE kind = 'relief'"))
                await c.execute(text("UPDATE accounts SET silver = 300"))
                await c.run_sync(downgrade)
            async with engine.connect() as c:
                version = (
                    await c.execute(text("SELECT version_num FROM alembic_version"))
                ).scalar_one()
                assert version == "0002"
            with pytest.raises(IntegrityError):  # 0002's list again
                async with engine.begin() as c:
                    await c.execute(
                        text(
                            "INSERT INTO ledger (player_id, kind, amount, balance_after, "
                            "created_at) VALUES (7, 'relief', 1, 301, CURRENT_TIMESTAMP)"
                        )
                    )
        finally:
            await engine.dispose()
        await upgrade(url)  # and up again

    asyncio.run(main())


def test_a_room_table_joined_by_id_keeps_the_room_bounds(tmp_path: Path) -> None:
    """Joining a room's table over /ws by its id (not by quick match) checks the room's
    bounds too: the minimum as at any table, and the maximum."""

    async def main() -> None:
        async with running(tmp_path, **room_config()) as h:
            a, rich, poor = [await account(h, n) for n in ("alice", "rich", "poor")]
            await adjust(h, rich, 15_000)
            await adjust(h, poor, -9_950)
            tid = (await quick(h, a, CHEAP)).json()["table"]
            for c, why in ((rich, "at most 20000"), (poor, "at least 100")):
                await h.seat(c, tid)
                err = c.last("error")
                assert err is not None and err["code"] == "insufficient_silver", c.messages
                assert why in err["message"]
            await h.seat(a, tid)
            assert a.last("seated")["table"] == tid

    asyncio.run(main())
