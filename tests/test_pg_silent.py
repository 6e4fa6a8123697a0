"""A PostgreSQL that stops answering without an error (a paused server, a lost route: the
bytes go nowhere and nothing is refused) is a store fault like any other (docs/deploy.md,
docs/architecture.md "Faults"): each statement is bounded by ``db_command_timeout_s``,
kept by the client, so the table tells its players the store is failing, health says
degraded, and play goes on when the database answers again. Before, the act waited for
good, the table and every table sharing its group commit with it, health saying ok.

In-process (the fake clock for the table, the real clock for the database's bound) on a
database of the test's own, reached through a TCP relay that the test can make silent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from fujian_mahjong.server import store as store_mod
from tests.conftest import fresh_pg_database
from tests.inproc import running

TIMEOUT_S = 2.0  # the bound under test (the server's default: 10 s)


class Relay:
    """A TCP relay to PostgreSQL that holds every byte while ``silent``."""

    def __init__(self) -> None:
        self.silent = False
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def _pipe(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        try:
            while data := await r.read(65536):
                while self.silent:
                    await asyncio.sleep(0.02)
                w.write(data)
                await w.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            w.close()

    async def _handle(self, cr: asyncio.StreamReader, cw: asyncio.StreamWriter) -> None:
        sr, sw = await asyncio.open_connection("127.0.0.1", 5432)
        for r, w in ((cr, sw), (sr, cw)):
            t = asyncio.ensure_future(self._pipe(r, w))
            self.tasks.add(t)
            t.add_done_callback(self.tasks.discard)

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        self.silent = False
        for t in list(self.tasks):
            t.cancel()
        if self.server is not None:
            self.server.close()


def test_a_silent_database_is_a_store_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the server lock's keeper asks PostgreSQL on the real clock, and a silent database
    # makes it take the lock again (tests/test_pg_server_lock.py): here the tables' own
    # retries on the fake clock are under test, so it does not ask within the test
    monkeypatch.setattr(store_mod, "SERVER_LOCK_CHECK_S", 3600.0)

    async def main(url: str) -> None:
        relay = Relay()
        port = await relay.start()
        try:
            via = url.replace("127.0.0.1:5432", f"127.0.0.1:{port}")
            async with running(tmp_path, db_url=via, db_command_timeout_s=TIMEOUT_S) as h:
                me = await h.guest("me")
                tid = await h.table(me, bots=3)
                await h.seat(me, tid)
                await h.ready(me)
                await h.advance(0.6)  # seed "inproc": we deal and act first
                assert me.legal
                table = h.lobby.tables[tid]
                act = {"type": "act", "seq": me.state["seq"], "action": me.legal[0]}
                relay.silent = True
                # the act's commit is bounded: answered within a few bounds, not never
                await asyncio.wait_for(h.dispatcher.handle(me.conn, json.dumps(act)), 20)
                assert table.degraded
                assert me.of_type("status")[-1]["store"] == "failing"
                assert me.errors() == ["store_unavailable"]
                relay.silent = False
                await h.advance(6.0)  # the next retry (back-off at most 5 s) commits
                assert not table.degraded
                assert me.of_type("status")[-1]["store"] == "ok"
                assert me.of_type("discard")[0]["seat"] == 0  # the act was made, once
                assert (await h.http.get("/api/health")).status_code == 200
        finally:
            await relay.stop()

    with fresh_pg_database() as url:
        asyncio.run(main(url))
