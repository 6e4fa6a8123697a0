"""Silver moves as shown (docs/economy.md, "Bots at room tables play for the house"):

- at a room table a registered player's silver moves exactly as the hand's payments say
  against the bots, and the house account moves by the opposite; ``fjmj admin audit`` is
  clean with the house account in its conservation law (SQLite and PostgreSQL);
- with the operator's ``[economy] house_bots = false`` such a table is practice, as is a
  private table of one human with bots: no stake moves, no fee, no escape penalty, and the
  table says so (``practice``) before anyone sits and at the table.

In-process on the fake clock with fixed deals; the server plays for the humans (托管)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from fujian_mahjong.server import economy
from fujian_mahjong.server.rooms import parse_config
from fujian_mahjong.server.settings import sqlite_url
from fujian_mahjong.server.store import make_engine
from fujian_mahjong.server.store.economy_models import HouseLedgerRow, LedgerRow, SettlementRow
from tests.inproc import Client, Harness, running
from tests.test_economy_crash import _play_until_end_or_drop
from tests.test_economy_support import FJMJ, EconServer, auth, register

CONFIG = """
[server]
quickmatch_wait_s = 8

[[rooms]]
tier = "cheap"
name_zh = "新手场"
name_en = "Novice"
stake = 5
base = 1
fee = 1
cap = 40
min_balance = 300
hands = 3
profiles = ["fuzhou-tcy"]
"""
ROOM = "fuzhou-tcy:cheap"
STAKE, FEE, CAP, GRANT = 5, 1, 40, 10_000


def bearer(c: Client) -> dict[str, str]:
    return {"Authorization": f"Bearer {c.token}"}


async def account(h: Harness, name: str) -> Client:
    r = await h.http.post("/api/accounts", json={"name": name, "password": "long enough"})
    assert r.status_code == 201, r.text
    a = r.json()
    c = Client(h, a["name"], a["token"], a["player_id"])
    await c.send({"type": "hello", "token": c.token})
    return c


async def silver(h: Harness, c: Client) -> int:
    return int((await h.http.get("/api/me", headers=bearer(c))).json()["silver"])


async def audit(h: Harness) -> economy.AuditReport:
    async with h.store.sessions() as s:
        rep = await economy.audit(s)
    assert rep.ok, rep.problems
    assert rep.conserved()
    return rep


async def play_out(h: Harness, c: Client) -> None:
    """托管 plays every hand of the match; between hands the player is ready again."""
    await c.send({"type": "auto", "on": True})
    readied = 0
    for _ in range(3000):
        if c.of_type("match_end") or c.of_type("table_closed"):
            return
        ends = len(c.of_type("hand_end"))
        if ends > readied:
            readied = ends
            await c.send({"type": "ready"})
            await c.send({"type": "auto", "on": True})
        await h.advance(1.0)
    raise AssertionError("the match did not end")


def against_house(payments: list[int], seat: int) -> int:
    """What one player alone with three house bots wins or loses (docs/economy.md): the
    house pays and receives every bot's capped share in full."""
    p = payments[seat]
    if p < 0:
        return -min(-p, CAP) * STAKE
    if p == 0:
        return 0
    winners = [x for x in payments if x > 0]
    assert len(winners) == 1  # one winner per hand (R10)
    return sum(min(-x, CAP) * STAKE for x in payments if x < 0)


def run_audit_cli(url: str) -> dict[str, Any]:
    out = subprocess.run(
        [FJMJ, "admin", "audit", "--json", "--db", url],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return dict(json.loads(out.stdout))


def test_room_bots_play_for_the_house(db_url: str, tmp_path: Path) -> None:
    """Quick match, no 准备: after the room's wait three bots fill the table and the hand
    starts; every hand moves the player's silver exactly as its payments say against the
    house (capped, at the stake, minus the fee), the house moves by the opposite, and the
    audit (in-process and ``fjmj admin audit``) is clean with the house in it."""
    url = ""
    house_moved = [0]

    async def main() -> None:
        nonlocal url
        async with running(tmp_path, db_url=db_url, **parse_config(CONFIG)) as h:
            url = h.settings.database_url
            a = await account(h, "alice")
            r = await h.http.post("/api/quickmatch", json={"room": ROOM}, headers=bearer(a))
            assert r.status_code == 200, r.text
            tid = r.json()["table"]
            await h.seat(a, tid)
            await h.advance(8.5)  # the room's wait: bots fill, the hand starts (no ready)
            assert a.of_type("hand_start")
            table = (await h.http.get(f"/api/tables/{tid}")).json()
            assert table["bots"] == 3 and table["practice"] is False
            assert table["escape_penalty"] == 8 * STAKE + FEE  # shown, and it is real
            assert [s["bot_level"] for s in table["seats"]] == [None] + ["heuristic"] * 3
            for _ in range(10):  # the opening is shown first (docs/protocol.md)
                if a.last("state") is not None:
                    break
                await h.advance(1.0)
            state = a.last("state")
            assert state["practice"] is False
            assert [s["bot_level"] for s in state["seats"]] == [None] + ["heuristic"] * 3
            await play_out(h, a)
            ends = a.of_type("hand_end")
            assert len(ends) == 3
            moved = 0
            balance = GRANT
            for end in ends:
                pay = end["score"]["payments"]
                want = against_house(pay, 0)
                x = end["silver"][0]
                assert x["transfer"] == want, (pay, x)
                assert x["fee"] == FEE and x["change"] == want - FEE
                balance += want - FEE
                assert x["balance"] == balance
                assert end["silver"][1:] == [None, None, None]  # bots hold no balance
                assert end["practice"] is False
                moved += want
            assert any(e["silver"][0]["transfer"] for e in ends)  # silver really moved
            # the match's end says what the match moved, the hands' lines summed
            # (docs/economy.md): the change after the fees, the fees, the last balance
            last = a.last("match_end")
            assert last is not None and last["silver"][1:] == [None, None, None]
            assert last["silver"][0] == {
                "change": sum(e["silver"][0]["change"] for e in ends),
                "fees": FEE * len(ends),
                "balance": balance,
            }
            assert await silver(h, a) == GRANT + moved - FEE * len(ends)
            async with h.store.sessions() as s:
                house = await economy.house_balance(s)
                rows = (await s.execute(select(func.count()).select_from(HouseLedgerRow))).scalar()
            assert house == -moved and rows
            house_moved[0] = house
            rep = await audit(h)
            assert rep.house == -moved and rep.hands == 3 and rep.practice == 0
            assert rep.fees_burned == FEE * 3

    asyncio.run(main())
    out = run_audit_cli(url)
    assert out["ok"] and out["problems"] == []
    assert out["house"] == house_moved[0] and out["hands"] == 3
    assert out["silver"] + out["house"] + out["fees_burned"] + out["escapes_burned"] == (
        out["grants"] + out["admin"] + out["relief"]
    )


def test_house_off_room_table_is_practice(tmp_path: Path) -> None:
    """``[economy] house_bots = false``: a room table of one player and three bots is
    practice — shown as such, no transfer and no fee for a finished hand, and leaving
    mid-hand costs nothing."""

    async def main() -> None:
        cfg = parse_config(CONFIG + "\n[economy]\nhouse_bots = false\n")
        assert cfg["house_bots"] is False
        async with running(tmp_path, **cfg) as h:
            a = await account(h, "alice")
            # the lobby's room list says so before anyone sits (web/js/lobby.js reads it)
            rooms = (await h.http.get("/api/rooms")).json()
            assert [r["house_bots"] for r in rooms] == [False]
            r = await h.http.post("/api/quickmatch", json={"room": ROOM}, headers=bearer(a))
            tid = r.json()["table"]
            await h.seat(a, tid)
            await h.advance(8.5)
            assert a.of_type("hand_start")
            table = (await h.http.get(f"/api/tables/{tid}")).json()
            assert table["practice"] is True  # the table's escape penalty is not charged
            await h.advance(5.0)  # past the opening
            assert a.last("state")["practice"] is True
            await a.send({"type": "auto", "on": True})
            for _ in range(600):
                if a.of_type("hand_end"):
                    break
                await h.advance(1.0)
            end = a.of_type("hand_end")[0]
            assert end["practice"] is True
            assert end["silver"][0] == {"change": 0, "transfer": 0, "fee": 0, "balance": GRANT}
            await a.send({"type": "ready"})
            for _ in range(100):
                if len(a.of_type("hand_start")) == 2:
                    break
                await h.advance(1.0)
            assert len(a.of_type("hand_start")) == 2
            await a.send({"type": "leave"})  # mid-hand: practice costs nothing
            await h.advance(1.0)
            assert await silver(h, a) == GRANT
            async with h.store.sessions() as s:
                kinds = list((await s.execute(select(LedgerRow.kind))).scalars())
                assert await economy.house_balance(s) == 0
            assert kinds == ["starting_grant", "hand"]  # a 0 row for the finished hand
            rep = await audit(h)
            assert rep.practice == 1 and rep.voids == 1 and rep.escapes_burned == 0

    asyncio.run(main())


def test_private_table_alone_with_bots_is_practice(db_url: str, tmp_path: Path) -> None:
    """A private table of one player with bots shows no stake (``practice``, escape
    penalty 0) and a leaver pays nothing; with a second human it is not practice."""

    async def main() -> None:
        async with running(tmp_path, db_url=db_url) as h:
            a = await account(h, "alice")
            r = await h.http.post(
                "/api/tables",
                json={"stake": 5, "fee": 2, "bots": 3, "hands": 2},
                headers=bearer(a),
            )
            assert r.status_code == 200, r.text
            made = r.json()
            assert made["practice"] is True and made["escape_penalty"] == 8 * 5 + 2
            tid = made["id"]
            await h.settle()
            await h.seat(a, tid)
            await h.ready(a)
            await h.advance(5.0)  # past the opening
            assert a.of_type("hand_start")
            assert a.last("state")["practice"] is True
            seats = a.last("state")["seats"]
            assert [s["bot_level"] for s in seats] == [None, "heuristic", "heuristic", "heuristic"]
            await a.send({"type": "leave"})
            await h.advance(1.0)
            assert a.of_type("left")
            assert await silver(h, a) == GRANT
            async with h.store.sessions() as s:
                kinds = list((await s.execute(select(LedgerRow.kind))).scalars())
                void = (await s.execute(select(SettlementRow.kind, SettlementRow.detail))).one()
            assert kinds == ["starting_grant"]
            assert void[0] == "void" and void[1]["practice"] is True
            assert void[1]["penalty"] == 0 and void[1]["fee"] == 0
            rep = await audit(h)
            assert rep.voids == 1 and rep.escapes_burned == 0
            # two humans and two bots: silver moves between the humans, not practice
            b = await account(h, "bob")
            r = await h.http.post(
                "/api/tables", json={"stake": 5, "bots": 2, "hands": 1}, headers=bearer(a)
            )
            tid2 = r.json()["id"]
            await h.settle()
            await h.seat(a, tid2)
            await h.settle()
            assert (await h.http.get(f"/api/tables/{tid2}")).json()["practice"] is True
            await h.seat(b, tid2)
            await h.settle()
            t2 = (await h.http.get(f"/api/tables/{tid2}")).json()
            assert t2["practice"] is False and t2["escape_penalty"] == 8 * 5

    asyncio.run(main())


def test_one_account_with_a_guest_is_practice(tmp_path: Path) -> None:
    """R11 (only accounts hold silver): one account with a guest (and two bots) can win nothing — the guest's and the bots'
    shares are neither paid nor received — so the table is practice: no fee on a hand, no
    escape penalty; a second account makes it a table for silver. Before, practice counted
    humans: alice paid the 50 fee each hand and 850 to leave, at a table with nothing to
    win (a helper's repro)."""

    async def main() -> None:
        async with running(tmp_path) as h:
            a, g = await account(h, "alice"), await h.guest("gina")
            r = await h.http.post(
                "/api/tables",
                json={"stake": 100, "fee": 50, "bots": 2, "hands": 2},
                headers=bearer(a),
            )
            tid = r.json()["id"]
            await h.settle()
            await h.seat(a, tid)
            await h.seat(g, tid)
            await h.settle()
            assert (await h.http.get(f"/api/tables/{tid}")).json()["practice"] is True
            await h.ready(a, g)
            for c in (a, g):
                await c.send({"type": "auto", "on": True})
            for _ in range(600):
                if a.of_type("hand_end"):
                    break
                await h.advance(1.0)
            end = a.last("hand_end")
            assert end is not None and end["practice"] is True
            assert end["silver"][0] == {**end["silver"][0], "change": 0, "fee": 0}
            assert await silver(h, a) == GRANT
            await h.ready(a, g)
            await h.advance(5.0)
            await a.send({"type": "leave"})  # mid-hand: free at a practice table
            await h.advance(2.0)
            assert a.of_type("left") and await silver(h, a) == GRANT
            rep = await audit(h)
            assert rep.practice == 1 and rep.escapes_burned == 0 and rep.fees_burned == 0
            # a table for four players with no bot, one account seated: it waits for players
            # who may have accounts, so its stake is shown (not practice yet)
            r = await h.http.post("/api/tables", json={"stake": 5, "bots": 0}, headers=bearer(a))
            assert r.json()["practice"] is False
            tid4 = r.json()["id"]
            await h.settle()
            await h.seat(a, tid4)
            await h.settle()
            assert (await h.http.get(f"/api/tables/{tid4}")).json()["practice"] is False
            await a.send({"type": "leave"})
            await h.settle()
            # a second account: for silver between the two
            b = await account(h, "bobby")
            r = await h.http.post("/api/tables", json={"stake": 5, "bots": 1}, headers=bearer(a))
            tid2 = r.json()["id"]
            await h.settle()
            for c in (a, b, await h.guest("gus")):
                await h.seat(c, tid2)
            await h.settle()
            assert (await h.http.get(f"/api/tables/{tid2}")).json()["practice"] is False

    asyncio.run(main())


def test_escape_at_a_room_table_costs_what_was_shown_and_is_listed(tmp_path: Path) -> None:
    """Leaving mid-hand at a room table with house bots costs exactly the escape penalty
    shown (8 × base × stake + fee), and the profile lists it beside the hands."""

    async def main() -> None:
        async with running(tmp_path, **parse_config(CONFIG)) as h:
            a = await account(h, "alice")
            r = await h.http.post("/api/quickmatch", json={"room": ROOM}, headers=bearer(a))
            tid = r.json()["table"]
            await h.seat(a, tid)
            await h.advance(8.5)
            assert a.of_type("hand_start")
            shown = (await h.http.get(f"/api/tables/{tid}")).json()["escape_penalty"]
            assert shown == 8 * STAKE + FEE
            await a.send({"type": "leave"})
            await h.advance(1.0)
            assert await silver(h, a) == GRANT - shown
            own = (await h.http.get(f"/api/players/{a.player_id}", headers=bearer(a))).json()
            hand = a.of_type("hand_start")[0]["hand"]
            assert own["escapes"] == [
                {
                    "hand": hand,
                    "table": tid,
                    "number": 0,
                    "profile": "fuzhou-tcy",
                    "penalty": 8 * STAKE,
                    "fee": FEE,
                    "silver": -shown,
                    "balance_after": GRANT - shown,
                    "ended_at": own["escapes"][0]["ended_at"],
                }
            ]
            pub = (await h.http.get(f"/api/players/{a.player_id}")).json()
            assert pub["escapes"][0]["silver"] == -shown
            assert pub["escapes"][0]["balance_after"] is None  # the owner's only
            rep = await audit(h)
            assert rep.escapes_burned == 8 * STAKE and rep.house == 0

    asyncio.run(main())


async def _house_facts(url: str, player_id: int) -> dict[str, Any]:
    engine = make_engine(url)
    try:
        async with async_sessionmaker(engine)() as s:
            rep = await economy.audit(s)
            house = await economy.house_balance(s)
            moved = (
                await s.execute(
                    select(func.coalesce(func.sum(LedgerRow.amount), 0)).where(
                        LedgerRow.player_id == player_id, LedgerRow.kind == "hand"
                    )
                )
            ).scalar_one()
            settled = (await s.execute(select(func.count()).select_from(SettlementRow))).scalar()
    finally:
        await engine.dispose()
    return {"audit": rep.problems, "house": house, "moved": int(moved), "settled": settled}


@pytest.mark.parametrize("point", ["settle_before_commit", "settle_after_commit"])
def test_sigkill_around_a_settlement_against_the_house(
    db_url: str, tmp_path: Path, point: str
) -> None:
    """The server is SIGKILLed inside or right after the transaction that settles a hand at
    a room table (the default 新手场, its bots playing for the house): after a restart the
    house moved exactly the opposite of the player's transfers, once, and the audit is
    clean. (A real server in a subprocess, the process being the point: its room fills the
    free seats with bots after a short wait, so that the hand starts at once.)"""
    srv = EconServer(tmp_path, db=db_url)
    srv.start(crash_at=point, quickmatch_wait_s=0.2)
    try:
        a = register(srv.base, "HouseCrash", "crash-secret")
        r = httpx.post(
            srv.base + "/api/quickmatch",
            json={"room": "fuzhou-tcy:novice"},
            headers=auth(a["token"]),
            timeout=10,
        )
        assert r.status_code == 200, r.text
        table = r.json()["table"]
        end = asyncio.run(_play_until_end_or_drop(srv, a["token"], table))
        assert end is None  # the server died before hand_end went out
        assert srv.wait_dead(60), "the server was not SIGKILLed at the crash point"
        url = db_url or sqlite_url(tmp_path)
        srv.start()
        end = asyncio.run(_play_until_end_or_drop(srv, a["token"], table))
        assert end is not None
        after = asyncio.run(_house_facts(url, a["player_id"]))
        assert after["audit"] == []
        assert after["settled"] >= 1
        assert after["house"] == -after["moved"]
    finally:
        srv.stop()


def test_migration_0006_refuses_to_drop_the_house_ledger_with_rows(tmp_path: Path) -> None:
    """0006 (docs/economy.md, "Migration"): existing tables' bots do not play for the house
    (``house_bots`` false); downgrading is refused while the house ledger holds rows, and
    works without them; upgrading again restores both."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text

    from fujian_mahjong.server.store import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path / 'm.sqlite3'}"

    def downgrade(sync_conn: Any) -> None:
        cfg = Config()
        cfg.set_main_option(
            "script_location", str(Path(economy.__file__).resolve().parent / "migrations")
        )
        cfg.attributes["connection"] = sync_conn
        command.downgrade(cfg, "0005")

    async def play_one_hand() -> None:
        async with running(tmp_path, db_url=url, **parse_config(CONFIG)) as h:
            a = await account(h, "alice")
            r = await h.http.post("/api/quickmatch", json={"room": ROOM}, headers=bearer(a))
            await h.seat(a, r.json()["table"])
            await h.advance(8.5)
            await a.send({"type": "auto", "on": True})
            for _ in range(600):
                if a.of_type("hand_end"):
                    break
                await h.advance(1.0)
            assert a.of_type("hand_end")

    async def main() -> None:
        await upgrade(url, "0005")
        await upgrade(url)
        engine = make_engine(url)
        try:
            async with engine.begin() as c:
                cols = (await c.execute(text("PRAGMA table_info(table_stakes)"))).all()
                assert "house_bots" in {r[1] for r in cols}
        finally:
            await engine.dispose()
        await play_one_hand()
        engine = make_engine(url)
        try:
            async with engine.connect() as c:
                n = (await c.execute(text("SELECT COUNT(*) FROM house_ledger"))).scalar_one()
            assert n  # the hand (fixed deal) moved silver between the player and the house
            with pytest.raises(RuntimeError, match="house ledger"):
                async with engine.begin() as c:
                    await c.run_sync(downgrade)
            async with engine.begin() as c:
                await c.execute(text("DELETE FROM house_ledger"))
            async with engine.begin() as c:
                await c.run_sync(downgrade)
            async with engine.connect() as c:
                tables = {
                    r[0]
                    for r in await c.execute(
                        text("SELECT name FROM sqlite_master WHERE type='table'")
                    )
                }
                cols = (await c.execute(text("PRAGMA table_info(table_stakes)"))).all()
            assert "house_ledger" not in tables and "house_bots" not in {r[1] for r in cols}
        finally:
            await engine.dispose()
        await upgrade(url)  # and up again

    asyncio.run(main())


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    stake=st.integers(0, 50),
    fee=st.integers(0, 20),
    cap=st.integers(0, 60),
)
def test_settlement_against_the_house_is_zero_sum(
    data: st.DataObject, stake: int, fee: int, cap: int
) -> None:
    """Any hand (one winner, the losers paying it) with any mix of accounts, house bots and
    guests: the transfers are zero-sum (the house's included), no balance goes negative, a
    house seat pays its capped loss in full, the fee is the accounts' only, guests hold
    nothing; practice moves nothing."""
    n = 4
    kinds = data.draw(st.lists(st.sampled_from(["acct", "house", "guest"]), min_size=n, max_size=n))
    winner = data.draw(st.integers(0, n - 1))
    losses = [0 if s == winner else data.draw(st.integers(0, 80)) for s in range(n)]
    payments = [-x for x in losses]
    payments[winner] = sum(losses)
    before = [data.draw(st.integers(0, 3000)) if k == "acct" else 0 for k in kinds]
    accounts = [k == "acct" for k in kinds]
    house = [k == "house" for k in kinds]
    stakes = economy.Stakes(stake, 1, fee, cap, 0)
    _adj, transfers, fees, after = economy.settle_amounts(
        payments, accounts, house, before, stakes, cap
    )
    assert sum(transfers) == 0
    for s in range(n):
        if accounts[s]:
            assert after[s] == before[s] + transfers[s] - fees[s] >= 0
            assert fees[s] == min(fee, before[s] + transfers[s])
        else:
            assert fees[s] == 0
        if kinds[s] == "guest":
            assert transfers[s] == 0
        if house[s] and payments[s] < 0 and (accounts[winner] or house[winner]):
            capped = min(-payments[s], cap) if cap else -payments[s]
            assert transfers[s] == -capped * stake
    _adj, transfers, fees, after = economy.settle_amounts(
        payments, accounts, house, before, stakes, cap, practice=True
    )
    assert transfers == [0] * n and fees == [0] * n and after == before


def test_a_balance_goes_to_its_own_player_only(tmp_path: Path) -> None:
    """R11: a hand's end tells everyone at the table what each seat won or lost and paid
    (its `change`, `transfer`, `fee`), but each account's balance only to that account's
    own connection, as its profile does (docs/economy.md): a spectator or another seat
    read every balance at the table. The same for a leaver's ``hand_void``."""

    async def main() -> None:
        async with running(tmp_path) as h:
            a, b = await account(h, "richA"), await account(h, "richB")
            spy = await h.guest("spy")
            tid = await h.table(a, bots=2, hands=1, stake=5)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.seat(spy, tid, as_="spectator")
            await h.ready(a, b)
            await b.send({"type": "auto", "on": True})
            await play_out(h, a)
            ends = {c.name: c.last("hand_end") for c in (a, b, spy)}
            assert all(e is not None for e in ends.values()), ends
            want = [await silver(h, a), await silver(h, b)]
            for who, e in ends.items():
                lines = e["silver"]  # type: ignore[index]
                assert lines[2:] == [None, None]
                for i in (0, 1):
                    assert set(lines[i]) >= {"change", "transfer", "fee"}
                    mine = (who, i) in (("richA", 0), ("richB", 1))
                    assert lines[i].get("balance") == (want[i] if mine else None), (who, i, lines)
            # a leaver's penalty is public, its balance its own
            tid = await h.table(a, bots=2, hands=2, stake=5)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.seat(spy, tid, as_="spectator")
            await h.ready(a, b)
            await h.advance(1.0)
            assert b.of_type("hand_start")
            await a.send({"type": "leave"})
            await h.advance(1.0)
            for c in (b, spy):
                void = c.last("hand_void")
                assert void is not None and void["leaver"] == 0
                assert void["silver"][0]["change"] < 0 and "balance" not in void["silver"][0]

    asyncio.run(main())
