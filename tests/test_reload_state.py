"""A reload keeps everything (docs/protocol.md, ``state``'s ``history``): the first state
after a ``join`` carries the hand's public actions so far (server/visibility.py
``history``), so a client that reloads gets its action log back — and never a concealed
tile (R12): the history of a seat is the same whatever the other seats hold, draw or
answer (the spy below redacts all of it and compares), and a seat that rejoins inside a
claim pause is told nothing the pause still hides."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from fujian_mahjong.bots import make_bot
from fujian_mahjong.engine import Action, Game
from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.server import visibility as vis
from fujian_mahjong.server.deals import FixedDeals
from fujian_mahjong.tiles import parse
from tests.inproc import StackedDeals, game_of_wall, running, stacked
from tests.test_table_support import guest, play, reconnect, table

PAUSE_MS = 600
PAUSE = PAUSE_MS / 1000

# seat 1 may pong the 5p the dealer discards first (tests/test_server_play.py)
CLAIM_DEAL = {
    0: "123m456m789m123p457s9p5p",
    1: "5p5p1s1s2m2m3s3s6m6m8p8p9m9m6s7s",
    2: "1m2m3m4m6p7p8p2s4s6s8s7p6p1s4m4p",
    3: "3m4m5m6m7m8m9m1p2p3p4p7s8s2s3s4s",
}


def _played(profile: str, seed: int) -> Game:
    """A whole hand played by the heuristic bot (claims, kongs, 补花 and all)."""
    g = Game.new(profile, seed=seed)
    bot = make_bot("heuristic", 0)
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bot.act(g.seat_view(s)).action)
    return g


HIDDEN = "0m"  # what the redaction writes in place of a concealed tile


def _redacted(events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The log with everything ``seat`` may not know replaced or removed: the other seats'
    dealt hands, draws, replacement tiles and concealed kongs (until the hand is over), and
    every answer of another seat (who was asked, and what they answered, R12 rev 2)."""
    over = any(e["type"] == "end" for e in events)
    out: list[dict[str, Any]] = []
    for e in events:
        e = dict(e)
        t = e["type"]
        own = seat is not None and e.get("seat") == seat
        if t == "deal":
            e["hands"] = {
                k: (v if seat is not None and k == str(seat) else "") for k, v in e["hands"].items()
            }
        elif t == "draw" and not own:
            e["tile"] = HIDDEN
        elif t == "flower" and "drawn" in e and not own:
            e["drawn"] = HIDDEN
        elif t == "kong" and e.get("kind") == "concealed" and not own and not over:
            e["tile"] = HIDDEN
        elif t == "act" and not own:
            continue
        elif t == "end":
            e["hands"] = {}
            e["seed"] = ""
        out.append(e)
    return out


@pytest.mark.parametrize("profile", sorted(BUILTIN))
def test_the_history_tells_a_seat_nothing_concealed(profile: str) -> None:
    """For every seat (and a spectator) at every point of 12 hands: the history from the
    real log equals the history from the log with everything concealed from that seat
    blanked out — so it cannot depend on it — and names no draw."""
    kinds: set[str] = set()
    for seed in range(12):
        g = _played(profile, seed)
        events = list(g.events)
        for n in range(1, len(events) + 1):
            prefix = events[:n]
            for seat in (*range(g.n), None):
                got = vis.history(prefix, seat)
                assert got == vis.history(_redacted(prefix, seat), seat), (seed, n, seat)
                for x in got:
                    kinds.add(x["kind"])
                    if "drawn" in x:
                        assert x["seat"] == seat and "round" in x
                    if x["kind"] == "claim_lost":
                        assert x["seat"] == seat
        # the whole hand: each public action once, in order
        full = vis.history(events, 0)
        assert [(x["seat"], x["tile"]) for x in full if x["kind"] == "discard"] == [
            (e["seat"], e["tile"]) for e in events if e["type"] == "discard"
        ]
        assert [x for x in full if x["kind"] != "claim_lost"][-1]["kind"] in ("win", "draw")
    # the hands played cover the kinds a log shows
    assert {"flower", "gold", "discard", "win"} <= kinds
    assert kinds & {"chow", "pong", "kong"}


def test_a_claim_lost_is_told_to_its_claimant_only() -> None:
    """Seat 1 answers chow, seat 2 pongs (R6: the pong wins): seat 1's history says its chow
    lost; nobody else's mentions it."""
    events: list[dict[str, Any]] = [
        {"type": "start", "dealer": 0},
        {"type": "discard", "seat": 0, "tile": "5p"},
        {"type": "act", "seat": 1, "action": {"type": "chow", "tiles": "46p"}},
        {"type": "act", "seat": 2, "action": {"type": "pong"}},
        {"type": "claim", "seat": 2, "meld": "pong", "tiles": "555p", "from": 0},
    ]
    mine = vis.history(events, 1)
    assert mine[-1] == {
        "seat": 1,
        "kind": "claim_lost",
        "mine": "chow",
        "by": 2,
        "by_kind": "pong",
        "tile": "5p",
    }
    assert mine[-2] == {
        "seat": 2,
        "kind": "pong",
        "meld": "pong",
        "tiles": "555p",
        "from": 0,
        "tile": "5p",
    }
    for seat in (0, 2, 3, None):
        assert all(x["kind"] != "claim_lost" for x in vis.history(events, seat))


def test_a_reload_mid_hand_brings_back_the_log(tmp_path: Path) -> None:
    """One player and three bots, a dozen discards in: the player's new connection gets a
    state whose history holds every discard the old one was told, in order, the opening's
    补花 with its own replacements, and nothing a seat may not see."""

    async def main() -> None:
        async with running(
            tmp_path, deals=FixedDeals("reload", dealer=1), claim_pause_ms=PAUSE_MS
        ) as h:
            me = await guest(h, "reloader")
            tid = await table(h, me, bots=3, turn_seconds=30)
            await h.seat(me, tid)
            await h.ready(me)
            t = h.lobby.tables[tid]
            for _ in range(2000):
                if len(me.of_type("discard")) >= 12 or t.hand is None:
                    break
                if me.legal and me.state is not None:
                    legal = me.legal
                    a = next((x for x in legal if x["type"] == "pass"), None) or next(
                        x for x in legal if x["type"] == "discard"
                    )
                    await me.act(a)
                    continue
                due = h.clock.next_due()
                assert due is not None
                await h.advance(due)
            assert t.hand is not None, "the hand ended too soon for this test"
            await h.advance(PAUSE)  # out of any pause: the state is the current one
            seen = [(m["seat"], m["tile"]) for m in me.of_type("discard")]
            again = await reconnect(h, me)
            await h.seat(again, tid)
            st = again.state
            assert st is not None and st["history"] is not None
            history = st["history"]
            assert [(x["seat"], x["tile"]) for x in history if x["kind"] == "discard"] == seen
            events = t.hand.game.events
            assert history == vis.history(events[: again.conn.state_key], 0)
            flowers = [x for x in history if x["kind"] == "flower" and "round" in x]
            assert all(("drawn" in x) == (x["seat"] == 0) for x in flowers)
            assert any(x["kind"] == "gold" for x in history)
            # the history comes once: the next state of the old or new connection has none
            await h.advance(30)
            assert all("history" not in m for m in again.of_type("state")[1:])
            assert all("history" not in m for m in me.of_type("state")[1:])

    asyncio.run(main())


def test_a_rejoin_inside_a_claim_pause_is_told_nothing_the_pause_hides(tmp_path: Path) -> None:
    """The dealer discards 5p, seat 1 pongs it at once; seat 2 rejoins inside the pause: its
    state is the last it saw, its history stops there (no pong, no answer), the discard
    notice follows; the pong comes with the state after the pause."""
    wall = stacked(CLAIM_DEAL, tail="9s")
    g = game_of_wall(wall)
    g.apply(0, Action("discard", parse("5p")[0]))
    assert g.phase == "claims" and g.to_act() == [1]

    async def main() -> None:
        async with running(tmp_path, deals=StackedDeals([wall]), claim_pause_ms=PAUSE_MS) as h:
            a, b, c = [await guest(h, n) for n in ("dealer", "ponger", "other")]
            tid = await table(h, a, bots=1, turn_seconds=20)
            for x in (a, b, c):
                await h.seat(x, tid)
            await h.ready(a, b, c)
            await h.advance(PAUSE)
            before = c.state
            assert before is not None
            await a.act({"type": "discard", "tile": "5p"})
            assert b.legal and any(x["type"] == "pong" for x in b.legal)
            await b.act({"type": "pong"})
            await h.advance(0.1)
            again = await reconnect(h, c)
            await h.seat(again, tid)
            got = [m for m in again.messages if m.get("type") in ("state", "discard")]
            assert [m["type"] for m in got] == ["state", "discard"]
            st = got[0]
            assert st["view"] == before["view"] and st["deadline_ms"] is None
            assert all(x["kind"] in ("flower", "gold") for x in st["history"])
            # the view sent is from before the discard: its opening is over (0)
            assert st["opening_ms"] == 0
            await h.advance(PAUSE)
            after = again.state
            assert after is not None and after["view"]["melds"][1]
            assert "history" not in after

    asyncio.run(main())


def test_a_rejoin_inside_the_next_deal_s_pause_gets_nothing_of_the_last_hand(
    tmp_path: Path,
) -> None:
    """Hand 2 is dealt; the player rejoins inside its deal's pause: no state until the pause
    is over (never the last hand's final view under the new hand's id), then the new hand's
    state with its history (the opening's 补花 and 开金 only)."""

    async def main() -> None:
        async with running(
            tmp_path, deals=FixedDeals("reload-next", dealer=0), claim_pause_ms=PAUSE_MS
        ) as h:
            me = await guest(h, "player")
            tid = await table(h, me, bots=3, turn_seconds=30, hands=2)
            await h.seat(me, tid)
            await h.ready(me)
            await play(h, [me], until=lambda: bool(me.of_type("hand_end")))
            await me.send({"type": "ready"})
            second = me.of_type("hand_start")[-1]["hand"]
            assert second != me.of_type("hand_end")[0]["hand"]
            again = await reconnect(h, me)
            await h.seat(again, tid)
            assert not again.of_type("state")
            await h.advance(PAUSE)
            st = again.state
            assert st is not None and st["hand"] == second and st["view"]["phase"] != "over"
            assert st["history"] and {x["kind"] for x in st["history"]} <= {"flower", "gold"}

    asyncio.run(main())
