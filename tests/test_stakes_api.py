"""``GET /api/stakes``: the operator's bounds on a private table's stake and fee
(docs/protocol.md, "Rooms"), as ``fjmj serve --config``'s ``[tables]`` and the settings give
them; a stake inside them is accepted by ``POST /api/tables`` and one outside is refused."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fujian_mahjong.server.rooms import parse_config
from tests.inproc import running


def test_stake_bounds_are_the_settings(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            r = await h.http.get("/api/stakes")
            assert r.status_code == 200
            assert r.json() == {"min": 0, "max": 10**9, "max_fee_ratio": 1.0}

    asyncio.run(main())


def test_stake_bounds_from_the_config_file_bound_table_creation(tmp_path: Path) -> None:
    cfg = parse_config("[tables]\nstake_min = 2\nstake_max = 40\n")
    cfg["max_fee_ratio"] = 0.5

    async def main() -> None:
        async with running(tmp_path, **cfg) as h:
            bounds = (await h.http.get("/api/stakes")).json()
            assert bounds == {"min": 2, "max": 40, "max_fee_ratio": 0.5}
            g = (await h.http.post("/api/guests", json={"name": "甲"})).json()
            auth = {"Authorization": f"Bearer {g['token']}"}
            body = {"profile": "fuzhou-tcy", "hands": 1, "bots": 3}
            for stake, ok in ((1, False), (2, True), (40, True), (41, False)):
                r = await h.http.post("/api/tables", json={**body, "stake": stake}, headers=auth)
                if ok:
                    assert r.status_code == 200, r.text
                    assert r.json()["stakes"]["stake"] == stake
                else:
                    assert r.status_code == 422 and r.json()["code"] == "stake_out_of_bounds"
            # the fee bound is the ratio the endpoint names
            too_high = {**body, "stake": 10, "fee": 6}
            r = await h.http.post("/api/tables", json=too_high, headers=auth)
            assert r.status_code == 422 and r.json()["code"] == "fee_too_high"
            r = await h.http.post("/api/tables", json={**too_high, "fee": 5}, headers=auth)
            assert r.status_code == 200, r.text

    asyncio.run(main())


def test_stake_bounds_take_no_input(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            r = await h.http.post("/api/stakes", json={})
            assert r.status_code == 405 and r.json()["code"]
            assert "/api/stakes" in (await h.http.get("/openapi.json")).json()["paths"]

    asyncio.run(main())
