"""Several `fjmj serve` processes on one PostgreSQL database and one Redis (docs/deploy.md).

Real processes on loopback (the point here is processes: sockets held by one, tables run by
another, a process killed or paused), each with ``--redis`` on a fresh database and a Redis
key prefix of its own, and a 2 s lease so a dead process's tables move within seconds:

- three processes: four clients of one table connect through three different processes and
  play a whole hand, with a spectator on a fourth socket; the R12 spy checks every message;
  the lobby lists the same tables (with the spectator count) from every process; the log
  replays with `fjmj replay` and `fjmj admin audit` is clean; a bot is added and removed over
  REST through processes that do not run the table; the table-code rate limit counts the
  misses of every process;
- SIGKILL of the process that owns a busy table: another one owns it within 10 s (the crash
  restore: every stored event reproduced), the clients reconnect through the survivors and
  finish the hand; the log replays, the audit is clean (nothing settled twice);
- a split-brain attempt: the owner is paused (SIGSTOP) with a client's action on its way to
  it, past its lease; another process takes the table and the hand goes on there; then the
  paused owner resumes (SIGCONT) and handles that action: it must stop its actor without
  writing anything — the stored log is the survivors' alone and replays;
- quick match through three processes (rooms by stake): players sent to different
  processes, one after the other and all at once, are seated at one table of the room, and
  every process counts them in ``GET /api/rooms``; in-process, ``playing`` adds the other
  processes' summaries;
- fencing in-process: a write of a process whose lease was taken since is refused;
- a table looked up (``GET /api/tables/{ref}``) through a process that does not run it:
  the same body as from its owner, by code and by id, under the owner's privacy rule; a
  code found there is no miss of the code-guessing limit; Redis passwords never shown;
- ``--workers 2``: two processes on one port, a killed worker is started again, SIGINT stops
  both and gives their leases back.

PostgreSQL (127.0.0.1:5432, database ``test``) and Redis (127.0.0.1:6379) as the machine
provides them: missing, these tests fail under ``FJMJ_REQUIRE_PG=1`` (CI) and skip otherwise,
saying why (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from tests.conftest import (
    free_port,
    fresh_pg_database,
    unavailable,
)
from tests.serving import wait_serving
from tests.test_cli_faults import _alive
from tests.test_server_support import (
    FJMJ,
    Client,
    Server,
    fetch_log,
    play,
    spy,
    verify_with_cli,
)

REDIS_URL = os.environ.get("FJMJ_TEST_REDIS", "redis://127.0.0.1:6379/0")
LEASE_S = 2.0
# The product's lease (5 s), for the tests where no process dies: on the loaded 2-core
# machine of the serial stage a lease renewal (a PostgreSQL write) once came more than 2 s
# late in every process, so tables moved between live processes and a client was closed
# with 1012 mid-hand (the browser reconnects; these tests are about something else).
STEADY = ("--lease-s", "5")


def redis_unavailable() -> str | None:
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_timeout=3).ping()
    except Exception as e:
        return f"Redis not reachable at {REDIS_URL}: {type(e).__name__}: {e}"[:300]
    return None


class Blind(Server):
    """``fjmj serve`` through tests/cluster_server.py (the same options)."""

    def start(self) -> Server:
        self.port = free_port()
        cmd = [sys.executable, "-m", "tests.cluster_server", "serve", "--port", str(self.port)]
        cmd += ["--data-dir", str(self.data_dir), "--db", self.db, *self.opts]
        with open(self.log, "a") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True)
        atexit.register(self.kill)
        try:
            wait_serving(self.proc, self.base, self.log, what="tests.cluster_server")
        except BaseException:
            self.kill()
            raise
        return self


@dataclass
class Env:
    db: str
    prefix: str
    root: Path

    def node(self, name: str, blind: bool = False, opts: tuple[str, ...] = ()) -> Server:
        """A ``fjmj serve`` process (``blind``: one that never notices on its own that it
        lost a lease, tests/cluster_server.py: only the database's fencing stops it;
        ``opts``: more options)."""
        s = (Blind if blind else Server)(self.root / name, db=self.db, claim_pause_ms=30)
        s.opts += ["--redis", REDIS_URL, "--redis-prefix", self.prefix]
        s.opts += ["--lease-s", str(LEASE_S), *opts]
        (self.root / name).mkdir(parents=True, exist_ok=True)
        return s

    async def sql(self, query: str, *args: Any) -> list[Any]:
        import asyncpg

        conn = await asyncpg.connect(self.db.replace("+asyncpg", ""), timeout=5)
        try:
            return list(await conn.fetch(query, *args))
        finally:
            await conn.close()

    def owner(self, table_id: int) -> tuple[str | None, int, bool]:
        rows = asyncio.run(
            self.sql(
                "SELECT owner, epoch, COALESCE(expires_at > now(), false) AS live "
                "FROM table_leases WHERE table_id = $1",
                table_id,
            )
        )
        assert rows, f"table {table_id} has no lease row"
        return rows[0]["owner"], int(rows[0]["epoch"]), bool(rows[0]["live"])

    def audit(self) -> None:
        out = subprocess.run(
            [FJMJ, "admin", "audit", "--db", self.db],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stdout + out.stderr
        assert "audit: OK" in out.stdout, out.stdout


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    """A fresh PostgreSQL database and Redis prefix (dropped / deleted after)."""
    unavailable(redis_unavailable())
    prefix = f"fjmjtest{secrets.token_hex(4)}"
    with fresh_pg_database("fjmj_c_") as url:
        try:
            yield Env(url, prefix, tmp_path)
        finally:
            import redis

            r = redis.Redis.from_url(REDIS_URL)
            keys = list(r.scan_iter(f"{prefix}:*"))
            if keys:
                r.delete(*keys)


def _start(env: Env, n: int, blind_last: bool = False, opts: tuple[str, ...] = ()) -> list[Server]:
    nodes = [env.node(f"p{i}", blind=blind_last and i == n - 1, opts=opts) for i in range(n)]
    try:
        nodes[0].start()  # alone: the migrations run once
        with ThreadPoolExecutor(max(1, n - 1)) as pool:  # then the others together
            list(pool.map(lambda s: s.start(), nodes[1:]))
    except BaseException:
        for s in nodes:
            s.kill()
        raise
    return nodes


def _node_of(s: Server) -> str:
    assert s.proc is not None
    return f"-{s.proc.pid}-"


def _wait(cond: Any, timeout: float, what: str) -> float:
    """Poll a condition about other processes until it holds; the seconds it took."""
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.05)
    return time.monotonic() - t0


def _listed(s: Server) -> dict[int, dict[str, Any]]:
    return {t["id"]: t for t in s.get("/api/tables").json()}


def _next_act(events: list[dict[str, Any]], seat: Any, view: dict[str, Any]) -> dict[str, Any]:
    """The logged decision taken at the point where ``seat`` was shown ``view``."""
    from fujian_mahjong.engine import Action, Game

    start, end = events[0], events[-1]
    g = Game.new(start["profile"], end["seed"], start["players"], start["dealer"], start["streak"])
    while len(g.events) < len(events):
        v = g.view(seat)
        v["to_act"] = [seat] if seat in g.to_act() else []
        e = events[len(g.events)]
        if v == view:
            assert e["type"] == "act" and e["seat"] == seat, e
            return e
        g.apply(int(e["seat"]), Action.from_json(e["action"]))
    raise AssertionError("the view shown is not a point of the logged hand")


def _no_win(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return next((a for a in legal if a["type"] == "discard"), None) or next(
        a for a in legal if a["type"] == "pass"
    )


async def _answer_until(cs: list[Client], acts: int) -> tuple[Client, dict[str, Any]]:
    """Everyone answers without winning until ``acts`` actions were taken in all and some
    client must discard: that client and its state (its action is left to the caller)."""
    done = 0
    found: asyncio.Future[tuple[Client, dict[str, Any]]] = (
        asyncio.get_running_loop().create_future()
    )

    async def run(c: Client) -> None:
        nonlocal done
        while not found.done():
            m = await c.recv(60)
            if m["type"] != "state" or not m["view"]["legal_actions"]:
                continue
            legal = m["view"]["legal_actions"]
            discards = {a["tile"] for a in legal if a["type"] == "discard"}
            if done >= acts and len(discards) >= 2 and not found.done():
                found.set_result((c, m))
                return
            await c.send({"type": "act", "seq": m["seq"], "action": _no_win(legal)})
            done += 1

    tasks = [asyncio.create_task(run(c)) for c in cs]
    try:
        return await asyncio.wait_for(found, 120)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _until_closed(c: Client, timeout: float) -> None:
    end = time.monotonic() + timeout
    while True:
        try:
            await c.recv(max(0.01, end - time.monotonic()))
        except ConnectionError:
            return


async def _spectate(c: Client) -> None:
    while (await c.recv(120))["type"] != "hand_end":
        pass


# --------------------------------------------------------------------------- the tests


def test_three_processes_play_one_hand_and_list_the_same_tables(env: Env) -> None:
    nodes = _start(env, 3, opts=STEADY)
    try:
        g = [nodes[i % 3].guest(f"p{i}") for i in range(5)]
        # a table made on a process is run there
        t = nodes[1].table(g[0]["token"], hands=1, turn_seconds=30)
        others = [nodes[0].table(g[1]["token"]), nodes[2].table(g[2]["token"])]
        assert _node_of(nodes[1]) in (env.owner(t["id"])[0] or "")
        assert _node_of(nodes[0]) in (env.owner(others[0]["id"])[0] or "")
        ids = {t["id"], *(o["id"] for o in others)}
        _wait(
            lambda: all(set(_listed(s)) == ids for s in nodes),
            10,
            "every process lists the three tables",
        )
        # a bot added and removed over REST through processes that do not run the table
        auth = {"Authorization": f"Bearer {g[1]['token']}"}
        r = httpx.post(nodes[2].base + f"/api/tables/{others[0]['id']}/bots", headers=auth)
        assert r.status_code == 200 and r.json()["bots"] == 1, r.text
        r = httpx.delete(nodes[1].base + f"/api/tables/{others[0]['code']}/bots", headers=auth)
        assert r.status_code == 200 and r.json()["bots"] == 0, r.text
        other = {"Authorization": f"Bearer {g[2]['token']}"}
        r = httpx.post(nodes[2].base + f"/api/tables/{others[0]['id']}/bots", headers=other)
        assert r.status_code == 403 and r.json()["code"] == "forbidden"
        # the table-code rate limit counts every process's misses (60 a minute per address)
        for i in range(60):
            r = nodes[i % 2].get("/api/tables/ZZZZZ")
            assert r.status_code == 404, r.text
        polls = 0

        def limited() -> bool:
            nonlocal polls
            polls += 1
            return nodes[2].get("/api/tables/ZZZZZ").status_code == 429

        _wait(limited, 10, "the third process refuses the next lookup")
        assert polls < 30  # alone it would have counted only its own polls

        async def main() -> tuple[list[Client], Client, list[dict[str, Any] | None]]:
            # the four seats through three processes, the spectator through a fourth socket
            urls = [nodes[0].ws_url, nodes[2].ws_url, nodes[1].ws_url, nodes[0].ws_url]
            cs = [await Client(u, x["token"]).connect() for u, x in zip(urls, g, strict=False)]
            watcher = await Client(nodes[2].ws_url, g[4]["token"]).connect()
            await watcher.hello_join(t["id"], as_="spectator")
            await asyncio.to_thread(
                _wait,
                lambda: all(_listed(s)[t["id"]]["spectators"] == 1 for s in nodes),
                10,
                "every process counts the spectator",
            )
            for c in cs:
                await c.hello_join(t["id"], ready=True)
            ends = await asyncio.gather(*(play(c) for c in cs), _spectate(watcher))
            for c in (*cs, watcher):
                await c.close()
            return cs, watcher, list(ends[:4])

        cs, watcher, ends = asyncio.run(main())
        assert all(e is not None and e["type"] == "hand_end" for e in ends)
        hand_id = ends[0]["hand"]  # type: ignore[index]
        events = fetch_log(nodes[2], hand_id)  # any process serves the log
        # every state each socket got is checked; how many there are is the deal's (the
        # processes deal from `secrets`: a hand can end at its first decision, 抢金)
        for c, seat in [(c, c.seat) for c in cs] + [(watcher, None)]:
            states = sum(1 for r in c.log if r.msg["type"] == "state")
            assert spy(c, {hand_id: events}, seat) == states >= 1
        verify_with_cli(nodes[0], hand_id, env.root)
        # the table is listed as over (or gone) alike everywhere
        _wait(
            lambda: len({json.dumps(_listed(s).get(t["id"]), sort_keys=True) for s in nodes}) == 1,
            10,
            "the processes agree on the table",
        )
    finally:
        for s in nodes:
            s.stop()
    env.audit()


def test_sigkill_of_the_owner_moves_the_table_and_the_hand_finishes(env: Env) -> None:
    nodes = _start(env, 3)
    try:
        g = [nodes[0].guest(f"p{i}") for i in range(4)]
        t = nodes[2].table(g[0]["token"], hands=1, turn_seconds=30)
        owner, epoch, _ = env.owner(t["id"])
        assert _node_of(nodes[2]) in (owner or "")
        survivors = [nodes[0], nodes[1]]

        async def first() -> list[Client]:
            cs = [
                await Client(survivors[i % 2].ws_url, x["token"]).connect() for i, x in enumerate(g)
            ]
            for c in cs:
                await c.hello_join(t["id"], ready=True)
            await _answer_until(cs, 6)
            return cs

        before = asyncio.run(first())
        nodes[2].kill()  # SIGKILL: no lease is given back, nothing is flushed
        killed = time.monotonic()
        took = _wait(
            lambda: (lambda o: o[0] is not None and o[2] and _node_of(nodes[2]) not in o[0])(
                env.owner(t["id"])
            ),
            10,
            "another process owns the table",
        )
        assert took < 10
        assert env.owner(t["id"])[1] > epoch  # a new epoch: the old owner is fenced off

        async def second() -> tuple[list[Client], list[dict[str, Any] | None]]:
            cs = [
                await Client(survivors[(i + 1) % 2].ws_url, x["token"]).connect()
                for i, x in enumerate(g)
            ]
            for c in cs:
                await c.hello_join(t["id"])
            ends = await asyncio.gather(*(play(c) for c in cs))
            for c in cs:
                await c.close()
            return cs, list(ends)

        after, ends = asyncio.run(second())
        assert time.monotonic() - killed < 120
        assert [c.seat for c in after] == [c.seat for c in before]
        assert all(e is not None and e["type"] == "hand_end" for e in ends)
        hand_id = ends[0]["hand"]  # type: ignore[index]
        events = fetch_log(nodes[0], hand_id)
        for c in after:
            spy(c, {hand_id: events}, c.seat)
        for c in before:
            spy(c, {hand_id: events}, c.seat)
        verify_with_cli(nodes[1], hand_id, env.root)
        assert len([e for e in events if e["type"] == "act"]) >= 6
    finally:
        for s in nodes:
            s.stop()
    env.audit()


@pytest.mark.parametrize("blind", [False, True], ids=["fjmj-serve", "fencing-only"])
def test_a_paused_owner_resumed_writes_nothing_of_a_table_it_lost(env: Env, blind: bool) -> None:
    """``fjmj-serve``: the resumed owner sees that it has not renewed in time and stops its
    actor before anything else. ``fencing-only``: an owner that never notices (its lease
    checks disabled, tests/cluster_server.py) handles the stale action, and the database
    refuses its write (the lease's epoch moved on)."""
    nodes = _start(env, 2, blind_last=blind)
    front, owner_node = nodes
    try:
        g = [front.guest(f"p{i}") for i in range(4)]
        t = owner_node.table(g[0]["token"], hands=1, turn_seconds=30)
        assert _node_of(owner_node) in (env.owner(t["id"])[0] or "")

        async def first() -> tuple[list[Client], Client, dict[str, Any], dict[str, Any]]:
            cs = [await Client(front.ws_url, x["token"]).connect() for x in g]
            for c in cs:
                await c.hello_join(t["id"], ready=True)
            c, state = await _answer_until(cs, 4)
            legal = state["view"]["legal_actions"]
            naive = _no_win(legal)
            stale = next(a for a in legal if a["type"] == "discard" and a != naive)
            # the owner stops with this action on its way to it (in its Redis channel)
            assert owner_node.proc is not None
            owner_node.proc.send_signal(signal.SIGSTOP)
            await c.send({"type": "act", "seq": state["seq"], "action": stale})
            return cs, c, state, stale

        cs, paused_client, state, stale = asyncio.run(first())
        try:
            _wait(
                lambda: (lambda o: o[0] is not None and _node_of(front) in o[0])(
                    env.owner(t["id"])
                ),
                10,
                "the front process took the table",
            )

            async def moved() -> list[Client]:
                for c in cs:  # their sockets close: the table's process went away
                    await _until_closed(c, 10)
                again = [await Client(front.ws_url, x["token"]).connect() for x in g]
                for c in again:
                    await c.hello_join(t["id"])
                # the hand goes on at its new owner: everyone acts a few times more
                await _answer_until(again, 6)
                for c in again:
                    await c.close()
                return again

            asyncio.run(moved())
        finally:
            assert owner_node.proc is not None
            owner_node.proc.send_signal(signal.SIGCONT)
        # the resumed process handles the stale action, finds its lease gone and stops its
        # actor (its log says so); it keeps serving
        why = "a write was refused" if blind else "its lease was not renewed in time"
        _wait(
            lambda: f"table {t['id']} stopped here: {why}" in owner_node.log.read_text(),
            15,
            "the resumed process stopped its actor",
        )
        assert owner_node.get("/api/tables").status_code == 200
        assert _node_of(front) in (env.owner(t["id"])[0] or "")

        async def finish() -> list[dict[str, Any] | None]:
            last = [await Client(front.ws_url, x["token"]).connect() for x in g]
            for c in last:
                await c.hello_join(t["id"])
            ends = await asyncio.gather(*(play(c) for c in last))
            for c in last:
                await c.close()
            return list(ends)

        ends = asyncio.run(finish())
        hand_id = state["hand"]
        assert all(e is not None and e["hand"] == hand_id for e in ends)
        events = fetch_log(front, hand_id)
        verify_with_cli(front, hand_id, env.root)
        # the decision the paused process was sent is not in the log: the seat's action at
        # that point is the one it made again at the new owner
        nxt = _next_act(events, paused_client.seat, state["view"])
        assert nxt["action"] == _no_win(state["view"]["legal_actions"]) != stale
        rows = asyncio.run(
            env.sql(
                "SELECT count(*) AS n, count(DISTINCT seq) AS d FROM events WHERE hand_id=$1",
                hand_id,
            )
        )
        assert rows[0]["n"] == rows[0]["d"] == len(events)
    finally:
        for s in nodes:
            s.stop()
    env.audit()


ROOM = "fuzhou-tcy:novice"
OTHER = "fuzhou-tcy:junior"


def _quickmatch(s: Server, token: str, room: str = ROOM) -> httpx.Response:
    return httpx.post(
        s.base + "/api/quickmatch",
        json={"room": room},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


def _playing(s: Server) -> dict[str, int]:
    return {r["id"]: r["playing"] for r in s.get("/api/rooms").json()}


def test_quick_match_through_three_processes_seats_everyone_at_one_table(env: Env) -> None:
    """Quick match and the rooms' ``playing`` counts cover every process's tables: players
    sent to three different processes share one table of the room (bots come only after
    ``quickmatch_wait_s``, a minute here); every process counts them."""
    cfg = env.root / "rooms.toml"
    cfg.write_text("[server]\nquickmatch_wait_s = 60\n")
    nodes = _start(env, 3, opts=("--config", str(cfg)))
    try:
        g = [nodes[i].guest(f"q{i}") for i in range(3)]
        r = _quickmatch(nodes[0], g[0]["token"])
        assert r.status_code == 200, r.text
        tid = r.json()["table"]
        assert _node_of(nodes[0]) in (env.owner(tid)[0] or "")  # made and run there
        # at once (no waiting for the table list's second): the next quick match, on
        # another process, reads the room's tables fresh from Redis
        r = _quickmatch(nodes[1], g[1]["token"])
        assert r.status_code == 200 and r.json()["table"] == tid, r.text

        def counts(n: int) -> bool:
            return all(_playing(s)[ROOM] == n for s in nodes)

        _wait(lambda: counts(2), 10, "every process counts two players in the room")
        assert all(
            v == 0 for s in nodes for k, v in _playing(s).items() if k != ROOM
        )  # the other rooms are empty
        r = _quickmatch(nodes[2], g[2]["token"])
        assert r.status_code == 200 and r.json()["table"] == tid, r.text
        # a second call, through a process that does not run the table: the same table
        r = _quickmatch(nodes[2], g[1]["token"])
        assert r.status_code == 200 and r.json()["table"] == tid, r.text
        # seated in this room, a quick match for another room is refused on any process
        r = _quickmatch(nodes[1], g[2]["token"], OTHER)
        assert r.status_code == 409 and r.json()["code"] == "already_seated", r.text
        _wait(lambda: counts(3), 10, "every process counts three players in the room")
        t = _listed(nodes[2])[tid]
        assert t["room"] == ROOM and t["humans"] == 3 and t["bots"] == 0
        assert t["status"] == "open"
        assert sorted(x["player_id"] for x in t["seats"] if x["player_id"] is not None) == sorted(
            x["player_id"] for x in g[:3]
        )

        async def join() -> None:
            # the seat is theirs over /ws through any process
            c = await Client(nodes[1].ws_url, g[0]["token"]).connect()
            await c.hello_join(tid)
            assert c.seat is not None
            await c.close()

        asyncio.run(join())
        # three quick matches for another room at the same moment, one per process: the
        # room's lock lets one in at a time, so the first makes the table and the others
        # find it
        h = [nodes[i].guest(f"r{i}") for i in range(3)]
        with ThreadPoolExecutor(3) as pool:
            rs = list(pool.map(lambda i: _quickmatch(nodes[i], h[i]["token"], OTHER), range(3)))
        assert all(r.status_code == 200 for r in rs), [r.text for r in rs]
        assert len({r.json()["table"] for r in rs}) == 1, [r.text for r in rs]
        _wait(lambda: all(_playing(s)[OTHER] == 3 for s in nodes), 10, "three in the other room")
        # the table's process dies: a survivor takes the table (the crash restore, which
        # also starts the bots' wait again there) and publishes it at once; once the dead
        # process's heartbeat has expired, quick match through the other survivor finds it
        import redis

        rd = redis.Redis.from_url(REDIS_URL)
        dead = next(
            n.decode()
            for n in rd.smembers(f"{env.prefix}:nodes")
            if _node_of(nodes[0]) in n.decode()
        )
        nodes[0].kill()
        _wait(
            lambda: (lambda o: o[0] is not None and o[2] and o[0] != dead)(env.owner(tid)),
            10,
            "a survivor owns the room's table",
        )
        owner = env.owner(tid)[0]
        assert owner is not None
        _wait(
            lambda: (
                rd.hget(f"{env.prefix}:tables:{owner}", str(tid)) is not None
                and not rd.exists(f"{env.prefix}:alive:{dead}")
            ),
            10,
            "the new owner lists the table, the dead process is gone",
        )
        via = next(s for s in nodes[1:] if _node_of(s) not in owner)
        r = _quickmatch(via, nodes[2].guest("q3")["token"])
        assert r.status_code == 200 and r.json()["table"] == tid, r.text
        _wait(lambda: all(_playing(s)[ROOM] == 4 for s in nodes[1:]), 10, "four in the room")
    finally:
        for s in nodes:
            s.stop()


def test_rooms_count_the_players_of_every_process() -> None:
    """In-process: ``playing`` adds the other processes' summaries of the room's tables
    (shared through Redis) to this process's own, each table once."""
    from types import SimpleNamespace

    from fujian_mahjong.server.rooms import RoomService, default_rooms
    from fujian_mahjong.server.table import Seat

    def actor(tid: int, humans: int, status: str = "open") -> Any:
        seats = [Seat(player_id=100 + i, name="x") for i in range(humans)]
        seats += [Seat(bot=True, name="b")] + [Seat() for _ in range(3 - humans)]
        return SimpleNamespace(id=tid, status=status, seats=seats)

    def summary(tid: int, room: str, humans: int, status: str = "open") -> dict[str, Any]:
        return {"id": tid, "room": room, "humans": humans, "status": status}

    remote = {
        2: summary(2, ROOM, 3),
        3: summary(3, ROOM, 1, "playing"),
        4: summary(4, OTHER, 2),
        5: summary(5, ROOM, 4, "closed"),
        1: summary(1, ROOM, 9),  # a stale copy of a table run here now: counted from here
    }
    lobby = SimpleNamespace(
        settings=SimpleNamespace(rooms=default_rooms()),
        tables={1: actor(1, 2), 6: actor(6, 1, "closed")},
        table_rooms={1: ROOM, 6: ROOM},
        cluster=SimpleNamespace(remote_tables=remote),
    )
    rooms = RoomService(lobby)  # type: ignore[arg-type]
    assert rooms.playing(ROOM) == 2 + 3 + 1
    assert rooms.playing(OTHER) == 2
    listed = {r["id"]: r["playing"] for r in rooms.listing("fuzhou-tcy")}
    assert listed[ROOM] == 6 and listed[OTHER] == 2
    lobby.cluster = None  # one process: its own tables only
    assert rooms.playing(ROOM) == 2 and rooms.playing(OTHER) == 0


def test_a_write_of_a_lease_taken_since_is_refused(env: Env) -> None:
    """In-process: the store's fence (server/cluster/lease.py) against a takeover."""
    from fujian_mahjong.server.cluster.lease import Leases
    from fujian_mahjong.server.store import LeaseLost, Store

    async def main() -> None:
        a, b = Store(env.db), Store(env.db)
        await a.open()
        await b.open()
        try:
            p, _ = await a.create_guest("x")
            tid = await a.create_table("ABCDE", p.id, "fuzhou-tcy", 4, 15.0, 1, False, [])
            la = Leases(a.engine, "node-a", 0.5)
            lb = Leases(b.engine, "node-b", 0.5)
            a.fences = {tid: await la.acquire_new(tid)}
            mid = await a.create_match(tid, 0, 4, "seed")
            hid = await a.create_hand(mid, tid, 0, "fuzhou-tcy", 4, 0, 0, "s", "h", [p.id] * 4)
            await a.append_events(hid, 0, [{"type": "x", "n": 0}])
            assert await lb.try_take(tid) is None  # a's lease is live: b cannot take it
            await asyncio.sleep(0.6)  # the lease (0.5 s) runs out unrenewed
            eb = await lb.try_take(tid)
            assert eb is not None and eb == a.fences[tid] + 1
            fenced: list[int] = []
            a.on_fenced = fenced.append
            with pytest.raises(LeaseLost):
                await a.append_events(hid, 1, [{"type": "x", "n": 1}])
            with pytest.raises(LeaseLost):
                await a.set_seat(tid, 0, p.id, bot=False)
            # a write made above the store (a dissolution's, economy.record_dissolution)
            # goes through table_write, fenced the same way: nothing of it is written
            with pytest.raises(LeaseLost):
                async with a.table_write(tid) as s:
                    await s.execute(
                        text("UPDATE tables SET status = 'closed' WHERE id = :t"), {"t": tid}
                    )
            assert fenced and set(fenced) == {tid}
            b.fences = {tid: eb}
            async with b.table_write(tid) as s:  # the holder's write goes through
                await s.execute(text("UPDATE tables SET status = status WHERE id = :t"), {"t": tid})
            assert (await env.sql("SELECT status FROM tables WHERE id=$1", tid))[0][
                "status"
            ] != "closed"
            await b.append_events(hid, 1, [{"type": "y", "n": 1}])
            rows = await env.sql("SELECT seq, data FROM events WHERE hand_id=$1 ORDER BY seq", hid)
            assert [json.loads(r["data"])["type"] for r in rows] == ["x", "y"]
            # renewing finds the lease lost
            assert await la.renew() == {tid}
            assert await lb.renew() == set()
            # a closed table's lease row goes (only its holder's, at its epoch)
            await la.release([tid], delete=True)  # not held by a: nothing happens
            assert await env.sql("SELECT owner FROM table_leases WHERE table_id=$1", tid)
            await lb.release([tid], delete=True)
            assert not await env.sql("SELECT owner FROM table_leases WHERE table_id=$1", tid)
            # a lease row a process owns but no longer holds (its actor stopped) is freed by
            # its next renewal, for anyone to take with a new epoch
            e2 = await lb.acquire_new(tid)
            lb.held.clear()
            assert await lb.renew() == set()
            rows = await env.sql("SELECT owner, epoch FROM table_leases WHERE table_id=$1", tid)
            assert rows[0]["owner"] is None and rows[0]["epoch"] == e2
            assert await la.try_take(tid) == e2 + 1
        finally:
            await a.close()
            await b.close()

    asyncio.run(main())


def test_redis_needs_postgresql(tmp_path: Path) -> None:
    out = subprocess.run(
        [FJMJ, "serve", "--data-dir", str(tmp_path), "--redis", REDIS_URL, "--port", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert "--redis needs PostgreSQL" in out.stderr


def test_http_lists_tables_only_of_live_processes(env: Env) -> None:
    """A process that stops cleanly gives its leases back at once; its tables are taken
    and listed by the others without waiting for a lease to run out."""
    nodes = _start(env, 2)
    try:
        g = nodes[1].guest("x")
        t = nodes[1].table(g["token"], hands=1)
        _wait(lambda: t["id"] in _listed(nodes[0]), 10, "listed on the other process")
        nodes[1].stop()
        _wait(
            lambda: (lambda o: o[0] is not None and _node_of(nodes[0]) in o[0])(env.owner(t["id"])),
            10,
            "the other process took the table",
        )
        r = httpx.get(nodes[0].base + f"/api/tables/{t['id']}", timeout=10)
        assert r.status_code == 200 and r.json()["id"] == t["id"]
        _wait(lambda: t["id"] in _listed(nodes[0]), 10, "still listed")
    finally:
        for s in nodes:
            s.stop()


def test_the_operator_sees_every_process_from_any(env: Env) -> None:
    """``GET /api/metrics`` on any process (with the operator's token) names that process
    and lists every live process's published figures: its tables, leases, decisions, the
    loop's lag; a process that stopped leaves the list."""
    token = secrets.token_urlsafe(16)
    (env.root / "operator").write_text(token)
    cfg = env.root / "fast-metrics.toml"
    cfg.write_text("[server]\nmetrics_refresh_s = 1\n")
    opts = ("--operator-token-file", str(env.root / "operator"), "--config", str(cfg))
    nodes = _start(env, 2, opts=opts)
    auth = {"Authorization": f"Bearer {token}"}

    def metrics(s: Server) -> dict[str, Any]:
        r = httpx.get(s.base + "/api/metrics", headers=auth, timeout=10)
        assert r.status_code == 200, r.text
        return dict(r.json())

    try:
        g = nodes[1].guest("x")
        t = nodes[1].table(g["token"], bots=3, hands=1)  # waits for its human
        both = [_node_of(n) for n in nodes]

        def listed() -> bool:
            m = metrics(nodes[0])
            ids = list((m.get("nodes") or {}).keys())
            return all(any(mark in i for i in ids) for mark in both)

        _wait(listed, 15, "both processes in the operator's list")
        m = metrics(nodes[0])
        assert _node_of(nodes[0]) in m["node"]
        theirs = next(v for k, v in m["nodes"].items() if _node_of(nodes[1]) in k)
        assert {"tables", "leases", "actions", "commits", "loop_lag_p99_ms"} <= set(theirs)
        _wait(
            lambda: any(
                v["leases"] >= 1 and v["tables"] >= 1
                for k, v in metrics(nodes[0])["nodes"].items()
                if _node_of(nodes[1]) in k
            ),
            15,
            f"table {t['id']} counted at its process",
        )
        assert httpx.get(nodes[0].base + "/api/metrics", timeout=10).status_code == 401
        nodes[1].stop()
        _wait(
            lambda: not any(_node_of(nodes[1]) in k for k in metrics(nodes[0])["nodes"]),
            15,
            "the stopped process left the list",
        )
    finally:
        for s in nodes:
            s.stop()


def test_a_table_is_looked_up_alike_through_every_process(env: Env) -> None:
    """``GET /api/tables/{ref}`` through a process that does not run the table answers what
    its owner answers (the owner's published summary), by code and by id, under the owner's
    privacy rule: a private table by id only for its creator, its seated players and those
    watching it. A code found on another process is no miss of the code-guessing limit."""
    a, b = _start(env, 2, opts=STEADY)
    try:
        creator, player, watcher, stranger = (a.guest(n) for n in ("c", "p", "w", "s"))
        pub = a.table(creator["token"], hands=1)
        priv = a.table(creator["token"], hands=1, private=True)

        def auth(who: dict[str, Any] | None) -> dict[str, str]:
            return {"Authorization": f"Bearer {who['token']}"} if who else {}

        def alike(ref: Any, who: dict[str, Any] | None = None) -> bool:
            ra, rb = (s.get(f"/api/tables/{ref}", headers=auth(who)) for s in (a, b))
            assert ra.status_code == 200, ra.text
            return rb.status_code == 200 and rb.json() == ra.json()

        # the owner publishes a table as it is made: found through B at once
        for ref in (pub["code"], pub["id"], priv["code"], priv["code"].lower()):
            assert alike(ref), ref
        for who in (None, stranger, player, watcher):  # not the private table's, by id
            for s in (a, b):
                r = s.get(f"/api/tables/{priv['id']}", headers=auth(who))
                assert r.status_code == 404 and r.json()["code"] == "no_table", r.text
        assert alike(priv["id"], creator)

        async def seated() -> None:
            # a seat and a spectator of the private table (sockets on B, the table on A)
            p = await Client(b.ws_url, player["token"]).connect()
            w = await Client(b.ws_url, watcher["token"]).connect()
            await p.hello_join(priv["code"])
            await w.hello_join(priv["code"], as_="spectator")
            try:
                for who in (player, watcher, creator):
                    await asyncio.to_thread(
                        _wait, lambda who=who: alike(priv["id"], who), 10, "the same table by id"
                    )
                await asyncio.to_thread(
                    _wait, lambda: alike(priv["code"]), 10, "the same table by code"
                )
            finally:
                await p.close()
                await w.close()

        asyncio.run(seated())
        r = b.get(f"/api/tables/{priv['id']}", headers=auth(stranger))
        assert r.status_code == 404, r.text
        # the public list is as it was: no private table, nothing of the privacy rule
        listed = _listed(b)
        assert priv["id"] not in listed and pub["id"] in listed
        assert all(set(t) == set(listed[pub["id"]]) for t in listed.values())
        assert set(listed[pub["id"]]) == set(a.get(f"/api/tables/{pub['id']}").json())
        # valid codes through B never count toward the limit of misses (60 a minute)
        for _ in range(70):
            r = b.get(f"/api/tables/{priv['code']}")
            assert r.status_code == 200, r.text
        assert b.get("/api/tables/ZZZZZ").status_code == 404
    finally:
        for s in (a, b):
            s.stop()


def test_redis_passwords_are_never_shown() -> None:
    """The Redis URL in the cluster's log lines and error messages hides its password."""
    from types import SimpleNamespace

    from fujian_mahjong.server.cluster import Cluster, shown_url

    cases = {
        "redis://127.0.0.1:6379/0": "redis://127.0.0.1:6379/0",
        "redis://:s3cret@10.0.0.5:6379/0": "redis://:***@10.0.0.5:6379/0",
        "rediss://app:s3cret@[::1]:6380/2": "rediss://app:***@[::1]:6380/2",
        "redis://s3cret@host": "redis://***@host",
        "redis://host/0?password=s3cret&db=1": "redis://host/0?password=***&db=1",
        "unix:///run/redis.sock?db=0&Password=s3cret": "unix:///run/redis.sock?db=0&Password=***",
        "redis://a:b:c@@host": "redis://a:***@host",
        "redis://[::1": "(an unparsable URL)",
        "s3cret@host:6379": "(an unparsable URL)",
    }
    for url, shown in cases.items():
        assert shown_url(url) == shown, url
    # the error of a Redis that cannot be reached (nothing listens on port 1)
    settings = SimpleNamespace(redis_url="redis://:s3cret@127.0.0.1:1/0", lease_s=2.0)
    store = SimpleNamespace(engine=None, dialect_name="sqlite")
    cluster = Cluster(settings, store, SimpleNamespace())  # type: ignore[arg-type]
    store.dialect_name = "postgresql"
    with pytest.raises(RuntimeError) as e:
        asyncio.run(cluster.start())
    assert "s3cret" not in str(e.value) and "redis://:***@127.0.0.1:1/0" in str(e.value)


def _workers(
    env: Env, log_name: str
) -> tuple[subprocess.Popen[str], int, Path, Callable[[], set[int]]]:
    """`fjmj serve --workers 2` on a free port: (the supervisor, the port, its log, the
    pids of the live workers registered in Redis)."""
    import redis

    r = redis.Redis.from_url(REDIS_URL)
    port = free_port()
    cmd = [FJMJ, "serve", "--port", str(port), "--data-dir", str(env.root / "w")]
    cmd += ["--db", env.db, "--redis", REDIS_URL, "--redis-prefix", env.prefix]
    cmd += ["--lease-s", str(LEASE_S), "--workers", "2"]
    log = env.root / log_name
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True)
    atexit.register(lambda: proc.poll() is None and proc.kill())

    def pids() -> set[int]:
        alive = [
            n.decode()
            for n in r.smembers(f"{env.prefix}:nodes")
            if r.exists(f"{env.prefix}:alive:{n.decode()}")
        ]
        return {int(n.rsplit("-", 2)[1]) for n in alive}

    return proc, port, log, pids


def test_workers_share_one_port_and_a_dead_worker_is_replaced(env: Env) -> None:
    proc, port, log, pids = _workers(env, "workers.log")

    try:
        _wait(lambda: len(pids()) == 2, 90, "two workers registered")
        first = pids()
        base = f"http://127.0.0.1:{port}"
        g = httpx.post(base + "/api/guests", json={"name": "w"}, timeout=10).json()
        auth = {"Authorization": f"Bearer {g['token']}"}
        t = httpx.post(base + "/api/tables", json={}, headers=auth, timeout=10).json()
        _wait(
            lambda: all(
                t["id"] in {x["id"] for x in httpx.get(base + "/api/tables", timeout=10).json()}
                for _ in range(4)
            ),
            10,
            "the table is listed whichever worker answers",
        )
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        _wait(lambda: len(pids()) == 2 and victim not in pids(), 60, "a new worker replaced it")
        assert "starting another" in log.read_text()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    assert proc.returncode == 0
    assert not pids()


def test_workers_stop_when_their_supervisor_is_killed(env: Env) -> None:
    proc, _port, log, pids = _workers(env, "orphans.log")
    workers: set[int] = set()
    try:
        _wait(lambda: len(pids()) == 2, 90, "two workers registered")
        workers = pids()
        proc.kill()  # SIGKILL: the supervisor tells its workers nothing
        proc.wait(timeout=10)
        # each worker notices, stops as on SIGTERM (leaves the cluster's list) and exits
        _wait(lambda: not pids(), 60, "the workers stopped")
        _wait(lambda: not any(_alive(p) for p in workers), 30, "the worker processes exited")
        assert log.read_text().count("the supervisor is gone") == 2
    finally:
        proc.kill()
        for w in workers:  # a failed run leaves nothing behind
            with contextlib.suppress(OSError):
                os.kill(w, signal.SIGKILL)
