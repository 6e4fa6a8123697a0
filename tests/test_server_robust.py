"""The table server's unhappy paths (docs/protocol.md), in-process (tests/inproc.py: the
real app and dispatcher, a fake clock, recording clients, fixed or stacked deals — each test
is one scripted hand that reaches its situation at a known event): reconnect mid-hand, a
deadline passing (the server plays, 托管; inside a claim window only a pass, no 托管), malformed
and illegal messages (hypothesis junk included) answered with errors that change nothing,
the connection closed after 20 bad messages in a minute, leaving (a leaver voids the hand
and ends the match; the grace period), hints and 托管 on request, the REST lobby."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fujian_mahjong.engine import Action
from fujian_mahjong.engine.replay import fresh_game
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.server.deals import FixedDeals
from fujian_mahjong.server.settings import OPENING_S
from fujian_mahjong.server.visibility import WINDOW_PHASES
from fujian_mahjong.tiles import KIND_STR, parse
from tests.inproc import Client, Harness, StackedDeals, game_of_wall, running, stacked
from tests.test_table_support import (
    fetch_log,
    guest,
    naive,
    play,
    reconnect,
    seat_of,
    spy,
    table,
    times,
    verify_with_cli,
)

T = TypeVar("T")
PAUSE = 0.6  # the harness's claim pause (600 ms)


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def _ordered_views(events: list[dict[str, Any]], seat: int) -> list[str]:
    """The seat's views in the order the hand went through them."""
    g = fresh_game(events)
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


async def _code(h: Harness, tid: int, owner: Client) -> str:
    """A table's code (REST; a private table by id for its creator)."""
    r = await h.http.get(f"/api/tables/{tid}", headers={"Authorization": f"Bearer {owner.token}"})
    assert r.status_code == 200, r.text
    return str(r.json()["code"])


def _asked(c: Client) -> int:
    """How many states asked this client something."""
    return sum(1 for m in c.of_type("state") if m["view"]["legal_actions"])


def _seat_flags(c: Client, seat: int, flag: str, since: int = 0) -> list[bool]:
    """``flag`` of ``seat`` in every seat list ``c`` received (seats and state messages),
    from its message ``since`` on."""
    return [m["seats"][seat][flag] for m in c.messages[since:] if m["type"] in ("seats", "state")]


# ------------------------------------------------------------------------ reconnecting


def test_reconnect_mid_hand_resumes_the_seat(tmp_path: Path) -> None:
    """Seed "s3" (two humans at seats 0 and 1, two bots): seat 1 drops when its third
    decision, on its own turn, is open; its deadline passes (托管, shown to the others with
    the drop) and the hand goes on; it comes back on a new connection (`seated`, then a fresh
    state), acts again (托管 ends) and plays the hand to its end."""

    async def main() -> None:
        async with running(tmp_path, deals=FixedDeals("s3", dealer=0)) as h:
            a, b = await guest(h, "stay"), await guest(h, "drop")
            tid = await table(h, a, bots=2, hands=2, turn_seconds=5)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.ready(a, b)
            assert (seat_of(a), seat_of(b)) == (0, 1)

            def at_third_turn() -> bool:
                st = b.state
                return _asked(b) >= 3 and st is not None and st["view"]["phase"] == "turn"

            await play(h, [a, b], until=at_third_turn)
            assert b.legal and not b.of_type("hand_end")
            before = [m["view"] for m in b.of_type("state")]
            await b.disconnect()  # dropped: the seat is kept and played at its deadlines (托管)
            dropped_at, mark = h.clock.now(), len(a.messages)
            assert not a.of_type("hand_void")

            def played_for_b() -> bool:
                return any(_seat_flags(a, 1, "auto"))

            await play(h, [a], until=played_for_b)
            assert h.clock.now() - dropped_at >= 5  # its deadline, not earlier
            assert not a.of_type("hand_end"), "the hand ended while the seat was away"
            assert False in _seat_flags(a, 1, "connected", mark), "the drop was not shown"

            b2 = await reconnect(h, b)  # hello with the same token, join the same table
            await h.seat(b2, tid)
            assert seat_of(b2) == 1
            # seated, then at once a fresh state of the seat (this hand: not inside a pause)
            assert [m["type"] for m in b2.messages[:3]] == ["welcome", "seated", "state"]
            mark = len(a.messages)
            await play(h, [a, b2], until=lambda: bool(a.of_type("hand_end")))
            assert _asked(b2) >= 1, "the resumed seat was never asked"
            flags = _seat_flags(a, 1, "auto", mark)
            assert flags[0] is True and flags[-1] is False  # 托管 ends when it acts again
            assert _seat_flags(a, 1, "connected", mark)[-1] is True
            await play(h, [a, b2], until=lambda: bool(b2.of_type("hand_end")))
            end = a.of_type("hand_end")[0]
            assert b2.of_type("hand_end")[0]["hand"] == end["hand"]
            assert not end["match_over"]
            await a.send({"type": "leave"})  # between hands: the match ends (R9: a leaver)
            assert a.last("left") is not None
            me = b2.last("match_end")
            assert me is not None and me["leaver"] == 0 and me["hands_played"] == 1

            events = await fetch_log(h, end["hand"])
            order = _ordered_views(events, 1)
            before_keys = [json.dumps(v, sort_keys=True, ensure_ascii=False) for v in before]
            after = [
                json.dumps(m["view"], sort_keys=True, ensure_ascii=False)
                for m in b2.of_type("state")
            ]
            # what the seat saw before, then (resumed) a view at least as late
            last_before = max(i for i, v in enumerate(order) if v == before_keys[-1])
            first_after = min(i for i, v in enumerate(order) if v == after[0])
            assert first_after > last_before  # it was played for while away
            # while it was away its turn was played for it (at its deadline)
            acts = [e for e in events if e["type"] == "act"]  # order[i]: after i of them
            away = [e for e in acts[last_before:first_after] if e["seat"] == 1]
            assert away, "nothing was played for the seat while it was away"
            for c, seat in ((a, 0), (b, 1), (b2, 1)):
                spy(c, {end["hand"]: events}, seat, 600)

    run(main())


def test_reconnect_inside_a_claim_pause_gets_the_last_state_then_the_notice(
    tmp_path: Path,
) -> None:
    """Seat 0's 5p asks seat 1 (CLAIM_DEAL below). Seat 2 drops and comes back inside the
    window: `seated`, the last state it saw, the pending `discard` notice, then nothing
    until the window is closed and the pause over; the seat list of the others never
    changes inside the window (it would say when something happened there)."""
    wall = stacked(CLAIM_DEAL, tail="9s")

    async def main() -> None:
        async with running(tmp_path, deals=StackedDeals([wall])) as h:
            a, b, c = [await guest(h, n) for n in ("a", "b", "c")]
            tid = await table(h, a, bots=1, turn_seconds=20)
            for x in (a, b, c):
                await h.seat(x, tid)
            await h.ready(a, b, c)
            await h.advance(PAUSE)
            last = c.state
            assert last is not None
            t0 = h.clock.now()
            await a.act({"type": "discard", "tile": "5p"})
            assert b.legal and b.state is not None and b.state["view"]["phase"] == "claims"
            mark_a = len(a.messages)
            await c.disconnect()
            await h.advance(0.2)
            c2 = await reconnect(h, c)
            await h.seat(c2, tid)
            got = c2.messages[1:]
            # docs/protocol.md: the last state it saw, then the pending notice
            assert [m["type"] for m in got] == ["seated", "state", "discard"]
            state = next(m for m in got if m["type"] == "state")
            notice = next(m for m in got if m["type"] == "discard")
            assert state["view"] == last["view"] and state["deadline_ms"] is None
            assert (notice["seat"], notice["tile"]) == (0, "5p")
            await h.advance(0.3)
            await b.act({"type": "pass"})
            await h.advance(PAUSE - 0.5 - 0.001)
            assert len(c2.messages) == 4 and a.messages[mark_a:] == []
            await h.advance(0.001)
            # the pause is over: the next turn's state, then the seat list that changed
            assert [m["type"] for m in c2.messages[4:]] == ["state", "seats"]
            assert [m["type"] for m in a.messages[mark_a:]] == ["state", "seats"]
            assert round(times(c2)[4] - t0, 6) == PAUSE
            assert c2.messages[4]["view"]["phase"] == "turn"
            await play(h, [a, b, c2], until=lambda: bool(c2.of_type("hand_end")))
            end = c2.of_type("hand_end")[0]
            events = await fetch_log(h, end["hand"])
            for x, seat in ((a, 0), (b, 1), (c, 2)):
                spy(x, {end["hand"]: events}, seat, 600)
            # (the notice before the re-sent last state would read as a cut pause: from the
            # state after the pause on; what came before it is checked above)
            # from after the re-sent notice: it came late (the reconnect), the pause had not
            spy(c2, {end["hand"]: events}, 2, 600, since=4)

    run(main())


# ------------------------------------------------------------------------ deadlines, 托管


def test_deadline_passes_and_the_server_plays_for_the_seat(tmp_path: Path) -> None:
    """Seed "s12" (one human, the dealer, and three bots): the human never acts. Each
    deadline passes exactly on time; 托管 is shown; at every deadline and after it, claims
    are passed and a win is taken when offered (this hand: the human's self-drawn win)."""
    turn = 3.0

    async def main() -> None:
        async with running(tmp_path, deals=FixedDeals("s12", dealer=0)) as h:
            me = await guest(h, "sleepy")
            tid = await table(h, me, bots=3, turn_seconds=turn)
            await h.seat(me, tid)
            await h.ready(me)
            await h.advance(PAUSE)
            st = me.state
            assert st is not None and st["view"]["legal_actions"]
            # the first decision of a hand has its full time after the opening (docs/protocol.md)
            assert st["deadline_ms"] == round((OPENING_S + turn) * 1000)
            asked_at = times(me)[-1]
            await h.advance(OPENING_S + turn - 0.001)
            assert not me.of_type("discard"), "the server acted before the deadline"
            await h.advance(0.001)
            first = me.of_type("discard")[0]
            assert first["seat"] == 0
            assert round(times(me)[me.messages.index(first)] - asked_at, 6) == round(
                OPENING_S + turn, 6
            )
            await h.advance(PAUSE)
            assert any(_seat_flags(me, 0, "auto")), "托管 never shown to the seat"
            await play(h, [], until=lambda: bool(me.of_type("hand_end")))
            end = me.of_type("hand_end")[0]
            events = await fetch_log(h, end["hand"])
            assert spy(me, {end["hand"]: events}, 0, 600) > 5

            # replay the hand: every decision of seat 0 was the 托管 rule
            g = fresh_game(events)
            claims = wins = 0
            while len(g.events) < len(events):
                e = events[len(g.events)]
                a = Action.from_json(e["action"])
                if e["seat"] == 0:
                    legal = g.legal_actions(0)
                    if g.phase in WINDOW_PHASES:
                        assert a.type == "pass", e  # a claim at a deadline: passed
                        claims += 1
                    elif any(x.type == "win" for x in legal):
                        assert a.type == "win", e  # a win is taken when offered
                        wins += 1
                g.apply(int(e["seat"]), a)
            assert claims >= 1 and wins == 1
            assert g.win is not None and g.win["winner"] == 0

    run(main())


# The dealer (seat 0) discards 5p first: seat 1 alone may claim it (pong), see
# tests/test_server_play.py. Nobody holds a gold (9s) or a flower.
CLAIM_DEAL = {
    0: "123m456m789m123p457s9p5p",
    1: "5p5p1s1s2m2m3s3s6m6m8p8p9m9m6s7s",
    2: "1m2m3m4m6p7p8p2s4s6s8s7p6p1s4m4p",
    3: "3m4m5m6m7m8m9m1p2p3p4p7s8s2s3s4s",
}


def test_a_deadline_inside_a_claim_window_is_only_a_pass(tmp_path: Path) -> None:
    """R12 rev 2: seat 1 is asked about seat 0's 5p and lets its deadline pass. The server
    passes for it and sets no 托管 (docs/protocol.md, "Acting"): nobody, seat 1 included,
    sees it marked (a mark would tell the others seat 1 had been asked). Its next own-turn
    deadline makes it 托管, for everyone."""
    wall = stacked(CLAIM_DEAL, tail="9s")
    g = game_of_wall(wall)
    g.apply(0, Action("discard", parse("5p")[0]))
    assert g.to_act() == [1]

    async def main() -> None:
        async with running(tmp_path, deals=StackedDeals([wall])) as h:
            a, b = await guest(h, "a"), await guest(h, "b")
            tid = await table(h, a, bots=2, turn_seconds=4)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.ready(a, b)
            await h.advance(PAUSE)
            await a.act({"type": "discard", "tile": "5p"})
            st = b.state
            assert st is not None and st["view"]["phase"] == "claims" and b.legal
            await h.advance(4 - 0.001)
            assert b.state is st  # not played yet
            await h.advance(0.001)  # the deadline: passed for seat 1
            await h.advance(PAUSE)
            st2 = b.state
            assert st2 is not None and st2["view"]["phase"] == "turn" and b.legal
            assert not any(_seat_flags(b, 1, "auto")), "a missed claim prompt set 托管"
            assert not any(_seat_flags(a, 1, "auto")), "another seat learned who was asked"
            assert st2["deadline_ms"] == 4000  # it keeps its deadlines
            assert not any(_seat_flags(a, 1, "auto"))
            await h.advance(4)  # its own turn's deadline: now it is 托管, for everyone
            await h.advance(PAUSE)
            assert any(_seat_flags(a, 1, "auto")) and any(_seat_flags(b, 1, "auto"))
            discards = [d for d in a.of_type("discard") if d["seat"] == 1]
            assert len(discards) == 1
            await play(h, [a], until=lambda: bool(a.of_type("hand_end")))
            end = a.of_type("hand_end")[0]
            events = await fetch_log(h, end["hand"])
            acts = [e for e in events if e["type"] == "act" and e["seat"] == 1]
            assert acts[0]["action"] == {"type": "pass"}
            spy(a, {end["hand"]: events}, 0, 600)
            spy(b, {end["hand"]: events}, 1, 600)

    run(main())


def test_hint_and_auto_on_request(tmp_path: Path) -> None:
    """The dealer (a human, seed "inproc") asks for a hint, then turns 托管 on: the server
    plays the seat to the end of the hand, and the seat list shows it."""

    async def main() -> None:
        async with running(tmp_path) as h:
            me = await guest(h, "hinted")
            tid = await table(h, me, bots=3, turn_seconds=60)
            await h.seat(me, tid)
            await h.ready(me)
            await me.send({"type": "hint"})  # nothing to decide yet (inside the opening pause)
            await h.hints_done()
            assert me.errors() == ["not_your_turn"]
            await h.advance(PAUSE)
            assert me.legal
            await me.send({"type": "hint"})
            await h.hints_done()
            hint = me.last("hint")
            assert hint is not None and hint["action"] in me.legal
            assert hint["reason"] and hint["reason_zh"]
            await me.send({"type": "auto", "on": True})
            seats = me.last("seats")
            assert seats is not None and seats["seats"][0]["auto"] is True
            # 托管: at the bots' pace, never waiting for the 60 s deadline
            start = h.clock.now()
            await play(h, [], until=lambda: bool(me.of_type("hand_end")))
            assert h.clock.now() - start < 60
            end = me.of_type("hand_end")[0]
            assert end["hand"]
            events = await fetch_log(h, end["hand"])
            assert any(e["type"] == "act" and e["seat"] == 0 for e in events)

    run(main())


# ------------------------------------------------------------------------ bad messages


class _Junk:
    """One table waiting for a human's decision (the dealer's first discard; the fake clock
    stands still, so no deadline passes) and its connection, driven from hypothesis."""

    def __init__(self, data_dir: Path) -> None:
        self.loop = asyncio.new_event_loop()
        # the limit of bad messages has its own test: here every message is answered
        self.cm = running(data_dir, bad_messages_per_minute=10**6)
        self.h: Harness = self.loop.run_until_complete(self.cm.__aenter__())
        self.c: Client = self.loop.run_until_complete(self._start())
        self.state = self._current()

    async def _start(self) -> Client:
        c = await guest(self.h, "junk")
        self.tid = await table(self.h, c, bots=3, turn_seconds=30)
        self.code = await _code(self.h, self.tid, c)
        await self.h.seat(c, self.tid)
        await self.h.ready(c)
        await self.h.advance(PAUSE)
        assert c.legal
        return c

    def _current(self) -> dict[str, Any]:
        st = self.c.state
        assert st is not None and st["view"]["legal_actions"]
        return st

    def close(self) -> None:
        self.loop.run_until_complete(self.cm.__aexit__(None, None, None))
        self.loop.close()

    def send(self, raw: str) -> list[dict[str, Any]]:
        """Send one raw text frame; the messages it brought."""
        self.c.new()
        self.loop.run_until_complete(self.h.dispatcher.handle(self.c.conn, raw))
        self.loop.run_until_complete(self.h.settle())
        got = self.c.new()
        self.state = self._current()  # a (re)join re-sends the state, with a new seq
        return got

    def harmless(self, raw: str) -> bool:
        """Not junk: a legal action on the current state, or joining one's own table."""
        try:
            parsed = json.loads(raw)
        except ValueError:
            return False
        if not isinstance(parsed, dict):
            return False
        if parsed.get("type") == "act" and parsed.get("seq") == self.state["seq"]:
            try:
                a = Action.from_json(parsed.get("action"))
            except (MahjongError, TypeError, ValueError, AttributeError):
                return False
            legal = [Action.from_json(x) for x in self.state["view"]["legal_actions"]]
            return a in legal
        table = parsed.get("table")
        return parsed.get("type") == "join" and (
            (isinstance(table, int) and not isinstance(table, bool) and table == self.tid)
            or (isinstance(table, str) and table.strip().upper() in (self.code, str(self.tid)))
        )


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


def test_junk_gets_errors_and_changes_nothing(tmp_path: Path) -> None:
    """Hypothesis junk at a table waiting for this seat's decision: each message is
    answered by one error (one line, nothing else); afterwards the same decision is still
    open and a legal action on the same state's seq is applied, once."""
    j = _Junk(tmp_path)
    try:
        before = j.state

        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        @given(build=junk_messages())
        def each(build: Callable[[int], str]) -> None:
            raw = build(j.state["seq"])
            if j.harmless(raw):
                return
            got = j.send(raw)
            assert [m["type"] for m in got] == ["error"], (raw, got)
            m = got[0]
            assert set(m) == {"type", "code", "message"} and "\n" not in m["message"]
            assert m["message"]

        each()
        # nothing the junk did changed the table: the same decision is still open
        assert j.state["view"] == before["view"]
        assert not j.c.of_type("discard") and not j.c.conn.closed
        action = naive(j.state["view"]["legal_actions"])
        msg = {"type": "act", "seq": j.state["seq"], "action": action}
        got = j.send(json.dumps(msg))
        assert got and got[0]["type"] == "discard"
        # the same action again is now stale
        got = j.send(json.dumps(msg))
        assert [m["type"] for m in got] == ["error"] and got[0]["code"] == "stale"
    finally:
        j.close()


def test_twenty_bad_messages_in_a_minute_close_the_connection(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            c = await guest(h, "noisy")
            for i in range(19):  # 19 in a minute: still open
                await c.send({"type": "nope"} if i % 2 else {"type": "act"})
            assert not c.conn.closed
            await h.advance(60.001)  # a minute later the window has moved on
            for i in range(19):
                await c.send({"type": "nope"} if i % 2 else {"type": "act"})
            assert not c.conn.closed
            await h.dispatcher.handle(c.conn, "{not json")  # the 20th within a minute
            await h.settle()
            assert c.conn.closed and c.rec.closed is not None and c.rec.closed[0] == 1008
            codes = c.errors()
            assert len(codes) == 39 and set(codes) == {"bad_message", "unknown_type"}
            # a message over 8 KiB closes a connection at once
            d = await guest(h, "long")
            await h.dispatcher.handle(d.conn, json.dumps({"type": "ping", "x": "y" * 9000}))
            assert d.errors() == ["too_long"] and d.conn.closed

    run(main())


def test_acts_on_a_replaced_state_are_stale_but_never_close_the_connection(
    tmp_path: Path,
) -> None:
    """An act on a state the table has since replaced is a race the protocol expects (docs/
    protocol.md, "Acting"): a client that acts at once on every state meets one whenever a
    state is sent again before its act arrives, as while the store fails. Each is answered
    `stale` and none counts as a bad message: 25 within a minute leave the connection open
    (counted, 20 closed it with 1008 in the middle of a PostgreSQL outage). A seq from the
    future, or one no message had, is still a bad message, and past 100 races in a minute
    they count again (an act is work for the table's actor). A double tap (the same act on
    the same state, after the table applied the first) is such a race too: 25 leave the
    connection open and the discard is made once."""

    async def at_our_turn(h: Harness, name: str) -> tuple[Client, dict[str, Any]]:
        c = await guest(h, name)
        await h.seat(c, await table(h, c, bots=3, turn_seconds=300))
        await h.ready(c)
        await h.advance(PAUSE)
        assert c.state is not None and c.state["view"]["phase"] == "turn" and c.legal
        return c, c.state

    async def main() -> None:
        async with running(tmp_path) as h:
            a, s = await at_our_turn(h, "racer")
            for _ in range(25):
                await a.send({"type": "act", "seq": s["seq"] - 1, "action": a.legal[0]})
            assert a.errors() == ["stale"] * 25 and not a.conn.closed
            assert a.state is s  # nothing changed
            for _ in range(18):  # from the future, or none ever had: bad messages, as before
                await a.send({"type": "act", "seq": a.conn.seq + 5, "action": a.legal[0]})
            await a.send({"type": "act", "seq": 0, "action": a.legal[0]})
            assert not a.conn.closed
            await a.send({"type": "act", "seq": a.conn.seq + 5, "action": a.legal[0]})
            assert a.conn.closed and a.rec.closed is not None and a.rec.closed[0] == 1008
            # a flood of acts on old states is not free: past 100 races in a minute they
            # count as bad messages again
            b, old = await at_our_turn(h, "flood")
            for _ in range(100 + 19):
                await b.send({"type": "act", "seq": old["seq"] - 1, "action": b.legal[0]})
            assert not b.conn.closed
            await b.send({"type": "act", "seq": old["seq"] - 1, "action": b.legal[0]})
            assert b.conn.closed and b.rec.closed is not None and b.rec.closed[0] == 1008
            # a double tap: the same act again on the same state, after the table applied
            # the first (the discard is held on the table; no new state yet): a race too
            d, shown = await at_our_turn(h, "tapper")
            tap = {"type": "act", "seq": shown["seq"], "action": naive(d.legal)}
            await d.send(tap)
            assert d.messages[-1]["type"] == "discard" and d.conn.state_seq == shown["seq"]
            for _ in range(25):
                await d.send(tap)
            assert d.errors() == ["stale"] * 25 and not d.conn.closed
            assert len(d.of_type("discard")) == 1  # applied once

    run(main())


def test_illegal_and_out_of_turn_actions_are_refused(tmp_path: Path) -> None:
    """Seed "inproc": the dealer (seat 0, a human) is the first to act; seat 1 (a human)
    is not asked. A discard of a tile the dealer does not hold is illegal, seat 1's pass is
    not its turn, a stale seq is stale; then the dealer's legal discard is applied."""

    async def main() -> None:
        async with running(tmp_path) as h:
            a, b = await guest(h, "il1"), await guest(h, "il2")
            tid = await table(h, a, bots=2, turn_seconds=300)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.ready(a, b)
            await h.advance(PAUSE)
            s = a.state
            assert s is not None and s["view"]["phase"] == "turn" and a.legal
            held = set(parse(s["view"]["hand"]))
            missing = next(KIND_STR[k] for k in range(27) if k not in held)
            await a.act({"type": "discard", "tile": missing})
            assert a.errors() == ["illegal"]
            assert "legal:" in a.of_type("error")[-1]["message"]
            assert b.state is not None and not b.legal
            await b.act({"type": "pass"})
            assert b.errors() == ["not_your_turn"]
            await a.send({"type": "act", "seq": s["seq"] - 1, "action": a.legal[0]})
            await a.send({"type": "act", "seq": s["seq"], "action": {"type": "fly"}})
            assert a.errors() == ["illegal", "stale", "bad_action"]
            assert a.state is s  # nothing changed
            # the refused actions changed nothing: the same state still takes a legal one
            await a.act(naive(a.legal))
            assert a.messages[-1]["type"] == "discard" and a.messages[-1]["seat"] == 0
            assert b.messages[-1]["type"] == "discard"

    run(main())


# ------------------------------------------------------------------------ leaving


def test_grace_expiry_makes_a_leaver_void_hand_and_match_ends(tmp_path: Path) -> None:
    """Seat 1 drops after the deal and never comes back: exactly at the end of the grace
    period it is a leaver: the hand is void and the match ends; the void hand's seed and
    its log (cut short) are public from then on (R12: revealed when the hand ends)."""
    grace = 3.0  # shorter than a turn: seat 1 is never played for before it is a leaver

    async def main() -> None:
        async with running(tmp_path, grace_s=grace) as h:
            a, b = await guest(h, "left"), await guest(h, "right")
            tid = await table(h, a, bots=2, hands=4, turn_seconds=5)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.ready(a, b)
            start = a.of_type("hand_start")[0]
            await b.disconnect()
            gone = h.clock.now()
            await h.advance(grace - 0.001)  # (seat 0, the dealer, is asked and waits)
            assert a.legal and not a.of_type("hand_void")
            assert False in _seat_flags(a, 1, "connected")
            await h.advance(0.001)
            void = a.last("hand_void")
            me = a.last("match_end")
            assert void is not None and me is not None
            assert void["hand"] == start["hand"]
            assert void["leaver"] == 1 and me["leaver"] == 1
            assert round(times(a)[a.messages.index(void)] - gone, 6) == grace
            assert a.messages[-1]["type"] == "table_closed"
            r = await h.http.get(f"/api/hands/{void['hand']}/log")
            assert r.status_code == 200 and void["seed"]
            info = (await h.http.get(f"/api/tables/{tid}")).json()
            assert info["status"] == "closed"

    run(main())


def test_a_player_who_leaves_mid_hand_ends_the_match(tmp_path: Path) -> None:
    """R9/R11: `leave` mid-hand voids the hand and ends the match for everyone; a spectator
    who leaves changes nothing; before the match a player who leaves frees the seat."""

    async def main() -> None:
        async with running(tmp_path) as h:
            a, b, w = await guest(h, "stays"), await guest(h, "goes"), await guest(h, "sees")
            # before the match: leaving frees the seat
            tid0 = await table(h, a, bots=2)
            await h.seat(a, tid0)
            await h.seat(b, tid0)
            await b.send({"type": "leave"})
            assert b.last("left") is not None
            assert (await h.http.get(f"/api/tables/{tid0}")).json()["seats_taken"] == 3
            await a.send({"type": "leave"})  # everyone left: the table closes
            assert (await h.http.get(f"/api/tables/{tid0}")).json()["status"] == "closed"

            tid = await table(h, a, bots=2, hands=4)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.seat(w, tid, as_="spectator")
            await h.ready(a, b)
            await h.advance(PAUSE)
            await w.send({"type": "leave"})
            assert w.last("left") is not None and not a.of_type("hand_void")
            await b.send({"type": "leave"})
            assert b.last("left") is not None
            void, me = a.last("hand_void"), a.last("match_end")
            assert void is not None and void["leaver"] == 1
            assert me is not None and me["leaver"] == 1
            assert a.messages[-1]["type"] == "table_closed"
            assert not b.of_type("hand_void")  # the leaver's connection is no longer at it
            assert (await h.http.get(f"/api/tables/{tid}")).json()["status"] == "closed"

    run(main())


# ------------------------------------------------------------------------ the REST lobby


def test_lobby_rest_contract(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            a, b = await guest(h, "owner"), await guest(h, "other")
            auth = {"Authorization": f"Bearer {a.token}"}
            tid = await table(h, a, players=4, private=False)
            t = (await h.http.get(f"/api/tables/{tid}")).json()
            assert 4 <= len(t["code"]) <= 6 and t["code"].isalpha()
            listed = (await h.http.get("/api/tables")).json()
            assert any(x["id"] == tid and x["profile"] == "fuzhou-tcy" for x in listed)
            priv = await table(h, a, private=True)
            code = await _code(h, priv, a)
            assert all(x["id"] != priv for x in (await h.http.get("/api/tables")).json())
            assert (await h.http.get(f"/api/tables/{code}")).json()["id"] == priv
            assert (await h.http.get(f"/api/tables/{priv}")).status_code == 404  # not by id
            r = await h.http.get(f"/api/tables/{priv}", headers=auth)  # but for its creator
            assert r.status_code == 200
            url = f"/api/tables/{tid}/bots"
            r = await h.http.post(url, headers={"Authorization": f"Bearer {b.token}"})
            assert r.status_code == 403  # only the creator
            r = await h.http.post(url, headers=auth)
            assert r.status_code == 200 and r.json()["bots"] == 1
            r = await h.http.delete(url, headers=auth)
            assert r.status_code == 200 and r.json()["bots"] == 0
            assert (await h.http.delete(url, headers=auth)).status_code == 409
            # bad input: one clear line, nothing created
            r = await h.http.post("/api/tables", json={"profile": "nope"}, headers=auth)
            assert r.status_code == 400 and "unknown profile" in r.json()["detail"]
            r = await h.http.post("/api/tables", json={"players": 2}, headers=auth)
            assert r.status_code == 400 and "2" in r.json()["detail"]
            r = await h.http.post("/api/tables", json={}, headers={"Authorization": "Bearer no"})
            assert r.status_code == 401
            r = await h.http.post("/api/guests", json={"name": "x" * 50})
            assert r.status_code == 422
            assert len((await h.http.get("/api/tables")).json()) == 1  # the public one
            assert (await h.http.get("/docs")).status_code == 200
            assert (await h.http.get("/openapi.json")).json()["paths"]["/api/tables"]

    run(main())


def test_a_three_player_sanming_table_plays_to_its_end(tmp_path: Path) -> None:
    """sanming for 3 players (2 bots), the profile's 2-4: the hand ends, the totals sum to 0."""

    async def main() -> None:
        async with running(tmp_path) as h:
            me = await guest(h, "three")
            tid = await table(h, me, profile="sanming", players=3, bots=2)
            await h.seat(me, tid)
            await h.ready(me)
            await play(h, [me], until=lambda: bool(me.of_type("hand_end")))
            end = me.of_type("hand_end")[0]
            assert len(end["totals"]) == 3 and sum(end["totals"]) == 0
            events = await fetch_log(h, end["hand"])
            assert spy(me, {end["hand"]: events}, 0, 600) > 3
            await verify_with_cli(h, end["hand"], tmp_path)

    run(main())
