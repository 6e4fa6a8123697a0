"""Stopping the processes of a cluster (docs/deploy.md, "Stopping and rolling restarts").

Real processes, as in tests/test_cluster.py (a fresh PostgreSQL database and Redis prefix,
a 2 s lease):

- SIGTERM to the owner of a table in play: the table is handed to the other process at a
  safe point, the clients are moved (1012) and join again, the same decision is pending
  with a fresh deadline (no timeout charged), the hand ends, the log replays;
- SIGTERM to a lone process (SQLite): the players are told, the hand in progress is
  finished, no new hand is dealt, the process exits and has the table back when started;
- takeover, then stop, several times over: a process owns a table whose seats play through
  another one; it is killed (SIGKILL); the survivor takes the table over, the clients join
  again through it and play on; then SIGINT stops the survivor — with the sockets still
  open, some of them never read again — within a bounded time, and its leases are given
  back (the next round's processes take them at once).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from pathlib import Path
from typing import Any

from tests.test_cluster import Env, _answer_until, _node_of, _start, _wait
from tests.test_cluster import env as env  # the fixture
from tests.test_server_support import Client, Server, fetch_log, naive, play, verify_with_cli

# how long a process may take to stop on SIGINT / SIGTERM, whatever it holds
STOP_WITHIN_S = 10.0


def _stop_timed(s: Server, sig: int = signal.SIGINT) -> float:
    """Send ``sig`` and wait for the process to exit: the seconds it took (killed, and the
    test failed, past ``STOP_WITHIN_S`` + 5)."""
    assert s.proc is not None
    t0 = time.monotonic()
    s.proc.send_signal(sig)
    try:
        s.proc.wait(STOP_WITHIN_S + 5)
    except Exception:
        s.proc.kill()
        s.proc.wait(10)
        raise AssertionError(
            f"not stopped {STOP_WITHIN_S + 5:g} s after {signal.Signals(sig).name}:\n"
            + s.log.read_text()[-3000:]
        ) from None
    return time.monotonic() - t0


def test_a_process_that_took_tables_over_stops_in_time_every_time(env: Env) -> None:
    """Each round: three processes; the table's owner is killed, a survivor takes the
    table over and the clients play on through both survivors; then the new owner is
    stopped (its leases given back) and at once the other survivor, which may be taking the
    table over just then: both stop in time, and the table's lease ends free."""
    took: list[float] = []
    stops: list[float] = []
    abandoned: list[Client] = []  # sockets left open and unread (as a vanished client's)
    for rnd in range(3):
        a, b, victim = _start(env, 3)
        try:
            g = [a.guest(f"r{rnd}p{i}") for i in range(4)]
            t = victim.table(g[0]["token"], hands=1, turn_seconds=30)
            tid = int(t["id"])
            assert _node_of(victim) in (env.owner(tid)[0] or "")

            async def play(
                g: list[dict[str, Any]], tid: int, ready: bool, via: tuple[Server, ...] = (a, b)
            ) -> list[Client]:
                cs = [
                    await Client(via[i % 2].ws_url, x["token"]).connect() for i, x in enumerate(g)
                ]
                for c in cs:
                    await c.hello_join(tid, ready=ready)
                await _answer_until(cs, 4)
                return cs

            abandoned += asyncio.run(play(g, tid, True))
            victim.kill()

            def owned(tid: int = tid, via: tuple[Server, ...] = (a, b)) -> bool:
                o = env.owner(tid)[0] or ""
                return any(_node_of(s) in o for s in via)

            took.append(_wait(owned, 15, "a survivor owns the table"))
            abandoned += asyncio.run(play(g, tid, False))  # left open: the stop closes them
            first, second = (a, b) if _node_of(a) in (env.owner(tid)[0] or "") else (b, a)
            sig = signal.SIGINT if rnd % 2 == 0 else signal.SIGTERM
            stops.append(_stop_timed(first, sig))
            stops.append(_stop_timed(second, sig))
            # every lease given back: free at once, not left to expire
            owner, _, live = env.owner(tid)
            assert owner is None and not live, (owner, live)
        finally:
            for s in (a, b, victim):
                s.kill()
    print(
        f"takeovers in {[round(x, 1) for x in took]} s; stops in {[round(x, 2) for x in stops]} s"
    )
    assert max(stops) < STOP_WITHIN_S


def test_sigterm_hands_each_table_to_another_process_and_the_hand_goes_on(env: Env) -> None:
    """SIGTERM to the owner of a table in play (two seats on its own sockets, two through
    the other process): it hands the table over and exits; every client is moved (1012)
    and joins again through the other process, which continues from the stored log with a
    fresh deadline (nobody is charged a timeout: no seat turned 托管); the hand ends, the
    log replays, the audit is clean."""
    stay, leaving = _start(env, 2)
    try:
        g = [stay.guest(f"d{i}") for i in range(4)]
        t = leaving.table(g[0]["token"], hands=1, turn_seconds=30)
        tid = int(t["id"])
        assert _node_of(leaving) in (env.owner(tid)[0] or "")

        async def main() -> Any:
            via = (leaving, leaving, stay, stay)
            before = [await Client(via[i].ws_url, x["token"]).connect() for i, x in enumerate(g)]
            for c in before:
                await c.hello_join(tid, ready=True)
            asked, state = await _answer_until(before, 6)
            # the seat that must act has not acted; the owner is told to stop
            stopped_in = await asyncio.to_thread(_stop_timed, leaving, signal.SIGTERM)
            codes = []
            for c in before:
                with contextlib.suppress(ConnectionError):
                    while True:
                        await c.recv(15)
                codes.append(c.closed_code)
            await asyncio.to_thread(
                _wait,
                lambda: _node_of(stay) in (env.owner(tid)[0] or ""),
                10,
                "the other process owns the table",
            )
            after = [await Client(stay.ws_url, x["token"]).connect() for x in g]
            firsts = []
            for c in after:
                await c.hello_join(tid)
                firsts.append(await c.expect("state"))
            for c, m in zip(after, firsts, strict=True):  # the pending decision is answered
                if m["view"]["legal_actions"]:
                    act = naive(m["view"]["legal_actions"])
                    await c.send({"type": "act", "seq": m["seq"], "action": act})
            ends = await asyncio.gather(*(play(c) for c in after))
            for c in after:
                await c.close()
            return stopped_in, codes, firsts[before.index(asked)], state, list(ends)

        stopped_in, codes, mine, state, ends = asyncio.run(main())
        assert leaving.proc is not None and leaving.proc.returncode == 0
        assert "handed over (draining)" in leaving.log.read_text()
        assert codes == [1012] * 4, codes
        # the same decision is pending, with a fresh deadline (no time was charged)
        assert mine["view"]["legal_actions"] == state["view"]["legal_actions"]
        assert mine["deadline_ms"] is not None and mine["deadline_ms"] > 25_000, mine
        assert not any(s.get("auto") for s in mine["seats"]), mine["seats"]
        assert all(e is not None and e["type"] == "hand_end" for e in ends)
        hand_id = ends[0]["hand"]
        verify_with_cli(stay, hand_id, env.root)
        events = fetch_log(stay, hand_id)
        assert len([e for e in events if e["type"] == "act"]) >= 6
        print(f"drained in {stopped_in:.2f} s")
        assert stopped_in < STOP_WITHIN_S
    finally:
        for s in (stay, leaving):
            s.kill()
    env.audit()


def test_sigterm_alone_lets_the_hand_finish_and_tells_the_players(tmp_path: Path) -> None:
    """One process (SQLite), SIGTERM in the middle of a hand: every player is told
    (``error`` ``server_stopping``), the hand is played to its end, then the process stops
    (no new hand dealt) long before its drain time; started again, it has the table back."""
    s = Server(tmp_path / "solo", claim_pause_ms=30)
    (tmp_path / "solo").mkdir()
    s.opts += ["--drain-s", "60"]
    s.start()
    try:
        g = [s.guest(f"s{i}") for i in range(4)]
        t = s.table(g[0]["token"], hands=2, turn_seconds=30)

        async def main() -> tuple[list[Any], list[list[str]], float]:
            cs = [await Client(s.ws_url, x["token"]).connect() for x in g]
            for c in cs:
                await c.hello_join(t["id"], ready=True)
            asked, state = await _answer_until(cs, 4)
            assert s.proc is not None
            sent = time.monotonic()
            s.proc.send_signal(signal.SIGTERM)
            # the decision pending at the signal is answered: the hand goes on at once
            act = naive(state["view"]["legal_actions"])
            await asked.send({"type": "act", "seq": state["seq"], "action": act})
            ends = await asyncio.gather(*(play(c) for c in cs))
            told = [[r.msg.get("code", "") for r in c.log if r.msg["type"] == "error"] for c in cs]
            for c in cs:
                with contextlib.suppress(ConnectionError):
                    while True:  # nothing more is dealt: the socket closes
                        m = await c.recv(20)
                        assert m["type"] not in ("hand_start", "state"), m
            return list(ends), told, sent

        ends, told, sent = asyncio.run(main())
        assert all(e is not None and e["type"] == "hand_end" for e in ends)
        assert all("server_stopping" in x for x in told), told
        assert s.proc is not None
        s.proc.wait(30)
        took = time.monotonic() - sent
        assert s.proc.returncode == 0 and took < 45, took
        # started again: the table is back, between its hands
        s.start()
        assert t["id"] in {x["id"] for x in s.get("/api/tables").json()}
    finally:
        s.kill()
