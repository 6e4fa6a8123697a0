"""The table actor hardened (an adversarial review's four findings), in-process on the fake
clock (tests/inproc.py):

1. R12: nothing public changes during a claim pause. Four humans and a spectator play the
   same discards twice — once on a wall where seat 1 may claim many of them (it answers
   "pass" 0.3 s into each window), once on a wall where nobody may — and everything the
   other seats and the spectator can observe is compared: every message (its contents,
   order, exact size on the wire and fake-clock time) and every REST answer polled inside
   each pause.
2. The claim window's length: at a ``fixed`` table every pause follows one law whether or
   not anyone was asked (``scheduler.ClaimPace``); a ``fast`` table shows a deliberation.
3. A declared win stands (D-24): a seat that leaves while another has declared a win in the
   open window does not void the hand; it ends and is settled, then the match ends.
4. Bot-only tables take turns on the event loop (``scheduler.BotPacer``): a table with
   humans never waits behind a run of bot decisions.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from fujian_mahjong.engine import Action, Game
from fujian_mahjong.server.scheduler import BotPacer, ClaimPace, bot_pacer, claim_window_mode
from fujian_mahjong.tiles import parse
from tests.inproc import (
    Client,
    Harness,
    StackedDeals,
    TimedTransport,
    game_of_wall,
    running,
    stacked,
)

PAUSE_MS = 600
PAUSE = PAUSE_MS / 1000
WINDOW = ("claims", "window_a")


Timed = TimedTransport  # tests/inproc.py


async def guest(h: Harness, name: str) -> Client:
    c = await h.guest(name)
    rec = Timed(h.clock)
    rec.messages.extend(c.rec.messages)
    rec.sizes.extend(c.rec.sizes)
    rec.times.extend([h.clock.now()] * len(c.rec.messages))
    c.rec = rec
    c.conn.transport = rec
    return c


def bearer(c: Client) -> dict[str, str]:
    return {"Authorization": f"Bearer {c.token}"}


def set_window(h: Harness, tid: int, mode: str) -> None:
    """The table's claim window (until REST takes it as a field of the new table)."""
    h.lobby.tables[tid].cfg.claim_window = mode


# ------------------------------------------------------------------ 1. the spy (R12)

# Seats 0, 2 and 3 hold the same 16 man/pin tiles and never claim a thing (every draw is a
# bamboo tile, discarded at once); seat 1 holds 3s3s5s5s7s on the "claims" wall (a pong or a
# chow of 8 of the 24 discards below) and 8p8p9p9p9p on the other (none). The dealer's first
# discard asks seats 1-3 on both walls (抢金: their hands are ready with the 9s gold).
OBS = "1m2m3m4m5m6m7m8m9m1p2p3p4p5p6p7p"
FIRST = "6s"
DRAWS = "2s3s1s4s8s5s2s6s7s4s3s2s1s8s6s4s7s2s5s8s1s4s6s7s"
DISCARDS = 24


def spy_wall(claims: bool) -> list[int]:
    one = "1m2m3m4m5m6m7m8m9m1p2p" + ("3s3s5s5s7s" if claims else "8p8p9p9p9p")
    return stacked({0: OBS + FIRST, 1: one, 2: OBS, 3: OBS}, draws=DRAWS, tail="9s")


def asked_per_discard(claims: bool) -> list[list[int]]:
    """Who each of the scripted discards asks (the referee's view, for the test only)."""
    g = game_of_wall(spy_wall(claims))
    out: list[list[int]] = []
    while len(out) < DISCARDS:
        if g.phase in WINDOW:
            for s in g.to_act():
                g.apply(s, Action("pass"))
            continue
        drawn = g.view(g.turn)["drawn"]
        g.apply(g.turn, Action("discard", parse(drawn or FIRST)[0]))
        out.append(g.to_act() if g.phase in WINDOW else [])
    return out


_HEX = re.compile(r'"(seed_sha256|code)":"[^"]*"')


def norm(text: str) -> str:
    """What differs by construction between the two runs, at the same length: the deal's
    commitment (two different walls) and the random table code."""
    return _HEX.sub(
        lambda m: f'"{m.group(1)}":"' + "#" * (len(m.group(0)) - len(m.group(1)) - 6) + '"', text
    )


async def poll(h: Harness, tid: int, hand: int, players: list[Client], all_: bool) -> list[str]:
    """Every REST answer a seat could poll inside the pause (status and body); the players'
    profiles and hand lists (which change only when a hand ends) only with ``all_``."""
    paths = [
        "/api/tables",
        f"/api/tables/{tid}",
        f"/api/tables/{tid}/stakes",
        f"/api/hands/{hand}",
        f"/api/hands/{hand}/log",
        "/api/health",
        "/api/metrics",
        "/api/leaderboard",
    ]
    for c in players if all_ else ():
        paths += [f"/api/players/{c.player_id}", f"/api/players/{c.player_id}/hands"]
    out = []
    for p in paths:
        r = await h.http.get(p, headers=bearer(players[0]))
        out.append(f"{p} {r.status_code} {norm(r.text)}")
    return out


async def spy_run(tmp: Path, claims: bool, mode: str) -> dict[str, Any]:
    """Every asked seat answers each window 0.3 s in (pass); the others observe."""
    deals = StackedDeals([spy_wall(claims)], dealer=0)
    async with running(tmp, deals=deals, claim_pause_ms=PAUSE_MS, bot_delay_ms=300) as h:
        players = [await guest(h, f"p{i}") for i in range(4)]
        tid = await h.table(players[0], turn_seconds=30, hands=1)
        set_window(h, tid, mode)
        for c in players:
            await h.seat(c, tid)
        watcher = await guest(h, "watcher")
        await h.seat(watcher, tid, as_="spectator")
        await h.ready(*players)
        hand = int(players[0].of_type("hand_start")[0]["hand"])
        polls: list[list[str]] = []
        pauses: list[float] = []
        asked_seen: list[list[int]] = []
        answered: dict[int, int] = {}  # id(client) -> seq of the state it answered

        async def answer_windows() -> list[int]:
            who = []
            for i, c in enumerate(players):
                st = c.state
                if st and c.legal and st["view"]["phase"] in WINDOW:
                    if answered.get(id(c)) != st["seq"]:
                        answered[id(c)] = st["seq"]
                        who.append(i)
                        await c.act({"type": "pass"})
            return who

        def turn_seat() -> Client | None:
            for c in players:
                st = c.state
                if st and c.legal and st["view"]["phase"] == "turn":
                    if answered.get(id(c)) != st["seq"]:
                        return c
            return None

        for _ in range(DISCARDS + 1):
            # inside the pause: poll, answer 0.3 s in, poll, poll everything just before its
            # end (what the answer changed, if anything, is still there)
            t0 = h.clock.now()
            polls.append(await poll(h, tid, hand, players, False))
            await h.advance(0.3)
            asked_seen.append(await answer_windows())
            polls.append(await poll(h, tid, hand, players, False))
            await h.advance(PAUSE - 0.3 - 0.001)
            polls.append(await poll(h, tid, hand, players, True))
            # then the next turn's state, at once (fast) or after the drawn length (fixed)
            for _ in range(100):
                if turn_seat() is not None:
                    break
                due = h.clock.next_due()
                assert due is not None
                await h.advance(due)
            me = turn_seat()
            assert me is not None
            pauses.append(round(h.clock.now() - t0, 6))
            if len(pauses) > DISCARDS:
                break
            st = me.state
            assert st is not None
            answered[id(me)] = st["seq"]
            await me.act({"type": "discard", "tile": st["view"]["drawn"] or FIRST})
        table = h.lobby.tables[tid]
        assert table.hand is not None and not table.hand.game.is_over()

        def seen(c: Client) -> dict[str, Any]:
            rec = c.rec
            assert isinstance(rec, Timed)
            return {
                "texts": [
                    norm(json.dumps(m, ensure_ascii=False, separators=(",", ":")))
                    for m in rec.messages
                ],
                "sizes": list(rec.sizes),
                "times": [round(t, 6) for t in rec.times],
            }

        return {
            "observers": {i: seen(c) for i, c in enumerate(players) if i != 1},
            "watcher": seen(watcher),
            "seat1_states": len(players[1].of_type("state")),
            "polls": polls,
            "pauses": pauses,
            "asked": asked_seen,
        }


def _compare(a: dict[str, Any], b: dict[str, Any], timing: bool) -> None:
    for who in (*a["observers"], "watcher"):
        x = a["observers"][who] if who != "watcher" else a["watcher"]
        y = b["observers"][who] if who != "watcher" else b["watcher"]
        assert len(x["texts"]) == len(y["texts"]), who
        for i, (p, q) in enumerate(zip(x["texts"], y["texts"], strict=True)):
            assert p == q, (who, i, p, q)
        assert x["sizes"] == y["sizes"], who
        if timing:
            assert x["times"] == y["times"], who
    assert len(a["polls"]) == len(b["polls"])
    for i, (p, q) in enumerate(zip(a["polls"], b["polls"], strict=True)):
        for u, v in zip(p, q, strict=True):
            assert u == v, (i, u, v)


def test_nothing_public_changes_during_a_claim_pause(tmp_path: Path) -> None:
    """R12: the same 24 discards with seat 1 asked (and answering 0.3 s in) at 7 of them,
    and with nobody asked: seats 0, 2, 3 and a spectator receive byte-identical messages at
    identical times, and every REST answer polled inside the pauses is identical too (the
    process-wide action and commit counters of /api/health told them apart). The first
    discard asks seats 1-3 on both walls (抢金)."""
    want = asked_per_discard(True)
    assert want[0] == [1, 2, 3] and sum(1 for x in want if x == [1]) == 7
    assert asked_per_discard(False) == [[1, 2, 3]] + [[]] * (DISCARDS - 1)

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        return (
            await spy_run(tmp_path / "claims", True, "fast"),
            await spy_run(tmp_path / "none", False, "fast"),
        )

    a, b = asyncio.run(main())
    # the windows happened as planned: seat 1 answered 8 of them on one wall, none on the
    # other (the opening pause first, then one entry per discard)
    assert a["asked"][1:] == want
    assert b["asked"][1:] == [[1, 2, 3]] + [[]] * (DISCARDS - 1)
    assert a["seat1_states"] > b["seat1_states"]
    assert set(a["pauses"]) == set(b["pauses"]) == {PAUSE}
    _compare(a, b, timing=True)


def test_nothing_public_changes_during_a_fixed_claim_pause(tmp_path: Path) -> None:
    """The same at a ``fixed`` table: the messages and REST answers are identical; the
    pauses' lengths are draws (never shorter than the pause), not compared one by one."""

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        return (
            await spy_run(tmp_path / "claims", True, "fixed"),
            await spy_run(tmp_path / "none", False, "fixed"),
        )

    a, b = asyncio.run(main())
    _compare(a, b, timing=False)
    for run in (a, b):
        assert min(run["pauses"]) >= PAUSE
        assert len(set(run["pauses"])) > DISCARDS // 2  # drawn, not one constant


# ------------------------------------------------------------------ 2. the claim window's length


def _lognormal_answers(n: int, seed: int) -> list[float]:
    import random

    rng = random.Random(seed)
    return [min(4.0, max(0.2, rng.lognormvariate(0.0, 0.6))) for _ in range(n)]


def _pauses(mode: str, n: int = 6000) -> tuple[list[float], list[float]]:
    """Pause lengths of asked windows (a human answering after a lognormal time, median
    1 s) and of unasked discards, interleaved as at a table (about 1 in 3 asked)."""
    pace = ClaimPace(mode, PAUSE, ClaimPace.key_for("law", 1))
    answers = iter(_lognormal_answers(n, 7))
    asked: list[float] = []
    unasked: list[float] = []
    for i in range(n):
        if i % 3 == 0:
            hold, jitter = pace.begin(True)
            a = next(answers)
            asked.append(pace.end(a, jitter) if jitter is not None else max(hold, a))
        else:
            hold, jitter = pace.begin(False)
            assert jitter is None
            unasked.append(hold)
    return asked[50:], unasked[100:]  # after the prior has gone


def _ks(x: list[float], y: list[float]) -> float:
    """The two-sample Kolmogorov-Smirnov statistic."""
    xs, ys = sorted(x), sorted(y)
    i = j = 0
    d = 0.0
    while i < len(xs) and j < len(ys):
        if xs[i] <= ys[j]:
            i += 1
        else:
            j += 1
        d = max(d, abs(i / len(xs) - j / len(ys)))
    return d


def test_fixed_claim_window_has_one_law_asked_or_not() -> None:
    asked, unasked = _pauses("fixed")
    assert _ks(asked, unasked) < 0.06
    over = [sum(1 for p in xs if p > 0.65) / len(xs) for xs in (asked, unasked)]
    assert abs(over[0] - over[1]) < 0.05
    # fast: an unasked pause is always exactly the pause; an asked one is often longer
    asked, unasked = _pauses("fast")
    assert set(unasked) == {PAUSE}
    assert _ks(asked, unasked) > 0.5


def test_a_seat_that_marks_its_own_answer_times_cannot_find_them_in_the_unasked_pauses() -> None:
    """R12, ``fixed``: seat A always answers its own claim prompts at 3.80 s (a time the
    others never take), so it knows which answer times it put in the table's pool. Were an
    unasked pause one draw from the pool and an asked window its own answer time, a pause
    of 3.80-4.00 s when A was not asked would say "nobody was asked" almost surely (a
    likelihood ratio of about 280 measured). Each pause being the larger of a draw and the
    window's own answer time (or a second draw), A's values show about as often where
    another seat was asked: the ratio stays under 2. (A marker shorter than every other
    seat's answers is not hidden so: docs/architecture.md.)"""
    import random

    rng = random.Random(11)
    pace = ClaimPace("fixed", PAUSE, ClaimPace.key_for("marker", 1))
    seen: dict[str, list[float]] = {"nobody": [], "other": []}
    for _ in range(20_000):
        r = rng.random()
        who = "nobody" if r < 0.6 else "bot" if r < 0.75 else "B" if r < 0.875 else "A"
        hold, drawn = pace.begin(who != "nobody")
        if drawn is None:
            seen["nobody"].append(hold)
            continue
        answer = {"bot": 0.0, "A": 3.8}.get(who)
        if answer is None:
            answer = min(4.0, max(0.2, rng.lognormvariate(0.0, 0.6)))
        length = pace.end(answer, drawn)
        if who != "A":
            seen["other"].append(length)

    def band(xs: list[float]) -> float:
        return sum(1 for x in xs if 3.8 <= x <= 3.8 + ClaimPace.JITTER_S) / len(xs)

    nobody, other = band(seen["nobody"]), band(seen["other"])
    assert nobody > 0.2  # A's slowness does set the table's pace ...
    assert nobody / other < 2.0  # ... but says nothing about who was asked


def test_claim_window_setting() -> None:
    assert claim_window_mode("auto", 2) == "fixed"
    assert claim_window_mode("auto", 1) == "fast"
    assert claim_window_mode("fast", 4) == "fast" and claim_window_mode("fixed", 0) == "fixed"
    try:
        claim_window_mode("slow", 4)
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown claim window was accepted")
    # the draws are the key's: the same match seed draws the same, another does not
    a, b, c = (ClaimPace("fixed", PAUSE, ClaimPace.key_for(s, 1)) for s in ("x", "x", "y"))
    da = [a.begin(False)[0] for _ in range(20)]
    assert da == [b.begin(False)[0] for _ in range(20)]
    assert da != [c.begin(False)[0] for _ in range(20)]


def test_a_deliberation_shows_at_a_fast_table_not_at_a_fixed_one(tmp_path: Path) -> None:
    """Seat 1 takes 2.5 s over each window it is asked in (the others answer at once). At a
    ``fast`` table seat 2, when not asked, sees those pauses last 2.5 s and every other one
    exactly 0.6 s; at a ``fixed`` table the unasked pauses draw the asked windows'
    lengths."""

    async def run(mode: str) -> dict[bool, list[float]]:
        deals = StackedDeals([spy_wall(True)], dealer=0)
        async with running(tmp_path / mode, deals=deals, claim_pause_ms=PAUSE_MS) as h:
            players = [await guest(h, f"p{i}") for i in range(4)]
            tid = await h.table(players[0], turn_seconds=30, hands=1)
            set_window(h, tid, mode)
            for c in players:
                await h.seat(c, tid)
            await h.ready(*players)
            seat1, seat2 = players[1], players[2]
            rec = seat2.rec
            assert isinstance(rec, Timed)
            lengths: dict[bool, list[float]] = {True: [], False: []}
            done: set[tuple[int, int]] = set()

            def fresh(c: Client, phases: tuple[str, ...]) -> bool:
                st = c.state
                return bool(
                    st
                    and c.legal
                    and st["view"]["phase"] in phases
                    and (id(c), st["seq"]) not in done
                )

            for _ in range(DISCARDS):
                for _ in range(100):
                    me = next((c for c in players if fresh(c, ("turn",))), None)
                    if me is not None:
                        break
                    due = h.clock.next_due()
                    assert due is not None
                    await h.advance(due)
                assert me is not None and me.state is not None
                done.add((id(me), me.state["seq"]))
                mark = len(seat2.messages)
                t0 = h.clock.now()
                await me.act({"type": "discard", "tile": me.state["view"]["drawn"] or FIRST})
                asked = {i for i, c in enumerate(players) if fresh(c, WINDOW)}
                for i in sorted(asked - {1}):
                    done.add((id(players[i]), players[i].state["seq"]))  # type: ignore[index]
                    await players[i].act({"type": "pass"})
                if 1 in asked:
                    done.add((id(seat1), seat1.state["seq"]))  # type: ignore[index]
                    await h.advance(2.5)
                    await seat1.act({"type": "pass"})
                for _ in range(100):
                    if any(m["type"] == "state" for m in seat2.messages[mark:]):
                        break
                    due = h.clock.next_due()
                    assert due is not None
                    await h.advance(due)
                k = next(
                    i for i in range(mark, len(rec.messages)) if rec.messages[i]["type"] == "state"
                )
                if 2 not in asked:
                    lengths[1 in asked].append(round(rec.times[k] - t0, 6))
            return lengths

    async def main() -> tuple[dict[bool, list[float]], dict[bool, list[float]]]:
        return await run("fast"), await run("fixed")

    fast, fixed = asyncio.run(main())
    assert len(fast[True]) == len(fixed[True]) == 7
    assert set(fast[True]) == {2.5} and set(fast[False]) == {PAUSE}  # fast: a plain tell
    assert all(2.5 <= x <= 2.5 + ClaimPace.JITTER_S for x in fixed[True])
    # fixed: the unasked pauses draw the asked windows' lengths (2.5 s + jitter) more and
    # more often as the real windows replace the prior
    assert all(PAUSE <= x <= ClaimPace.CAP_S + ClaimPace.JITTER_S for x in fixed[False])
    assert sum(1 for x in fixed[False] if x >= 2.5) >= len(fixed[False]) // 3


# ------------------------------------------------------------------ 3. a declared win stands

# Seat 1 is ready on a single 7s; seat 2 holds 7s7s; seat 3 draws the last 7s and discards
# it on its first turn: seat 1 may win on it, seat 2 may pong it. The gold is 9s.
WIN_DEAL = {
    0: "1p4p7p2s5s8s3p6p9p1m4m7m2m5m8m3s6s",
    1: "1m2m3m4m5m6m7m8m9m1p2p3p4p5p6p7s",
    2: "7s7s1p4p7p2s5s8s3m6m9m3p6p9p2m5m",
    3: "1p4p7p2s5s8s1s3m6m9m8p8m3s6s9p4s",
}
WIN_DRAWS = "1s2s7s"


async def _to_the_seven(h: Harness, players: list[Client]) -> None:
    """Play to seat 3's 7s: every window passed, every turn discards its drawn tile (the
    dealer its 6s)."""
    answered: set[tuple[int, int]] = set()
    for _ in range(200):
        if {a["type"] for a in players[1].legal} == {"win", "pass"}:
            return
        moved = False
        for c in players:
            st = c.state
            if st is None or not c.legal or (id(c), st["seq"]) in answered:
                continue
            answered.add((id(c), st["seq"]))
            if st["view"]["phase"] in WINDOW:
                await c.act({"type": "pass"})
            else:
                await c.act({"type": "discard", "tile": st["view"]["drawn"] or "6s"})
            moved = True
        if not moved:
            await h.advance(0.1)
    raise AssertionError("seat 3's 7s never came")


async def _accounts(h: Harness, players: list[Client]) -> None:
    for c in players:
        body = {"name": c.name, "password": f"pw-{c.name}-123"}
        r = await h.http.post("/api/accounts", json=body, headers=bearer(c))
        assert r.status_code == 201, r.text


async def _silver(h: Harness, players: list[Client]) -> list[int]:
    return [int((await h.http.get("/api/me", headers=bearer(c))).json()["silver"]) for c in players]


def _expected_score() -> dict[str, Any]:
    g = Game.from_wall("fuzhou-tcy", stacked(WIN_DEAL, draws=WIN_DRAWS, tail="9s"), dealer=0)
    for _ in range(50):
        if g.phase in WINDOW:
            if "win" in {a.type for a in g.legal_actions(1)}:
                g.apply(1, Action("win"))
                g.apply(2, Action("pass"))
                break
            for s in g.to_act():
                g.apply(s, Action("pass"))
            continue
        drawn = g.view(g.turn)["drawn"]
        g.apply(g.turn, Action("discard", parse(drawn or "6s")[0]))
    assert g.is_over() and g.win is not None
    return {"result": g.win, "score": g.view(0)["score"]}


def test_a_declared_win_stands_when_an_asked_seat_leaves(tmp_path: Path) -> None:
    """Seat 1 declares its win on seat 3's 7s; seat 2, asked to pong it, leaves before
    answering. The win stands (D-24): seat 2's answer becomes a pass, the hand ends after
    the pause with seat 1's win and its normal settlement, then the match ends for the
    leave; no hand_void, no escape penalty."""
    expected = _expected_score()

    async def main() -> None:
        deals = StackedDeals([stacked(WIN_DEAL, draws=WIN_DRAWS, tail="9s")], dealer=0)
        async with running(tmp_path, deals=deals, claim_pause_ms=PAUSE_MS) as h:
            players = [await guest(h, f"p{i}") for i in range(4)]
            await _accounts(h, players)
            before = await _silver(h, players)
            tid = await h.table(players[0], turn_seconds=30, hands=4)
            set_window(h, tid, "fixed")
            for c in players:
                await h.seat(c, tid)
            await h.ready(*players)
            await _to_the_seven(h, players)
            a, b = players[1], players[2]
            assert {x["type"] for x in b.legal} == {"pong", "pass"}
            await a.act({"type": "win"})
            await h.advance(0.1)
            await b.send({"type": "leave"})
            assert b.last("left") is not None
            assert not players[3].of_type("hand_end")  # the pause holds the end as always
            await h.advance(ClaimPace.CAP_S + ClaimPace.JITTER_S)
            others = [players[0], a, players[3]]
            for c in others:
                types = [m["type"] for m in c.messages]
                assert "hand_void" not in types, types
                assert types[-3:] == ["hand_end", "match_end", "table_closed"], types[-5:]
            end = a.last("hand_end")
            me = a.last("match_end")
            assert end is not None and me is not None
            assert end["result"] == expected["result"] and end["result"]["winner"] == 1
            assert end["score"] == expected["score"]
            assert me["leaver"] == 2 and me["hands_played"] == 1 and me["totals"] == end["totals"]
            # settled as won: the leaver pays what the hand says and no escape penalty
            after = await _silver(h, players)
            changes = [s["change"] for s in end["silver"]]
            assert after == [x + d for x, d in zip(before, changes, strict=True)]
            assert changes[1] > 0 and sum(changes) == 0
            assert changes[2] == expected["score"]["payments"][2]  # stake 1, no fee
            info = (await h.http.get(f"/api/hands/{end['hand']}")).json()
            assert info["status"] == "over"
            log = (await h.http.get(f"/api/hands/{end['hand']}/log?format=json")).json()
            acts = [(e["seat"], e["action"]["type"]) for e in log if e["type"] == "act"]
            assert acts[-2:] == [(1, "win"), (2, "pass")]  # the leaver's answer: a pass
            assert tid not in h.lobby.tables

    asyncio.run(main())


def test_a_declared_win_stands_when_a_seat_not_asked_leaves(tmp_path: Path) -> None:
    """The same, but the dealer (not asked) leaves while seat 2 is still deciding: the
    hand waits for seat 2's answer as it would have, then ends with seat 1's win; the
    leaver cannot take its seat back meanwhile."""

    async def main() -> None:
        deals = StackedDeals([stacked(WIN_DEAL, draws=WIN_DRAWS, tail="9s")], dealer=0)
        async with running(tmp_path, deals=deals, claim_pause_ms=PAUSE_MS) as h:
            players = [await guest(h, f"p{i}") for i in range(4)]
            tid = await h.table(players[0], turn_seconds=30, hands=4)
            set_window(h, tid, "fast")
            for c in players:
                await h.seat(c, tid)
            await h.ready(*players)
            await _to_the_seven(h, players)
            await players[1].act({"type": "win"})
            await players[0].send({"type": "leave"})
            await h.advance(2.0)
            assert not any(m["type"] in ("hand_end", "hand_void") for m in players[3].messages)
            # the leaver comes back: refused
            again = Client(h, players[0].name, players[0].token, players[0].player_id)
            await again.send({"type": "hello", "token": again.token})
            await h.seat(again, tid)
            assert again.errors() == ["not_now"]
            await players[2].act({"type": "pong"})  # loses to the win (R6)
            await h.advance(PAUSE)
            for c in players[1:]:
                types = [m["type"] for m in c.messages]
                assert "hand_void" not in types
                assert types[-3:] == ["hand_end", "match_end", "table_closed"], types[-5:]
            end = players[3].last("hand_end")
            assert end is not None and end["result"]["winner"] == 1
            me = players[3].last("match_end")
            assert me is not None and me["leaver"] == 0

    asyncio.run(main())


def test_a_leave_without_a_declared_win_still_voids(tmp_path: Path) -> None:
    """Seat 2 answers first (pong) and leaves while seat 1 still decides: no win was
    declared, so the hand is void as before (R11) and the leaver pays the penalty."""

    async def main() -> None:
        deals = StackedDeals([stacked(WIN_DEAL, draws=WIN_DRAWS, tail="9s")], dealer=0)
        async with running(tmp_path, deals=deals, claim_pause_ms=PAUSE_MS) as h:
            players = [await guest(h, f"p{i}") for i in range(4)]
            tid = await h.table(players[0], turn_seconds=30, hands=4)
            for c in players:
                await h.seat(c, tid)
            await h.ready(*players)
            await _to_the_seven(h, players)
            await players[2].act({"type": "pong"})
            await players[2].send({"type": "leave"})
            void = players[3].last("hand_void")
            assert void is not None and void["leaver"] == 2
            assert not players[3].of_type("hand_end")

    asyncio.run(main())


# ------------------------------------------------------------------ 4. bot tables take turns


def test_a_bot_only_table_yields_between_decisions(tmp_path: Path) -> None:
    """A bot-only table at full speed (no bot delay) and a table with a human: a command
    queued for the human's table runs after at most a couple of the bot table's decisions,
    not after the bot table's whole hand (it used to run every decision of a hand without
    giving the event loop back until the hand's end was committed)."""

    async def main() -> None:
        async with running(tmp_path, bot_delay_ms=0) as h:
            me = await guest(h, "human")
            tid = await h.table(me, bots=3, turn_seconds=30)
            await h.seat(me, tid)
            human = h.lobby.tables[tid]
            bots = await h.lobby.create(me.player_id, bots=4, hands=1)
            for _ in range(1_000_000):
                if bots.actions:
                    break
                await asyncio.sleep(0)
            first = bots.actions
            assert 0 < first <= 4, first  # the loop was given back after the first turns
            ran_at: list[int] = []

            async def probe() -> None:
                ran_at.append(bots.actions)

            await human.call(probe)
            assert ran_at and ran_at[0] - first <= 2 * bot_pacer().per_tick, (first, ran_at)
            assert bots.hand is not None and not bots.hand.game.is_over()
            await h.settle()  # the bot table plays on by itself
            assert bot_pacer().turns > 10

    asyncio.run(main())


def test_the_pacer_lets_the_loop_run_between_turns() -> None:
    """Three bot tables want three turns each; a task that only yields sees at most two
    iterations' budgets (2 x per_tick) between two of its own runs, and every turn comes."""

    async def main() -> tuple[list[int], int]:
        pacer = BotPacer(per_tick=1)
        gaps: list[int] = []

        async def other() -> None:
            seen = pacer.turns
            for _ in range(40):
                await asyncio.sleep(0)
                gaps.append(pacer.turns - seen)
                seen = pacer.turns

        async def table() -> None:
            for _ in range(3):
                await pacer.turn()

        await asyncio.gather(other(), *(table() for _ in range(3)))
        return gaps, pacer.turns

    gaps, turns = asyncio.run(main())
    assert turns == 9 and max(gaps) <= 2
