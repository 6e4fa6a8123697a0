"""Table leases on PostgreSQL (docs/deploy.md, "Several processes").

One row per live table in ``table_leases`` (migration 0004): its ``owner`` (a process id),
``expires_at`` (the database's clock) and ``epoch``, the fencing token. A process takes a
free or expired lease with one conditional UPDATE (``… WHERE owner IS NULL OR expires_at <
now()``, which adds one to the epoch), renews the leases it holds every ``lease_s / 4``
seconds, and stops its actors when it has not renewed in time: a lease is valid locally
until ``lease_s × 3/4`` after the renewal was *sent* (monotonic clock), before the database
can let another process take it.

Fencing: every write of a table's events (and of its hands, match, seats and settlement)
first reads the table's lease row ``FOR SHARE`` inside the same transaction and commits only
if the epoch is still the writer's (``Store.fences``). A process resumed after a pause
(SIGSTOP past its lease) therefore cannot write a table that another process has taken
since: its transaction sees the new epoch and rolls back (``LeaseLost``). A takeover that
comes while such a transaction holds its share lock waits for it, then reads its events.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger("fjmj.cluster")

# how much of the lease a process trusts locally (the rest covers a slow renewal)
LOCAL_SHARE = 0.75


class Leases:
    """The leases of one process (``node``) on the database behind ``engine``."""

    def __init__(self, engine: AsyncEngine, node: str, lease_s: float) -> None:
        self.engine = engine
        self.node = node
        self.lease_s = float(lease_s)
        # table id -> epoch of every lease this process holds
        self.held: dict[int, int] = {}
        # monotonic time until which the held leases are valid locally
        self.valid_until = 0.0
        # one lease statement at a time in this process (a renewal must not release a
        # lease that a concurrent acquisition has just taken)
        self.lock = asyncio.Lock()

    @property
    def valid(self) -> bool:
        return time.monotonic() < self.valid_until

    def _local_deadline(self, sent: float) -> float:
        return sent + self.lease_s * LOCAL_SHARE

    async def adopt_orphans(self) -> int:
        """A lease row (free) for every live table without one (tables made before the
        cluster ran, or by a single process on the same database)."""
        async with self.lock, self.engine.begin() as c:
            r = await c.execute(
                text(
                    "INSERT INTO table_leases (table_id, owner, epoch, expires_at) "
                    "SELECT t.id, NULL, 0, NULL FROM tables t "
                    "WHERE t.status <> 'closed' ON CONFLICT (table_id) DO NOTHING"
                )
            )
            return int(getattr(r, "rowcount", 0) or 0)

    async def acquire_new(self, table_id: int) -> int:
        """The lease of a table this process has just created (its epoch)."""
        async with self.lock:
            sent = time.monotonic()
            async with self.engine.begin() as c:
                epoch = (
                    await c.execute(
                        text(
                            "INSERT INTO table_leases (table_id, owner, epoch, expires_at) "
                            "VALUES (:t, :me, 1, now() + make_interval(secs => :ttl)) "
                            "ON CONFLICT (table_id) DO UPDATE SET owner = :me, "
                            "epoch = table_leases.epoch + 1, expires_at = EXCLUDED.expires_at "
                            "WHERE table_leases.owner IS NULL "
                            "OR table_leases.expires_at < now() RETURNING epoch"
                        ),
                        {"t": table_id, "me": self.node, "ttl": self.lease_s},
                    )
                ).scalar_one_or_none()
            if epoch is None:
                raise RuntimeError(f"table {table_id}: its lease is held by another process")
            if not self.held:
                self.valid_until = self._local_deadline(sent)
            self.held[table_id] = int(epoch)
            return int(epoch)

    async def take_expired(self, limit: int) -> dict[int, int]:
        """Take up to ``limit`` free or expired leases of live tables: {table id: epoch}."""
        async with self.lock:
            sent = time.monotonic()
            async with self.engine.begin() as c:
                rows = (
                    await c.execute(
                        text(
                            "UPDATE table_leases l SET owner = :me, epoch = l.epoch + 1, "
                            "expires_at = now() + make_interval(secs => :ttl) "
                            "FROM (SELECT tl.table_id FROM table_leases tl "
                            "JOIN tables t ON t.id = tl.table_id WHERE t.status <> 'closed' "
                            "AND (tl.owner IS NULL OR tl.expires_at < now()) "
                            "ORDER BY tl.table_id LIMIT :k FOR UPDATE OF tl SKIP LOCKED) c "
                            "WHERE l.table_id = c.table_id RETURNING l.table_id, l.epoch"
                        ),
                        {"me": self.node, "ttl": self.lease_s, "k": int(limit)},
                    )
                ).all()
            got = {int(r[0]): int(r[1]) for r in rows}
            if got:
                if not self.held:
                    self.valid_until = self._local_deadline(sent)
                self.held.update(got)
            return got

    async def renew(self) -> set[int]:
        """Renew every lease held; release the rows this process owns but no longer holds.
        Returns the tables whose lease was lost (taken by another process)."""
        async with self.lock:
            sent = time.monotonic()
            held = dict(self.held)
            async with self.engine.begin() as c:
                rows = (
                    await c.execute(
                        text(
                            "UPDATE table_leases SET expires_at = now() + "
                            "make_interval(secs => :ttl) WHERE table_id IN ("
                            "SELECT table_id FROM table_leases WHERE owner = :me "
                            "ORDER BY table_id FOR UPDATE) RETURNING table_id, epoch"
                        ),
                        {"me": self.node, "ttl": self.lease_s},
                    )
                ).all()
                mine = {int(r[0]): int(r[1]) for r in rows}
                stray = [t for t, e in mine.items() if held.get(t) != e]
                if stray:
                    await c.execute(
                        text(
                            "UPDATE table_leases SET owner = NULL, expires_at = NULL "
                            "WHERE owner = :me AND table_id = ANY(:ids)"
                        ),
                        {"me": self.node, "ids": stray},
                    )
            lost = {t for t, e in held.items() if mine.get(t) != e}
            for t in lost:
                self.held.pop(t, None)
            self.valid_until = self._local_deadline(sent)
            return lost

    async def release(self, table_ids: Iterable[int], delete: bool = False) -> None:
        """Give leases back (``delete``: the table is closed, its row goes)."""
        ids = [t for t in table_ids if t in self.held]
        if not ids:
            return
        epochs = [self.held.pop(t) for t in ids]
        async with self.lock, self.engine.begin() as c:
            sql = (
                "DELETE FROM table_leases"
                if delete
                else "UPDATE table_leases SET owner = NULL, expires_at = NULL"
            )
            await c.execute(
                text(
                    sql + " WHERE owner = :me AND (table_id, epoch) IN "
                    "(SELECT * FROM unnest(CAST(:ids AS integer[]), CAST(:eps AS bigint[])))"
                ),
                {"me": self.node, "ids": ids, "eps": epochs},
            )

    async def release_all(self) -> None:
        async with self.lock, self.engine.begin() as c:
            await c.execute(
                text("UPDATE table_leases SET owner = NULL, expires_at = NULL WHERE owner = :me"),
                {"me": self.node},
            )
        self.held.clear()

    async def owner_of(self, ref: int | str) -> tuple[int, str | None, bool] | None:
        """(table id, owner, lease live) of the live table with id or code ``ref``; None if
        there is no such live table."""
        params: dict[str, int | str] = {"ref": ref}
        where = "t.id = :ref" if isinstance(ref, int) else "t.code = :ref"
        async with self.engine.connect() as c:
            row = (
                await c.execute(
                    text(
                        "SELECT t.id, l.owner, COALESCE(l.expires_at > now(), false) "
                        "FROM tables t LEFT JOIN table_leases l ON l.table_id = t.id "
                        f"WHERE {where} AND t.status <> 'closed'"
                    ),
                    params,
                )
            ).first()
        if row is None:
            return None
        return int(row[0]), row[1], bool(row[2])

    async def try_take(self, table_id: int) -> int | None:
        """Take one table's lease if it is free or expired (its epoch), else None."""
        async with self.lock:
            sent = time.monotonic()
            async with self.engine.begin() as c:
                epoch = (
                    await c.execute(
                        text(
                            "UPDATE table_leases SET owner = :me, epoch = epoch + 1, "
                            "expires_at = now() + make_interval(secs => :ttl) "
                            "WHERE table_id = :t AND (owner IS NULL OR expires_at < now()) "
                            "RETURNING epoch"
                        ),
                        {"t": table_id, "me": self.node, "ttl": self.lease_s},
                    )
                ).scalar_one_or_none()
            if epoch is None:
                return None
            if not self.held:
                self.valid_until = self._local_deadline(sent)
            self.held[table_id] = int(epoch)
            return int(epoch)
