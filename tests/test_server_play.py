"""Playing at the table server (docs/protocol.md), in-process (tests/inproc.py: the real app
and dispatcher, a fake clock, recording clients): four humans play a whole hand (with the
spy on every message), a spectator, the claim pause (on the fake clock, at a ``fast`` table
exactly the pause after a discard that opens a claim window as after one that does not; at a
``fixed`` table drawn, never shorter), the hand log (404 before the end, JSONL after,
verified by `fjmj replay`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from fujian_mahjong.engine import Action
from fujian_mahjong.server.settings import OPENING_S
from fujian_mahjong.tiles import parse
from tests.inproc import Client, StackedDeals, game_of_wall, running, stacked
from tests.test_table_support import (
    fetch_log,
    guest,
    play,
    seat_of,
    spy,
    table,
    times,
    verify_with_cli,
)

PAUSE_MS = 600
PAUSE = PAUSE_MS / 1000


@pytest.mark.parametrize("mode", ["fast", "fixed"])
def test_four_humans_play_a_hand_and_the_spy_finds_nothing(tmp_path: Path, mode: str) -> None:
    """Both claim windows (docs/architecture.md): ``fast``, the pause exactly; ``fixed``
    (the server's default with two or more humans), every pause drawn, never shorter."""

    async def main() -> None:
        async with running(tmp_path, claim_pause_ms=PAUSE_MS) as h:
            clients = [await guest(h, f"p{i}") for i in range(4)]
            tid = await table(h, clients[0], claim_window=mode, turn_seconds=30)
            code = (await h.http.get(f"/api/tables/{tid}")).json()["code"]
            for c in clients:
                await h.seat(c, tid)
            # a spectator joins by code before the start and watches the whole hand
            watcher = await guest(h, "watcher")
            await watcher.send({"type": "join", "table": code, "as": "spectator"})
            assert seat_of(watcher) is None
            await h.ready(*clients)
            hand_id = clients[0].of_type("hand_start")[0]["hand"]
            # the log is not public while the hand runs (R12)
            assert (await h.http.get(f"/api/hands/{hand_id}/log")).status_code == 404
            await play(h, clients, until=lambda: all(c.of_type("hand_end") for c in clients))
            assert watcher.of_type("hand_end")
            ends = [c.last("hand_end") for c in clients]
            assert {seat_of(c) for c in clients} == {0, 1, 2, 3}
            assert all(e is not None and e["hand"] == hand_id for e in ends)
            events = await fetch_log(h, hand_id)
            end = ends[0]
            assert end is not None
            assert events[0]["seed_sha256"] == end["seed_sha256"]
            assert events[-1]["seed"] == end["seed"]  # R12: committed at the start, revealed now
            checked = sum(spy(c, {hand_id: events}, seat_of(c), PAUSE_MS) for c in clients)
            assert checked > 40
            assert spy(watcher, {hand_id: events}, None, PAUSE_MS) > 10
            for m in watcher.of_type("state"):
                v = m["view"]
                if v["phase"] != "over":
                    assert v["hand"] == "" and v["legal_actions"] == []
                    for melds in v["melds"]:
                        assert all(
                            x["type"] != "kong_concealed" or x["tiles"] is None for x in melds
                        )
            await verify_with_cli(h, hand_id, tmp_path)  # exit 0: the log verifies
            # every discard reached every seat as a public notice before the next state
            discards = [(e["seat"], e["tile"]) for e in events if e["type"] == "discard"]
            for c in [*clients, watcher]:
                assert [(d["seat"], d["tile"]) for d in c.of_type("discard")] == discards
            _claim_pause_is_the_same_either_way(clients, events, mode)

    asyncio.run(main())


def _claim_pause_is_the_same_either_way(
    clients: list[Client], events: list[dict[str, Any]], mode: str
) -> None:
    """R12 rev 2 (docs/protocol.md, the claim pause): after each discard a seat that was not
    asked sees the notice, then nothing for at least the pause, then one state — whether or
    not anyone could claim. The humans answer at once, so at a ``fast`` table every such gap
    is exactly the pause; at a ``fixed`` one every gap is drawn (the pause or more, plus a
    jitter)."""
    asked_per_discard: list[set[int]] = []
    for i, e in enumerate(events):
        if e["type"] == "discard":
            asked = set()
            j = i + 1
            while j < len(events) and events[j]["type"] == "act" and events[j]["seat"] != e["seat"]:
                asked.add(events[j]["seat"])
                j += 1
            asked_per_discard.append(asked)
    gaps: dict[bool, list[float]] = {True: [], False: []}
    shapes: dict[bool, set[str]] = {True: set(), False: set()}
    for c in clients:
        seat = seat_of(c)
        msgs, ts = c.messages, times(c)
        k = -1
        for i, m in enumerate(msgs):
            if m["type"] != "discard":
                continue
            k += 1
            asked = asked_per_discard[k]
            if m["seat"] == seat or seat in asked or i + 1 >= len(msgs):
                continue
            nxt = msgs[i + 1]
            assert nxt["type"] in ("state", "discard"), nxt  # nothing else inside the pause
            if nxt["type"] != "state":
                continue  # the hand ended on this discard's resolution
            window = bool(asked)
            gaps[window].append(round(ts[i + 1] - ts[i], 6))
            shapes[window].add(nxt["view"]["phase"])
    assert gaps[True] and gaps[False], "the hand had no discard of each kind"
    if mode == "fast":
        assert set(gaps[True]) == set(gaps[False]) == {PAUSE}, gaps
    else:
        assert min(gaps[True] + gaps[False]) >= PAUSE, gaps
        # drawn: neither kind is the bare pause every time (which would tell them apart)
        assert max(gaps[True]) > PAUSE and max(gaps[False]) > PAUSE, gaps
    # what follows the pause looks the same: a state of the next turn, never an open window
    assert shapes[True] <= {"turn", "over"} and shapes[False] <= {"turn", "over"}


# The dealer (seat 0) discards 5p first: seat 1 alone may claim it (pong); nobody else is
# asked. Nobody holds a gold (9s) or a flower, so the deal is exactly as written.
CLAIM_DEAL = {
    0: "123m456m789m123p457s9p5p",
    1: "5p5p1s1s2m2m3s3s6m6m8p8p9m9m6s7s",
    2: "1m2m3m4m6p7p8p2s4s6s8s7p6p1s4m4p",
    3: "3m4m5m6m7m8m9m1p2p3p4p7s8s2s3s4s",
}


def _new(c: Client, since: int) -> list[dict[str, Any]]:
    return c.messages[since:]


def test_claim_pause_is_exact_and_the_same_with_or_without_a_window(tmp_path: Path) -> None:
    """A scripted hand: seat 0's 5p opens a claim window asking seat 1 only; seat 1's own
    discard opens none. Seat 2 and a spectator, not asked either time, see the same thing
    both times: the notice, then nothing until exactly the pause, then one state."""
    wall = stacked(CLAIM_DEAL, tail="9s")
    g = game_of_wall(wall)
    five_p = Action("discard", parse("5p")[0])
    g.apply(0, five_p)
    assert g.phase == "claims" and g.to_act() == [1]  # the window: seat 1 only
    g.apply(1, Action("pass"))
    assert g.phase == "turn" and g.to_act() == [1]

    async def main() -> None:
        async with running(
            tmp_path, deals=StackedDeals([wall]), claim_pause_ms=PAUSE_MS, bot_delay_ms=300
        ) as h:
            a, b, c = [await guest(h, n) for n in ("dealer", "asked", "other")]
            tid = await table(h, a, bots=1, turn_seconds=20)
            for x in (a, b, c):
                await h.seat(x, tid)
            w = await guest(h, "watcher")
            await h.seat(w, tid, as_="spectator")
            assert [seat_of(x) for x in (a, b, c)] == [0, 1, 2]
            await h.ready(a, b, c)
            # the opening: the notice to everyone, then nothing until the pause is over
            assert all(x.last("hand_start") for x in (a, b, c, w))
            assert a.state is None and b.state is None
            await h.advance(PAUSE - 0.001)
            assert a.state is None and c.state is None and w.state is None
            await h.advance(0.001)
            assert (
                a.legal
                and a.state is not None
                and a.state["deadline_ms"] == 20_000 + round(OPENING_S * 1000)
            )
            marks = {id(x): len(x.messages) for x in (a, b, c, w)}

            # 1. the window: seat 1 is asked at once, with its deadline; nobody else hears more
            t0 = h.clock.now()
            await a.act({"type": "discard", "tile": "5p"})
            got_b = _new(b, marks[id(b)])
            assert [m["type"] for m in got_b] == ["discard", "state"]
            st = got_b[1]
            assert st["view"]["phase"] == "claims" and st["view"]["to_act"] == [1]
            assert {x["type"] for x in st["view"]["legal_actions"]} == {"pong", "pass"}
            assert st["deadline_ms"] == 20_000
            for x in (a, c, w):
                assert [m["type"] for m in _new(x, marks[id(x)])] == ["discard"]
            await h.advance(0.25)
            await b.act({"type": "pass"})  # answered: from now on seat 1 is told nothing more
            await h.advance(PAUSE - 0.25 - 0.001)
            # the window is closed, but the pause is not over: still nothing, to anyone
            assert [m["type"] for m in _new(b, marks[id(b)])] == ["discard", "state"]
            for x in (a, c, w):
                assert [m["type"] for m in _new(x, marks[id(x)])] == ["discard"]
            await h.advance(0.001)
            first = {id(x): _new(x, marks[id(x)]) for x in (a, c, w)}
            for x in (a, c, w):
                assert [m["type"] for m in first[id(x)]] == ["discard", "state"]
                assert round(times(x)[-1] - t0, 6) == PAUSE
                assert first[id(x)][1]["view"]["phase"] == "turn"
            assert [m["type"] for m in _new(b, marks[id(b)])] == ["discard", "state", "state"]
            assert b.legal and b.state is not None and b.state["view"]["phase"] == "turn"
            assert round(times(b)[-1] - t0, 6) == PAUSE
            marks = {id(x): len(x.messages) for x in (a, b, c, w)}

            # 2. no window: seat 1 discards a tile nobody may claim
            legal = [Action.from_json(x) for x in b.legal]
            calm = next(
                x for x in legal if x.type == "discard" and not _opens_window(wall, five_p, x)
            )
            t1 = h.clock.now()
            await b.act(calm.to_json())
            for x in (a, b, c, w):
                assert [m["type"] for m in _new(x, marks[id(x)])] == ["discard"]
            await h.advance(PAUSE - 0.001)
            for x in (a, b, c, w):
                assert [m["type"] for m in _new(x, marks[id(x)])] == ["discard"]
            await h.advance(0.001)
            second = {id(x): _new(x, marks[id(x)]) for x in (a, c, w)}
            for x in (a, c, w):
                assert [m["type"] for m in second[id(x)]] == ["discard", "state"]
                assert round(times(x)[-1] - t1, 6) == PAUSE
                # the same shape either way: the next turn's state after the same pause
                assert second[id(x)][1]["view"]["phase"] == first[id(x)][1]["view"]["phase"]
                assert set(second[id(x)][1]) == set(first[id(x)][1])

            # the rest of the hand, then the spy on everything everybody received
            await play(h, [a, b, c], until=lambda: bool(c.of_type("hand_end")))
            hand_id = c.of_type("hand_end")[0]["hand"]
            events = await fetch_log(h, hand_id)
            for x in (a, b, c):
                assert spy(x, {hand_id: events}, seat_of(x), PAUSE_MS) > 3
            assert spy(w, {hand_id: events}, None, PAUSE_MS) > 3
            await verify_with_cli(h, hand_id, tmp_path)

    asyncio.run(main())


def _opens_window(wall: list[int], first: Action, second: Action) -> bool:
    g = game_of_wall(wall)
    g.apply(0, first)
    g.apply(1, Action("pass"))
    g.apply(1, second)
    return g.phase in ("claims", "window_a")


def test_log_is_404_until_the_hand_ends(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            me = await guest(h, "early")
            tid = await table(h, me, bots=3, turn_seconds=30)
            await h.seat(me, tid)
            await h.ready(me)
            hand_id = me.of_type("hand_start")[0]["hand"]
            assert (await h.http.get(f"/api/hands/{hand_id}/log")).status_code == 404
            r = await h.http.get(f"/api/hands/{hand_id}/log?format=json")
            assert r.status_code == 404
            info = (await h.http.get(f"/api/hands/{hand_id}")).json()
            assert info["status"] == "playing" and "result" not in info
            await play(h, [me], until=lambda: bool(me.of_type("hand_end")))
            assert (await h.http.get(f"/api/hands/{hand_id}/log")).status_code == 200
            arr = (await h.http.get(f"/api/hands/{hand_id}/log?format=json")).json()
            assert arr[0]["type"] == "start" and arr[-1]["type"] == "end"
            assert (await h.http.get("/api/hands/999999/log")).status_code == 404
            info = (await h.http.get(f"/api/hands/{hand_id}")).json()
            assert info["status"] == "over" and info["log_url"] == f"/api/hands/{hand_id}/log"

    asyncio.run(main())
