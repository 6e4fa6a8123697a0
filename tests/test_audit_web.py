"""Adversarial review of the browser client (issue 13 item 3, R12 rev 2): the server sends a
public ``discard`` notice at once and the next ``state`` only after the claim pause; the
client ignored the notice, so for the whole pause the discarded tile stayed in the hand (a
second tap could try to discard again) and the river did not show it. Now the notice is
shown at once. Real ``fjmj serve`` + Debian's Chromium; any console error fails."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.test_server_support import Server as RealServer
from tests.test_web import CHROMIUM, Watched, browser, hand_tiles  # noqa: F401

if TYPE_CHECKING:
    from playwright.sync_api import Browser

PAUSE_MS = 1500


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    s = RealServer(tmp_path_factory.mktemp("audit-web"), claim_pause_ms=PAUSE_MS).start()
    yield s
    s.stop()


def _post(base: str, path: str, body: dict[str, object], token: str | None = None) -> dict:
    req = urllib.request.Request(base + path, method="POST", data=json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=10) as r:
        return dict(json.loads(r.read()))


def test_a_discard_shows_at_once_inside_the_claim_pause(
    slow_server: RealServer,
    browser: Browser,  # noqa: F811
) -> None:
    base = slow_server.base
    g = _post(base, "/api/guests", {"name": "快手"})
    w = Watched(browser, "en-US")
    pg = w.page
    river = ""
    for _attempt in range(4):  # a new table when a bot wins before this seat discards
        t = _post(base, "/api/tables", {"bots": 3, "hands": 1, "turn_seconds": 60}, g["token"])
        pg.goto(f"{base}/?token={g['token']}&table={t['id']}")
        pg.wait_for_selector("[data-role=waiting-room] [data-action=ready]")
        pg.click("[data-action=ready]")
        url = f"{base}/api/tables/{t['id']}"
        info = json.loads(urllib.request.urlopen(url, timeout=10).read())
        seat = next(s["seat"] for s in info["seats"] if s["player_id"] == g["player_id"])
        river = f"[data-seat='{seat}'] [data-role=river] [data-tile]"
        end = time.time() + 40
        while time.time() < end:
            if pg.locator("[data-role=hand-end]").count():
                break
            if pg.locator("[data-action=discard]").count() and len(hand_tiles(pg)) % 3 == 2:
                break
            if pg.locator("[data-action=pass]").count():  # a claim prompt first: decline
                pg.locator("[data-action=pass]").first.click()
            pg.wait_for_timeout(100)
        else:
            pytest.fail("no turn to discard in 40 s")
        if not pg.locator("[data-role=hand-end]").count():
            break
    else:
        pytest.fail("bots won before this seat discarded at 4 tables in a row")
    before = len(hand_tiles(pg))
    in_river = pg.locator(river).count()
    tile = pg.locator("[data-role=hand] [data-tile]:not(.disabled)").last
    kind = tile.get_attribute("data-tile")
    t0 = time.monotonic()
    tile.click()
    tile.click()  # the second tap discards
    # inside the claim pause (no state yet): the tile left the hand and lies in the river
    pg.wait_for_function(
        f"document.querySelectorAll({json.dumps(river)}).length === {in_river + 1}",
        timeout=PAUSE_MS,
    )
    assert time.monotonic() - t0 < PAUSE_MS / 1000
    assert len(hand_tiles(pg)) == before - 1
    assert pg.locator(river).last.get_attribute("data-tile") == kind
    assert pg.locator("[data-action=discard]").count() == 0  # nothing to act on meanwhile
    pg.wait_for_timeout(PAUSE_MS + 300)  # the state after the pause agrees (a claimed
    # discard leaves the river again; the hand keeps its count until our next draw)
    assert len(hand_tiles(pg)) == before - 1 or pg.locator("[data-role=hand-end]").count()
    w.close()  # fails on any console error
