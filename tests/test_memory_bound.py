"""Memory that plateaus (docs/architecture.md, "Memory"): what a hand and a table leave
behind in a long-running server is bounded. Counts, never the resident set size: rounds of
bot-only tables play a few hundred hands in-process (tests/inproc.py: a fake clock, no bot
delay, no claim pause, fixed seeds), and after each round, once every table has closed,

* the per-table structures (the lobby's maps, the rooms' timers, the store's queues, the
  economy's settlements not yet taken, the event loop's tasks) are back to where they
  were, and no table, hand, game or match object is left alive;
* every memo of the analysis and of the bots stays within its bound: a ``functools`` cache
  has a small ``maxsize`` unless its keys are few and fixed (listed below, with why), and
  the dict memos stay under their caps;
* the rate limiters forget the keys whose window has passed.

``bench/bench_soak.py`` measures the outcome on a real server (100,000 hands)."""

from __future__ import annotations

import asyncio
import gc
import sys
from pathlib import Path
from typing import Any

from fujian_mahjong.engine import Game, Match
from fujian_mahjong.server.deals import SecretDeals
from fujian_mahjong.server.ratelimit import RateLimiter
from tests.inproc import running

ROUNDS = 3
TABLES = 6  # per round: half of random bots (the fastest), half of the default (heuristic)
HANDS = 16  # per table: 3 x 6 x 16 = 288 hands
# the most entries a functools memo over keys met in play may hold: enough for a working
# set, small enough to fill within a busy server's first hours (the seats' waits per hand
# text: 8,192; a memo of suit keys capped at 65,536 was still filling after 100,000 hands:
# docs/architecture.md, "Memory")
MEMO_MAX = 8192

# functools caches with no maxsize, each over keys that are few and fixed (not one per
# hand): their bound is the size of their key space
FIXED_KEYS = {
    "fujian_mahjong.analysis.tables.need_table": "one table",
    "fujian_mahjong.analysis.tables.honour_table": "one table",
    "fujian_mahjong.analysis.tables._kept_build": "a process's first 200 keys, then cleared",
    "fujian_mahjong.analysis.tables._kept_honour_sorted": "sorted honour counts: < 330",
    "fujian_mahjong.analysis.tables.kept_honours": "honour keys: 5**7",
    "fujian_mahjong.analysis.tables.kept_honours_id": "honour keys: 5**7",
    "fujian_mahjong.analysis.core._grp": "the distinct groups: a few thousand",
    "fujian_mahjong.engine.events._adapter": "one adapter",
    "fujian_mahjong.i18n.part": "languages x catalogue parts",
    "fujian_mahjong.i18n.catalogue": "languages",
    "fujian_mahjong.rules.profile.get_profile": "the built-in profiles",
}


class SeededDeals(SecretDeals):
    """A new, fixed seed per match (every table plays different hands, the same every run)."""

    def __init__(self) -> None:
        self.n = 0

    def new_match(self, profile: str, players: int) -> Match:
        self.n += 1
        return Match(profile, f"memory-{self.n}", players, dealer=self.n % players)


def _memos() -> dict[str, tuple[int, int | None]]:
    """Every module-level functools cache of the package: (entries, maxsize)."""
    out: dict[str, tuple[int, int | None]] = {}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("fujian_mahjong") or mod is None:
            continue
        for attr, v in list(vars(mod).items()):
            info = getattr(v, "cache_info", None)
            if callable(info) and getattr(v, "__module__", name) == name:
                ci = info()
                out[f"{name}.{attr}"] = (ci.currsize, ci.maxsize)
    return out


def _table_objects() -> dict[str, int]:
    from fujian_mahjong.server.table import HandState, TableActor

    gc.collect()
    kinds = (TableActor, HandState, Game, Match)
    counts = dict.fromkeys((k.__name__ for k in kinds), 0)
    for o in gc.get_objects():
        for k in kinds:
            if isinstance(o, k):
                counts[k.__name__] += 1
    return counts


def _per_table(h: Any) -> dict[str, int]:
    lobby, store = h.lobby, h.store
    settled = getattr(store.settlement, "_settled", {})
    return {
        "lobby.tables": len(lobby.tables),
        "lobby.codes": len(lobby.codes),
        "lobby.stakes": len(lobby.stakes),
        "lobby.table_rooms": len(lobby.table_rooms),
        "rooms.timers": len(lobby.rooms.timers),
        "store._pending": len(store._pending),
        "store._side": len(store._side),
        "settlements not taken": len(settled),
        "dispatcher.hints": len(h.dispatcher.hints),
        "dispatcher.hinting": len(h.dispatcher.hinting),
        "tasks": len(asyncio.all_tasks()),
    }


def test_closed_bot_tables_leave_nothing_behind(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(
            tmp_path,
            deals=SeededDeals(),
            bot_delay_ms=0,
            claim_pause_ms=0,
            bot_tables_per_player=0,
        ) as h:
            me = await h.guest("soak")
            await h.settle()
            before = _per_table(h)
            objects = _table_objects()
            assert objects == dict.fromkeys(objects, 0)
            hands = 0
            for _ in range(ROUNDS):
                for i in range(TABLES):
                    kind = "random" if i % 2 else None
                    await h.lobby.create(me.player_id, bots=4, hands=HANDS, bot_kind=kind)
                # bots at full speed on the fake clock: every hand plays without time passing
                while h.lobby.tables:
                    await h.settle()
                for _ in range(3):
                    await asyncio.sleep(0)  # the actors' tasks end after their last command
                hands += TABLES * HANDS
                assert _per_table(h) == before
                assert _table_objects() == objects
            assert hands >= 250
            assert h.lobby.closed_actions > 0
            # the memos: bounded by a maxsize, or by a small fixed key space
            memos = _memos()
            unbounded = {k for k, (_, cap) in memos.items() if cap is None}
            assert unbounded <= set(FIXED_KEYS), unbounded - set(FIXED_KEYS)
            for k, (n, cap) in memos.items():
                assert cap is None or n <= cap <= MEMO_MAX, (k, n, cap)
            from fujian_mahjong.analysis import core, tables

            assert len(core._COMBINED) <= core.COMBINED_MAX
            assert len(core._CID) <= core.CID_MAX
            # held and near ranks of a suit key: fixed tables, no memo per key
            assert len(tables._LO_MASK) == 5**5 and len(tables._HI_MASK) == 5**4
            assert len(tables._HELD) == len(tables._NEAR) == 512

    asyncio.run(main())


def test_a_rate_limiter_forgets_the_keys_whose_window_has_passed() -> None:
    """A key is remembered only while one of its hits is in the window: a steady stream of
    new keys (addresses, names) keeps the limiter at the keys of the last window."""
    now = [0.0]
    lim = RateLimiter(3, 60.0, clock=lambda: now[0], max_keys=1_000_000)
    for i in range(10_000):
        lim.hit(f"10.0.{i // 256}.{i % 256}")
        now[0] += 1.0  # one new key a second: 60 in any window
        assert len(lim) <= 61
    assert len(lim) == 60
    # a key still in its window keeps its count
    lim.hit("a")
    lim.hit("a")
    lim.hit("a")
    assert lim.retry_after("a") > 0
    now[0] += 30.0
    lim.hit("b")
    assert lim.retry_after("a") > 0 and len(lim) >= 2
    now[0] += 31.0
    lim.hit("c")
    assert lim.retry_after("a") == 0.0 and "a" not in lim._hits


def test_a_written_session_is_freed_without_the_cycle_collector(tmp_path: Path) -> None:
    """A session whose transaction wrote (``mark_write_lock``, every hand's end) is freed by
    reference counting as it closes: a reference cycle per hand waits for the cyclic
    collector, and the soak's resident memory grew 29 % over 100,000 hands that way."""
    import weakref

    from fujian_mahjong.server.store import holds_write_lock, mark_write_lock

    async def main() -> None:
        async with running(tmp_path) as h:
            gc.collect()
            gc.disable()
            try:
                async with h.store.write() as s:
                    mark_write_lock(s)
                    assert holds_write_lock(s)
                    ref = weakref.ref(s.sync_session)
                del s
                assert ref() is None, "the closed session is still alive"
            finally:
                gc.enable()

    asyncio.run(main())
