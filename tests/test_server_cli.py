"""`fjmj db upgrade` and `fjmj serve` from the command line: migrations on SQLite and
PostgreSQL; a real `fjmj serve` process on each database (the start banner, the browser
client served at /, one hand over a real WebSocket, a clean stop on Ctrl-C). Hints, 托管 and
other tables' play are tested in-process (tests/test_server_robust.py)."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, inspect

from tests.test_server_support import FJMJ, Client, Server, fetch_log, play, spy, verify_with_cli

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


def test_serve_plays_a_hand_over_a_real_websocket_and_stops_on_ctrl_c(
    db_url: str, tmp_path: Path
) -> None:
    """The smoke test of `fjmj serve` itself, on SQLite and on PostgreSQL: the banner (URL
    and database), the browser client at /, one human and three bots play a hand over a real
    WebSocket (the spy on every message, the log verified by `fjmj replay`), and Ctrl-C
    stops the server cleanly. Everything else about the server is tested in-process."""
    s = Server(tmp_path, db=db_url).start()
    try:
        page = s.get("/")
        if (Path(__file__).parent.parent / "src/fujian_mahjong/web/index.html").exists():
            assert page.status_code == 200 and "<html" in page.text.lower()
        assert s.get("/api/health").json()["status"] == "ok"
        g = s.guest("smoke")
        t = s.table(g["token"], bots=3, hands=1, turn_seconds=30)

        async def main() -> tuple[Client, dict[str, Any]]:
            c = await Client(s.ws_url, g["token"]).connect()
            await c.hello_join(t["id"], ready=True)
            end = await play(c)  # any deal ends: the human's turns at once, the bots' own
            assert end is not None
            me = await c.expect("match_end")
            assert me["hands_played"] == 1
            await c.close()
            return c, end

        c, end = asyncio.run(main())
        events = fetch_log(s, end["hand"])
        assert events[-1]["seed"] == end["seed"]
        assert spy(c, {end["hand"]: events}, c.seat) >= 1
        verify_with_cli(s, end["hand"], tmp_path)
        assert s.get(f"/api/tables/{t['id']}").json()["status"] == "closed"
    finally:
        assert s.proc is not None
        s.proc.send_signal(signal.SIGINT)
        code = s.proc.wait(timeout=20)
    banner = s.log.read_text()
    assert f"http://127.0.0.1:{s.port}/" in banner
    if db_url:
        assert db_url.rsplit("/", 1)[1] in banner and "postgresql+asyncpg://" in banner
    else:
        assert f"sqlite+aiosqlite:///{tmp_path / 'fjmj.sqlite3'}" in banner
    assert code == 0
    assert "Traceback" not in banner
