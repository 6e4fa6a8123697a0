"""The events' group commit on SQLite below SQLAlchemy (server/store/sqlite_events.py): the
rows it writes read back through the ORM as the ORM's own would, one transaction a batch
(an event stored twice fails the whole batch, nothing of it kept), its errors are
SQLAlchemy's (a store fault stays a store fault), and a fault injected before the commit
writes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError

from fujian_mahjong.server.store import Store, StoreUnavailable, get_hand_events


class FailNext:
    def __init__(self) -> None:
        self.fail = False

    def before_commit(self) -> None:
        if self.fail:
            self.fail = False
            raise StoreUnavailable("injected")


async def _store(tmp_path: Path, faults: FailNext | None = None) -> tuple[Store, int]:
    store = Store(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}", faults=faults)
    await store.open()
    assert store._events is not None  # the file database takes the writer's path
    p, _ = await store.create_guest("x")
    tid = await store.create_table("ABCDE", p.id, "fuzhou-tcy", 4, 15.0, 1, False, [])
    mid = await store.create_match(tid, 0, 4, "seed")
    hid = await store.create_hand(mid, tid, 0, "fuzhou-tcy", 4, 0, 0, "s", "h", [p.id] * 4)
    return store, hid


async def _events(store: Store, hid: int) -> list[dict[str, object]]:
    async with store.sessions() as s:
        return await get_hand_events(s, hid)


def test_rows_read_back_as_written_and_a_batch_is_one_transaction(tmp_path: Path) -> None:
    async def main() -> None:
        store, hid = await _store(tmp_path)
        try:
            events = [
                {"type": "deal", "hands": [["1m", "金"], []], "n": 2**40, "x": None},
                {"type": "discard", "seat": 1, "tile": "东", "f": 0.5, "ok": True},
            ]
            await store.append_events(hid, 0, events)
            assert await _events(store, hid) == events
            commits = store.commits
            # two tables' appends queued together share one commit (group commit)
            await asyncio.gather(
                store.append_events(hid, 2, [{"type": "a"}]),
                store.append_events(hid, 3, [{"type": "b"}]),
            )
            assert store.commits == commits + 1
            # an event stored twice (seq 3 again) fails its batch as SQLAlchemy's
            # IntegrityError, and the batch's other row is not kept either
            with pytest.raises(IntegrityError):
                await store.append_events(hid, 3, [{"type": "c"}, {"type": "d"}])
            got = await _events(store, hid)
            assert [e["type"] for e in got] == ["deal", "discard", "a", "b"]
            assert not store.failing  # a duplicate is a bug, not a store fault
        finally:
            await store.close()

    asyncio.run(main())


def test_a_fault_before_the_commit_writes_nothing_and_is_a_store_fault(tmp_path: Path) -> None:
    async def main() -> None:
        faults = FailNext()
        store, hid = await _store(tmp_path, faults)
        try:
            faults.fail = True
            with pytest.raises(StoreUnavailable):
                await store.append_events(hid, 0, [{"type": "x"}])
            assert store.failing and store.failures == 1
            assert await _events(store, hid) == []
            await store.append_events(hid, 0, [{"type": "x"}])  # the retry commits
            assert not store.failing
            assert await _events(store, hid) == [{"type": "x"}]
        finally:
            await store.close()

    asyncio.run(main())


def test_the_write_lock_mark_belongs_to_one_transaction(tmp_path: Path) -> None:
    """``mark_write_lock`` (a transaction that has written holds SQLite's write lock, and the
    settlement skips its no-op write, economy._write_first) says nothing of the session's
    next transaction."""
    from fujian_mahjong.server.store import holds_write_lock, mark_write_lock

    async def main() -> None:
        store, _hid = await _store(tmp_path)
        try:
            async with store.sessions() as s:
                async with s.begin():
                    assert not holds_write_lock(s)
                    mark_write_lock(s)
                    assert holds_write_lock(s)
                assert not holds_write_lock(s)  # no transaction
                async with s.begin():
                    assert not holds_write_lock(s)  # a new one has written nothing
        finally:
            await store.close()

    asyncio.run(main())
