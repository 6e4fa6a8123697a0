"""Support for the in-process table tests (no tests here): clients that note the fake
clock's time of every message they receive, a driver that plays scripted hands on the fake
clock (never sleeping, never retrying), the hand log and its verification by `fjmj replay`
(in-process), and the R12 spy on every message a client received — exact about the claim
pause, since the clock is the test's.

The views a seat may see come from tests/test_server_support.py's ``seat_views`` (it deals
the hand with ``engine.replay.fresh_game``, so stacked walls too); this spy adds what only a
fake clock can check: the claim pause exactly."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fujian_mahjong.cli.main import main as fjmj
from fujian_mahjong.server.protocol import server_message
from fujian_mahjong.server.visibility import WINDOW_PHASES
from tests.inproc import Client, Harness, TimedTransport
from tests.test_server_support import _key, check_opening, naive, seat_views

Policy = Callable[[list[dict[str, Any]]], dict[str, Any]]


TimedRecording = TimedTransport  # tests/inproc.py


def timed(c: Client) -> Client:
    """Give ``c`` a timed transport (what it already received is kept, at the time now)."""
    rec = TimedRecording(c.h.clock)
    rec.messages.extend(c.rec.messages)
    rec.sizes.extend(c.rec.sizes)
    rec.times.extend([c.h.clock.now()] * len(c.rec.messages))
    rec.closed = c.rec.closed
    c.rec = rec
    c.conn.transport = rec
    return c


async def guest(h: Harness, name: str) -> Client:
    """A guest account and its connection (hello sent), with a timed transport."""
    return timed(await h.guest(name))


async def reconnect(h: Harness, old: Client) -> Client:
    """The same player on a new connection (hello with the same token); nothing joined."""
    c = timed(Client(h, old.name, old.token, old.player_id))
    await c.send({"type": "hello", "token": c.token})
    assert c.of_type("welcome"), c.messages
    return c


async def table(h: Harness, owner: Client, claim_window: str | None = "fast", **body: Any) -> int:
    """``h.table`` (REST), at a table whose claim pause is ``claim_window``.

    ``fast`` (the default here): the pause is exactly ``claim_pause_ms`` and then as long as
    the asked seats take to answer — what the tests that time the pause exactly need. The
    server's own default (``auto``) is ``fixed`` at a table with two or more humans, whose
    pauses are drawn (docs/architecture.md, "How long the claim pause lasts"); ``None``
    keeps it. The REST API takes no ``claim_window``, so it is set on the new table's
    config, before its match starts (the match's pace is made at its start)."""
    tid = await h.table(owner, **body)
    if claim_window is not None:
        h.lobby.find(tid).cfg.claim_window = claim_window
        r = await h.http.get(
            f"/api/tables/{tid}", headers={"Authorization": f"Bearer {owner.token}"}
        )
        assert r.json()["claim_window"] == claim_window
    return tid


def seat_of(c: Client) -> int | None:
    seated = c.last("seated")
    assert seated is not None, f"{c.name} is not seated: {c.messages[-3:]}"
    return seated["seat"]  # type: ignore[no-any-return]


def times(c: Client) -> list[float]:
    assert isinstance(c.rec, TimedRecording), "a timed client (test_table_support.guest)"
    return c.rec.times


def no_win(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Never end the hand: discard the first tile offered, else pass (pass is always there
    when a discard is not: claims, the opening window)."""
    return next((a for a in legal if a["type"] == "discard"), None) or next(
        a for a in legal if a["type"] == "pass"
    )


async def play(
    h: Harness,
    clients: Sequence[Client],
    until: Callable[[], bool],
    policy: Policy = naive,
    steps: int = 10_000,
) -> None:
    """Every client answers each state that asks it something (once, at once, with
    ``policy``); when nobody has anything to answer, the fake clock jumps to the next timer
    (a bot's move, the end of a claim pause, a deadline). Returns as soon as ``until()``."""
    answered: dict[int, int] = {}
    for _ in range(steps):
        if until():
            return
        moved = False
        for c in clients:
            st = c.state
            if st is None or c.conn.closed or answered.get(id(c)) == st["seq"] or not c.legal:
                continue
            answered[id(c)] = st["seq"]
            await c.act(policy(c.legal))
            moved = True
        if not moved:
            due = h.clock.next_due()
            assert due is not None, "nothing is due and nobody is asked: the table is stuck"
            await h.advance(due)
    raise AssertionError(f"not done after {steps} steps")


async def fetch_log(h: Harness, hand_id: int) -> list[dict[str, Any]]:
    r = await h.http.get(f"/api/hands/{hand_id}/log")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in r.text.splitlines() if line.strip()]


async def verify_with_cli(h: Harness, hand_id: int, tmp: Path) -> None:
    """The finished hand's JSONL log, as served, verifies with `fjmj replay` (exit 0)."""
    r = await h.http.get(f"/api/hands/{hand_id}/log")
    f = tmp / f"hand-{hand_id}.jsonl"
    f.write_text(r.text, encoding="utf-8")
    assert fjmj(["replay", "--quiet", str(f)]) == 0


# -------------------------------------------------------------------------------- the spy


def spy(
    c: Client,
    logs: dict[int, list[dict[str, Any]]],
    seat: int | None,
    pause_ms: int = 0,
    since: int = 0,
) -> int:
    """Check everything ``c`` received (from its message ``since`` on): each message has its documented shape; each state's
    view is exactly one this seat could see at some point of the hand (so never another
    seat's concealed tiles, nor the wall); ``to_act`` never names another seat; nothing but
    a state arrives between a discard and the state that follows it (so no message names
    who was asked, no seat list either); a seat not asked sees no open window and waits the
    whole claim pause (on the fake clock: exactly). Returns the number of states checked."""
    cache: dict[int, tuple[list[set[str]], set[str]]] = {}
    checked = 0
    after_discard: float | None = None
    prev_legal = False
    # per hand: whether a state showed no discard and no meld, whether one had the opening
    early: dict[int, bool] = {}
    opened: dict[int, bool] = {}
    for i, (t_recv, m) in enumerate(zip(times(c), c.messages, strict=True)):
        if i < since:
            continue
        server_message.validate_python(m)
        t = m["type"]
        if t == "state":
            v = m["view"]
            hand_id = m["hand"]
            if hand_id not in cache:
                cache[hand_id] = seat_views(logs[hand_id])
            per, public = cache[hand_id]
            if seat is None:
                assert _key(v) in public, "a spectator saw something not public"
                assert v["hand"] == "" or v["phase"] == "over"
            else:
                assert v["seat"] == seat
                assert _key(v) in per[seat], f"seat {seat} was sent a view it may not see"
            opened[hand_id] = check_opening(m, logs[hand_id], seat) or opened.get(hand_id, False)
            if not any(v["discards"]) and not any(v["melds"]):
                early[hand_id] = True
            if v["phase"] != "over":
                assert "hands" not in v
                assert set(v["to_act"]) <= ({seat} if seat is not None else set())
            if v["phase"] in WINDOW_PHASES and not v["legal_actions"]:
                # only a seat that was asked (and has just answered) sees an open window
                assert prev_legal, "a seat that was not asked saw an open claim window"
            if after_discard is not None and v["phase"] not in WINDOW_PHASES and pause_ms:
                assert t_recv - after_discard >= pause_ms / 1000 - 1e-9, (
                    f"the claim pause was cut: {t_recv - after_discard:.3f} s; "
                    + str(
                        [
                            (x["type"], x.get("seat"), x.get("seq"))
                            for x in c.messages[max(0, i - 6) : i]
                        ]
                    )
                )
            after_discard = None
            prev_legal = bool(v["legal_actions"])
            checked += 1
        elif t == "discard":
            if m["seat"] != seat:
                after_discard = t_recv
        elif t == "seats":
            assert after_discard is None, "a seat list went out inside a claim window: " + str(
                [(x["type"], x.get("seat")) for x in c.messages[max(0, i - 6) : i + 1]]
            )
        elif t in ("hand_end", "hand_void"):
            after_discard = None
    missing = [h for h in early if not opened.get(h)]
    assert not missing, f"hands {missing} were seen before their first discard, with no opening"
    return checked


__all__ = [
    "TimedRecording",
    "fetch_log",
    "guest",
    "naive",
    "no_win",
    "play",
    "reconnect",
    "seat_of",
    "spy",
    "table",
    "timed",
    "times",
    "verify_with_cli",
]
