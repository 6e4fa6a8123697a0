"""The browser table's screenshots for docs/screenshots/ (``make screenshots``; not a test,
not run by ``make test``): desktop 1280×800, phone landscape 844×390 and phone portrait
390×844, in Chinese — the opening,
the claim prompt, the table mid-hand right after an opponent's pong beat our chow, the end
of the hand, the replay; and the lobby. README.md shows some of them under older names
(hand-desktop.png, …), copied at the end. The same real app on the same stacked wall as
tests/test_web_table.py (TABLE_WALL), driven by clicks; every wait is on DOM state."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

from tests.test_web import CHROMIUM, WAIT_MS, serving  # noqa: E402
from tests.test_web import SHOTS as DOC_SHOTS  # noqa: E402
from tests.test_web_table import TABLE_WALL  # noqa: E402

ACTIONS = "[data-role=actions] button"
# FJMJ_SHOTS=DIR writes them elsewhere (to look at a change before refreshing the docs)
# FJMJ_SHOTS_LOCALE=en-US takes them in English (the page follows the browser's language)
SHOTS = Path(os.environ.get("FJMJ_SHOTS") or DOC_SHOTS)
VIEWPORTS = (
    ("desktop", (1280, 800), False),
    ("landscape", (844, 390), True),
    ("phone", (390, 844), True),
)


def discard_rightmost(pg: Page) -> None:
    tile = pg.locator("[data-role=hand] [data-tile]:not(.disabled)").last
    tile.click()
    expect(pg.locator("[data-role=hand] .selected")).to_have_count(1)
    tile.click()


def journey(pg: Page, base: str, tok: str, tid: int, tag: str) -> None:
    if tag == "desktop":
        pg.goto(f"{base}/?token={tok}")
        pg.locator("[data-action=create]").wait_for()
        pg.screenshot(path=str(SHOTS / "lobby.png"))
    pg.goto(f"{base}/?token={tok}&table={tid}")
    pg.click("[data-action=ready]")
    pg.locator("[data-role=opening][data-step=flower]").wait_for()
    pg.screenshot(path=str(SHOTS / f"opening-flower-{tag}.png"))
    pg.locator("[data-role=opening][data-step=gold]").wait_for()
    pg.screenshot(path=str(SHOTS / f"opening-{tag}.png"))
    # the opening ends on its own within its budget; clicking its skip button raced that end
    # (the button could go between finding it and clicking it)
    pg.locator("[data-role=opening]").wait_for(state="detached")
    for _ in range(12):
        pg.locator(ACTIONS).first.wait_for()
        chow = pg.locator(f"{ACTIONS}[data-action=chow]")
        if chow.count() and pg.get_attribute("[data-role=last-discard]", "data-from") == "3":
            pg.screenshot(path=str(SHOTS / f"claim-{tag}.png"))
            chow.first.click()
            break
        if pg.locator(f"{ACTIONS}[data-action=discard]").count():
            discard_rightmost(pg)
        else:
            pg.locator(f"{ACTIONS}[data-action=pass]").click()
    pg.locator("[data-role=log-entry][data-kind=claim-lost]").wait_for(state="attached")
    print(tag, "bubbles:", pg.locator("[data-role=bubble]").count(), flush=True)
    pg.screenshot(path=str(SHOTS / f"table-{tag}.png"))
    pg.click("[data-role=tuoguan] input")
    pg.locator("[data-role=hand-end] [data-winning]").wait_for()
    pg.locator("[data-role=hand-end] [data-role=breakdown]").wait_for()
    pg.screenshot(path=str(SHOTS / f"end-of-hand-{tag}.png"))
    href = pg.get_attribute("[data-role=open-replay]", "href") or ""
    hid = re.search(r"replay=(\d+)", href).group(1)  # type: ignore[union-attr]
    pg.goto(f"{base}/?replay={hid}&seat=0")
    pg.locator("[data-role=replay-board]").wait_for()
    for _ in range(6):
        pg.click("[data-role=replay-next]")
    pg.screenshot(path=str(SHOTS / f"replay-{tag}.png"))


def main() -> int:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as tmp,
        serving(Path(tmp), [TABLE_WALL]) as server,
        sync_playwright() as p,
    ):
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for tag, vp, mobile in VIEWPORTS:
            if os.environ.get("FJMJ_SHOTS_ONLY") and tag not in os.environ["FJMJ_SHOTS_ONLY"]:
                continue
            ctx = b.new_context(
                viewport={"width": vp[0], "height": vp[1]},
                locale=os.environ.get("FJMJ_SHOTS_LOCALE", "zh-CN"),
                is_mobile=mobile,
                has_touch=mobile,
                device_scale_factor=2 if mobile else 1,
            )
            ctx.set_default_timeout(WAIT_MS)
            tok = server.guest("新手")
            journey(ctx.new_page(), server.base, tok, server.table(tok), tag)
            ctx.close()
        b.close()
    if os.environ.get("FJMJ_SHOTS_ONLY"):
        return 0
    # the names README.md shows
    for src, dst in (
        ("table-desktop", "hand-desktop"),
        ("table-phone", "hand-phone"),
        ("claim-desktop", "claim-prompt"),
        ("end-of-hand-desktop", "end-of-hand"),
        ("replay-desktop", "replay-review"),
    ):
        shutil.copyfile(SHOTS / f"{src}.png", SHOTS / f"{dst}.png")
    print(f"screenshots in {SHOTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
