"""The opening never eats the clock (docs/protocol.md, "The opening"): at a table with
humans, for ``OPENING_S`` after a hand is shown no bot or 托管 seat acts on its turn and no
deadline runs; the first decision's ``deadline_ms`` is the opening left plus the full turn;
a client that rejoins mid-opening is told how much is left (``opening_ms``). In-process on
the fake clock (tests/inproc.py): exact times, no luck."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fujian_mahjong.server.deals import FixedDeals
from fujian_mahjong.server.settings import OPENING_S
from tests.inproc import StackedDeals, running
from tests.test_audit_server import FIVE_P, heaven_wall, wall
from tests.test_table_support import guest, reconnect, seat_of, table, times

PAUSE_MS = 600
PAUSE = PAUSE_MS / 1000
OPENING_MS = round(OPENING_S * 1000)
TURN = 15.0


@pytest.mark.parametrize("length", [OPENING_S, 1.0, 0.0])
def test_no_bot_acts_during_the_opening(tmp_path: Path, length: float) -> None:
    """A bot deals (seat 1): its first discard comes when the opening is over, not at the
    bots' pace (0.3 s) while the player still watches the deal. The opening's length is a
    setting (``opening_s``; ``fjmj serve --opening-ms``): the bots wait that long and
    ``opening_ms`` says so; with 0 they play at their own pace and ``opening_ms`` is 0 (so
    the web client shows no opening), not left out as at a table of bots."""

    async def main() -> None:
        async with running(
            tmp_path,
            deals=FixedDeals("opening", dealer=1),
            claim_pause_ms=PAUSE_MS,
            opening_s=length,
        ) as h:
            me = await guest(h, "watcher")
            tid = await table(h, me, bots=3, turn_seconds=TURN)
            await h.seat(me, tid)
            assert seat_of(me) == 0
            await h.ready(me)
            await h.advance(PAUSE)
            st = me.state
            assert st is not None and st["view"]["phase"] == "turn" and st["view"]["turn"] == 1
            shown = times(me)[-1]
            due = max(length, h.settings.bot_delay_ms / 1000)
            await h.advance(due - 0.001)
            assert not me.of_type("discard"), "a bot played while the opening was shown"
            await h.advance(0.001)
            first = me.of_type("discard")
            assert first and first[0]["seat"] == 1
            assert round(times(me)[me.messages.index(first[0])] - shown, 6) == due
            assert st["opening_ms"] == round(length * 1000) and st["opening"]

    asyncio.run(main())


def test_the_first_decision_has_its_full_time_after_the_opening(tmp_path: Path) -> None:
    """The player deals: its first discard's deadline is the opening plus the full turn, and
    the server plays for it only then (托管 after a missed turn, docs/protocol.md)."""

    async def main() -> None:
        async with running(
            tmp_path, deals=FixedDeals("opening", dealer=0), claim_pause_ms=PAUSE_MS
        ) as h:
            me = await guest(h, "dealer")
            tid = await table(h, me, bots=3, turn_seconds=TURN)
            await h.seat(me, tid)
            await h.ready(me)
            await h.advance(PAUSE)
            st = me.state
            assert st is not None and st["view"]["phase"] == "turn" and me.legal
            assert st["deadline_ms"] == OPENING_MS + round(TURN * 1000)
            assert st["opening_ms"] == OPENING_MS
            shown = times(me)[-1]
            await h.advance(OPENING_S + TURN - 0.001)
            assert not me.of_type("discard"), "the server acted before the full turn"
            await h.advance(0.001)
            first = me.of_type("discard")
            assert first and first[0]["seat"] == 0
            assert round(times(me)[me.messages.index(first[0])] - shown, 6) == OPENING_S + TURN

    asyncio.run(main())


def test_a_rejoin_mid_opening_is_told_what_is_left_and_keeps_its_deadline(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        async with running(
            tmp_path, deals=FixedDeals("opening", dealer=0), claim_pause_ms=PAUSE_MS
        ) as h:
            me = await guest(h, "dealer")
            tid = await table(h, me, bots=3, turn_seconds=TURN)
            await h.seat(me, tid)
            await h.ready(me)
            await h.advance(PAUSE + 1.25)
            again = await reconnect(h, me)
            await h.seat(again, tid)
            st = again.state
            assert st is not None and again.legal
            assert st["opening_ms"] == OPENING_MS - 1250
            assert st["deadline_ms"] == OPENING_MS - 1250 + round(TURN * 1000)
            await h.advance(OPENING_S - 1.25)
            # over: a later join is told so (0), and the turn's time runs
            third = await reconnect(h, again)
            await h.seat(third, tid)
            st = third.state
            assert st is not None
            assert st["opening_ms"] == 0 and st["deadline_ms"] == round(TURN * 1000)

    asyncio.run(main())


def test_the_opening_window_has_its_full_time_after_the_opening(tmp_path: Path) -> None:
    """R8 window A (天胡 here): the asked seat is shown the hand at once; its deadline is the
    opening plus the full turn, and it is passed for only then."""

    async def main() -> None:
        deals = StackedDeals([heaven_wall()], dealer=0)
        async with running(tmp_path, deals=deals, claim_pause_ms=PAUSE_MS) as h:
            a = await guest(h, "dealer")
            o = await guest(h, "other")
            tid = await table(h, a, bots=2, turn_seconds=TURN)
            await h.seat(a, tid)
            await h.seat(o, tid)
            await h.ready(a, o)
            st = a.state
            assert st is not None and st["view"]["phase"] == "window_a"
            assert st["deadline_ms"] == OPENING_MS + round(TURN * 1000)
            assert st["opening_ms"] == OPENING_MS
            assert o.state is None  # R12: nobody else sees the open window
            await h.advance(OPENING_S + TURN - 0.001)
            st = a.state
            assert st is not None and st["view"]["phase"] == "window_a" and a.legal
            await h.advance(0.001 + PAUSE)
            st = a.state
            assert st is not None and st["view"]["phase"] == "turn" and a.legal
            # the hand is shown to everyone now: their opening starts, and so the time of
            # the dealer's first discard counts from its end
            assert o.state is not None and o.state["opening_ms"] == OPENING_MS
            assert st["deadline_ms"] == OPENING_MS + round(TURN * 1000)

    asyncio.run(main())


def test_a_player_who_acts_first_ends_the_opening(tmp_path: Path) -> None:
    """The dealer discards at once: the claim on it is timed from the discard (the full
    turn, not more) and what follows runs at its usual pace."""

    async def main() -> None:
        deals = StackedDeals([wall(True, False)], dealer=0)
        async with running(tmp_path, deals=deals, claim_pause_ms=PAUSE_MS) as h:
            a = await guest(h, "dealer")
            b = await guest(h, "claimer")
            tid = await table(h, a, bots=2, turn_seconds=TURN)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.ready(a, b)
            await h.advance(PAUSE)
            assert a.state is not None and a.state["opening_ms"] == OPENING_MS
            await a.act(FIVE_P)
            st = b.state
            assert st is not None and st["view"]["phase"] == "claims" and b.legal
            assert st["deadline_ms"] == round(TURN * 1000)
            assert "opening_ms" not in st and "opening" not in st

    asyncio.run(main())


def test_a_table_of_bots_has_no_opening(tmp_path: Path) -> None:
    """Nobody plays at a table of bots: no opening holds its bots (a spectator's state says
    nothing of one)."""

    async def main() -> None:
        async with running(
            tmp_path, deals=FixedDeals("opening", dealer=0), claim_pause_ms=PAUSE_MS
        ) as h:
            owner = await guest(h, "owner")
            tid = await table(h, owner, bots=4, turn_seconds=TURN)
            w = await guest(h, "spectator")
            await h.seat(w, tid, as_="spectator")
            st = w.state
            assert st is not None and "opening_ms" not in st
            t = h.lobby.tables[tid]
            assert t.hand is not None and t.hand.opening_until == 0.0
            before = len(t.hand.game.events)
            await h.advance(0.3)
            assert t.hand is None or len(t.hand.game.events) > before

    asyncio.run(main())


def test_a_spectator_sees_the_turns_countdown(tmp_path: Path) -> None:
    """A spectator is shown the countdown of the seat whose turn it is (public, R12), the
    same deadline the seat itself was given; bots' turns have none."""

    async def main() -> None:
        async with running(
            tmp_path, deals=FixedDeals("opening", dealer=0), claim_pause_ms=PAUSE_MS
        ) as h:
            me = await guest(h, "dealer")
            spy = await guest(h, "spy")
            tid = await table(h, me, bots=3, turn_seconds=TURN)
            await h.seat(me, tid)
            await h.seat(spy, tid, as_="spectator")
            await h.ready(me)
            await h.advance(PAUSE)
            st, seen = me.state, spy.state
            assert st is not None and seen is not None and me.legal
            assert seen["view"]["turn"] == 0 and not seen["view"]["legal_actions"]
            assert seen["deadline_ms"] == st["deadline_ms"] == OPENING_MS + round(TURN * 1000)
            await h.advance(OPENING_S + TURN)  # the server discards for the dealer
            await h.advance(PAUSE)
            bot_turns = [
                m
                for m in spy.of_type("state")
                if m["view"]["phase"] == "turn" and m["view"]["turn"] != 0
            ]
            assert bot_turns and all(m["deadline_ms"] is None for m in bot_turns)

    asyncio.run(main())
