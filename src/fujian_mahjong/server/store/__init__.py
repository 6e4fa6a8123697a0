"""Persistence: SQLAlchemy 2 (async) on SQLite (default, aiosqlite) or PostgreSQL (asyncpg),
migrated with Alembic. The database is the source of truth: every hand's events are stored
in order and committed before any message about them is sent (docs/architecture.md).

``Store`` holds the engine and the repositories the server uses. For other modules (the
browser client's replay endpoints, the economy), :func:`get_hand_events` and
:func:`get_hand` read a hand from any ``AsyncSession``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import secrets
import weakref
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, cast

import orjson
from sqlalchemy import Table, Update, bindparam, delete, event, insert, select, text, update
from sqlalchemy.engine import ExceptionContext, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from fujian_mahjong.server.store.models import (
    Base,
    EventRow,
    HandRow,
    MatchRow,
    Player,
    SeatRow,
    TableRow,
    Token,
    utcnow,
)
from fujian_mahjong.server.store.sqlite_events import SqliteEventWriter

__all__ = [
    "Base",
    "DatabaseInUse",
    "EventRow",
    "HandRow",
    "LeaseLost",
    "MatchRow",
    "Player",
    "SeatRow",
    "Store",
    "TableRow",
    "Token",
    "get_hand",
    "get_hand_events",
    "hash_token",
    "lock_sqlite_writer",
    "make_engine",
    "upgrade",
]


log = logging.getLogger(__name__)

# the hot write: each batch of events (group commit) as one executemany
_EVENTS_INSERT = insert(cast(Table, EventRow.__table__))
_HANDS = cast(Table, HandRow.__table__)
# a hand's end (Core statements on the session's connection: the ORM's statement path cost
# more than the write at every hand's end; docs/architecture.md)
_HAND_OVER = (
    update(_HANDS)
    .where(_HANDS.c.id == bindparam("h_id"))
    .values(
        status="over",
        result=bindparam("h_result"),
        score=bindparam("h_score"),
        ended_at=bindparam("h_ended"),
    )
)


# a new hand's row (its values as parameters: building ``.values(...)`` at every hand cost
# more than the insert; docs/architecture.md)
_HAND_INSERT = insert(_HANDS)
_MATCHES = cast(Table, MatchRow.__table__)
# the match's record of a hand it goes on after (R9), with that hand's end
_MATCH_RECORD = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("m_id"))
    .values(hands_played=bindparam("m_played"), totals=bindparam("m_totals"))
)


def mark_write_lock(s: AsyncSession) -> None:
    """This session's transaction has written (on SQLite: it holds the database's write
    lock until it ends). Kept as a weak reference to the transaction itself, so it says
    nothing of a later one and does not keep the transaction (and through it the session)
    alive after the session closes: a strong one made a cycle per written session, freed
    only by the cyclic garbage collector."""
    tx = s.sync_session.get_transaction()
    s.info["write_locked"] = weakref.ref(tx) if tx is not None else None


def holds_write_lock(s: AsyncSession) -> bool:
    """Whether this session's current transaction has written already (``mark_write_lock``)."""
    tx = s.sync_session.get_transaction()
    ref = s.info.get("write_locked")
    return tx is not None and ref is not None and ref() is tx


def _match_update(match_id: int, hands_played: int, totals: Sequence[int], over: bool) -> Update:
    """The match row's record of its hands (R9): hands played, totals, and at the last
    hand its end."""
    t = cast(Table, MatchRow.__table__)
    values: dict[str, Any] = {"hands_played": hands_played, "totals": list(totals)}
    if over:
        values["status"] = "over"
        values["ended_at"] = utcnow()
    return update(t).where(t.c.id == match_id).values(**values)


def hash_token(token: str) -> str:
    """Tokens are stored only as their SHA-256."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _json_text(value: Any) -> str:
    """JSON columns as compact text, encoded by orjson (the server's encoder, server/conn.py):
    every event of every hand is written through this, and the standard library's encoder
    cost more CPU than the rest of a commit (docs/architecture.md, "CPU per decision")."""
    try:
        # string keys (every event's): the plain call, a third cheaper than the option
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        pass
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:  # what orjson refuses (an int past 64 bits)
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def make_engine(url: str, command_timeout_s: float | None = None) -> AsyncEngine:
    """An async engine; SQLite gets WAL, NORMAL sync, foreign keys and a busy timeout;
    PostgreSQL, with ``command_timeout_s``, a bound on each statement and on connecting,
    kept by the client (asyncpg's ``command_timeout``: a silent server cannot keep it) —
    past it the statement fails as a store fault."""
    u = make_url(url)
    if u.get_backend_name() == "sqlite":
        if u.database and u.database != ":memory:":
            Path(u.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30}, json_serializer=_json_text)

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    args: dict[str, Any] = {}
    if command_timeout_s:
        args["command_timeout"] = command_timeout_s
        args["timeout"] = command_timeout_s  # connecting, too
    engine = create_async_engine(
        url,
        pool_size=10,
        max_overflow=20,
        json_serializer=_json_text,
        connect_args=args,
    )
    event.listen(engine.sync_engine, "handle_error", _connection_lost_is_a_store_fault)
    return engine


def _connection_lost_is_a_store_fault(ctx: ExceptionContext) -> BaseException | None:
    """PostgreSQL: a lost connection is a store fault like a full disk (docs/architecture.md,
    "Faults"; docs/deploy.md, "When PostgreSQL restarts"). asyncpg reports a backend ended
    under a query (``pg_terminate_backend``, a restart: SQLSTATE 57P01, 08003) or a server
    still starting (57P03) as a plain ``DBAPIError``, which the store's fault handling
    (``STORE_FAULTS``: the table's retry, REST's 503, ``/readyz``) does not know; it is
    raised as the ``OperationalError`` it is instead (other errors are left as they are)."""
    e = ctx.sqlalchemy_exception
    if not isinstance(e, DBAPIError) or isinstance(e, OperationalError | InterfaceError):
        return None
    state = str(getattr(ctx.original_exception, "sqlstate", None) or "")
    if not (ctx.is_disconnect or state.startswith(("08", "57P"))):
        return None
    return OperationalError(
        e.statement,
        e.params,
        ctx.original_exception,
        connection_invalidated=ctx.is_disconnect,
    )


def head_revision() -> str:
    """The newest migration's revision id (what ``upgrade(url)`` migrates to)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option(
        "script_location", str(Path(__file__).resolve().parent.parent / "migrations")
    )
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head


def _alembic_upgrade(sync_conn: Any, revision: str = "head") -> None:
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option(
        "script_location", str(Path(__file__).resolve().parent.parent / "migrations")
    )
    cfg.attributes["connection"] = sync_conn
    command.upgrade(cfg, revision)


async def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the database at ``url`` to ``revision`` (Alembic, configured in code)."""
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_alembic_upgrade, revision)
    finally:
        await engine.dispose()


class DatabaseInUse(Exception):
    """Another ``fjmj serve`` holds this database (one line: which, and what to do)."""


# PostgreSQL: the advisory lock a server holds on its database for its life (docs/deploy.md,
# "One process"): the two-key form, this constant ("fjmj") and the database's oid, since
# advisory locks are shared by every database of a PostgreSQL server
SERVER_LOCK_CLASS = 0x666A6D6A
# a crashed server's session may outlive it a moment (PostgreSQL notices the closed socket
# at its next read): its successor waits this long for the lock before it is refused
SERVER_LOCK_WAIT_S = 5.0
# how often a server asks that its lock's connection is still there (a round trip a second):
# a PostgreSQL restart, or its backend terminated, ends the session and its lock with it,
# and the lock is taken again once PostgreSQL answers (``Store._keep_server_lock``)
SERVER_LOCK_CHECK_S = 1.0
SERVER_LOCK_RETRY_S = 0.5  # while PostgreSQL does not answer


# the lock files this process holds (open for its whole life: the OS lets go at its end)
_writer_locks: dict[str, int] = {}


def lock_sqlite_writer(url: str) -> Path | None:
    """One server per SQLite database (docs/deploy.md, "One process"): an exclusive
    advisory lock (``flock``) on ``<database>.lock`` beside the file, held until this
    process ends — the OS releases it however the process ends (SIGKILL too), so a restart
    after a crash is never refused — with the holder's pid written in it. Raises
    :class:`DatabaseInUse` naming the other server's pid; returns the lock file (None for
    another database or an in-memory one). Other commands (``fjmj admin``, ``fjmj db``)
    take no lock: SQLite lets them read and write beside the server."""
    u = make_url(url)
    if u.get_backend_name() != "sqlite" or not u.database or u.database == ":memory:":
        return None
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no advisory locks
        return None
    db = Path(u.database).expanduser().resolve()
    lock = db.with_name(db.name + ".lock")
    if str(lock) in _writer_locks:
        return lock
    db.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
        os.close(fd)
        raise DatabaseInUse(
            f"the database {db} is in use by another fjmj serve (pid {holder}); stop it, "
            "or give this one another --data-dir or --db"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode("ascii"))
    _writer_locks[str(lock)] = fd
    return lock


async def get_hand(session: AsyncSession, hand_id: int) -> HandRow | None:
    """A hand's row (status 'playing' | 'over' | 'void'), or None."""
    return await session.get(HandRow, hand_id)


async def get_hand_events(session: AsyncSession, hand_id: int) -> list[dict[str, Any]]:
    """A hand's stored events in order (the JSONL log's lines as dicts). Callers that
    publish them must check that the hand is over first (R12: no early leak)."""
    rows = await session.execute(
        select(EventRow.data).where(EventRow.hand_id == hand_id).order_by(EventRow.seq)
    )
    return [dict(r) for r in rows.scalars()]


class StoreUnavailable(Exception):
    """The database cannot take a write now (what fault injection raises)."""


class ServerLockLost(StoreUnavailable):
    """PostgreSQL: while this server's connection to the database was lost, another
    ``fjmj serve`` took the database's server lock: this one writes nothing more."""


class LeaseLost(StoreUnavailable):
    """Several processes (server/cluster/): this process no longer holds the table's lease,
    so the write was refused (fencing) and nothing of it was stored."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"table {table_id}: this process no longer holds its lease")
        self.table_id = table_id


# the fencing reads (server/cluster/lease.py's ``table_leases``, migration 0004): the lease row
# of each hand's table, or of one table, read FOR SHARE inside the writing transaction
FENCE_SQL = text(
    "SELECT h.id, l.table_id, l.epoch FROM hands h JOIN table_leases l "
    "ON l.table_id = h.table_id WHERE h.id = ANY(:hands) ORDER BY l.table_id "
    "FOR SHARE OF l"
)
FENCE_TABLE_SQL = text("SELECT table_id, epoch FROM table_leases WHERE table_id = :t FOR SHARE")


# what a failing database raises (full disk, lost connection, locked file)
STORE_FAULTS: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    OSError,  # TimeoutError too: a statement past its bound (make_engine)
    PoolTimeout,  # no connection free in the pool within its wait
    StoreUnavailable,
)


# what the server lock's connection raises once PostgreSQL or the session is gone
_LOCK_FAULTS: tuple[type[BaseException], ...] = (*STORE_FAULTS, DBAPIError)


class Settlement(Protocol):
    """What the store calls inside the transaction that ends a hand (R11: the economy,
    server/economy.py ``EconomySettlement``; the app wires it in, the store does not
    import it)."""

    async def settle_hand(
        self,
        s: AsyncSession,
        hand_id: int,
        score: dict[str, Any] | None,
        result: dict[str, Any] | None,
    ) -> Any: ...

    async def settle_void(self, s: AsyncSession, hand_id: int, leaver: int | None) -> Any: ...


class StoreFaults(Protocol):
    """Fault injection (tests): ``before_commit`` is called inside every write transaction
    just before it commits; raising fails (and rolls back) that write, as a full disk or a
    lost database connection would. ``after_commit``, where the faults have it, is called
    once the write has committed; raising there is a commit whose acknowledgement was lost
    (a connection dropped inside COMMIT): the write is stored, the caller told it failed."""

    def before_commit(self) -> None: ...


def _match_end(match_id: int, totals: list[int], leaver: int | None) -> Update:
    """A match's end (R9): void when a leaver ended it, else over, with its totals. Only a
    match still being played: an ended one (dissolved, say) keeps how it ended."""
    return (
        update(MatchRow)
        .where(MatchRow.id == match_id, MatchRow.status == "playing")
        .values(
            status="void" if leaver is not None else "over",
            totals=totals,
            leaver=leaver,
            ended_at=utcnow(),
        )
    )


def _after_commit(faults: StoreFaults | None) -> None:
    hook = getattr(faults, "after_commit", None)
    if hook is not None:
        hook()


def _norm(data: Any) -> Any:
    """An event as the database gives it back (JSON: lists for tuples, string keys)."""
    return orjson.loads(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))


def _batch_hands(b: tuple[list[dict[str, Any]], dict[str, Any] | None, Any]) -> list[int]:
    """The hand ids one pending append writes (its rows and its finish)."""
    hands = [int(r["hand_id"]) for r in b[0][:1]]
    if b[1] is not None:
        hands.append(int(b[1]["hand_id"]))
    return hands


def _answer(
    batch: list[tuple[list[dict[str, Any]], dict[str, Any] | None, asyncio.Future[None]]],
    error: Exception | None,
) -> None:
    """Each pending append of a group commit learns how it ended (its future, unless its
    waiter has gone, or it was answered already: a fenced one)."""
    for _rows, _fin, fut in batch:
        if not fut.done():
            if error is None:
                fut.set_result(None)
            else:
                fut.set_exception(error)


class Store:
    """The server's repositories over one async engine.

    SQLite allows one writer at a time, so writes take an asyncio lock there (no
    ``database is locked`` races between tables); event appends from many tables are
    grouped into one transaction (group commit)."""

    def __init__(
        self,
        url: str,
        token_ttl_days: int = 30,
        faults: StoreFaults | None = None,
        settlement: Settlement | None = None,
        command_timeout_s: float | None = None,
    ) -> None:
        self.url = url
        self.faults = faults
        # R11: settles a hand in the transaction that stores its end (None: hands are
        # stored without silver moving, e.g. a store used only to read or replay)
        self.settlement = settlement
        # the last write failed (cleared by the next one that commits): health says degraded
        self.failing = False
        self.failures = 0  # writes that failed since start (GET /metrics)
        self.command_timeout_s = command_timeout_s
        self.engine = make_engine(url, command_timeout_s)
        # PostgreSQL: the server's lock on its database (``hold_server_lock``)
        self._server_lock: tuple[AsyncEngine, AsyncConnection] | None = None
        self._lock_keeper: asyncio.Task[None] | None = None
        # the PostgreSQL backend that holds it: its pid and when it started (a pid alone may
        # be another session's after a restart)
        self._lock_backend: tuple[int, Any] | None = None
        # another server took the lock while this one's connection was lost: it writes
        # nothing more (``ServerLockLost``), /readyz says so (``server_lock_lost``)
        self.server_lock_lost = False
        # False from the moment the lock's session is found gone until it is taken again:
        # meanwhile nothing is written (another server may be taking the database)
        self._lock_held = True
        self.sqlite = self.engine.dialect.name == "sqlite"
        # SQLite on a file: the events' group commit goes below SQLAlchemy, on a connection
        # and a thread of its own (store/sqlite_events.py); None: through the engine
        database = make_url(url).database
        self._events: SqliteEventWriter | None = None
        if self.sqlite and database and database != ":memory:":
            self._events = SqliteEventWriter(database, _json_text)
        # every session carries the injected faults (tests): the economy's pause and crash
        # points read them from the session (server/economy.py)
        self.sessions = async_sessionmaker(
            self.engine, expire_on_commit=False, info={"faults": faults}
        )
        self.token_ttl = timedelta(days=token_ttl_days)
        self._lock = asyncio.Lock()
        self._pending: list[
            tuple[list[dict[str, Any]], dict[str, Any] | None, asyncio.Future[None]]
        ] = []
        self._writer: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._side: set[asyncio.Task[None]] = set()
        self.commits = 0
        # several processes (server/cluster/): table id -> the epoch of the lease this
        # process holds; every write of a table checks it in the database (fencing). None:
        # one process, nothing is checked
        self.fences: dict[int, int] | None = None
        self.on_fenced: Any = None  # called with a table id whose write was refused

    async def _fence(
        self, s: AsyncSession, table_id: int | None = None, match_id: int | None = None
    ) -> None:
        """Several processes: refuse (LeaseLost) a write of a table whose lease this process
        no longer holds (server/cluster/lease.py). Nothing with one process."""
        if self.fences is None:
            return
        if table_id is None:
            table_id = (
                await s.execute(select(MatchRow.table_id).where(MatchRow.id == match_id))
            ).scalar_one()
        epoch = self.fences.get(table_id)
        row = None if epoch is None else (await s.execute(FENCE_TABLE_SQL, {"t": table_id})).first()
        if row is None or int(row[1]) != epoch:
            if self.on_fenced is not None:
                self.on_fenced(table_id)
            raise LeaseLost(table_id)

    async def _fence_hands(self, s: AsyncSession, hand_ids: list[int]) -> dict[int, int]:
        """Several processes: {hand id: table id} of the hands whose table's lease this
        process no longer holds (their events must not be written)."""
        if self.fences is None or not hand_ids:
            return {}
        rows = (await s.execute(FENCE_SQL, {"hands": sorted(set(hand_ids))})).all()
        seen = {int(r[0]): (int(r[1]), int(r[2])) for r in rows}
        bad: dict[int, int] = {}
        for hid in hand_ids:
            tid, epoch = seen.get(hid, (-1, -1))
            if self.fences.get(tid) != epoch:
                bad[hid] = tid
        if bad and self.on_fenced is not None:
            for tid in set(bad.values()):
                self.on_fenced(tid)
        return bad

    @property
    def dialect_name(self) -> str:
        return str(self.engine.dialect.name)

    @property
    def description(self) -> str:
        """The database in use, without a password."""
        return make_url(self.url).render_as_string(hide_password=True)

    async def open(self) -> None:
        # the migrations on an engine of their own, without the statements' bound: a
        # long migration, or DDL waiting for a lock, is not a fault
        migrate = (
            make_engine(self.url) if self.command_timeout_s and not self.sqlite else self.engine
        )
        try:
            async with migrate.begin() as conn:
                await conn.run_sync(_alembic_upgrade, "head")
        finally:
            if migrate is not self.engine:
                await migrate.dispose()
        self._writer = asyncio.get_running_loop().create_task(self._write_loop())

    async def hold_server_lock(self, shared: bool, wait_s: float | None = None) -> None:
        """PostgreSQL: one server per database, as SQLite's ``lock_sqlite_writer`` — unless
        they form a cluster (``--redis``: leases and fences keep each table to one of them).
        A process alone takes the database's advisory lock exclusively, each process of a
        cluster shared, on a connection of its own held until ``close``: two servers alone,
        or one alone beside a cluster, would each run the same tables and write them
        (docs/deploy.md). Raises :class:`DatabaseInUse` when it is held otherwise; a no-op
        on SQLite."""
        if self.sqlite or self.dialect_name != "postgresql" or self._server_lock is not None:
            return
        engine = make_engine(self.url, self.command_timeout_s)
        loop = asyncio.get_running_loop()
        end = loop.time() + (SERVER_LOCK_WAIT_S if wait_s is None else wait_s)
        conn = await engine.connect()
        try:
            while True:
                got = await self._try_server_lock(conn, shared)
                if got or loop.time() >= end:
                    break
                await asyncio.sleep(0.2)
        except BaseException:
            await conn.close()
            await engine.dispose()
            raise
        if not got:
            await conn.close()
            await engine.dispose()
            if shared:
                raise DatabaseInUse(
                    f"the database {self.description} is in use by a fjmj serve without "
                    "--redis; stop it first (a cluster's processes share a database, a "
                    "process alone does not)"
                )
            raise DatabaseInUse(
                f"the database {self.description} is in use by another fjmj serve (alone, "
                "or a cluster's); stop it, or give this one another --db (several processes "
                "on one database: --redis)"
            )
        self._server_lock = (engine, conn)
        self._lock_keeper = loop.create_task(self._keep_server_lock(shared))

    async def _try_server_lock(self, conn: AsyncConnection, shared: bool) -> bool:
        fn = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
        row = (
            await conn.execute(
                text(
                    f"SELECT {fn}(:k, (SELECT oid::int FROM pg_database"
                    " WHERE datname = current_database())), pg_backend_pid(),"
                    " (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())"
                ),
                {"k": SERVER_LOCK_CLASS},
            )
        ).one()
        await conn.commit()  # a session lock: it outlives the transaction
        if row[0]:
            self._lock_backend = (int(row[1]), row[2])
        return bool(row[0])

    async def _keep_server_lock(self, shared: bool) -> None:
        """The lock lives as long as its session: a PostgreSQL restart or a terminated
        backend ends both. Every ``SERVER_LOCK_CHECK_S`` the connection is asked; once it
        is gone, this server writes nothing (``write`` refuses: a store fault its tables
        retry) until the lock is taken again on a new connection, as soon as PostgreSQL
        answers. When another server has taken it meanwhile, this one writes nothing more
        (``server_lock_lost``): the database is the other's now."""
        while self._server_lock is not None and not self.server_lock_lost:
            await asyncio.sleep(SERVER_LOCK_CHECK_S)
            if self._server_lock is None:
                return
            engine, conn = self._server_lock
            try:
                await conn.execute(text("SELECT 1"))
                await conn.commit()
                continue
            except _LOCK_FAULTS:
                pass
            self._lock_held = False
            log.warning("the server lock's connection to PostgreSQL was lost; taking it again")
            with suppress(Exception):
                await conn.invalidate()
            await self._retake_server_lock(engine, shared)

    async def _retake_server_lock(self, engine: AsyncEngine, shared: bool) -> None:
        old = self._lock_backend
        failures = 0
        while self._server_lock is not None:
            conn: AsyncConnection | None = None
            try:
                conn = await engine.connect()
                got = await self._retake_on(conn, shared, old)
            except _LOCK_FAULTS as e:
                if conn is not None:
                    with suppress(Exception):
                        await conn.close()
                failures += 1
                if failures == 1 or failures % 60 == 0:
                    log.warning("the server lock cannot be taken again yet: %s", e)
                await asyncio.sleep(SERVER_LOCK_RETRY_S)  # PostgreSQL is not back yet
                continue
            except BaseException:
                if conn is not None:
                    with suppress(Exception):
                        await conn.close()
                raise
            if got:
                self._server_lock = (engine, conn)
                self._lock_held = True
                log.warning("the server lock on %s is held again", self.description)
                return
            with suppress(Exception):
                await conn.close()
            self.server_lock_lost = True
            log.error(
                "another fjmj serve took the database %s while this server's connection "
                "was lost: this one writes nothing more; stop it",
                self.description,
            )
            return

    async def _retake_on(
        self, conn: AsyncConnection, shared: bool, old: tuple[int, Any] | None
    ) -> bool:
        """Take the lock on this new connection: True once it is held; False when another
        server holds it. This server's own old session (a connection cut between the two
        that PostgreSQL has not noticed yet) is ended first, and it is waited for up to
        ``SERVER_LOCK_WAIT_S``, as a starting server waits for a dead one's."""
        loop = asyncio.get_running_loop()
        end = loop.time() + SERVER_LOCK_WAIT_S
        while True:
            if await self._try_server_lock(conn, shared):
                return True
            holders = {
                (int(r[0]), r[1])
                for r in await conn.execute(
                    text(
                        "SELECT l.pid, a.backend_start FROM pg_locks l JOIN"
                        " pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory'"
                        " AND l.granted AND l.classid = :k AND l.objsubid = 2 AND l.database"
                        " = (SELECT oid FROM pg_database WHERE datname = current_database())"
                    ),
                    {"k": SERVER_LOCK_CLASS},
                )
            }
            if old is not None and old in holders:
                # the pid and its start together: after a restart a pid may be another's
                await conn.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                        " WHERE pid = :p AND backend_start = :s"
                    ),
                    {"p": old[0], "s": old[1]},
                )
            await conn.commit()
            others = holders - {old} if old is not None else holders
            if others and loop.time() >= end:
                return False  # held by another server, not by this one's old session
            await asyncio.sleep(0.2)

    async def release_server_lock(self) -> None:
        """Give the server's lock back (``hold_server_lock``), the store left open."""
        if self._lock_keeper is not None:
            self._lock_keeper.cancel()
            try:
                await self._lock_keeper
            except asyncio.CancelledError:
                pass
            except Exception:
                log.exception("the server lock's keeper had failed")
            self._lock_keeper = None
        if self._server_lock is not None:
            engine, conn = self._server_lock
            self._server_lock = None
            with suppress(Exception):
                await conn.close()
            await engine.dispose()

    async def close(self) -> None:
        await self.release_server_lock()
        if self._writer is not None:
            self._writer.cancel()
            with suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        if self._events is not None:
            self._events.close()
        await self.engine.dispose()

    @asynccontextmanager
    async def _counted(self) -> AsyncIterator[None]:
        """One write, counted: a store fault sets ``failing`` (health says degraded) and
        counts in ``failures``; a write that commits clears ``failing``."""
        try:
            yield
        except STORE_FAULTS:
            self.failing = True
            self.failures += 1
            raise
        self.failing = False

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A session in one transaction, committed at the end (serialised on SQLite)."""
        async with self._counted():
            if self.server_lock_lost:
                raise ServerLockLost("another fjmj serve holds this database now")
            if not self._lock_held:
                raise StoreUnavailable("the server lock is being taken again")
            if self.sqlite:
                async with self._lock, self.sessions() as s, s.begin():
                    yield s
                    if self.faults is not None:
                        self.faults.before_commit()
            else:
                async with self.sessions() as s, s.begin():
                    yield s
                    if self.faults is not None:
                        self.faults.before_commit()
            _after_commit(self.faults)

    @asynccontextmanager
    async def table_write(self, table_id: int) -> AsyncIterator[AsyncSession]:
        """A write of one table's rows by the process that holds it: ``write()``, with the
        table's lease checked in the same transaction first (several processes: a process
        that lost the table is refused, ``LeaseLost``; one process: nothing is checked).
        For writes made above the store (the economy's, e.g. a dissolution)."""
        async with self.write() as s:
            await self._fence(s, table_id)
            yield s

    # ------------------------------------------------------------------ players and tokens

    async def create_guest(self, name: str) -> tuple[Player, str]:
        token = secrets.token_urlsafe(32)
        async with self.write() as s:
            p = Player(name=name, kind="guest", created_at=utcnow())
            s.add(p)
            await s.flush()
            s.add(
                Token(
                    token_hash=hash_token(token),
                    player_id=p.id,
                    created_at=utcnow(),
                    expires_at=utcnow() + self.token_ttl,
                    revoked=False,
                )
            )
        return p, token

    async def player_for_token(self, token: str) -> Player | None:
        """The player a live token belongs to (None if unknown, expired or revoked)."""
        async with self.sessions() as s:
            row = (
                await s.execute(
                    select(Player, Token)
                    .join(Token, Token.player_id == Player.id)
                    .where(Token.token_hash == hash_token(token))
                )
            ).first()
        if row is None:
            return None
        player, tok = row
        exp = tok.expires_at
        if exp.tzinfo is None:
            exp = exp.replace(tzinfo=UTC)
        if tok.revoked or exp <= datetime.now(UTC):
            return None
        return player

    # ------------------------------------------------------------------ tables

    async def create_table(
        self,
        code: str,
        creator_id: int,
        profile: str,
        players: int,
        turn_seconds: float,
        hands: int,
        private: bool,
        bots: list[int],
        stakes: dict[str, int] | None = None,
        room: str | None = None,
        max_balance: int | None = None,
        bot_kind: str | None = None,
        house_bots: bool = False,
        claim_window: str | None = None,
    ) -> int:
        """A new table, its bot seats and (R11) its stakes row, in ONE transaction: no
        join can find the table before its minimum balance is there to check. ``room``:
        the quick-match room it belongs to (server/rooms.py), ``max_balance`` the room's
        upper bound on the balance to sit down, ``bot_kind`` its bots' kind (None: the
        server's default), ``house_bots`` whether its bots play for the house account
        (docs/economy.md), ``claim_window`` its claim window (None: the server's)."""
        from fujian_mahjong.server.store.economy_models import TableStakes

        async with self.write() as s:
            t = TableRow(
                code=code,
                creator_id=creator_id,
                profile=profile,
                players=players,
                turn_seconds=turn_seconds,
                hands=hands,
                private=private,
                status="open",
                created_at=utcnow(),
                room=room,
                claim_window=claim_window,
            )
            s.add(t)
            await s.flush()
            for seat in bots:
                s.add(
                    SeatRow(table_id=t.id, seat=seat, player_id=None, bot=True, bot_kind=bot_kind)
                )
            if stakes is not None:
                s.add(
                    TableStakes(
                        table_id=t.id, max_balance=max_balance, house_bots=house_bots, **stakes
                    )
                )
            return t.id

    async def code_taken(self, code: str) -> bool:
        async with self.sessions() as s:
            return (
                await s.execute(select(TableRow.id).where(TableRow.code == code))
            ).first() is not None

    async def set_seat(
        self,
        table_id: int,
        seat: int,
        player_id: int | None,
        bot: bool,
        free: bool = False,
        bot_kind: str | None = None,
        check: Callable[[AsyncSession], Awaitable[None]] | None = None,
    ) -> None:
        """A seat's row written (or freed). ``check``: run first in the same transaction;
        whatever it raises rolls the write back (server/writes.py: one table for silver)."""
        async with self.write() as s:
            await self._fence(s, table_id)
            if check is not None:
                await check(s)
            await s.execute(
                delete(SeatRow).where(SeatRow.table_id == table_id, SeatRow.seat == seat)
            )
            if not free:
                s.add(
                    SeatRow(
                        table_id=table_id,
                        seat=seat,
                        player_id=player_id,
                        bot=bot,
                        bot_kind=bot_kind,
                    )
                )

    async def set_table_status(self, table_id: int, status: str) -> None:
        async with self.write() as s:
            await self._fence(s, table_id)
            values: dict[str, Any] = {"status": status}
            if status == "closed":
                values["closed_at"] = utcnow()
            await s.execute(update(TableRow).where(TableRow.id == table_id).values(**values))

    async def get_table(self, table_id: int) -> TableRow | None:
        async with self.sessions() as s:
            return await s.get(TableRow, table_id)

    # ------------------------------------------------------------------ matches and hands

    async def create_match(self, table_id: int, first_dealer: int, players: int, seed: str) -> int:
        """A new match's row; the table's match of this (secret, random) seed if it is
        stored already — the retry of a commit whose acknowledgement was lost (see
        ``_in_doubt``), which inserted a second match of the same seed before."""
        async with self.write() as s:
            await self._fence(s, table_id)
            stored = (
                await s.execute(
                    select(_MATCHES.c.id).where(
                        _MATCHES.c.table_id == table_id,
                        _MATCHES.c.seed == seed,
                        _MATCHES.c.status == "playing",
                        _MATCHES.c.hands_played == 0,
                    )
                )
            ).first()
            if stored is not None:
                log.warning("store: match %s found committed after a lost commit", stored[0])
                return int(stored[0])
            m = MatchRow(
                table_id=table_id,
                first_dealer=first_dealer,
                seed=seed,
                status="playing",
                hands_played=0,
                totals=[0] * players,
                created_at=utcnow(),
            )
            s.add(m)
            # the table is in play with its match, in one transaction: a restart between
            # two writes found the match and a table still "open", which no later write
            # set right (its ended match then looked like none, and the table reopened)
            await s.execute(
                update(TableRow).where(TableRow.id == table_id).values(status="playing")
            )
            await s.flush()
            return m.id

    async def finish_match_hand(
        self, match_id: int, hands_played: int, totals: list[int], over: bool
    ) -> None:
        """The match's record of a finished hand (hands played, totals; ``over``: the
        match's end). A hand's end stored by ``append_events`` with ``finish["match"]``
        writes its record in the hand's own transaction instead (never its end)."""
        async with self.write() as s:
            await self._fence(s, match_id=match_id)
            await (await s.connection()).execute(
                _match_update(match_id, hands_played, totals, over)
            )

    async def mark_leaver(self, match_id: int | None, seat: int) -> None:
        """The seat that left a match still being played (effects.MarkLeaver): its row's
        ``leaver``, read back by a restart (``load_live_tables``)."""
        await self._note_on_match(match_id, leaver=seat)

    async def agree_dissolution(self, match_id: int | None, votes: dict[str, Any]) -> None:
        """An agreed 解散房间 not carried out yet (effects.AgreeDissolution)."""
        await self._note_on_match(match_id, dissolve_votes=votes)

    async def _note_on_match(self, match_id: int | None, **values: Any) -> None:
        """``values`` on a match still being played (an ended one is left as it ended)."""
        if match_id is None:
            return
        async with self.write() as s:
            await self._fence(s, match_id=match_id)
            await s.execute(
                update(MatchRow)
                .where(MatchRow.id == match_id, MatchRow.status == "playing")
                .values(**values)
            )

    async def end_match(self, match_id: int | None, totals: list[int], leaver: int | None) -> None:
        if match_id is None:
            return
        async with self.write() as s:
            await self._fence(s, match_id=match_id)
            await s.execute(_match_end(match_id, totals, leaver))

    async def create_hand(
        self,
        match_id: int,
        table_id: int,
        number: int,
        profile: str,
        players: int,
        dealer: int,
        streak: int,
        seed: str,
        seed_sha256: str,
        seat_players: list[int | None],
        bot_kinds: list[str | None] | None = None,
    ) -> int:
        """A new hand's row. ``bot_kinds``: the bot kind of each seat (None for a human;
        the list None: every bot is the server's default), which anchors the skill rating
        (server/rating.py)."""
        try:
            async with self.write() as s:
                await self._fence(s, table_id)
                # a Core insert (the ORM's unit of work cost more than the row, every hand)
                r = await (await s.connection()).execute(
                    _HAND_INSERT,
                    {
                        "match_id": match_id,
                        "table_id": table_id,
                        "number": number,
                        "profile": profile,
                        "players": players,
                        "dealer": dealer,
                        "streak": streak,
                        "seed": seed,
                        "seed_sha256": seed_sha256,
                        "status": "playing",
                        "seat_players": seat_players,
                        "bot_kinds": bot_kinds,
                        "created_at": utcnow(),
                    },
                )
                key = r.inserted_primary_key
                assert key is not None
                return int(key[0])
        except IntegrityError:
            # the match's hand of this number is stored: an earlier try committed and its
            # acknowledgement was lost (see _in_doubt). The same deal (its secret seed) is
            # that row; anything else is a real conflict
            async with self.sessions() as s:
                row = (
                    await s.execute(
                        select(_HANDS.c.id, _HANDS.c.seed, _HANDS.c.table_id).where(
                            _HANDS.c.match_id == match_id, _HANDS.c.number == number
                        )
                    )
                ).first()
            if row is None or row.seed != seed or row.table_id != table_id:
                raise
            log.warning("store: hand %s found committed after a lost commit", row.id)
            return int(row.id)

    async def void_hand(
        self,
        hand_id: int,
        leaver: int | None = None,
        match_id: int | None = None,
        totals: list[int] | None = None,
    ) -> None:
        """A hand voided by ``leaver`` (R11); with ``match_id``, its match ended by the
        leave (R9) in the same transaction, as ``end_match`` ends it."""
        async with self.write() as s:
            bad = await self._fence_hands(s, [hand_id])
            if bad:
                raise LeaseLost(bad[hand_id])
            await s.execute(
                update(HandRow)
                .where(HandRow.id == hand_id)
                .values(status="void", ended_at=utcnow())
            )
            # R11: the leaver's escape penalty, in the same transaction, once
            if self.settlement is not None:
                await self.settlement.settle_void(s, hand_id, leaver)
            if match_id is not None and totals is not None:
                await s.execute(_match_end(match_id, totals, leaver))

    async def append_events(
        self,
        hand_id: int,
        start: int,
        events: Sequence[Mapping[str, Any]],
        finish: dict[str, Any] | None = None,
    ) -> None:
        """Store events ``start…`` of a hand (and, with ``finish``, mark it over with its
        ``result`` and ``score``, settle it, and with ``finish["match"]`` — ``match_id``,
        ``hands_played``, ``totals`` — record it in its match, all in one transaction) — committed
        when this returns. Appends from many tables share one transaction (group commit)."""
        rows = [{"hand_id": hand_id, "seq": start + i, "data": e} for i, e in enumerate(events)]
        fin = None if finish is None else {"hand_id": hand_id, **finish}
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((rows, fin, fut))
        self._wake.set()
        await fut

    async def _write_loop(self) -> None:
        heavy: deque[tuple[list[dict[str, Any]], dict[str, Any] | None, asyncio.Future[None]]]
        heavy = deque()
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            # plain appends of every table share one transaction; a hand's final events
            # (with its status and settlement) get their own, after them, so the few heavy
            # end-of-hand transactions never hold up the discards of the other tables
            plain = [b for b in batch if b[1] is None]
            if plain:
                await self._commit(plain)
            for b in batch:
                if b[1] is None:
                    continue
                if self.sqlite:
                    heavy.append(b)
                else:
                    # PostgreSQL takes concurrent writers: don't hold up the next batch
                    task = asyncio.get_running_loop().create_task(self._commit([b]))
                    self._side.add(task)
                    task.add_done_callback(self._side.discard)
            if heavy:
                # SQLite has one writer: one end-of-hand transaction, then the appends that
                # came meanwhile again, so a discard waits behind at most one hand's end,
                # not behind every hand that ended at once (docs/architecture.md). A hand's
                # own earlier appends were committed before its end was queued, and its
                # table waits for that end before it writes anything else.
                await self._commit([heavy.popleft()])
                if heavy:
                    self._wake.set()

    async def _commit(
        self,
        batch: list[tuple[list[dict[str, Any]], dict[str, Any] | None, asyncio.Future[None]]],
    ) -> None:
        if self._events is not None and self.fences is None and all(b[1] is None for b in batch):
            await self._commit_events(batch)
            return
        fenced: dict[int, int] = {}
        try:
            async with self.write() as s:
                if self.fences is not None:
                    # several processes: only the tables this process still holds write
                    fenced = await self._fence_hands(s, [h for b in batch for h in _batch_hands(b)])
                    if fenced:
                        lost = [b for b in batch if set(_batch_hands(b)) & fenced.keys()]
                        for b in lost:
                            b[2].set_exception(LeaseLost(fenced[_batch_hands(b)[0]]))
                        batch = [b for b in batch if b not in lost]
                rows = [r for b in batch for r in b[0]]
                if rows:
                    # a Core insert of the table (executemany): the ORM's bulk path built
                    # every row again and cost more than the write (docs/architecture.md)
                    conn = await s.connection()
                    await conn.execute(_EVENTS_INSERT, rows)
                for _rows, fin, _fut in batch:
                    if fin is not None:
                        conn = await s.connection()
                        await conn.execute(
                            _HAND_OVER,
                            {
                                "h_id": fin["hand_id"],
                                "h_result": fin.get("result"),
                                "h_score": fin.get("score"),
                                "h_ended": utcnow(),
                            },
                        )
                        # SQLite: this transaction holds the write lock now (economy.py)
                        mark_write_lock(s)
                        match = fin.get("match")
                        if match is not None:
                            # the match's record of the hand, with the hand's end (never
                            # its end: that is EndMatch's own write)
                            await conn.execute(
                                _MATCH_RECORD,
                                {
                                    "m_id": match["match_id"],
                                    "m_played": match["hands_played"],
                                    "m_totals": list(match["totals"]),
                                },
                            )
                        # R11: the hand is settled in this same transaction, once
                        if self.settlement is not None:
                            await self.settlement.settle_hand(
                                s, fin["hand_id"], fin.get("score"), fin.get("result")
                            )
            self.commits += 1
        except IntegrityError as e:
            await self._in_doubt(batch, e)
            return
        except Exception as e:
            _answer(batch, e)
            return
        _answer(batch, None)

    async def _commit_events(
        self,
        batch: list[tuple[list[dict[str, Any]], dict[str, Any] | None, asyncio.Future[None]]],
    ) -> None:
        """SQLite, one process: the plain appends of every table in one transaction on the
        event writer's own connection (store/sqlite_events.py), under the writer lock."""
        assert self._events is not None
        rows = [r for b in batch for r in b[0]]
        try:
            async with self._counted(), self._lock:
                if self.faults is not None:
                    self.faults.before_commit()
                await self._events.append(rows)
                _after_commit(self.faults)
            self.commits += 1
        except IntegrityError as e:
            await self._in_doubt(batch, e)
            return
        except Exception as e:
            _answer(batch, e)
            return
        _answer(batch, None)

    async def _in_doubt(
        self,
        batch: list[tuple[list[dict[str, Any]], dict[str, Any] | None, asyncio.Future[None]]],
        error: IntegrityError,
    ) -> None:
        """A group commit refused because some of its events are stored already: an earlier
        try of an append committed although its acknowledgement was lost (a connection
        dropped inside COMMIT, which PostgreSQL cannot tell the client about), and its
        table tried again. A transaction commits whole, so an append whose events are all
        stored, the same, committed then (with its hand's end and settlement, if it had
        them): it is answered as committed. One whose first events are stored, the same,
        and the rest not (more were added to the retry) keeps only the rest. The other
        appends of the batch are committed again without those. An append whose events
        differ from those stored keeps the error (two writers of one hand: never hidden),
        and the batch goes on without it. Without this a lost acknowledgement refused that
        table's writes, and those of every table sharing its transactions, for good."""
        done: list[Any] = []
        rest: list[Any] = []
        bad: list[Any] = []
        trimmed = False
        try:
            async with self.sessions() as s:
                for b in batch:
                    stored = await self._stored(s, b[0])
                    if stored is None:
                        bad.append(b)
                    elif stored == len(b[0]) and (b[1] is None or await self._over(s, b[1])):
                        done.append(b)
                    else:
                        if stored:
                            del b[0][:stored]  # the stored part committed then
                            trimmed = True
                        rest.append(b)
        except Exception as e:  # the database is unreachable again: the tables retry
            _answer(batch, e)
            return
        if done or trimmed:
            log.warning("store: appends found committed after a lost commit (%d)", len(done))
        _answer(done, None)
        _answer(bad, error)
        if rest and (done or bad or trimmed):
            await self._commit(rest)  # without what was in the way: it can now go through
        else:
            _answer(rest, error)

    async def _over(self, s: AsyncSession, fin: dict[str, Any]) -> bool:
        """The hand an append ends is stored as over (its end committed)."""
        status = (
            await s.execute(select(_HANDS.c.status).where(_HANDS.c.id == int(fin["hand_id"])))
        ).scalar_one_or_none()
        return status == "over"

    async def _stored(self, s: AsyncSession, rows: list[dict[str, Any]]) -> int | None:
        """How many of these event rows, from the first, are stored the same; None when
        the stored rows differ or leave gaps (not a retry of this append)."""
        if not rows:
            return 0
        hand_id = int(rows[0]["hand_id"])
        seqs = [int(r["seq"]) for r in rows]
        ev = cast(Table, EventRow.__table__)
        got = {
            int(seq): data
            for seq, data in (
                await s.execute(
                    select(ev.c.seq, ev.c.data).where(
                        ev.c.hand_id == hand_id, ev.c.seq >= min(seqs), ev.c.seq <= max(seqs)
                    )
                )
            ).all()
        }
        n = 0
        while n < len(rows) and int(rows[n]["seq"]) in got:
            r = rows[n]
            if _norm(r["data"]) != _norm(got[int(r["seq"])]):
                return None
            n += 1
        if any(int(r["seq"]) in got for r in rows[n:]):
            return None
        return n

    # ------------------------------------------------------------------ reading

    async def hand_log(self, hand_id: int) -> tuple[HandRow | None, list[dict[str, Any]]]:
        """A hand's row and, once it has ended (over, or void: R12), its stored events."""
        async with self.sessions() as s:
            h = await get_hand(s, hand_id)
            if h is None or h.status not in ("over", "void"):
                return h, []
            return h, await get_hand_events(s, hand_id)

    async def table_stakes(self, table_id: int) -> dict[str, int] | None:
        """A table's stakes row as a dict (R11), or None (a points-only table)."""
        from fujian_mahjong.server.store.economy_models import TableStakes

        async with self.sessions() as s:
            row = await s.get(TableStakes, table_id)
        if row is None:
            return None
        return {k: int(getattr(row, k)) for k in ("stake", "base", "fee", "cap", "min_balance")}

    async def delete_idle_guests(
        self, idle_days: float, now: datetime | None = None, batch: int = 1000
    ) -> int:
        """Delete guests that can never come back and left nothing behind: made more than
        ``idle_days`` ago, with no token still usable (every one expired or revoked: a
        guest cannot log in again), and never seated — no seat, no table of their own, no
        hand (``hands.seat_players``, ``hand_results``), no account, no ledger row. Their
        tokens go with them (ON DELETE CASCADE). At most ``batch`` per call; returns how
        many were deleted."""
        from sqlalchemy import exists

        from fujian_mahjong.server.store.economy_models import (
            Account,
            HandResultRow,
            LedgerRow,
        )

        now = now or datetime.now(UTC)
        cutoff = now - timedelta(days=idle_days)
        live_token = exists().where(
            Token.player_id == Player.id,
            Token.revoked.is_(False),
            Token.expires_at > now,
        )
        q = (
            select(Player.id, Player.created_at)
            .where(
                Player.kind == "guest",
                Player.created_at < cutoff,
                ~live_token,
                ~exists().where(SeatRow.player_id == Player.id),
                ~exists().where(TableRow.creator_id == Player.id),
                ~exists().where(HandResultRow.player_id == Player.id),
                ~exists().where(Account.player_id == Player.id),
                ~exists().where(LedgerRow.player_id == Player.id),
            )
            .order_by(Player.id)
            .limit(batch)
        )
        async with self.sessions() as s:
            rows = (await s.execute(q)).all()
            if not rows:
                return 0
            ids = {int(r[0]) for r in rows}
            # a guest who sat through a hand appears in its seat list even after leaving
            # the seat: look through the hands made since the oldest candidate was
            oldest = min(r[1] for r in rows)
            hands = await s.stream(
                select(HandRow.seat_players)
                .where(HandRow.created_at >= oldest)
                .execution_options(yield_per=500)
            )
            async for (seat_players,) in hands:
                ids.difference_update(p for p in seat_players or () if p is not None)
                if not ids:
                    return 0
        async with self.write() as s:
            # the same conditions again, inside the write (a guest may have sat meanwhile)
            res = await s.execute(
                delete(Player)
                .where(
                    Player.id.in_(sorted(ids)),
                    Player.kind == "guest",
                    ~live_token,
                    ~exists().where(SeatRow.player_id == Player.id),
                    ~exists().where(TableRow.creator_id == Player.id),
                )
                .execution_options(synchronize_session=False)
            )
        return int(getattr(res, "rowcount", 0) or 0)

    async def load_live_tables(self, only: set[int] | None = None) -> list[dict[str, Any]]:
        """Every table not closed (``only``: of these ids), with its seats, its current
        match (finished hands' logs) and its unfinished hand with the stored events — what a
        restart needs; ``ended``: the table is in play but its match has ended."""
        from fujian_mahjong.server.store.economy_models import Account, TableStakes

        out: list[dict[str, Any]] = []
        q = select(TableRow).where(TableRow.status != "closed").order_by(TableRow.id)
        if only is not None:
            q = q.where(TableRow.id.in_(sorted(only)))
        async with self.sessions() as s:
            tables = (await s.execute(q)).scalars().all()
            for t in tables:
                seats: dict[int, tuple[int | None, str, bool]] = {}
                kinds: dict[int, str | None] = {}
                accounts: set[int] = set()
                rows = (
                    await s.execute(
                        select(SeatRow, Player, Account.player_id)
                        .outerjoin(Player, Player.id == SeatRow.player_id)
                        .outerjoin(Account, Account.player_id == SeatRow.player_id)
                        .where(SeatRow.table_id == t.id)
                    )
                ).all()
                for seat, player, account in rows:
                    name = player.name if player is not None else f"Bot {seat.seat + 1}"
                    seats[seat.seat] = (seat.player_id, name, seat.bot)
                    kinds[seat.seat] = seat.bot_kind
                    if account is not None:
                        accounts.add(int(account))
                entry: dict[str, Any] = {
                    "table": t,
                    "seats": seats,
                    "accounts": accounts,  # the seated players with an account (R11)
                    "bot_kinds": kinds,
                    "match": None,
                    "hand": None,
                }
                stake_row = await s.get(TableStakes, t.id)
                entry["house_bots"] = bool(stake_row is not None and stake_row.house_bots)
                entry["stakes"] = (
                    None
                    if stake_row is None
                    else {
                        k: int(getattr(stake_row, k))
                        for k in ("stake", "base", "fee", "cap", "min_balance")
                    }
                )
                m = (
                    (
                        await s.execute(
                            select(MatchRow)
                            .where(MatchRow.table_id == t.id, MatchRow.status == "playing")
                            .order_by(MatchRow.id.desc())
                        )
                    )
                    .scalars()
                    .first()
                )
                if m is not None:
                    hands = (
                        (
                            await s.execute(
                                select(HandRow)
                                .where(HandRow.match_id == m.id)
                                .order_by(HandRow.number)
                            )
                        )
                        .scalars()
                        .all()
                    )
                    finished = []
                    finished_ids = []  # (id, number) of each: the last one's end is shown again
                    for h in hands:
                        if h.status == "over":
                            finished.append(await get_hand_events(s, h.id))
                            finished_ids.append((h.id, h.number))
                        elif h.status == "playing":
                            entry["hand"] = {
                                "id": h.id,
                                "number": h.number,
                                "profile": h.profile,
                                "players": h.players,
                                "dealer": h.dealer,
                                "streak": h.streak,
                                "seed": h.seed,
                                "events": await get_hand_events(s, h.id),
                            }
                    entry["match"] = {
                        "id": m.id,
                        "seed": m.seed,
                        "first_dealer": m.first_dealer,
                        "finished": finished,
                        "finished_ids": finished_ids,
                        # a seat that left while the match goes on to its hand's end
                        "leaver": m.leaver,
                        # an agreed 解散房间 not carried out yet
                        "dissolve_votes": m.dissolve_votes,
                    }
                # a table in play whose match is not: its match ended and the table's close
                # was not stored yet (a crash between the two writes); restore.py closes it.
                # An open table with an ended match is one too (a table plays one match):
                # before its match and its status were one write, a restart between them
                # left the row open for good
                entry["ended"] = m is None and (
                    t.status == "playing"
                    or (
                        await s.execute(select(MatchRow.id).where(MatchRow.table_id == t.id))
                    ).first()
                    is not None
                )
                out.append(entry)
        return out
