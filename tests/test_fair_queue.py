"""Fair under abuse (docs/deploy.md, "Fair under load"): the review worker's turns go
round robin over the players asking, each with a bounded share of the queue, so a flood
from a few players delays a fifth but never denies it; a player has one hint being
prepared at a time; a WebSocket that does not say hello within 10 s is closed (1008);
an HTTP connection whose request head does not arrive in time is closed.

In-process on the fake clock (tests/inproc.py), the review worker a stub the test lets go
one turn at a time; the WebSocket driven as ASGI messages. The head deadline is uvicorn's
protocol on a real loopback socket with the deadline made short: the test waits for the
close it expects, never for a fixed time."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from fujian_mahjong.server import idle, web_api
from fujian_mahjong.server.ratelimit import FairTurn
from tests.inproc import Client, Harness, running
from tests.test_hardening_rest import _play_to_end


async def _finished_hand(h: Harness, name: str) -> int:
    me: Client = await h.guest(name)
    tid = await h.table(me, bots=3, hands=1)
    await h.seat(me, tid)
    await h.ready(me)
    return int((await _play_to_end(h, me))["hand"])


async def _until(cond: Any, give_up_s: float = 60.0) -> None:
    """Until ``cond()`` holds: requests reaching the queue (through the store's thread),
    never time passing."""
    start = time.monotonic()
    while not cond():
        assert time.monotonic() - start < give_up_s, "never happened"
        await asyncio.sleep(0.001)


def test_fair_turn_is_round_robin_over_keys() -> None:
    async def main() -> None:
        turn = FairTurn()
        order: list[str] = []
        await turn.acquire("first")

        async def one(key: str) -> None:
            async with turn.hold(key):
                order.append(key)

        tasks = [asyncio.create_task(one(k)) for k in ("a", "a", "a", "b", "c", "b")]
        gone = asyncio.create_task(one("d"))
        await asyncio.sleep(0)
        assert turn.waiting() == 7
        gone.cancel()  # a waiter that goes away leaves its place
        await asyncio.sleep(0)
        assert turn.waiting() == 6
        turn.release()
        await asyncio.gather(*tasks)
        assert order == ["a", "b", "c", "a", "b", "a"]
        assert not turn.locked()

    asyncio.run(main())


def test_a_flood_of_reviews_from_four_players_does_not_deny_a_fifth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[tuple[int, int]] = []
    gate: asyncio.Queue[None] = asyncio.Queue()

    async def stub_worker(workers: Any, events: list[dict[str, Any]], seat: int) -> dict[str, Any]:
        """Stands in for the review worker: one review per ``gate`` item."""
        await gate.get()
        return {"seat": seat, "decisions": []}

    monkeypatch.setattr(web_api, "_in_worker", stub_worker)

    async def main() -> None:
        async with running(tmp_path) as h:
            hands = [await _finished_hand(h, f"p{i}") for i in range(3)]
            keys = [(hand, seat) for hand in hands for seat in range(4)]
            players = [await h.guest(f"reviewer{i}") for i in range(5)]
            clients = [
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=h.app, client=(f"10.0.0.{i + 1}", 4000)),
                    base_url="http://testserver",
                    headers={"Authorization": f"Bearer {p.token}"},
                )
                for i, p in enumerate(players)
            ]

            def queued() -> int:
                reviews = getattr(h.app.state, "reviews", None)
                return len(reviews.running) if reviews is not None else 0

            def ask(i: int, key: tuple[int, int]) -> asyncio.Task[httpx.Response]:
                async def get() -> httpx.Response:
                    r = await clients[i].get(f"/api/hands/{key[0]}/review", params={"seat": key[1]})
                    served.append(key)
                    return r

                return asyncio.create_task(get())

            # four players ask for every review they can, each from its own address
            flood: dict[int, list[asyncio.Task[httpx.Response]]] = {}
            k = iter(keys)
            for i in range(4):
                flood[i] = [ask(i, next(k))]
                await _until(lambda i=i: queued() == 2 * i + 1)
                flood[i].append(ask(i, next(k)))
                await _until(lambda i=i: queued() == 2 * i + 2)
                # beyond its share: 429 at once, costing nobody else anything
                r = await clients[i].get(f"/api/hands/{hands[2]}/review", params={"seat": 3})
                assert r.status_code == 429 and r.json()["code"] == "rate_limited", r.text
                assert int(r.headers["retry-after"]) > 0
            reviews = h.app.state.reviews
            assert len(reviews.running) == 8
            # the fifth player is queued, not refused
            fifth_key = next(k)
            fifth = ask(4, fifth_key)
            await _until(lambda: len(reviews.running) == 9)
            assert not fifth.done()
            # the worker's turns: one flooder's review is running, the other three's next,
            # then the fifth player's — before any flooder's second
            for _ in range(5):
                gate.put_nowait(None)
            r = await fifth
            assert r.status_code == 200 and r.json()["seat"] == fifth_key[1]
            assert served.index(fifth_key) == 4, served
            for _ in range(4):
                gate.put_nowait(None)
            for tasks in flood.values():
                for t in tasks:
                    assert (await t).status_code == 200
            assert not reviews.running and not reviews.by_player and not reviews.by_address
            for c in clients:
                await c.aclose()

    asyncio.run(main())


def test_one_hint_at_a_time_per_player(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            tid = await h.table(me, bots=3, hands=1)
            await h.seat(me, tid)
            await h.ready(me)
            await h.settle()
            h.dispatcher.hinting[me.player_id] = 1  # a hint of theirs at another table
            await me.send({"type": "hint"})
            assert me.errors()[-1] == "rate_limited"
            assert not h.dispatcher.hints
            del h.dispatcher.hinting[me.player_id]

    asyncio.run(main())


class _Socket:
    """One WebSocket driven as ASGI messages on the app (in-process)."""

    def __init__(self, app: Any) -> None:
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        scope = {
            "type": "websocket",
            "asgi": {"version": "3.0"},
            "scheme": "ws",
            "path": "/ws",
            "raw_path": b"/ws",
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", b"testserver")],
            "client": ("10.0.0.9", 5000),
            "server": ("testserver", 80),
            "subprotocols": [],
        }
        self.inbox.put_nowait({"type": "websocket.connect"})
        self.task = asyncio.create_task(app(scope, self.inbox.get, self.outbox.put))

    async def next(self) -> dict[str, Any]:
        return await asyncio.wait_for(self.outbox.get(), 60)

    def send(self, msg: dict[str, Any]) -> None:
        self.inbox.put_nowait({"type": "websocket.receive", "text": json.dumps(msg)})

    async def gone(self) -> None:
        self.inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(self.task, 60)


def test_a_socket_without_hello_is_closed_after_10_s(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            metrics = h.app.state.metrics
            silent = _Socket(h.app)
            assert (await silent.next())["type"] == "websocket.accept"
            me = await h.guest("me")  # a player whose socket says hello at once
            talker = _Socket(h.app)
            assert (await talker.next())["type"] == "websocket.accept"
            talker.send({"type": "hello", "token": me.token})
            welcome = await talker.next()
            assert json.loads(welcome["text"])["type"] == "welcome"
            assert metrics.sockets == 2
            await h.advance(9.9)
            assert silent.outbox.empty() and talker.outbox.empty()
            await h.advance(0.1)
            closed = await silent.next()
            assert closed == {"type": "websocket.close", "code": 1008, "reason": "no hello"}
            await silent.gone()
            assert metrics.sockets_no_hello == 1
            await h.advance(60.0)
            assert talker.outbox.empty()  # said hello: stays open
            await talker.gone()
            assert metrics.sockets == 0 and metrics.sockets_opened == 2

    asyncio.run(main())


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A tiny ASGI app: answers after ``?slow`` seconds (a request being answered)."""
    if scope["type"] != "http":
        return
    slow = float(scope["query_string"].decode() or 0)
    await asyncio.sleep(slow)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.mark.parametrize("impl", ["h11", "httptools"])
def test_a_request_head_that_does_not_arrive_closes_the_connection(
    impl: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    import uvicorn

    if impl == "h11":
        from uvicorn.protocols.http import h11_impl

        base: type[Any] = h11_impl.H11Protocol
    else:
        base = pytest.importorskip("uvicorn.protocols.http.httptools_impl").HttpToolsProtocol
    monkeypatch.setattr(idle, "HEAD_TIMEOUT_S", 0.3)

    async def main() -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        config = uvicorn.Config(
            _app, http=idle.with_head_deadline(base), lifespan="off", log_level="error"
        )
        server = uvicorn.Server(config)
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        await _until(lambda: server.started)

        async def closed_without_answer(*chunks: bytes) -> None:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            for c in chunks:
                writer.write(c)
            await writer.drain()
            assert await asyncio.wait_for(reader.read(), 30) == b""  # closed, no answer
            writer.close()

        try:
            await closed_without_answer()  # silent from the start
            await closed_without_answer(b"GET / HTTP/1.1\r\nHost: x\r\n")  # head never ends
            # a request whose answer takes longer than the head's deadline is answered
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /?1.0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = await asyncio.wait_for(reader.read(), 30)
            assert answer.startswith(b"HTTP/1.1 200") and b"\r\nok\r\n" in answer, answer
            writer.close()
        finally:
            server.should_exit = True
            await serving

    asyncio.run(main())


# ------------------------------------------------------------------ the OpenAPI's last mismatches


def test_optional_tokens_and_guest_names_are_declared_as_they_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What schemathesis found with its authentication and positive-data checks: routes
    that answer without a token declared the token as required (ST401, ST203), and guest
    names the schema allowed were refused (ST202). Checked here on a finished hand (the
    hand routes answer 200 only for one) and on generated guest names."""
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from schemathesis.checks import not_a_server_error
    from schemathesis.generation import GenerationMode
    from schemathesis.python.asgi import get_client, shutdown_lifespans
    from schemathesis.specs.openapi.checks import (
        ignored_auth,
        missing_required_header,
        positive_data_acceptance,
        response_schema_conformance,
        status_code_conformance,
    )

    from fujian_mahjong.server.app import create_app

    checks = [
        not_a_server_error,
        status_code_conformance,
        response_schema_conformance,
        positive_data_acceptance,
        ignored_auth,
        missing_required_header,
    ]

    async def stub_worker(workers: Any, events: list[dict[str, Any]], seat: int) -> dict[str, Any]:
        return {"seat": seat, "decisions": []}

    monkeypatch.setattr(web_api, "_in_worker", stub_worker)

    async def play() -> tuple[int, Any]:
        async with running(tmp_path) as h:
            return await _finished_hand(h, "me"), h.settings

    hand, st = asyncio.run(play())
    app: Any = create_app(st)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    try:
        with get_client(app) as client:
            token = client.post("/api/guests", json={"name": "fuzz"}).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            results: list[Any] = list(schema.get_all_operations())
            ops = {r.ok().label: r.ok() for r in results}
            for label, query in (
                ("GET /api/hands/{hand_id}", {}),
                ("GET /api/hands/{hand_id}/log", {}),
                ("GET /api/hands/{hand_id}/replay", {}),
                ("GET /api/hands/{hand_id}/review", {"seat": 1}),
                ("GET /api/hands/{hand_id}/summary", {}),
            ):
                case = ops[label].Case(path_parameters={"hand_id": hand}, query=query)
                case.call_and_validate(headers=auth, checks=checks)
            for label in ("GET /livez", "GET /readyz"):
                ops[label].Case().call_and_validate(checks=checks)

            @given(
                case=ops["POST /api/guests"].as_strategy(generation_mode=GenerationMode.POSITIVE)
            )
            @settings(
                max_examples=60,
                deadline=None,
                derandomize=True,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            def guests(case: Any) -> None:
                case.call_and_validate(checks=checks)

            guests()
    finally:
        shutdown_lifespans()
