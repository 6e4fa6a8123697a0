"""``GET /api/hands/{id}/review`` under load and faults (server/web_api.py): new reviews are
limited per client address (429 ``rate_limited``, cached ones free), the queue of new
reviews is bounded (503 ``busy``), each app keeps its own reviews, and a review worker
that died or is stuck is replaced. In-process (tests/inproc.py: the real app over httpx's ASGI
transport, a fake clock); the worker is the real spawned process, running a stand-in for
``build_review`` from tests/workerjobs.py (the real review is tested in tests/test_review.py and
tests/test_web_api.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from fujian_mahjong.server import web_api
from fujian_mahjong.server.deals import FixedDeals
from tests.inproc import Client, Harness, running
from tests.test_hardening_rest import _play_to_end
from tests.workerjobs import dying_review, quick_review, stuck_review


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_api, "build_review", quick_review)


async def _finished_hand(h: Harness, name: str = "me") -> int:
    """A one-hand table of a guest and three bots, played to its end: the hand's id."""
    me: Client = await h.guest(name)
    tid = await h.table(me, bots=3, hands=1)
    await h.seat(me, tid)
    await h.ready(me)
    return int((await _play_to_end(h, me))["hand"])


def _error(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.json() == {"detail": r.json()["detail"], "code": code}
    assert int(r.headers["retry-after"]) > 0


async def _until(cond: Any, give_up_s: float = 60.0) -> None:
    """Until ``cond()`` holds: waits for requests to reach the queue (through the store's
    thread), never for time to pass."""
    start = time.monotonic()
    while not cond():
        assert time.monotonic() - start < give_up_s, "the requests never queued"
        await asyncio.sleep(0.001)


def test_new_reviews_are_limited_per_address(
    tmp_path: Path, quick: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_api, "REVIEWS_PER_MINUTE", 2)

    async def main() -> None:
        async with running(tmp_path) as h:
            hand = await _finished_hand(h)
            url = f"/api/hands/{hand}/review"
            for seat in (0, 1, 1, 0, 1):  # two new ones; asking again is free
                r = await h.http.get(url, params={"seat": seat})
                assert r.status_code == 200, r.text
                assert r.json()["seat"] == seat and r.json()["id"] == hand
                assert r.json()["bot"] == web_api.REVIEW_BOT == "strong"
            r = await h.http.get(url, params={"seat": 2})
            _error(r, 429, "rate_limited")
            assert int(r.headers["retry-after"]) <= 60
            # another address is not limited by this one
            other = httpx.AsyncClient(
                transport=httpx.ASGITransport(app=h.app, client=("10.0.0.9", 4000)),
                base_url="http://testserver",
            )
            async with other:
                r = await other.get(url, params={"seat": 2})
                assert r.status_code == 200 and r.json()["seat"] == 2
                r = await other.get(url, params={"seat": 3})
                assert r.status_code == 200 and r.json()["seat"] == 3
            # this address again after a minute (the server's clock)
            await h.advance(60.0)
            r = await h.http.get(url, params={"seat": 3})
            assert r.status_code == 200 and r.json()["seat"] == 3

    asyncio.run(main())


def test_the_queue_of_new_reviews_is_bounded(
    tmp_path: Path, quick: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_api, "REVIEW_QUEUE", 2)

    async def main() -> None:
        async with running(tmp_path) as h:
            hand = await _finished_hand(h)
            url = f"/api/hands/{hand}/review"
            r = await h.http.get(url, params={"seat": 0})
            assert r.status_code == 200
            reviews = h.app.state.reviews
            await reviews.turn.acquire()  # the worker is busy with a long review
            try:
                waiting = [asyncio.create_task(h.http.get(url, params={"seat": s})) for s in (1, 2)]
                await _until(lambda: len(reviews.running) == 2)
                # a third new one is refused, and the refusal costs the address nothing;
                # a request for one already queued is not refused (it joins it); a
                # finished one is served
                _error(await h.http.get(url, params={"seat": 3}), 503, "busy")
                assert len(reviews.limiter._hits["127.0.0.1"]) == 3
                again = asyncio.create_task(h.http.get(url, params={"seat": 1}))
                r = await h.http.get(url, params={"seat": 0})
                assert r.status_code == 200
                assert len(reviews.running) == 2
            finally:
                reviews.turn.release()
            for task, seat in zip([*waiting, again], (1, 2, 1), strict=True):
                r = await task
                assert r.status_code == 200 and r.json()["seat"] == seat
            assert not reviews.running
            r = await h.http.get(url, params={"seat": 3})
            assert r.status_code == 200 and r.json()["seat"] == 3

    asyncio.run(main())


def test_each_app_keeps_its_own_reviews(tmp_path: Path, quick: None) -> None:
    async def main() -> None:
        async with (
            running(tmp_path / "a", deals=FixedDeals("a")) as a,
            running(tmp_path / "b", deals=FixedDeals("b")) as b,
        ):
            ha, hb = await _finished_hand(a), await _finished_hand(b)
            assert ha == hb  # the same id in two stores
            for h in (a, b):
                r = await h.http.get(f"/api/hands/{ha}/review", params={"seat": 0})
                log = await h.http.get(f"/api/hands/{ha}/log", params={"format": "json"})
                assert r.status_code == log.status_code == 200
                assert r.json()["head"] == log.json()[0]
            assert a.app.state.reviews is not b.app.state.reviews

    asyncio.run(main())


def test_a_dead_review_worker_is_replaced(
    tmp_path: Path, quick: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            hand = await _finished_hand(h)
            url = f"/api/hands/{hand}/review"
            r = await h.http.get(url, params={"seat": 0})
            assert r.status_code == 200
            first = r.json()["pid"]
            # the worker is killed between reviews: the next one starts a new worker
            pool = h.app.state.workers
            assert pool.pids() == [first]
            os.kill(first, signal.SIGKILL)
            r = await h.http.get(url, params={"seat": 1})
            assert r.status_code == 200, r.text
            assert r.json()["pid"] != first
            assert first not in pool.pids()
            # a review that kills every worker it runs in: 503 busy, not a 500 for ever
            monkeypatch.setattr(web_api, "build_review", dying_review)
            _error(await h.http.get(url, params={"seat": 2}), 503, "busy")
            assert not h.app.state.reviews.running
            monkeypatch.setattr(web_api, "build_review", quick_review)
            r = await h.http.get(url, params={"seat": 2})
            assert r.status_code == 200 and r.json()["seat"] == 2

    asyncio.run(main())


def test_a_stuck_review_worker_is_stopped_and_replaced(
    tmp_path: Path, quick: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            hand = await _finished_hand(h)
            url = f"/api/hands/{hand}/review"
            monkeypatch.setattr(web_api, "REVIEW_TIMEOUT_S", 1.0)
            monkeypatch.setattr(web_api, "build_review", stuck_review)
            r = await h.http.get(url, params={"seat": 0})
            _error(r, 503, "busy")
            pool = h.app.state.workers
            assert pool.pids() == [] and pool.stats.timeouts == 1  # its worker was killed
            assert not h.app.state.reviews.running
            # the queue is free again and the next review runs in a new worker (which takes
            # a while to start: the usual timeout again)
            monkeypatch.setattr(web_api, "REVIEW_TIMEOUT_S", 45.0)
            monkeypatch.setattr(web_api, "build_review", quick_review)
            r = await h.http.get(url, params={"seat": 0})
            assert r.status_code == 200 and r.json()["seat"] == 0

    asyncio.run(main())
