"""Adversarial review of the table server (docs/architecture.md, docs/economy.md; R11/R12
rev 2), in-process and
deterministic: the real app (``create_app``) with a fake clock, recording transports and
stacked deals (tests/inproc.py). Every scenario is one scripted hand that reaches its
situation at a known event; nothing is retried and nothing sleeps.

- who was asked to answer a discard is private (R12 rev 2): a seat that was not asked, a
  spectator, and a seat that was asked and has answered receive exactly the same messages
  (types, order, contents, sizes, fake-clock times) whether or not anyone else could claim;
- a deadline that passes inside a claim window is a pass and sets no 托管 (nobody can tell
  it from a human's pass), and a 托管 seat answers a window inside the pause (it never
  makes the window close late);
- a private table's sequential id does not open it (REST and WebSocket ``join``), and its
  code cannot be guessed (code-shaped misses are rate limited per address);
- a message over 8 KiB closes the connection (1008, also on a real ASGI WebSocket);
- a leave while the finished hand's end is held by the claim pause ends that hand once; a
  leave inside a claim window looks the same to the others whether the leaver was asked;
- ``match_end`` history has no fake silver; no hand endpoint answers before the hand ends;
  a revoked token opens no table even on a socket that said hello before the logout;
- the 听牌 waits of ``fuzhou-doudou`` hands with honours (R1 rev 2).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fujian_mahjong.analysis import is_ready
from fujian_mahjong.engine import Action, Game
from fujian_mahjong.engine.tenpai import seat_waits
from fujian_mahjong.server import commands as C
from fujian_mahjong.server.visibility import WINDOW_PHASES
from fujian_mahjong.tiles import counts_of, parse, parse_kind
from tests.inproc import Client, Harness, StackedDeals, TimedTransport, running, stacked

PAUSE = 0.6  # the harness's claim pause (600 ms)
TURN = 10.0  # turn_seconds of the tables below

# ------------------------------------------------------------------ the stacked deals
#
# Seat 0 (the dealer) discards 5p first. Seat 1 may chow it (4p6p) and seat 2 may pong it
# (5p5p), each only in its "asked" variant; the other variants hold two useless tiles
# instead. Nobody else has any option at the deal or on 5p (no 天胡, no three golds, no
# ready hand for 抢金: the gold is 9s, which nobody holds). Seat 1 then draws 1s, which
# nobody can claim when it is discarded.

DEALER = "5p1m1m4m7m2p8p3s3s6s2m8m5s8s1p7p4s"
SEAT1 = "1m4m7m2s5s8s3p9p6m9m2p8p1s7s"  # + 4p6p (chow 5p) or 1p3m
SEAT2 = "3m6m9m1p4p7p1s4s7s2m5m9p6s8s"  # + 5p5p (pong 5p) or 7m3p
SEAT3 = "1m4m7m2p6p9p2s5s8s3m5m8p1s7s4p2m"
HEAVEN = "123m456m789m123p55p456p"  # the dealer's 天胡: it may win in opening window A
DRAW, GOLD_TAIL = "1s", "9s"
FIVE_P = {"type": "discard", "tile": "5p"}
ONE_S = {"type": "discard", "tile": "1s"}
PASS = {"type": "pass"}


def deal(chow1: bool, pong2: bool, dealer: str = DEALER) -> dict[int, str]:
    return {
        0: dealer,
        1: SEAT1 + ("4p6p" if chow1 else "1p3m"),
        2: SEAT2 + ("5p5p" if pong2 else "7m3p"),
        3: SEAT3,
    }


def wall(chow1: bool, pong2: bool) -> list[int]:
    """The wall, checked by looking ahead: exactly the seats chosen are asked on 5p."""
    w = stacked(deal(chow1, pong2), draws=DRAW, tail=GOLD_TAIL)
    g = Game.from_wall("fuzhou-tcy", w, dealer=0)
    assert g.phase == "turn" and g.to_act() == [0]
    assert all(a.type == "discard" for a in g.legal_actions(0))
    g.apply(0, Action.from_json(FIVE_P))
    asked = [s for s, on in ((1, chow1), (2, pong2)) if on]
    assert g.to_act() == (asked or [1]) and g.phase == ("claims" if asked else "turn")
    for s in asked:
        g.apply(s, Action("pass"))
    assert g.phase == "turn" and g.to_act() == [1]
    g.apply(1, Action.from_json(ONE_S))
    assert g.phase == "turn" and g.to_act() == [2], "nobody may claim the 1s"
    return w


def heaven_wall() -> list[int]:
    """The dealer (seat 0) may declare 天胡 at the deal; nobody else has any option."""
    w = stacked(deal(False, False, dealer=HEAVEN), draws=DRAW, tail=GOLD_TAIL)
    g = Game.from_wall("fuzhou-tcy", w, dealer=0)
    assert g.phase == "window_a" and g.to_act() == [0]
    assert [a.type for a in g.legal_actions(0)] == ["win", "pass"]
    return w


# ------------------------------------------------------------------ local helpers


TimedTransport = TimedTransport  # tests/inproc.py


def timed(c: Client) -> Client:
    """From now on ``c`` records the time of each message too (the earlier ones are gone)."""
    c.rec = TimedTransport(c.h.clock)
    c.conn.transport = c.rec
    c.read = 0
    return c


# a real seed's length (engine/game.py: 16 random bytes in hex)
SEED_LEN = 32


def trace(c: Client) -> list[tuple[float, int, dict[str, Any]]]:
    """(time, size, message) of everything ``c`` received. Masked, keeping their lengths: the
    hand's commitment (each wall has its own, as each real seed would) and the table's code
    (random); a revealed seed masked as a real one, of one length (a stacked wall's spells
    the wall: its length is the wall's, not the hand's)."""
    rec = c.rec
    assert isinstance(rec, TimedTransport)
    return [
        (round(t, 6), n - len(m.get("seed") or "") + (SEED_LEN if m.get("seed") else 0), _mask(m))
        for t, n, m in zip(rec.times, rec.sizes, rec.messages, strict=True)
    ]


def _mask(x: Any) -> Any:
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            if k in ("seed_sha256", "code") and isinstance(v, str):
                out[k] = "#" * len(v)  # a stacked wall's commitment, a random table code
            elif k == "seed" and isinstance(v, str):
                out[k] = "#" * SEED_LEN
            else:
                out[k] = _mask(v)
        return out
    if isinstance(x, list):
        return [_mask(v) for v in x]
    return x


def _bearer(c: Client) -> dict[str, str]:
    return {"Authorization": f"Bearer {c.token}"}


async def _socket(h: Harness, like: Client) -> Client:
    """A second connection of the same player (a new socket, the same token)."""
    c = Client(h, like.name, like.token, like.player_id)
    await c.send({"type": "hello", "token": c.token})
    return c


def _asked(c: Client) -> bool:
    """``c``'s last state asks it to answer a claim window."""
    st_ = c.state
    return bool(st_ and st_["view"]["phase"] in WINDOW_PHASES and st_["view"]["legal_actions"])


def _open_window_shown(c: Client) -> list[dict[str, Any]]:
    """States showing an open window with nothing to do (would say someone else was asked)."""
    return [
        m
        for m in c.of_type("state")
        if m["view"]["phase"] in WINDOW_PHASES and not m["view"]["legal_actions"]
    ]


def _auto_seen(c: Client, seat: int) -> list[int]:
    """Indices of ``c``'s messages whose seat list shows ``seat`` 托管."""
    return [
        i for i, m in enumerate(c.messages) if m.get("seats") and m["seats"][seat]["auto"] is True
    ]


# ------------------------------------------------------------------ R12: the spy


async def _window_hand(
    tmp: Path, chow1: bool, pong2: bool, second_answers_at: float = 0.4
) -> dict[str, Client]:
    """Humans at seats 0 (the dealer), 1 and 2, a bot at 3, a spectator. Seat 0 discards
    5p; an asked seat 1 passes at once, an asked seat 2 passes ``second_answers_at`` s after
    the discard; seat 1 then discards the 1s it drew; the script stops at seat 2's turn."""
    deals = StackedDeals([wall(chow1, pong2)], dealer=0)
    async with running(tmp, deals=deals, claim_pause_ms=600, bot_delay_ms=300) as h:
        d, q, s, w = [timed(await h.guest(n)) for n in ("dealer", "quick", "slow", "spy")]
        tid = await h.table(d, bots=1, turn_seconds=TURN)
        for c in (d, q, s):
            await h.seat(c, tid)
        await h.seat(w, tid, "spectator")
        await h.ready(d, q, s)
        await h.advance(PAUSE)  # the opening pause (nobody is asked at the deal)
        assert d.legal and not q.legal and not s.legal
        await d.act(FIVE_P)
        assert _asked(q) is chow1 and _asked(s) is pong2
        if chow1:
            await q.act(PASS)  # answers at once
        await h.advance(second_answers_at)
        if pong2:
            assert _asked(s)
            await s.act(PASS)
        await h.advance(PAUSE)  # the pause is over by now, and the window closed
        assert q.state and q.state["view"]["phase"] == "turn" and q.legal
        await q.act(ONE_S)
        await h.advance(PAUSE)
        assert s.state and s.state["view"]["turn"] == 2 and s.legal
        await h.advance(TURN / 2)  # nothing more comes while seat 2 thinks
        return {"dealer": d, "quick": q, "slow": s, "spy": w}


def test_who_was_asked_to_answer_a_discard_is_invisible(tmp_path: Path) -> None:
    """R12 rev 2, the spy: the same hand four times, differing only in the tiles of seats 1
    and 2 — both, one or neither may claim the dealer's 5p. Whoever was not asked (the
    dealer, a spectator) receives exactly the same messages in all four: types, order,
    contents, sizes in bytes, fake-clock times. A seat that was asked and answered at once
    receives the same whether or not the other seat was asked too."""

    async def main() -> dict[tuple[bool, bool], dict[str, Any]]:
        out = {}
        for i, (c1, p2) in enumerate(itertools.product((True, False), repeat=2)):
            cs = await _window_hand(tmp_path / str(i), c1, p2)
            out[c1, p2] = {k: trace(c) for k, c in cs.items()}
            for who, c in cs.items():
                assert not c.errors(), (who, c.errors())
                assert not _open_window_shown(c)
        return out

    runs = asyncio.run(main())
    both = runs[True, True]
    kinds = [m["type"] for _, _, m in both["dealer"]]
    assert kinds.count("discard") == 2 and kinds[-1] == "state", kinds
    # the seats that were not asked: identical whoever could claim
    for who in ("dealer", "spy"):
        for key, run in runs.items():
            assert run[who] == both[who], (who, key)
    # a seat asked that answered at once: the other seat's being asked does not show
    assert runs[True, True]["quick"] == runs[True, False]["quick"]
    assert runs[False, True]["quick"] == runs[False, False]["quick"]
    # the slow seat (answered inside the pause): seat 1's being asked does not show
    assert runs[True, True]["slow"] == runs[False, True]["slow"]
    assert runs[True, False]["slow"] == runs[False, False]["slow"]
    # and the states after the discard all came exactly when the pause ended
    d = both["dealer"]
    first = next(i for i, (_, _, m) in enumerate(d) if m["type"] == "discard")
    assert d[first + 1][2]["type"] == "state" and round(d[first + 1][0] - d[first][0], 6) == PAUSE


def test_the_store_works_alike_inside_a_pause_whoever_was_asked(tmp_path: Path) -> None:
    """R12, the timing of the server's own work: a player can time how soon the table
    answers a message sent just after a discard, and a commit to the store is most of what
    a table does. So the answers given inside a claim pause are stored at its end, with the
    rest: whether the bot at seat 1 may chow the dealer's 5p or not, the store is written
    once as the discard's notice goes out (the discard only), then once as the pause ends
    (the next draw, and the answers), when the states go out, at a moment drawn so that it
    says nothing (server/scheduler.py). Before, the bot's answer was committed at once, inside the pause, exactly
    when it was asked (a helper measured 1.06 ms against 0.69 ms, the median probe)."""

    async def run(i: int, chow1: bool) -> tuple[list[float], float]:
        """The store's writes from the discard on (fake-clock seconds after it), and when
        the pause ended (the dealer's next state)."""
        deals = StackedDeals([wall(chow1, False)], dealer=0)
        async with running(tmp_path / str(i), deals=deals, claim_pause_ms=600) as h:
            d = await h.guest("dealer")
            tid = await h.table(d, bots=3, turn_seconds=TURN, claim_window="fixed")
            await h.seat(d, tid)
            await h.ready(d)
            for _ in range(80):  # the deal's pause: fixed, with its jitter
                if d.legal:
                    break
                await h.advance(0.05)
            assert d.legal and d.state
            seq = d.state["seq"]
            timed(d)
            writes: list[float] = []
            real = h.store.append_events

            async def append(*a: Any, **kw: Any) -> Any:
                writes.append(h.clock.now())
                return await real(*a, **kw)

            h.store.append_events = append  # type: ignore[method-assign]
            start = h.clock.now()
            await d.send({"type": "act", "seq": seq, "action": FIVE_P})
            for _ in range(80):  # the pause (at most 4 s and its jitter), 50 ms a step
                if d.of_type("state"):
                    break
                await h.advance(0.05)
            ended = next(t for t, _, m in trace(d) if m["type"] == "state") - start
            assert ended >= PAUSE
            return [round(t - start, 6) for t in writes], round(ended, 6)

    async def main() -> None:
        for i, chow1 in enumerate((True, False)):
            writes, ended = await run(i, chow1)
            # the discard, stored as its notice went out; then nothing until the pause ended,
            # and then once (the next draw, with the answers if any): the same whoever was
            # asked (storing the draw with the discard when nobody was made the pause's end
            # silent exactly then)
            assert [t for t in writes if t <= ended] == [0.0, ended], (chow1, writes, ended)

    asyncio.run(main())


def test_an_answered_seat_cannot_tell_whether_others_were_asked(tmp_path: Path) -> None:
    """R12 rev 2: who else was asked is private, also to a seat that was asked itself. Seats
    1 and 2 are asked on one discard; seat 1 answers at once, seat 2 takes 1.5 s (past the
    pause). A state showing seat 1 the still open window with nothing to do would tell it
    another seat was asked: after answering it hears nothing until the window closes, then
    exactly what it hears when it alone was asked (only later: a human's thinking time is
    the one thing the pause cannot hide)."""

    async def main() -> tuple[dict[str, Client], dict[str, Client]]:
        late = await _window_hand(tmp_path / "late", True, True, second_answers_at=1.5)
        alone = await _window_hand(tmp_path / "alone", True, False)
        return late, alone

    late, alone = asyncio.run(main())
    q = late["quick"]
    assert not _open_window_shown(q)
    rec = q.rec
    assert isinstance(rec, TimedTransport)
    i = next(i for i, m in enumerate(q.messages) if m["type"] == "discard")
    assert q.messages[i + 1]["view"]["phase"] == "claims"  # asked, then it passed at once
    # nothing between its answer and the close of the window, 1.5 s after the discard
    assert round(rec.times[i + 2] - rec.times[i], 6) == 1.5
    assert q.messages[i + 2]["view"]["phase"] == "turn"
    same = [(n, m) for _, n, m in trace(q)]
    assert same == [(n, m) for _, n, m in trace(alone["quick"])]


# ------------------------------------------------------------------ R12: a seat that is away


async def _away_hand(tmp: Path, chow1: bool, leaves_at: float | None) -> dict[str, Client]:
    """Humans at seats 0 (the dealer), 1 and 2, a bot at 3, a spectator. Seat 1's socket
    closes (everyone is told it is away) before the dealer's 5p (``leaves_at`` None) or that
    long after it, inside the window; it does not come back. The script ends after seat
    1's own turn has passed by its deadline."""
    deals = StackedDeals([wall(chow1, False)], dealer=0)
    async with running(tmp, deals=deals, claim_pause_ms=600, bot_delay_ms=300) as h:
        d, q, s, w = [timed(await h.guest(n)) for n in ("dealer", "away", "south", "spy")]
        tid = await h.table(d, bots=1, turn_seconds=TURN)
        for c in (d, q, s):
            await h.seat(c, tid)
        await h.seat(w, tid, "spectator")
        await h.ready(d, q, s)
        await h.advance(PAUSE)
        if leaves_at is None:
            await q.disconnect()
        await d.act(FIVE_P)
        if leaves_at is not None:
            assert _asked(q) is chow1
            await h.advance(leaves_at)
            await q.disconnect()
        await h.advance(PAUSE + TURN + 1)  # seat 1's own turn: its deadline passes
        assert len(d.of_type("discard")) == 2  # the dealer's 5p, then seat 1's (托管)
        return {"dealer": d, "south": s, "spy": w}


def test_a_seat_that_is_away_passes_inside_the_pause(tmp_path: Path) -> None:
    """R12 rev 2: everyone sees that a seat's player is away (its socket closed, the grace
    period running). Asked to answer a discard, such a seat passes inside the claim pause,
    as a bot does; kept to a human's deadline, the window lasted turn_seconds exactly when it
    could claim (a pair, a chow or a win on the tile). The dealer, seat 2 and a spectator
    receive exactly the same messages whether or not the seat could chow, whether it went
    away before the discard or inside the window."""

    async def main() -> dict[tuple[bool, float | None], dict[str, Any]]:
        out = {}
        for i, (chow1, leaves_at) in enumerate(itertools.product((True, False), (None, 0.3))):
            cs = await _away_hand(tmp_path / str(i), chow1, leaves_at)
            out[chow1, leaves_at] = {k: trace(c) for k, c in cs.items()}
            for who, c in cs.items():
                assert not c.errors(), (who, c.errors())
        return out

    runs = asyncio.run(main())
    for leaves_at in (None, 0.3):
        for who in ("dealer", "south", "spy"):
            assert runs[True, leaves_at][who] == runs[False, leaves_at][who], (who, leaves_at)
    d = runs[True, None]["dealer"]
    five = next(i for i, (_, _, m) in enumerate(d) if m["type"] == "discard")
    after = d[five + 1]
    assert after[2]["type"] == "state" and round(after[0] - d[five][0], 6) == PAUSE


async def _chower_asked(h: Harness) -> tuple[int, Client]:
    """Humans at seats 0 (the dealer) and 1, bots at 2 and 3 (``wall(True, False)``): the
    dealer discards 5p, and seat 1 is asked (it may chow). The table and seat 1's client."""
    d, q = await h.guest("dealer"), await h.guest("chower")
    tid = await h.table(d, bots=2, turn_seconds=TURN)
    await h.seat(d, tid)
    await h.seat(q, tid)
    await h.ready(d, q)
    await h.advance(PAUSE)
    await d.act(FIVE_P)
    assert _asked(q)
    return tid, q


def test_a_player_back_before_the_bot_answers_for_it_answers_itself(tmp_path: Path) -> None:
    """The bot's answer for a seat that was away is queued at once; its player back before
    it runs (a new socket's join handled first) answers the window itself, with a human's
    deadline: the queued answer finds the seat connected and plans it again."""

    async def main() -> None:
        deals = StackedDeals([wall(True, False)], dealer=0)
        async with running(tmp_path, deals=deals, claim_pause_ms=600, bot_delay_ms=300) as h:
            tid, q = await _chower_asked(h)
            actor = h.lobby.tables[tid]
            key = len(actor.hand.game.events)
            back = await _socket(h, q)
            await h.seat(back, tid)  # (the same socket's replacement: never away)
            assert _asked(back)
            # as while it was away: its deadline forgotten, the bot's answer queued
            actor.sched.forget(1)
            actor.submit(C.AutoAct(1, key))
            await h.settle()
            assert len(actor.hand.game.events) == key  # nobody answered for it
            assert actor.sched.deadline_ms(1, key) is not None  # its own deadline
            await back.act(PASS)
            assert not back.errors()

    asyncio.run(main())


def test_a_restored_seat_keeps_its_deadline_in_an_open_window(tmp_path: Path) -> None:
    """docs/deploy.md: after a restart (or a table's move to another process) a pending
    decision gets a fresh deadline — a claim window's too. The players were cut off by the
    server, not away by their own doing: nobody answers for them at once. (Whether a window
    was open shows to a player coming back from a restart by how soon its state comes: the
    price of giving every asked player back its decision.)"""

    async def main() -> None:
        deals = StackedDeals([wall(True, False)], dealer=0)
        async with running(tmp_path, deals=deals, claim_pause_ms=600, bot_delay_ms=300) as h:
            tid, q = await _chower_asked(h)
        async with running(tmp_path, deals=deals, claim_pause_ms=600, bot_delay_ms=300) as h:
            await h.settle()
            back = await _socket(h, q)
            await h.advance(TURN / 2)  # long after the pause: still its to answer
            await h.seat(back, tid)
            assert _asked(back) and back.state is not None
            assert back.state["deadline_ms"] > 0
            chow = next(a for a in back.legal if a["type"] == "chow")
            await back.act(chow)
            assert not back.errors()

    asyncio.run(main())


# ------------------------------------------------------------------ R12: an added kong (sanming)
#
# R6's scenario r6-rob-kong: seat 1 pongs the dealer's 5m, draws the fourth and adds it to
# the pong. Seat 3 holds 4m6m and may rob the kong (抢杠, sanming only: D-16); in the other
# variant it holds 4m9m and may not. Seat 3 is also asked on the dealer's 5m when it holds
# 4m6m (it passes), as a discard's window the spy test above shows to be private.

KONG_DEAL = {0: "5m111222333444p1289s", 1: "55m666777888p357s38m", 2: "16999m2345559p2468s"}
KONG_SCRIPT = [
    (0, {"type": "discard", "tile": "5m"}),
    (1, {"type": "pong"}),
    (1, {"type": "discard", "tile": "3m"}),
    (2, {"type": "discard", "tile": "9p"}),
    (3, {"type": "discard", "tile": "8p"}),
    (1, PASS),  # it may pong the 8p
    (0, {"type": "discard", "tile": "6p"}),
    (1, PASS),  # and the 6p
    (1, {"type": "added_kong", "tile": "5m"}),
]


def kong_wall(robbable: bool) -> list[int]:
    """The scenario's wall, checked by looking ahead: seat 3 is asked on the added 5m exactly
    when ``robbable``, and nobody is asked on anything else but as the script answers. The
    two walls differ only in where a 6m and a 9m lie (seat 3's hand, and a place in the
    middle of the wall that nobody reaches in the script): every public tile is the same."""

    def wall_of(seat3: str) -> list[int]:
        return stacked({**KONG_DEAL, 3: seat3 + "111m22m123456789s"}, "9p8p6p5m", "1z1z1z7m")

    w = wall_of("46m")
    if not robbable:  # seat 3's dealt 6m changes place with the wall's last 9m
        dealt = next(i for i, (x, y) in enumerate(zip(w, wall_of("49m"), strict=True)) if x != y)
        spare = max(i for i, k in enumerate(w) if k == parse_kind("9m"))
        w[dealt], w[spare] = w[spare], w[dealt]
    g = Game.from_wall("sanming", w, dealer=0)
    assert sorted(parse(g.view(3)["hand"])) == sorted(
        parse(("46m" if robbable else "49m") + "111m22m123456789s")
    )
    for seat, a in KONG_SCRIPT:
        while g.phase in WINDOW_PHASES and seat not in g.to_act():
            assert g.to_act() == [3] and robbable  # seat 3 on the dealer's 5m: it passes
            g.apply(3, Action("pass"))
        g.apply(seat, Action.from_json(a))
    assert (g.phase == "claims") is robbable
    assert g.to_act() == ([3] if robbable else [1])
    assert not robbable or g.claim_kind == "rob_kong"
    return w


async def _kong_hand(tmp: Path, robbable: bool) -> dict[str, Client]:
    """Four humans and a spectator play the script; seat 3 passes whenever it is asked, at
    once. The script stops once seat 1 has its replacement and may discard."""
    deals = StackedDeals([kong_wall(robbable)], dealer=0)
    async with running(tmp, deals=deals, claim_pause_ms=600, bot_delay_ms=300) as h:
        seats = [timed(await h.guest(n)) for n in ("dealer", "konger", "south", "robber")]
        spy = timed(await h.guest("spy"))
        tid = await h.table(seats[0], bots=0, profile="sanming", turn_seconds=TURN)
        for c in seats:
            await h.seat(c, tid)
        await h.seat(spy, tid, "spectator")
        await h.ready(*seats)
        await h.advance(PAUSE)
        for seat, a in KONG_SCRIPT:
            if _asked(seats[3]) and seat != 3:
                await seats[3].act(PASS)
            await seats[seat].act(a)
            await h.advance(PAUSE)
        if _asked(seats[3]):
            await seats[3].act(PASS)
        await h.advance(PAUSE)
        k = seats[1]
        assert k.state and k.state["view"]["turn"] == 1 and k.legal
        assert any(m["type"] == "kong_added" for m in k.state["view"]["melds"][1])
        await h.advance(TURN / 2)
        return {"dealer": seats[0], "konger": k, "south": seats[2], "spy": spy}


def test_whether_an_added_kong_could_be_robbed_is_invisible(tmp_path: Path) -> None:
    """R12 rev 2, R6 (抢杠, sanming): an added kong is announced (``added_kong``) and held by
    the claim pause whether or not anyone could rob it. Announced only when a seat could,
    the notice and its pause told everyone that a seat was ready and waited on that tile.
    The dealer, seat 2, the spectator and the kong's owner receive exactly the same messages
    (types, order, contents, sizes, fake-clock times) in both hands."""

    async def main() -> dict[bool, dict[str, Any]]:
        out = {}
        for robbable in (True, False):
            cs = await _kong_hand(tmp_path / str(robbable), robbable)
            out[robbable] = {k: trace(c) for k, c in cs.items()}
            for who, c in cs.items():
                assert not c.errors(), (who, c.errors())
                assert not _open_window_shown(c)
                assert len(c.of_type("added_kong")) == 1, who
        return out

    runs = asyncio.run(main())
    for who in ("dealer", "south", "spy", "konger"):
        assert runs[True][who] == runs[False][who], who
    d = runs[False]["dealer"]
    notice = next(i for i, (_, _, m) in enumerate(d) if m["type"] == "added_kong")
    assert d[notice][2]["seat"] == 1 and d[notice][2]["tile"] == "5m"
    after = d[notice + 1]
    assert after[2]["type"] == "state" and round(after[0] - d[notice][0], 6) == PAUSE


# ------------------------------------------------------------------ 托管 inside a claim window


def test_a_claim_window_timeout_does_not_name_the_seat_asked(tmp_path: Path) -> None:
    """Seat 1 (B) is asked to answer the dealer's 5p and lets its deadline pass inside the
    window: the server passes for it and nothing more (docs/protocol.md, "Acting"). Nobody —
    A (the dealer), a spectator, B itself — sees B marked 托管 (that would say B was asked:
    a pair, a chow or a win, R12 rev 2), and B keeps a human's deadline on its own turn;
    only a missed own turn makes it 托管, for everyone."""

    async def main() -> dict[str, Any]:
        deals = StackedDeals([wall(True, False)], dealer=0)
        async with running(tmp_path, deals=deals, claim_pause_ms=600, bot_delay_ms=300) as h:
            a, b, w = [await h.guest(n) for n in ("watcher", "claimer", "spy")]
            tid = await h.table(a, bots=2, turn_seconds=TURN)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.seat(w, tid, "spectator")
            await h.ready(a, b)
            await h.advance(PAUSE)
            await a.act(FIVE_P)
            assert _asked(b) and b.state
            assert abs(b.state["deadline_ms"] - TURN * 1000) <= 1
            await h.advance(TURN)  # B's claim deadline passes: the server passes for it
            assert not _auto_seen(b, 1), "a missed claim prompt set 托管"
            assert b.state and b.state["view"]["turn"] == 1 and b.legal  # B's own turn
            assert abs(b.state["deadline_ms"] - TURN * 1000) <= 1, "a human's deadline"
            seen_before = {c.name: _auto_seen(c, 1) for c in (a, w)}
            discards = len(a.of_type("discard"))
            await h.advance(TURN - 0.5)  # not played at a bot's pace: it keeps its deadline
            assert len(a.of_type("discard")) == discards
            await h.advance(0.5 + 1e-6)  # its own-turn deadline: the server discards 1m
            assert (
                a.of_type("discard")[-1]["tile"] == "1m"
                and len(a.of_type("discard")) == discards + 1
            )
            # A may pong the 1m (and seat 2, a bot, chow it): A passes; once the pause is
            # over, B's 托管 is public (its own turn's deadline made it so)
            assert _asked(a) and [x["type"] for x in a.legal] == ["pong", "pass"]
            await a.act(PASS)
            await h.advance(PAUSE)
            return {
                "before": seen_before,
                "after": {c.name: _auto_seen(c, 1) for c in (a, w)},
                "errors": [c.errors() for c in (a, b, w)],
            }

    r = asyncio.run(main())
    assert r["before"] == {"watcher": [], "spy": []}, "the others saw the claimer 托管"
    assert all(r["after"].values()), "托管 is public after an own-turn deadline"
    assert r["errors"] == [[], [], []]


def test_a_tuoguan_seat_answers_a_claim_window_inside_the_pause(tmp_path: Path) -> None:
    """A 托管 human's claim answers used to wait the bot delay (longer than the pause here:
    700 ms against 600) where bots answer at once: the window then closed late exactly when
    that seat had been asked, and every other seat could time it. Now it answers at once,
    hidden by the pause: the dealer's and a spectator's messages and their times are the
    same whether or not the 托管 seat could claim."""

    async def hand(sub: str, chow1: bool) -> tuple[list[Any], list[Any], bool, str]:
        deals = StackedDeals([wall(chow1, False)], dealer=0)
        async with running(tmp_path / sub, deals=deals, claim_pause_ms=600, bot_delay_ms=700) as h:
            a, b, w = [timed(await h.guest(n)) for n in ("watcher", "auto", "spy")]
            tid = await h.table(a, bots=2, turn_seconds=TURN)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.seat(w, tid, "spectator")
            await b.send({"type": "auto", "on": True})
            await h.ready(a, b)
            await h.advance(PAUSE)
            await a.act(FIVE_P)
            phase = h.lobby.tables[tid].hand.game.phase  # at the instant of the discard
            await h.advance(1.0)  # past the pause; the 托管 seat's own turn is due at 1.3
            asked = any(
                m["view"]["phase"] == "claims" and m["view"]["legal_actions"]
                for m in b.of_type("state")
            )
            return trace(a), trace(w), asked, phase

    async def main() -> tuple[Any, Any]:
        return await hand("asked", True), await hand("not", False)

    (a1, w1, asked, phase1), (a0, w0, not_asked, phase0) = asyncio.run(main())
    assert asked and not not_asked, "the 托管 seat was asked in the first hand only"
    assert a1 == a0 and w1 == w0
    disc = next(i for i, (_, _, m) in enumerate(a1) if m["type"] == "discard")
    nxt = a1[disc + 1]
    assert nxt[2]["type"] == "state" and nxt[2]["view"]["turn"] == 1
    assert round(nxt[0] - a1[disc][0], 6) == PAUSE  # the next state: at the end of the pause
    assert len(a1) == disc + 2
    # the window was over at the instant of the discard (no timer left it open)
    assert phase1 == phase0 == "turn"


# ------------------------------------------------------------------ a leave after the end


def test_a_leave_while_the_finished_hand_is_held_still_ends_it_once(tmp_path: Path) -> None:
    """The race: the hand is over (and settled, in the commit of its last events) but its
    ``hand_end`` is still held by the claim pause when a player leaves. Before the fix the
    match ended without that hand: no ``hand_end``, totals without it. Now the hand ends
    once (recorded, announced), the leaver pays no escape penalty (no hand in progress),
    then the match ends. The dealer wins 天胡 in the opening window and leaves at once."""

    async def main() -> tuple[list[dict[str, Any]], dict[str, Any], int, list[list[int]]]:
        deals = StackedDeals([heaven_wall()], dealer=0)
        async with running(tmp_path, deals=deals) as h:
            a, p = await h.guest("leaver"), await h.guest("payer")
            # two accounts (they play for silver): a penalty would show in the balances
            for c in (a, p):
                body = {"name": c.name, "password": f"pw-{c.name}-1"}
                r = await h.http.post("/api/accounts", json=body, headers=_bearer(c))
                assert r.status_code == 201, r.text

            async def balances() -> list[int]:
                return [
                    (await h.http.get("/api/me", headers=_bearer(c))).json()["silver"]
                    for c in (a, p)
                ]

            before = await balances()
            tid = await h.table(a, bots=2, hands=2, turn_seconds=TURN)
            await h.seat(a, tid)
            await h.seat(p, tid)
            await h.ready(a, p)
            hid = int(a.of_type("hand_start")[0]["hand"])
            assert _asked(a) and not p.legal
            await a.act({"type": "win"})
            t = h.lobby.tables[tid]
            assert t.hand is not None and t.hand.game.is_over() and not t.hand.end_sent
            assert h.clock.now() < t.hand.hold_until, "the end is held by the pause"
            assert not p.of_type("hand_end")
            await a.send({"type": "leave"})
            await h.advance(PAUSE)  # the pause's timer finds nothing left to do
            info = (await h.http.get(f"/api/hands/{hid}")).json()
            assert not a.errors() and not p.errors()
            return p.messages, info, len(h.lobby.tables), [before, await balances()]

    msgs, info, tables, (before, after) = asyncio.run(main())
    types = [m["type"] for m in msgs]
    assert "hand_void" not in types
    assert types.count("hand_end") == 1 and types.count("match_end") == 1, types
    end = next(m for m in msgs if m["type"] == "hand_end")
    me = next(m for m in msgs if m["type"] == "match_end")
    assert end["result"] is not None and end["result"]["winner"] == 0
    assert me["hands_played"] == 1 and me["totals"] == end["totals"]
    assert me["leaver"] == 0
    assert types.index("hand_end") < types.index("match_end") < types.index("table_closed")
    assert info["status"] == "over" and tables == 0
    # the hand was settled as won (the leaver paid by the other account) and nothing else:
    # no escape penalty
    won, paid = end["silver"][0], end["silver"][1]
    assert won["change"] > 0 > paid["change"]
    assert after == [before[0] + won["change"], before[1] + paid["change"]]
    assert "balance" not in won and after[1] == paid["balance"]  # each its own balance only


def test_a_leave_inside_a_claim_window_does_not_say_who_was_asked(tmp_path: Path) -> None:
    """Seat 1 leaves 0.2 s after the dealer's 5p, once while asked to answer it and once
    not: the hand is void and the match ends, once, and the dealer and a spectator receive
    exactly the same messages at the same times in both hands."""

    async def hand(sub: str, chow1: bool) -> tuple[list[Any], list[Any]]:
        deals = StackedDeals([wall(chow1, False)], dealer=0)
        async with running(tmp_path / sub, deals=deals) as h:
            a, b, w = [timed(await h.guest(n)) for n in ("dealer", "leaver", "spy")]
            tid = await h.table(a, bots=2, turn_seconds=TURN)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.seat(w, tid, "spectator")
            await h.ready(a, b)
            await h.advance(PAUSE)
            await a.act(FIVE_P)
            assert _asked(b) is chow1
            await h.advance(0.2)
            await b.send({"type": "leave"})
            await h.advance(PAUSE)
            assert not a.errors() and not b.errors() and not w.errors()
            assert tid not in h.lobby.tables
            return trace(a), trace(w)

    async def main() -> tuple[Any, Any]:
        return await hand("asked", True), await hand("not", False)

    (a1, w1), (a0, w0) = asyncio.run(main())
    assert a1 == a0 and w1 == w0
    tail = [m["type"] for _, _, m in a1][-4:]
    assert tail == ["discard", "hand_void", "match_end", "table_closed"], tail
    void = a1[-3][2]
    assert void["leaver"] == 1 and a1[-3][0] == a1[-1][0]


# ------------------------------------------------------------------ match_end figures


def test_match_end_history_has_no_fake_silver(tmp_path: Path) -> None:
    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with running(tmp_path, deals=StackedDeals([heaven_wall()], dealer=0)) as h:
            g = await h.guest("points")
            tid = await h.table(g, bots=3, turn_seconds=TURN)
            await h.seat(g, tid)
            await h.ready(g)
            await g.act({"type": "win"})
            await h.advance(PAUSE)
            end, me = g.last("hand_end"), g.last("match_end")
            assert end is not None and me is not None
            return end, me

    end, me = asyncio.run(main())
    assert me["history"], me
    for h in me["history"]:
        assert "silver" not in h and "fees" not in h, h  # Match's defaults are not the ledger
        assert sum(h["payments"]) == 0
    assert end["score"] and me["history"][-1]["payments"] == end["score"]["payments"]
    assert me["totals"] == end["totals"] and end["totals"][0] > 0
    # a guest plays for points: hand_end shows no silver for it
    assert end["silver"] is None or end["silver"][0] is None or "balance" in end["silver"][0]


# ------------------------------------------------------------------ hands in progress


def test_every_hand_endpoint_is_404_while_the_hand_is_played(tmp_path: Path) -> None:
    """The log, replay, review and summary hold every concealed tile and the wall (R12):
    none answers while the hand is played (here: inside the opening window, the dealer
    about to declare 天胡); every one answers once it is over."""
    paths = ("log", "log?format=json", "replay", "review?seat=0", "summary")

    async def main() -> None:
        async with running(tmp_path, deals=StackedDeals([heaven_wall()], dealer=0)) as h:
            g = await h.guest("early")
            tid = await h.table(g, bots=3, turn_seconds=TURN)
            await h.seat(g, tid)
            await h.ready(g)
            hid = int(g.of_type("hand_start")[0]["hand"])
            for path in paths:
                r = await h.http.get(f"/api/hands/{hid}/{path}")
                assert r.status_code == 404, (path, r.status_code)
                assert "seed" not in r.text and "wall" not in r.text
            info = (await h.http.get(f"/api/hands/{hid}")).json()
            assert info["status"] == "playing" and "result" not in info and "seed" not in info
            assert (await h.http.get("/api/hands/99999999/summary")).status_code == 404
            await g.act({"type": "win"})
            await h.advance(PAUSE)
            assert g.last("hand_end")
            for path in paths:
                r = await h.http.get(f"/api/hands/{hid}/{path}")
                assert r.status_code == 200, (path, r.status_code, r.text[:200])
            assert (await h.http.get(f"/api/hands/{hid}")).json()["status"] == "over"

    asyncio.run(main())


# ------------------------------------------------------------------ private tables


def test_a_private_table_opens_only_by_its_code(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            owner, stranger = await h.guest("owner"), await h.guest("stranger")
            r = await h.http.post("/api/tables", json={"private": True}, headers=_bearer(owner))
            tid, code = r.json()["id"], r.json()["code"]
            # the stranger enumerates ids: the private table is indistinguishable from none
            for headers in ({}, _bearer(stranger)):
                r = await h.http.get(f"/api/tables/{tid}", headers=headers)
                missing = await h.http.get("/api/tables/999999", headers=headers)
                assert r.status_code == missing.status_code == 404 and code not in r.text
                assert r.json()["detail"].replace(str(tid), "N") == missing.json()[
                    "detail"
                ].replace("999999", "N")
            assert not any(t["id"] == tid for t in (await h.http.get("/api/tables")).json())
            # with the code it is found; its creator finds it by id too (the browser does)
            assert (await h.http.get(f"/api/tables/{code}")).json()["id"] == tid
            mine = await h.http.get(f"/api/tables/{tid}", headers=_bearer(owner))
            assert mine.status_code == 200 and mine.json()["code"] == code
            for as_ in ("spectator", "player"):
                await stranger.send({"type": "join", "table": tid, "as": as_})
                assert stranger.errors()[-1] == "no_table"
                await stranger.send({"type": "join", "table": str(tid), "as": as_})
                assert stranger.errors()[-1] == "no_table"
            assert not stranger.of_type("seated")
            await stranger.send({"type": "join", "table": code, "as": "spectator"})
            seated = stranger.last("seated")
            assert seated and seated["table"] == tid and seated["seat"] is None
            # while watching (in with the code) the id answers too, e.g. for the browser
            r = await h.http.get(f"/api/tables/{tid}", headers=_bearer(stranger))
            assert r.status_code == 200 and r.json()["code"] == code
            # the creator joins by id; once seated a player may use the id too
            await h.seat(owner, tid)
            assert owner.last("seated") == {
                "type": "seated",
                "table": tid,
                "code": code,
                "seat": 0,
                "seq": 1,
            }
            # a public table still opens by id for anyone
            pub = (await h.http.post("/api/tables", json={}, headers=_bearer(owner))).json()
            assert (await h.http.get(f"/api/tables/{pub['id']}")).json()["code"] == pub["code"]

    asyncio.run(main())


# ------------------------------------------------------------------ guessing codes


def test_guessing_table_codes_is_rate_limited(tmp_path: Path) -> None:
    """A private table's key is its 5-letter code (24^5). Unknown code-shaped lookups are
    limited per address (60 a minute): after that even the right code is refused for a
    while, over REST (429) and over the socket; lookups by id are not affected; a minute
    later the code opens again. (The limiter reads ``time.monotonic`` by default; the test
    puts it on the harness's fake clock.)"""

    async def main() -> None:
        async with running(tmp_path) as h:
            g = await h.guest("guesser")
            r = await h.http.post("/api/tables", json={"private": True}, headers=_bearer(g))
            priv = r.json()
            pub = (await h.http.post("/api/tables", json={}, headers=_bearer(g))).json()
            guesses = (
                "".join(p)
                for p in itertools.product("ABCDEFGHJKLMNPQRSTUVWXYZ", repeat=5)
                if "".join(p) not in (priv["code"], pub["code"])
            )
            # lookups that are not code-shaped cost nothing
            for ref in ("999999", "abc", "TOOLONG"):
                assert (await h.http.get(f"/api/tables/{ref}")).status_code == 404
            statuses = [
                (await h.http.get(f"/api/tables/{next(guesses)}")).status_code for _ in range(59)
            ]
            assert statuses == [404] * 59
            # the 60th miss comes over the socket: REST and join share the count
            await g.send({"type": "join", "table": next(guesses).lower(), "as": "spectator"})
            assert g.errors() == ["no_table"]
            r = await h.http.get(f"/api/tables/{priv['code']}")
            assert r.status_code == 429 and "try again" in r.json()["detail"]
            assert (await h.http.get(f"/api/tables/{pub['id']}")).status_code == 200
            await g.send({"type": "join", "table": priv["code"], "as": "spectator"})
            assert g.errors()[-1] == "rate_limited" and not g.of_type("seated")
            await g.send({"type": "join", "table": pub["id"], "as": "spectator"})
            assert (g.last("seated") or {})["table"] == pub["id"]
            await h.advance(59.0)
            assert (await h.http.get(f"/api/tables/{priv['code']}")).status_code == 429
            await h.advance(1.5)
            r = await h.http.get(f"/api/tables/{priv['code']}")
            assert r.status_code == 200 and r.json()["id"] == priv["id"]

    asyncio.run(main())


# ------------------------------------------------------------------ revoked tokens


def test_a_revoked_token_opens_no_table_even_on_an_open_socket(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            g = await h.guest("revoked")  # said hello before the logout
            tid = await h.table(g, bots=3, turn_seconds=TURN)
            r = await h.http.post("/api/logout", headers=_bearer(g))
            assert r.status_code == 200
            # the logout closes the socket that said hello before it (docs/protocol.md: 4001)
            assert g.rec.closed == (4001, "logged out")
            # a new hello with the revoked token is refused; REST refuses it too
            late = await _socket(h, g)
            assert late.errors() == ["bad_token"] and not late.of_type("welcome")
            r = await h.http.post("/api/tables", json={}, headers=_bearer(g))
            assert r.status_code == 401
            # a token that expires while its socket is open opens no table either
            e = await h.guest("expiring")
            from sqlalchemy import update

            from fujian_mahjong.server.store import Token, hash_token
            from fujian_mahjong.server.store.models import utcnow

            async with h.store.write() as s:
                await s.execute(
                    update(Token)
                    .where(Token.token_hash == hash_token(e.token))
                    .values(expires_at=utcnow())
                )
            await h.seat(e, tid)
            assert e.errors() == ["bad_token"]
            await e.send({"type": "ready"})
            assert e.errors()[-1] == "not_authenticated"
            await e.send({"type": "join", "table": tid, "as": "spectator"})
            assert e.errors()[-1] == "not_authenticated" and not e.of_type("seated")
            info = (await h.http.get(f"/api/tables/{tid}")).json()
            assert info["humans"] == 0 and info["status"] == "open"

    asyncio.run(main())


# ------------------------------------------------------------------ oversized messages


def test_an_oversized_message_closes_the_connection(tmp_path: Path) -> None:
    """A message over 8 KiB is answered ``too_long`` and the connection is closed (1008);
    one of exactly 8 KiB is still read. In-process: the dispatcher, on a recording
    transport."""

    async def main() -> None:
        async with running(tmp_path) as h:
            g = await h.guest("big")
            ok = json.dumps({"type": "ping", "pad": ""})
            ok = json.dumps({"type": "ping", "pad": "x" * (8192 - len(ok))})
            assert len(ok) == 8192
            await h.dispatcher.handle(g.conn, ok)
            assert g.new()[-1] == {"type": "pong"} and g.rec.closed is None
            await h.dispatcher.handle(g.conn, json.dumps({"type": "ping", "pad": "x" * 9000}))
            assert [m.get("code") for m in g.new()] == ["too_long"]
            assert g.rec.closed == (1008, "message too long")
            await g.send({"type": "ping"})
            assert g.new() == [], "nothing goes out on a closed connection"

    asyncio.run(main())


async def _asgi_socket(app: Any, frames: list[str]) -> list[dict[str, Any]]:
    """The app's ``/ws`` endpoint driven as an ASGI server drives it: a connect, the text
    frames, then the client goes away; returns every ASGI event the app sent."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    inbox.put_nowait({"type": "websocket.connect"})
    for f in frames:
        inbox.put_nowait({"type": "websocket.receive", "text": f})
    inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
    sent: list[dict[str, Any]] = []

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    scope = {
        "type": "websocket",
        "asgi": {"version": "3.0"},
        "scheme": "ws",
        "path": "/ws",
        "raw_path": b"/ws",
        "root_path": "",
        "query_string": b"",
        "headers": [],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "subprotocols": [],
    }
    await asyncio.wait_for(app(scope, inbox.get, send), 10)  # a guard, never waited for
    return sent


def test_an_oversized_message_closes_the_websocket_with_1008(tmp_path: Path) -> None:
    """The same through the app's real WebSocket endpoint (ASGI, in-process): the
    ``too_long`` error goes out, then the close frame with 1008."""

    async def main() -> list[dict[str, Any]]:
        async with running(tmp_path) as h:
            g = await h.guest("big")
            frames = [
                json.dumps({"type": "hello", "token": g.token}),
                json.dumps({"type": "ping", "pad": "x" * 9000}),
                json.dumps({"type": "ping"}),  # never read (no pong): the socket is closed
            ]
            return await _asgi_socket(h.app, frames)

    sent = asyncio.run(main())
    assert [e["type"] for e in sent] == [
        "websocket.accept",
        "websocket.send",
        "websocket.send",
        "websocket.close",
    ], sent
    assert json.loads(sent[1]["text"])["type"] == "welcome"
    assert json.loads(sent[2]["text"])["code"] == "too_long"
    assert sent[3]["code"] == 1008


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
