"""`fjmj db upgrade` and `fjmj serve` from the command line: migrations on SQLite and
PostgreSQL, the start banner (URL and database), a clean stop on Ctrl-C, the browser client
served at /, hints and 托管 over the socket."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy import create_engine, inspect

from tests.test_server_support import FJMJ, Client, Server, play

TABLES = {"players", "tokens", "tables", "seats", "matches", "hands", "events"}


def test_db_upgrade_creates_the_schema(db_url: str, tmp_path: Path) -> None:
    args = [FJMJ, "db", "upgrade", "--data-dir", str(tmp_path)]
    if db_url:
        args += ["--db", db_url]
    for _ in range(2):  # idempotent
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert "up to date" in r.stdout
    if db_url:
        import asyncio as aio

        import asyncpg

        async def names() -> set[str]:
            conn = await asyncpg.connect(db_url.replace("postgresql+asyncpg", "postgresql"))
            try:
                rows = await conn.fetch("select tablename from pg_tables where schemaname='public'")
            finally:
                await conn.close()
            return {r["tablename"] for r in rows}

        got = aio.run(names())
    else:
        db = tmp_path / "fjmj.sqlite3"
        got = set(inspect(create_engine(f"sqlite:///{db}")).get_table_names())
        assert sqlite3.connect(db).execute("pragma journal_mode").fetchone()[0] == "wal"
    assert got >= TABLES | {"alembic_version"}


def test_db_upgrade_reports_a_bad_url_in_one_line(tmp_path: Path) -> None:
    r = subprocess.run(
        [FJMJ, "db", "upgrade", "--db", "postgresql+asyncpg://nobody@127.0.0.1:1/none"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1
    assert len(r.stderr.strip().splitlines()) == 1 and "db upgrade" in r.stderr


def test_serve_prints_url_and_database_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    s = Server(tmp_path).start()
    try:
        page = s.get("/")
        if (Path(__file__).parent.parent / "src/fujian_mahjong/web/index.html").exists():
            assert page.status_code == 200 and "<html" in page.text.lower()
        assert s.get("/api/health").json()["database"] == "sqlite"
    finally:
        assert s.proc is not None
        s.proc.send_signal(signal.SIGINT)
        code = s.proc.wait(timeout=20)
    banner = s.log.read_text()
    assert f"http://127.0.0.1:{s.port}/" in banner
    assert f"sqlite+aiosqlite:///{tmp_path / 'fjmj.sqlite3'}" in banner
    assert code == 0
    assert "Traceback" not in banner


def test_hint_and_auto_over_the_socket(tmp_path: Path) -> None:
    s = Server(tmp_path).start()
    try:
        g = s.guest("hinted")

        async def main() -> tuple[dict, dict, dict]:
            while True:  # a bot may win (抢金, 天胡) before this seat ever decides: next table
                t = s.table(g["token"], bots=3, hands=1, turn_seconds=60)
                c = await Client(s.ws_url, g["token"]).connect()
                await c.hello_join(t["id"], ready=True)
                st = {}
                while not st.get("view", {}).get("legal_actions"):
                    st = await c.recv()
                    if st["type"] == "hand_end":
                        break
                if st["type"] == "state":
                    break
                await c.close()
            await c.send({"type": "hint"})
            hint = await c.expect("hint")
            assert hint["action"] in st["view"]["legal_actions"]
            # 托管: the server now plays this seat to the end of the hand
            await c.send({"type": "auto", "on": True})
            end = await c.expect("hand_end", timeout=60)
            seats = [r.msg for r in c.log if r.msg["type"] == "seats"]
            await c.close()
            return hint, end, seats[-1] if seats else {}

        hint, end, seats = asyncio.run(main())
        assert hint["reason"] and hint["reason_zh"]
        assert end["hand"]
        assert seats and seats["seats"][0]["auto"] is True
    finally:
        s.stop()


def test_a_second_table_plays_to_its_end_with_play_helper(tmp_path: Path) -> None:
    """A short smoke test of a sanming table for 3 players (2 bots), the profile's 2-4."""
    s = Server(tmp_path).start()
    try:
        g = s.guest("three")
        t = s.table(g["token"], profile="sanming", players=3, bots=2, hands=1)

        async def main() -> dict:
            c = await Client(s.ws_url, g["token"]).connect()
            await c.hello_join(t["id"], ready=True)
            end = await play(c)
            await c.close()
            return end

        end = asyncio.run(main())
        assert len(end["totals"]) == 3 and sum(end["totals"]) == 0
    finally:
        s.stop()
