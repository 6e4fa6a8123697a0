"""A missed claim prompt is a pass; only a missed turn sets 托管 (docs/protocol.md, "Acting";
R12 rev 2), in-process on a fake clock with stacked walls (tests/inproc.py).

- a human who lets the deadline of a claim prompt pass is passed for and nothing else: no
  托管 flag for anyone (itself included), and every seat and a spectator receive exactly
  the messages, at exactly the times, they receive when the player presses 过 at the last
  instant — a missed prompt cannot be told from a pass;
- its next own turn has the full human deadline and is not played at a bot's pace;
- a missed own turn sets 托管, and it is shown to everyone (itself, the others, a
  spectator) once the claim pause is over; 取消托管 (``auto`` off) clears it for everyone;
- the opening's window A (天胡) missed at its deadline is a pass too.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from fujian_mahjong.server.scheduler import ClaimPace
from fujian_mahjong.server.settings import OPENING_S
from tests.inproc import Client, StackedDeals, running
from tests.test_audit_server import (
    FIVE_P,
    PASS,
    PAUSE,
    TURN,
    _asked,
    _auto_seen,
    heaven_wall,
    timed,
    trace,
    wall,
)

LAST_INSTANT = 1e-7  # 过 pressed this long before the deadline (traces are rounded to 1 µs)


async def _claim_hand(tmp: Path, press: bool, claim_window: str = "fast") -> dict[str, Any]:
    """Humans A (seat 0, the dealer) and B (seat 1), bots at 2 and 3, a spectator W. A
    discards 5p; B may chow it and either presses 过 at the last instant (``press``) or lets
    its deadline pass. Then B's own turn: its deadline is checked, and it lets it pass."""
    deals = StackedDeals([wall(True, False)], dealer=0)
    async with running(tmp, deals=deals, claim_pause_ms=600, bot_delay_ms=300) as h:
        a, b, w = [timed(await h.guest(n)) for n in ("dealer", "claimer", "spy")]
        tid = await h.table(a, bots=2, turn_seconds=TURN)
        h.lobby.find(tid).cfg.claim_window = claim_window  # as tests/test_table_support.py
        await h.seat(a, tid)
        await h.seat(b, tid)
        await h.seat(w, tid, "spectator")
        await h.ready(a, b)
        await h.advance(PAUSE if claim_window == "fast" else 5.0)  # the opening pause
        await a.act(FIVE_P)
        pace = h.lobby.tables[tid].pause.pace  # server/pause.py
        assert pace is not None and pace.mode == claim_window
        assert _asked(b) and b.state is not None
        assert b.state["deadline_ms"] == TURN * 1000
        if press:
            await h.advance(TURN - LAST_INSTANT)
            assert _asked(b), "the server answered before the deadline"
            await b.act(PASS)
            await h.advance(LAST_INSTANT)
        else:
            await h.advance(TURN)  # the deadline: the server passes for B
        # the pause is long over: the window's close is B's own turn at once (fixed: after
        # the pause's jitter)
        await h.advance(ClaimPace.JITTER_S)
        table = h.lobby.tables[tid]
        flags = table.seats[1].auto
        st = b.state
        assert st is not None and st["view"]["phase"] == "turn" and st["view"]["turn"] == 1
        own_turn = {"deadline_ms": st["deadline_ms"], "legal": bool(b.legal)}
        window_trace = {c.name: trace(c) for c in (a, b, w)}
        auto_after_window = {c.name: _auto_seen(c, 1) for c in (a, b, w)}
        # B's own turn: not played at a bot's pace (300 ms); its deadline is a human's
        discards = len(a.of_type("discard"))
        await h.advance(TURN - 0.5)
        played_early = len(a.of_type("discard")) != discards
        await h.advance(0.5)  # the own-turn deadline: played for B, who becomes 托管
        by_server = a.of_type("discard")[-1]
        # A may pong the 1m B discarded (the bot at seat 2 may chow it): A passes
        assert _asked(a)
        await a.act(PASS)
        await h.advance(PAUSE)
        auto_after_turn = {c.name: _auto_seen(c, 1) for c in (a, b, w)}
        # 取消托管: the flag clears for everyone
        marks = {c.name: len(c.messages) for c in (a, b, w)}
        await b.send({"type": "auto", "on": False})
        await h.advance(PAUSE)
        cleared = {
            c.name: [m["seats"][1]["auto"] for m in c.messages[marks[c.name] :] if m.get("seats")]
            for c in (a, b, w)
        }
        return {
            "flags": flags,
            "own_turn": own_turn,
            "window_trace": window_trace,
            "auto_after_window": auto_after_window,
            "played_early": played_early,
            "by_server": by_server,
            "auto_after_turn": auto_after_turn,
            "cleared": cleared,
            "errors": [c.errors() for c in (a, b, w)],
            "answers": [
                e
                for e in table.hand.game.events
                if e["type"] == "act" and e["seat"] == 1 and e["action"]["type"] == "pass"
            ],
        }


def _run_both(tmp: Path, claim_window: str = "fast") -> tuple[dict[str, Any], dict[str, Any]]:
    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        return (
            await _claim_hand(tmp / "missed", False, claim_window),
            await _claim_hand(tmp / "pressed", True, claim_window),
        )

    return asyncio.run(main())


@pytest.mark.parametrize("claim_window", ["fast", "fixed"])
def test_a_missed_claim_prompt_is_a_pass_and_nothing_else(
    tmp_path: Path, claim_window: str
) -> None:
    """Both claim pauses (docs/architecture.md): ``fast``, and ``fixed`` (what a table with
    two humans plays by default), whose pause length depends on when the answers came."""
    missed, pressed = _run_both(tmp_path, claim_window)
    # the server passed for B and set no flag, hidden or public
    assert missed["answers"][0]["action"] == PASS
    assert missed["flags"] is False
    assert missed["auto_after_window"] == {"dealer": [], "claimer": [], "spy": []}
    # R12 rev 2: to everyone — the dealer, a spectator and B itself — a missed prompt is
    # exactly a pass pressed at the last instant: the same messages at the same times
    for who in ("dealer", "claimer", "spy"):
        assert missed["window_trace"][who] == pressed["window_trace"][who], who
    assert missed["errors"] == [[], [], []] and pressed["errors"] == [[], [], []]


def test_the_next_own_turn_after_a_missed_claim_has_the_normal_deadline(tmp_path: Path) -> None:
    missed, pressed = _run_both(tmp_path)
    for r in (missed, pressed):
        assert r["own_turn"] == {"deadline_ms": TURN * 1000, "legal": True}
        assert not r["played_early"], "the seat was played at a bot's pace"


def test_a_missed_turn_sets_tuoguan_and_everyone_sees_it(tmp_path: Path) -> None:
    missed, _ = _run_both(tmp_path)
    assert missed["by_server"]["seat"] == 1  # the server discarded for B at its deadline
    for who, seen in missed["auto_after_turn"].items():
        assert seen, f"{who} was never shown B 托管"
    # 取消托管 clears it for everyone
    for who, flags in missed["cleared"].items():
        assert flags and flags[-1] is False, who


def test_a_missed_opening_window_is_a_pass_too(tmp_path: Path) -> None:
    """The dealer may declare 天胡 in the opening's window A and lets the deadline pass:
    the server passes for it, sets no 托管, and its first discard has a full deadline."""

    async def main() -> tuple[dict[str, Any] | None, bool, list[int], list[str]]:
        deals = StackedDeals([heaven_wall()], dealer=0)
        async with running(tmp_path, deals=deals, claim_pause_ms=600, bot_delay_ms=300) as h:
            a = await h.guest("dealer")
            o: Client = await h.guest("other")
            tid = await h.table(a, bots=2, turn_seconds=TURN)
            await h.seat(a, tid)
            await h.seat(o, tid)
            await h.ready(a, o)
            assert a.state and a.state["view"]["phase"] == "window_a"
            assert [x["type"] for x in a.legal] == ["win", "pass"]
            await h.advance(OPENING_S + TURN)  # the deadline inside window A (after the opening)
            await h.advance(PAUSE)
            table = h.lobby.tables[tid]
            return a.state, table.seats[0].auto, _auto_seen(o, 0), a.errors()

    st, auto, seen, errors = asyncio.run(main())
    assert st is not None and st["view"]["phase"] == "turn" and st["view"]["turn"] == 0
    assert st["deadline_ms"] == round((OPENING_S + TURN) * 1000)
    assert auto is False and seen == [] and errors == []
