"""One server per PostgreSQL database, as per SQLite file (docs/deploy.md, "One process"):
a second ``fjmj serve`` without ``--redis`` on the same database would run the same tables
and write them beside the first (each waiting for the players connected to the other, then
making them leavers). A process alone holds the database's advisory lock exclusively, each
process of a cluster shared: a second process alone, or a cluster node beside one, is
refused at start with one line; the lock goes with the process; other databases of the same
PostgreSQL server are not affected (advisory locks are server-wide: the key carries the
database's oid)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fujian_mahjong.cli import serve
from fujian_mahjong.server import store as store_mod
from fujian_mahjong.server.store import DatabaseInUse, Store
from tests.conftest import fresh_pg_database


def test_a_second_server_alone_on_one_database_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_mod, "SERVER_LOCK_WAIT_S", 0.3)
    with fresh_pg_database() as url, fresh_pg_database() as other:

        async def main() -> None:
            first, second, elsewhere = Store(url), Store(url), Store(other)
            await first.open()
            await first.hold_server_lock(shared=False)
            await second.open()
            with pytest.raises(DatabaseInUse, match="in use by another fjmj serve"):
                await second.hold_server_lock(shared=False)
            # fjmj serve asks before it migrates anything (cli/serve.py)
            with pytest.raises(DatabaseInUse):
                await serve._pg_server_free(url, shared=False)
            # a cluster's node is refused beside a process alone
            with pytest.raises(DatabaseInUse, match="without --redis"):
                await second.hold_server_lock(shared=True)
            # another database of the same PostgreSQL server is not affected
            await elsewhere.open()
            await elsewhere.hold_server_lock(shared=False)
            await elsewhere.close()
            # the lock goes with the first server: the second starts now
            await first.close()
            await second.hold_server_lock(shared=False)
            await second.close()

        asyncio.run(main())


def test_a_clusters_nodes_share_the_database_and_keep_a_process_alone_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(store_mod, "SERVER_LOCK_WAIT_S", 0.3)
    with fresh_pg_database() as url:

        async def main() -> None:
            a, b, alone = Store(url), Store(url), Store(url)
            for s in (a, b, alone):
                await s.open()
            await a.hold_server_lock(shared=True)
            await b.hold_server_lock(shared=True)  # two nodes of one cluster
            with pytest.raises(DatabaseInUse, match="another fjmj serve"):
                await alone.hold_server_lock(shared=False)
            for s in (a, b, alone):
                await s.close()

        asyncio.run(main())


def test_the_app_does_not_start_beside_another_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app's start-up (its lifespan) takes the lock: the second app's start fails with
    DatabaseInUse (``fjmj serve`` prints it as its one error line) and leaves nothing open."""
    from fujian_mahjong.server.app import create_app
    from fujian_mahjong.server.settings import Settings

    monkeypatch.setattr(store_mod, "SERVER_LOCK_WAIT_S", 0.3)
    with fresh_pg_database() as url:

        async def main() -> None:
            one = create_app(Settings(data_dir=tmp_path / "one", db_url=url))
            two = create_app(Settings(data_dir=tmp_path / "two", db_url=url))
            async with one.router.lifespan_context(one):
                with pytest.raises(DatabaseInUse):
                    async with two.router.lifespan_context(two):
                        pass
            async with two.router.lifespan_context(two):
                pass  # the first has stopped: the second starts

        asyncio.run(main())
