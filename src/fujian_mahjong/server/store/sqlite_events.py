"""The hot write on SQLite, below SQLAlchemy: the group commit of the hands' events.

Every decision at every table appends its events, and on SQLite those appends from all
tables share one transaction (``Store._write_loop``). Through SQLAlchemy's async engine
that transaction is a session, a greenlet and one aiosqlite thread hop for each of
``BEGIN``, the insert and ``COMMIT``: at 200 tables it cost about half of the server's CPU
per decision (docs/architecture.md, "CPU per decision"). This writer does the same
transaction with the standard library's ``sqlite3`` on one connection of its own, in one
thread: the batch goes there in one hop, is inserted with one ``executemany`` and
committed, and the event loop is woken once.

It is the same database file with the same settings (WAL, ``synchronous=NORMAL``, foreign
keys, a 30 s busy timeout: ``make_engine``), and the same rows as the ORM writes: the
events' JSON as text, encoded as the engine's ``json_serializer`` encodes it. The store's
writer lock (SQLite has one writer) is held around each batch by the caller. Errors come
back as SQLAlchemy's own (``OperationalError``, ``IntegrityError``), so a full disk is the
store fault it is everywhere else (``STORE_FAULTS``).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.exc import DBAPIError

_INSERT = "INSERT INTO events (hand_id, seq, data) VALUES (?, ?, ?)"


class SqliteEventWriter:
    """Appends events to one SQLite file from a thread of its own (one transaction a
    batch)."""

    def __init__(self, path: str, encode: Callable[[Any], str]) -> None:
        self.path = path
        self.encode = encode
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fjmj-events")
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        # autocommit mode: the transaction is the explicit BEGIN … COMMIT below
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def _append(self, rows: Sequence[dict[str, Any]]) -> None:
        """In the writer's thread: one transaction for the whole batch."""
        if self._db is None:
            self._db = self._connect()
        db = self._db
        enc = self.encode
        params = [(r["hand_id"], r["seq"], enc(r["data"])) for r in rows]
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany(_INSERT, params)
            db.execute("COMMIT")
        except sqlite3.Error as e:
            if db.in_transaction:
                db.execute("ROLLBACK")
            # SQLAlchemy's exception for the driver's (OperationalError for a full disk or
            # a locked database, IntegrityError for an event stored twice)
            raise DBAPIError.instance(_INSERT, None, e, sqlite3.Error) from e

    async def append(self, rows: Sequence[dict[str, Any]]) -> None:
        """Commit these event rows (``hand_id``, ``seq``, ``data``); returns when they are."""
        await asyncio.get_running_loop().run_in_executor(self._pool, self._append, rows)

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def close(self) -> None:
        """Close the connection and stop the thread (a batch under way finishes first)."""
        self._pool.submit(self._close)
        self._pool.shutdown(wait=True)
