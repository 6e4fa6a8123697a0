"""Issue 11 acceptance over a real `fjmj serve` process and real WebSocket clients: four
humans play a whole hand (with the spy on every message), a spectator, the claim pause,
the hand log (404 before the end, JSONL after, verified by `fjmj replay`)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_server_support import Client, Server, fetch_log, play, spy, verify_with_cli

PAUSE_MS = 80


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("srv"), claim_pause_ms=PAUSE_MS).start()
    yield s
    s.stop()


def test_four_humans_play_a_hand_and_the_spy_finds_nothing(server: Server, tmp_path: Path) -> None:
    guests = [server.guest(f"p{i}") for i in range(4)]
    t = server.table(guests[0]["token"], hands=1, turn_seconds=30)

    async def main() -> tuple[list[Client], Client, list[dict]]:
        clients = [await Client(server.ws_url, g["token"]).connect() for g in guests]
        watcher = await Client(server.ws_url, guests[0]["token"]).connect()
        for c in clients:
            await c.hello_join(t["id"])
        # a spectator joins by code before the start and watches the whole hand
        await watcher.hello_join(t["code"], as_="spectator")
        # the log is not public while the hand runs (R12)
        for c in clients:
            await c.send({"type": "ready"})
        ends = await asyncio.gather(*(play(c) for c in clients))
        await watcher.expect("hand_end")
        for c in [*clients, watcher]:
            await c.close()
        return clients, watcher, list(ends)

    clients, watcher, ends = asyncio.run(main())
    assert {c.seat for c in clients} == {0, 1, 2, 3}
    hand_id = ends[0]["hand"]
    assert all(e["hand"] == hand_id for e in ends)
    events = fetch_log(server, hand_id)
    assert events[0]["seed_sha256"] == ends[0]["seed_sha256"]
    assert events[-1]["seed"] == ends[0]["seed"]  # R12: committed at the start, revealed now
    checked = sum(spy(c, {hand_id: events}, c.seat, PAUSE_MS) for c in clients)
    assert checked > 40
    assert spy(watcher, {hand_id: events}, None, PAUSE_MS) > 10
    for r in watcher.log:
        v = r.msg.get("view")
        if v and v["phase"] != "over":
            assert v["hand"] == "" and v["legal_actions"] == []
            for melds in v["melds"]:
                assert all(m["type"] != "kong_concealed" or m["tiles"] is None for m in melds)
    verify_with_cli(server, hand_id, tmp_path)  # exit 0: the log verifies
    # every discard reached every seat as a public notice before the next state
    discards = [e for e in events if e["type"] == "discard"]
    for c in clients:
        got = [r.msg for r in c.log if r.msg["type"] == "discard"]
        assert [(d["seat"], d["tile"]) for d in got] == [(d["seat"], d["tile"]) for d in discards]
    _claim_pause_is_the_same_either_way(clients, events)


def _claim_pause_is_the_same_either_way(clients: list[Client], events: list[dict]) -> None:
    """R12 rev 2 item 6: after each discard a seat that was not asked sees the notice, then
    nothing for at least the pause, then one state — whether or not anyone could claim."""
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
        k = -1
        for i, r in enumerate(c.log):
            if r.msg["type"] != "discard":
                continue
            k += 1
            asked = asked_per_discard[k]
            if r.msg["seat"] == c.seat or c.seat in asked or i + 1 >= len(c.log):
                continue
            nxt = c.log[i + 1]
            if nxt.msg["type"] != "state":
                continue  # the hand ended on this discard's resolution
            window = bool(asked)
            gaps[window].append(nxt.t - r.t)
            shapes[window].add(nxt.msg["view"]["phase"])
    assert gaps[True] and gaps[False], "the hand had no discard of each kind"
    for window in (True, False):
        assert min(gaps[window]) >= PAUSE_MS / 1000 * 0.75, (window, min(gaps[window]))
    # what follows the pause looks the same: a state of the next turn, never an open window
    assert shapes[True] <= {"turn", "over"} and shapes[False] <= {"turn", "over"}


def test_log_is_404_until_the_hand_ends(server: Server) -> None:
    g = server.guest("early")
    t = server.table(g["token"], bots=3, hands=1, turn_seconds=30)

    async def main() -> tuple[int, int, int]:
        c = await Client(server.ws_url, g["token"]).connect()
        await c.hello_join(t["id"], ready=True)
        st = await c.expect("state")
        hand_id = st["hand"]
        during = server.get(f"/api/hands/{hand_id}/log").status_code
        during_json = server.get(f"/api/hands/{hand_id}/log?format=json").status_code
        await play(c)
        await c.close()
        return hand_id, during, during_json

    hand_id, during, during_json = asyncio.run(main())
    assert during == 404 and during_json == 404
    assert server.get(f"/api/hands/{hand_id}/log").status_code == 200
    arr = server.get(f"/api/hands/{hand_id}/log?format=json").json()
    assert arr[0]["type"] == "start" and arr[-1]["type"] == "end"
    assert server.get("/api/hands/999999/log").status_code == 404
