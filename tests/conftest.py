"""Shared fixtures: a free loopback port, and PostgreSQL availability for the persistence
tests (127.0.0.1:5432, trust auth, database ``test``; each test gets its own fresh database).

Without PostgreSQL those tests skip, saying why — unless ``FJMJ_REQUIRE_PG=1`` (CI), where
they fail instead."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

# every message the server sends is checked against its model (server/conn.py), here and in
# the server processes the tests start (they inherit the environment)
os.environ.setdefault("FJMJ_CHECK_MESSAGES", "1")

# The product hashes passwords with argon2id at the library's recommended cost
# (server/accounts.py, 150–200 ms a hash here); the tests register and log in hundreds of
# accounts, so in this process (and the test servers it starts, tests/serve_test_server.py)
# the same argon2id runs at its lowest cost. tests/test_accounts.py checks the product's.
os.environ.setdefault("FJMJ_TEST_CHEAP_HASH", "1")
if os.environ["FJMJ_TEST_CHEAP_HASH"] == "1":
    from tests.cheap_hash import use_cheap_hash

    use_cheap_hash()

PG_ADMIN_URL = os.environ.get("FJMJ_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def free_port() -> int:
    """A TCP port free on the loopback interface right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _pg_exec(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN_URL, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def pg_unavailable() -> str | None:
    """Why PostgreSQL cannot be used here (None when it can)."""
    try:
        asyncio.run(_pg_exec("select 1"))
    except Exception as e:  # any failure to connect means "no PostgreSQL here"
        return f"PostgreSQL not reachable at {PG_ADMIN_URL}: {type(e).__name__}: {e}"[:300]
    return None


@pytest.fixture(scope="session")
def pg_available() -> str | None:
    return pg_unavailable()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[str]:
    """A fresh empty database: an SQLite file, or a new PostgreSQL database dropped after."""
    if request.param == "sqlite":
        yield ""  # the server's default: the SQLite file in its data dir
        return
    with fresh_pg_database() as url:
        yield url


def unavailable(why: str | None) -> None:
    """A service a test needs is missing (``why``): fail under CI (``FJMJ_REQUIRE_PG=1``),
    skip, saying why, on a developer machine without it."""
    if why is None:
        return
    if os.environ.get("FJMJ_REQUIRE_PG") == "1":
        pytest.fail(f"FJMJ_REQUIRE_PG=1 but {why}")
    pytest.skip(why)


@contextmanager
def fresh_pg_database(prefix: str = "fjmj_t_") -> Iterator[str]:
    """A new empty PostgreSQL database (its asyncpg URL), dropped after."""
    unavailable(pg_unavailable())
    name = f"{prefix}{secrets.token_hex(6)}"
    asyncio.run(_pg_exec(f'CREATE DATABASE "{name}"'))
    base = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1)
    try:
        yield f"{base}/{name}"
    finally:
        asyncio.run(_pg_exec(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """CI (``FJMJ_REQUIRE_PG=1``, set by .ci/run) accepts no skipped test at all: a suite that
    skipped because a service, Chromium or Ray was missing must fail, not pass quietly."""
    if os.environ.get("FJMJ_REQUIRE_PG") != "1":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter is not None else 0
    if skipped and exitstatus == 0:
        print(f"\nconftest: {skipped} test(s) skipped under CI (FJMJ_REQUIRE_PG=1): failing")
        session.exitstatus = 1


def pytest_report_header(config: pytest.Config) -> str:
    """Which implementation of the hot modules this run tests (README, compiled or pure)."""
    from fujian_mahjong import _compiled

    return f"fujian_mahjong: {_compiled.status()['reason']}"


# Both stages of `make test` run with ``--dist loadgroup``: each group below runs its tests
# one after another on one worker. In the serial stage (Makefile, SERIAL) the three groups
# run side by side on three workers: "browser" holds what needs a core of its own for seconds
# at a time (Chromium, the signal timing of the CLI's workers); "procs" (clusters of
# processes playing, taking tables over, draining) and "outages" (a 60 s Redis outage, a
# 30 s PostgreSQL one: mostly waiting) hold the multi-process server tests, which spend most
# of their time waiting on sockets, leases and outages and little on the CPU. Never two
# browsers side by side. In the parallel stage (PARALLEL_GROUPS) "ray" keeps the Ray
# instances (private ones, a two-node cluster on loopback) one at a time on one worker, never
# two starting together (tests/test_arena.py marks its Ray test so).
SERIAL_GROUPS = {
    "test_web.py": "browser",
    "test_web_table.py": "browser",
    "test_web_square.py": "browser",
    "test_web_lobby.py": "browser",
    "test_audit_web.py": "browser",
    "test_cli_faults.py": "browser",
    "test_cluster.py": "procs",
    "test_cluster_drain.py": "procs",
    "test_cluster_faults.py": "procs",
    "test_cluster_outage.py": "outages",
    "test_pg_outage.py": "outages",
}


PARALLEL_GROUPS = {"test_ray.py": "ray"}
GROUPS = {**SERIAL_GROUPS, **PARALLEL_GROUPS}  # test module's file name -> its group


# tryfirst: pytest-xdist reads the xdist_group marks in its own pytest_collection_modifyitems
# (on each worker); marks added after it are never seen, and the groups would silently
# spread over the workers.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = GROUPS.get(item.path.name)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: absent under `-p no:xdist`
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """Under ``--dist loadgroup`` a worker names each grouped test ``…@group`` for the
    scheduler; a grouped test without it would be scheduled anywhere. That happened: with
    pytest 9.2, pytest-xdist 3.8's suffix no longer reaches the node id, and two browsers
    ran side by side unnoticed (pyproject.toml keeps pytest below 9.2). Refuse to run so."""
    if node.config.getvalue("dist") != "loadgroup":
        return
    lost = [i for i in ids if i.split("::")[0].rsplit("/", 1)[-1] in GROUPS and "@" not in i]
    if lost:
        raise pytest.UsageError(
            f"--dist loadgroup: {lost[0]} lost its xdist_group: pytest-xdist cannot group "
            "tests under this pytest (tests/conftest.py)"
        )
