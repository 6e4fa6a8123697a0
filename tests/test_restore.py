"""The crash restore decides, the actor takes it on (server/restore.py): a table's rows give
its seats (humans seated as disconnected, with the grace period to come back: R11), its
status and what it does next; every stored decision is replayed on the hand the match deals
(R12). The end-to-end restarts (a real process killed and started again) are
tests/test_server_persist.py's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fujian_mahjong.engine import Game
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.server import commands as C
from fujian_mahjong.server.deals import SecretDeals
from fujian_mahjong.server.restore import rebuild, restored
from fujian_mahjong.server.tablestate import TableConfig

CFG = TableConfig(7, "ABCDEF", 1, "fuzhou-tcy", 4, 20.0, 2, False)


def test_an_open_table_seats_its_humans_as_disconnected_in_seat_order() -> None:
    # the rows in the database's order, not the seats'
    rows = {"seats": {3: (9, "nine", False), 0: (5, "five", False), 1: (None, "Bot 2", True)}}
    r = restored(rows, CFG, SecretDeals(), now=50.0, grace_s=30.0)
    assert r.status == "open" and r.match is None and r.hand is None and r.then == []
    assert [i for i, _s in r.seats] == [0, 1, 3]
    by = dict(r.seats)
    assert by[0].player_id == 5 and by[0].disconnected_at == 50.0 and not by[0].ready
    assert by[1].bot and by[1].ready and by[1].disconnected_at is None
    # R11: each human's grace period, in seat order (the first to end names the leaver)
    assert r.timers == [
        (("grace", 0), 30.0, C.GraceOver(0)),
        (("grace", 3), 30.0, C.GraceOver(3)),
    ]


def _played(seed: str, decisions: int) -> Game:
    deals = SecretDeals()
    m = deals.restore_match("fuzhou-tcy", 4, seed, 0)
    g = deals.next_hand(m)
    for _ in range(decisions):
        seat = g.to_act()[0]
        g.apply(seat, g.legal_actions(seat)[0])
    return g


def test_a_hand_in_progress_is_rebuilt_and_pumped_and_a_finished_match_ends() -> None:
    g = _played("restore-test", 6)
    match = {"id": 3, "seed": "restore-test", "first_dealer": 0, "finished": []}
    rows = {"seats": {i: (None, f"Bot {i + 1}", True) for i in range(4)}, "match": match}
    hand = {"id": 11, "number": 0, "events": list(g.events)}
    r = restored({**rows, "hand": hand}, CFG, SecretDeals(), now=0.0, grace_s=30.0)
    assert r.status == "playing" and r.match_id == 3 and r.then == [C.Pump()]
    assert r.hand is not None and r.hand.id == 11
    assert r.hand.game.events == g.events and r.hand.persisted == len(g.events)
    # between two hands, every hand of the match played: the match ends
    done = TableConfig(7, "ABCDEF", 1, "fuzhou-tcy", 4, 20.0, 0, False)
    r = restored(rows, done, SecretDeals(), now=0.0, grace_s=30.0)
    assert r.status == "between" and r.then == [C.FinishMatch()] and r.hand is None


def test_a_hand_with_no_stored_event_goes_on_from_its_deal() -> None:
    """A hand whose row is stored and none of its events (a bot-only table commits its
    events in batches; a store fault between the row and the first append) restarts from
    its deal, nothing stored yet: nothing of it was shown (commit before send). Before, the
    empty log did not replay and the restore closed the table, its rows left playing."""
    g = _played("restore-test", 0)
    match = {"id": 3, "seed": "restore-test", "first_dealer": 0, "finished": []}
    rows = {"seats": {i: (None, f"Bot {i + 1}", True) for i in range(4)}, "match": match}
    hand = {"id": 11, "number": 0, "events": []}
    r = restored({**rows, "hand": hand}, CFG, SecretDeals(), now=0.0, grace_s=30.0)
    assert r.status == "playing" and r.then == [C.Pump()]
    assert r.hand is not None and r.hand.id == 11 and r.hand.persisted == 0
    assert r.hand.game.events == g.events  # the deal of this match's first hand
    # the stored seed is checked against the match's deal, as a replay checks the events
    assert r.hand.game.seed == g.seed
    wrong = {**hand, "seed": "not-this-hand"}
    with pytest.raises(MahjongError, match="hand 11: the stored seed"):
        restored({**rows, "hand": wrong}, CFG, SecretDeals(), now=0.0, grace_s=30.0)


def test_a_log_cut_inside_a_claim_pause_is_rebuilt_with_what_its_discard_caused() -> None:
    """As a claim pause's notice goes out only the discard is stored; the next draw (when
    nobody could claim it) is stored at the pause's end (docs/architecture.md). A restart
    inside that pause finds the log stopping at the discard: the replay gives the draw
    again and the next pump stores it. Before, "the log ends early" closed the table —
    only when nobody had been asked, which a restart's outcome then told (R12)."""
    g = _played("restore-test", 0)
    cut = None
    while cut is None:
        seat = g.to_act()[0]
        n = len(g.events)
        g.apply(seat, g.legal_actions(seat)[0])
        kinds = [e["type"] for e in g.events[n:]]
        if kinds[:3] == ["act", "discard", "draw"]:
            cut = n + 2  # the act and its discard: the notice
    match = {"id": 3, "seed": "restore-test", "first_dealer": 0, "finished": []}
    rows = {"seats": {i: (None, f"Bot {i + 1}", True) for i in range(4)}, "match": match}
    hand = {"id": 11, "number": 0, "events": [dict(e) for e in g.events[:cut]]}
    r = restored({**rows, "hand": hand}, CFG, SecretDeals(), now=0.0, grace_s=30.0)
    assert r.status == "playing" and r.then == [C.Pump()] and r.hand is not None
    assert r.hand.game.events == g.events  # the draw from the seed and the decisions
    assert r.hand.persisted == cut  # stored at the first pump
    # a finished hand's log is whole: cut short, it is refused (fjmj replay, the API)
    with pytest.raises(MahjongError, match="the log ends early"):
        rebuild(_played("restore-test", 0), g.events[:cut], 11)


def test_a_log_that_does_not_replay_is_refused_naming_the_event() -> None:
    g = _played("restore-test", 4)
    events = [dict(e) for e in g.events]
    bad = len(events) - 1
    events[bad] = {**events[bad], "seat": (int(events[bad].get("seat", 0)) + 1) % 4}
    fresh = _played("restore-test", 0)
    with pytest.raises(MahjongError, match=f"hand 11: stored event {bad}"):
        rebuild(fresh, events, 11)


def _rows_just_after(
    tmp_path: Path, write: str, when: Callable[[dict[str, Any]], bool]
) -> tuple[dict[str, Any], TableConfig, Any, bool]:
    """A one-hand match, a human in 托管 and three bots (in-process, a fake clock): the
    table's rows as a restart would load them right after the store's first ``write`` whose
    keywords pass ``when`` commits — with the table's config, the deal source, and whether
    ``hand_end`` had gone out by then."""
    import asyncio

    from tests.inproc import running

    async def main() -> tuple[dict[str, Any], TableConfig, Any, bool]:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            tid = await h.table(me, bots=3, hands=1)
            await h.seat(me, tid)
            await h.ready(me)
            cfg = h.lobby.tables[tid].cfg  # (the lobby forgets the table once it closes)
            real = getattr(h.store, write)
            seen: dict[str, Any] = {}

            async def spy(*a: Any, **kw: Any) -> Any:
                out = await real(*a, **kw)
                if when(kw) and not seen:
                    [seen["rows"]] = await h.store.load_live_tables({tid})  # as on a restart
                    seen["told"] = bool(me.of_type("hand_end"))
                return out

            setattr(h.store, write, spy)
            await me.send({"type": "auto", "on": True})
            for _ in range(2000):  # a bound against a hang only: a fixed seed's hand
                if seen:
                    break
                await h.advance(0.5)
            assert seen, f"no {write} was reached"
            return seen["rows"], cfg, h.deals, seen["told"]

    return asyncio.run(main())


def test_a_restart_inside_the_last_hands_pause_still_ends_the_match(tmp_path: Path) -> None:
    """R9/R11: the last hand's end is committed (with its settlement and the match's record
    of it) and the table holds its claim pause before hand_end; a restart then finds the
    match still to end — its rows load, and the restore ends it (``FinishMatch``), never an
    open table with no match."""
    rows, cfg, deals, told = _rows_just_after(
        tmp_path, "append_events", lambda kw: kw.get("finish") is not None
    )
    assert not told and rows["match"] is not None
    r = restored(rows, cfg, deals, now=0.0, grace_s=120.0)
    assert r.status == "between" and r.match is not None
    assert r.match.hands_played == 1 and C.FinishMatch() in r.then


def test_a_restart_between_the_matchs_end_and_the_tables_close_closes_the_table(
    tmp_path: Path,
) -> None:
    """The match's end (``EndMatch``) is committed and the table's close is not (a crash
    between the two writes): the table's rows say so (``ended``), and the restore closes it
    rather than opening it again for a new match."""
    rows, cfg, deals, _told = _rows_just_after(tmp_path, "end_match", lambda kw: True)
    assert rows["match"] is None and rows["ended"]
    r = restored(rows, cfg, deals, now=0.0, grace_s=120.0)
    assert r.then == [C.Close("match over")] and r.timers == []


def test_a_restart_right_after_a_leavers_void_hand_does_not_revive_the_match(
    tmp_path: Path,
) -> None:
    """R9/R11: a player who leaves mid-hand voids the hand (with the escape penalty) and
    ends the match in one transaction. The rows a restart loads right after that commit
    — before the table's close — have the match over, so the restore closes the table:
    before, the match's end was a write of its own, and a crash between the two brought
    the table back between hands of a match still being played, the leaver free to sit
    down again and the next hand clashing with the void one's number."""
    import asyncio

    from tests.inproc import running

    async def main() -> tuple[dict[str, Any], TableConfig, Any]:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            tid = await h.table(me, bots=3, hands=2)
            await h.seat(me, tid)
            await h.ready(me)
            await h.advance(3.0)  # the hand is being played
            actor = h.lobby.tables[tid]
            assert actor.hand is not None and not actor.hand.game.is_over()
            cfg = actor.cfg
            real = h.store.void_hand
            seen: dict[str, Any] = {}

            async def spy(*a: Any, **kw: Any) -> Any:
                out = await real(*a, **kw)
                [seen["rows"]] = await h.store.load_live_tables({tid})  # as on a restart
                return out

            h.store.void_hand = spy  # type: ignore[method-assign]
            await me.send({"type": "leave"})
            assert seen and me.of_type("left")  # the hand was voided by the leave
            return seen["rows"], cfg, h.deals

    rows, cfg, deals = asyncio.run(main())
    r = restored(rows, cfg, deals, now=0.0, grace_s=120.0)
    assert r.then == [C.Close("match over")] and r.timers == []


def test_a_bot_only_table_restarted_mid_hand_plays_on(tmp_path: Path) -> None:
    """A table of four bots stores its hand's events in batches (nobody watches it): a
    restart before the first batch finds the hand's row and no event, and the table plays
    the hand again from its deal, to a log that verifies (R12); before, it was closed."""
    import asyncio

    from fujian_mahjong.engine import replay
    from tests.inproc import running

    async def main() -> None:
        async with running(tmp_path) as h:
            me = await h.guest("watcher")
            tid = await h.table(me, bots=4, hands=1)
            await h.advance(0.5)
            first = h.lobby.tables[tid].hand
            assert first is not None and first.persisted == 0 < len(first.game.events)
        async with running(tmp_path) as h:
            await h.settle()  # the restored table's first pump plans its bots' moves
            t = h.lobby.tables.get(tid)
            assert t is not None and t.status == "playing" and t.hand is not None
            assert t.hand.id == first.id
            hid = t.hand.id
            await h.advance(600.0)  # the bots play the hand out
            r = await h.http.get(f"/api/hands/{hid}/log", params={"format": "json"})
            assert r.status_code == 200, r.text
            replay(r.json())

    asyncio.run(main())


def test_a_match_and_its_tables_status_are_one_write(tmp_path: Path) -> None:
    """A new match and its table's status "playing" commit together: a restart between two
    writes found the match beside a table row still "open", which no later write set right,
    so a later restart between the match's end and the table's close found the table open
    and its match ended — and opened it for a new match (R9: a table plays one match). A
    row left so by the old writes is closed by the restore as well."""
    import asyncio

    from tests.inproc import running

    async def main() -> None:
        async with running(tmp_path) as h:
            a = await h.guest("a")
            tid = await h.table(a, bots=3, hands=1)
            match_id = await h.store.create_match(tid, 0, 4, "one-write")
            assert (await h.store.get_table(tid)).status == "playing"
            await h.store.set_table_status(tid, "open")  # as the old two writes left it
            await h.store.end_match(match_id, [0, 0, 0, 0], None)
            [rows] = await h.store.load_live_tables({tid})
            assert rows["ended"] and rows["match"] is None
            r = restored(rows, CFG, SecretDeals(), now=0.0, grace_s=30.0)
            assert r.then == [C.Close("match over")]

    asyncio.run(main())


def test_a_tables_claim_window_survives_a_restart(tmp_path: Path) -> None:
    """The claim window a table is made with (POST /api/tables) is stored with it: a restart
    (or a move to another process, which restores the same rows) took the server's setting
    instead, and a ``fixed`` table came back ``fast``, its pauses then telling who was asked
    (R12; docs/architecture.md, "How long the claim pause lasts")."""
    import asyncio

    from fujian_mahjong.server.deals import FixedDeals
    from fujian_mahjong.server.scheduler import ClaimPace
    from tests.inproc import running

    async def main() -> None:
        for chosen, server in (("fixed", "fast"), ("fast", "auto")):
            data = tmp_path / chosen
            async with running(data, deals=FixedDeals("cw"), claim_window=server) as h:
                a, b = await h.guest("alice"), await h.guest("bob")
                tid = await h.table(a, bots=2, hands=2, claim_window=chosen)
                for c in (a, b):
                    await h.seat(c, tid)
                await h.ready(a, b)
                assert h.lobby.tables[tid].claim_window == chosen
                t = h.lobby.tables[tid]
                before = t.pause._pace(t.match, t.humans)
                # the draws from the match's start, as its first pauses drew them
                first = ClaimPace(before.mode, before.pause_s, before._key)
                first_draws = [first.uniform() for _ in range(8)]
            async with running(data, deals=FixedDeals("cw"), claim_window=server) as h:
                await h.settle()
                assert h.lobby.tables[tid].claim_window == chosen, (chosen, server)
                # the restored match's pauses draw afresh: had they started again from the
                # draws the players saw from the match's start, an unasked pause would
                # repeat one of those to the millisecond, and a repeat says "nobody asked"
                t = h.lobby.tables[tid]
                after = t.pause._pace(t.match, t.humans)
                assert after.mode == before.mode
                assert after._key != before._key
                assert [after.uniform() for _ in range(8)] != first_draws

    asyncio.run(main())


def test_between_two_hands_the_last_hands_end_is_shown_again(tmp_path: Path) -> None:
    """Whoever comes back between two hands — a reload, or a restart right after the hand's
    end was stored, before its ``hand_end`` reached anyone — is shown that ``hand_end``
    again: the result, the totals and the revealed seed (R12). A restart there restored the
    table between hands and sent only the seat list: the result was lost."""
    import asyncio

    from fujian_mahjong.server.deals import FixedDeals
    from fujian_mahjong.server.protocol import server_message
    from tests.inproc import Client, running

    keys = ("hand", "number", "result", "score", "hands", "seed", "totals", "hands_played")

    async def main() -> None:
        async with running(tmp_path, deals=FixedDeals("between")) as h:
            me, tid = await h.alone_with_bots("me", hands=2)
            await me.send({"type": "auto", "on": True})
            for _ in range(2000):  # a bound against a hang only: a fixed seed's hand
                if me.of_type("hand_end"):
                    break
                await h.advance(0.5)
            first = me.last("hand_end")
            assert first is not None and h.lobby.tables[tid].status == "between"
            again = Client(h, me.name, me.token, me.player_id)  # a reload
            await again.send({"type": "hello", "token": me.token})
            await h.seat(again, tid)
            shown = again.last("hand_end")
            assert shown is not None and {k: shown[k] for k in keys} == {k: first[k] for k in keys}
            server_message.validate_python(shown)
            # said to be shown again (the page shows the result at once), unlike the first
            assert shown["again"] is True and "again" not in first
        async with running(tmp_path, deals=FixedDeals("between")) as h:  # a restart
            await h.settle()
            assert h.lobby.tables[tid].status == "between"
            back = Client(h, me.name, me.token, me.player_id)
            await back.send({"type": "hello", "token": me.token})
            await h.seat(back, tid)
            shown = back.last("hand_end")
            assert shown is not None and {k: shown[k] for k in keys} == {k: first[k] for k in keys}
            assert shown["again"] is True

    asyncio.run(main())


def test_a_leave_that_lets_the_hand_play_on_survives_a_restart(tmp_path: Path) -> None:
    """A guest leaves mid-hand where silver moves between two accounts: its seat is played
    to the hand's end and the match ends after it, the guest its leaver, who may not come
    back (docs/economy.md). The leave is stored with the match (``MarkLeaver``): after a
    restart the guest was let back in and the match played on without a leaver."""
    import asyncio
    import sqlite3

    from fujian_mahjong.server.deals import FixedDeals
    from tests.inproc import Client, running
    from tests.test_dissolve import STAKES, account, bearer

    async def main() -> tuple[int, int]:
        async with running(tmp_path, deals=FixedDeals("leave", dealer=0)) as h:
            a, b, g = await account(h, "Anna"), await account(h, "Bo"), await h.guest("guest")
            body = {"profile": "fuzhou-tcy", "hands": 2, "bots": 1, "turn_seconds": 10, **STAKES}
            tid = (await h.http.post("/api/tables", json=body, headers=bearer(a))).json()["id"]
            for c in (a, b, g):
                await h.seat(c, tid)
                await c.send({"type": "auto", "on": True})
            await h.ready(a, b, g)
            await h.advance(8)
            t = h.lobby.tables[tid]
            assert t.hand is not None and not t.hand.game.is_over()
            seat = t.seat_of(g.player_id)
            await g.send({"type": "leave"})
            assert t.pending_leave == seat and t.hand is not None  # the hand plays on
        async with running(tmp_path, deals=FixedDeals("leave", dealer=0)) as h:  # a restart
            await h.settle()
            t = h.lobby.tables[tid]
            assert t.pending_leave == seat and t.seats[seat].auto
            back = Client(h, g.name, g.token, g.player_id)
            await back.send({"type": "hello", "token": g.token})
            await h.seat(back, tid)
            assert "not_now" in back.errors()  # it left: no way back
            for c in (a, b):
                again = Client(h, c.name, c.token, c.player_id)
                await again.send({"type": "hello", "token": c.token})
                await h.seat(again, tid)
                await again.send({"type": "auto", "on": True})
            for _ in range(600):  # a bound against a hang only: a fixed seed's hand
                if tid not in h.lobby.tables:
                    break
                await h.advance(1.0)
            return tid, seat

    tid, seat = asyncio.run(main())
    db = sqlite3.connect(str(tmp_path / "fjmj.sqlite3"))
    rows = db.execute("select status, hands_played, leaver from matches where table_id=?", (tid,))
    assert rows.fetchall() == [("void", 1, seat)]  # the hand played out, then the match ended


def test_an_agreed_dissolution_held_back_by_a_pause_survives_a_restart(tmp_path: Path) -> None:
    """解散房间 agreed inside a claim pause is carried out when the pause ends (R12), but it
    is told at once: so it is stored first (``AgreeDissolution``). A restart in between —
    the database as it was right after the agreement went out — dissolves the match; it
    played on, though every player had been told it was over."""
    import asyncio
    import sqlite3

    from tests.inproc import running
    from tests.test_dissolve import agreed_inside_the_pause

    copy = tmp_path / "copy"
    copy.mkdir()

    async def main() -> int:
        async with running(tmp_path) as h:
            tid, _a, _b, _s = await agreed_inside_the_pause(h)
            src = sqlite3.connect(str(tmp_path / "fjmj.sqlite3"))
            dst = sqlite3.connect(str(copy / "fjmj.sqlite3"))
            src.backup(dst)  # the restart's database: right after everyone was told
            src.close()
            dst.close()
        async with running(copy) as h:
            await h.settle()
            for _ in range(40):  # the restored table carries it out at once
                if tid not in h.lobby.tables:
                    break
                await h.advance(0.25)
            assert tid not in h.lobby.tables
        return tid

    tid = asyncio.run(main())
    db = sqlite3.connect(str(copy / "fjmj.sqlite3"))
    assert db.execute("select status from matches where table_id=?", (tid,)).fetchall() == [
        ("dissolved",)
    ]
    assert db.execute("select status from tables where id=?", (tid,)).fetchone() == ("closed",)


def test_between_hands_a_stored_leave_ends_the_match_and_a_played_match_just_ends() -> None:
    """Rows a restart can find between two commits: the leaver's hand has ended (stored)
    and the match's end was not — the match ends with it as the leaver (the table waited
    for it for ever: it may not come back); the last hand has ended beside an agreed
    dissolution — the match ends as it would have (docs/protocol.md), not dissolved."""
    two = TableConfig(7, "ABCDEF", 1, "fuzhou-tcy", 4, 20.0, 2, False)
    rows = {"seats": {i: (None, f"Bot {i + 1}", True) for i in range(4)}}
    finished = {"id": 3, "seed": "restore-test", "first_dealer": 0, "finished": []}
    left = {**rows, "match": {**finished, "leaver": 2}}
    r = restored(left, two, SecretDeals(), now=0.0, grace_s=30.0)
    assert r.status == "between" and r.pending_leave == 2 and r.then == [C.FinishMatch(2)]
    agreed = {**rows, "match": {**finished, "dissolve_votes": {"0": True, "1": True}}}
    r = restored(agreed, two, SecretDeals(), now=0.0, grace_s=30.0)
    assert r.then == [C.TryDissolve()] and r.agreed == {0: True, 1: True}
    done = TableConfig(7, "ABCDEF", 1, "fuzhou-tcy", 4, 20.0, 0, False)  # its hands played
    r = restored(agreed, done, SecretDeals(), now=0.0, grace_s=30.0)
    assert r.then == [C.FinishMatch()]
