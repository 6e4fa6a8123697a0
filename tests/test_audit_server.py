"""Adversarial review of the table server (issues 11-13, R11/R12 rev 2), each finding
demonstrated against a real ``fjmj serve`` process over loopback WebSockets:

- a private table's sequential id opened it to anyone (GET /api/tables/{id} returned its
  code; a WebSocket ``join`` by id let anyone spectate);
- a seat that timed out inside a claim window became 托管 in the public seat list right after
  the window: everybody learnt that seat had been asked (a pair, a chow or a win, R12 rev 2);
- a message over 8 KiB was answered but the socket stayed open;
- ``match_end`` history carried silver from the library Match's in-memory default balances
  (fake figures: the ledger is the truth, issue 12);
- the 听牌 waits were null in ``fuzhou-doudou`` hands holding honours (R1 rev 2).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fujian_mahjong.analysis import is_ready
from fujian_mahjong.engine import Game
from fujian_mahjong.server.table import WINDOW_PHASES, seat_waits
from fujian_mahjong.tiles import counts_of, parse, parse_kind
from tests.test_server_support import Client, Server, naive, play


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("audit"), claim_pause_ms=30, grace_s=5.0).start()
    yield s
    s.stop()


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# ------------------------------------------------------------------ private tables


def test_a_private_table_opens_only_by_its_code(server: Server) -> None:
    owner, stranger = server.guest("owner"), server.guest("stranger")
    priv = server.table(owner["token"], private=True)
    tid, code = priv["id"], priv["code"]
    # the stranger enumerates ids: the private table is indistinguishable from no table
    for headers in ({}, _bearer(stranger["token"])):
        r = server.get(f"/api/tables/{tid}", headers=headers)
        assert r.status_code == 404 and code not in r.text
    missing = server.get("/api/tables/999999")
    assert missing.status_code == 404
    # with the code it is found; its creator finds it by id too (the browser client does)
    assert server.get(f"/api/tables/{code}").json()["id"] == tid
    mine = server.get(f"/api/tables/{tid}", headers=_bearer(owner["token"]))
    assert mine.status_code == 200 and mine.json()["code"] == code

    async def main() -> None:
        c = await Client(server.ws_url, stranger["token"]).connect()
        await c.send({"type": "hello", "token": stranger["token"]})
        await c.expect("welcome")
        for as_ in ("spectator", "player"):
            await c.send({"type": "join", "table": tid, "as": as_})
            err = await c.expect("error")
            assert err["code"] == "no_table", err
        await c.send({"type": "join", "table": code, "as": "spectator"})
        seated = await c.expect("seated")
        assert seated["table"] == tid and seated["seat"] is None
        # while watching (in with the code) the id answers too, e.g. for the browser client
        r = httpx.get(f"{server.base}/api/tables/{tid}", headers=_bearer(stranger["token"]))
        assert r.status_code == 200 and r.json()["code"] == code
        await c.close()
        # the creator joins by id; once seated a player may use the id too
        o = await Client(server.ws_url, owner["token"]).connect()
        await o.hello_join(tid)
        assert o.seat is not None
        await o.close()

    asyncio.run(main())
    # a public table still opens by id for anyone
    pub = server.table(owner["token"])
    assert server.get(f"/api/tables/{pub['id']}").json()["code"] == pub["code"]


# ------------------------------------------------------------------ oversized messages


def test_an_oversized_message_closes_the_socket(server: Server) -> None:
    g = server.guest("big")

    async def main() -> Client:
        c = await Client(server.ws_url, g["token"]).connect()
        await c.send({"type": "hello", "token": g["token"]})
        await c.expect("welcome")
        await c.send(json.dumps({"type": "ping", "pad": "x" * 9000}))
        err = await c.expect("error")
        assert err["code"] == "too_long"
        with pytest.raises(ConnectionError):
            while True:
                await c.recv(timeout=10)
        return c

    c = asyncio.run(main())
    assert c.closed_code == 1008


# ------------------------------------------------------------------ 托管 inside a claim window


def test_a_claim_window_timeout_does_not_name_the_seat_asked(server: Server) -> None:
    """B answers its own turns at once but never a claim prompt: each such prompt times out
    inside a claim window. A must never see B marked 托管 (that would say B was asked to
    answer a discard: a pair, a chow or a win, R12 rev 2); B itself sees it."""
    a, b = server.guest("watcher"), server.guest("claimer")

    async def b_loop(c: Client) -> tuple[int, bool]:
        timeouts, saw_own_auto = 0, False
        while True:
            m = await c.recv(60)
            if m["type"] in ("state", "seats") and m.get("seats"):
                saw_own_auto |= bool(m["seats"][c.seat]["auto"])
            if m["type"] == "hand_end":
                return timeouts, saw_own_auto
            if m["type"] != "state" or not m["view"]["legal_actions"]:
                continue
            if m["view"]["phase"] in WINDOW_PHASES:
                timeouts += 1  # left to its deadline
            else:
                act = naive(m["view"]["legal_actions"])
                await c.send({"type": "act", "seq": m["seq"], "action": act})

    async def attempt() -> tuple[Client, int, bool]:
        t = server.table(a["token"], bots=2, hands=1, turn_seconds=0.3)
        ca = await Client(server.ws_url, a["token"]).connect()
        cb = await Client(server.ws_url, b["token"]).connect()
        await ca.hello_join(t["id"], ready=True)
        await cb.hello_join(t["id"], ready=True)
        a_task = asyncio.create_task(play(ca, timeout=90))
        timeouts, own = await b_loop(cb)
        await a_task
        await ca.close()
        await cb.close()
        return ca, timeouts, own

    async def main() -> tuple[Client, int, bool]:
        for _ in range(6):  # until B was asked at least once (a bot may win at once)
            ca, timeouts, own = await attempt()
            if timeouts:
                return ca, timeouts, own
        raise AssertionError("B was never asked to answer a discard in 6 hands")

    ca, timeouts, own = asyncio.run(main())
    assert timeouts > 0
    assert own, "the seat itself is told it is 托管"
    leaked = [
        r.msg["type"]
        for r in ca.log
        if r.msg.get("seats") and any(s["auto"] and s["name"] == "claimer" for s in r.msg["seats"])
    ]
    assert not leaked, f"A saw the claimer marked 托管 ({len(leaked)} messages)"


# ------------------------------------------------------------------ match_end figures


def test_match_end_history_has_no_fake_silver(server: Server) -> None:
    g = server.guest("points")
    t = server.table(g["token"], bots=3, hands=1, turn_seconds=30)

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        c = await Client(server.ws_url, g["token"]).connect()
        await c.hello_join(t["id"], ready=True)
        end = await play(c, until="hand_end", timeout=60)
        assert end is not None
        me = await c.expect("match_end")
        await c.close()
        return end, me

    end, me = asyncio.run(main())
    assert me["history"], me
    for h in me["history"]:
        assert "silver" not in h and "fees" not in h, h  # Match's defaults are not the ledger
        assert sum(h["payments"]) == 0
    assert me["history"][-1]["payments"] == (end["score"] or {}).get(
        "payments", me["history"][-1]["payments"]
    )
    # a guest plays for points: hand_end shows no silver for it
    assert end["silver"] is None or end["silver"][0] is None or "balance" in end["silver"][0]


# ------------------------------------------------------------------ waits with honours


def test_waits_of_a_doudou_hand_with_honours() -> None:
    melds: list[list[Any]] = [[], [], [], []]
    v = {"profile": "fuzhou-doudou", "seat": 0, "melds": melds, "gold": "5s"}
    assert seat_waits({**v, "hand": "123m456p789s1z1z1z2z2z2z7z"}) == ["5s", "7z"]
    # the gold kind may be an honour there (R5)
    assert seat_waits({**v, "gold": "5z", "hand": "123m456p789s111m222p7s"}) == ["7s", "5z"]
    # elsewhere honours are flowers: a hand text holding one is not a playable hand
    assert seat_waits({**v, "profile": "fuzhou-tcy", "hand": "123m456p789s1z1z1z2z2z2z7z"}) is None
    assert seat_waits({**v, "profile": "fuzhou-tcy", "hand": "123m456p789s111m222p7s"}) == [
        "5s",
        "7s",
    ]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), seat=st.integers(0, 3))
def test_waits_exist_exactly_when_a_doudou_hand_is_ready(seed: int, seat: int) -> None:
    from fujian_mahjong.bots import HeuristicBot

    g = Game.new("fuzhou-doudou", str(seed))
    bot = HeuristicBot()
    checked = 0
    while not g.is_over() and checked < 40:
        v = g.view(seat)
        hand = parse(v["hand"])
        if len(hand) % 3 == 1:
            gold = parse_kind(v["gold"]) if v.get("gold") else None
            ready = is_ready(counts_of(hand, 34), gold, len(v["melds"][seat]), honours=True)
            w = seat_waits(v)
            assert (w is not None) == ready, (v["hand"], v["gold"], w)
            checked += 1
        s = g.to_act()[0]
        g.apply(s, bot.act(g.seat_view(s)).action)


# ------------------------------------------------------------------ hands in progress


def test_every_hand_endpoint_is_404_while_the_hand_is_played(server: Server) -> None:
    g = server.guest("early")
    t = server.table(g["token"], bots=3, hands=1, turn_seconds=300)

    async def main() -> int:
        c = await Client(server.ws_url, g["token"]).connect()
        await c.hello_join(t["id"], ready=True)
        start = await c.expect("hand_start")
        hid = int(start["hand"])
        for path in ("log", "log?format=json", "replay", "review?seat=0", "summary"):
            r = server.get(f"/api/hands/{hid}/{path}")
            if r.status_code == 200:  # a bot won at once: the hand is over already
                assert server.get(f"/api/hands/{hid}").json()["status"] == "over"
                continue
            assert r.status_code == 404, (path, r.status_code)
            assert "seed" not in r.text and "wall" not in r.text
        info = server.get(f"/api/hands/{hid}").json()
        if info["status"] == "playing":
            assert "result" not in info and "seed" not in info
        await c.close()
        return hid

    asyncio.run(main())
    with httpx.Client() as h:
        r = h.get(f"{server.base}/api/hands/99999999/summary")
        assert r.status_code == 404


# ------------------------------------------------------------------ a leave after the end


def test_a_leave_while_the_finished_hand_is_held_still_ends_it_once(tmp_path: Any) -> None:
    """The race: the hand is over (and settled, in the commit of its last events) but its
    ``hand_end`` is still held by the claim pause when a player leaves. Before the fix the
    match ended without that hand: no ``hand_end``, totals without it. Now the hand ends
    once (recorded, announced), the leaver pays no escape penalty (no hand in progress),
    then the match ends. In-process: the table actor on a real SQLite store."""
    import functools
    import time

    from fujian_mahjong.bots import HeuristicBot
    from fujian_mahjong.server.conn import Conn
    from fujian_mahjong.server.lobby import Lobby
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.store import Store

    async def main() -> list[dict[str, Any]]:
        settings = Settings(data_dir=tmp_path, claim_pause_ms=0, bot_delay_ms=0)
        store = Store(settings.database_url, settings.token_ttl_days)
        await store.open()
        try:
            lobby = Lobby(settings, store)
            bot = HeuristicBot()
            for attempt in range(8):
                player, _token = await store.create_guest(f"leaver{attempt}")
                t = await lobby.create(player.id, bots=3, hands=2, turn_seconds=300)
                conn = Conn()
                conn.player_id, conn.name = player.id, "leaver"
                await t.call(functools.partial(t.join, conn, "player"))
                watcher = Conn()  # the leaver's own socket is gone: a spectator sees the end
                watcher.player_id, watcher.name = player.id, "leaver"
                await t.call(functools.partial(t.join, watcher, "spectator"))
                await t.call(functools.partial(t.ready, conn))

                async def finish_but_hold(t: Any = t) -> bool:
                    h = t.hand
                    if h is None:  # the bots (no delay) ended the hand first: try again
                        return False
                    g = h.game
                    while not g.is_over():
                        s = g.to_act()[0]
                        g.apply(s, bot.act(g.seat_view(s)).action)
                    await t._flush(h)  # committed and settled, as _pump does
                    h.hold_until = time.monotonic() + 30  # the end is held by the pause
                    return True

                if await t.call(finish_but_hold):
                    break
            else:
                raise AssertionError("no hand was still in progress after ready, 8 times")
            await t.call(lambda: t.leave(conn))
            out = []
            while not watcher.queue.empty():
                raw = watcher.queue.get_nowait()
                if raw is not None:
                    out.append(json.loads(raw))
            return out
        finally:
            await store.close()

    msgs = asyncio.run(main())
    types = [m["type"] for m in msgs]
    assert "hand_void" not in types
    assert types.count("hand_end") == 1, types
    end = next(m for m in msgs if m["type"] == "hand_end")
    me = next(m for m in msgs if m["type"] == "match_end")
    assert me["hands_played"] == 1 and me["totals"] == end["totals"]
    assert me["leaver"] is not None


# ------------------------------------------------------------------ revoked tokens


def test_a_revoked_token_opens_no_table_even_on_an_open_socket(server: Server) -> None:
    g = server.guest("revoked")
    t = server.table(g["token"], bots=3, hands=1, turn_seconds=60)

    async def main() -> None:
        early = await Client(server.ws_url, g["token"]).connect()
        await early.send({"type": "hello", "token": g["token"]})
        await early.expect("welcome")
        r = httpx.post(f"{server.base}/api/logout", headers=_bearer(g["token"]), timeout=10)
        assert r.status_code == 200
        # the socket that said hello before the logout may not sit down any more
        await early.send({"type": "join", "table": t["id"], "as": "player"})
        err = await early.expect("error")
        assert err["code"] == "bad_token", err
        await early.send({"type": "ready"})
        assert (await early.expect("error"))["code"] == "not_authenticated"
        await early.close()
        # a new hello with the revoked token is refused; REST refuses it too
        late = await Client(server.ws_url, g["token"]).connect()
        await late.send({"type": "hello", "token": g["token"]})
        assert (await late.expect("error"))["code"] == "bad_token"
        await late.close()
        r = httpx.post(f"{server.base}/api/tables", json={}, headers=_bearer(g["token"]))
        assert r.status_code == 401

    asyncio.run(main())
    assert server.get(f"/api/tables/{t['id']}").json()["humans"] == 0


# ------------------------------------------------------------------ guessing codes


def test_guessing_table_codes_is_rate_limited(tmp_path: Any) -> None:
    """A private table's key is its 5-letter code (24^5). Unknown code-shaped lookups are
    limited per address (60 a minute): after that even the right code is refused for a
    while, over REST (429) and over the socket; lookups by id are not affected."""
    import itertools

    srv = Server(tmp_path, claim_pause_ms=30).start()
    try:
        g = srv.guest("guesser")
        priv = srv.table(g["token"], private=True)
        pub = srv.table(g["token"])
        guesses = (
            "".join(p)
            for p in itertools.product("ABCDEFGHJKLMNPQRSTUVWXYZ", repeat=5)
            if "".join(p) not in (priv["code"], pub["code"])
        )
        statuses = [srv.get(f"/api/tables/{next(guesses)}").status_code for _ in range(60)]
        assert statuses == [404] * 60
        r = srv.get(f"/api/tables/{priv['code']}")
        assert r.status_code == 429 and "try again" in r.json()["detail"]
        assert srv.get(f"/api/tables/{pub['id']}").status_code == 200  # ids still work

        async def main() -> None:
            c = await Client(srv.ws_url, g["token"]).connect()
            await c.send({"type": "hello", "token": g["token"]})
            await c.expect("welcome")
            await c.send({"type": "join", "table": priv["code"], "as": "spectator"})
            assert (await c.expect("error"))["code"] == "rate_limited"
            await c.send({"type": "join", "table": pub["id"], "as": "spectator"})
            assert (await c.expect("seated"))["table"] == pub["id"]
            await c.close()

        asyncio.run(main())
    finally:
        srv.stop()


# ------------------------------------------------------------------ after answering a claim


def test_an_answered_seat_cannot_tell_whether_others_were_asked(server: Server) -> None:
    """R12 rev 2: who else was asked is private, also to a seat that was asked itself. A
    answers its claim prompts at once, B (also asked sometimes, on the same discard) takes
    its time. A state showing A the still open window with nothing to do would tell A that
    another seat was asked; after answering, A must hear nothing until the window closes."""
    a, b = server.guest("quick"), server.guest("slow")

    async def seat_loop(c: Client, delay: float, asked: set[tuple[int, int]]) -> None:
        notices = 0
        while True:
            m = await c.recv(60)
            if m["type"] == "discard":
                notices += 1
            elif m["type"] == "hand_start":
                notices = 0
            elif m["type"] == "match_end":
                return
            elif m["type"] == "state" and m["view"]["legal_actions"]:
                if m["view"]["phase"] in WINDOW_PHASES:
                    asked.add((m["hand"], notices))
                    await asyncio.sleep(delay)
                act = naive(m["view"]["legal_actions"])
                await c.send({"type": "act", "seq": m["seq"], "action": act})
            elif m["type"] == "hand_end" and not m["match_over"]:
                await c.send({"type": "ready"})

    async def main() -> tuple[Client, set[tuple[int, int]]]:
        overlap: set[tuple[int, int]] = set()
        ca = None
        for _ in range(8):  # until both are asked on one discard (usually the first match)
            t = server.table(a["token"], bots=2, hands=3, turn_seconds=10)
            ca = await Client(server.ws_url, a["token"]).connect()
            cb = await Client(server.ws_url, b["token"]).connect()
            await ca.hello_join(t["id"], ready=True)
            await cb.hello_join(t["id"], ready=True)
            asked_a: set[tuple[int, int]] = set()
            asked_b: set[tuple[int, int]] = set()
            await asyncio.gather(seat_loop(ca, 0.0, asked_a), seat_loop(cb, 0.25, asked_b))
            await ca.close()
            await cb.close()
            overlap = asked_a & asked_b
            leaked = [
                r.msg
                for r in ca.log
                if r.msg["type"] == "state"
                and r.msg["view"]["phase"] in WINDOW_PHASES
                and not r.msg["view"]["legal_actions"]
            ]
            assert not leaked, f"A saw an open window after answering: {len(leaked)} times"
            if overlap:
                break
        assert ca is not None
        return ca, overlap

    _ca, overlap = asyncio.run(main())
    assert overlap, "A and B were never asked on the same discard (8 matches)"


# ------------------------------------------------------------------ 托管 answers in a window


def test_a_tuoguan_seat_answers_a_claim_window_inside_the_pause(tmp_path: Any) -> None:
    """A 托管 human's claim answers used to wait the bot delay (700 ms by default, longer
    than the 600 ms pause) where bots answer at once: the window then closed late exactly
    when that seat had been asked, and every other seat could time it. Now they answer at
    once like bots, hidden by the pause. In-process: a real SQLite store, the actor's clock."""
    import time

    from fujian_mahjong.server.conn import Conn
    from fujian_mahjong.server.lobby import Lobby
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.store import Store

    pause, bot_delay = 0.02, 0.25

    def _last_discard(msgs: list[dict[str, Any]]) -> int:
        return max((i for i, x in enumerate(msgs) if x["type"] == "discard"), default=0)

    async def main() -> list[float]:
        settings = Settings(data_dir=tmp_path, claim_pause_ms=20, bot_delay_ms=250)
        store = Store(settings.database_url, settings.token_ttl_days)
        await store.open()
        try:
            lobby = Lobby(settings, store)
            player, _token = await store.create_guest("auto")
            t = await lobby.create(player.id, bots=3, hands=1, turn_seconds=60)
            me = Conn()
            me.player_id, me.name = player.id, "auto"
            await t.call(lambda: t.join(me, "player"))
            watcher = Conn()
            watcher.player_id, watcher.name = player.id, "auto"
            await t.call(lambda: t.join(watcher, "spectator"))
            await t.call(lambda: t.set_auto(me, True))
            await t.call(lambda: t.ready(me))
            gaps: list[float] = []
            asked_at: float | None = None
            end = time.monotonic() + 30
            while len(gaps) < 2 and time.monotonic() < end:
                raw = await asyncio.wait_for(watcher.queue.get(), 30)
                if raw is None:
                    break
                m = json.loads(raw)
                now = time.monotonic()
                if m["type"] == "discard":
                    # the seat's own messages of the same pump: its notice, then its state
                    # when it is asked (the notices go out before the states)
                    mine = []
                    while not me.queue.empty():
                        x = me.queue.get_nowait()
                        if x is not None:
                            mine.append(json.loads(x))
                    after = [x for x in mine[_last_discard(mine) :] if x["type"] == "state"]
                    if any(
                        x["view"]["phase"] in WINDOW_PHASES and x["view"]["legal_actions"]
                        for x in after
                    ):
                        asked_at = now  # the 托管 seat was asked to answer this discard
                elif m["type"] == "state" and asked_at is not None:
                    gaps.append(now - asked_at)
                    asked_at = None
                elif m["type"] in ("hand_end", "match_end"):
                    break
            await t.stop()
            return gaps
        finally:
            await store.close()

    gaps: list[float] = []
    for _ in range(5):  # until the 托管 seat was asked (it usually is within a hand)
        gaps = asyncio.run(main())
        if gaps:
            break
    assert gaps, "the 托管 seat was never asked in 5 hands"
    assert all(g < bot_delay * 0.75 for g in gaps), (gaps, pause)
