"""Probes and metrics (docs/deploy.md, "Probes and metrics"): ``GET /livez`` (the loop
answers), ``GET /readyz`` (200 while the process accepts tables, 503 with its reason as
the error's code while it drains, while its store cannot write or while its cluster's Redis bus is down) and
``GET /metrics`` in the Prometheus text format behind the operator's token. In-process
(tests/inproc.py), fake clock; the cluster is a stand-in object (the readiness probe reads
it duck-typed)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from tests.inproc import running
from tests.test_hardening_rest import _play_to_end

TOKEN = "operator-token-0123456789"


def _ready(r: Any, reasons: list[str]) -> None:
    if reasons:
        assert r.status_code == 503, r.text
        body = r.json()
        assert set(body) == {"detail", "code"} and body["code"] == reasons[0], body
        assert "\n" not in body["detail"]
        assert body["detail"].count(";") == len(reasons) - 1, body
    else:
        assert r.status_code == 200, r.text
        assert r.json() == {"ok": True, "status": "ready"}


def test_livez_and_readyz_follow_the_store_the_bus_and_draining(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            r = await h.http.get("/livez")
            assert r.status_code == 200 and r.json() == {"ok": True}
            _ready(await h.http.get("/readyz"), [])
            # the store cannot write (a full disk): not ready, still live
            h.faults.fail(1)
            assert (await h.http.post("/api/guests", json={"name": "x"})).status_code == 503
            _ready(await h.http.get("/readyz"), ["store_failing"])
            assert (await h.http.get("/livez")).status_code == 200
            # the next write commits: ready again
            assert (await h.http.post("/api/guests", json={"name": "y"})).status_code == 200
            _ready(await h.http.get("/readyz"), [])
            # a cluster whose Redis bus is down; one without the attribute is healthy
            h.app.state.cluster = SimpleNamespace(bus_ok=False)
            _ready(await h.http.get("/readyz"), ["bus_down"])
            h.app.state.cluster = SimpleNamespace()
            _ready(await h.http.get("/readyz"), [])
            h.app.state.cluster = SimpleNamespace(bus_ok=True)
            _ready(await h.http.get("/readyz"), [])
            # draining (SIGTERM), and every reason at once
            h.app.state.draining = True
            _ready(await h.http.get("/readyz"), ["draining"])
            h.app.state.cluster = SimpleNamespace(bus_ok=False)
            h.faults.fail(1)
            assert (await h.http.post("/api/guests", json={"name": "z"})).status_code == 503
            r = await h.http.get("/readyz")
            _ready(r, ["draining", "store_failing", "bus_down"])
            assert "draining" in r.json()["detail"] and "Redis" in r.json()["detail"]
            assert (await h.http.get("/livez")).status_code == 200
            h.app.state.cluster = None
            h.app.state.draining = False

    asyncio.run(main())


def _families(text: str) -> dict[str, Any]:
    return {f.name: f for f in text_string_to_metric_families(text)}


def _value(fams: dict[str, Any], name: str, sample: str | None = None, **labels: str) -> float:
    fam = fams[name]
    for s in fam.samples:
        if s.name == (sample or name) and all(s.labels.get(k) == v for k, v in labels.items()):
            return float(s.value)
    raise AssertionError(f"no sample {sample or name} {labels} in {fam.samples}")


def test_metrics_in_the_prometheus_format_behind_the_operator_token(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "none") as h:
            # no operator token configured: the route does not exist
            r = await h.http.get("/metrics")
            assert r.status_code == 404 and r.json()["code"] == "not_found"
        async with running(tmp_path / "op", operator_token=TOKEN) as h:
            for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"}):
                r = await h.http.get("/metrics", headers=headers)
                assert r.status_code == 401 and r.json()["code"] == "unauthorized", r.text
                assert r.headers["www-authenticate"] == "Bearer"
            auth = {"Authorization": f"Bearer {TOKEN}"}
            me = await h.guest("me")
            tid = await h.table(me, bots=3, hands=1)
            await h.seat(me, tid)
            await h.ready(me)
            await _play_to_end(h, me)
            h.faults.fail(1)
            assert (await h.http.post("/api/guests", json={"name": "x"})).status_code == 503
            r = await h.http.get("/metrics", headers=auth)
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
            fams = _families(r.text)
            decisions = _value(fams, "fjmj_decisions", "fjmj_decisions_total")
            assert decisions == h.lobby.actions > 0
            assert fams["fjmj_decisions"].type == "counter"
            # one latency observation per decision, in a histogram
            lat = fams["fjmj_decision_notice_seconds"]
            assert lat.type == "histogram"
            count = _value(fams, lat.name, "fjmj_decision_notice_seconds_count")
            assert count == decisions
            inf = _value(fams, lat.name, "fjmj_decision_notice_seconds_bucket", le="+Inf")
            assert inf == count
            assert _value(fams, "fjmj_tables") == len(h.lobby.tables)
            assert _value(fams, "fjmj_commits", "fjmj_commits_total") == h.store.commits > 0
            assert _value(fams, "fjmj_store_failures", "fjmj_store_failures_total") == 1
            assert _value(fams, "fjmj_store_failing") == 1
            assert _value(fams, "fjmj_sockets") == 0  # in-process clients hold no socket
            assert _value(fams, "fjmj_draining") == 0
            # every series names its process
            import os

            pids = {s.labels.get("pid") for f in fams.values() for s in f.samples}
            assert pids == {str(os.getpid())}
            # no cluster: no cluster series; a stand-in cluster's figures are read
            assert "fjmj_leases" not in fams
            h.app.state.cluster = SimpleNamespace(
                node="n1",
                bus_ok=False,
                takeovers=2,
                leases=SimpleNamespace(held={1: 1, 2: 1}),
                metrics=lambda: {"remote_sockets": 5, "bus_failures": 3, "bus_rejected": 1},
            )
            try:
                fams = _families((await h.http.get("/metrics", headers=auth)).text)
            finally:
                h.app.state.cluster = None
            assert _value(fams, "fjmj_leases") == 2
            assert _value(fams, "fjmj_takeovers", "fjmj_takeovers_total") == 2
            assert _value(fams, "fjmj_bus_up") == 0
            assert _value(fams, "fjmj_bus_failures", "fjmj_bus_failures_total") == 3
            assert _value(fams, "fjmj_remote_sockets") == 5
            assert _value(fams, "fjmj_bus_rejected", "fjmj_bus_rejected_total") == 1
            assert _value(fams, "fjmj_node", node="n1") == 1

    asyncio.run(main())


def test_each_app_has_its_own_registry(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            running(tmp_path / "a", operator_token=TOKEN) as a,
            running(tmp_path / "b", operator_token=TOKEN) as b,
        ):
            assert a.app.state.metrics.registry is not b.app.state.metrics.registry
            me = await a.guest("me")
            tid = await a.table(me, bots=3, hands=1)
            await a.seat(me, tid)
            await a.ready(me)
            await _play_to_end(a, me)
            auth = {"Authorization": f"Bearer {TOKEN}"}
            fa = _families((await a.http.get("/metrics", headers=auth)).text)
            fb = _families((await b.http.get("/metrics", headers=auth)).text)
            assert _value(fa, "fjmj_decisions", "fjmj_decisions_total") > 0
            assert _value(fb, "fjmj_decisions", "fjmj_decisions_total") == 0
            name = "fjmj_decision_notice_seconds"
            assert _value(fb, name, name + "_count") == 0

    asyncio.run(main())


def test_a_stopping_server_deals_no_new_hand_even_at_a_table_of_bots(tmp_path: Path) -> None:
    """SIGTERM with one process (``app.state.drain``): tables finish the hand in progress
    and deal no other. A table of four bots goes from one hand to the next inside one
    command, so the drain never found it between two hands and it dealt on until the
    drain's time was up (19 hands in 4 s), leaving a hand in progress behind."""

    async def main() -> None:
        async with running(tmp_path, bot_delay_ms=0) as h:
            me = await h.guest("me")
            r = await h.http.post(
                "/api/tables",
                json={"profile": "fuzhou-tcy", "hands": 64, "bots": 4},
                headers={"Authorization": f"Bearer {me.token}"},
            )
            assert r.status_code in (200, 201), r.text
            t = h.lobby.tables[int(r.json()["id"])]

            async def two_hands_in() -> None:
                while t.match is None or t.match.hands_played < 2:
                    await asyncio.sleep(0)

            await asyncio.wait_for(two_hands_in(), 10)
            assert t.status in ("playing", "between")
            before = t.match.hands_played
            await asyncio.wait_for(h.app.state.drain(30.0), 10)
            assert t.match.hands_played <= before + 1  # the hand in progress, no other
            async with h.store.engine.connect() as c:
                from sqlalchemy import text

                playing = (
                    await c.execute(text("SELECT count(*) FROM hands WHERE status = 'playing'"))
                ).scalar_one()
            assert playing == 0 and t.status != "playing"

    asyncio.run(main())
