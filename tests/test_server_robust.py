"""Issue 11 acceptance, the unhappy paths, over a real `fjmj serve` and real WebSockets:
reconnect mid-hand, a deadline passing (the server plays, 托管), malformed and illegal
messages (hypothesis junk included) answered with errors that change nothing, the
connection closed after 20 bad messages in a minute, leaving, the REST lobby."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_server_support import Client, Server, fetch_log, naive, play, spy


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("robust"), claim_pause_ms=20, grace_s=3.0).start()
    yield s
    s.stop()


def _ordered_views(events: list[dict[str, Any]], seat: int) -> list[str]:
    """The seat's views in the order the hand went through them."""
    from fujian_mahjong.engine import Action, Game

    start, end = events[0], events[-1]
    g = Game.new(start["profile"], end["seed"], start["players"], start["dealer"], start["streak"])
    out = []

    def snap() -> None:
        v = g.view(seat)
        v["to_act"] = [seat] if seat in g.to_act() else []
        out.append(json.dumps(v, sort_keys=True, ensure_ascii=False))

    snap()
    while len(g.events) < len(events):
        e = events[len(g.events)]
        g.apply(int(e["seat"]), Action.from_json(e["action"]))
        snap()
    return out


def test_reconnect_mid_hand_resumes_the_seat(server: Server) -> None:
    a, b = server.guest("stay"), server.guest("drop")

    async def attempt() -> tuple[Client, Client, Client, dict] | None:
        t = server.table(a["token"], bots=2, hands=2, turn_seconds=1.0)
        ca = await Client(server.ws_url, a["token"]).connect()
        cb = await Client(server.ws_url, b["token"]).connect()
        await ca.hello_join(t["id"], ready=True)
        await cb.hello_join(t["id"], ready=True)
        stay = asyncio.create_task(play(ca))
        await play(cb, stop_after=2)
        await cb.close()  # dropped: the seat is kept and played at its deadlines (托管)
        await asyncio.sleep(0.3)
        cb2 = await Client(server.ws_url, b["token"]).connect()
        await cb2.hello_join(t["id"])  # hello with the same token + join the same table
        resumed = asyncio.create_task(play(cb2))
        end_a = await stay
        if not cb2.states():  # a bot won while the seat was away: try again
            resumed.cancel()
            for c in (ca, cb2):
                await c.close()
            return None
        end_b = await resumed
        await ca.send({"type": "leave"})  # the match ends here (R9: a leaver ends it)
        await ca.close()
        await cb2.close()
        assert end_a["hand"] == end_b["hand"]
        return ca, cb, cb2, end_b

    async def main() -> tuple[Client, Client, Client, dict]:
        for _ in range(5):
            got = await attempt()
            if got is not None:
                return got
        raise AssertionError("five hands ended while the seat was away")

    ca, cb, cb2, end = asyncio.run(main())
    assert cb2.seat == cb.seat
    events = fetch_log(server, end["hand"])
    order = _ordered_views(events, cb.seat)
    before = [json.dumps(s["view"], sort_keys=True, ensure_ascii=False) for s in cb.states()]
    after = [json.dumps(s["view"], sort_keys=True, ensure_ascii=False) for s in cb2.states()]
    # what the seat saw before, then (resumed) a view at least as late: plus what happened since
    last_before = max(i for i, v in enumerate(order) if v == before[-1])
    first_after = min(i for i, v in enumerate(order) if v == after[0])
    assert first_after >= last_before
    # while it was away its turns were played for it, and the others saw it as 托管
    seats_msgs = [r.msg for r in ca.log if r.msg["type"] in ("seats", "state")]
    assert any(not m["seats"][cb.seat]["connected"] for m in seats_msgs), "the drop was not shown"
    for c in (ca, cb2):
        spy(c, {end["hand"]: events}, c.seat)


def test_deadline_passes_and_the_server_plays_for_the_seat(server: Server) -> None:
    g = server.guest("sleepy")

    async def main(table_id: str) -> tuple[Client, dict]:
        c = await Client(server.ws_url, g["token"]).connect()
        await c.hello_join(table_id, ready=True)
        end = await c.expect("hand_end", timeout=60)  # never acts
        await c.close()
        return c, end

    # the bots may end a hand before this seat is ever asked (天胡, an early win): retry
    for _ in range(6):
        t = server.table(g["token"], bots=3, hands=1, turn_seconds=0.3)
        c, end = asyncio.run(main(t["id"]))
        events = fetch_log(server, end["hand"])
        mine = [e for e in events if e["type"] == "act" and e["seat"] == c.seat]
        if mine:
            break
    assert mine, "the server never played for the seat"
    autos = [r.msg["seats"][c.seat]["auto"] for r in c.log if r.msg["type"] in ("seats", "state")]
    assert any(a is True for a in autos), "托管 never shown to the seat"  # 托管 is visible
    deadlines = [s["deadline_ms"] for s in c.states() if s["view"]["legal_actions"]]
    assert deadlines and all(d is not None and 0 <= d <= 300 for d in deadlines[:1])
    # claims at a deadline are passed; a win is taken when offered (issue 11 item 5)
    for e in mine:
        assert e["action"]["type"] in (
            "pass",
            "win",
            "discard",
            "three_golds",
            "rob_gold",
            "concealed_kong",
            "added_kong",
            "jin_kan",
        )


class _Junk:
    """One server-side table waiting for a human's decision, and its connection."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.loop = asyncio.new_event_loop()
        self.g = server.guest("junk")
        self.table = server.table(self.g["token"], bots=3, hands=1, turn_seconds=300)
        self.client: Client | None = None
        self.state: dict[str, Any] = {}
        self.errors = 0
        self.loop.run_until_complete(self._connect(ready=True))

    async def _connect(self, ready: bool = False) -> None:
        if self.client is not None:
            await self.client.close()
        c = await Client(self.server.ws_url, self.g["token"]).connect()
        await c.hello_join(self.table["id"], ready=ready)
        while True:
            m = await c.recv()
            if m["type"] == "hand_end":  # a bot won before this seat decided: a new table
                self.table = self.server.table(self.g["token"], bots=3, hands=1, turn_seconds=300)
                await c.close()
                c = await Client(self.server.ws_url, self.g["token"]).connect()
                await c.hello_join(self.table["id"], ready=True)
            elif m["type"] == "state" and m["view"]["legal_actions"]:
                break
        self.client, self.state, self.errors = c, m, 0

    def send_junk(self, raw: str) -> dict[str, Any]:
        async def go() -> dict[str, Any]:
            if self.errors >= 15:  # stay under the 20-a-minute limit: a fresh connection
                await self._connect()
            assert self.client is not None
            await self.client.send(raw)
            while True:
                m = await self.client.recv(10)
                # a (re)join announces the seat list and re-sends the current state (and a
                # stale act re-sends it too): the answer to the junk is the next error
                if m["type"] not in ("seats", "state", "seated"):
                    break
            self.errors += 1
            return m

        return self.loop.run_until_complete(go())

    def act(
        self, action: dict[str, Any], want: tuple[str, ...] = ("state", "error")
    ) -> dict[str, Any]:
        async def go() -> dict[str, Any]:
            assert self.client is not None
            await self.client.send({"type": "act", "seq": self.state["seq"], "action": action})
            while True:
                m = await self.client.recv(10)
                if m["type"] in want:
                    return m

        return self.loop.run_until_complete(go())


@pytest.fixture(scope="module")
def junk(server: Server) -> Iterator[_Junk]:
    j = _Junk(server)
    yield j
    if j.client is not None:
        j.loop.run_until_complete(j.client.close())
    j.loop.close()


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda ch: st.lists(ch, max_size=4) | st.dictionaries(st.text(max_size=6), ch, max_size=4),
    max_leaves=12,
)
_bad_type = st.sampled_from(["", "Act", "act ", "hello!", "move", "join2", "state", "error"])
_tile = st.sampled_from(["1m", "9p", "5s", "1z", "8f", "0m", "10p", "x", "", "5pp", "55p"])
_action = st.fixed_dictionaries(
    {"type": st.sampled_from(["discard", "pong", "chow", "kong", "win", "pass", "fly", ""])},
    optional={"tile": _tile | _json, "tiles": _tile | _json},
)


@st.composite
def junk_messages(draw: st.DrawFn) -> Callable[[int], str]:
    """A junk message as a function of the current state's seq (drawn data never depends
    on the server's state, so hypothesis can replay and shrink it)."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        raw = draw(st.text(max_size=40))  # not JSON (or JSON that is not an object)
        return lambda seq: raw
    if kind == 1:
        raw = json.dumps(draw(_json))
        return lambda seq: raw
    if kind == 2:
        raw = json.dumps(
            {
                "type": draw(_bad_type),
                **draw(st.dictionaries(st.text(max_size=5), _json, max_size=3)),
            }
        )
        return lambda seq: raw
    if kind == 3:  # act with a stale or future seq, or a junk seq, and junk fields
        delta = draw(st.integers(-5, 10**9).filter(lambda x: x != 0))
        junk_seq = draw(st.none() | _json)
        action = draw(_action | _json)
        return lambda seq: json.dumps(
            {"type": "act", "seq": seq + delta if junk_seq is None else junk_seq, "action": action}
        )
    if kind == 4:  # join/hello/auto with junk
        raw = json.dumps(
            {
                "type": draw(st.sampled_from(["join", "hello", "auto"])),
                "table": draw(_json),
                "token": draw(_json),
                "on": draw(st.text(max_size=3)),
            }
        )
        return lambda seq: raw
    action = draw(_action)  # the current seq with an action that is (almost surely) illegal
    return lambda seq: json.dumps({"type": "act", "seq": seq, "action": action})


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(build=junk_messages())
def test_junk_gets_errors_and_changes_nothing(junk: _Junk, build: Callable[[int], str]) -> None:
    legal = junk.state["view"]["legal_actions"]
    raw = build(junk.state["seq"])
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = None
    if (
        isinstance(parsed, dict)
        and parsed.get("type") == "act"
        and parsed.get("seq") == junk.state["seq"]
    ):
        if parsed.get("action") in legal:
            return  # a legal action is not junk
    m = junk.send_junk(raw)
    assert m["type"] == "error", m
    assert set(m) == {"type", "code", "message"} and "\n" not in m["message"]
    assert m["message"]


def test_after_junk_the_decision_is_intact(junk: _Junk) -> None:
    """Nothing the junk did changed the table: the same decision is still open and a legal
    action on the same state's seq is applied."""
    assert junk.client is not None
    before = junk.state
    assert not [
        r for r in junk.client.log if r.msg["type"] == "state" and r.msg["seq"] > before["seq"]
    ]
    m = junk.act(naive(before["view"]["legal_actions"]))
    assert m["type"] == "state", m
    # the same action again is now stale
    m2 = junk.act(naive(before["view"]["legal_actions"]), want=("error",))
    assert m2["type"] == "error" and m2["code"] == "stale"


def test_twenty_bad_messages_in_a_minute_close_the_connection(server: Server) -> None:
    g = server.guest("noisy")

    async def main() -> tuple[list[str], int | None]:
        c = await Client(server.ws_url, g["token"]).connect()
        codes = []
        for i in range(25):
            try:
                await c.send("{not json" if i % 2 else json.dumps({"type": "nope"}))
                m = await c.recv(5)
            except (ConnectionError, Exception):
                break
            codes.append(m["code"])
        await c.close()
        return codes, c.closed_code

    codes, closed = asyncio.run(main())
    assert len(codes) == 20 and set(codes) == {"bad_message", "unknown_type"}
    assert closed == 1008


def test_illegal_and_out_of_turn_actions_are_refused(server: Server) -> None:
    from fujian_mahjong.tiles import KIND_STR, parse

    async def main(attempt: int) -> list[dict]:
        a, b = server.guest(f"il1{attempt}"), server.guest(f"il2{attempt}")
        t = server.table(a["token"], bots=2, hands=1, turn_seconds=300)
        ca = await Client(server.ws_url, a["token"]).connect()
        cb = await Client(server.ws_url, b["token"]).connect()
        await ca.hello_join(t["id"], ready=True)
        await cb.hello_join(t["id"], ready=True)
        errs = []
        for _ in range(1200):  # up to a minute on a loaded machine
            turn = [
                (me, other)
                for me, other in ((ca, cb), (cb, ca))
                if me.states()
                and me.states()[-1]["view"]["phase"] == "turn"
                and me.states()[-1]["view"]["legal_actions"]
            ]
            if turn:
                me, other = turn[0]
                s = me.states()[-1]
                held = set(parse(s["view"]["hand"]))
                missing = next(KIND_STR[k] for k in range(27) if k not in held)
                bad = {"type": "discard", "tile": missing}
                await me.send({"type": "act", "seq": s["seq"], "action": bad})
                errs.append(await me.expect("error"))
                if other.states():
                    seq = other.states()[-1]["seq"]
                    await other.send({"type": "act", "seq": seq, "action": {"type": "pass"}})
                    errs.append(await other.expect("error"))
                # the refused actions changed nothing: the same state still takes a legal one
                await me.send(
                    {"type": "act", "seq": s["seq"], "action": naive(s["view"]["legal_actions"])}
                )
                await me.expect("discard")
                break
            await asyncio.sleep(0.05)
        for c in (ca, cb):
            await c.close()
        return errs

    errs: list[dict] = []
    for attempt in range(3):  # a hand can end at the opening, before either human's turn
        errs = asyncio.run(main(attempt))
        if errs:
            break
    assert errs and errs[0]["code"] == "illegal" and "legal:" in errs[0]["message"]
    assert all(e["code"] in ("illegal", "not_your_turn", "stale") for e in errs[1:])


def test_grace_expiry_makes_a_leaver_void_hand_and_match_ends(server: Server) -> None:
    a, b = server.guest("left"), server.guest("right")
    t = server.table(a["token"], bots=2, hands=4, turn_seconds=5)

    async def main() -> tuple[Client, dict, dict]:
        ca = await Client(server.ws_url, a["token"]).connect()
        cb = await Client(server.ws_url, b["token"]).connect()
        await ca.hello_join(t["id"], ready=True)
        await cb.hello_join(t["id"], ready=True)
        await ca.expect("hand_start")
        await cb.close()  # never comes back: after the grace period (3 s here) a leaver
        void = await ca.expect("hand_void", timeout=30)
        me = await ca.expect("match_end", timeout=10)
        await ca.close()
        return cb, void, me

    cb, void, me = asyncio.run(main())
    assert void["leaver"] == cb.seat and me["leaver"] == cb.seat
    assert server.get(f"/api/hands/{void['hand']}/log").status_code == 404  # void: never public
    assert server.get(f"/api/tables/{t['id']}").json()["status"] == "closed"


def test_lobby_rest_contract(server: Server) -> None:
    a, b = server.guest("owner"), server.guest("other")
    auth = {"Authorization": f"Bearer {a['token']}"}
    t = server.table(a["token"], players=4, private=False)
    assert 4 <= len(t["code"]) <= 6 and t["code"].isalpha()
    listed = server.get("/api/tables").json()
    assert any(x["id"] == t["id"] and x["profile"] == "fuzhou-tcy" for x in listed)
    priv = server.table(a["token"], private=True)
    assert all(x["id"] != priv["id"] for x in server.get("/api/tables").json())
    assert server.get(f"/api/tables/{priv['code']}").json()["id"] == priv["id"]
    url = f"{server.base}/api/tables/{t['id']}/bots"
    r = httpx.post(url, headers={"Authorization": f"Bearer {b['token']}"})
    assert r.status_code == 403  # only the creator
    r = httpx.post(url, headers=auth)
    assert r.status_code == 200 and r.json()["bots"] == 1
    r = httpx.delete(url, headers=auth)
    assert r.status_code == 200 and r.json()["bots"] == 0
    assert httpx.delete(url, headers=auth).status_code == 409
    # bad input: one clear line, nothing created
    r = httpx.post(f"{server.base}/api/tables", json={"profile": "nope"}, headers=auth)
    assert r.status_code == 400 and "unknown profile" in r.json()["detail"]
    r = httpx.post(f"{server.base}/api/tables", json={"players": 2}, headers=auth)
    assert r.status_code == 400 and "2" in r.json()["detail"]
    r = httpx.post(f"{server.base}/api/tables", json={}, headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401
    r = httpx.post(f"{server.base}/api/guests", json={"name": "x" * 50})
    assert r.status_code == 422
    assert server.get("/docs").status_code == 200
    assert server.get("/openapi.json").json()["paths"]["/api/tables"]
