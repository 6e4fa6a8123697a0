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


async def _terminate(url: str, pid: int) -> None:
    """End one PostgreSQL session, as a restart or an operator's pg_terminate_backend does."""
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://", 1))
    try:
        assert await conn.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await conn.close()


def test_a_lost_lock_session_is_taken_again_when_postgresql_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lock lives as long as its session: once its backend is gone (PostgreSQL restarted,
    the session terminated), the server takes it again on a new connection, so a second
    server alone is still refused afterwards."""
    monkeypatch.setattr(store_mod, "SERVER_LOCK_WAIT_S", 0.3)
    monkeypatch.setattr(store_mod, "SERVER_LOCK_CHECK_S", 0.05)
    with fresh_pg_database() as url:

        async def main() -> None:
            first, second = Store(url), Store(url)
            gate = asyncio.Event()  # the retake waits for it: the gap is the test's to see
            retake = first._retake_server_lock

            async def gated(engine: object, shared: bool) -> None:
                await gate.wait()
                await retake(engine, shared)  # type: ignore[arg-type]

            first._retake_server_lock = gated  # type: ignore[method-assign]
            await first.open()
            await first.hold_server_lock(shared=False)
            assert first._lock_backend is not None
            old = first._lock_backend[0]
            await _terminate(url, old)
            for _ in range(200):  # the keeper finds the session gone (every 0.05 s here)
                if not first._lock_held:
                    break
                await asyncio.sleep(0.05)
            # until the lock is held again, nothing is written (a store fault, retried)
            with pytest.raises(store_mod.StoreUnavailable):
                async with first.write():
                    pass
            gate.set()
            for _ in range(200):  # ... and takes it again
                if first._lock_backend[0] != old:
                    break
                await asyncio.sleep(0.05)
            assert first._lock_backend[0] != old and not first.server_lock_lost
            await second.open()
            with pytest.raises(DatabaseInUse):
                await second.hold_server_lock(shared=False)
            await second.close()
            await first.close()

        asyncio.run(main())


def test_a_server_whose_lock_another_took_meanwhile_writes_nothing_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another server alone started while this one's lock session was gone and took the
    lock: this one must not go on writing the tables beside it. Its writes are refused
    (``ServerLockLost``, a store fault: its tables say the server is in trouble) and
    /readyz answers 503 ``server_lock_lost``."""
    from types import SimpleNamespace

    from fujian_mahjong.server.routes.health import unready_reasons
    from fujian_mahjong.server.store import ServerLockLost

    monkeypatch.setattr(store_mod, "SERVER_LOCK_WAIT_S", 2.0)
    monkeypatch.setattr(store_mod, "SERVER_LOCK_CHECK_S", 0.0)
    with fresh_pg_database() as url:

        async def main() -> None:
            first, second = Store(url), Store(url)
            await first.open()
            await first.hold_server_lock(shared=False)
            keeper = first._lock_keeper
            assert keeper is not None and first._lock_backend is not None
            keeper.cancel()  # its next check is run below, after the other took the lock
            await asyncio.gather(keeper, return_exceptions=True)
            await _terminate(url, first._lock_backend[0])
            await second.open()
            await second.hold_server_lock(shared=False)  # waits for the session's end
            await asyncio.wait_for(first._keep_server_lock(shared=False), 30)
            assert first.server_lock_lost
            with pytest.raises(ServerLockLost):
                async with first.write():
                    pass
            assert unready_reasons(SimpleNamespace(store=first))[0] == "server_lock_lost"
            assert unready_reasons(SimpleNamespace(store=second)) == []
            await first.close()
            await second.close()

        asyncio.run(main())
