"""Adversarial review of the browser client (R12 rev 2): the server sends a public
``discard`` notice at once and the next ``state`` only after the claim pause; the client
ignored the notice, so for the whole pause the discarded tile stayed in the hand (a second
tap could try to discard again) and the river did not show it. Now the notice is shown at
once. The real app in its own process (tests/serve_test_server.py) on MAIN_WALL, where the
human deals, + Debian's Chromium; any console error fails."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from tests.test_web import (  # noqa: F401
    CHROMIUM,
    MAIN_WALL,
    SHORT_OPENING_MS,
    Server,
    Watched,
    browser,
    hand_tiles,
    serving,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

PAUSE_MS = 1500

RIVER = "[data-role=river] [data-tile]"
# before the page's scripts: every message of the page's sockets is noted, with what the
# page shows of our river, hand and decisions at that moment, before the client reads it
# (this listener is added in the constructor, so it runs before the client's onmessage)
RECORD_ARRIVALS = """(() => {
  const river = %s;
  const Native = window.WebSocket;
  window.__arrivals = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (ev) => {
        let type = null;
        try { type = JSON.parse(ev.data).type; } catch (_e) { /* not ours */ }
        const tiles = document.querySelectorAll(river);
        window.__arrivals.push({
          type,
          river: tiles.length,
          last: tiles.length ? tiles[tiles.length - 1].dataset.tile : null,
          hand: document.querySelectorAll("[data-role=hand] [data-tile]").length,
          discard_buttons: document.querySelectorAll("[data-action=discard]").length,
        });
      });
    }
  };
})();"""


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(
        tmp_path_factory.mktemp("audit-web"),
        [MAIN_WALL],
        claim_pause_ms=PAUSE_MS,
        opening_ms=SHORT_OPENING_MS,  # the claim pause is the point here, not the opening
    ) as s:
        yield s


def test_a_discard_shows_at_once_inside_the_claim_pause(
    slow_server: Server,
    browser: Browser,  # noqa: F811
) -> None:
    s = slow_server
    g = s.http("POST", "/api/guests", {"name": "快手"})
    tid = s.table(g["token"], bots=3, hands=1, turn_seconds=60)
    w = Watched(browser, "en-US")
    pg = w.page
    pg.add_init_script(RECORD_ARRIVALS % json.dumps(f"[data-seat='0'] {RIVER}"))
    pg.goto(f"{s.base}/?token={g['token']}&table={tid}")
    pg.wait_for_selector("[data-role=waiting-room] [data-action=ready]")
    pg.click("[data-action=ready]")
    info = s.http("GET", f"/api/tables/{tid}")
    seat = next(x["seat"] for x in info["seats"] if x["player_id"] == g["player_id"])
    assert seat == 0  # the creator's seat, the dealer's in MAIN_WALL
    river = f"[data-seat='{seat}'] [data-role=river] [data-tile]"
    # we deal: our turn to discard at once
    expect(pg.locator("[data-action=discard]")).to_be_visible()
    assert len(hand_tiles(pg)) == 17
    before = len(hand_tiles(pg))
    in_river = pg.locator(river).count()
    tile = pg.locator("[data-role=hand] [data-tile]:not(.disabled)").last
    kind = tile.get_attribute("data-tile")
    n0 = pg.evaluate("window.__arrivals.length")
    t0 = time.monotonic()
    tile.click()
    tile.click()  # the second tap discards
    pg.wait_for_function(
        f"document.querySelectorAll({json.dumps(river)}).length === {in_river + 1}"
    )
    assert len(hand_tiles(pg)) == before - 1
    assert pg.locator(river).last.get_attribute("data-tile") == kind
    assert pg.locator("[data-action=discard]").count() == 0  # nothing to act on meanwhile
    # the state after the pause agrees: seat 1 draws (nobody claims our tile in MAIN_WALL),
    # our tile stays in the river, and our hand keeps its count until our next draw
    pg.locator(".seat.turn[data-seat='1']").wait_for(timeout=PAUSE_MS + 20_000)
    assert time.monotonic() - t0 >= PAUSE_MS / 1000 * 0.5  # not before the pause (jitter)
    assert len(hand_tiles(pg)) == before - 1
    assert pg.locator(river).count() == in_river + 1
    # inside the claim pause (no state yet): what the page showed when the first state after
    # our discard came in (recorded before the client read it), not a time limit: the
    # notice came first, and the tile had left the hand for the river with nothing to act on
    came = pg.evaluate("n => window.__arrivals.slice(n)", n0)
    kinds = [a["type"] for a in came]
    assert "state" in kinds and "discard" in kinds[: kinds.index("state")], kinds
    at_state = came[kinds.index("state")]
    assert at_state["river"] == in_river + 1 and at_state["last"] == kind, at_state
    assert at_state["hand"] == before - 1 and at_state["discard_buttons"] == 0, at_state
    w.close()  # fails on any console error
