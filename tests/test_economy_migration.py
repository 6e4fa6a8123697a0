"""The economy's Alembic revision upgrades a database made by the previous revision with
data in it (docs/economy.md, "Migration"), on SQLite and PostgreSQL: players, tokens, tables, hands
and events survive; old tables are played for points only; a guest of the old schema can
register and keep its id; the audit is clean; ``fjmj admin`` works on the result."""

from __future__ import annotations

import asyncio
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import async_sessionmaker

from fujian_mahjong.server import economy
from fujian_mahjong.server.store import hash_token, head_revision, make_engine, upgrade
from tests.test_economy_support import FJMJ, real_hands

OLD = "0001"  # the revision before the economy


async def _fill_old_schema(url: str) -> None:
    import json

    events, result, score = real_hands()[0]
    engine = make_engine(url)
    try:
        async with engine.begin() as c:
            await c.execute(
                text(
                    "INSERT INTO players (id, name, kind, password_hash, created_at) "
                    "VALUES (1, 'old guest', 'guest', NULL, CURRENT_TIMESTAMP)"
                )
            )
            await c.execute(
                text(
                    "INSERT INTO tokens (token_hash, player_id, created_at, expires_at, revoked) "
                    "VALUES (:h, 1, CURRENT_TIMESTAMP, :exp, :rev)"
                ),
                {
                    "h": hash_token("old-token"),
                    "exp": datetime(2999, 1, 1, tzinfo=UTC),
                    "rev": False,
                },
            )
            await c.execute(
                text(
                    "INSERT INTO tables (id, code, creator_id, profile, players, turn_seconds, "
                    "hands, private, status, created_at) VALUES (1, 'OLDTB', 1, 'fuzhou-tcy', 4, "
                    "15, 8, :f, 'playing', CURRENT_TIMESTAMP)"
                ),
                {"f": False},
            )
            await c.execute(
                text(
                    "INSERT INTO matches (id, table_id, first_dealer, seed, status, hands_played, "
                    "totals, created_at) VALUES (1, 1, 0, 's', 'playing', 1, '[0,0,0,0]', "
                    "CURRENT_TIMESTAMP)"
                )
            )
            await c.execute(
                text(
                    "INSERT INTO hands (id, match_id, table_id, number, profile, players, dealer, "
                    "streak, seed, seed_sha256, status, result, score, seat_players, created_at) "
                    "VALUES (1, 1, 1, 0, 'fuzhou-tcy', 4, 0, 0, 'x', :sha, 'over', :res, :sc, "
                    "'[1, null, null, null]', CURRENT_TIMESTAMP)"
                ),
                {"sha": "0" * 64, "res": json.dumps(result), "sc": json.dumps(score)},
            )
            for i, e in enumerate(events):
                await c.execute(
                    text("INSERT INTO events (hand_id, seq, data) VALUES (1, :i, :d)"),
                    {"i": i, "d": json.dumps(e)},
                )
    finally:
        await engine.dispose()


async def _after_upgrade(url: str) -> None:
    engine = make_engine(url)
    try:
        async with engine.connect() as c:
            n_events = (await c.execute(text("SELECT count(*) FROM events"))).scalar_one()
            version = (
                await c.execute(text("SELECT version_num FROM alembic_version"))
            ).scalar_one()
            assert (await c.execute(text("SELECT count(*) FROM accounts"))).scalar_one() == 0
        assert n_events == len(real_hands()[0][0])
        assert version == head_revision()
        sessions = async_sessionmaker(engine, expire_on_commit=False)
        async with sessions() as s:
            assert await economy.get_stakes(s, 1) is None  # an old table: points only
            assert await economy.can_sit(s, 1, 1) is None
            rep = await economy.audit(s)
            assert rep.ok and rep.hands == 0, rep.problems
        # the old guest registers and keeps its player id
        async with sessions() as s, s.begin():
            await s.execute(
                text("UPDATE players SET kind = 'registered', name = 'Oldie' WHERE id = 1")
            )
            await economy.create_account(s, 1, "oldie", 500)
        async with sessions() as s:
            acc = await economy.account_of(s, 1)
            assert acc is not None and acc[1] == 500
            assert (await economy.audit(s)).ok
    finally:
        await engine.dispose()


def test_upgrade_from_the_previous_revision(db_url: str, tmp_path: Path) -> None:
    url = db_url or f"sqlite+aiosqlite:///{tmp_path / 'old.sqlite3'}"
    asyncio.run(upgrade(url, OLD))
    asyncio.run(_fill_old_schema(url))
    asyncio.run(upgrade(url))
    asyncio.run(_after_upgrade(url))
    # upgrading again is a no-op; fjmj admin works on the migrated database
    asyncio.run(upgrade(url))
    r = subprocess.run(
        [FJMJ, "admin", "list", "--json", "--db", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert '"name": "Oldie"' in r.stdout


def test_downgrade_removes_only_the_economy(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config

    url = f"sqlite+aiosqlite:///{tmp_path / 'down.sqlite3'}"
    asyncio.run(upgrade(url))

    async def down() -> list[str]:
        engine = make_engine(url)
        try:
            async with engine.begin() as c:

                def run(sync_conn: object) -> None:
                    cfg = Config()
                    cfg.set_main_option(
                        "script_location",
                        str(Path(economy.__file__).resolve().parent / "migrations"),
                    )
                    cfg.attributes["connection"] = sync_conn
                    command.downgrade(cfg, OLD)

                await c.run_sync(run)
            async with engine.connect() as c:
                rows = await c.execute(text("SELECT name FROM sqlite_master WHERE type='table'"))
                return sorted(r[0] for r in rows)
        finally:
            await engine.dispose()

    tables = asyncio.run(down())
    assert "accounts" not in tables and "ledger" not in tables and "players" in tables
